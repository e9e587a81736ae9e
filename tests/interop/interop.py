"""The extension and an independent reader (bloomreader.py, written from
ext/FORMAT.md alone) must agree on every filter the extension builds.

For each filter, Bloom (kind 1) and cuckoo (kind 2: built, after
cuckoo_add and cuckoo_delete, and empty): the answer to every probe (one SQL
query per filter, the filter bound once), and every bloom_info (cuckoo_info)
field (exact, or within 1e-9 relative for the estimates).  Also: the
reader's MurmurHash3 against SMHasher's verification value and FORMAT.md's worked examples, its bloom_key
encoding against the extension's, TEXT probes in a UTF-16 database, and
acceptance or rejection of altered headers.  Prints TAP.

BLOOM_INTEROP_PROBES sets the number of probes (default 100000).
"""

import os
import re
import sqlite3
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]

import bloomreader as br                                  # noqa: E402
from bloomhost import ROOT, Tap, connect                  # noqa: E402
from probes import make_probes, storage_class             # noqa: E402

# SQL function names per kind (the header's kind byte); to cover a new kind,
# add its functions here, a class to bloomreader.KINDS, and its filters to
# build_filters.  Every info column must agree exactly, except the
# estimates, which must agree within REL_TOL relative.
TEST_FN = {1: "bloom_test", 2: "cuckoo_test"}
INFO_FN = {1: "bloom_info", 2: "cuckoo_info"}
APPROX = {"estimated_items", "estimated_fpr"}
REL_TOL = 1e-9

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


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if a == b:
        return True
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def compare_info(got, want):
    """Differences between bloom_info's row (got) and the reader's (want)."""
    diffs = []
    if set(got) != set(want):
        diffs.append("columns differ: sql %s, reader %s"
                     % (sorted(got), sorted(want)))
    for c in want:
        if c not in got:
            continue
        if c in APPROX:
            same = close(got[c], want[c])
        else:
            same = got[c] == want[c] and type(got[c]) == type(want[c])
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


def check_cuckoo_worked_example(tap, conn):
    blob = bytes.fromhex(cuckoo_worked_example_hex())
    tap.ok(len(blob) == 100, "FORMAT.md's cuckoo worked example is 100 bytes",
           "got %d" % len(blob))
    f = br.Filter(blob)
    want = {42: (108, 7, 1), "abc": (460, 6, 3)}
    for v, loc in want.items():
        got = f.impl.locate(*br.hash_value(v))
        tap.ok(got == loc, "reader gives %r fp %d, buckets %d and %d, as "
               "FORMAT.md says" % ((v,) + loc), "got %s" % (got,))
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
    return out


def cuckoo_filters(conn, build):
    """(name, blob, member ids) for kind 2: builds, adds, deletes, empty."""
    out = []
    c = "SELECT cuckoo_build(val, %s) FROM pv WHERE {cond}"
    build("cuckoo_build(n=1000, p=0.01), 1000 members", c % "1000, 0.01",
          "id % 97 = 1")
    build("cuckoo_build(n=5000, p=1e-9), 4000 members (f > 32)",
          c % "5000, 1e-9", "id % 25 = 3")
    build("cuckoo_build(n=3, p=0.1), 2 members (one bucket, f = 5: spare "
          "bits)", c % "3, 0.1",
          "id IN (10, 11)")
    build("cuckoo_build(NULL, 500, 0.01): empty",
          "SELECT cuckoo_build(NULL, 500, 0.01)", "0")
    out.extend(cuckoo_add_delete(conn))
    return out


def cuckoo_add_delete(conn):
    """cuckoo_add and cuckoo_delete on top of a build: members change."""
    # start: cuckoo_build(n=3000, p=0.02) of id % 53 = 4 (about 1900 values);
    # add id % 53 = 5 in chunks of 20 (NULLs too), then delete id % 106 = 4.
    (blob,) = conn.execute("SELECT cuckoo_build(val, 3000, 0.02) FROM pv"
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
    return [("cuckoo_build(n=3000, p=0.02), then %d cuckoo_add and %d "
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
    kind = f.header.kind
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
    diffs = compare_info(sql_info(conn, blob, kind), f.info())
    tap.ok(not diffs, "%s: %s agrees (%d bytes)" % (name, INFO_FN[kind], len(blob)),
           *diffs)
    return t_sql, t_reader


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


def main():
    tap = Tap()
    n = int(os.environ.get("BLOOM_INTEROP_PROBES", "100000"))
    t_start = time.time()
    check_hash(tap)
    conn = connect()
    check_worked_example(tap, conn)
    check_cuckoo_worked_example(tap, conn)

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

    t_sql = t_reader = 0.0
    filters = build_filters(conn, values)
    blob, members = crafted_filter(probes)
    filters.append(("crafted by the reader: seed 0xfffffffd (wraps), k = 9",
                    blob, members))
    for name, blob, members in filters:
        a, b = check_filter(tap, conn, name, blob, members, values, classes)
        t_sql += a
        t_reader += b

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
