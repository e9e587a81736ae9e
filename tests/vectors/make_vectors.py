"""Writes the golden vectors of a format version once; never rewrites them.

    /usr/bin/python3 tests/vectors/make_vectors.py      (from the project root)

The blobs come from the extension (BLOOM_SO) or, for layouts it does not
write (a non-zero seed, 64 hashes) and for the blobs that must be refused,
from the independent reader as a writer.  Every answer is the independent
reader's (tests/interop/bloomreader.py, written from ext/FORMAT.md), never
the extension's.  Existing files are left alone: a file that exists is an
error, so a new format version must add new files (and a new generator
function below), see README.txt.  SHA256SUMS is extended with the new files.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import hashlib
import os
import random
import struct
import sys

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "interop"),
                os.path.join(HERE, "..", "python")]

import bloomreader as br                                        # noqa: E402
from bloomhost import connect                                   # noqa: E402
from probes import EDGE_KEYS, EDGE_VALUES, random_key, random_value  # noqa: E402
from vectorfile import Answers, class_of, write_hex             # noqa: E402

SOURCE = ("Answers derived with tests/interop/bloomreader.py (from "
          "ext/FORMAT.md), not from the extension.\n"
          "Format promise: never edit this file; see tests/vectors/README.txt.")


def header(seed, k, bits, capacity, fpr, inserted, version=1, kind=1, hash_=1,
           flags=0, reserved=bytes(16)):
    return br.HEADER.pack(br.MAGIC, version, kind, hash_, flags, seed, k, bits,
                          capacity, fpr, inserted, reserved)


def probe_list(members, rng, extra=60):
    """Members, the edge cases, and some random values: (class, value)."""
    out, seen = [], set()

    def add(cls, v):
        ident = (cls, repr(v))
        if ident not in seen:
            seen.add(ident)
            out.append((cls, v))

    for m in members:
        if isinstance(m, tuple):
            add("key", m)
        else:
            add(class_of(m), m)
    for v in EDGE_VALUES:
        add(class_of(v), v)
    for k in EDGE_KEYS:
        add("key", k)
    for _ in range(extra):
        if rng.random() < 0.2:
            add("key", random_key(rng))
        else:
            v = random_value(rng)
            add(class_of(v), v)
    return out


def answers_for(blob, probes):
    f = br.Filter(blob)
    a = Answers()
    a.info = f.info()
    for cls, v in probes:
        a.tests.append((f.test(br.key(*v) if cls == "key" else v), cls, v))
    return a


def build(conn, members, n, p, fn="bloom_build"):
    """bloom_build (or fn) over the members (keys through bloom_key), in that
    order."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS m(nparts, v, a, b, c)")
    conn.execute("DELETE FROM m")
    for x in members:
        if isinstance(x, tuple):
            parts = list(x) + [None] * (3 - len(x))
            conn.execute("INSERT INTO m VALUES (?, NULL, ?, ?, ?)", [len(x)] + parts)
        else:
            conn.execute("INSERT INTO m VALUES (0, ?, NULL, NULL, NULL)", (x,))
    (blob,) = conn.execute(
        "SELECT " + fn + "(CASE nparts WHEN 0 THEN v WHEN 1 THEN bloom_key(a)"
        " WHEN 2 THEN bloom_key(a, b) ELSE bloom_key(a, b, c) END, ?, ?)"
        " FROM m", (n, p)).fetchone()
    return blob


def worked_example():
    from interop import worked_example_hex
    return bytes.fromhex(worked_example_hex())


def version1(conn):
    """(name, blob, probes or None, comment, reject reason) for version 1."""
    rng = random.Random(1)
    out = []

    blob = worked_example()
    out.append(("kind1-worked-example", blob,
                probe_list(["abc", 42, "abd", 42.0], rng),
                "The worked example of ext/FORMAT.md: bloom_build(v, 10, 0.01)"
                " over 'abc' and 42.", None))

    blob = conn.execute("SELECT bloom_empty(10)").fetchone()[0]
    out.append(("kind1-empty", blob, probe_list([], rng, 20),
                "bloom_empty(10): one block, every probe answers 0.", None))

    members = ["req-%d" % i for i in range(10)] + [i * 7 for i in range(10)] + \
        [1.5, -0.0, 2.0 ** 63, "é", "", b"", b"\x00\x01", "a\x00b"] + \
        [("acme", i) for i in range(10)] + [("acme", "x", 2.5), (b"k",)]
    blob = build(conn, members, 60, 0.01)
    out.append(("kind1-mixed", blob, probe_list(members, rng),
                "bloom_build(v, 60, 0.01) over %d values of every class and "
                "bloom_key composites." % len(members), None))

    members = [rng.randrange(-(1 << 63), 1 << 63) for _ in range(20)] + \
        ["text-%d" % i for i in range(20)]
    blob = build(conn, members, 40, 1e-9)
    out.append(("kind1-many-hashes", blob, probe_list(members, rng),
                "bloom_build(v, 40, 1e-9): several blocks, more than 7 hashes"
                " (w(j) for j > 1).", None))

    members = list(range(200))
    blob = build(conn, members, 20, 0.3)
    out.append(("kind1-overfilled", blob, probe_list(members[::10], rng, 100),
                "bloom_build(v, 20, 0.3) over 200 integers: ten times its "
                "capacity, so many probes that were never added answer 1.",
                None))

    f = br.Filter(header(0xFFFFFFFD, 9, 4 * 512, 30, 0.001, 0) + bytes(4 * 64))
    members = [1, 2.5, "three", b"four", ("five", 5), -0.0, "é"]
    for m in members:
        f.add(br.key(*m) if isinstance(m, tuple) else m)
    out.append(("kind1-seed-wraps", f.to_bytes(), probe_list(members, rng),
                "Written by the independent reader: seed 0xFFFFFFFD, so the "
                "MurmurHash seeds\nseed + 3 and seed + 4 wrap to 0 and 1; "
                "k = 9, 4 blocks.", None))

    f = br.Filter(header(0, 64, 2 * 512, 5, 1e-12, 99) + bytes(2 * 64))
    members = ["max", 64, 64.5, b"\xff"]
    for m in members:
        f.add(m)
    out.append(("kind1-64-hashes", f.to_bytes(), probe_list(members, rng),
                "Written by the independent reader: k = 64 (the most), 2 "
                "blocks, and an inserted\ncounter (103) that no answer "
                "depends on.", None))

    # Blobs a version-1 reader must refuse: each alters one thing of a valid
    # one-block filter (the worked example).
    good = worked_example()

    def alter(off, data):
        return good[:off] + data + good[off + len(data):]

    rejects = [
        ("short", good[:63], "shorter than the header"),
        ("magic", alter(0, b"BLMG"), "wrong magic"),
        ("version-0", alter(4, b"\x00"), "version 0"),
        ("kind-0", alter(5, b"\x00"), "kind 0 (no kind)"),
        ("hash-0", alter(6, b"\x00"), "hash 0 (no hash function)"),
        ("flags", alter(7, b"\x01"), "flags not 0"),
        ("hashes-0", alter(12, struct.pack("<I", 0)), "hashes 0"),
        ("hashes-65", alter(12, struct.pack("<I", 65)), "hashes 65"),
        ("bits-0", alter(16, struct.pack("<Q", 0)) [:64], "bits 0, no body"),
        ("bits-not-512", alter(16, struct.pack("<Q", 256))[:96],
         "bits 256, not a multiple of 512, with a 32-byte body"),
        ("bits-wrap", alter(16, struct.pack("<Q", (1 << 64) - 512)),
         "bits 2^64 - 512 on a 64-byte body"),
        ("body-short", good[:-1], "body one byte short of bits / 8"),
        ("body-long", good + b"\x00", "one trailing byte after the body"),
        ("capacity-0", alter(24, struct.pack("<Q", 0)), "capacity 0"),
        ("capacity-2p63", alter(24, struct.pack("<Q", 1 << 63)),
         "capacity 2^63"),
        ("fpr-0", alter(32, struct.pack("<d", 0.0)), "target_fpr 0"),
        ("fpr-1", alter(32, struct.pack("<d", 1.0)), "target_fpr 1"),
        ("fpr-nan", alter(32, struct.pack("<d", float("nan"))), "target_fpr NaN"),
        ("reserved", alter(63, b"\x01"), "a reserved byte not 0"),
    ]
    for name, blob, why in rejects:
        out.append(("reject-" + name, blob, None,
                    "Must be refused by a version-1 reader: %s." % why, why))
    return out


def cuckoo_mixed(conn):
    """(members, blob, kept): cuckoo_build(v, 40, 0.001) over values of every
    class and bloom_key composites, then cuckoo_add of 'req-0' (a second
    copy) and 'extra', cuckoo_delete of 'req-1' and 14; kept: what it holds."""
    members = ["req-%d" % i for i in range(8)] + [i * 7 for i in range(8)] + \
        [1.5, -0.0, 2.0 ** 63, "é", "", b"", b"\x00\x01", "a\x00b"] + \
        [("acme", i) for i in range(6)] + [("acme", "x", 2.5)]
    blob = build(conn, members, 40, 0.001, "cuckoo_build")
    (blob,) = conn.execute("SELECT cuckoo_delete(cuckoo_delete(cuckoo_add("
                           "cuckoo_add(?1, 'req-0'), 'extra'), 'req-1'), 14)",
                           (blob,)).fetchone()
    kept = [m for m in members if m not in ("req-1", 14)] + ["extra"]
    return members, blob, kept


def version1_kind2(conn):
    """(name, blob, probes or None, comment, reject reason): version 1, kind 2
    (cuckoo filters), layout 0, as version 1.1.0 wrote them (its cuckoo_build
    made them; this version's makes layout 1, so these files, all written,
    are never made again: the worked example is read back from its file)."""
    from vectorfile import read_hex
    rng = random.Random(2)
    out = []

    good = read_hex(os.path.join(HERE, "v1", "kind2-worked-example.hex"))
    out.append(("kind2-worked-example", good,
                probe_list(["abc", 42, "abd", 42.0], rng),
                "The cuckoo worked example of ext/FORMAT.md: cuckoo_build(v, "
                "10, 0.01) over 'abc' and 42.", None))

    members, blob, kept = cuckoo_mixed(conn)
    out.append(("kind2-mixed", blob, probe_list(kept + ["req-1", 14], rng),
                "cuckoo_build(v, 40, 0.001) over %d values of every class and "
                "bloom_key composites,\nthen cuckoo_add of 'req-0' (a second "
                "copy) and 'extra', cuckoo_delete of 'req-1' and 14."
                % len(members), None))

    # Blobs a version-1 reader must refuse: each alters one thing of the
    # worked example (8 buckets, f = 9, 36-byte body, 2 items), keeping the
    # other checks satisfied.
    def alter(off, data, body_len=None):
        b = good[:off] + data + good[off + len(data):]
        return b if body_len is None else b[:64] + bytes(body_len)

    rejects = [
        ("buckets-6", alter(16, struct.pack("<Q", 6), 27),
         "buckets 6, not a power of two (with the 27-byte body 6 buckets of"
         " 9-bit slots would take)"),
        ("fingerprint-bits-65", alter(12, b"\x41", 260),
         "fingerprint_bits 65, above 64 (with the 260-byte body 8 buckets of"
         " 65-bit slots would take)"),
        ("items-33", alter(40, struct.pack("<Q", 33)),
         "items 33, above the 32 slots of 8 buckets"),
    ]
    for name, blob, why in rejects:
        out.append(("kind2-reject-" + name, blob, None,
                    "Must be refused by a version-1 reader: %s." % why, why))
    return out


def version1_kind2_layout1(conn):
    """(name, blob, probes or None, comment, reject reason): version 1, kind 2,
    layout 1 (an even number of buckets, the other bucket by subtraction):
    what cuckoo_build makes from this version on."""
    from interop import cuckoo_worked_example_hex
    rng = random.Random(21)
    out = []

    good = bytes.fromhex(cuckoo_worked_example_hex())
    if good[14] != 1:
        sys.exit("FORMAT.md's cuckoo worked example is not layout 1")
    out.append(("kind2-layout1-worked-example", good,
                probe_list(["abc", 42, "abd", 42.0], rng),
                "The cuckoo worked example of ext/FORMAT.md (layout 1): "
                "cuckoo_build(v, 10, 0.01) over 'abc' and 42.", None))

    members, blob, kept = cuckoo_mixed(conn)
    out.append(("kind2-layout1-mixed", blob,
                probe_list(kept + ["req-1", 14], rng),
                "cuckoo_build(v, 40, 0.001) (layout 1) over %d values of "
                "every class and bloom_key composites,\nthen cuckoo_add of "
                "'req-0' (a second copy) and 'extra', cuckoo_delete of "
                "'req-1' and 14." % len(members), None))

    # Nearly full, many buckets (not a power of two): i1 from the high bits
    # of h1, and relocations.
    many = ["k%d" % i for i in range(1900)] + list(range(1000, 1100))
    blob = build(conn, many, 2000, 0.01, "cuckoo_build")
    b = struct.unpack_from("<Q", blob, 16)[0]
    if blob[14] != 1 or b & (b - 1) == 0:
        sys.exit("kind2-layout1-full: expected layout 1, %d buckets" % b)
    out.append(("kind2-layout1-full", blob,
                probe_list(many[::10], rng, extra=200),
                "cuckoo_build(v, 2000, 0.01) (layout 1, %d buckets) over "
                "2000 values: at its capacity, %.1f%% of its slots."
                % (b, 2000 * 100.0 / (4 * b)), None))

    # Layout-1 blobs a reader must refuse: one change each to the worked
    # example (6 buckets, f = 9, 27-byte body, 2 items).
    def alter(off, data, body_len=None):
        b = good[:off] + data + good[off + len(data):]
        return b if body_len is None else b[:64] + bytes(body_len)

    rejects = [
        ("layout1-reject-buckets-7", alter(16, struct.pack("<Q", 7), 32),
         "buckets 7 in layout 1, not even (with the 32-byte body 7 buckets "
         "of 9-bit slots would take)"),
        ("layout1-reject-buckets-0", alter(16, struct.pack("<Q", 0), 0),
         "buckets 0 in layout 1 (with an empty body)"),
        ("layout1-reject-layout-2", alter(14, b"\x02"),
         "layout 2, unknown (byte 14 is 0 or 1)"),
        ("layout1-reject-byte-15", alter(15, b"\x01"),
         "byte 15 is 1, not 0"),
        ("layout0-reject-buckets-6", alter(14, b"\x00"),
         "layout 0 with 6 buckets, not a power of two (the worked example "
         "with byte 14 set to 0)"),
    ]
    for name, blob, why in rejects:
        out.append(("kind2-" + name, blob, None,
                    "Must be refused by a version-1 reader: %s." % why, why))

    # Layered, layout-1 cuckoo layers (as a scalable store now makes them).
    groups_c = [
        ["g-%d" % i for i in range(12)] + [i * 5 for i in range(12)],
        ["h-%d" % i for i in range(30)] + [2.5 + i for i in range(10)] +
        [("acme", i) for i in range(5)],
    ]
    layers_c = [build(conn, g, n, p, "cuckoo_build") for g, n, p in
                zip(groups_c, (30, 60), (0.01, 0.005))]
    blob = br.layered_blob(layers_c, 2, 0.5, 0.02)
    out.append(("kind3-cuckoo-layout1-layers", blob,
                probe_list([m for g in groups_c for m in g], rng),
                "Two cuckoo_build layers (layout 1; n 30/60, p 0.01/0.005), "
                "assembled by the independent reader: growth 2, tightening "
                "0.5, target_fpr 0.02.", None))
    return out


def version1_kind3(conn):
    """(name, blob, probes or None, comment, reject reason): version 1, kind 3
    (layered filters).  The layers come from the extension's builds or from
    the independent reader; the layered blobs are assembled by the reader
    (bloomreader.layered_blob, from FORMAT.md), never by the extension."""
    rng = random.Random(3)
    out = []

    # Bloom layers: three builds sized as a scalable store sizes them
    # (growth 2, tightening 0.5), each over its own members.
    groups = [
        ["a-%d" % i for i in range(15)] + [i * 3 for i in range(15)],
        ["b-%d" % i for i in range(20)] + [1.5 + i for i in range(10)] +
        [("acme", i) for i in range(10)] + ["é", b"\x00\x01"],
        ["c-%d" % i for i in range(40)] + [-(i + 1) for i in range(30)] +
        [b"", "", 2.0 ** 63, ("acme", "x", 2.5)],
    ]
    layers = [build(conn, g, n, p) for g, n, p in
              zip(groups, (30, 60, 120), (0.01, 0.005, 0.0025))]
    blob = br.layered_blob(layers, 2, 0.5, 0.02)
    members = [m for g in groups for m in g]
    out.append(("kind3-bloom-layers", blob, probe_list(members, rng),
                "Three bloom_build layers (n 30/60/120, p 0.01/0.005/0.0025)"
                " over %d values of every class,\nassembled by the "
                "independent reader: growth 2, tightening 0.5, target_fpr "
                "0.02." % len(members), None))

    # Cuckoo layers: two builds, then a cuckoo_delete through the layered
    # blob (from the newest layer holding the value).
    groups_c = [
        ["d-%d" % i for i in range(12)] + [i * 5 for i in range(12)],
        ["e-%d" % i for i in range(25)] + [0.25 * i for i in range(10)] +
        [("k", i) for i in range(8)],
    ]
    layers_c = [build(conn, g, n, p, "cuckoo_build") for g, n, p in
                zip(groups_c, (30, 60), (0.01, 0.005))]
    blob = br.layered_blob(layers_c, 2, 0.5, 0.02)
    (blob,) = conn.execute("SELECT cuckoo_delete(cuckoo_delete(?1, 'e-3'), "
                           "'d-4')", (blob,)).fetchone()
    if blob != br.cuckoo_delete(br.cuckoo_delete(
            br.layered_blob(layers_c, 2, 0.5, 0.02), "e-3"), "d-4"):
        sys.exit("kind3-cuckoo-layers: the extension's cuckoo_delete differs "
                 "from the reader's")
    members = [m for g in groups_c for m in g if m not in ("e-3", "d-4")]
    out.append(("kind3-cuckoo-layers", blob,
                probe_list(members + ["e-3", "d-4"], rng),
                "Two cuckoo_build layers (n 30/60, p 0.01/0.005), assembled "
                "by the independent reader,\nthen cuckoo_delete of 'e-3' "
                "(layer 1) and 'd-4' (layer 0).", None))

    # Written by the reader alone: seed 0xFFFFFFFD in every layer.
    crafted = []
    members = []
    for blocks, k, vals in ((1, 7, [1, "one", b"\x01"]),
                            (2, 11, [2.5, "two", ("t", 2)])):
        f = br.Filter(header(0xFFFFFFFD, k, blocks * 512, 10 * blocks, 0.01,
                             0) + bytes(64 * blocks))
        for v in vals:
            f.add(br.key(*v) if isinstance(v, tuple) else v)
        crafted.append(f.to_bytes())
        members += vals
    blob = br.layered_blob(crafted, 3, 0.25, 0.015)
    out.append(("kind3-crafted-seed", blob, probe_list(members, rng),
                "Written by the independent reader: two Bloom layers (k 7 "
                "and 11) of seed 0xFFFFFFFD;\ngrowth 3, tightening 0.25.",
                None))

    # Blobs a version-1 reader must refuse: each alters one thing of the
    # crafted layered blob (2 layers: directory at 64, padded to 128, the
    # layers at 128 and 256).
    good = blob

    def alter(off, data):
        return good[:off] + data + good[off + len(data):]

    rejects = [
        ("layers-0", alter(13, b"\x00"), "0 layers"),
        ("layers-65", alter(13, b"\x41"), "65 layers"),
        ("layer-kind-3", alter(12, b"\x03"), "layer_kind 3 (nesting)"),
        ("growth-0", alter(14, b"\x00\x00"), "growth 0"),
        ("tightening-0", alter(16, struct.pack("<d", 0.0)), "tightening 0"),
        ("directory-long", alter(64, struct.pack("<Q", 129)),
         "layer 0's length one byte past its end (the lengths overrun the "
         "blob)"),
        ("trailing-byte", good + b"\x00",
         "one byte after the last layer (the lengths sum short)"),
        ("count", alter(40, struct.pack("<Q", struct.unpack_from(
            "<Q", good, 40)[0] + 1)), "count one more than the layers' sum"),
        ("capacity", alter(24, struct.pack("<Q", 31)),
         "capacity 31, not the layers' sum 30"),
        ("directory-padding", alter(64 + 16, b"\x01"),
         "a byte of the directory's padding set"),
        ("layer-seed", alter(128 + 8, struct.pack("<I", 0)),
         "layer 0 of seed 0 under an outer seed 0xFFFFFFFD"),
        ("layer-bad", alter(256 + 12, struct.pack("<I", 0)),
         "layer 1 with hashes 0"),
    ]
    for name, b, why in rejects:
        out.append(("kind3-reject-" + name, b, None,
                    "Must be refused by a version-1 reader: %s." % why, why))
    return out


def version1_kind4(conn):
    """(name, blob, probes or None, comment, reject reason): version 1, kind 4
    (quotient filters).  Every blob quotient_build made is also written by
    the independent reader from FORMAT.md (bloomreader.quotient_build), and
    must be the same bytes."""
    from interop import quotient_worked_example_hex
    rng = random.Random(4)
    out = []

    def made(members, n, p):
        blob = build(conn, members, n, p, "quotient_build")
        values = [br.key(*m) if isinstance(m, tuple) else m for m in members]
        if blob != br.quotient_build(values, n, p):
            sys.exit("quotient_build(v, %r, %r) differs from the reader's "
                     "writing" % (n, p))
        return blob

    good = bytes.fromhex(quotient_worked_example_hex())
    if good != made(["abc", 42], 10, 0.01):
        sys.exit("FORMAT.md's quotient worked example is not what "
                 "quotient_build makes")
    out.append(("kind4-worked-example", good,
                probe_list(["abc", 42, "abd", 42.0], rng),
                "The quotient worked example of ext/FORMAT.md: "
                "quotient_build(v, 10, 0.01) over 'abc' and 42.", None))

    members = ["req-%d" % i for i in range(10)] + [i * 7 for i in range(10)] + \
        [1.5, -0.0, 2.0 ** 63, "é", "", b"", b"\x00\x01", "a\x00b"] + \
        [("acme", i) for i in range(10)] + [("acme", "x", 2.5), (b"k",)]
    out.append(("kind4-mixed", made(members + members[:5], 60, 0.01),
                probe_list(members, rng),
                "quotient_build(v, 60, 0.01) over %d values of every class "
                "and bloom_key composites,\nthe first 5 twice (one entry "
                "each)." % len(members), None))

    members = ["m-%d" % i for i in range(2000)] + list(range(1000))
    out.append(("kind4-blocks", made(members, 3000, 0.001),
                probe_list(members[::25], rng, extra=300),
                "quotient_build(v, 3000, 0.001) over 3000 values: 256-byte "
                "blocks, some crowded.", None))

    members = [rng.randrange(-(1 << 63), 1 << 63) for _ in range(150)] + \
        ["t-%d" % i for i in range(50)]
    out.append(("kind4-tiny-rate", made(members, 200, 1e-9),
                probe_list(members[::5], rng),
                "quotient_build(v, 200, 1e-9): 1024-byte blocks, keys of "
                "more than 40 bits.", None))

    # Written by the reader alone: seed 0xFFFFFFFD, 64-byte blocks, equal
    # keys kept as copies, a full block and an empty one.
    seed = 0xFFFFFFFD
    members = [1, 2.5, "three", b"four", ("five", 5), -0.0, "é"] + \
        ["w%d" % i for i in range(40)]
    groups = {}
    for m in members:
        h1, h2 = br.hash_value(br.key(*m) if isinstance(m, tuple) else m,
                               seed)
        groups.setdefault((h1 * 4) >> 64, []).append(h2)
    groups[0] = groups.get(0, []) + groups.get(0, [])[:2]   # two copies
    body = [br.quotient_encode_block(64, groups.get(b, [])) for b in range(4)]
    body[3] = struct.pack("<I", 5) + bytes(60)                 # full: c 5, M 0
    body[2] = bytes(64)                                        # empty
    lost = [m for m in members if (br.hash_value(
        br.key(*m) if isinstance(m, tuple) else m, seed)[0] * 4) >> 64 == 2]
    blob = br.HEADER.pack(br.MAGIC, 1, 4, 1, 0, seed, 64, 4, 100, 0.02,
                          len(members) + 2, bytes(16)) + b"".join(body)
    out.append(("kind4-crafted", blob, probe_list(members, rng, extra=100),
                "Written by the independent reader: seed 0xFFFFFFFD, 4 blocks"
                " of 64 bytes; block 0 holds\ntwo keys twice, block 2 is "
                "emptied (%d members there now answer 0), block 3 is full\n"
                "(every probe there answers 1)." % len(lost), None))

    def alter(off, data, blob=good):
        return blob[:off] + data + blob[off + len(data):]

    word = struct.unpack_from("<I", good, 64)[0]
    rejects = [
        ("block-bytes-96", alter(12, struct.pack("<H", 96)),
         "block_bytes 96, not a power of two"),
        ("block-bytes-32", alter(12, struct.pack("<H", 32)) + bytes(0),
         "block_bytes 32, below 64 (the body is 8 blocks of 32)"),
        ("block-bytes-2048", alter(12, struct.pack("<H", 2048)) + bytes(1792),
         "block_bytes 2048, above 1024 (with a body of one such block)"),
        ("byte-14", alter(14, b"\x01"), "header byte 14 is 1"),
        ("blocks-0", alter(16, struct.pack("<Q", 0))[:64],
         "blocks 0, no body"),
        ("blocks-2", alter(16, struct.pack("<Q", 2)),
         "blocks 2 over a body of one block"),
        ("body-short", good[:-1], "body one byte short"),
        ("block-count", alter(64, struct.pack("<I", word + 1)),
         "the block says 3 entries, its unary part holds 2"),
        ("block-unary", alter(64 + 54, b"\x05"),
         "a third 1 bit in the unary part of a block of 2 entries"),
        ("block-low-bits-52", alter(64, struct.pack(
            "<I", 1 | 1 << 13 | 52 << 26)), "a block with l = 52"),
        ("block-too-long", alter(64, struct.pack(
            "<I", 2 | 1950 << 13 | 40 << 26)),
         "a block whose c + M + c * l passes its 2048 bits"),
        ("block-empty-buckets", alter(64, struct.pack("<I", 1 << 13))
         [:68] + bytes(252), "an empty block (c 0) with M 1"),
        ("block-full-low-bits", alter(64, struct.pack("<I", 3 | 1 << 26))
         [:68] + bytes(252), "a full block (c 3, M 0) with l 1"),
    ]
    for name, b, why in rejects:
        out.append(("kind4-reject-" + name, b, None,
                    "Must be refused by a version-1 reader: %s." % why, why))
    return out


def version1_kind4_layout1(conn):
    """(name, blob, probes or None, comment, reject reason): version 1, kind
    4 layout 1 (quotient leaves), exports of quotient_store after a fixed
    list of inserts.  Each export must be what the independent reader
    reassembles from the store's three shadow tables ("Stores") and what
    it re-encodes from the keys it decodes ("A leaf's record"), byte for
    byte; the first with one value must be FORMAT.md's example."""
    import sqlite3
    import tempfile
    from format_examples import example_bytes, format_text, worked_examples
    rng = random.Random(41)
    out = []

    def store(args, members, page=4096):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "q.db")
            c = connect(path)
            c.execute("PRAGMA page_size = %d" % page)
            c.execute("CREATE VIRTUAL TABLE q USING quotient_store(%s)" % args)
            c.executemany("INSERT INTO q(value) VALUES (?1)",
                          [(br.key(*m) if isinstance(m, tuple) else m,)
                           for m in members])
            c.commit()
            (blob,) = c.execute("SELECT filter FROM q").fetchone()
            c.close()
            plain = sqlite3.connect(path)       # the tables alone
            again = br.read_store(plain, "q")
            plain.close()
        f = br.Filter(blob)
        recoded = br.leaves_blob(
            [(node, br.encode_leaf_record(secs))
             for node, secs in f.impl.leaf_rows()],
            f.header.capacity, f.header.target_fpr, f.header.seed,
            f.header.inserted)
        if again != blob or recoded != blob:
            sys.exit("quotient_store(%s) after %d inserts: its export is not "
                     "the reader's reassembly of its tables (%s) or of its "
                     "keys (%s)" % (args, len(members), again == blob,
                                    recoded == blob))
        return blob

    example = [example_bytes(t) for h, t in worked_examples(format_text())
               if h.startswith("Kind 4, layout 1")]
    one = store("fpr = 0.01", [42])
    if example != [one]:
        sys.exit("FORMAT.md's layout-1 example is not quotient_store's "
                 "export after inserting 42")
    out.append(("kind4-layout1-empty", store("fpr = 0.01", []),
                probe_list([], rng),
                "quotient_store(fpr = 0.01) with no value: one empty leaf "
                "(record 00).", None))
    out.append(("kind4-layout1-worked-example", one,
                probe_list([42, 42.0], rng),
                "The layout-1 worked example of ext/FORMAT.md: "
                "quotient_store(fpr = 0.01) after inserting 42.", None))
    five = [42, "abc", 1.5, b"\x00\x01", ("acme", 7)]
    out.append(("kind4-layout1-five", store("fpr = 0.01", five),
                probe_list(five, rng),
                "quotient_store(fpr = 0.01) after 5 inserts of every class "
                "(one bloom_key).", None))
    many = ["v-%d" % i for i in range(200)] + list(range(0, 2000, 10)) + \
        [i + 0.5 for i in range(100)] + [("k", i) for i in range(50)]
    out.append(("kind4-layout1-leaves", store("fpr = 0.01", many, page=512),
                probe_list(many[::7], rng, extra=200),
                "quotient_store(fpr = 0.01), page_size 512, after %d "
                "inserts: leaves of several depths and widths." % len(many),
                None))
    sized = ["s-%d" % i for i in range(150)]
    out.append(("kind4-layout1-sized", store("capacity = 200, fpr = 0.001",
                                             sized, page=512),
                probe_list(sized[::5], rng, extra=200),
                "quotient_store(capacity = 200, fpr = 0.001), page_size 512, "
                "after 150 inserts: 2^base_depth leaves from CREATE.", None))

    def alter(off, data, blob=one):
        return blob[:off] + data + blob[off + len(data):]

    h1 = br.hash_value(1)[0]
    half = 2 if h1 >> 63 else 3      # a depth-1 node that does not own 1
    rejects = [
        ("layout-2", alter(14, b"\x02"), "header byte 14 (the layout) is 2"),
        ("byte-15", alter(15, b"\x01"), "header byte 15 is 1"),
        ("block-bytes", alter(12, struct.pack("<H", 64)),
         "block_bytes 64 in layout 1"),
        ("leaves-0", alter(16, struct.pack("<Q", 0)), "L = 0"),
        ("leaves-2", alter(16, struct.pack("<Q", 2)),
         "L = 2 over a body of 23 bytes (floor(23 / 16) = 1)"),
        ("end-past", alter(72, struct.pack("<Q", 8)),
         "the last end 8, past the records area's 7 bytes"),
        ("end-short", alter(72, struct.pack("<Q", 6)),
         "the last end 6, not the records area's 7 bytes"),
        ("node-0", alter(64, struct.pack("<Q", 0)), "the leaf's node is 0"),
        ("node-half", alter(64, struct.pack("<Q", half)),
         "the leaf's node is %d, which does not own the probe 1's h1 and "
         "leaves half the hash space uncovered" % half),
        ("record-count", alter(81, b"\x02"),
         "the section says c = 2: its bits no longer fill the record"),
        ("record-sections", alter(80, b"\x02"),
         "the record says 2 sections and holds 1"),
        ("record-width", alter(82, b"\x80"),
         "the section says b = 24: its bits no longer fill the record"),
    ]
    for name, b, why in rejects:
        out.append(("kind4-layout1-reject-" + name, b, None,
                    "Must be refused by a version-1 reader: %s." % why, why))
    return out


def main():
    conn = connect()
    made = []
    for version, gen in (("v1", version1), ("v1", version1_kind2),
                         ("v1", version1_kind3), ("v1", version1_kind2_layout1),
                         ("v1", version1_kind4),
                         ("v1", version1_kind4_layout1)):
        d = os.path.join(HERE, version)
        os.makedirs(d, exist_ok=True)
        for name, blob, probes, comment, reject in gen(conn):
            hex_path = os.path.join(d, name + ".hex")
            ans_path = os.path.join(d, name + ".answers")
            if os.path.exists(hex_path) or os.path.exists(ans_path):
                continue        # written once, never again
            if reject is None:
                a = answers_for(blob, probes)
            else:
                try:
                    br.Filter(blob).info()      # layout 1: info reads all
                except br.FormatError:
                    pass
                else:
                    sys.exit("%s: the reader accepts it" % name)
                a = Answers()
                a.reject = reject
            write_hex(hex_path, blob, "%s/%s: %s" % (version, name, comment))
            a.write(ans_path, "%s/%s: %s\n%s" % (version, name, comment, SOURCE))
            made += [hex_path, ans_path]
    if made:
        with open(os.path.join(HERE, "SHA256SUMS"), "a", encoding="ascii") as f:
            for p in made:
                with open(p, "rb") as g:
                    f.write("%s  %s\n" % (hashlib.sha256(g.read()).hexdigest(),
                                          os.path.relpath(p, HERE)))
    print("wrote %d files" % len(made))


if __name__ == "__main__":
    main()
