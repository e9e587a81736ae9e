"""Kind 4 layout 1 (quotient leaves) and quotient_store, the extension
against the independent reader (bloomreader.py, from ext/FORMAT.md alone).

Called by interop.py (check_quotient_leaves); prints TAP through its Tap.

  - Stores, growing and sized, at page sizes 512 and 4096 and rates 0.01
    and 0.001, sizes that make many leaves: the export (SELECT filter) has
    the header "Kind 4, layout 1" and "Stores" give it; quotient_test and
    the reader answer alike for members (all 1) and non-members;
    quotient_info and the reader's figures agree (blocks = L, block_bytes
    and full_blocks 0, estimated_fpr the sum of 2^-(d+b), within FORMAT.md's
    tolerance); the reader reassembles the export from the three shadow
    tables byte for byte, and re-encodes every leaf's record from its keys.
  - Damaged blobs: a directory node changed, an end out of range, every
    bit of two leaves' records flipped, byte 14 = 2 and other header
    damage: the extension and the reader refuse alike (quotient_info, and
    every probe of the leaf the damage lies in), and answer alike where
    they answer.
  - Damaged stores: rows the "Stores" text calls damage make both SELECT
    filter and the reader's reassembly fail.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import math
import os
import sqlite3
import struct
import tempfile

import bloomreader as br
from bloomhost import connect

# (page_size, arguments, values inserted): growing and sized stores
STORES = [
    (512, "fpr = 0.01", 0),
    (512, "fpr = 0.01", 5),
    (512, "fpr = 0.01", 1500),
    (512, "fpr = 0.001", 900),
    (512, "capacity = 1000, fpr = 0.01", 1300),
    (512, "capacity = 400, fpr = 0.001", 300),
    (4096, "fpr = 0.01", 3000),
    (4096, "fpr = 0.001", 2500),
    (4096, "capacity = 2000, fpr = 0.001", 2000),
]


def members(n):
    """n values of every storage class, all distinct."""
    out = []
    for i in range(n):
        out.append([i * 7919, "m-%d" % i, b"b%d" % i, i + 0.25][i % 4])
    return out


def non_members(n):
    return [[10 ** 9 + i, "x-%d" % i, b"y%d" % i, -i - 0.5][i % 4]
            for i in range(n)]


def sql_answer(conn, blob, v):
    try:
        return conn.execute("SELECT quotient_test(?1, ?2)", (blob, v)).fetchone()[0]
    except sqlite3.Error:
        return "error"


def reader_answer(blob, v):
    try:
        return br.Filter(blob).test(v)
    except br.FormatError:
        return "error"


def sql_info(conn, blob):
    cur = conn.execute("SELECT * FROM quotient_info(?1)", (blob,))
    return dict(zip([d[0] for d in cur.description], cur.fetchone()))


def info_verdicts(conn, blob):
    """(extension, reader): 'ok' or 'refused' for quotient_info."""
    try:
        sql_info(conn, blob)
        a = "ok"
    except sqlite3.Error:
        a = "refused"
    try:
        br.Filter(blob).info()
        b = "ok"
    except br.FormatError:
        b = "refused"
    return a, b


def check_store(tap, compare_info, page, args, n):
    conn = connect()
    conn.execute("PRAGMA page_size = %d" % page)
    conn.execute("CREATE VIRTUAL TABLE q USING quotient_store(%s)" % args)
    vals = members(n)
    conn.executemany("INSERT INTO q(value) VALUES (?1)", [(v,) for v in vals])
    conn.commit()
    (blob,) = conn.execute("SELECT filter FROM q").fetchone()
    name = "quotient_store(%s), page_size %d, %d values" % (args, page, n)
    f = br.Filter(blob)
    opts = dict(kv.split("=") for kv in args.replace(" ", "").split(","))
    leaves = conn.execute("SELECT count(*) FROM q_directory").fetchone()[0]
    want_head = (4, 0, 1, 0, leaves, int(opts.get("capacity", 10000)),
                 float(opts["fpr"]), n)
    head = (blob[5],) + struct.unpack_from("<HBBQQdQ", blob, 12)
    tap.ok(head == want_head and isinstance(f.impl, br.QuotientLeavesKind),
           "%s: the export is kind 4, block_bytes 0, layout 1, L = the "
           "directory's %d rows, capacity, fpr and items as FORMAT.md says"
           % (name, leaves), "blob %s, want %s" % (head, want_head))
    others = non_members(2000)
    bad = [v for v in vals if sql_answer(conn, blob, v) != 1 or f.test(v) != 1]
    bad += [v for v in others if sql_answer(conn, blob, v) != f.test(v)]
    fp = sum(f.test(v) for v in others)
    tap.ok(not bad, "%s: quotient_test and the reader answer alike, 1 for "
           "the %d members, for %d non-members (%d maybe)"
           % (name, n, len(others), fp), *["%r" % v for v in bad[:5]])
    got = sql_info(conn, blob)
    want = f.info()
    rows = f.impl.leaf_rows()
    exact = sum(len(keys) * 2.0 ** -(node.bit_length() - 1 + b)
                for node, secs in rows for b, _m, keys in secs)
    diffs = compare_info(got, want, tolerant=True)
    tap.ok(not diffs and want["blocks"] == leaves and want["block_bytes"] == 0
           and want["full_blocks"] == 0
           and math.isclose(want["estimated_fpr"], exact, rel_tol=1e-12),
           "%s: quotient_info and the reader agree (blocks %d, estimated_fpr "
           "%.6g%s)" % (name, leaves, want["estimated_fpr"],
                        ", bit for bit" if not compare_info(got, want) else ""),
           *diffs)
    again = br.read_store(conn, "q")
    recoded = br.leaves_blob(
        [(node, br.encode_leaf_record(secs)) for node, secs in rows],
        f.header.capacity, f.header.target_fpr, f.header.seed,
        f.header.inserted)
    tap.ok(again == blob and recoded == blob,
           "%s: the reader reassembles the export from q_config, q_directory "
           "and q_chunks, and re-encodes its %d leaves, byte for byte"
           % (name, leaves), "from the tables: %s" % (again == blob),
           "re-encoded: %s" % (recoded == blob))
    check_compact(tap, conn, name, blob, vals, others, float(opts["fpr"]))
    return conn, blob, vals


def check_compact(tap, conn, name, blob, vals, others, fpr):
    """quotient_compact's blob, read from FORMAT.md alone: a blob of leaves
    that holds every member, answers as quotient_test does, answers maybe
    wherever the export does, and whose estimated rate is within 0.9 fpr
    (REFERENCE.md, quotient_compact)."""
    (small,) = conn.execute("SELECT quotient_compact(?1)", (blob,)).fetchone()
    c, f = br.Filter(small), br.Filter(blob)
    bad = [v for v in vals if c.test(v) != 1 or sql_answer(conn, small, v) != 1]
    bad += [v for v in others
            if c.test(v) != sql_answer(conn, small, v) or c.test(v) < f.test(v)]
    est = c.info()["estimated_fpr"]
    tap.ok(isinstance(c.impl, br.QuotientLeavesKind) and not bad
           and len(small) <= len(blob) and est <= 0.9 * fpr,
           "%s: quotient_compact gives %d bytes from %d, read by FORMAT.md: "
           "every member, the extension's answers, maybe wherever the export "
           "says maybe, estimated_fpr %.6g" % (name, len(small), len(blob), est),
           *["%r" % v for v in bad[:5]])


def leaf_of(f, v):
    """The index of the leaf owning v's h1 in a sound blob."""
    h1 = f.hash(v)[0]
    for i in range(f.impl.leaves):
        _d, first, last = f.impl.node_range(f.impl.entry(i)[0])
        if first <= h1 < last:
            return i
    raise AssertionError("no leaf owns %r" % (v,))


def check_damage(tap, conn, blob, vals):
    f = br.Filter(blob)
    n = f.impl.leaves
    area = 64 + 16 * n
    probes = vals[::3] + non_members(300)
    where = {}
    for v in probes:
        where.setdefault(leaf_of(f, v), []).append(v)
    i = n // 2
    node, end = f.impl.entry(i)

    def put(d, off, fmt, x):
        d = bytearray(d)
        struct.pack_into(fmt, d, off, x)
        return bytes(d)

    def refused(what, d, leaf_probes, owns=lambda h1: False):
        """quotient_info refuses d in both; quotient_test and the reader
        answer alike for every probe of leaf_probes, and refuse those whose
        h1 the damaged leaf no longer owns (owns(h1) false)."""
        verdicts = info_verdicts(conn, d)
        answers = [(v, sql_answer(conn, d, v), reader_answer(d, v))
                   for v in leaf_probes]
        wrong = [a for a in answers if a[1] != a[2] or (
            a[1] != "error" and not owns(f.hash(a[0])[0]))]
        forced = sum(1 for v in leaf_probes if not owns(f.hash(v)[0]))
        tap.ok(verdicts == ("refused", "refused") and forced and not wrong,
               "%s: refused by quotient_info and the reader; of the %d "
               "probes of the leaf, the %d it no longer owns refused by "
               "quotient_test and the reader, the others answered alike"
               % (what, len(leaf_probes), forced), "info: %s" % (verdicts,),
               *["%r: sql %r reader %r" % a for a in wrong[:5]])

    d_entry = 64 + 16 * i
    for what, new in (("its sibling", node ^ 1), ("0", 0),
                      ("a depth-63 node", 1 << 63 | node),
                      ("its left child", 2 * node)):
        def owns(h1, new=new):
            if new == 2 * node:     # still owns the first half of its range
                _d, first, last = br.QuotientLeavesKind.node_range(new)
                return first <= h1 < last
            return False
        refused("leaf %d's node %d changed to %s" % (i, node, what),
                put(blob, d_entry, "<Q", new), where.get(i, []), owns)
    refused("leaf %d's end past the records area" % i,
            put(blob, d_entry + 8, "<Q", len(blob) - area + 1),
            where.get(i, []) + where.get(i + 1, []))
    refused("leaf %d's end below leaf %d's" % (i, i - 1),
            put(blob, d_entry + 8, "<Q", f.impl.entry(i - 1)[1] - 1),
            where.get(i, []))
    refused("the last end one past the records area (O(1) check)",
            put(blob, 64 + 16 * (n - 1) + 8, "<Q", len(blob) - area + 1), probes)
    for what, off, fmt, x in (
            ("byte 14 = 2 (a later layout)", 14, "<B", 2),
            ("byte 15 = 1", 15, "<B", 1),
            ("block_bytes 64 in layout 1", 12, "<H", 64),
            ("L = 0", 16, "<Q", 0),
            ("L past the body's 16-byte entries", 16, "<Q", len(blob) // 16)):
        refused("header %s" % what, put(blob, off, fmt, x), probes)

    # Every bit of two leaves' records flipped.
    disagree, unary_end, cases, refusals = [], [], 0, 0
    for j in (i, n - 1):
        lo = area + (f.impl.entry(j - 1)[1] if j else 0)
        hi = area + f.impl.entry(j)[1]
        for at in range(lo, hi):
            for bit in range(8):
                d = bytearray(blob)
                d[at] ^= 1 << bit
                d = bytes(d)
                cases += 1
                verdicts = info_verdicts(conn, d)
                refusals += verdicts[1] == "refused"
                answers = [(v, sql_answer(conn, d, v), reader_answer(d, v))
                           for v in where.get(j, [])]
                if verdicts == ("ok", "refused") and all(
                        a[1] == a[2] for a in answers) and unary_ends_in_one(d):
                    unary_end.append((at, bit))
                elif verdicts[0] != verdicts[1] or any(a[1] != a[2]
                                                       for a in answers):
                    disagree.append((at, bit, verdicts,
                                     [a for a in answers if a[1] != a[2]][:2]))
    tap.ok(not disagree and refusals >= cases // 4,
           "each of the %d bits of leaves %d and %d's records flipped: "
           "quotient_info and the reader refuse alike (%d refused), and "
           "quotient_test and the reader answer (or refuse) alike for the "
           "probes of the leaf" % (cases, i, n - 1, refusals),
           *["offset %d bit %d: info %s, probes %s" % x for x in disagree[:5]])
    # "A leaf's record": the unary part ends with a 0; a 1 after the last
    # 0 would be an entry of high part 2^m, not a key of b bits.
    tap.ok(not unary_end, "a record whose unary part ends with a 1 bit "
           "(a key past the last bucket) is refused by quotient_info as by "
           "the reader (%d of the flips are not)" % len(unary_end))


def unary_ends_in_one(blob):
    """True if some section's unary part of some leaf ends with a 1 (and
    the record is otherwise whole): the case quotient_info lets through."""
    f = br.Filter(blob)
    for i in range(f.impl.leaves):
        try:
            _d, rec = f.impl.bounds(i)
            heads = br.leaf_sections(rec)
        except br.FormatError:
            return False
        for c, b, m, at, nbits in heads:
            x = int.from_bytes(rec[at:at + (nbits + 7) // 8], "little")
            if x >> (c + (1 << m) - 1) & 1:
                return True
    return False


def check_store_damage(tap, tmpdir):
    """Rows "Stores" -> "Kind 4" calls damage: SELECT filter and the
    reader's reassembly (from the tables alone) both refuse."""
    path = os.path.join(tmpdir, "q.db")

    def store():
        if os.path.exists(path):
            os.unlink(path)
        conn = connect(path)
        conn.execute("PRAGMA page_size = 512")
        conn.execute("CREATE VIRTUAL TABLE q USING quotient_store(fpr = 0.01)")
        conn.executemany("INSERT INTO q(value) VALUES (?1)",
                         [(v,) for v in members(300)])
        conn.commit()
        conn.close()
        return sqlite3.connect(path)    # no extension: the tables alone
    plain = store()
    leaves = plain.execute("SELECT count(*) FROM q_directory").fetchone()[0]
    nodes = [n for (n,) in plain.execute("SELECT node FROM q_directory "
                                         "ORDER BY chunk")]
    node = nodes[1]
    # "Kind 4: quotient_store": with rows_by_range = 1, the row of the leaf
    # 2^d + p is at id p * 2^(62 - d)
    row_id = lambda n: (n - (1 << (n.bit_length() - 1))) << (63 - n.bit_length())
    rid = row_id(node)
    (row,) = plain.execute("SELECT data FROM q_chunks WHERE id = ?",
                           (rid,)).fetchone()
    sound = br.read_store(plain, "q")
    plain.close()
    ext = connect(path)
    (blob,) = ext.execute("SELECT filter FROM q").fetchone()
    ext.close()
    tap.ok(sound == blob and leaves > 2, "a quotient_store of %d leaves: the "
           "reader reassembles SELECT filter from its tables" % leaves)
    cases = [
        ("chunk 1's row with a non-zero byte after its record",
         "UPDATE q_chunks SET data = data || x'01' WHERE id = %d" % rid),
        ("chunk 1's row as TEXT", "UPDATE q_chunks SET data = CAST(data AS "
         "TEXT) WHERE id = %d" % rid),
        ("chunk 1's row past leaf_bytes", "UPDATE q_chunks SET data = data || "
         "zeroblob(600) WHERE id = %d" % rid),
        ("chunk 1's row cut inside its record", "UPDATE q_chunks SET data = "
         "substr(data, 1, %d) WHERE id = %d" % (len(row) // 2, rid)),
        ("chunk 1's row moved one id on (no leaf's)", "UPDATE q_chunks SET "
         "id = id + 1 WHERE id = %d" % rid),
        ("chunk 1's row at its chunk number (rows_by_range 1)", "UPDATE "
         "q_chunks SET id = 1 WHERE id = %d" % rid),
        ("rows_by_range 2", "UPDATE q_config SET value = 2 WHERE key = "
         "'rows_by_range'"),
        ("rows_by_range as TEXT", "UPDATE q_config SET value = '1' WHERE "
         "key = 'rows_by_range'"),
        ("rows_by_range 0 with the rows by range", "UPDATE q_config SET "
         "value = 0 WHERE key = 'rows_by_range'"),
        ("the last directory row deleted (a gap)", "DELETE FROM q_directory "
         "WHERE chunk = %d" % (leaves - 1)),
        ("chunk 1's node changed to its sibling's (an overlap)",
         "UPDATE q_directory SET node = %d WHERE chunk = 1" % (node ^ 1)),
        ("leaf_items 0", "UPDATE q_config SET value = 0 WHERE key = "
         "'leaf_items'"),
        ("base_depth 41", "UPDATE q_config SET value = 41 WHERE key = "
         "'base_depth'"),
        ("a growth row", "INSERT INTO q_config VALUES ('growth', 2)"),
        ("narrow leaves without a capacity",
         "INSERT INTO q_config VALUES ('narrow_leaves', 1)"),
        ("narrow_below one past the most",
         "UPDATE q_config SET value = value + 1 WHERE key = 'narrow_below'"),
        ("narrow_below as TEXT", "UPDATE q_config SET value = '1' WHERE "
         "key = 'narrow_below'"),
        # "Reading a store": a chunk id of no leaf is damage, past the
        # directory's last chunk too
        ("a chunk row past its directory",
         "INSERT INTO q_chunks(id, data) VALUES (%d, x'00')" % leaves),
    ]
    for what, sql in cases:
        plain = store()
        plain.execute(sql)
        plain.commit()
        plain.close()
        said, reader = verdicts(path)
        tap.ok(said.startswith("refused") and reader.startswith("refused"),
               "a quotient_store with %s: SELECT filter and the reader's "
               "reassembly refuse it" % what, "extension %s" % said,
               "reader %s" % reader)
    # A store as version 1.6.0 wrote it: no rows_by_range, leaf i's row at
    # id i.  Both read it as the same filter.
    plain = store()
    for i, n in enumerate(nodes):
        plain.execute("UPDATE q_chunks SET id = ? WHERE id = ?",
                      (-1 - i, row_id(n)))
    plain.execute("UPDATE q_chunks SET id = -1 - id")
    plain.execute("DELETE FROM q_config WHERE key IN ('rows_by_range', "
                  "'narrow_below')")
    plain.commit()
    dense = [i for (i,) in plain.execute("SELECT id FROM q_chunks ORDER BY id")]
    plain.close()
    said, reader = verdicts(path)
    ext = connect(path)
    (again,) = ext.execute("SELECT filter FROM q").fetchone()
    ext.close()
    plain = sqlite3.connect(path)
    theirs = br.read_store(plain, "q")
    plain.close()
    tap.ok(again == blob and theirs == blob and dense == list(range(leaves)),
           "a quotient_store whose leaf i's row is at id i, without "
           "rows_by_range (as 1.6.0 wrote it): SELECT filter and the "
           "reader's reassembly give the same blob as before",
           "rows %r" % dense[:8], "extension %s" % said, "reader %s" % reader)


def verdicts(path):
    """What the extension's SELECT filter and the reader's reassembly (from
    the tables alone) say of store q at path: "accepted" or "refused: why"
    each."""
    plain = sqlite3.connect(path)
    try:
        br.read_store(plain, "q")
        reader = "accepted"
    except br.FormatError as e:
        reader = "refused: %s" % e
    plain.close()
    ext = connect(path)
    try:
        ext.execute("SELECT filter FROM q").fetchone()
        said = "accepted"
    except sqlite3.Error as e:
        said = "refused: %s" % e
    ext.close()
    return said, reader


def check_narrow_leaves(tap, tmpdir):
    """"Widths": a sized store's narrow_leaves K is the largest K below 2^D
    with W0 (2^D + K) <= 15/16 p 2^(D + b), as the reader computes it from
    FORMAT.md; one more is damage to both."""
    path = os.path.join(tmpdir, "narrow.db")
    seen = []
    for cap, fpr in ((6982, 0.001), (140000, 0.01), (100000, 0.01),
                     (1000, 0.01)):
        if os.path.exists(path):
            os.unlink(path)
        ext = connect(path)
        ext.execute("CREATE VIRTUAL TABLE q USING quotient_store(capacity = "
                    "%d, fpr = %r)" % (cap, fpr))
        ext.commit()
        config = dict(ext.execute("SELECT key, value FROM q_config"))
        ext.close()
        want = br.quotient_narrow_most(cap, fpr, config["base_depth"])
        seen.append((cap, fpr, config.get("narrow_leaves", 0), want))
        plain = sqlite3.connect(path)
        plain.execute("INSERT OR REPLACE INTO q_config VALUES "
                      "('narrow_leaves', %d)" % (want + 1))
        plain.commit()
        plain.close()
        said, reader = verdicts(path)
        tap.ok(said.startswith("refused") and reader.startswith("refused"),
               "quotient_store(capacity = %d, fpr = %r) with narrow_leaves "
               "%d, one past the most: both refuse it" % (cap, fpr, want + 1),
               "extension %s" % said, "reader %s" % reader)
    tap.ok(all(got == want for _c, _f, got, want in seen)
           and sum(1 for s in seen if s[3] > 0) >= 3,
           "narrow_leaves as CREATE writes it is FORMAT.md's K: %s"
           % ", ".join("%d/%g: %d" % (c, f, got) for c, f, got, _w in seen),
           *["%d/%g: wrote %d, FORMAT.md %d" % s for s in seen])


def check_narrow_below(tap, tmpdir):
    """"Widths": a store without capacity writes narrow_below, the most the
    rate allows, as the reader computes it from FORMAT.md (one more is
    damage to both: check_store_damage)."""
    path = os.path.join(tmpdir, "below.db")
    seen = []
    for page, fpr in ((4096, 0.01), (4096, 0.001), (512, 0.01), (4096, 0.05)):
        if os.path.exists(path):
            os.unlink(path)
        ext = connect(path)
        ext.execute("PRAGMA page_size = %d" % page)
        ext.execute("CREATE VIRTUAL TABLE q USING quotient_store(fpr = %r)"
                    % fpr)
        ext.commit()
        config = dict(ext.execute("SELECT key, value FROM q_config"))
        ext.close()
        want = br.quotient_narrow_below_most(config["leaf_items"], fpr)
        seen.append((page, fpr, config.get("narrow_below", 0), want))
    tap.ok(all(got == want for _p, _f, got, want in seen)
           and sum(1 for s in seen if 0 < s[3] < 2 ** 62) >= 3,
           "narrow_below as CREATE writes it is FORMAT.md's: %s"
           % ", ".join("%d/%g: %d" % (p, f, got) for p, f, got, _w in seen),
           *["%d/%g: wrote %d, FORMAT.md %d" % s for s in seen])


def check_quotient_leaves(tap, compare_info):
    """Everything above; compare_info is interop.py's."""
    with tempfile.TemporaryDirectory() as tmpdir:
        damaged = None
        for page, args, n in STORES:
            conn, blob, vals = check_store(tap, compare_info, page, args, n)
            if page == 512 and args == "fpr = 0.01" and n > 1000:
                damaged = (conn, blob, vals)
        check_damage(tap, *damaged)
        check_store_damage(tap, tmpdir)
        check_narrow_leaves(tap, tmpdir)
        check_narrow_below(tap, tmpdir)
