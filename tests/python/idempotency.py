"""bloom from Python's standard sqlite3 module, end to end.  Prints TAP.

1. The idempotency flow: a filter over the request ids already processed
   answers "certainly new" for most incoming ids; only a "maybe" is confirmed
   in the table.  The stream arrives in batches; each batch is probed in one
   statement with the filter bound once (bloom_test(?1, request_id)), the new
   ids are recorded, and the filter is kept current with bloom_union.
2. Composite keys: bloom_key(tenant, request) built and probed with Python
   ints, strs, bytes and floats (42 and 42.0 are the same key).
3. The "Using from Python" example (readme_example.py) prints exactly
   readme_example.out, its figures agree with the independent reader
   tests/interop/bloomreader.py on the same filter, and ext/REFERENCE.md
   (and README.md, if it shows the example) shows this one.

Run by tests/python.t with BLOOM_SO naming the extension.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "interop")]

import bloomreader as br                                # noqa: E402
from bloomhost import ROOT, Tap, bloom_so, connect      # noqa: E402

N_PROCESSED = 100_000
CAPACITY, P = 200_000, 0.01        # room for the ids the stream adds
BATCHES, BATCH = 10, 5_000


def idempotency(tap, conn):
    rng = random.Random(7)

    def fresh_id():
        return "%016x-%04d" % (rng.getrandbits(64), rng.randrange(10000))

    processed = set()
    while len(processed) < N_PROCESSED:
        processed.add(fresh_id())
    conn.execute("CREATE TABLE processed(request_id TEXT PRIMARY KEY) WITHOUT ROWID")
    conn.executemany("INSERT INTO processed VALUES (?)",
                     ((r,) for r in sorted(processed)))
    conn.execute("CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB)")
    conn.execute("INSERT INTO filters SELECT 'processed', bloom_build(request_id, ?, ?)"
                 " FROM processed", (CAPACITY, P))
    (f,) = conn.execute("SELECT f FROM filters WHERE name = 'processed'").fetchone()
    (inserted, nbytes) = conn.execute(
        "SELECT inserted, bytes FROM bloom_info(?)", (f,)).fetchone()
    tap.ok(isinstance(f, bytes) and inserted == N_PROCESSED,
           "bloom_build over %d processed ids gives a %d-byte filter (bytes)"
           % (N_PROCESSED, nbytes), "got %r, inserted %r" % (type(f), inserted))

    before = list(processed)
    seen_in_stream = []             # ids that arrived new in earlier batches
    conn.execute("CREATE TEMP TABLE batch(seq INTEGER PRIMARY KEY, request_id TEXT)")
    conn.execute("CREATE TEMP TABLE new_ids(request_id TEXT)")
    stats = dict(incoming=0, certainly_new=0, lookups=0, duplicates=0,
                 false_alarms=0, truly_new=0, replays=0, called_new_wrongly=0)
    sample = []                     # (id, batch answer, filter) to recheck
    probe_mismatches = 0
    for b in range(BATCHES):
        ids = []
        for _ in range(BATCH):
            r = rng.random()
            if r < 0.10:
                ids.append(rng.choice(before))               # an old replay
            elif r < 0.12 and seen_in_stream:
                ids.append(rng.choice(seen_in_stream))       # a recent replay
            else:
                ids.append(fresh_id())
        conn.execute("DELETE FROM batch")
        conn.executemany("INSERT INTO batch VALUES (?, ?)", enumerate(ids))

        # One statement per batch: the filter is bound once, as ?1.
        rows = conn.execute("SELECT request_id, bloom_test(?1, request_id)"
                            " FROM batch ORDER BY seq", (f,)).fetchall()
        # The same answers from bloom_probe, the query bound as a parameter.
        (differ,) = conn.execute(
            "SELECT count(*) FROM batch WHERE bloom_probe(?1, request_id)"
            " IS NOT bloom_test(?2, request_id)",
            ("SELECT f FROM filters WHERE name = 'processed'", f)).fetchone()
        probe_mismatches += differ
        new = []
        for rid, maybe in rows:
            stats["incoming"] += 1
            already = rid in processed
            stats["replays"] += already
            stats["truly_new"] += not already
            if not maybe:
                stats["certainly_new"] += 1
                stats["called_new_wrongly"] += already
                new.append(rid)
            else:
                stats["lookups"] += 1
                (found,) = conn.execute(
                    "SELECT EXISTS (SELECT 1 FROM processed WHERE request_id = ?)",
                    (rid,)).fetchone()
                if found:
                    stats["duplicates"] += 1
                else:
                    stats["false_alarms"] += 1
                    new.append(rid)
            if len(sample) < 2000 and rng.random() < 0.01:
                sample.append((rid, maybe, f))

        # Process the new ids: record them and add them to the filter.
        new = sorted(set(new))
        conn.executemany("INSERT INTO processed VALUES (?)", ((r,) for r in new))
        processed.update(new)
        seen_in_stream.extend(new)
        conn.execute("DELETE FROM new_ids")
        conn.executemany("INSERT INTO new_ids VALUES (?)", ((r,) for r in new))
        (f,) = conn.execute(
            "SELECT coalesce(bloom_union(?1, (SELECT bloom_build(request_id, ?2, ?3)"
            " FROM new_ids)), ?1)", (f, CAPACITY, P)).fetchone()
        conn.execute("UPDATE filters SET f = ? WHERE name = 'processed'", (f,))

    s = stats
    tap.note("%(incoming)d incoming ids: %(replays)d already processed, "
             "%(truly_new)d new" % s,
             "filter said certainly new: %(certainly_new)d; table lookups: "
             "%(lookups)d (%(duplicates)d duplicates, %(false_alarms)d false "
             "alarms)" % s)
    tap.ok(s["called_new_wrongly"] == 0,
           "no processed id is called certainly new (%d replays, from the "
           "table and from earlier batches)" % s["replays"],
           "%d processed ids called new" % s["called_new_wrongly"])
    tap.ok(s["duplicates"] == s["replays"], "every replay was found in the table")
    tap.ok(probe_mismatches == 0, "bloom_probe with its query bound from Python "
           "answers as bloom_test(?, ?) on every id (%d differ)" % probe_mismatches)
    saved = s["certainly_new"] / s["truly_new"]
    tap.ok(saved >= 0.95,
           "the filter saved %.2f%% of the lookups for new ids (>= 95%% at p = %g)"
           % (100 * saved, P))

    # The per-call form, bloom_test(?, ?), on the filter the batch statement
    # was given, answers as the batch statement did.
    bad = []
    for rid, maybe, then in sample:
        (one,) = conn.execute("SELECT bloom_test(?, ?)", (then, rid)).fetchone()
        if one != maybe:
            bad.append("%s: batch %r, one at a time %r" % (rid, maybe, one))
    tap.ok(bool(sample) and not bad,
           "bloom_test(?, ?) one id at a time gives the batch statement's "
           "answer for each of %d sampled ids (%d differ)"
           % (len(sample), len(bad)), *bad[:5])

    (rebuilt,) = conn.execute("SELECT bloom_build(request_id, ?, ?) FROM processed",
                              (CAPACITY, P)).fetchone()
    (stored,) = conn.execute("SELECT f FROM filters WHERE name = 'processed'").fetchone()
    tap.ok(stored == rebuilt, "the filter kept current with bloom_union equals a "
           "fresh bloom_build over the %d ids now processed" % len(processed))


def composite_keys(tap, conn):
    def one(sql, *args):
        return conn.execute(sql, args).fetchone()[0]

    # No column affinity: each part keeps the class Python bound it with.
    conn.execute("CREATE TABLE requests(tenant, request)")
    rows = []
    for i in range(2000):
        tenant = ["acme", b"\x00bin", 7, 2.5, "globex-é"][i % 5]
        request = [i, "req-%d" % i, b"r%d" % i, i + 0.5, float(i)][(i // 5) % 5]
        rows.append((tenant, request))
    conn.executemany("INSERT INTO requests VALUES (?, ?)", rows)
    classes = {r[0] for r in conn.execute(
        "SELECT DISTINCT typeof(tenant) || '/' || typeof(request) FROM requests")}
    f = one("SELECT bloom_build(bloom_key(tenant, request), 10000, 0.01)"
            " FROM requests")
    q = "SELECT bloom_test(?1, bloom_key(?2, ?3))"
    missed = [r for r in rows if conn.execute(q, (f,) + r).fetchone()[0] != 1]
    tap.ok(not missed, "bloom_key(tenant, request) built in SQL from %d rows "
           "(%s) answers 1 for each, probed with the same Python values"
           % (len(rows), ", ".join(sorted(classes))), *missed[:5])

    fp = sum(conn.execute(q, (f, "acme", -i)).fetchone()[0]
             for i in range(1, 5001))
    tap.ok(fp <= 100, "5000 keys never added: %d false positives (<= 2%%)" % fp)

    tap.ok(one("SELECT bloom_key(?, ?) = bloom_key(?, ?)", "acme", 42, "acme", 42.0)
           # ("acme", 50) was added with an int, (7, 22.0) with a float
           and one(q, f, "acme", 50.0) == 1 and one(q, f, 7.0, 22) == 1
           and one(q, f, 7, 22) == 1 and one(q, f, 7.0, 22.0) == 1
           and one(q, f, "acme", 0.0) == 1 and one(q, f, "acme", -0.0) == 1,
           "42 and 42.0 (and 0 and -0.0) make the same key, from Python ints "
           "and floats")
    tap.ok(one("SELECT bloom_key(?, ?) = bloom_key(?, ?)", "acme", 1, "acme", True),
           "Python True binds as the INTEGER 1")
    tap.ok(one("SELECT bloom_key(?) != bloom_key(?)", "acme", b"acme")
           and one("SELECT bloom_key(?) != bloom_key(?)", "42", 42)
           and one("SELECT bloom_key(?, ?) != bloom_key(?, ?)", "ab", "c", "a", "bc")
           and one(q, f, "acme", "0") == 0 and one(q, f, b"acme", 0) == 0,
           "str, bytes and numbers are different parts; ('ab','c') != ('a','bc')")
    tap.ok(one("SELECT bloom_key(?, ?)", "ab", "c")
           == bytes.fromhex("03020000006162030100000063")
           and one("SELECT bloom_key(?, ?)", 42, 1.5)
           == bytes.fromhex("012A0000000000000002000000000000F83F"),
           "bloom_key returns bytes in ext/FORMAT.md's encoding")
    tap.ok(one("SELECT bloom_key(?, ?)", "acme", None) is None
           and one(q, f, "acme", None) is None,
           "a key with a None part is None, and probing with it gives None")
    try:
        one("SELECT bloom_key(?, ?)", "acme", 2 ** 63)
        overflow = False
    except OverflowError:
        overflow = True
    tap.ok(overflow, "a Python int beyond 64 bits is refused by sqlite3 "
           "(OverflowError) before it reaches bloom_key")


def readme_example(tap, conn):
    want_path = os.path.join(HERE, "readme_example.out")
    with open(want_path, encoding="utf-8") as fh:
        want = fh.read()
    tmp = tempfile.mkdtemp()
    try:
        # The example loads "./bloom": run it next to a link to BLOOM_SO.
        os.symlink(bloom_so(), os.path.join(tmp, "bloom.so"))
        p = subprocess.run([sys.executable, os.path.join(HERE, "readme_example.py")],
                           cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
    finally:
        shutil.rmtree(tmp)
    tap.ok(p.returncode == 0 and p.stdout == want and not p.stderr,
           "readme_example.py prints readme_example.out",
           "exit %d" % p.returncode, "stderr: " + p.stderr,
           *["want: " + l for l in want.splitlines()],
           *["got:  " + l for l in p.stdout.splitlines()])
    readme_figures(tap, conn, p.stdout)

    # The reference (ext/REFERENCE.md) shows the example in a ```python
    # block under a heading that says "Python", and README.md may too; each
    # that shows one must show this file, verbatim after its opening comment
    # (the project's dedication, which the documents leave out).
    with open(os.path.join(HERE, "readme_example.py"), encoding="utf-8") as fh:
        code = re.sub(r"\A(#[^\n]*\n)+\n", "", fh.read())
    for doc, required in (("README.md", False),
                          (os.path.join("ext", "REFERENCE.md"), True)):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
            text = fh.read()
        m = re.search(r"^#+ [^\n]*Python[^\n]*$", text, re.M)
        block = m and re.compile(r"^```python\n(.*?)^```", re.M | re.S).search(
            text, m.end())
        if block or required:
            tap.ok(bool(block) and block.group(1) == code,
                   "%s's Python example is tests/python/readme_example.py" % doc)


def readme_figures(tap, conn, out):
    """The example's printed figures, recomputed by bloomreader.py (written
    from ext/FORMAT.md) on the filter the example's statement builds."""
    (blob,) = conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
        " WHERE i < 1000) SELECT bloom_build(bloom_key('acme', i), 1000, 0.01)"
        " FROM n").fetchone()
    try:
        rf = br.Filter(blob)
        info = rf.info()
    except br.FormatError as e:
        tap.ok(False, "bloomreader.py reads the example's filter", str(e))
        return
    lines = out.splitlines()
    want = ["bytes %d" % len(blob),
            repr((info["bits"], info["hashes"], info["inserted"]))]
    for tenant, request in [("acme", 42), ("acme", 42.0), ("acme", "42"),
                            ("acme", 1001), ("globex", 42)]:
        maybe = rf.test(br.key(tenant, request))
        want.append("%s %r %s" % (tenant, request,
                                  "maybe seen" if maybe else "certainly new"))
    recount = sum(rf.test(br.key("acme", n)) for n in range(501, 1501))
    want.append("%d of 1000 incoming ids need a lookup" % recount)
    missed = [n for n in range(1, 1001) if rf.test(br.key("acme", n)) != 1]
    tap.ok(lines == want and not missed and info["inserted"] == 1000
           and info["bytes"] == 64 + info["bits"] // 8,
           "readme_example.py's figures (size, bits/hashes/inserted, the five "
           "probes, %d of 1000 need a lookup) agree with bloomreader.py" % recount,
           *["reader: " + l for l in want],
           *["printed: " + l for l in lines],
           "added ids the reader tests 0: %r" % missed[:5])


def main():
    tap = Tap()
    conn = connect()
    (version,) = conn.execute("SELECT bloom_version()").fetchone()
    tap.ok(bool(version), "Python %s loads %s through sqlite3 %s (bloom %s)" % (
        sys.version.split()[0], os.path.relpath(bloom_so(), ROOT),
        conn.execute("SELECT sqlite_version()").fetchone()[0], version))
    idempotency(tap, conn)
    composite_keys(tap, conn)
    readme_example(tap, conn)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
