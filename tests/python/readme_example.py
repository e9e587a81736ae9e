# The "Using from Python" example of ext/REFERENCE.md, run as it is written
# (tests/python/idempotency.py checks its output and that the document shows
# this file).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import sqlite3

con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension("./bloom")          # ./bloom.so; SQLite adds the suffix
con.enable_load_extension(False)

# Requests already processed, keyed by (tenant, request id).
con.execute("CREATE TABLE processed(tenant TEXT, request INTEGER)")
con.executemany("INSERT INTO processed VALUES (?, ?)",
                [("acme", n) for n in range(1, 1001)])

# The filter is a bytes value: keep it, or store it in a table.
(f,) = con.execute("SELECT bloom_build(bloom_key(tenant, request), 1000, 0.01)"
                   " FROM processed").fetchone()
print(type(f).__name__, len(f))
print(con.execute("SELECT bits, hashes, inserted FROM bloom_info(?)",
                  (f,)).fetchone())

# One probe: bind the filter and the key parts as parameters.
for tenant, request in [("acme", 42), ("acme", 42.0), ("acme", "42"),
                        ("acme", 1001), ("globex", 42)]:
    (maybe,) = con.execute("SELECT bloom_test(?, bloom_key(?, ?))",
                           (f, tenant, request)).fetchone()
    print(tenant, repr(request), "maybe seen" if maybe else "certainly new")

# Many probes: one statement, the filter bound once.
con.execute("CREATE TABLE incoming(tenant TEXT, request INTEGER)")
con.executemany("INSERT INTO incoming VALUES (?, ?)",
                [("acme", n) for n in range(501, 1501)])
(maybe,) = con.execute("SELECT count(*) FROM incoming"
                       " WHERE bloom_test(?1, bloom_key(tenant, request))",
                       (f,)).fetchone()
print(maybe, "of 1000 incoming ids need a lookup")
