"""The extension and an independent reader (bloomreader.py, written from
ext/FORMAT.md alone) must agree on every filter the extension builds.

For each filter, Bloom (kind 1), cuckoo (kind 2: built, after
cuckoo_add and cuckoo_delete, and empty) and layered (kind 3, of Bloom and
of cuckoo layers, assembled here from built layers): the answer to every
probe (one SQL query per filter, the filter bound once), every bloom_info
(cuckoo_info) field and bloom_count, and for layered filters every row of
bloom_layers, bit for bit: FORMAT.md's "Floating-point figures"
pins the evaluation, and the reader calls the same libm in this process.
The estimates are also checked against exact arithmetic within the
tolerances FORMAT.md states, which the unstable forms it warns of miss.
Also: the reader's MurmurHash3 against SMHasher's verification value and
the hashes of FORMAT.md's worked examples (the examples themselves are
tests/interop/format_examples.py's), its bloom_key encoding against the
extension's,
TEXT probes in a UTF-16 database and text that is not valid UTF-8 in both
encodings, NaN and NULL or non-BLOB filter arguments, the counters and
headers of results (hand-made counters near 2^63 and 2^64, layered ones
included), what a reader must not check (a sizing that does not match
capacity and target_fpr, layer rates in no schedule), the stores' layer
rates bit for bit, the sizing of bloom_plan and cuckoo_build, acceptance
or rejection of altered headers, and a bloom_store reassembled from its
shadow tables alone; and quotient_store's layout-1 exports (kind 4
layout 1: answers, quotient_info, reassembly from its three shadow tables,
damaged blobs and stores) in tests/interop/quotient_leaves.py.
Prints TAP.

BLOOM_INTEROP_PROBES sets the number of probes (default 100000).
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import decimal
import math
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]

import bloomreader as br                                  # noqa: E402
from bloomhost import ROOT, Tap, bloom_so, connect        # noqa: E402
from probes import make_probes, storage_class             # noqa: E402
from quotient_leaves import check_quotient_leaves         # noqa: E402

# SQL function names per kind (the header's kind byte); to cover a new kind,
# add its functions here, a class to bloomreader.KINDS, and its filters to
# build_filters.  Every info column must agree exactly, the estimates
# included (see the module's docstring).
TEST_FN = {1: "bloom_test", 2: "cuckoo_test", 4: "quotient_test"}
INFO_FN = {1: "bloom_info", 2: "cuckoo_info", 4: "quotient_info"}

PROBE_SETUP = """
CREATE TEMP TABLE probes(id INTEGER PRIMARY KEY, nparts INTEGER, v, a, b, c);
CREATE TEMP VIEW pv AS
  SELECT id, nparts, CASE nparts WHEN 0 THEN v
                         WHEN 1 THEN bloom_key(a)
                         WHEN 2 THEN bloom_key(a, b)
                         ELSE bloom_key(a, b, c) END AS val
    FROM probes;
"""


def load_probes(conn, probes):
    conn.executescript(PROBE_SETUP)
    rows = []
    for i, (kind, v) in enumerate(probes):
        if kind == "key":
            parts = list(v) + [None] * (3 - len(v))
            rows.append((i, len(v), None, *parts))
        else:
            rows.append((i, 0, v, None, None, None))
    conn.executemany("INSERT INTO probes VALUES (?, ?, ?, ?, ?, ?)", rows)


def probe_value(kind, v):
    """The Python value a probe stands for (bloom_key's bytes for a key)."""
    return br.key(*v) if kind == "key" else v


def sql_answers(conn, blob, kind=1):
    q = "SELECT %s(?1, val) FROM pv ORDER BY id" % TEST_FN[kind]
    return [r[0] for r in conn.execute(q, (blob,))]


def sql_info(conn, blob, kind=1):
    cur = conn.execute("SELECT * FROM %s(?1)" % INFO_FN[kind], (blob,))
    cols = [d[0] for d in cur.description]
    return dict(zip(cols, cur.fetchone()))


def close(a, b, tol):
    """FORMAT.md's comparison: |a - b| <= tol * max(|a|, |b|)."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(abs(a), abs(b))


def tolerance_of(info, column):
    """FORMAT.md's tolerance for an estimate of bloom_info / cuckoo_info."""
    if column == "estimated_fpr":
        return br.TOLERANCE[info.get("kind", "bloom") + "_estimated_fpr"]
    return br.TOLERANCE.get(column)


def compare_info(got, want, tolerant=False):
    """Differences between bloom_info's row (got) and the reader's (want):
    same columns, same types, same values: floats bit for bit, or, when
    tolerant, the estimates within FORMAT.md's tolerance ("Floating-point
    figures")."""
    diffs = []
    if set(got) != set(want):
        diffs.append("columns differ: sql %s, reader %s"
                     % (sorted(got), sorted(want)))
    for c in want:
        if c not in got:
            continue
        tol = tolerance_of(want, c) if tolerant else None
        if tol and (got[c] is None) == (want[c] is None):
            same = close(got[c], want[c], tol)
        else:
            same = type(got[c]) == type(want[c]) and (
                struct.pack("<d", got[c]) == struct.pack("<d", want[c])
                if isinstance(got[c], float) else got[c] == want[c])
        if not same:
            diffs.append("%s: sql %r, reader %r" % (c, got[c], want[c]))
    return diffs


def check_hash(tap):
    v = br.smhasher_verification()
    tap.ok(v == 0x6384BA69, "reader's MurmurHash3_x64_128 gives SMHasher's "
           "verification value 0x6384BA69", "got 0x%08X" % v)
    # FORMAT.md, "Worked example"
    tap.ok(br.hash_value("abc") == (0xEEC4584E85CCB366, 0xE6268475C8B30D19),
           "reader hashes 'abc' (TEXT, seed 3) to FORMAT.md's h1, h2")
    tap.ok(br.hash_value(42) == (0x8130AD322B330F0F, 0x35E86590E1B7207A),
           "reader hashes 42 (INTEGER, seed 1) to FORMAT.md's h1, h2")
    tap.ok(br.hash_value(42.0) == br.hash_value(42)
           and br.hash_value(-0.0) == br.hash_value(0),
           "reader hashes 42.0 as 42 and -0.0 as 0")
    tap.ok(br.key("ab", "c") == bytes.fromhex("03020000006162030100000063")
           and br.key(42, 1.5) == bytes.fromhex("012A0000000000000002000000000000F83F"),
           "reader's bloom_key gives FORMAT.md's two examples")


def hex_block(section):
    """The hex digits of a dump in FORMAT.md: the indented lines of a
    section that are an offset then groups of hex digits, concatenated."""
    hexs = ""
    for line in section.splitlines():
        m = re.match(r"^    (\d+)\s+([0-9A-F ]+)$", line)
        if m:
            hexs += m.group(2).replace(" ", "")
    return hexs


def worked_example_hex():
    """The worked example's blob, read from the text of ext/FORMAT.md."""
    with open(os.path.join(ROOT, "ext", "FORMAT.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Worked example", 1)[1].split("\n## ", 1)[0]
    return hex_block(section)


def check_worked_example(tap, conn):
    hexs = worked_example_hex()
    blob = bytes.fromhex(hexs)
    tap.ok(len(blob) == 128, "FORMAT.md's worked example is 128 bytes",
           "got %d" % len(blob))
    f = br.Filter(blob)
    want_bits = {"abc": [127, 480], 42: [393, 279]}
    for v, bits in want_bits.items():
        block, got = f.impl.bit_positions(*br.hash_value(v))
        tap.ok(block == 0 and got == bits,
               "reader puts %r in block 0, bits %s, as FORMAT.md says" % (v, bits),
               "block %d bits %s" % (block, got))
    # The reader, as a writer, makes the same bytes from the header fields.
    g = br.Filter(blob[:64] + bytes(64))
    g.header.inserted = 0
    g.add("abc")
    g.add(42)
    tap.ok(g.to_bytes() == blob, "reader writes the worked example's bytes")
    (sql,) = conn.execute(
        "SELECT bloom_build(v, 10, 0.01) FROM (SELECT 'abc' AS v UNION ALL SELECT 42)"
    ).fetchone()
    tap.ok(sql == blob, "extension builds the worked example's bytes",
           "sql: %s" % sql.hex().upper())
    sql_row = list(conn.execute(
        "SELECT bloom_test(?1, 'abc'), bloom_test(?1, 42), bloom_test(?1, 42.0),"
        " bloom_test(?1, 'abd')", (blob,)).fetchone())
    mine = [f.test(v) for v in ("abc", 42, 42.0, "abd")]
    tap.ok(mine == [1, 1, 1, 0] and sql_row == mine,
           "worked example answers 1, 1, 1, 0 for 'abc', 42, 42.0, 'abd' "
           "(extension and reader)", "sql %s reader %s" % (sql_row, mine))


def cuckoo_worked_example_hex():
    """The kind-2 worked example's blob, read from the text of ext/FORMAT.md."""
    with open(os.path.join(ROOT, "ext", "FORMAT.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Kind 2: cuckoo filter", 1)[1]
    section = section.split("### Worked example", 1)[1].split("\n## ", 1)[0]
    return hex_block(section)


def quotient_worked_example_hex():
    """The kind-4 worked example's blob, read from the text of ext/FORMAT.md:
    the dump leaves out lines of zeros, so each line goes at its offset, up
    to the length the text states."""
    with open(os.path.join(ROOT, "ext", "FORMAT.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Kind 4: quotient filter", 1)[1]
    section = section.split("### Worked example", 1)[1].split("\n## ", 1)[0]
    size = int(re.search(r"gives a (\d+)-byte blob", section).group(1))
    blob = bytearray(size)
    for line in section.splitlines():
        m = re.match(r"^    (\d+)\s+([0-9A-F ]+)$", line)
        if m:
            data = bytes.fromhex(m.group(2).replace(" ", ""))
            blob[int(m.group(1)):int(m.group(1)) + len(data)] = data
    return blob.hex().upper()


def check_quotient(tap, conn, filters, values):
    """Kind 4 from FORMAT.md's text: the worked example's places, the
    reader's writing of every quotient_build filter byte for byte, the
    sizing over a grid of n and p."""
    blob = bytes.fromhex(quotient_worked_example_hex())
    f = br.Filter(blob)
    got = [((h2 * (1912 << 51)) >> 64) >> 51 for h1, h2 in
           (br.hash_value(42), br.hash_value("abc"))]
    tap.ok(len(blob) == 320 and f.impl.shapes[0][:3] == (2, 1912, 51) and
           got == [402, 1718] and f.test(42) == 1 and f.test("abc") == 1,
           "FORMAT.md's quotient worked example: 320 bytes, c 2, M 1912, "
           "l 51, buckets 402 and 1718", "got %d bytes, %r, %r"
           % (len(blob), f.impl.shapes[0][:3], got))
    tap.ok(br.quotient_build(["abc", 42], 10, 0.01) == blob,
           "the reader writes the quotient worked example's bytes")
    bad = []
    for name, blob, members in filters:
        if blob[5] != 4:
            continue
        h = br.Header(blob)
        mine = br.quotient_build([values[i] for i in members], h.capacity,
                                 h.target_fpr)
        if mine != blob:
            bad.append("%s: the reader's writing differs" % name)
    sizes = 0
    for n in (1, 10, 100, 999, 10000, 123457, 1000000):
        for p in (0.5, 0.1, 0.01, 0.001, 2.0 ** -10, 1e-5, 1e-9, 1e-12):
            got = conn.execute("SELECT blocks, block_bytes FROM quotient_info("
                               "(SELECT quotient_build(NULL, ?1, ?2)))",
                               (n, p)).fetchone()
            want = br.quotient_sizing(n, p)
            sizes += 1
            if tuple(got)[::-1] != want:
                bad.append("n %d p %g: sql %r, reader %r" % (n, p, got, want))
    tap.ok(not bad, "every quotient_build filter is the reader's writing "
           "byte for byte, and %d sizings agree" % sizes, *bad)


def check_cuckoo_worked_example(tap, conn):
    blob = bytes.fromhex(cuckoo_worked_example_hex())
    tap.ok(len(blob) == 91 and blob[14] == 1,
           "FORMAT.md's cuckoo worked example is 91 bytes, layout 1",
           "got %d" % len(blob))
    f = br.Filter(blob)
    want = {42: (108, 3, 2), "abc": (460, 5, 4)}
    for v, loc in want.items():
        got = f.impl.locate(*br.hash_value(v))
        tap.ok(got == loc, "reader gives %r fp %d, buckets %d and %d, as "
               "FORMAT.md says" % ((v,) + loc), "got %s" % (got,))
    # Version 1.1.0's example (layout 0), kept as a golden vector: the places
    # FORMAT.md gives for it, and the bytes of the reader's own writing.
    sys.path.insert(0, os.path.join(ROOT, "tests", "vectors"))
    import vectorfile
    old = vectorfile.read_hex(os.path.join(ROOT, "tests", "vectors", "v1",
                                           "kind2-worked-example.hex"))
    g = br.Filter(old)
    got = {v: g.impl.locate(*br.hash_value(v)) for v in (42, "abc")}
    tap.ok(old[14] == 0 and got == {42: (108, 7, 1), "abc": (460, 6, 3)}
           and (old[64 + 31], old[64 + 32], old[64 + 27], old[64 + 28])
           == (0xC0, 0x06, 0xCC, 0x01),
           "the layout-0 example of version 1.1.0 (v1/kind2-worked-example): "
           "the reader places 42 and 'abc' where FORMAT.md says",
           "got %s" % (got,))
    h = br.Filter(old[:64] + bytes(len(old) - 64))
    h.header.inserted = 0
    h.add(42)
    h.add("abc")
    (added,) = conn.execute("SELECT cuckoo_add(cuckoo_add(?1, 42), 'abc')",
                            (old[:64] + bytes(len(old) - 64),)).fetchone()
    tap.ok(h.to_bytes() == old and added[:40] == old[:40] and
           added[48:] == old[48:],
           "the reader writes the layout-0 example's bytes, and cuckoo_add "
           "on its empty blob places the values alike (layout kept)")
    g = br.Filter(blob[:64] + bytes(len(blob) - 64))
    g.header.inserted = 0
    g.add(42)
    g.add("abc")
    tap.ok(g.to_bytes() == blob, "reader writes the cuckoo worked example's bytes")
    (sql,) = conn.execute(
        "SELECT cuckoo_build(v, 10, 0.01) FROM (SELECT 'abc' AS v UNION ALL SELECT 42)"
    ).fetchone()
    tap.ok(sql == blob, "extension builds the cuckoo worked example's bytes",
           "sql: %s" % sql.hex().upper())


def build_filters(conn, ids_values):
    """(name, blob, member ids) for filters of every construction."""
    out = []

    def build(name, sql, cond, params=()):
        (blob,) = conn.execute(sql.replace("{cond}", cond), params).fetchone()
        members = [r[0] for r in conn.execute(
            "SELECT id FROM pv WHERE (%s) AND val IS NOT NULL" % cond)]
        out.append((name, blob, members))

    b = "SELECT bloom_build(val, %s) FROM pv WHERE {cond}"
    build("bloom_build(n=1000, p=0.01), 1000 members", b % "1000, 0.01",
          "id % 97 = 1")
    build("bloom_build(n=25000, p=0.001), 20000 members", b % "25000, 0.001",
          "id % 5 = 0")
    build("bloom_build(n=300, p=0.05) overfilled 10x", b % "300, 0.05",
          "id % 33 = 2")
    build("bloom_build(n=100000, p=1e-9), 2000 members (k > 7)",
          b % "100000, 1e-9", "id % 50 = 3")
    build("bloom_build(n=10, p=0.5) saturated", b % "10, 0.5", "id % 7 = 4")
    build("bloom_build(val) sized from the data",
          "SELECT bloom_build(val) FROM pv WHERE {cond}", "id % 11 = 5")
    build("bloom_build(n=3000, p=0.2) of keys only",
          "SELECT bloom_build(val, 3000, 0.2) FROM pv WHERE {cond}",
          "nparts > 0 AND id % 4 = 1")
    build("bloom_empty(5000, 0.02)",
          "SELECT bloom_empty(5000, 0.02)", "0")
    build("bloom_union of two builds (n=4000, p=0.01)",
          "SELECT bloom_union((SELECT bloom_build(val, 4000, 0.01) FROM pv"
          " WHERE id % 29 = 7), (SELECT bloom_build(val, 4000, 0.01) FROM pv"
          " WHERE id % 31 = 8))", "id % 29 = 7 OR id % 31 = 8")
    build("bloom_intersect of two builds (n=8000, p=0.01)",
          "SELECT bloom_intersect((SELECT bloom_build(val, 8000, 0.01) FROM pv"
          " WHERE id % 13 = 0), (SELECT bloom_build(val, 8000, 0.01) FROM pv"
          " WHERE id % 17 = 0))", "id % 221 = 0")
    build("bloom_merge of 4 parts (n=5000, p=0.02)",
          "SELECT bloom_merge(f) FROM (SELECT bloom_build(val, 5000, 0.02) AS f"
          " FROM pv WHERE {cond} GROUP BY id % 4)", "id % 19 = 9")

    # bloom_add, 25 values a call, NULLs included, from an empty filter
    ids = [i for i in range(len(ids_values)) if i % 41 == 6]
    vals = [r[0] for r in conn.execute("SELECT val FROM pv WHERE id % 41 = 6"
                                       " ORDER BY id")]
    (blob,) = conn.execute("SELECT bloom_empty(3000, 0.01)").fetchone()
    for i in range(0, len(vals), 25):
        chunk = vals[i:i + 25]
        q = "SELECT bloom_add(?1, %s)" % ", ".join("?%d" % (j + 2)
                                                 for j in range(len(chunk)))
        (blob,) = conn.execute(q, [blob] + chunk).fetchone()
    out.append(("bloom_add from bloom_empty(3000, 0.01), 25 values a call",
                blob, [i for i, v in zip(ids, vals) if v is not None]))
    out.extend(cuckoo_filters(conn, build))
    out.extend(layered_filters(conn))
    q = "SELECT quotient_build(val, %s) FROM pv WHERE {cond}"
    build("quotient_build(n=1500, p=0.01), 1000 members", q % "1500, 0.01",
          "id % 97 = 14")
    build("quotient_build(n=25000, p=0.001), 20000 members",
          q % "25000, 0.001", "id % 5 = 1")
    build("quotient_build(n=3000, p=1e-5), 2000 members", q % "3000, 1e-5",
          "id % 50 = 15")
    build("quotient_build(n=2500, p=1e-10), 2000 members",
          q % "2500, 1e-10", "id % 50 = 16")
    build("quotient_build(val, NULL) sized from the data",
          "SELECT quotient_build(val, NULL) FROM pv WHERE {cond}",
          "id % 11 = 6")
    build("quotient_build(n=400, p=0.3), at its capacity", q % "400, 0.3",
          "id % 250 = 17")
    return out


def layered_filters(conn):
    """(name, blob, member ids) for kind 3: layers built by the extension,
    each of its own members, assembled by the reader (bloomreader's
    layered_blob, from FORMAT.md)."""
    out = []
    for fn in ("bloom_build", "cuckoo_build"):
        layers, members = [], []
        # about 2x the members of the one before, each layer sized for twice
        # its members (whatever the number of probes) at half the rate
        for i, (p, cond) in enumerate(((0.01, "id % 397 = 11"),
                                       (0.005, "id % 199 = 12"),
                                       (0.0025, "id % 97 = 13"))):
            (count,) = conn.execute("SELECT count(DISTINCT val) FROM pv WHERE %s"
                                    % cond).fetchone()
            (blob,) = conn.execute("SELECT %s(val, %d, %r) FROM pv WHERE %s"
                                   % (fn, 2 * count + 10, p, cond)).fetchone()
            layers.append(blob)
            members += [r[0] for r in conn.execute(
                "SELECT id FROM pv WHERE (%s) AND val IS NOT NULL" % cond)]
        out.append(("layered of 3 %s layers (each n twice its members, p "
                    "0.01/0.005/0.0025)" % fn,
                    br.layered_blob(layers, 2, 0.5, 0.02), members))
    # every layer empty: estimated_fpr 0.0, not -0.0 (compared bit for bit)
    (b0, b1, c0, c1) = conn.execute(
        "SELECT bloom_empty(100, 0.01), bloom_empty(200, 0.005),"
        " (SELECT cuckoo_build(NULL, 100, 0.01)),"
        " (SELECT cuckoo_build(NULL, 200, 0.005))").fetchone()
    out.append(("layered of 2 empty Bloom layers",
                br.layered_blob([b0, b1], 2, 0.5, 0.02), []))
    out.append(("layered of 2 empty cuckoo layers",
                br.layered_blob([c0, c1], 2, 0.5, 0.02), []))
    return out


def check_layered_changes(tap, conn, name, blob, values, members):
    """bloom_add (Bloom layers) or cuckoo_delete (cuckoo layers) of probe
    values (members of every layer and others), 25 a call, against the
    reader's result bytes."""
    f = br.Filter(blob)
    vals = [values[i] for i in members[::7]] + \
        [v for v in values[::97] if v is not None][:100]
    bad = []
    if f.impl.layer_kind == 1:
        got = want = blob
        for i in range(0, len(vals), 25):
            chunk = vals[i:i + 25]
            q = "SELECT bloom_add(?1, %s)" % ", ".join(
                "?%d" % (j + 2) for j in range(len(chunk)))
            (got,) = conn.execute(q, [got] + chunk).fetchone()
            want = br.layered_add(want, *chunk)
        if got != want:
            bad.append("bloom_add: the blobs differ")
        if got == blob:
            bad.append("bloom_add: nothing changed")
        what = "bloom_add of %d values: the reader's bytes" % len(vals)
    else:
        # delete members of each layer (and some absent values)
        got = want = blob
        for v in vals:
            (got,) = conn.execute("SELECT cuckoo_delete(?1, ?2)",
                                  (got, v)).fetchone()
            want = br.cuckoo_delete(want, v)
            if got != want:
                bad.append("cuckoo_delete(%r): the blobs differ" % (v,))
                break
        if got == blob:
            bad.append("cuckoo_delete: nothing was removed")
        what = "cuckoo_delete of %d values, one by one: the reader's bytes" \
            % len(vals)
    tap.ok(not bad, "%s: %s" % (name, what), *bad)


def base_kind(f):
    """The kind whose SQL functions read a filter: its layers' kind when
    layered."""
    return f.impl.layer_kind if f.header.kind == 3 else f.header.kind


LAYER_COLUMNS = ("layer", "kind", "version", "hash", "bits", "hashes",
                 "buckets", "slots_per_bucket", "fingerprint_bits", "bytes",
                 "capacity", "target_fpr", "inserted", "items", "bits_set",
                 "fill_ratio", "estimated_items", "load_factor",
                 "estimated_fpr")


def check_layer_rows(tap, conn, name, blob):
    """bloom_layers: each row the reader's info of that layer, the other
    kind's columns NULL."""
    f = br.Filter(blob)
    cur = conn.execute("SELECT * FROM bloom_layers(?1)", (blob,))
    cols = [d[0] for d in cur.description]
    got = [dict(zip(cols, r)) for r in cur.fetchall()]
    rows = f.impl.layer_rows() if f.header.kind == 3 else \
        [dict(layer=0, **f.info())]
    diffs = []
    if tuple(cols) != LAYER_COLUMNS:
        diffs.append("columns %r" % (cols,))
    if len(got) != len(rows):
        diffs.append("%d rows, the reader %d layers" % (len(got), len(rows)))
    for g, r in zip(got, rows):
        want = dict.fromkeys(LAYER_COLUMNS)
        want.update(r)
        diffs += ["layer %d: %s" % (r["layer"], d) for d in compare_info(g, want)]
    tap.ok(not diffs, "%s: bloom_layers gives each layer's figures (%d rows)"
           % (name, len(rows)), *diffs)


def cuckoo_filters(conn, build):
    """(name, blob, member ids) for kind 2: builds, adds, deletes, empty."""
    out = []
    c = "SELECT cuckoo_build(val, %s) FROM pv WHERE {cond}"
    build("cuckoo_build(n=1000, p=0.01), 1000 members", c % "1000, 0.01",
          "id % 97 = 1")
    build("cuckoo_build(n=5000, p=1e-9), 4000 members (f > 32)",
          c % "5000, 1e-9", "id % 25 = 3")
    build("cuckoo_build(n=3, p=0.1), 2 members (two buckets, the least "
          "of layout 1)", c % "3, 0.1",
          "id IN (10, 11)")
    build("cuckoo_build(n=2500, p=0.003), 2000 members (a bucket count "
          "that is not a power of two)", c % "2500, 0.003", "id % 10 = 1 AND id < 20000")
    build("cuckoo_build(NULL, 500, 0.01): empty",
          "SELECT cuckoo_build(NULL, 500, 0.01)", "0")
    out.extend(cuckoo_add_delete(conn))
    out.extend(cuckoo_layout0(conn))
    return out


def cuckoo_layout0(conn):
    """A layout-0 filter as version 1.1.0 wrote them (256 buckets, f = 10),
    filled and thinned by cuckoo_add and cuckoo_delete, which keep its
    layout: its members must test 1 by the rules of layout 0."""
    blob = cuckoo_blob(10, 256, 0, capacity=900)
    adds = [r[0] for r in conn.execute("SELECT val FROM pv WHERE id % 23 = 7"
                                       " AND val IS NOT NULL ORDER BY id")]
    adds = adds[:900]
    for i in range(0, len(adds), 20):
        q = "SELECT " + "cuckoo_add(" * len(adds[i:i + 20]) + "?1" + "".join(
            ", ?%d)" % (j + 2) for j in range(len(adds[i:i + 20])))
        (blob,) = conn.execute(q, [blob] + adds[i:i + 20]).fetchone()
    if blob[14] != 0:
        raise AssertionError("cuckoo_add changed a layout-0 filter's layout")
    ids = [r[0] for r in conn.execute("SELECT id FROM pv WHERE id % 23 = 7"
                                      " AND val IS NOT NULL ORDER BY id")]
    return [("layout 0 (256 buckets, as version 1.1.0 wrote), %d cuckoo_add"
             % len(adds), blob, ids[:900])]


def cuckoo_add_delete(conn):
    """cuckoo_add and cuckoo_delete on top of a build: members change."""
    # start: cuckoo_build(n=4200, p=0.02) of id % 53 = 4 (about 1900 values);
    # add id % 53 = 5 in chunks of 20 (NULLs too), then delete id % 106 = 4.
    (blob,) = conn.execute("SELECT cuckoo_build(val, 4200, 0.02) FROM pv"
                           " WHERE id % 53 = 4").fetchone()
    adds = [r[0] for r in conn.execute("SELECT val FROM pv WHERE id % 53 = 5"
                                       " ORDER BY id")]
    for i in range(0, len(adds), 20):
        q = "SELECT " + "cuckoo_add(" * len(adds[i:i + 20]) + "?1" + "".join(
            ", ?%d)" % (j + 2) for j in range(len(adds[i:i + 20])))
        (blob,) = conn.execute(q, [blob] + adds[i:i + 20]).fetchone()
    dels = [r[0] for r in conn.execute("SELECT DISTINCT val FROM pv"
                                       " WHERE id % 106 = 4 AND val IS NOT NULL")]
    for i in range(0, len(dels), 20):
        q = "SELECT " + "cuckoo_delete(" * len(dels[i:i + 20]) + "?1" + "".join(
            ", ?%d)" % (j + 2) for j in range(len(dels[i:i + 20])))
        (blob,) = conn.execute(q, [blob] + dels[i:i + 20]).fetchone()
    members = [r[0] for r in conn.execute(
        "SELECT id FROM pv WHERE val IS NOT NULL AND (id % 53 = 5 OR"
        " (id % 53 = 4 AND val NOT IN (SELECT val FROM pv WHERE id % 106 = 4"
        " AND val IS NOT NULL)))")]
    return [("cuckoo_build(n=4200, p=0.02), then %d cuckoo_add and %d "
             "cuckoo_delete" % (len(adds), len(dels)), blob, members)]


def crafted_filter(probes):
    """A filter only this reader writes: non-zero seed that wraps, k = 9."""
    f = br.Filter(br.HEADER.pack(br.MAGIC, 1, 1, 1, 0, 0xFFFFFFFD, 9, 8 * 512,
                                 800, 0.001, 0, bytes(16)) + bytes(8 * 64))
    members = []
    for i, (kind, v) in enumerate(probes):
        if i % 211 == 10:
            f.add(probe_value(kind, v))
            if probe_value(kind, v) is not None:
                members.append(i)
    return f.to_bytes(), members


def check_filter(tap, conn, name, blob, members, values, classes):
    f = br.Filter(blob)
    kind = base_kind(f)
    t0 = time.time()
    got = sql_answers(conn, blob, kind)
    t_sql = time.time() - t0
    want = [f.test(v) for v in values]
    t_reader = time.time() - t0 - t_sql
    bad = [i for i in range(len(values)) if got[i] != want[i]]
    pos = {}
    for i, a in enumerate(want):
        if a:
            pos[classes[i]] = pos.get(classes[i], 0) + 1
    tap.ok(not bad and len(got) == len(values),
           "%s: %d probes answered alike (%d maybe: %s)" % (
               name, len(values), sum(1 for a in want if a),
               ", ".join("%s %d" % kv for kv in sorted(pos.items()))),
           *["probe %d (%s %r): sql %r, reader %r" % (
               i, classes[i], values[i], got[i], want[i]) for i in bad[:10]])
    missed = [i for i in members if want[i] != 1 or got[i] != 1]
    tap.ok(not missed, "%s: all %d members answer 1" % (name, len(members)),
           *["member %d %r: sql %r reader %r" % (i, values[i], got[i], want[i])
             for i in missed[:10]])
    got_info = sql_info(conn, blob, kind)
    diffs = compare_info(got_info, f.info())
    if not members and math.copysign(1.0, f.info()["estimated_fpr"]) < 0:
        diffs.append("the reader's estimated_fpr of an empty filter is -0.0")
    if kind == 1:
        (count,) = conn.execute("SELECT bloom_count(?1)", (blob,)).fetchone()
        if count != f.count():
            diffs.append("bloom_count: sql %r, reader %r" % (count, f.count()))
    diffs += tolerance_misses(blob, got_info)
    tap.ok(not diffs, "%s: %s%s agrees bit for bit, and within FORMAT.md's "
           "tolerance of exact arithmetic (%d bytes)"
           % (name, INFO_FN[kind], " and bloom_count" if kind == 1 else "",
              len(blob)), *diffs)
    return t_sql, t_reader


# --- Floating-point figures against exact arithmetic ------------------------

def exact_figures(blob):
    """The estimates of a blob in exact (or 60-digit) arithmetic, keyed
    like FORMAT.md's tolerances."""
    f = br.Filter(blob)
    if f.header.kind == 3:
        # layers' exact figures, combined exactly
        per = [exact_figures(l.to_bytes()) for l in f.impl.layers]
        fig = "bloom_estimated_fpr" if f.impl.layer_kind == 1 \
            else "cuckoo_estimated_fpr"
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            clear = decimal.Decimal(1)
            for p in per:
                clear *= 1 - decimal.Decimal(p[fig])
            out = {fig: float(1 - clear)}
        if f.impl.layer_kind == 1:
            items = [p["estimated_items"] for p in per]
            out["estimated_items"] = None if None in items else \
                float(sum(decimal.Decimal(x) for x in items))
        return out
    if f.header.kind == 1:
        m, k, blocks = f.impl.bits, f.impl.k, f.impl.blocks
        counts = [bin(f.impl._block(b)).count("1") for b in range(blocks)]
        bits_set = sum(counts)
        fpr = sum(c ** k for c in counts) / (512 ** k * blocks)  # int / int
        items = None
        if bits_set < m:
            with decimal.localcontext() as ctx:
                ctx.prec = 60
                x = decimal.Decimal(bits_set) / decimal.Decimal(m)
                items = float(-(decimal.Decimal(m) / k) * (1 - x).ln())
        return {"estimated_items": items, "bloom_estimated_fpr": fpr}
    if f.header.kind == 4:
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            D = decimal.Decimal
            total = D(0)
            for c, m, l, _ in f.impl.shapes:
                v = m << l
                if c and v <= 1:
                    total += 1
                elif c:
                    total += 1 - (1 - 1 / D(v)) ** c
            return {"quotient_estimated_fpr": float(total / f.impl.blocks)}
    items, nb, fb = f.header.inserted, f.impl.buckets, f.impl.f
    if items == 0:
        return {"cuckoo_estimated_fpr": 0.0}
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        D = decimal.Decimal
        e = D(4 if nb == 1 else 8) * D(items) / (D(4) * D(nb))
        q = D(1) / (D(2) ** fb - 1)
        return {"cuckoo_estimated_fpr": float(1 - (1 - q) ** e)}


def tolerance_misses(blob, info):
    """Estimates of bloom_info / cuckoo_info farther from exact arithmetic
    than FORMAT.md's tolerance allows."""
    out = []
    kind = base_kind(br.Filter(blob))
    for fig, exact in exact_figures(blob).items():
        col = "estimated_items" if fig == "estimated_items" else "estimated_fpr"
        tol = br.TOLERANCE[fig]
        if blob[5] == 3 and col == "estimated_fpr":
            tol += 1e-12        # FORMAT.md, "Kind 3": the combination's share
        if not close(info[col], exact, tol):
            out.append("%s %s = %r, exact %r: beyond FORMAT.md's tolerance %g"
                       % (INFO_FN[kind], col, info[col], exact, tol))
    return out


def cuckoo_blob(f, buckets, items, body=None, capacity=100, p=0.01, seed=0):
    """A hand-made kind-2 blob (empty body unless given)."""
    size = (buckets * 4 * f + 7) // 8
    return struct.pack("<4sBBBBIBBHQQdQ16s", br.MAGIC, 1, 2, 1, 0, seed, f, 4,
                       0, buckets, capacity, p, items, bytes(16)) + \
        (bytes(size) if body is None else body)


def bloom_blob(k, blocks, inserted, body=None, capacity=100, p=0.01, seed=0):
    """A hand-made kind-1 blob (empty body unless given)."""
    return br.HEADER.pack(br.MAGIC, 1, 1, 1, 0, seed, k, 512 * blocks,
                          capacity, p, inserted, bytes(16)) + \
        (bytes(64 * blocks) if body is None else body)


def check_float_figures(tap, conn):
    """FORMAT.md's two examples of an unstable form: both must show the
    extension and the reader agreeing bit for bit and the unstable form
    outside the tolerance."""
    # cuckoo, f = 43, 3 items in 2^15 buckets: e * q is below 2^-54
    blob = cuckoo_blob(43, 1 << 15, 3)
    got = sql_info(conn, blob, 2)
    want = br.Filter(blob).info()
    exact = exact_figures(blob)["cuckoo_estimated_fpr"]
    q = 1.0 / ((1 << 43) - 1)
    naive = 1.0 - (1.0 - q) ** (8.0 * got["load_factor"])
    tol = br.TOLERANCE["cuckoo_estimated_fpr"]
    tap.ok(compare_info(got, want) == [] and got["estimated_fpr"] > 0
           and "%.17g" % got["estimated_fpr"] in FORMAT_TEXT
           and close(got["estimated_fpr"], exact, tol)
           and not close(naive, exact, tol),
           "cuckoo_info at fingerprint_bits 43, 3 items in 2^15 buckets: "
           "estimated_fpr %.17g as FORMAT.md says, the reader's bit for bit; "
           "1 - (1 - q)^e as written gives %r" % (got["estimated_fpr"], naive),
           "sql %r" % (got,), "reader %r" % (want,), "exact %r" % exact)
    # Bloom, 7 blocks, k = 6: summing pow() terms, or the blocks backwards,
    # changes the last bit; FORMAT.md pins pow_k and block order.
    counts = [405, 390, 501, 313, 425, 347, 347]
    body = b"".join(((1 << c) - 1).to_bytes(64, "little") for c in counts)
    blob = bloom_blob(6, 7, 0, body)
    got = sql_info(conn, blob, 1)
    want = br.Filter(blob).info()
    terms = [br.pow_k(c / 512.0, 6) for c in counts]
    backwards = 0.0
    for t in reversed(terms):
        backwards = backwards + t
    with_pow = 0.0
    for c in counts:
        with_pow = with_pow + (c / 512.0) ** 6
    others = (backwards / 7.0, with_pow / 7.0)
    exact = exact_figures(blob)["bloom_estimated_fpr"]
    tol = br.TOLERANCE["bloom_estimated_fpr"]
    tap.ok(compare_info(got, want) == [] and got["estimated_fpr"] not in others
           and all(close(x, exact, tol) for x in others + (got["estimated_fpr"],)),
           "bloom_info over 7 blocks, k = 6: estimated_fpr %r, the reader's bit "
           "for bit; blocks summed backwards or with pow() give %r, within "
           "FORMAT.md's 1e-8" % (got["estimated_fpr"], others),
           "sql %r" % (got,), "reader %r" % (want,))
    # Bloom, one bit set in 1000 blocks, k = 7: ln(1 - x) loses 2.4e-11
    body = bytearray(64 * 1000)
    body[64 * 500 + 3] = 0x10
    blob = bloom_blob(7, 1000, 1, bytes(body))
    got = sql_info(conn, blob, 1)
    want = br.Filter(blob).info()
    exact = exact_figures(blob)["estimated_items"]
    m = 512 * 1000
    naive = -(m / 7) * math.log(1.0 - 1.0 / m)
    tol = br.TOLERANCE["estimated_items"]
    tap.ok(compare_info(got, want) == [] and close(got["estimated_items"], exact, tol)
           and not close(naive, exact, tol),
           "bloom_info with one bit set in 1000 blocks: estimated_items %r "
           "(log1p), the reader's bit for bit and within 1e-12 of exact; "
           "ln(1 - x) gives %r" % (got["estimated_items"], naive),
           "sql %r" % (got,), "reader %r" % (want,), "exact %r" % exact)


# --- Counters and the header of a result -------------------------------------

def check_counters(tap, conn):
    """bloom_info's report and each function's counter at 2^63 and near
    2^64, against the reader's rules (FORMAT.md, "Counters and the header
    of a result"), comparing whole blobs."""
    nan = float("nan")
    big = (1 << 63) + 5
    f = br.Filter(bloom_blob(3, 2, big, capacity=50, p=0.02))
    f.add("x")
    f.add(42)
    a = f.to_bytes()                           # inserted = 2^63 + 7
    got = sql_info(conn, a, 1)
    want = br.Filter(a).info()
    tap.ok(compare_info(got, want) == [] and got["inserted"] == (1 << 63) - 1,
           "a hand-made Bloom filter with inserted = 2^63 + 7: bloom_info "
           "reports 9223372036854775807, as FORMAT.md says",
           "sql %r" % (got,), "reader %r" % (want,))
    near = bloom_blob(3, 2, (1 << 64) - 3, capacity=80, p=0.01)
    cases = [
        ("bloom_add(2^63 + 7 counter, 'y', NULL, NaN, 7)",
         "SELECT bloom_add(?1, 'y', NULL, ?2, 7)", (a, nan),
         br.bloom_add(a, "y", None, nan, 7)),
        ("bloom_add(2^64 - 3 counter, 1, 2, 3, 4, 5): stops at 2^64 - 1",
         "SELECT bloom_add(?1, 1, 2, 3, 4, 5)", (near,),
         br.bloom_add(near, 1, 2, 3, 4, 5)),
        ("bloom_add(f, NULL, NaN): the same blob",
         "SELECT bloom_add(?1, NULL, ?2)", (near, nan), near),
        ("bloom_union(2^63 + 7, 2^64 - 3): counter 2^64 - 1, larger "
         "capacity and target_fpr", "SELECT bloom_union(?1, ?2)", (a, near),
         br.bloom_union(a, near)),
        ("bloom_union(2^64 - 3, 2^63 + 7): the same header",
         "SELECT bloom_union(?1, ?2)", (near, a), br.bloom_union(near, a)),
        ("bloom_intersect(2^63 + 7, 2^64 - 3): the smaller counter",
         "SELECT bloom_intersect(?1, ?2)", (a, near),
         br.bloom_intersect(a, near)),
        ("bloom_merge of one filter: that filter",
         "SELECT bloom_merge(f) FROM (SELECT ?1 AS f UNION ALL SELECT NULL)",
         (a,), a),
    ]
    small = [bloom_blob(3, 2, c, capacity=cap, p=pp)
             for c, cap, pp in ((7, 10, 0.5), (1 << 62, 900, 0.001),
                                ((1 << 64) - (1 << 62) - 1, 40, 0.25))]
    small = [br.bloom_add(b, i, "v%d" % i) for i, b in enumerate(small)]
    for order in ((0, 1, 2), (2, 0, 1), (1, 2, 0)):
        blobs = [small[i] for i in order]
        sql = " UNION ALL ".join("SELECT %d AS o, ?%d AS f" % (j, j + 1)
                                 for j in range(3))
        cases.append(("bloom_merge of counters 9, 2^62 + 2, 2^64 - 2^62 + 1 in order "
                      "%s" % (order,),
                      "SELECT bloom_merge(f) FROM (%s ORDER BY o)" % sql,
                      tuple(blobs), br.bloom_merge(blobs)))
    for what, sql, args, want in cases:
        (got,) = conn.execute(sql, args).fetchone()
        tap.ok(got == want, "%s: the blob FORMAT.md's rules give" % what,
               "sql    %s" % (got[:64].hex() if got else got),
               "reader %s" % want[:64].hex())
    merged = br.bloom_merge(small)
    (inserted,) = conn.execute("SELECT inserted FROM bloom_info(?1)",
                               (merged,)).fetchone()
    tap.ok(br.Filter(merged).header.inserted == (1 << 64) - 1
           and inserted == (1 << 63) - 1,
           "the merged counter is 2^64 - 1, reported as 2^63 - 1")

    # cuckoo: items stops at 4 * buckets, and at 0
    full = br.Filter(cuckoo_blob(12, 4, 16))     # says full, body empty
    want = br.Filter(full.to_bytes())
    want.add("c")
    (got,) = conn.execute("SELECT cuckoo_add(?1, 'c')",
                          (full.to_bytes(),)).fetchone()
    tap.ok(got == want.to_bytes() and want.header.inserted == 16,
           "cuckoo_add on a hand-made filter claiming 16 items in 16 slots: "
           "placed, items stays 16")
    zero = br.Filter(cuckoo_blob(12, 4, 0))
    zero.add("d")
    zero.header.inserted = 0                     # holds 'd', says 0 items
    z = zero.to_bytes()
    (got,) = conn.execute("SELECT cuckoo_delete(?1, 'd')", (z,)).fetchone()
    want = br.cuckoo_delete(z, "d")
    tap.ok(got == want and br.Filter(want).test("d") == 0
           and br.Filter(want).header.inserted == 0,
           "cuckoo_delete of a stored value from a filter claiming 0 items: "
           "slot emptied, items stays 0")
    (got,) = conn.execute("SELECT cuckoo_delete(?1, 'never')", (z,)).fetchone()
    tap.ok(br.Filter(z).test("never") == 0
           and got == br.cuckoo_delete(z, "never") == z,
           "cuckoo_delete of an absent value: the input blob")


# --- What a reader checks, and what it does not (kind 3 included) ------------

def check_unchecked(tap, conn):
    """FORMAT.md: a reader checks the header's rules and nothing more: not
    the sizing against capacity and target_fpr, not a layered filter's rates
    against its tightening; the stores' layer rates follow one evaluation
    order, bit for bit; kind 3's counters saturate as kind 1's and are
    reported alike; cuckoo_info's version and hash on kind 3 are the outer
    header's."""
    # Sized for nothing like what the header claims: read all the same.
    b = br.Filter(bloom_blob(1, 1, 0, capacity=10 ** 12, p=0.5))
    b.add("x")
    c = br.Filter(cuckoo_blob(4, 2, 0, capacity=10 ** 12, p=0.5))
    c.add("x")
    diffs = []
    for f, kind in ((b, 1), (c, 2)):
        blob = f.to_bytes()
        diffs += compare_info(sql_info(conn, blob, kind), f.info())
        (t,) = conn.execute("SELECT %s(?1, 'x')" % TEST_FN[kind], (blob,)).fetchone()
        if t != 1:
            diffs.append("%s answers %r for its member" % (TEST_FN[kind], t))
    tap.ok(not diffs, "a one-block Bloom filter and a two-bucket cuckoo filter "
           "claiming capacity 10^12 at rate 0.5: accepted, answered by their "
           "bits, every figure the reader's", *diffs)
    # Layer rates in no schedule, tightening 1, growth 7: valid.
    rates = (0.3, 0.001, 0.2)
    layers = [conn.execute("SELECT bloom_build(value, 50, ?1) FROM (SELECT 1 AS"
                           " value)", (r,)).fetchone()[0] for r in rates]
    blob = br.layered_blob(layers, 7, 1.0, 0.01)
    f = br.Filter(blob)
    diffs = compare_info(sql_info(conn, blob, 1), f.info())
    (t,) = conn.execute("SELECT bloom_test(?1, 1)", (blob,)).fetchone()
    tap.ok(not diffs and t == 1, "a layered filter whose layers' rates "
           "(%s) follow no tightening: accepted, every figure the reader's"
           % ", ".join(map(str, rates)), *diffs)
    # Kind 3's count stops at 2^64 - 1 and is reported as 2^63 - 1.
    big = [bloom_blob(3, 1, (1 << 63) + 5, capacity=10),
           bloom_blob(3, 1, 1 << 63, capacity=20)]
    blob = br.layered_blob(big, 2, 0.5, 0.02)
    f = br.Filter(blob)
    (added,) = conn.execute("SELECT bloom_add(?1, 'a', 'b', NULL, 'c')",
                            (blob,)).fetchone()
    want = br.layered_add(blob, "a", "b", None, "c")
    got = sql_info(conn, blob, 1)
    rows = [r[0] for r in conn.execute("SELECT inserted FROM bloom_layers(?1)",
                                       (blob,))]
    tap.ok(f.header.inserted == (1 << 64) - 1 and added == want
           and br.Filter(want).header.inserted == (1 << 64) - 1
           and not compare_info(got, f.info())
           and got["inserted"] == (1 << 63) - 1 and rows == [(1 << 63) - 1] * 2,
           "a layered filter whose layers count 2^63 + 5 and 2^63: count "
           "2^64 - 1, bloom_add keeps it there, bloom_info and bloom_layers "
           "report 2^63 - 1", "sql %r" % (got,), "rows %r" % (rows,))
    # cuckoo_info on kind 3: the outer header's version and hash.
    (c0, c1) = conn.execute("SELECT (SELECT cuckoo_build(NULL, 10)),"
                            " (SELECT cuckoo_build(NULL, 20))").fetchone()
    got = sql_info(conn, br.layered_blob([c0, c1], 2, 0.5, 0.02), 2)
    tap.ok(got["kind"] == "cuckoo" and got["version"] == 1
           and got["hash"] == "murmur3_x64_128",
           "cuckoo_info on a layered filter: kind 'cuckoo', version 1, hash "
           "'murmur3_x64_128'", "sql %r" % (got,))


def check_layer_rates(tap, values):
    """The stores give layer i the rate (p * (1 - r)) * pow(r, i), in that
    order (FORMAT.md, "Membership"): every layer's target_fpr, bit for bit,
    for both kinds; and some layer's rate differs in another order, so the
    check tells them apart."""
    conn = connect()
    p, r = 0.001, 0.9
    bad, differs, counts = [], 0, []
    for kind in ("bloom_store", "cuckoo_store"):
        conn.execute("CREATE VIRTUAL TABLE %s_r USING %s(capacity = 10, "
                     "fpr = %r, growth = 2, tightening = %r)" % (kind, kind, p, r))
        conn.execute("INSERT INTO %s_r(value) WITH RECURSIVE n(v) AS (SELECT 1"
                     " UNION ALL SELECT v + 1 FROM n WHERE v < 3000) SELECT v"
                     " FROM n" % kind)
        (blob,) = conn.execute("SELECT filter FROM %s_r" % kind).fetchone()
        f = br.Filter(blob)
        counts.append(len(f.impl.layers))
        for i, layer in enumerate(f.impl.layers):
            want = (p * (1 - r)) * math.pow(r, i)
            other = p * ((1 - r) * math.pow(r, i))
            differs += other != want
            if layer.header.target_fpr != want:
                bad.append("%s layer %d: %r, not %r" % (
                    kind, i, layer.header.target_fpr, want))
    tap.ok(min(counts) >= 6 and not bad and differs > 0,
           "scalable stores (p %g, r %g; %s layers): layer i's target_fpr is "
           "(p * (1 - r)) * pow(r, i) bit for bit (p * ((1 - r) * pow(r, i)) "
           "differs for %d)" % (p, r, " and ".join(map(str, counts)), differs),
           *bad)


# --- NaN, and NULL or non-BLOB filter arguments --------------------------------

def check_arguments(tap, conn):
    """FORMAT.md, "Filter arguments that are NULL or not a BLOB", and NaN."""
    nan = float("nan")
    (b,) = conn.execute("SELECT bloom_add(bloom_empty(100), 'a')").fetchone()
    (c,) = conn.execute("SELECT cuckoo_add(cuckoo_build(NULL, 100), 'a')").fetchone()
    # (sql, args, expected): a list of rows, or "error <prefix>"
    NULL_ROW = [(None,)]
    cases = [
        ("SELECT bloom_test(NULL, 1)", (), NULL_ROW),
        ("SELECT bloom_test('junk', NULL)", (), NULL_ROW),
        ("SELECT bloom_test('junk', 1)", (), "bloom_test: the filter must be a BLOB, got TEXT"),
        ("SELECT bloom_test(1.5, 1)", (), "bloom_test: the filter must be a BLOB, got REAL"),
        ("SELECT bloom_test(?1, ?2)", (b, nan), NULL_ROW),
        ("SELECT cuckoo_test(NULL, 1)", (), NULL_ROW),
        ("SELECT cuckoo_test(7, NULL)", (), NULL_ROW),
        ("SELECT cuckoo_test(7, 1)", (), "cuckoo_test: the filter must be a BLOB, got INTEGER"),
        ("SELECT cuckoo_test(?1, ?2)", (c, nan), NULL_ROW),
        ("SELECT bloom_add(NULL, 1)", (), NULL_ROW),
        ("SELECT bloom_add('junk', NULL)", (), "bloom_add: the filter must be a BLOB, got TEXT"),
        ("SELECT bloom_union(NULL, ?1)", (b,), NULL_ROW),
        ("SELECT bloom_union(?1, NULL)", (b,), NULL_ROW),
        ("SELECT bloom_union(NULL, 'junk')", (), "bloom_union: the filter must be a BLOB, got TEXT"),
        ("SELECT bloom_intersect(NULL, NULL)", (), NULL_ROW),
        ("SELECT bloom_intersect(?1, 3)", (b,), "bloom_intersect: the filter must be a BLOB, got INTEGER"),
        ("SELECT bloom_count(NULL)", (), NULL_ROW),
        ("SELECT bloom_count('junk')", (), "bloom_count: the filter must be a BLOB, got TEXT"),
        ("SELECT bloom_merge(f) FROM (SELECT NULL AS f UNION ALL SELECT NULL)", (), NULL_ROW),
        ("SELECT bloom_merge(f) = ?1 FROM (SELECT NULL AS f UNION ALL SELECT ?1)", (b,), [(1,)]),
        ("SELECT bloom_merge(f) FROM (SELECT 'junk' AS f)", (), "bloom_merge: the filter must be a BLOB, got TEXT"),
        ("SELECT * FROM bloom_info(NULL)", (), []),
        ("SELECT * FROM bloom_info('junk')", (), "bloom_info: the filter must be a BLOB, got TEXT"),
        ("SELECT * FROM cuckoo_info(NULL)", (), []),
        ("SELECT * FROM cuckoo_info(2)", (), "cuckoo_info: the filter must be a BLOB, got INTEGER"),
        ("SELECT cuckoo_add(NULL, 1)", (), NULL_ROW),
        ("SELECT cuckoo_add(?1, NULL) = ?1, cuckoo_add(?1, ?2) = ?1", (c, nan), [(1, 1)]),
        ("SELECT cuckoo_add('junk', NULL)", (), "cuckoo_add: the filter must be a BLOB, got TEXT"),
        ("SELECT cuckoo_delete(NULL, 1)", (), NULL_ROW),
        ("SELECT cuckoo_delete(?1, NULL) = ?1, cuckoo_delete(?1, ?2) = ?1", (c, nan), [(1, 1)]),
        ("SELECT cuckoo_delete(x'00', NULL)", (), "cuckoo_delete: not a filter"),
        ("SELECT bloom_test(?1, 1)", (c,), "bloom_test: got a cuckoo filter"),
        ("SELECT bloom_key(1, ?1), typeof(?1)", (nan,), [(None, "null")]),
        ("SELECT inserted FROM bloom_info(bloom_add(?1, ?2, ?2))", (b, nan), [(1,)]),
        ("SELECT inserted FROM bloom_info((SELECT bloom_build(v, 10) FROM"
         " (SELECT ?1 AS v UNION ALL SELECT 1)))", (nan,), [(1,)]),
    ]
    bad = []
    for sql, args, want in cases:
        try:
            got = conn.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            got = "error %s" % e
        ok = (got.startswith("error " + want) if isinstance(want, str)
              and isinstance(got, str) else got == want)
        if not ok:
            bad.append("%s: got %r, FORMAT.md says %r" % (sql, got, want))
    tap.ok(not bad, "%d calls with NULL, NaN, non-BLOB or malformed filter "
           "arguments answer as FORMAT.md says" % len(cases), *bad)


# --- TEXT that is not valid UTF-8, in both encodings -------------------------

INVALID_TEXT = ["41FF42", "FF", "80", "C080", "EDA080", "EFBFBE", "EFBFBF",
                "F4908080", "E282", "C3", "F8888080", "00D8", "00D84100",
                "00DC", "00DC4100", "410042", "FEFF", "FFFF", "410000004200"]


def check_text_encodings(tap, conn, conn16):
    """Text as SQLite hands it over (text_factory = bytes): the extension
    hashes those bytes in either encoding, and FORMAT.md's examples hold."""
    for c, enc in ((conn, "UTF-8"), (conn16, "UTF-16le")):
        c.text_factory = bytes
        try:
            texts = [c.execute("SELECT CAST(x'%s' AS TEXT)" % h).fetchone()[0]
                     for h in INVALID_TEXT]
        finally:
            c.text_factory = str
        f = br.Filter(bloom_blob(5, 4, 0))
        for t in texts[::2]:
            f.add(br.Text(t))
        blob = f.to_bytes()
        got = [c.execute("SELECT bloom_test(?1, CAST(x'%s' AS TEXT))" % h,
                         (blob,)).fetchone()[0] for h in INVALID_TEXT]
        want = [f.test(br.Text(t)) for t in texts]
        tap.ok(got == want and sum(want) >= len(texts) // 2,
               "%s database: CAST(x'..' AS TEXT) for %d byte strings, most "
               "not valid UTF-8 (or UTF-16): the extension hashes the bytes "
               "SQLite gives in UTF-8" % (enc, len(texts)),
               "sql    %s" % got, "reader %s" % want,
               "texts  %s" % [t.hex() for t in texts])
    # FORMAT.md's examples
    t8 = br.Text(bytes.fromhex("41FF42"))
    t16 = br.Text(bytes.fromhex("41EFBFBD42"))
    f = br.Filter(bloom_blob(5, 4, 0))
    for t in (t8, br.Text(bytes.fromhex("EFBFBD"))):
        f.add(t)
    blob = f.to_bytes()
    reader = (f.test("\uffff"), f.test(t8), f.test(t16))
    q = "SELECT bloom_test(?1, ?2), bloom_test(?1, CAST(x'41FF42' AS TEXT))"
    a8 = conn.execute(q, (blob, "\uffff")).fetchone()
    a16 = conn16.execute(q, (blob, "\uffff")).fetchone()
    tap.ok(reader == (0, 1, 0) and a8 == (0, 1) and a16[0] == 1
           and a16[1] == f.test(br.Text("\uff41".encode())),
           "a filter of the bytes 41 FF 42 and EF BF BD: a bound U+FFFF answers "
           "0 in a UTF-8 database, 1 in a UTF-16 one (EF BF BD); "
           "CAST(x'41FF42' AS TEXT) answers 1 in UTF-8, and as U+FF41 in UTF-16",
           "utf-8 %s utf-16 %s reader %s" % (a8, a16, reader))
    conn16.text_factory = bytes
    try:
        got = [conn16.execute("SELECT CAST(x'%s' AS TEXT)" % h).fetchone()[0]
               for h in ("00D8", "00D84100", "00DC4100", "41FF42")]
    finally:
        conn16.text_factory = str
    want = [bytes.fromhex(h) for h in ("EDA080", "F0908181", "F0908181", "EFBD81")]
    tap.ok(got == want, "UTF-16le: CAST(x'00D8'), x'00D84100', x'00DC4100', "
           "x'41FF42' AS TEXT reach functions as FORMAT.md says",
           "got %s" % got)
    # A literal with a raw FF byte: only the sqlite3 shell can send it.
    shell = shutil.which("sqlite3")
    if not shell:
        tap.skip("the literal 'A<FF>B' in both encodings", "no sqlite3 shell")
        return
    f2 = br.Filter(bloom_blob(5, 4, 0))
    f2.add(t16)
    answers, want = {}, {}
    for enc, t in (("UTF-8", t8), ("UTF-16le", t16)):
        script = (".load %s\nPRAGMA encoding = '%s';\n"
                  "SELECT encoding FROM pragma_encoding;\n"
                  % (bloom_so(), enc)).encode()
        script += (b"SELECT bloom_test(x'" + blob.hex().encode() + b"', 'A\xffB'),"
                   b" bloom_test(x'" + f2.to_bytes().hex().encode() + b"', 'A\xffB');\n")
        r = subprocess.run([shell, "-batch", "-bail", ":memory:"], input=script,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        answers[enc] = r.stdout.decode("latin-1").split()
        want[enc] = [enc, "%d|%d" % (f.test(t), f2.test(t))]
    tap.ok(answers == want and want["UTF-8"][1] == "1|0"
           and want["UTF-16le"][1] == "0|1",
           "the literal 'A<FF>B' is hashed as 41 FF 42 in a UTF-8 database and "
           "as 41 EF BF BD 42 in a UTF-16 one (sqlite3 shell)",
           "got %s" % answers, "want %s" % want)


# --- Sizing ------------------------------------------------------------------

def other_model_fpr(lam, k):
    """The sizing model evaluated another honest way: Poisson weights by
    the product recurrence, powers by pow(), an exactly rounded sum."""
    if lam > 1e5:
        return 1.0
    pmf, terms, i, last = math.exp(-lam), [], 0, lam + 12 * math.sqrt(lam) + 30
    while i <= last:
        if i > 0:
            pmf *= lam / i
        c1 = (1 - 1 / 512) ** (i * k)
        c2 = (1 - 2 / 512) ** (i * k)
        m = 1 - c1
        if m > 0:
            v = max(0.0, (512 * 511 * c2 + 512 * c1 - 512 * 512 * c1 * c1) / 512 ** 2)
            terms.append(pmf * min(1.0, m ** k * (1 + k * (k - 1) / 2 * v / m ** 2)))
        i += 1
    return math.fsum(terms)


def check_sizing(tap, conn):
    """bloom_plan and cuckoo_build's sizing against the reader's
    implementation of FORMAT.md's description (bit for bit), and
    expected_fpr against another evaluation within FORMAT.md's tolerance."""
    bad = []
    far = []
    ns = (1, 3, 10, 100, 1000, 4321, 100000, 10 ** 9)
    ps = (0.5, 0.1, 0.01, 0.001, 1e-6, 1e-12)
    for n in ns:
        for p in ps:
            got = tuple(conn.execute("SELECT bits, hashes, expected_fpr FROM"
                                     " bloom_plan(?1, ?2)", (n, p)).fetchone())
            want = br.bloom_plan(n, p)
            if got != want:
                bad.append("bloom_plan(%d, %g): sql %r, reader %r" % (n, p, got, want))
            other = other_model_fpr(n / (got[0] // 512), got[1])
            if not close(got[2], other, br.TOLERANCE["expected_fpr"]):
                far.append("bloom_plan(%d, %g): expected_fpr %r, other "
                           "evaluation %r" % (n, p, got[2], other))
            if n <= 100000:
                got = tuple(conn.execute(
                    "SELECT buckets, fingerprint_bits FROM cuckoo_info("
                    "(SELECT cuckoo_build(NULL, ?1, ?2)))", (n, p)).fetchone())
                want = br.cuckoo_sizing(n, p)
                if got != want:
                    bad.append("cuckoo_build(NULL, %d, %g): sql %r, reader %r"
                               % (n, p, got, want))
    tap.ok(not bad, "bloom_plan (bits, hashes, expected_fpr bit for bit) and "
           "cuckoo sizing for %d (n, p) pairs follow FORMAT.md" % (len(ns) * len(ps)),
           *bad)
    tap.ok(not far, "bloom_plan's expected_fpr for the same pairs is within "
           "FORMAT.md's 1e-10 of an evaluation with pow(), the product "
           "recurrence and an exact sum", *far)


def mutations(blob, kind=1):
    """Altered copies of a valid filter: each header byte, and the length."""
    for off in range(64):
        orig = blob[off]
        news = {0, 1, 2, 0x40, 0x80, 0xFF, orig ^ 1, (orig + 1) & 0xFF}
        if off == 5:
            news = {0}          # kind: 0 is no kind; others may be assigned
        for nb in sorted(news - {orig}):
            yield "byte %d = 0x%02x" % (off, nb), blob[:off] + bytes([nb]) + blob[off + 1:]
    for cut in (1, 8, 63, 64, len(blob) - 63, len(blob) - 64, len(blob)):
        if 0 < cut <= len(blob):
            yield "%d bytes cut" % cut, blob[:-cut]
    for extra in (1, 64, 512):
        yield "%d bytes appended" % extra, blob + bytes(extra)
    for bits in ((1 << 64) - 512, (1 << 64) - 1, (1 << 64) - 8 * (len(blob) - 64),
                 (1 << 61) * 8 + 8 * (len(blob) - 64)):
        bits &= (1 << 64) - 1
        yield "bits = 0x%x" % bits, blob[:16] + struct.pack("<Q", bits) + blob[24:]
    for fpr in (0.0, 1.0, -0.01, float("nan"), float("inf"), 5e-324, 0.999999):
        yield "target_fpr = %r" % fpr, blob[:32] + struct.pack("<d", fpr) + blob[40:]
    for cap in (0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1):
        yield "capacity = %d" % cap, blob[:24] + struct.pack("<Q", cap) + blob[32:]
    for k in (0, 1, 7, 8, 64, 65, 1 << 31):
        yield "hashes = %d" % k, blob[:12] + struct.pack("<I", k) + blob[16:]
    if kind == 2:
        body = len(blob) - 64
        for fb in (0, 3, 4, 5, 63, 64, 65, 255):
            yield "fingerprint_bits = %d" % fb, blob[:12] + bytes([fb]) + blob[13:]
        for sb in (0, 2, 3, 5, 8):
            yield "slots_per_bucket = %d" % sb, blob[:13] + bytes([sb]) + blob[14:]
        for nb in (0, 1, 2, 3, 6, 1 << 63, (1 << 64) - 1, (1 << 64) - (1 << 60)):
            yield "buckets = %d" % nb, blob[:16] + struct.pack("<Q", nb) + blob[24:]
        (nb,) = struct.unpack_from("<Q", blob, 16)
        for it in (0, 4 * nb - 1, 4 * nb, 4 * nb + 1, 4 * nb + 4, (1 << 64) - 1,
                   (1 << 64) - 4, 1 << 63):
            it &= (1 << 64) - 1
            yield "items = %d" % it, blob[:40] + struct.pack("<Q", it) + blob[48:]
        for cut in (body // 2,):
            if 0 < cut < body:
                yield "body halved", blob[:64 + cut]


def check_mutations(tap, conn, blob, values, kind=1):
    accepted = rejected = 0
    bad = []
    few = values[:300]
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS few AS"
                 " SELECT * FROM pv WHERE id < 300")
    for what, m in mutations(blob, kind):
        try:
            got = [r[0] for r in conn.execute(
                "SELECT %s(?1, val) FROM few ORDER BY id" % TEST_FN[kind], (m,))]
        except sqlite3.Error as e:
            got = "error: %s" % e
            if not str(e).startswith(TEST_FN[kind] + ":"):
                bad.append("%s: sql failed without naming %s: %s"
                           % (what, TEST_FN[kind], e))
                continue
        try:
            f = br.Filter(m)
            want = [f.test(v) for v in few]
        except br.FormatError as e:
            want = "error: %s" % e
        if isinstance(got, str) and isinstance(want, str):
            rejected += 1
        elif got == want:
            accepted += 1
        else:
            bad.append("%s: sql %s, reader %s" % (
                what, got if isinstance(got, str) else "accepts",
                want if isinstance(want, str) else
                ("accepts" if isinstance(got, str) else "answers differ")))
    tap.ok(not bad, "%s, %d altered headers: extension and reader both reject "
           "%d, both accept %d with the same answers for 300 probes"
           % (TEST_FN[kind], accepted + rejected + len(bad), rejected, accepted),
           *bad[:20])


with open(os.path.join(ROOT, "ext", "FORMAT.md"), encoding="utf-8") as _f:
    FORMAT_TEXT = _f.read()


def reader_agrees(ext, store, blob, sample):
    """The reader's answers from the blob alone are the store's."""
    f = br.Filter(blob)
    got = [ext.execute("SELECT count(*) FROM %s WHERE value = ?" % store,
                       (v,)).fetchone()[0] for v in sample]
    return all(f.test(v) == g for v, g in zip(sample, got))


def check_stores(tap, conn, values):
    """A store reassembled by the reader from its shadow tables alone is the
    extension's own export, and bloom_build's blob over the same values; a
    damaged store is refused by both."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "store.db")
        ext = connect(path)
        members = [v for v in values[:20000] if v is not None]
        ext.execute("CREATE VIRTUAL TABLE s USING bloom_store(capacity = 20000,"
                    " fpr = 0.005)")
        ext.execute("CREATE TABLE m(v)")
        ext.executemany("INSERT INTO m VALUES (?)", [(v,) for v in members])
        ext.execute("INSERT INTO s(value) SELECT v FROM m")
        ext.commit()
        exported = ext.execute("SELECT filter FROM s").fetchone()[0]
        built = ext.execute("SELECT bloom_build(v, 20000, 0.005) FROM m"
                            ).fetchone()[0]
        plain = sqlite3.connect(path)   # no extension: shadow tables only
        mine = br.read_store(plain, "s")
        tap.ok(mine == exported == built,
               "store: the reader reassembles from the shadow tables alone the "
               "blob SELECT filter exports, which is bloom_build's")
        f = br.Filter(mine)
        sample = [v for v in values[20000:30000] if v is not None]
        want = [f.test(v) for v in sample]
        got = [ext.execute("SELECT count(*) FROM s WHERE value = ?", (v,)
                           ).fetchone()[0] for v in sample]
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        tap.ok(not bad and all(f.test(v) == 1 for v in members),
               "store: %d probes of the store answer as the reader's filter; "
               "every member is present" % len(sample),
               *["value %r: store %r reader %r" % (sample[i], got[i], want[i])
                 for i in bad[:5]])
        damage = [
            ("UPDATE s_chunks SET data = substr(data, 1, 64) WHERE id = 0",
             "bloom_store: chunk 0 of s has 64 bytes"),
            ("DELETE FROM s_chunks WHERE id = 1", "bloom_store: chunk 1 of s is missing"),
            ("INSERT INTO s_chunks VALUES (99999, x'00')",
             "bloom_store: chunk 99999 of s is outside its layers"),
        ]
        refused = []
        for i, (sql, prefix) in enumerate(damage):
            # Damage committed by another connection, as it would come.
            copy = os.path.join(tmp, "damaged%d.db" % i)
            plain.execute("VACUUM INTO ?", (copy,))
            hurt = sqlite3.connect(copy)
            hurt.execute(sql)
            hurt.commit()
            try:
                br.read_store(hurt, "s")
                by_reader = False
            except br.FormatError:
                by_reader = True
            hurt.close()
            probe = connect(copy)
            try:
                probe.execute("SELECT filter FROM s").fetchone()
                by_ext = ""
            except sqlite3.Error as e:
                by_ext = str(e)
            probe.close()
            refused.append(by_ext.startswith(prefix) and by_reader)
        tap.ok(all(refused), "store: a short chunk, a missing chunk and a chunk "
               "outside its layers are refused by the extension (naming the "
               "module) and by the reader", repr(refused))
        # A cuckoo store, after adds and deletes, from its shadow tables.
        ext.execute("CREATE VIRTUAL TABLE live USING cuckoo_store("
                    "capacity = 20000, fpr = 0.01)")
        # Distinct values: a cuckoo filter holds at most 8 copies of one.
        ext.execute("CREATE TABLE md AS SELECT DISTINCT v FROM m")
        ext.execute("INSERT INTO live(value) SELECT v FROM md")
        ext.execute("DELETE FROM live WHERE value IN (SELECT v FROM md "
                    "WHERE rowid % 3 = 0)")
        ext.commit()
        exported = ext.execute("SELECT filter FROM live").fetchone()[0]
        plain2 = sqlite3.connect(path)
        mine = br.read_store(plain2, "live")
        f = br.Filter(mine)
        kept = [r[0] for r in ext.execute("SELECT v FROM md WHERE rowid % 3 != 0")]
        tap.ok(mine == exported and f.header.inserted == len(kept)
               and all(f.test(v) == 1 for v in kept),
               "cuckoo store: the reader reassembles from the shadow tables "
               "alone the blob SELECT filter exports, items = adds - deletes, "
               "every value kept is present")
        # Scalable stores of both kinds: layers, rows created as written.
        ext.execute("CREATE VIRTUAL TABLE g USING bloom_store(capacity = 500,"
                    " growth = 2, fpr = 0.01)")
        ext.execute("CREATE VIRTUAL TABLE gc USING cuckoo_store(capacity = "
                    "500, growth = 3, fpr = 0.01)")
        ext.execute("INSERT INTO g(value) SELECT v FROM m")
        ext.execute("INSERT INTO gc(value) SELECT v FROM md")
        ext.execute("DELETE FROM gc WHERE value IN (SELECT v FROM md "
                    "WHERE rowid % 5 = 0)")
        ext.commit()
        plain3 = sqlite3.connect(path)
        same, agree = [], []
        sample = [v for v in values[20000:25000] if v is not None] + members[:2000]
        for store in ("g", "gc"):
            exported = ext.execute("SELECT filter FROM %s" % store).fetchone()[0]
            layers = ext.execute("SELECT value FROM %s_config WHERE key = "
                                 "'layers'" % store).fetchone()[0]
            mine = br.read_store(plain3, store)
            same.append(mine == exported and layers > 2)
            agree.append(reader_agrees(ext, store, mine, sample))
        tap.ok(all(same), "scalable stores: the reader reassembles from the "
               "shadow tables alone the layered blob SELECT filter exports "
               "(bloom_store, cuckoo_store)", repr(same))
        tap.ok(sample and len(agree) == 2 and all(agree),
               "scalable stores: the reader's layered filter answers "
               "%d probes as the store does (bloom_store, cuckoo_store)"
               % len(sample), repr(agree))
        plain3.close()
        check_windowed_stores(tap, ext, path, members, sample)
        plain2.close()
        plain.close()
        ext.close()


def check_windowed_stores(tap, ext, path, members, sample):
    """Windowed stores (events clock, so that the reader's time, the `time`
    row, is the extension's): the reader reassembles the live generations'
    layered blob from the shadow tables alone, answers as the store does,
    and refuses a chunk row outside every slot, as the extension does."""
    ext.execute("CREATE VIRTUAL TABLE wb USING bloom_store(fpr = 0.01, "
                "window = 3600, clock = 'events')")
    ext.execute("CREATE VIRTUAL TABLE wc USING cuckoo_store(fpr = 0.01, "
                "window = '1 hour', generations = 3, capacity = 3000, "
                "clock = 'events')")
    # 9,000 values over 3 hours: generations made, grown and expired
    ext.execute("INSERT INTO wb(value, at) SELECT v, 1000000 + rowid * 12 "
                "FROM m WHERE rowid <= 9000")
    ext.execute("INSERT INTO wc(value, at) SELECT v, 1000000 + rowid * 12 "
                "FROM md WHERE rowid <= 9000")
    ext.commit()
    plain = sqlite3.connect(path)
    same, agree = [], []
    for store in ("wb", "wc"):
        exported = ext.execute("SELECT filter FROM %s" % store).fetchone()[0]
        mine = br.read_store(plain, store)
        live = ext.execute("SELECT count(*) FROM %s WHERE generation IS NOT "
                           "NULL" % store).fetchone()[0]
        same.append(mine == exported and live > 2)
        agree.append(reader_agrees(ext, store, mine, sample))
    tap.ok(all(same), "windowed stores: the reader reassembles from the "
           "shadow tables alone the layered blob of the live generations "
           "SELECT filter exports (bloom_store, cuckoo_store)", repr(same))
    tap.ok(all(agree), "windowed stores: the reader's blob answers %d probes "
           "as the store does" % len(sample), repr(agree))
    # slot 9: past the ring of G + 1 = 9 slots (0 to 8) at the default G = 8
    ext.execute("INSERT INTO wb_chunks VALUES ((1 << 40) * 9, zeroblob(8))")
    ext.commit()
    refused = []
    try:
        ext.execute("SELECT filter FROM wb").fetchone()
        refused.append("the extension accepted it")
    except sqlite3.Error as e:
        if not str(e).startswith("bloom_store:"):
            refused.append(str(e))
    try:
        br.read_store(plain, "wb")
        refused.append("the reader accepted it")
    except br.FormatError:
        pass
    tap.ok(not refused, "windowed stores: a chunk row in a slot past the "
           "ring is refused by the extension and by the reader", *refused)
    plain.close()


def check_empty_window_export(tap):
    """A windowed store with no live generation exports one empty layer,
    made here from FORMAT.md's words alone ("Windowed stores"): a first
    layer for 100 items at 0.9 * (fpr / (G + 1))."""
    wrong = []
    for kind, module in ((1, "bloom_store"), (2, "cuckoo_store")):
        for fpr, g in ((0.01, 8), (0.001, 3), (0.05, 1)):
            ext = connect()
            ext.execute("CREATE VIRTUAL TABLE w USING %s(fpr = %r, window = "
                        "3600, generations = %d, clock = 'events')"
                        % (module, fpr, g))
            got = ext.execute("SELECT filter FROM w").fetchone()[0]
            ext.close()
            rate = 0.9 * (fpr / (g + 1))
            if kind == 1:
                bits, hashes, _ = br.bloom_plan(100, rate)
                shape, body, capacity = (hashes, bits), bits // 8, 100
            else:
                b = br.cuckoo_sizing(100, rate)[0]
                f = next(f for f in range(4, 65)
                         if br.cuckoo_fpr(1.0, f, b) <= rate * 0.97)
                shape, body = (f | 4 << 8 | 1 << 16, b), b // 2 * f
                capacity = max(100, br.cuckoo_items(b))
            layer = br.HEADER.pack(br.MAGIC, 1, kind, 1, 0, 0, shape[0],
                                   shape[1], capacity, rate, 0, bytes(16))
            want = br.layered_blob([layer + bytes(body)], 2, 0.5, fpr)
            if got != want:
                wrong.append("%s fpr %r G %d: %d bytes, want %d"
                             % (module, fpr, g, len(got), len(want)))
    tap.ok(not wrong, "a windowed store with no live generation exports the "
           "empty layer FORMAT.md describes (both kinds, 3 rates)", *wrong)


def check_config_verdicts(tap):
    """Rows FORMAT.md ("Reading a store") calls damage are refused, and rows
    it says a reader ignores are ignored, by the extension and by the
    reader alike: each change is made to a fresh copy of a store, then both
    read it."""
    import tempfile
    stores = {
        "fixed": ("bloom_store(capacity = 1000)",
                  "INSERT INTO s(value) VALUES (1)"),
        "scalable": ("bloom_store(capacity = 100, growth = 2)",
                     "INSERT INTO s(value) WITH RECURSIVE n(x) AS (SELECT 1 "
                     "UNION ALL SELECT x + 1 FROM n WHERE x < 300) SELECT x "
                     "FROM n"),
        # G = 4, span 900: 1000000 is generation 1111, slot 1; 1107..1111
        # are live, 1102 (slot 2) expired
        "windowed": ("cuckoo_store(window = 3600, generations = 4, clock = "
                     "'events')", "INSERT INTO s(value, at) VALUES (1, "
                     "1000000)"),
        "quotient": ("quotient_store(fpr = 0.01)",
                     "INSERT INTO s(value) VALUES (1), (2)"),
    }
    cases = [
        ("fixed", "('gen.0.number', 0)", "refused"),
        ("fixed", "('gen.0.layer.0.foo', 1)", "refused"),
        ("scalable", "('layer.4.foo', 1)", "refused"),
        ("scalable", "('gen.0.number', 0)", "refused"),
        ("scalable", "('layer.9.bits', 'junk')", "ignored"),
        ("windowed", "('gen.3.layer.0.foo', 1)", "refused"),
        ("windowed", "('gen.5.layers', 1)", "refused"),
        ("windowed", "('gen.3.number', 'x')", "refused"),
        ("windowed", "('gen.3.number', -2)", "refused"),
        ("windowed", "UPDATE s_config SET value = value + 1 WHERE key = "
         "'time'", "refused"),
        # a generation's start past 2^62, the latest time a store takes
        ("windowed", "UPDATE s_config SET value = 4611686018427388800 WHERE "
         "key = 'time'", "refused"),
        ("windowed", "('gen.2.number', 1102), ('gen.2.layers', 3)", "ignored"),
        ("windowed", "('gen.2.number', 1102), ('gen.2.layers', 'junk'), "
         "('gen.2.layer.0.capacity', -5), ('gen.2.layer.0.fpr', 'x')",
         "ignored"),
        ("windowed", "('gen.3.layers', 'junk')", "ignored"),
        ("windowed", "('gen.3.layers', 99)", "ignored"),
        ("windowed", "('gen.1.layer.1.capacity', 'x')", "ignored"),
        # deletes: 0 only, in a store of a kind that deletes
        ("fixed", "('deletes', 0)", "refused"),
        ("scalable", "('deletes', 0)", "refused"),
        ("windowed", "('deletes', 0)", "ignored"),
        ("windowed", "('deletes', 1)", "refused"),
        ("quotient", "('deletes', 0)", "ignored"),
        ("quotient", "('deletes', '0')", "refused"),
        ("quotient", "('deletes', 0.0)", "refused"),
        # what makes a store windowed: any one of its five keys
        ("fixed", "('generations', 4)", "refused"),
        ("scalable", "('clock', 'wall')", "refused"),
    ]
    wrong = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (shape, rows, want) in enumerate(cases):
            path = os.path.join(tmp, "v%d.db" % i)
            ext = connect(path)
            ext.execute("CREATE VIRTUAL TABLE s USING " + stores[shape][0])
            ext.execute(stores[shape][1])
            ext.commit()
            before = ext.execute("SELECT filter FROM s").fetchone()[0]
            ext.close()
            plain = sqlite3.connect(path)
            if rows.startswith("UPDATE"):
                plain.execute(rows)
            else:
                plain.execute("INSERT INTO s_config VALUES " + rows)
            plain.commit()
            try:
                mine = br.read_store(plain, "s")
                reader = "ignored" if mine == before else "changed"
            except br.FormatError:
                reader = "refused"
            plain.close()
            ext = connect(path)
            try:
                got = ext.execute("SELECT filter FROM s").fetchone()[0]
                extension = "ignored" if got == before else "changed"
            except sqlite3.Error as e:
                extension = "refused" if "is missing or damaged" in str(e) \
                    else str(e)
            ext.close()
            if reader != want or extension != want:
                wrong.append("%s %s: want %s, reader %s, extension %s"
                             % (shape, rows, want, reader, extension))
    tap.ok(not wrong, "%d configuration changes: the rows FORMAT.md calls "
           "damage are refused, those it ignores ignored, by the extension "
           "and the reader alike" % len(cases), *wrong)


def main():
    tap = Tap()
    n = int(os.environ.get("BLOOM_INTEROP_PROBES", "100000"))
    t_start = time.time()
    check_hash(tap)
    conn = connect()
    check_float_figures(tap, conn)
    check_counters(tap, conn)
    check_unchecked(tap, conn)
    check_layer_rates(tap, None)
    check_arguments(tap, conn)
    check_sizing(tap, conn)

    probes = make_probes(n)
    load_probes(conn, probes)
    values = [probe_value(k, v) for k, v in probes]
    classes = [storage_class(k, v) for k, v in probes]
    counts = {}
    for c in classes:
        counts[c] = counts.get(c, 0) + 1
    tap.note("%d probes: %s" % (n, ", ".join(
        "%s %d" % kv for kv in sorted(counts.items()))))

    # bloom_key: the extension's bytes are the reader's encoding
    keys_sql = [r[0] for r in conn.execute(
        "SELECT val FROM pv WHERE nparts > 0 ORDER BY id")]
    keys_py = [values[i] for i in range(n) if classes[i] == "key"]
    bad = [i for i, (a, b) in enumerate(zip(keys_sql, keys_py)) if a != b]
    tap.ok(len(keys_sql) == len(keys_py) and not bad,
           "bloom_key gives the reader's encoding for %d composite keys "
           "(%d with a NULL part)" % (len(keys_py), keys_py.count(None)),
           *["key %d: sql %r reader %r" % (i, keys_sql[i], keys_py[i])
             for i in bad[:5]])

    check_stores(tap, conn, values)
    check_config_verdicts(tap)
    check_empty_window_export(tap)

    t_sql = t_reader = 0.0
    filters = build_filters(conn, values)
    blob, members = crafted_filter(probes)
    filters.append(("crafted by the reader: seed 0xfffffffd (wraps), k = 9",
                    blob, members))
    for name, blob, members in filters:
        a, b = check_filter(tap, conn, name, blob, members, values, classes)
        t_sql += a
        t_reader += b
        if blob[5] == 3 or name == filters[0][0]:
            check_layer_rows(tap, conn, name, blob)
        if blob[5] == 3 and members:
            check_layered_changes(tap, conn, name, blob, values, members)

    # The same probes in a UTF-16 database: TEXT is hashed as UTF-8 there too.
    conn16 = connect()
    conn16.execute("PRAGMA encoding = 'UTF-16le'")
    load_probes(conn16, probes)
    (enc,) = conn16.execute("PRAGMA encoding").fetchone()
    for name, blob, members in filters[:1] + filters[2:3]:
        f = br.Filter(blob)
        got = sql_answers(conn16, blob, f.header.kind)
        bad = [i for i in range(n) if got[i] != f.test(values[i])]
        tap.ok(enc == "UTF-16le" and not bad,
               "%s: the same answers in a %s database" % (name, enc),
               *["probe %d %s %r" % (i, classes[i], values[i]) for i in bad[:5]])

    check_quotient(tap, conn, filters, values)
    check_quotient_leaves(tap, compare_info)
    check_text_encodings(tap, conn, conn16)
    check_mutations(tap, conn, filters[0][1], values)
    for name, blob, members in filters:
        if blob[5] == 2 and len(blob) < 4096:
            check_mutations(tap, conn, blob, values, 2)
    tap.note("%d filters x %d probes compared; SQL %.1f s, reader %.1f s, "
             "total %.1f s" % (len(filters), n, t_sql, t_reader,
                               time.time() - t_start))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
