"""The golden vectors: the extension must read every blob in tests/vectors/v*/
and answer as its .answers file says (see README.txt).  Prints TAP.

For each vector: every probe's bloom_test answer (one query, the blob bound
once), every bloom_info field, and, for a blob that must be refused, an error
from both.  Also: the files are byte for byte those listed in SHA256SUMS, the
independent reader still gives the recorded answers, and the worked example
vector is the blob printed in ext/FORMAT.md.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import glob
import hashlib
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "interop"),
                os.path.join(HERE, "..", "python")]

import bloomreader as br                                        # noqa: E402
from bloomhost import Tap, connect                              # noqa: E402
from interop import (FORMAT_TEXT, compare_info,                # noqa: E402
                     cuckoo_worked_example_hex, quotient_worked_example_hex,
                     worked_example_hex)
from vectorfile import Answers, read_hex                        # noqa: E402

# bloom_info's kind name -> (test function, info function)
FUNCTIONS = {"bloom": ("bloom_test", "bloom_info"),
             "cuckoo": ("cuckoo_test", "cuckoo_info"),
             "quotient": ("quotient_test", "quotient_info")}
# the header's kind byte -> bloom_info's kind name (for blobs to refuse)
KIND_NAMES = {1: "bloom", 2: "cuckoo", 4: "quotient"}


def check_manifest(tap):
    want = {}
    with open(os.path.join(HERE, "SHA256SUMS"), encoding="ascii") as f:
        for line in f:
            digest, name = line.rstrip("\n").split("  ", 1)
            want[name] = digest
    have = sorted(os.path.relpath(p, HERE)
                  for p in glob.glob(os.path.join(HERE, "v*", "*")))
    bad = []
    for name in have:
        with open(os.path.join(HERE, name), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if name not in want:
            bad.append("%s is not listed in SHA256SUMS" % name)
        elif want[name] != digest:
            bad.append("%s was changed" % name)
    bad += ["%s is missing" % n for n in sorted(set(want) - set(have))]
    tap.ok(not bad, "the %d vector files are unchanged (SHA256SUMS)" % len(have),
           *bad, *(["A format change adds a version and new vectors; it never "
                    "edits these (README.txt)."] if bad else []))


def probe_table(conn, tests):
    conn.execute("DROP TABLE IF EXISTS probes")
    conn.execute("CREATE TEMP TABLE probes(id INTEGER PRIMARY KEY, nparts, v, a, b, c)")
    for i, (_, cls, v) in enumerate(tests):
        if cls == "key":
            parts = list(v) + [None] * (3 - len(v))
            conn.execute("INSERT INTO probes VALUES (?, ?, NULL, ?, ?, ?)",
                         [i, len(v)] + parts)
        else:
            conn.execute("INSERT INTO probes VALUES (?, 0, ?, NULL, NULL, NULL)",
                         (i, v))


VAL = ("CASE nparts WHEN 0 THEN v WHEN 1 THEN bloom_key(a) "
       "WHEN 2 THEN bloom_key(a, b) ELSE bloom_key(a, b, c) END")


def show(cls, v):
    return "%s %r" % (cls, v)


def check_vector(tap, conn, name, blob, a):
    if a.reject is not None:
        errors = []
        # the functions of the kind the header names, so that the refusal is
        # the validation's, not a kind mismatch (every kind's when unknown)
        # (a layered filter's: its layers' kind, byte 12)
        kind_byte = blob[12] if len(blob) > 12 and blob[5] == 3 else \
            (blob[5] if len(blob) > 5 else None)
        kinds = [KIND_NAMES[kind_byte]] if kind_byte in KIND_NAMES \
            else sorted(FUNCTIONS)
        fns = []
        for k in kinds:
            test_fn, info_fn = FUNCTIONS[k]
            fns += [(test_fn, "%s(?1, 1)" % test_fn),
                    (info_fn, "(SELECT count(*) FROM %s(?1))" % info_fn)]
        fns.append(("bloom_layers", "(SELECT count(*) FROM bloom_layers(?1))"))
        for name_fn, fn in fns:
            try:
                conn.execute("SELECT " + fn, (blob,)).fetchone()
                errors.append("%s accepted it" % fn)
            except sqlite3.Error as e:
                # the function's own refusal, not some other failure
                if not str(e).startswith(name_fn + ":"):
                    errors.append("%s failed without naming %s: %s"
                                  % (fn, name_fn, e))
        try:
            br.Filter(blob).info()      # layout 1: info reads every leaf
            errors.append("the independent reader accepts it")
        except br.FormatError:
            pass
        tap.ok(not errors, "%s: refused (%s)" % (name, a.reject), *errors)
        return
    kind = a.info.get("kind")
    if kind not in FUNCTIONS:
        tap.ok(False, "%s: kind %r has no SQL functions in this test" % (name, kind))
        return
    test_fn, info_fn = FUNCTIONS[kind]
    probe_table(conn, a.tests)
    try:
        got = [r[0] for r in conn.execute(
            "SELECT %s(?1, %s) FROM probes ORDER BY id" % (test_fn, VAL), (blob,))]
        err = None
    except sqlite3.Error as e:
        got, err = [], str(e)
    bad = [i for i, t in enumerate(a.tests) if i >= len(got) or got[i] != t[0]]
    npos = sum(1 for t in a.tests if t[0] == 1)
    tap.ok(err is None and not bad,
           "%s: %s answers as recorded for %d probes (%d maybe)"
           % (name, test_fn, len(a.tests), npos),
           *([err] if err else []),
           *["%s: want %r, got %r" % (show(*a.tests[i][1:]), a.tests[i][0],
                                       got[i] if i < len(got) else None)
             for i in bad[:10]])
    try:
        cur = conn.execute("SELECT * FROM %s(?1)" % info_fn, (blob,))
        info = dict(zip([d[0] for d in cur.description], cur.fetchone()))
        diffs = compare_info(info, a.info, tolerant=True)
    except sqlite3.Error as e:
        diffs = [str(e)]
    tap.ok(not diffs, "%s: %s reports the recorded fields" % (name, info_fn),
           *diffs)
    if blob[5] == 3:
        # bloom_layers: each layer's own figures, as the reader gives them
        f = br.Filter(blob)
        cur = conn.execute("SELECT * FROM bloom_layers(?1)", (blob,))
        cols = [d[0] for d in cur.description]
        diffs = []
        rows = cur.fetchall()
        if len(rows) != len(f.impl.layers):
            diffs.append("%d rows for %d layers" % (len(rows), len(f.impl.layers)))
        for i, (row, layer) in enumerate(zip(rows, f.impl.layers)):
            got = {c: v for c, v in zip(cols, row) if v is not None}
            want = {c: v for c, v in dict(layer=i, **layer.info()).items()
                    if v is not None}
            diffs += ["layer %d: %s" % (i, d)
                      for d in compare_info(got, want, tolerant=True)]
        tap.ok(not diffs, "%s: bloom_layers reports each layer" % name, *diffs)

    # The files agree with the independent reader (a hand edit would not).
    f = br.Filter(blob)
    mine = [f.test(br.key(*v) if cls == "key" else v) for _, cls, v in a.tests]
    tap.ok(mine == [t[0] for t in a.tests] and not compare_info(f.info(), a.info, tolerant=True),
           "%s: the independent reader gives the recorded answers" % name)


def main():
    tap = Tap()
    check_manifest(tap)
    conn = connect()
    hexes = sorted(glob.glob(os.path.join(HERE, "v*", "*.hex")))
    probes = 0
    for path in hexes:
        name = os.path.relpath(path, HERE)[:-4]
        blob = read_hex(path)
        a = Answers.read(path[:-4] + ".answers")
        probes += len(a.tests)
        check_vector(tap, conn, name, blob, a)
        if name == "v1/kind1-worked-example":
            tap.ok(blob == bytes.fromhex(worked_example_hex()),
                   "%s is the blob printed in ext/FORMAT.md" % name)
        if name == "v1/kind2-worked-example":
            # Version 1.1.0's example, layout 0: FORMAT.md names it.
            tap.ok(blob[14] == 0 and len(blob) == 100 and
                   "`tests/vectors/v1/kind2-worked-example`" in FORMAT_TEXT,
                   "%s is the layout-0 example FORMAT.md names" % name)
        if name == "v1/kind4-worked-example":
            tap.ok(blob == bytes.fromhex(quotient_worked_example_hex()),
                   "%s is the blob printed in ext/FORMAT.md" % name)
        if name == "v1/kind2-layout1-worked-example":
            tap.ok(blob == bytes.fromhex(cuckoo_worked_example_hex()),
                   "%s is the blob printed in ext/FORMAT.md" % name)
    tap.ok(len(hexes) > 0, "%d vectors, %d probes" % (len(hexes), probes))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
