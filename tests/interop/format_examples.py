"""Every worked example of ext/FORMAT.md, checked against the extension and
the independent reader (bloomreader.py).  Prints TAP.

A worked example is a section whose heading says "Worked example".  Its
SQL is the indented code before the sentence "`SELECT ...` gives a N-byte
blob", followed by that SELECT; its bytes are the dump after it (offset,
then hex digits; lines left out are zeros).  For each one:

  - the SQL, run in the sqlite3 shell with the extension loaded (as a
    reader of the document would), gives exactly the dump's bytes, and the
    blob is N bytes long;
  - the reader accepts the bytes, and the extension's bloom_info or
    cuckoo_info (and, for kind 3, bloom_layers) agree with the reader's bit
    for bit;
  - what the section's text says of those bytes holds: each kind has its
    own checks below (CHECKS), and a section with none fails, so that a new
    worked example cannot go unchecked.

Also the examples of bloom_key's encoding ("Composite keys").  The text is
read afresh on every run: change a byte, an offset or a figure in the
document and a check fails.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import ast
import math
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]

import bloomreader as br                                        # noqa: E402
from bloomhost import ROOT, Tap, bloom_so, connect              # noqa: E402
import interop                                                  # noqa: E402

FORMAT = os.path.join(ROOT, "ext", "FORMAT.md")
INFO_FN = {1: "bloom_info", 2: "cuckoo_info", 4: "quotient_info"}


def format_text():
    with open(FORMAT, encoding="utf-8") as f:
        return f.read()


def worked_examples(text):
    """[(kind heading, section text)] for every "Worked example" heading,
    in order; the kind heading is the "## " heading it sits under."""
    out = []
    parent = None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## "):
            parent = line[3:].strip()
        if re.match(r"^#+ .*Worked example", line):
            body = []
            for later in lines[i + 1:]:
                if later.startswith("#"):
                    break
                body.append(later)
            out.append((parent, "\n".join(body)))
    return out


def kind_of(heading):
    m = re.match(r"Kind (\d+)(?:, layout \d+)?:", heading or "")
    return int(m.group(1)) if m else None


def layout_of(heading):
    """The layout a "Kind N, layout L: ..." heading names, else None."""
    m = re.match(r"Kind \d+, layout (\d+):", heading or "")
    return int(m.group(1)) if m else None


def example_sql(section):
    """The statements that make the example's blob: the indented code
    before "`SELECT ...` gives", then that SELECT; or, for a store's
    export, "`SELECT ...` for `CREATE ...` after `INSERT ...` is": the
    CREATE, the INSERT, then the SELECT."""
    m = re.search(r"`(SELECT [^`]+)`\s+gives an?\s+(\d+)-byte blob", section)
    if m:
        before = section[:m.start()]
        setup = [line[4:] for line in before.split("\n")
                 if line.startswith("    ") and line.strip()]
        return setup + [m.group(1) + ";"], int(m.group(2))
    m = re.search(r"`(SELECT [^`]+)`\s+for\s+`(CREATE [^`]+)`\s+after\s+"
                  r"`(INSERT [^`]+)`\s+is an?\s+(\d+)-byte blob", section)
    if m:
        return [" ".join(m.group(i).split()) + ";" for i in (2, 3, 1)], \
            int(m.group(4))
    return None, None


def example_bytes(section):
    """The dump after "gives a N-byte blob": each line an offset and hex
    digits (spaces between groups ignored); lines left out are zeros."""
    m = re.search(r"(?:gives|is) an?\s+(\d+)-byte blob", section)
    if not m:
        return None
    out = bytearray(int(m.group(1)))
    seen = False
    for line in section[m.end():].split("\n"):
        d = re.match(r"^    (\d+)\s+([0-9A-F ]+)$", line)
        if d:
            chunk = bytes.fromhex(d.group(2).replace(" ", ""))
            at = int(d.group(1))
            if at + len(chunk) > len(out):
                raise ValueError("line %d runs past the %d bytes" % (at, len(out)))
            out[at:at + len(chunk)] = chunk
            seen = True
        elif seen and line.strip():
            break                           # the dump has ended
    return bytes(out)


def shell_hex(statements):
    """The one line the last statement prints, from the sqlite3 shell with
    the extension loaded (a sanitizer build: LD_PRELOAD is inherited)."""
    so = re.sub(r"\.so$", "", bloom_so())
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(".load %s\n" % so + "\n".join(statements) + "\n")
        path = f.name
    try:
        with open(path) as script:
            r = subprocess.run(["sqlite3", "-batch", "-bail", ":memory:"],
                               stdin=script, capture_output=True, text=True)
    finally:
        os.unlink(path)
    return r.stdout.strip(), r.stderr.strip()


def claim(tap, section, pattern, what):
    """The match of a sentence the section must hold (line breaks read as
    spaces), or a failed check."""
    m = re.search(pattern, " ".join(section.split()))
    if not m:
        tap.ok(False, "FORMAT.md's %s: the text states it" % what,
               "pattern not found: %s" % pattern)
    return m


def bullets(section):
    """{value: bullet text} for the "- `value` ..." items of a section, the
    value as Python (the SQL literals used there are Python's too)."""
    out = {}
    for m in re.finditer(r"^- `([^`]+)`(.*?)(?=^- |^\S|\Z)", section,
                         re.M | re.S):
        out[ast.literal_eval(m.group(1))] = " ".join(m.group(2).split())
    return out


def check_hashes(tap, what, items):
    """Each bullet's h1 and h2 are the reader's hash of its value."""
    bad, seen = [], 0
    for v, text in items.items():
        m = re.search(r"h1 = `(0x[0-9a-f]{16})`, h2 = `(0x[0-9a-f]{16})`", text)
        if not m:
            bad.append("%r: no h1, h2" % (v,))
            continue
        seen += 1
        if br.hash_value(v) != (int(m.group(1), 16), int(m.group(2), 16)):
            bad.append("%r: the text says %s, %s" % ((v,) + m.groups()))
    tap.ok(seen >= 2 and not bad, "%s: h1 and h2 of %s are the reader's "
           "hashes" % (what, ", ".join(map(repr, items))), *bad)


def check_kind1(tap, conn, section, blob):
    interop.check_worked_example(tap, conn)
    items = bullets(section)
    check_hashes(tap, "kind-1 example", items)
    f = br.Filter(blob)
    bad, told = [], 0
    for v, text in items.items():
        block, bits = f.impl.bit_positions(*br.hash_value(v))
        said = set()
        for m in re.finditer(r"(\d+) (?:is |\()byte (\d+), mask `0x([0-9A-F]{2})`,?"
                             r" \(?blob offset (\d+)\)", text):
            bit, byte, mask, at = (int(m.group(1)), int(m.group(2)),
                                   int(m.group(3), 16), int(m.group(4)))
            said.add(bit)
            told += 1
            if (byte, mask, at) != (bit // 8, 1 << bit % 8, 64 + 64 * block + bit // 8) \
                    or not blob[at] & mask:
                bad.append("%r: bit %d is not byte %d, mask 0x%02X, set at "
                           "offset %d" % (v, bit, byte, mask, at))
        if said != set(bits):
            bad.append("%r: the text names bits %s, the reader %s"
                       % (v, sorted(said), bits))
    tap.ok(told >= 4 and not bad, "kind-1 example: the %d bits the text names "
           "are each value's, at the bytes, masks and offsets it says, and "
           "set" % told, *bad)


def check_kind2(tap, conn, section, blob):
    interop.check_cuckoo_worked_example(tap, conn)
    items = bullets(section)
    check_hashes(tap, "kind-2 example", items)
    f = br.Filter(blob)
    bad, told = [], 0
    for v, text in items.items():
        fp, i1, i2 = f.impl.locate(*br.hash_value(v))
        m = re.search(r"i1 = (?:floor\(h1 \* \d+ / 2\^64\) = )?(\d+); fp = "
                      r".*?(\d+) \(`0x([0-9A-F]+)`\); fmix64\((\d+)\) = "
                      r"`(0x[0-9a-f]+)`, c = (\d+), i2 = (\d+)", text)
        if not m:
            bad.append("%r: no i1, fp, fmix64, c, i2" % (v,))
            continue
        g = m.groups()
        nb = f.impl.buckets
        if (int(g[0]), int(g[1]), int(g[2], 16), int(g[3]), int(g[4], 16),
                int(g[5]), int(g[6])) != (i1, fp, fp, fp, br._fmix(fp),
                                         (i1 + i2) % nb, i2):
            bad.append("%r: the text says %s; the reader i1 %d fp %d i2 %d"
                       % (v, g, i1, fp, i2))
        for b in re.finditer(r"body byte (\d+) \((?:blob )?offset (\d+)\) "
                             r"(?:gets|is) `0x([0-9A-F]{2})`", text):
            told += 1
            byte, at, val = int(b.group(1)), int(b.group(2)), int(b.group(3), 16)
            if at != 64 + byte or blob[at] != val:
                bad.append("%r: body byte %d at offset %d is 0x%02X, not 0x%02X"
                           % (v, byte, at, blob[at] if at < len(blob) else -1, val))
    tap.ok(told >= 4 and not bad, "kind-2 example: each value's i1, fp, "
           "fmix64, c and i2 are the reader's, and the %d body bytes the text "
           "gives hold what it says" % told, *bad)


def check_kind3(tap, conn, section, blob):
    f = br.Filter(blob)
    lengths = list(struct.unpack_from("<%dQ" % len(f.impl.layers), blob, 64))
    d = 64 + 64 * ((len(lengths) + 7) // 8)
    starts = [d + sum(lengths[:i]) for i in range(len(lengths))]

    m = claim(tap, section, r"bytes 12–15 are `([0-9A-F ]+)`", "kind-3 example")
    if m:
        want = bytes.fromhex(m.group(1).replace(" ", ""))
        tap.ok(blob[12:16] == want, "kind-3 example: bytes 12-15 are %s, as "
               "FORMAT.md says" % m.group(1), "blob: %s" % blob[12:16].hex())
    m = claim(tap, section, r"directory at offset (\d+) holds\s+`([0-9A-F]{16})`"
              r" \((\d+)\) and `([0-9A-F]{16})` \((\d+)\)", "kind-3 directory")
    if m:
        stated = [int(m.group(3)), int(m.group(5))]
        hexes = [bytes.fromhex(m.group(2)), bytes.fromhex(m.group(4))]
        tap.ok(int(m.group(1)) == 64 and stated == lengths
               and [struct.unpack("<Q", h)[0] for h in hexes] == lengths,
               "kind-3 example: the directory at 64 holds %s, as FORMAT.md "
               "says" % lengths, "text: %s" % (m.groups(),))
    m = claim(tap, section, r"zeros up to\s+D = 64 \+ 64 = (\d+)", "kind-3 D")
    if m:
        tap.ok(int(m.group(1)) == d and not any(blob[64 + 8 * len(lengths):d]),
               "kind-3 example: the padding is zero up to D = %d" % d)
    m0 = claim(tap, section, r"Layer 0 starts at offset (\d+)", "layer 0's offset")
    m1 = claim(tap, section, r"Layer 1 starts at (\d+) \+ (\d+) = (\d+)",
               "layer 1's offset")
    m2 = claim(tap, section, r"The blob ends at\s+(\d+) \+ (\d+) = (\d+)",
               "kind-3 length")
    if m0 and m1 and m2:
        said = [int(m0.group(1)), int(m1.group(3))]
        tap.ok(said == starts and int(m1.group(1)) == starts[0]
               and int(m1.group(2)) == lengths[0]
               and int(m2.group(1)) == starts[1]
               and int(m2.group(2)) == lengths[1]
               and int(m2.group(3)) == len(blob),
               "kind-3 example: layers at %s, %d bytes in all, as FORMAT.md "
               "says" % (starts, len(blob)),
               "text: %s %s %s" % (m0.groups(), m1.groups(), m2.groups()))
    # The outer sums and each layer's header fields, as the text gives them.
    m = claim(tap, section, r"capacity 0x([0-9A-F]+) = (\d+), the layers' (\d+) "
              r"\+ (\d+);.*?count 0x([0-9A-F]+) = (\d+), the layers' (\d+) \+ "
              r"(\d+)\.", "kind-3 sums")
    fields = re.findall(r"(\d+) hashes, (\d+) bits, capacity (\d+), target_fpr "
                        r"([0-9.]+), inserted (\d+)", " ".join(section.split()))
    heads = [l.header for l in f.impl.layers]
    said = [(int(k), int(b), int(c), float(p), int(i)) for k, b, c, p, i in fields]
    have = [(l.impl.k, l.impl.bits, h.capacity, h.target_fpr, h.inserted)
            for l, h in zip(f.impl.layers, heads)]
    if m:
        g = [int(x, 16) if j in (0, 4) else int(x) for j, x in enumerate(m.groups())]
        sums = (g[0] == g[1] == f.header.capacity == g[2] + g[3]
                and [g[2], g[3]] == [h.capacity for h in heads]
                and g[4] == g[5] == f.header.inserted == g[6] + g[7]
                and [g[6], g[7]] == [h.inserted for h in heads])
        tap.ok(sums and said == have, "kind-3 example: the outer capacity and "
               "count, and each layer's hashes, bits, capacity, target_fpr and "
               "inserted, are what FORMAT.md says", "text: %s %s" % (g, said),
               "blob: %s" % have)
    # The stores' schedule of rates, evaluated as FORMAT.md says.
    t = f.impl.tightening
    want = [(f.header.target_fpr * (1 - t)) * math.pow(t, i)
            for i in range(len(heads))]
    tap.ok([h.target_fpr for h in heads] == want, "kind-3 example: the "
           "layers' rates are (p * (1 - r)) * pow(r, i), bit for bit",
           "blob %r, want %r" % ([h.target_fpr for h in heads], want))
    # Each layer is what bloom_build makes of its values.
    builds = re.findall(r"`(bloom_build\(value, \d+, [0-9.]+\))` of\s+"
                        r"(?:the\s+values\s+)?(\d+)(?:\s+to\s+(\d+))?", section)
    layers = [blob[s:s + n] for s, n in zip(starts, lengths)]
    ok = len(builds) == len(layers)
    diag = ["%d bloom_build sentences for %d layers" % (len(builds), len(layers))]
    for i, (call, lo, hi) in enumerate(builds[:len(layers)]):
        sql = ("WITH RECURSIVE n(value) AS (SELECT %s UNION ALL SELECT value + 1"
               " FROM n WHERE value < %s) SELECT %s FROM n"
               % (lo, hi or lo, call))
        (built,) = conn.execute(sql).fetchone()
        if built != layers[i]:
            ok = False
            diag.append("layer %d is not %s of %s..%s" % (i, call, lo, hi or lo))
    tap.ok(ok, "kind-3 example: each layer is the bloom_build FORMAT.md "
           "names (%s)" % "; ".join("%s of %s..%s" % (c, lo, hi or lo)
                                    for c, lo, hi in builds), *diag)
    # The reader, as a writer, assembles the same bytes from those layers.
    m = claim(tap, section, r"tightening `[0-9A-F]+` = ([0-9.]+)", "tightening")
    if m:
        again = br.layered_blob(layers, f.impl.growth, float(m.group(1)),
                                f.header.target_fpr)
        tap.ok(again == blob, "kind-3 example: the reader assembles the same "
               "bytes from its layers")
    (answers,) = conn.execute(
        "WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n"
        " WHERE v < 21) SELECT group_concat(bloom_test(?1, v), '') FROM n",
        (blob,)).fetchone()
    mine = "".join(str(f.test(v)) for v in range(1, 22))
    tap.ok(answers == mine == "1" * 21, "kind-3 example: bloom_test answers 1 "
           "for 1 to 21 (extension and reader)",
           "sql %s reader %s" % (answers, mine))
    # Without the padding (the layout of an earlier, wrong text of this
    # example): refused by both.
    unpadded = blob[:64] + blob[64:64 + 8 * len(lengths)] + blob[d:]
    try:
        conn.execute("SELECT bloom_test(?1, 1)", (unpadded,)).fetchone()
        sql_says = "accepted"
    except sqlite3.Error as e:
        sql_says = str(e)
    try:
        br.Filter(unpadded)
        reader_says = "accepted"
    except br.FormatError as e:
        reader_says = str(e)
    tap.ok(len(unpadded) == 400 and "padding is not zero" in sql_says
           and "padding is not zero" in reader_says,
           "kind-3 example without the directory's padding (400 bytes, "
           "layers at 80 and 208): refused by the extension and the reader",
           "sql: %s" % sql_says, "reader: %s" % reader_says)


def check_kind4(tap, conn, section, blob):
    f = br.Filter(blob)
    bad = []
    m = re.search(r"`c` = (\d+),\s+`M` = (\d+), `l` = (\d+)", section)
    if not m or tuple(int(x) for x in m.groups()) != f.impl.shapes[0][:3]:
        bad.append("the block's c, M, l: text %s, reader %s"
                   % (m and m.groups(), f.impl.shapes[0][:3]))
    c, big_m, l, _ = f.impl.shapes[0]
    v = big_m << l
    told = 0
    for value, text in bullets(section).items():
        h1, h2 = br.hash_value(value)
        g = re.search(r"h2 = `(0x[0-9a-f]+)`.*?key = `(0x[0-9a-f]+)`, bucket "
                      r"`q` = (\d+), low `(0x[0-9a-f]+)`\. Entry (\d+): its 1 "
                      r"bit is unary position (\d+) \+ (\d+) \(block bit "
                      r"(\d+): body byte (\d+), blob offset (\d+), "
                      r"`0x([0-9A-F]{2})`\)", text)
        if not g:
            bad.append("%r: no h2, key, q, low, entry and bytes" % (value,))
            continue
        told += 1
        x = [int(t, 0) for t in g.groups()[:10]] + [int(g.group(11), 16)]
        key = (h2 * v) >> 64
        keys = f.impl.entries(0)
        i = keys.index(key) if key in keys else -1
        bit = 32 + (key >> l) + i
        want = [h2, key, key >> l, key & ((1 << l) - 1), i, key >> l, i, bit,
                bit // 8, 64 + bit // 8, blob[64 + bit // 8]]
        if x != want:
            bad.append("%r: the text says %s, the reader %s" % (value, x, want))
    tap.ok(told == 2 and not bad, "kind-4 example: the block's c, M, l and "
           "each value's key, bucket, low part, entry and bytes are the "
           "reader's", *bad)


def check_kind4_leaves(tap, conn, section, blob):
    """"Kind 4, layout 1": the header, directory and record fields the text
    gives, and its account of the low part and of probing 42."""
    f = br.Filter(blob)
    bad = []
    m = claim(tap, section, r"Header: kind (\d+), `block_bytes` (\d+), layout "
              r"(\d+), one leaf; `capacity` (\d+) .*?`target_fpr` ([0-9.]+), "
              r"items (\d+)\.", "layout-1 header")
    if m:
        said = (int(m.group(1)), int(m.group(2)), int(m.group(3)), 1,
                int(m.group(4)), float(m.group(5)), int(m.group(6)))
        have = (blob[5],) + struct.unpack_from("<HBxQQdQ", blob, 12)
        if said != have:
            bad.append("header: text %s, blob %s" % (said, have))
    m = claim(tap, section, r"Directory: node (\d+) \(depth (\d+): the whole "
              r"hash space\), its record ending at byte (\d+) of the area",
              "layout-1 directory")
    if m:
        node, depth, end = (int(x) for x in m.groups())
        if (f.impl.leaves, f.impl.entry(0)) != (1, (node, end)) \
                or node.bit_length() - 1 != depth \
                or len(blob) != 64 + 16 + end:
            bad.append("directory: text node %d depth %d end %d, blob %s"
                       % (node, depth, end, f.impl.entry(0)))
    m = claim(tap, section, r"Record: one section, `w = 0x([0-9A-F]{6})`: `c` = "
              r"(\d+), `b` = (\d+), `m` = (\d+), so `l` = (\d+); its bits are "
              r"the unary part `([01 ]+)`.*?the low part: bits (\d+) to (\d+) "
              r"of `([0-9A-F ]+)` read least significant first, `0x([0-9A-F]+)`",
              "layout-1 record")
    h1, _h2 = br.hash_value(42)
    if m:
        w, c, b, mm, l = (int(m.group(1), 16),) + tuple(
            int(m.group(i)) for i in range(2, 6))
        unary = [int(x) for x in m.group(6).split()]
        lo, hi = int(m.group(7)), int(m.group(8))
        body = bytes.fromhex(m.group(9).replace(" ", ""))
        low = int(m.group(10), 16)
        rec = blob[64 + 16:]
        heads = br.leaf_sections(rec)
        (node, sections), = f.impl.leaf_rows()
        x = int.from_bytes(body, "little")
        if (rec[0], int.from_bytes(rec[1:4], "little")) != (1, w) \
                or heads[0][:3] != (c, b, mm) or l != b - mm \
                or (w & 4095, w >> 12 & 127, w >> 19 & 31) != (c, b, mm):
            bad.append("section header: text w %#x c %d b %d m %d l %d, "
                       "blob %s %s" % (w, c, b, mm, l, rec[:4].hex(), heads))
        if rec[4:] != body or [x >> i & 1 for i in range(c + (1 << mm))] != unary:
            bad.append("section bits: text %s unary %s, blob %s"
                       % (body.hex(), unary, rec[4:].hex()))
        if (lo, hi) != (c + (1 << mm), c + (1 << mm) + l - 1) \
                or (x >> lo) & ((1 << (hi - lo + 1)) - 1) != low \
                or sections != [(b, mm, [low])]:
            bad.append("low part: text bits %d to %d = %#x, reader's keys %s"
                       % (lo, hi, low, sections))
        g = claim(tap, section, r"the top (\d+) bits of 42's `h1 = (0x[0-9a-f]+)`",
                  "42's h1")
        if g and (int(g.group(1)) != b or int(g.group(2), 16) != h1
                  or h1 >> (64 - b) != low):
            bad.append("42: text top %s bits of %s, reader h1 %#x"
                       % (g.group(1), g.group(2), h1))
    z = claim(tap, section, r"finds the first 0 of the unary part at position "
              r"(\d+), the 1 before it \(entry (\d+)\), whose low part matches",
              "probing 42")
    if z and m:
        q = (h1 >> (64 - b)) >> l
        zeros = [i for i in range(c + (1 << mm)) if not x >> i & 1]
        if (q, zeros[q], zeros[q] - q - 1) != (0, int(z.group(1)),
                                               int(z.group(2))):
            bad.append("probe: text z %s entry %s, reader z %d"
                       % (z.group(1), z.group(2), zeros[q]))
    (sql,) = conn.execute("SELECT quotient_test(?1, 42)", (blob,)).fetchone()
    tap.ok(m and z and not bad and f.test(42) == 1 and sql == 1,
           "kind-4 layout-1 example: the header, directory entry, section "
           "(w, c, b, m, l, unary part, low part 0x8130A) and the probe of 42 "
           "are what the text says, and 42 answers 1 (extension and reader)",
           *bad)


CHECKS = {1: check_kind1, 2: check_kind2, 3: check_kind3, 4: check_kind4,
          (4, 1): check_kind4_leaves}


def check_example(tap, conn, heading, section):
    kind = kind_of(heading)
    name = "FORMAT.md's worked example under %r" % heading
    statements, length = example_sql(section)
    blob = example_bytes(section)
    if statements is None or blob is None:
        tap.ok(False, "%s: has its SQL and its bytes" % name)
        return
    got, err = shell_hex(statements)
    tap.ok(got == blob.hex().upper() and len(blob) == length,
           "%s: its SQL gives its %d bytes in the sqlite3 shell" % (name, length),
           "sql:  %s" % got, "text: %s" % blob.hex().upper(), err)
    try:
        f = br.Filter(blob)
    except br.FormatError as e:
        tap.ok(False, "%s: the reader accepts it" % name, str(e))
        return
    base = f.impl.layer_kind if f.header.kind == 3 else f.header.kind
    diffs = interop.compare_info(interop.sql_info(conn, blob, base), f.info())
    if f.header.kind == 3:
        cur = conn.execute("SELECT * FROM bloom_layers(?1)", (blob,))
        cols = [c[0] for c in cur.description]
        got_rows = [dict(zip(cols, r)) for r in cur.fetchall()]
        for g, w in zip(got_rows, f.impl.layer_rows()):
            want = dict.fromkeys(cols)
            want.update(w)
            diffs += ["layer %d: %s" % (w["layer"], x)
                      for x in interop.compare_info(g, want)]
        if len(got_rows) != len(f.impl.layers):
            diffs.append("bloom_layers: %d rows" % len(got_rows))
    tap.ok(f.header.kind == kind and not diffs,
           "%s: a kind-%s blob the reader accepts, %s%s agreeing bit for bit"
           % (name, kind, INFO_FN[base],
              " and bloom_layers" if f.header.kind == 3 else ""), *diffs)
    layout = layout_of(heading)
    check = CHECKS.get(kind if layout is None else (kind, layout))
    if check is None:
        tap.ok(False, "%s: this test has no checks for what it says" % name)
    else:
        check(tap, conn, section, blob)


def check_keys(tap, conn, text):
    pairs = re.findall(r"`(bloom_key\(([^`]*)\))` is `([0-9A-F ]+)`", text)
    bad = []
    for call, args, hexes in pairs:
        want = bytes.fromhex(hexes.replace(" ", ""))
        (sql,) = conn.execute("SELECT %s" % call).fetchone()
        reader = br.key(*ast.literal_eval("(%s,)" % args))
        if sql != want or reader != want:
            bad.append("%s: text %s, sql %s, reader %s" % (
                call, want.hex(), sql.hex() if sql else sql,
                reader.hex() if reader else reader))
    tap.ok(len(pairs) >= 2 and not bad,
           "FORMAT.md's %d bloom_key examples: the extension and the reader "
           "give the bytes it shows" % len(pairs), *bad)


def main():
    tap = Tap()
    text = format_text()
    conn = connect()
    examples = worked_examples(text)
    tap.ok(len(examples) >= 3 and all(kind_of(h) for h, _ in examples),
           "FORMAT.md has %d worked examples, each under a \"Kind N\" heading"
           % len(examples), *["under %r" % h for h, _ in examples])
    for heading, section in examples:
        check_example(tap, conn, heading, section)
    check_keys(tap, conn, text)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
