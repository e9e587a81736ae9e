"""Filters and databases carried between this machine and the emulated one
(CROSS_ARCH, through tests/cross/remote.py).  Prints TAP.

- Blobs: the same SQL (every function that makes a blob, over values of
  every storage class and of every length a hash block and tail can
  take) gives the same bytes on both machines, and the independent reader
  (tests/interop/bloomreader.py) finds every value in them.
- Layout-1 blobs: a growing and a sized quotient_store filled with the
  same values (the growing one splits its leaves) export the same bytes
  on both machines, hold every value (quotient_test, an answer derived
  from no false negatives) and report the same quotient_info.
- Databases, both ways: one machine writes a database (a table of values,
  a table of filter blobs, Bloom and cuckoo stores, fixed, scalable and
  windowed, quotient stores growing and sized, some values deleted from
  the cuckoo and quotient ones); the other opens the
  file, exports every store and probes every value through every store
  and blob, then writes more (inserts, deletes, bloom_add, cuckoo_delete);
  the first reopens it and reads it all again.  At each step both machines
  export the same bytes and give the same answers, which are those of the
  same history run on this machine alone; no store or blob has a false
  negative; the reader reassembles each store from its shadow tables
  alone (read here by this machine's SQLite) into the bytes the
  extension exports (the Bloom and cuckoo stores: the reader does not
  read layout-1 quotient blobs); PRAGMA integrity_check is ok on both.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os
import platform
import re
import sqlite3
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python"),
                os.path.join(HERE, "..", "interop")]

import bloomreader as br                                        # noqa: E402
import remote                                                   # noqa: E402
from bloomhost import Tap                                       # noqa: E402

ARCH = os.environ.get("CROSS_ARCH", "")
ORDER = {"arm64": "little-endian", "s390x": "big-endian"}

# 3,000 values: integers (extremes included), REALs (integral ones hash as
# INTEGERs), TEXT with non-ASCII characters, BLOBs and strings of every
# length from 0 to 49 (every tail of a 16-byte hash block, up to three
# blocks), and bloom_key composite keys.
VALUES = """
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2994)
SELECT i, CASE i % 6
  WHEN 0 THEN i * 7919 - 5000000
  WHEN 1 THEN i * 0.37
  WHEN 2 THEN printf('text %d, é ✓', i)
  WHEN 3 THEN CAST(printf('%.*c%d', i % 41, 'x', i) AS BLOB)
  WHEN 4 THEN bloom_key(i, printf('%d', i), i * 0.5)
  ELSE substr('abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQ', 1, i % 50)
       || i END FROM n
UNION ALL VALUES (2995, 9223372036854775807), (2996, -9223372036854775808),
  (2997, -0.0), (2998, 9e999), (2999, x''), (3000, '')
"""
# Values no filter holds (the same on both machines: an answer is compared,
# not assumed).
ABSENT = """
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
SELECT 100000 + i, CASE i % 4 WHEN 0 THEN -i - 0.5 WHEN 1 THEN printf('absent %d', i)
  WHEN 2 THEN CAST(printf('absent blob %d', i) AS BLOB) ELSE i * 1000003 END FROM n
"""

# (name, SQL giving one blob) for the blob comparison; `items` holds VALUES.
BLOBS = [
    ("bloom_build at 1%", "SELECT bloom_build(x, 3000, 0.01) FROM items"),
    ("bloom_build overfilled (100 for 3,000)",
     "SELECT bloom_build(x, 100, 0.001) FROM items"),
    ("bloom_build of 1 in 3 values, large",
     "SELECT bloom_build(x, 200000, 0.0001) FROM items WHERE id % 3 = 0"),
    ("cuckoo_build at 1%", "SELECT cuckoo_build(x, 3000, 0.01) FROM items"),
    ("cuckoo_build at 0.1%", "SELECT cuckoo_build(x, 5000, 0.001) FROM items"),
    ("quotient_build at 1%", "SELECT quotient_build(x, 3000, 0.01) FROM items"),
    ("quotient_build at 0.01%",
     "SELECT quotient_build(x, 5000, 0.0001) FROM items WHERE id % 2 = 0"),
    ("bloom_add over bloom_empty",
     "SELECT bloom_add(bloom_empty(500, 0.02), 1, 'a', x'00ff', 2.5, NULL, -0.0)"),
    ("cuckoo_add then cuckoo_delete",
     "SELECT cuckoo_delete(cuckoo_add(cuckoo_add(cuckoo_build(x, 4000) , 'z'), "
     "'y'), 'z') FROM items WHERE id % 2 = 0"),
    ("bloom_union", "SELECT bloom_union((SELECT bloom_build(x, 3000, 0.01) FROM "
     "items WHERE id % 2 = 0), (SELECT bloom_build(x, 3000, 0.01) FROM items "
     "WHERE id % 2 = 1))"),
    ("bloom_intersect", "SELECT bloom_intersect((SELECT bloom_build(x, 3000, 0.01)"
     " FROM items WHERE id % 3 != 0), (SELECT bloom_build(x, 3000, 0.01) FROM "
     "items WHERE id % 3 != 1))"),
    ("bloom_merge of 7 parts", "SELECT bloom_merge(f) FROM (SELECT bloom_build("
     "x, 3000, 0.01) AS f FROM items GROUP BY id % 7)"),
]

# The stores: (name, module arguments, windowed).  The windowed ones keep
# the events clock, so that their time is the values' `at`, the same on
# both machines.
STORES = [
    ("fb", "bloom_store(capacity = 5000, fpr = 0.01)", False),
    ("fc", "cuckoo_store(capacity = 5000, fpr = 0.01)", False),
    ("sb", "bloom_store(capacity = 200, growth = 2, fpr = 0.01)", False),
    ("sc", "cuckoo_store(capacity = 200, growth = 3, fpr = 0.01)", False),
    ("wb", "bloom_store(fpr = 0.01, window = 3600, clock = 'events')", True),
    ("wc", "cuckoo_store(fpr = 0.01, window = '1 hour', generations = 3, "
     "capacity = 1000, clock = 'events')", True),
    ("fq", "quotient_store(capacity = 5000, fpr = 0.01)", False),
    ("gq", "quotient_store(fpr = 0.01)", False),
]
# The stores some values are deleted from (a seventh of them).
DELETES = ("fc", "sc", "fq", "gq")
# The stores the reader (tests/interop/bloomreader.py) reassembles: it does
# not read layout-1 quotient blobs.
READER_STORES = [s for s in STORES if not s[1].startswith("quotient_store")]

# Layout-1 blobs compared in memory: (name, module arguments, page size).
# At 512-byte pages a leaf holds up to 69 entries (FORMAT.md, "Kind 4:
# quotient_store"), so 3,000 values split the growing store's leaves many
# times.
QUOTIENT_STORES = [
    ("quotient_store growing, 512-byte pages", "quotient_store(fpr = 0.01)", 512),
    ("quotient_store growing at 0.1%", "quotient_store(fpr = 0.001)", 4096),
    ("quotient_store(capacity = 3000)", "quotient_store(capacity = 3000, fpr = 0.01)",
     4096),
    ("quotient_store(capacity = 500), overfilled, 512-byte pages",
     "quotient_store(capacity = 500, fpr = 0.01)", 512),
]


def layout1_example():
    """FORMAT.md's worked example of "Kind 4, layout 1": (the statements,
    the blob's bytes as the text dumps them, lines left out zeros)."""
    with open(os.path.join(HERE, "..", "..", "ext", "FORMAT.md"),
              encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n## Kind 4, layout 1")[1].split("\n### Worked example")[1]
    section = section.split("\n#")[0]
    m = re.search(r"`(SELECT [^`]+)` for `(CREATE [^`]+)` after `(INSERT [^`]+)` "
                  r"is an? (\d+)-byte blob", " ".join(section.split()))
    out = bytearray(int(m.group(4)))
    for line in section.split("\n"):
        d = re.match(r"^    (\d+)\s+([0-9A-F ]+)$", line)
        if d:
            chunk = bytes.fromhex(d.group(2).replace(" ", ""))
            out[int(d.group(1)):int(d.group(1)) + len(chunk)] = chunk
    return [m.group(2), m.group(3), m.group(1)], bytes(out)


def native(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.enable_load_extension(True)
    conn.load_extension(os.environ["NATIVE_BLOOM_SO"])
    conn.enable_load_extension(False)
    return conn


def emulated(path=":memory:"):
    return remote.connect(path)


def make_items(conn):
    conn.execute("CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, x)")
    conn.execute("INSERT INTO items " + VALUES)
    conn.execute("CREATE TABLE IF NOT EXISTS absent(id INTEGER PRIMARY KEY, x)")
    conn.execute("INSERT INTO absent " + ABSENT)


def check_blobs(tap):
    here, there = native(), emulated()
    for c in (here, there):
        make_items(c)
    same = [r[0] for r in here.execute("SELECT count(*) FROM items")] == \
        [r[0] for r in there.execute("SELECT count(*) FROM items")] == [3000]
    values = {i: x for i, x in here.execute("SELECT id, x FROM items")}
    tap.ok(same and values == {i: x for i, x in there.execute(
        "SELECT id, x FROM items")},
           "the 3,000 values are the same on both machines")
    for name, sql in BLOBS:
        a = here.execute(sql).fetchone()[0]
        b = there.execute(sql).fetchone()[0]
        diag = []
        if a != b:
            at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), None)
            diag = ["%d bytes here, %d there; first difference at byte %r"
                    % (len(a), len(b), at)]
        tap.ok(isinstance(a, bytes) and a == b,
               "%s: the same %d bytes on both machines" % (name, len(a or b"")), *diag)
    here.close()
    there.close()
    statements, want = layout1_example()
    got = []
    for c in (native(), emulated()):
        for sql in statements[:-1]:
            c.execute(sql)
        got.append(c.execute(statements[-1]).fetchone()[0])
        c.close()
    tap.ok(got[0] == got[1] == want.hex().upper(),
           "FORMAT.md's layout-1 worked example: the %d bytes it prints on both "
           "machines" % len(want), "text:  %s" % want.hex().upper(),
           "here:  %s" % got[0], "there: %s" % got[1])
    for name, args, page in QUOTIENT_STORES:
        got = []
        for c in (native(), emulated()):
            c.execute("PRAGMA page_size = %d" % page)
            make_items(c)
            c.execute("CREATE VIRTUAL TABLE q USING " + args)
            c.execute("INSERT INTO q(value) SELECT x FROM items")
            c.execute("DELETE FROM q WHERE value IN (SELECT x FROM items WHERE "
                      "id % 7 = 0)")
            blob = c.execute("SELECT filter FROM q").fetchone()[0]
            leaves = c.execute("SELECT count(*) FROM q_directory").fetchone()[0]
            # Every value kept answers 1 in the export, and the export answers
            # every value, kept, deleted or absent, as the store does.
            missed = c.execute("SELECT count(*) FROM items WHERE id % 7 != 0 AND "
                               "NOT quotient_test(?1, x)", (blob,)).fetchone()[0]
            unlike = c.execute(
                "SELECT count(*) FROM (SELECT x FROM items UNION ALL SELECT x FROM "
                "absent) AS p WHERE quotient_test(?1, p.x) != EXISTS (SELECT 1 FROM "
                "q WHERE value = p.x)", (blob,)).fetchone()[0]
            kept = c.execute("SELECT count(*) FROM items WHERE id % 7 = 0 AND "
                             "quotient_test(?1, x)", (blob,)).fetchone()[0]
            info = c.execute("SELECT * FROM quotient_info(?1)", (blob,)).fetchone()
            got.append((blob, leaves, missed, unlike, kept, info))
            c.close()
        (a, la, ma, ua, ka, ia), (b, lb, mb, ub, kb, ib) = got
        # 3,000 values in, the 428 of ids divisible by 7 deleted: each delete
        # removes one entry, or none when entries of several widths match
        # the value (FORMAT.md), which then still answers 1; a value matches
        # an entry not its own with probability below fpr, so at most 428 *
        # fpr of them in expectation (three times that allowed).
        deleted = 3000 // 7
        fpr = float(args.split("fpr = ")[1].rstrip(")"))
        want = (a == b and la == lb and ia == ib and ma == mb == 0 and ua == ub == 0
                and ka == kb and ia[0] == "quotient" and ia[3] == la and ia[4] == 0
                and ia[5] == len(a) and ia[6] == (int(args.split("capacity = ")[1]
                                                      .split(",")[0])
                                                  if "capacity" in args else 10000)
                and ia[7] == fpr
                and 0 <= ia[8] - (3000 - deleted) <= ka <= 3 * deleted * fpr)
        tap.ok(want, "%s: the same %d-byte layout-1 export of %d leaves on both "
               "machines, holding every value kept, answering as the store, "
               "its quotient_info the same and as the store holds"
               % (name, len(a), la),
               "here: %d leaves, %d missed, %d unlike the store, %d deleted still "
               "found, info %r" % (la, ma, ua, ka, ia),
               "there: %d leaves, %d missed, %d unlike the store, %d deleted still "
               "found, info %r" % (lb, mb, ub, kb, ib))
    # The reader finds every value in what the emulated machine built.
    here, there = native(), emulated()
    make_items(there)
    blob = there.execute(BLOBS[0][1]).fetchone()[0]
    f = br.Filter(blob)
    missing = [i for i, x in values.items() if not f.test(x)]
    tap.ok(not missing, "the reader finds all 3,000 values in the emulated "
           "machine's bloom_build", *["value %r" % values[i] for i in missing[:5]])
    here.close()
    there.close()


# --- databases ---------------------------------------------------------------

def first_writes(conn):
    """The first machine's history: values, blobs, stores."""
    make_items(conn)
    conn.execute("CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB)")
    conn.execute("INSERT INTO filters SELECT 'bloom', bloom_build(x, 4000, 0.01)"
                 " FROM items WHERE id <= 2000")
    conn.execute("INSERT INTO filters SELECT 'cuckoo', cuckoo_build(x, 4000, 0.01)"
                 " FROM items WHERE id <= 2000")
    for name, args, windowed in STORES:
        conn.execute("CREATE VIRTUAL TABLE %s USING %s" % (name, args))
        if windowed:
            conn.execute("INSERT INTO %s(value, at) SELECT x, 1000000 + id * 5 "
                         "FROM items WHERE id <= 2000" % name)
        else:
            conn.execute("INSERT INTO %s(value) SELECT x FROM items WHERE id <= 2000"
                         % name)
    for name in DELETES:
        conn.execute("DELETE FROM %s WHERE value IN (SELECT x FROM items WHERE "
                     "id <= 2000 AND id %% 7 = 0)" % name)
    conn.commit()


def second_writes(conn):
    """The second machine's: more values into every store and blob, more
    deletes, all into what the first machine wrote."""
    for name, _, windowed in STORES:
        if windowed:
            conn.execute("INSERT INTO %s(value, at) SELECT x, 1000000 + id * 5 "
                         "FROM items WHERE id > 2000" % name)
        else:
            conn.execute("INSERT INTO %s(value) SELECT x FROM items WHERE id > 2000"
                         % name)
    for name in DELETES:
        conn.execute("DELETE FROM %s WHERE value IN (SELECT x FROM items WHERE "
                     "id > 2000 AND id %% 7 = 0)" % name)
    rows = [r[0] for r in conn.execute("SELECT x FROM items WHERE id > 2000 AND "
                                       "id <= 2100 ORDER BY id")]
    for x in rows:
        conn.execute("UPDATE filters SET f = bloom_add(f, ?1) WHERE name = 'bloom'",
                     (x,))
        conn.execute("UPDATE filters SET f = cuckoo_add(f, ?1) WHERE name = 'cuckoo'",
                     (x,))
    conn.execute("UPDATE filters SET f = cuckoo_delete(f, (SELECT x FROM items "
                 "WHERE id = 14)) WHERE name = 'cuckoo'")
    conn.commit()


def members(step):
    """The ids a non-windowed store or blob must hold after `step` (1, 2):
    the windowed stores forget by design, so they are only compared."""
    last = 2000 if step == 1 else 3000
    stores = {i for i in range(1, last + 1)}
    cuckoo = {i for i in stores if i % 7}
    blob = set(range(1, 2001)) | (set(range(2001, 2101)) if step == 2 else set())
    return {"fb": stores, "sb": stores, "fc": cuckoo, "sc": cuckoo,
            "fq": cuckoo, "gq": cuckoo,
            "bloom": blob, "cuckoo": blob - ({14} if step == 2 else set())}


def snapshot(conn):
    """Everything one machine reads from the database: each store's export
    and its answer for every value, its summary row, each blob, its
    answers and bloom_info or cuckoo_info, and integrity_check."""
    s = {}
    probe_ids = "SELECT id, x FROM items UNION ALL SELECT id, x FROM absent ORDER BY id"
    for name, _, _ in STORES:
        s[name] = conn.execute("SELECT filter FROM %s" % name).fetchone()[0]
        s[name + " answers"] = tuple(conn.execute(
            "SELECT id, EXISTS (SELECT 1 FROM %s WHERE value = p.x) FROM (%s) AS p"
            % (name, probe_ids)).fetchall())
    for name, test in (("bloom", "bloom_test"), ("cuckoo", "cuckoo_test")):
        s[name] = conn.execute("SELECT f FROM filters WHERE name = ?1",
                               (name,)).fetchone()[0]
        s[name + " answers"] = tuple(conn.execute(
            "SELECT p.id, %s(f.f, p.x) FROM filters AS f, (%s) AS p "
            "WHERE f.name = ?1" % (test, probe_ids), (name,)).fetchall())
        s[name + " info"] = tuple(conn.execute(
            "SELECT * FROM %s(?1)" % test.replace("test", "info"),
            (s[name],)).fetchone())
    for name, _, _ in STORES:
        s[name + " summary"] = conn.execute("SELECT summary FROM %s" % name).fetchall()
    s["integrity"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
    return s


def false_negatives(snap, step):
    bad = []
    for name, ids in sorted(members(step).items()):
        answers = dict(snap[name + " answers"])
        missing = sorted(i for i in ids if answers.get(i) != 1)
        if missing:
            bad.append("%s: %d values missing, ids %s" % (name, len(missing), missing[:5]))
    return bad


def reader_reassembles(path, snap):
    """The reader's blob of each store, from the shadow tables read by this
    machine's SQLite, against the export of `snap`."""
    plain = sqlite3.connect(path)
    bad = []
    try:
        for name, _, _ in READER_STORES:
            try:
                mine = br.read_store(plain, name)
            except br.FormatError as e:
                bad.append("%s: the reader refuses it: %s" % (name, e))
                continue
            if mine != snap[name]:
                bad.append("%s: %d bytes from the reader, %d exported"
                           % (name, len(mine), len(snap[name])))
    finally:
        plain.close()
    return bad


def differences(a, b):
    return ["%s differs" % k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def history(tmp, label, first, second):
    """The database story with `first` writing and `second` continuing:
    the snapshots of each step as each machine saw them."""
    path = os.path.join(tmp, label + ".db")
    a = first(path)
    first_writes(a)
    s1a = snapshot(a)
    a.close()
    b = second(path)
    s1b = snapshot(b)
    second_writes(b)
    s2b = snapshot(b)
    b.close()
    a = first(path)
    s2a = snapshot(a)
    a.close()
    return path, s1a, s1b, s2a, s2b


def check_databases(tap):
    with tempfile.TemporaryDirectory() as tmp:
        _, r1, _, r2, _ = history(tmp, "reference", native, native)
        bad = false_negatives(r1, 1) + false_negatives(r2, 2)
        tap.ok(not bad and r1["integrity"] == r2["integrity"] == "ok",
               "this machine alone: every member present in every store and "
               "blob after each step; integrity_check ok", *bad)
        there = "%s under qemu" % ARCH
        for first, second, label in ((native, emulated, "written here, read there"),
                                     (emulated, native, "written there, read here")):
            path, s1a, s1b, s2a, s2b = history(tmp, label.replace(" ", "-")[:13],
                                               first, second)
            tap.ok(not differences(s1a, s1b) and not differences(s1a, r1),
                   "%s (%s): each store's export, every answer of every store "
                   "and blob, bloom_info and cuckoo_info, summaries and "
                   "integrity_check the same on both machines and as on this "
                   "machine alone" % (label, there),
                   *(differences(s1a, s1b) + differences(s1a, r1)))
            tap.ok(not differences(s2a, s2b) and not differences(s2a, r2),
                   "%s, then written to by the other and read back by the first: "
                   "the same on both, and as on this machine alone" % label,
                   *(differences(s2a, s2b) + differences(s2a, r2)))
            bad = false_negatives(s1b, 1) + false_negatives(s2a, 2)
            tap.ok(not bad and s2a["integrity"] == s2b["integrity"] == "ok",
                   "%s: no false negative in any store or blob; "
                   "integrity_check ok on both machines" % label, *bad)
            bad = reader_reassembles(path, s2a)
            tap.ok(not bad, "%s: the reader reassembles each of the %d stores "
                   "from its shadow tables into the exported bytes"
                   % (label, len(READER_STORES)), *bad)


def main():
    tap = Tap()
    probe = emulated()
    tap.note("this machine: %s %s; the other: %s" % (
        platform.machine(), sys.byteorder + "-endian", probe.machine))
    tap.ok(probe.machine == "%s %s" % (ARCH, ORDER.get(ARCH)),
           "the other machine is %s, %s (tests/cross/sqlpipe.c says so)"
           % (ARCH, ORDER.get(ARCH)), "it says: %s" % probe.machine)
    probe.close()
    check_blobs(tap)
    check_databases(tap)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
