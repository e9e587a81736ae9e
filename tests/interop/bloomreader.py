"""An independent reader of bloom's filter blobs, written from ext/FORMAT.md alone.

Nothing here is taken from the C sources in ext/: if this reader and the
extension disagree, one of them departs from FORMAT.md.  Pure Python 3
standard library; no SQLite needed.

    f = Filter(blob)        # parses and validates; raises FormatError
    f.test(value)           # 1 (maybe), 0 (certainly not), None for None
    f.info()                # dict of what bloom_info (cuckoo_info) reports
    f.count()               # what bloom_count reports
    key(v1, v2, ...)        # the bytes of bloom_key(v1, v2, ...), or None
    bloom_add(blob, *values), bloom_union(a, b), bloom_intersect(a, b),
    bloom_merge(blobs), cuckoo_delete(blob, value)   # result blobs
    bloom_plan(n, p), cuckoo_sizing(n, p), quotient_sizing(n, p)
                            # the sizing of "this version"
    quotient_build(values, n, p)   # the kind-4 blob quotient_build makes
    read_store(conn, name)  # a store's blob from its shadow tables alone
    leaves_blob(records, ...), encode_leaf_record(sections)
                            # kind 4 layout 1 (quotient leaves), written
    layered_blob(layers, ...)   # a kind-3 blob of layer blobs

Python values stand for SQL values as Python's sqlite3 module binds them:
int -> INTEGER, float -> REAL (NaN -> NULL, as SQLite does), str -> TEXT,
bytes-like -> BLOB, None -> NULL; Text(b) is a TEXT given by the UTF-8 bytes
SQLite hands over, valid UTF-8 or not ("Text and the database encoding").

Floating-point figures follow "Floating-point figures" to the letter, so
that with the extension's libm (the same process) they agree bit for bit.

Each kind of filter is a class in KINDS keyed by the header's kind byte; to
support a new kind, write a class with the same methods as BloomKind
(__init__(header, body), test_hash(h1, h2), header_info(header), stats())
and register it.  Kind 4's entry, quotient_kind, picks QuotientKind (layout
0, blocks) or QuotientLeavesKind (layout 1, leaves) by header byte 14.

Kind 4 layout 1 is checked where FORMAT.md says: Filter() makes the O(1)
checks of the header and directory, a probe those of the leaf it reads (it
owns h1, its bounds lie in the area in order, its sections fill it exactly)
and the lookup's own (a unary part without the bucket it seeks), and
info() every check of every leaf.  The probe's binary search is the one
FORMAT.md spells out, step by step, so that a damaged directory sends
this reader where it sends the extension.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import math
import struct

__all__ = ["FormatError", "Filter", "Text", "murmur3_x64_128",
           "smhasher_verification", "encode_value", "hash_value", "key",
           "KINDS", "pow_k", "bloom_add", "bloom_union", "bloom_intersect",
           "bloom_merge", "cuckoo_delete", "bloom_model_fpr", "bloom_plan",
           "cuckoo_fpr", "cuckoo_sizing", "TOLERANCE", "layered_blob",
           "layered_add", "quotient_sizing", "quotient_build",
           "quotient_model_fpr", "quotient_shape", "read_store",
           "leaves_blob", "encode_leaf_record"]

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
I64_MAX = (1 << 63) - 1

# "Floating-point figures": the relative tolerance a reader that does not
# reproduce the evaluation bit for bit may use, per figure.
TOLERANCE = {"fill_ratio": 0.0, "load_factor": 0.0, "estimated_items": 1e-12,
             "cuckoo_estimated_fpr": 1e-12, "bloom_estimated_fpr": 1e-8,
             "expected_fpr": 1e-10, "quotient_estimated_fpr": 1e-8}


def pow_k(x, k):
    """x^k by squaring, low bits of k first (FORMAT.md's pow_k)."""
    r = 1.0
    while k > 0:
        if k & 1:
            r = r * x
        x = x * x
        k >>= 1
    return r


# --- MurmurHash3 x64_128 (Austin Appleby's reference algorithm) -------------

_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _fmix(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    k ^= k >> 33
    return k


def murmur3_x64_128(data, seed):
    """(h1, h2): the two 64-bit words of MurmurHash3_x64_128(data, seed).

    h1 is the first 8 output bytes read little-endian, h2 the next 8.
    """
    data = bytes(data)
    n = len(data)
    h1 = h2 = seed & M32
    nblocks = n // 16
    for i in range(nblocks):
        k1, k2 = struct.unpack_from("<QQ", data, 16 * i)
        k1 = (k1 * _C1) & M64
        k1 = _rotl(k1, 31)
        k1 = (k1 * _C2) & M64
        h1 ^= k1
        h1 = _rotl(h1, 27)
        h1 = (h1 + h2) & M64
        h1 = (h1 * 5 + 0x52DCE729) & M64
        k2 = (k2 * _C2) & M64
        k2 = _rotl(k2, 33)
        k2 = (k2 * _C1) & M64
        h2 ^= k2
        h2 = _rotl(h2, 31)
        h2 = (h2 + h1) & M64
        h2 = (h2 * 5 + 0x38495AB5) & M64
    tail = data[16 * nblocks:]
    if len(tail) > 8:
        k2 = int.from_bytes(tail[8:], "little")
        k2 = (k2 * _C2) & M64
        k2 = _rotl(k2, 33)
        k2 = (k2 * _C1) & M64
        h2 ^= k2
    if tail:
        k1 = int.from_bytes(tail[:8], "little")
        k1 = (k1 * _C1) & M64
        k1 = _rotl(k1, 31)
        k1 = (k1 * _C2) & M64
        h1 ^= k1
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1 = _fmix(h1)
    h2 = _fmix(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


def _digest(data, seed):
    h1, h2 = murmur3_x64_128(data, seed)
    return struct.pack("<QQ", h1, h2)


def smhasher_verification():
    """SMHasher's verification value for MurmurHash3_x64_128 (0x6384BA69)."""
    key_bytes = bytes(range(256))
    hashes = b"".join(_digest(key_bytes[:i], 256 - i) for i in range(256))
    return struct.unpack("<I", _digest(hashes, 0)[:4])[0]


# --- SQL values: bytes hashed and MurmurHash seed ("Hashing values") --------

INTEGER, REAL, TEXT, BLOB = 1, 2, 3, 4      # the storage class codes


class Text(bytes):
    """A TEXT value given by the bytes SQLite hands a function in UTF-8
    (sqlite3_value_text), which need not be valid UTF-8."""


def encode_value(v):
    """(class code, bytes) of a Python value as FORMAT.md hashes it, or None for NULL.

    A REAL with an integral value in [-2^63, 2^63) is encoded as that INTEGER
    (so 42.0 is 42 and -0.0 is 0).  SQLite stores no NaN (binding one gives
    NULL), so a NaN is treated as NULL.
    """
    if v is None:
        return None
    if isinstance(v, int):                   # bool too: sqlite3 binds it as 0/1
        if not -(1 << 63) <= v < (1 << 63):
            raise OverflowError("an SQL INTEGER is 64-bit: %r" % (v,))
        return INTEGER, struct.pack("<q", v)
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer() and -(2.0 ** 63) <= v < 2.0 ** 63:
            return INTEGER, struct.pack("<q", int(v))
        return REAL, struct.pack("<d", v)
    if isinstance(v, str):
        return TEXT, v.encode("utf-8")
    if isinstance(v, Text):
        return TEXT, bytes(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return BLOB, bytes(v)
    raise TypeError("no SQL storage class for %r" % (type(v),))


_hash_cache = {}


def hash_value(v, seed=0):
    """(h1, h2) of a value under a header seed, or None for NULL (memoized)."""
    enc = encode_value(v)
    if enc is None:
        return None
    code, data = enc
    murmur_seed = (seed + code) & M32        # seed + 1 .. seed + 4, wrapping
    ck = (murmur_seed, data)
    h = _hash_cache.get(ck)
    if h is None:
        if len(_hash_cache) > 1_000_000:
            _hash_cache.clear()
        h = _hash_cache[ck] = murmur3_x64_128(data, murmur_seed)
    return h


def key(*parts):
    """The bytes bloom_key(*parts) returns, or None if a part is NULL."""
    if not parts:
        raise TypeError("bloom_key takes at least one value")
    out = []
    for p in parts:
        enc = encode_value(p)
        if enc is None:
            return None
        code, data = enc
        out.append(bytes([code]))
        if code in (TEXT, BLOB):
            out.append(struct.pack("<I", len(data)))
        out.append(data)
    return b"".join(out)


# --- The blob ---------------------------------------------------------------

class FormatError(ValueError):
    """The blob is not a well-formed filter; a reader must reject it."""


MAGIC = b"BLMF"
HEADER = struct.Struct("<4sBBBBIIQQdQ16s")  # 64 bytes, see "Header"
assert HEADER.size == 64
HASH_NAMES = {1: "murmur3_x64_128"}


class Header:
    __slots__ = ("version", "kind", "hash", "flags", "seed", "hashes", "bits",
                 "capacity", "target_fpr", "inserted", "length")

    def __init__(self, blob):
        if len(blob) < 64:
            raise FormatError("shorter than the 64-byte header")
        (magic, self.version, self.kind, self.hash, self.flags, self.seed,
         self.hashes, self.bits, self.capacity, self.target_fpr,
         self.inserted, reserved) = HEADER.unpack_from(blob, 0)
        self.length = len(blob)
        if magic != MAGIC:
            raise FormatError("bad magic %r" % (magic,))
        if self.version != 1:
            raise FormatError("unknown version %d" % self.version)
        if self.kind not in KINDS:
            raise FormatError("unknown kind %d" % self.kind)
        if self.hash not in HASH_NAMES:
            raise FormatError("unknown hash %d" % self.hash)
        if self.flags != 0:
            raise FormatError("flags must be 0, got %d" % self.flags)
        if reserved != bytes(16):
            raise FormatError("reserved bytes must be zero")
        if not 1 <= self.capacity <= (1 << 63) - 1:
            raise FormatError("capacity %d out of range" % self.capacity)
        if not 0.0 < self.target_fpr < 1.0:      # False for NaN
            raise FormatError("target_fpr %r out of range" % self.target_fpr)


class BloomKind:
    """Kind 1: Bloom filter in 512-bit blocks ("Kind 1" in FORMAT.md)."""

    name = "bloom"

    def __init__(self, h, body):
        if not 1 <= h.hashes <= 64:
            raise FormatError("hashes %d out of range" % h.hashes)
        if h.bits == 0 or h.bits % 512:
            raise FormatError("bits %d is not a positive multiple of 512" % h.bits)
        if h.bits // 8 != len(body):               # Python ints cannot wrap
            raise FormatError("bits %d does not match a %d-byte body"
                              % (h.bits, len(body)))
        self.k = h.hashes
        self.bits = h.bits
        self.blocks = h.bits // 512
        self.body = body
        self._block_ints = {}

    def _block(self, b):
        v = self._block_ints.get(b)
        if v is None:
            # bit j of a block is bit j%8 of byte j//8: a little-endian integer
            v = self._block_ints[b] = int.from_bytes(
                self.body[64 * b:64 * b + 64], "little")
        return v

    def bit_positions(self, h1, h2):
        """(block, [bit numbers in the block]) for an item's hash."""
        block = (h1 * self.blocks) >> 64
        bits = []
        for i in range(self.k):
            w = (h1 + (i // 7 + 1) * h2) & M64
            bits.append((w >> (9 * (i % 7))) & 511)
        return block, bits

    def test_hash(self, h1, h2):
        block, bits = self.bit_positions(h1, h2)
        word = self._block(block)
        for j in bits:
            if not (word >> j) & 1:
                return 0
        return 1

    def add_hash(self, h1, h2):
        """Sets an item's bits (used only to craft test vectors)."""
        block, bits = self.bit_positions(h1, h2)
        body = bytearray(self.body)
        for j in bits:
            body[64 * block + j // 8] |= 1 << (j % 8)
        self.body = bytes(body)
        self._block_ints.clear()

    def count_added(self, inserted, added):
        # bloom_add, bloom_build: every non-NULL value, stopping at 2^64 - 1
        return min(inserted + added, M64)

    def header_info(self, h):
        # an SQL INTEGER is signed: 2^63 and above read as 2^63 - 1
        return {"bits": h.bits, "hashes": h.hashes, "bytes": h.length,
                "capacity": h.capacity, "target_fpr": h.target_fpr,
                "inserted": min(h.inserted, I64_MAX)}

    def stats(self):
        """bits_set, fill_ratio, estimated_items, estimated_fpr.

        estimated_items = -(m / k) * log1p(-fill_ratio), None when every bit
        is set; estimated_fpr = S / blocks, S the sum in block order of
        pow_k(c_b / 512, k): a probe falls in each block with equal
        probability and is a false positive when its k bits are all set.
        Evaluated as "What bloom_info reports" writes it.
        """
        m, k = self.bits, self.k
        total = 0
        fpr_sum = 0.0
        for b in range(self.blocks):
            c = _popcount(self._block(b))
            total += c
            fpr_sum = fpr_sum + pow_k(c / 512.0, k)
        fill = float(total) / float(m)
        items = None if total == m else -(float(m) / float(k)) * math.log1p(-fill)
        return {"bits_set": total, "fill_ratio": fill,
                "estimated_items": items,
                "estimated_fpr": fpr_sum / float(self.blocks)}

    def count(self):
        """bloom_count: estimated_items rounded half away from zero."""
        return _rounded_count(self.stats()["estimated_items"])


def _rounded_count(items):
    """bloom_count's rounding of estimated_items: half away from zero
    (items is never negative); None stays None."""
    if items is None:
        return None
    f = math.floor(items)
    return int(f) + (1 if items - f >= 0.5 else 0)


def _popcount(x):
    try:
        return x.bit_count()
    except AttributeError:                       # Python < 3.10
        return bin(x).count("1")


class CuckooKind:
    """Kind 2: cuckoo filter, 4 slots a bucket ("Kind 2" in FORMAT.md).

    In the header, byte 12 is fingerprint_bits, byte 13 slots_per_bucket,
    byte 14 the layout (0: a power of two of buckets, the other bucket by
    XOR; 1: an even number of buckets, the other bucket by subtraction mod
    B) and byte 15 must be 0 (Header.hashes holds those 4 bytes as a u32);
    Header.bits holds buckets and Header.inserted holds items.
    """

    name = "cuckoo"
    SLOTS = 4

    def __init__(self, h, body):
        f = h.hashes & 0xFF
        slots = (h.hashes >> 8) & 0xFF
        layout = (h.hashes >> 16) & 0xFF
        if slots != 4 or layout not in (0, 1) or h.hashes >> 24:
            raise FormatError("slots_per_bucket must be 4, layout 0 or 1 and "
                              "byte 15 0 (bytes 12-15 = 0x%08x)" % h.hashes)
        if not 4 <= f <= 64:
            raise FormatError("fingerprint_bits %d out of range" % f)
        nb = h.bits
        if layout == 0 and (nb == 0 or nb & (nb - 1)):
            raise FormatError("buckets %d is not a power of two" % nb)
        if layout == 1 and (nb == 0 or nb % 2):
            raise FormatError("buckets %d is not even (layout 1)" % nb)
        # Python ints cannot wrap: compare with the exact size directly
        if len(body) != (nb * 4 * f + 7) // 8:
            raise FormatError("buckets %d, fingerprint_bits %d do not match a "
                              "%d-byte body" % (nb, f, len(body)))
        if h.inserted > 4 * nb:
            raise FormatError("items %d above the %d slots" % (h.inserted, 4 * nb))
        self.f = f
        self.buckets = nb
        self.layout = layout
        self.header = h             # items is h.inserted, kept current by add
        self.body = body

    @property
    def items(self):
        return self.header.inserted

    def slot(self, j):
        """The f-bit number in slot j (body bits j*f .. j*f + f - 1)."""
        t = j * self.f
        lo, hi = t // 8, (t + self.f - 1) // 8 + 1
        return (int.from_bytes(self.body[lo:hi], "little") >> (t % 8)) & \
            ((1 << self.f) - 1)

    def bucket(self, b):
        return [self.slot(4 * b + s) for s in range(4)]

    def locate(self, h1, h2):
        """(fp, i1, i2) for an item's hash."""
        f, nb = self.f, self.buckets
        fp = 1 + ((h2 * ((1 << f) - 1)) >> 64)
        if self.layout == 1:
            i1 = (h1 * nb) >> 64
            c = 1 + 2 * ((_fmix(fp) * (nb // 2)) >> 64)
            return fp, i1, (c - i1) % nb
        i1 = h1 % nb
        d = 0 if nb == 1 else 1 + ((_fmix(fp) * (nb - 1)) >> 64)
        return fp, i1, i1 ^ d

    def test_hash(self, h1, h2):
        fp, i1, i2 = self.locate(h1, h2)
        return 1 if fp in self.bucket(i1) or fp in self.bucket(i2) else 0

    def add_hash(self, h1, h2):
        """Puts fp in the first empty slot of i1, else of i2 (FORMAT.md's
        "Insert" without the walk; used only to craft test vectors)."""
        fp, i1, i2 = self.locate(h1, h2)
        for b in (i1, i2):
            for s in range(4):
                if self.slot(4 * b + s) == 0:
                    self.set_slot(4 * b + s, fp)
                    return
        raise ValueError("both buckets full (this writer does not relocate)")

    def remove_hash(self, h1, h2):
        """Empties the first slot of i1, else of i2, holding fp; False if
        none does."""
        fp, i1, i2 = self.locate(h1, h2)
        for b in (i1, i2):
            for s in range(4):
                if self.slot(4 * b + s) == fp:
                    self.set_slot(4 * b + s, 0)
                    return True
        return False

    def count_added(self, items, added):
        # cuckoo_add: items + 1, never above the slot count
        return min(items + added, 4 * self.buckets)

    def set_slot(self, j, v):
        """Writes slot j (used only to craft test vectors)."""
        t = j * self.f
        x = int.from_bytes(self.body, "little")
        x &= ~(((1 << self.f) - 1) << t)
        x |= v << t
        self.body = x.to_bytes(len(self.body), "little")

    def header_info(self, h):
        return {"buckets": self.buckets, "slots_per_bucket": 4,
                "fingerprint_bits": self.f, "bytes": h.length,
                "capacity": h.capacity, "target_fpr": h.target_fpr,
                "items": h.inserted}

    def stats(self):
        """load_factor = items / (B * 4.0); estimated_fpr = fpr(load_factor)
        ("What cuckoo_info reports")."""
        load = float(self.items) / (float(self.buckets) * 4.0)
        return {"load_factor": load,
                "estimated_fpr": cuckoo_fpr(load, self.f, self.buckets)}


class LayeredKind:
    """Kind 3: layered filter ("Kind 3" in FORMAT.md): layers of kind 1 or 2,
    oldest first, behind a directory of their lengths.

    In the header, byte 12 is layer_kind, byte 13 the layer count and bytes
    14-15 growth (Header.hashes holds those 4 bytes as a u32); bytes 16-23
    are tightening, a double (Header.bits holds them as a u64); inserted is
    the count, the layers' sum.
    """

    def __init__(self, h, body):
        self.layer_kind = h.hashes & 0xFF
        n = (h.hashes >> 8) & 0xFF
        self.growth = h.hashes >> 16
        self.tightening = struct.unpack("<d", struct.pack("<Q", h.bits))[0]
        if self.layer_kind not in (1, 2):
            raise FormatError("layer_kind %d is not 1 or 2" % self.layer_kind)
        if not 1 <= n <= 64:
            raise FormatError("%d layers, not 1..64" % n)
        if self.growth < 1:
            raise FormatError("growth 0")
        if not 0.0 < self.tightening <= 1.0:        # False for NaN
            raise FormatError("tightening %r out of (0, 1]" % self.tightening)
        directory = 64 * ((n + 7) // 8)          # padded to 64 bytes
        if len(body) < directory:
            raise FormatError("no room for the directory of %d layers" % n)
        if any(body[8 * n:directory]):
            raise FormatError("the directory's padding is not zero")
        lengths = struct.unpack_from("<%dQ" % n, body, 0)
        if sum(lengths) != len(body) - directory:  # Python ints cannot wrap
            raise FormatError("the layer lengths sum to %d, the blob holds %d"
                              % (sum(lengths), len(body) - directory))
        self.header = h
        self.layers = []
        at = directory
        for i, length in enumerate(lengths):
            layer = Filter(body[at:at + length])
            if layer.header.kind != self.layer_kind:
                raise FormatError("layer %d is of kind %d, not %d"
                                  % (i, layer.header.kind, self.layer_kind))
            if layer.header.seed != h.seed:
                raise FormatError("layer %d has seed %d, the filter %d"
                                  % (i, layer.header.seed, h.seed))
            self.layers.append(layer)
            at += length
        capacity = min(sum(l.header.capacity for l in self.layers), I64_MAX)
        count = min(sum(l.header.inserted for l in self.layers), M64)
        if capacity != h.capacity:
            raise FormatError("capacity %d is not the layers' sum %d"
                              % (h.capacity, capacity))
        if count != h.inserted:
            raise FormatError("count %d is not the layers' sum %d"
                              % (h.inserted, count))
        self.name = KINDS[self.layer_kind].name
        self.body = body

    def test_hash(self, h1, h2):
        # any layer's maybe; the order does not change the answer
        for layer in self.layers:
            if layer.impl.test_hash(h1, h2):
                return 1
        return 0

    def header_info(self, h):
        if self.layer_kind == 1:
            return {"bits": sum(l.impl.bits for l in self.layers),
                    "hashes": None, "bytes": h.length,
                    "capacity": h.capacity, "target_fpr": h.target_fpr,
                    "inserted": min(h.inserted, I64_MAX)}
        return {"buckets": sum(l.impl.buckets for l in self.layers),
                "slots_per_bucket": 4, "fingerprint_bits": None,
                "bytes": h.length, "capacity": h.capacity,
                "target_fpr": h.target_fpr, "items": h.inserted}

    def _fpr(self, rates):
        acc = 0.0
        for e in rates:
            acc = acc + math.log1p(-e)
        return 0.0 - math.expm1(acc)             # 0.0, not -0.0, when empty

    def stats(self):
        per = [l.impl.stats() for l in self.layers]
        rate = self._fpr([s["estimated_fpr"] for s in per])
        if self.layer_kind == 1:
            bits = sum(l.impl.bits for l in self.layers)
            bits_set = sum(s["bits_set"] for s in per)
            items = 0.0
            for s in per:
                if s["estimated_items"] is None:
                    items = None
                    break
                items = items + s["estimated_items"]
            return {"bits_set": bits_set,
                    "fill_ratio": float(bits_set) / float(bits),
                    "estimated_items": items, "estimated_fpr": rate}
        buckets = sum(l.impl.buckets for l in self.layers)
        return {"load_factor": float(self.header.inserted) /
                (float(buckets) * 4.0), "estimated_fpr": rate}

    def count(self):
        return _rounded_count(self.stats()["estimated_items"])

    def layer_rows(self):
        """What bloom_layers reports: each layer's own info, numbered."""
        rows = []
        for i, l in enumerate(self.layers):
            d = {"layer": i}
            d.update(l.info())
            rows.append(d)
        return rows


class QuotientKind:
    """Kind 4: quotient filter ("Kind 4" in FORMAT.md): blocks of sorted keys,
    each block a 32-bit word (c, M, l), a unary part, then the low parts.

    In the header, bytes 12-13 are block_bytes and bytes 14-15 must be 0
    (Header.hashes holds those 4 bytes as a u32); Header.bits holds blocks
    and Header.inserted holds items.  Every block is checked when the filter
    is read (quotient_info's rule); a probe reads one.
    """

    name = "quotient"

    def __init__(self, h, body):
        bb = h.hashes & 0xFFFF
        if h.hashes >> 16:
            raise FormatError("header bytes 14 and 15 must be 0")
        if not 64 <= bb <= 1024 or bb % 64:
            raise FormatError("block_bytes %d is not a multiple of 64 from 64 "
                              "to 1024" % bb)
        if h.bits < 1 or len(body) != h.bits * bb:   # Python ints cannot wrap
            raise FormatError("blocks %d of %d bytes do not match a %d-byte "
                              "body" % (h.bits, bb, len(body)))
        self.block_bytes = bb
        self.blocks = h.bits
        self.header = h
        self.body = body
        self.shapes = [self.block(b) for b in range(self.blocks)]
        self._keys = {}         # block -> its keys, decoded once

    def block(self, b):
        """(c, M, l, bits) of block b, checked; bits is the block as an
        integer, bit t of it the block's bit t."""
        raw = self.body[b * self.block_bytes:(b + 1) * self.block_bytes]
        x = int.from_bytes(raw, "little")
        word = x & M32
        c, m, l = word & 8191, (word >> 13) & 8191, word >> 26
        if c == 0 and (m or l):
            raise FormatError("block %d: empty with M or l set" % b)
        if c and m == 0 and l:
            raise FormatError("block %d: full with l set" % b)
        if c and m:
            if l > 51 or 32 + c + m + c * l > 8 * self.block_bytes:
                raise FormatError("block %d: c %d, M %d, l %d do not fit"
                                  % (b, c, m, l))
            unary = (x >> 32) & ((1 << (c + m)) - 1)
            if bin(unary).count("1") != c:
                raise FormatError("block %d: the unary part does not hold "
                                  "%d ones" % (b, c))
        return c, m, l, x

    def entries(self, b):
        """[(key, ...)] of a coded block, in order (FORMAT.md's decoding)."""
        c, m, l, x = self.shapes[b]
        keys, q, pos, i = [], 0, 32, 0
        lows = 32 + c + m
        while q < m:
            if x >> pos & 1:
                low = (x >> (lows + i * l)) & ((1 << l) - 1)
                keys.append(q << l | low)
                i += 1
            else:
                q += 1
            pos += 1
        return keys

    def test_hash(self, h1, h2):
        b = (h1 * self.blocks) >> 64
        c, m, l, x = self.shapes[b]
        if c == 0:
            return 0
        if m == 0:
            return 1
        v = m << l
        keys = self._keys.get(b)
        if keys is None:
            keys = self._keys[b] = frozenset(self.entries(b))
        return 1 if (h2 * v) >> 64 in keys else 0

    def header_info(self, h):
        items = h.inserted
        bpi = None if items == 0 else \
            float(h.length - 64) * 8.0 / float(items)
        return {"blocks": self.blocks, "block_bytes": self.block_bytes,
                "bytes": h.length, "capacity": h.capacity,
                "target_fpr": h.target_fpr, "items": items,
                "bits_per_item": bpi}

    def stats(self):
        s, full = 0.0, 0
        for c, m, l, _ in self.shapes:
            if c and m == 0:
                full += 1
            s = s + quotient_block_fpr(c, m << l)
        return {"full_blocks": full, "estimated_fpr": s / float(self.blocks)}


class QuotientLeavesKind:
    """Kind 4, layout 1: quotient leaves ("Kind 4, layout 1" in FORMAT.md).

    Header.hashes holds bytes 12-15 (block_bytes 0, layout 1, byte 15 0),
    Header.bits the number of leaves L, Header.inserted the items.  The body
    is a directory of L (node, end) pairs, then the leaves' records.  Only
    the O(1) checks are made when the filter is read; a probe checks the
    leaf it reads (its directory entry and its record) and stats() checks
    every leaf, as quotient_info does.
    """

    name = "quotient"

    def __init__(self, h, body):
        if h.hashes != 1 << 16:
            raise FormatError("layout 1: block_bytes must be 0 and byte 15 0")
        n = h.bits
        if n < 1 or len(body) // 16 < n:
            raise FormatError("layout 1: %d leaves do not fit a %d-byte body"
                              % (n, len(body)))
        self.header = h
        self.body = body
        self.leaves = n
        self.area = len(body) - 16 * n
        if self.entry(n - 1)[1] != self.area:
            raise FormatError("layout 1: the last end %d is not the records' "
                              "%d bytes" % (self.entry(n - 1)[1], self.area))
        self._records = {}      # leaf -> its decoded sections, checked once

    def entry(self, i):
        """(node, end) of directory entry i, unchecked."""
        return struct.unpack_from("<QQ", self.body, 16 * i)

    @staticmethod
    def node_range(node):
        """(depth, first h1, last h1 + 1) a node owns; refuses a node that
        is no leaf's (0, or deeper than 62)."""
        if node < 1 or node.bit_length() - 1 > 62:
            raise FormatError("node %d is not a node of depth 0 to 62" % node)
        d = node.bit_length() - 1
        p = node - (1 << d)
        return d, p << (64 - d), (p + 1) << (64 - d)

    def find(self, h1):
        """The leaf whose range starts at or below h1, the last such, by
        FORMAT.md's binary search: lo = 0, hi = L; while hi - lo > 1, mid =
        lo + floor((hi - lo) / 2) becomes lo if entry mid starts at or below
        h1, else hi; an entry whose node is 0 or deeper than 62 counts as
        starting past every h1."""
        lo, hi = 0, self.leaves
        while hi - lo > 1:
            mid = lo + (hi - lo) // 2
            node = self.entry(mid)[0]
            valid = node != 0 and node.bit_length() - 1 <= 62
            if valid and self.node_range(node)[1] <= h1:
                lo = mid
            else:
                hi = mid
        return lo

    def bounds(self, i):
        """(depth, record bytes) of leaf i: its node one of depth 0 to 62,
        its bounds in the records area in order."""
        node, end = self.entry(i)
        d = self.node_range(node)[0]
        start = self.entry(i - 1)[1] if i else 0
        if not start <= end <= self.area:
            raise FormatError("leaf %d: bounds %d to %d are not in order in "
                              "the %d-byte area" % (i, start, end, self.area))
        at = 16 * self.leaves
        return d, self.body[at + start:at + end]

    def record(self, i):
        """(depth, [(b, m, Counter of keys)]) of leaf i, every check of "A
        leaf's record" made (quotient_info's)."""
        got = self._records.get(i)
        if got is None:
            d, rec = self.bounds(i)
            heads = leaf_sections(rec, "leaf %d" % i)
            got = self._records[i] = (d, [decode_section(rec, s, "leaf %d" % i)
                                          for s in heads])
        return got

    def test_hash(self, h1, h2):
        """The probe of "Where an item lives" and "Body": the leaf found by
        binary search must own h1, lie in the area in order and be filled
        exactly by its sections; then each section is looked up as "Lookup
        in a section" says, a lookup that runs off its unary part or its
        entries being damage."""
        i = self.find(h1)
        node = self.entry(i)[0]
        _d, first, last = self.node_range(node)
        if not first <= h1 < last:
            raise FormatError("leaf %d (node %d) does not own h1 %#x"
                              % (i, node, h1))
        d, rec = self.bounds(i)
        p = h1 << 64 | h2
        for sec in leaf_sections(rec, "leaf %d" % i):
            b = sec[1]
            if section_lookup(rec, sec, (p >> (128 - d - b)) & ((1 << b) - 1),
                              "leaf %d" % i):
                return 1
        return 0

    def check_all(self):
        """Every leaf, as quotient_info checks them: the nodes cover the
        hash space once, in order; each record is sound."""
        at = 0
        for i in range(self.leaves):
            node = self.entry(i)[0]
            _d, first, last = self.node_range(node)
            if first != at:
                raise FormatError("leaf %d (node %d) starts at %#x, not %#x"
                                  % (i, node, first, at))
            at = last
            self.record(i)
        if at != 1 << 64:
            raise FormatError("the leaves end at %#x, not 2^64" % at)

    def header_info(self, h):
        items = h.inserted
        bpi = None if items == 0 else \
            float(h.length - 64) * 8.0 / float(items)
        return {"blocks": self.leaves, "block_bytes": 0,
                "bytes": h.length, "capacity": h.capacity,
                "target_fpr": h.target_fpr, "items": items,
                "bits_per_item": bpi}

    def stats(self):
        """full_blocks 0; estimated_fpr the sum of 2^-(d+b) over the
        entries, exact then rounded once (FORMAT.md gives no order)."""
        self.check_all()
        total = 0
        for i in range(self.leaves):
            d, sections = self.record(i)
            for b, _m, keys in sections:
                total += sum(keys.values()) << (128 - d - b)
        return {"full_blocks": 0, "estimated_fpr": total / (1 << 128)}

    def leaf_rows(self):
        """[(node, {(b, m): [keys]})] for every leaf, in order (for tests)."""
        self.check_all()
        out = []
        for i in range(self.leaves):
            d, sections = self.record(i)
            out.append((self.entry(i)[0], [(b, m, sorted(k.elements()))
                                           for b, m, k in sections]))
        return out


def leaf_sections(rec, where="record"):
    """[(c, b, m, offset of the section's bits, their number)] of a leaf's
    record ("A leaf's record"): S at most 65, each header's fields in
    range, widths strictly decreasing, and the sections filling the record
    exactly.  The bits themselves are judged by decode_section."""
    if not rec:
        raise FormatError("%s: no byte 0" % where)
    if rec[0] > 65:
        raise FormatError("%s: %d sections, more than 65" % (where, rec[0]))
    at, out, prev = 1, [], 65
    for j in range(rec[0]):
        if at + 3 > len(rec):
            raise FormatError("%s: section %d's header runs past" % (where, j))
        w = int.from_bytes(rec[at:at + 3], "little")
        c, b, m = w & 4095, (w >> 12) & 127, (w >> 19) & 31
        if c < 1 or b > 64 or m > min(b, 16):
            raise FormatError("%s: section %d has c %d, b %d, m %d"
                              % (where, j, c, b, m))
        if b >= prev:
            raise FormatError("%s: section %d's %d bits do not follow %d"
                              % (where, j, b, prev))
        prev = b
        nbits = c + (1 << m) + c * (b - m)
        if at + 3 + (nbits + 7) // 8 > len(rec):
            raise FormatError("%s: section %d runs past" % (where, j))
        out.append((c, b, m, at + 3, nbits))
        at += 3 + (nbits + 7) // 8
    if at != len(rec):
        raise FormatError("%s: %d bytes beyond its sections"
                          % (where, len(rec) - at))
    return out


def _section_bits(rec, sec):
    c, b, m, at, nbits = sec
    return int.from_bytes(rec[at:at + (nbits + 7) // 8], "little")


def decode_section(rec, sec, where="record"):
    """(b, m, Counter of keys) of a section, its unary part (exactly c ones
    and 2^m zeros, none after the last bucket's 0), key order and padding
    checked."""
    from collections import Counter
    c, b, m, _at, nbits = sec
    x = _section_bits(rec, sec)
    l, u = b - m, c + (1 << m)
    if x >> nbits:
        raise FormatError("%s: a section's padding is not 0" % where)
    unary = x & ((1 << u) - 1)
    if bin(unary).count("1") != c:
        raise FormatError("%s: a section's unary part does not hold %d ones "
                          "and %d zeros" % (where, c, 1 << m))
    keys, q, i, last = [], 0, 0, -1
    for pos in range(u):
        if not unary >> pos & 1:
            q += 1
            continue
        if q >= 1 << m:     # a key of high part 2^m: not a b-bit key
            raise FormatError("%s: a section's unary part has a 1 after "
                              "its last bucket's 0" % where)
        key = q << l | (x >> (u + i * l)) & ((1 << l) - 1)
        if key < last:
            raise FormatError("%s: a section's keys are out of order" % where)
        keys.append(key)
        last, i = key, i + 1
    return b, m, Counter(keys)


def section_lookup(rec, sec, key, where="record"):
    """"Lookup in a section": 1 if an entry of high part q has key's low
    part.  A unary part without a q-th 0, or with more ones before it than
    the section's c, is damage."""
    c, b, m, _at, _nbits = sec
    x = _section_bits(rec, sec)
    l, u = b - m, c + (1 << m)
    q, low = key >> l, key & ((1 << l) - 1)
    z, zeros = None, 0
    for pos in range(u):
        if not x >> pos & 1:
            if zeros == q:
                z = pos
                break
            zeros += 1
    if z is None or z - q > c:
        raise FormatError("%s: the unary part has no bucket %d for its %d "
                          "entries" % (where, q, c))
    j = 1
    while j <= z and x >> (z - j) & 1:
        if (x >> (u + (z - q - j) * l)) & ((1 << l) - 1) == low:
            return 1
        j += 1
    return 0


def quotient_kind(h, body):
    """Kind 4: byte 14 (the layout) chooses blocks (0) or leaves (1);
    a later layout is refused."""
    layout = (h.hashes >> 16) & 0xFF
    if layout == 1:
        return QuotientLeavesKind(h, body)
    if layout > 1:
        raise FormatError("kind 4 layout %d is not known" % layout)
    return QuotientKind(h, body)


quotient_kind.name = "quotient"


def quotient_block_fpr(c, v):
    """F(c) of "Rate model": 1 - (1 - 1/V)^c as -expm1(c * log1p(-1/V))."""
    if c == 0:
        return 0.0
    if v <= 1:
        return 1.0
    return -math.expm1(float(c) * math.log1p(-1.0 / float(v)))


def quotient_shape(c, block_bytes):
    """(M, l, V) of "Shape of a block" for c entries; V = 0 when empty or
    full."""
    bits = 8 * block_bytes
    best = (0, 0, 0)
    for l in range(52):
        m = min(8191, bits - 32 - c * (l + 1))
        if c == 0 or m < 1:
            break
        if m << l > best[2]:
            best = (m, l, m << l)
    return best


def quotient_model_fpr(lam, block_bytes):
    """q(lambda) of "Rate model", in FORMAT.md's order."""
    if not lam > 0:
        return 0.0
    if lam > 1e5:
        return 1.0
    big_l = math.log(lam)
    last = lam + 12 * math.sqrt(lam) + 30
    total, lp, i = 0.0, -lam, 0
    while i <= last:
        if i > 0:
            lp = lp + (big_l - math.log(i))
        total = total + math.exp(lp) * quotient_block_fpr(
            i, quotient_shape(i, block_bytes)[2])
        i += 1
    return total


def quotient_block_sizes(p):
    """"Block size": 256 bytes when p >= 2^-8; 256, 320, 384, 448 and 512
    when p >= 2^-16; else 1024."""
    if p >= 2.0 ** -8:
        return [256]
    return [256, 320, 384, 448, 512] if p >= 2.0 ** -16 else [1024]


def quotient_sizing(n, p):
    """(block_bytes, blocks) of "Sizing" for n items at rate p: for each
    block size the fewest blocks, then the smallest blob (the smaller block
    size on a tie)."""
    best = None
    for bb in quotient_block_sizes(p):
        k = _quotient_blocks(n, p, bb, (I64_MAX - 64) // bb)
        if k is not None and (best is None or k * bb < best[0] * best[1]):
            best = (bb, k)
    return best


def _quotient_blocks(n, p, bb, max_blocks):
    target = p * 0.97
    lo, hi = 0, 1
    while not quotient_model_fpr(float(n) / hi, bb) <= target:
        if hi >= max_blocks:
            return None
        lo = hi
        hi = max_blocks if hi > max_blocks // 2 else 2 * hi
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if quotient_model_fpr(float(n) / mid, bb) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def quotient_encode_block(block_bytes, h2s):
    """The bytes of one block holding the entries of the given h2 values
    ("Blocks" and "Shape of a block")."""
    c = len(h2s)
    m, l, v = quotient_shape(c, block_bytes)
    x = min(c, 8191) | m << 13 | l << 26
    if v:
        keys = sorted((h2 * v) >> 64 for h2 in h2s)
        lows = 32 + c + m
        for i, k in enumerate(keys):
            x |= 1 << (32 + (k >> l) + i)
            x |= (k & ((1 << l) - 1)) << (lows + i * l)
    return x.to_bytes(block_bytes, "little")


def quotient_build(values, n, p):
    """The blob quotient_build(value, n, p) makes of the values (NULLs
    skipped; one entry per distinct (type code, length, hash), as
    "quotient_build" says), by FORMAT.md alone."""
    distinct = {}
    for v in values:
        enc = encode_value(v)
        if enc is None:
            continue
        h = hash_value(v)
        distinct[(h, enc[0], len(enc[1]))] = h
    if len(distinct) > n:
        raise ValueError("capacity exceeded")
    bb, nblocks = quotient_sizing(n, p)
    groups = {}
    for h1, h2 in distinct.values():
        groups.setdefault((h1 * nblocks) >> 64, []).append(h2)
    body = b"".join(quotient_encode_block(bb, groups.get(b, []))
                    for b in range(nblocks))
    return HEADER.pack(MAGIC, 1, 4, 1, 0, 0, bb, nblocks, n, p,
                       len(distinct), bytes(16)) + body


def layered_blob(layers, growth=2, tightening=0.5, target_fpr=0.01):
    """A kind-3 blob of the given layer blobs, oldest first (FORMAT.md,
    "Kind 3"): layer kind and seed from layer 0, capacity and count the
    sums (saturating), the directory, the layers."""
    hs = [Header(bytes(b)) for b in layers]
    capacity = min(sum(h.capacity for h in hs), I64_MAX)
    count = min(sum(h.inserted for h in hs), M64)
    t_bits = struct.unpack("<Q", struct.pack("<d", tightening))[0]
    head = HEADER.pack(MAGIC, 1, 3, 1, 0, hs[0].seed,
                       hs[0].kind | len(layers) << 8 | growth << 16, t_bits,
                       capacity, target_fpr, count, bytes(16))
    directory = struct.pack("<%dQ" % len(layers), *[len(b) for b in layers])
    directory += bytes(-len(directory) % 64)       # padded to 64 bytes
    return head + directory + b"".join(bytes(b) for b in layers)


# kind byte -> class; a kind not here is rejected as unknown
KINDS = {1: BloomKind, 2: CuckooKind, 3: LayeredKind, 4: quotient_kind}


class Filter:
    def __init__(self, blob):
        if not isinstance(blob, (bytes, bytearray, memoryview)):
            raise FormatError("a filter is a BLOB")
        blob = bytes(blob)
        self.header = Header(blob)
        self.impl = KINDS[self.header.kind](self.header, blob[64:])

    def hash(self, v):
        return hash_value(v, self.header.seed)

    def test(self, v):
        """1 (maybe present), 0 (certainly absent), None for a NULL probe."""
        h = self.hash(v)
        if h is None:
            return None
        return self.impl.test_hash(*h)

    def add(self, v):
        """Adds a value in place (to craft test vectors); NULL is not added.
        The counter follows "Counters and the header of a result"."""
        h = self.hash(v)
        if h is not None:
            self.impl.add_hash(*h)
            self.header.inserted = self.impl.count_added(self.header.inserted, 1)

    def count(self):
        """What bloom_count(blob) reports (kind 1)."""
        return self.impl.count()

    def to_bytes(self):
        h = self.header
        return HEADER.pack(MAGIC, h.version, h.kind, h.hash, h.flags, h.seed,
                           h.hashes, h.bits, h.capacity, h.target_fpr,
                           h.inserted, bytes(16)) + self.impl.body

    def info(self):
        h = self.header
        d = {"kind": self.impl.name, "version": h.version,
             "hash": HASH_NAMES[h.hash]}
        d.update(self.impl.header_info(h))
        d.update(self.impl.stats())
        return d


# --- Results of the functions that return a filter ("Counters and the header
# of a result"); each returns the blob the function must return -------------

def bloom_add(blob, *values):
    f = Filter(blob)
    for v in values:
        f.add(v)
    return f.to_bytes()


def _combine(a, b, body_op, counter):
    fa, fb = Filter(a), Filter(b)
    ha, hb = fa.header, fb.header
    for field in ("version", "kind", "hash", "seed", "bits", "hashes"):
        if getattr(ha, field) != getattr(hb, field):
            raise ValueError("the filters differ in %s" % field)
    ha.capacity = max(ha.capacity, hb.capacity)
    ha.target_fpr = max(ha.target_fpr, hb.target_fpr)
    ha.inserted = counter(ha.inserted, hb.inserted)
    fa.impl.body = bytes(body_op(x, y) for x, y in zip(fa.impl.body, fb.impl.body))
    return fa.to_bytes()


def bloom_union(a, b):
    return _combine(a, b, lambda x, y: x | y, lambda p, q: min(p + q, M64))


def bloom_intersect(a, b):
    return _combine(a, b, lambda x, y: x & y, min)


def bloom_merge(blobs):
    acc = None
    for b in blobs:
        if b is not None:
            acc = bytes(b) if acc is None else bloom_union(acc, b)
    return acc


def _relayer(f, layers):
    h = f.header
    return layered_blob([l.to_bytes() for l in layers], f.impl.growth,
                        f.impl.tightening, h.target_fpr)


def layered_add(blob, *values):
    """bloom_add on a layered filter: the values go to the newest layer."""
    f = Filter(blob)
    for v in values:
        f.impl.layers[-1].add(v)
    return _relayer(f, f.impl.layers)


def cuckoo_delete(blob, v):
    f = Filter(blob)
    if f.header.kind == 3:
        # one copy leaves the one layer that holds the fingerprint; when
        # several do, one may hold another value's copy: nothing changes
        h = f.hash(v)
        holders = [layer for layer in f.impl.layers
                   if h is not None and layer.impl.test_hash(*h)]
        if len(holders) != 1:
            return bytes(blob)
        holders[0].impl.remove_hash(*h)
        holders[0].header.inserted = max(holders[0].header.inserted - 1, 0)
        return _relayer(f, f.impl.layers)
    h = f.hash(v)
    if h is None or not f.impl.remove_hash(*h):
        return bytes(blob)
    f.header.inserted = max(f.header.inserted - 1, 0)
    return f.to_bytes()


# --- Sizing of this version ("not part of the format") ----------------------

LN2 = 0.6931471805599453


def _block_rate(c1, c2, k):
    m = 1.0 - c1
    if not m > 0.0:
        return 0.0
    v = ((261632.0 * c2 + 512.0 * c1) - (262144.0 * c1) * c1) / 262144.0
    if v < 0.0:
        v = 0.0
    return pow_k(m, k) * (1.0 + (((float(k) * (float(k) - 1.0)) / 2.0) * v) / (m * m))


def bloom_model_fpr(lam, k):
    """f(lambda, k) of "How this version chooses bits and hashes"."""
    if not lam > 0.0:
        return 0.0
    if lam > 1e5:
        return 1.0
    k1 = pow_k(1.0 - 1.0 / 512.0, k)
    k2 = pow_k(1.0 - 2.0 / 512.0, k)
    big_l = math.log(lam)
    last = lam + 12.0 * math.sqrt(lam) + 30.0
    total, lp, c1, c2 = 0.0, -lam, 1.0, 1.0
    i = 0.0
    while i <= last:
        if i > 0.0:
            lp = lp + (big_l - math.log(i))
            c1 = c1 * k1
            c2 = c2 * k2
        total = total + math.exp(lp) * min(1.0, _block_rate(c1, c2, k))
        i += 1.0
    return total


def _best(lam):
    g = 512.0 / lam * LN2
    k = 1 if g < 1.0 else 64 if g > 64.0 else int(math.floor(g + 0.5))
    r = bloom_model_fpr(lam, k)
    while k > 1:
        d = bloom_model_fpr(lam, k - 1)
        if not d < r:
            break
        k, r = k - 1, d
    while k < 64:
        u = bloom_model_fpr(lam, k + 1)
        if not u < r:
            break
        k, r = k + 1, u
    return k, r


def bloom_plan(n, p, max_blocks=((1 << 63) - 1) // 8 // 64):
    """(bits, hashes, expected_fpr) for n, p, or None when too big; the
    default max_blocks is bloom_plan's."""
    dn = float(n)
    target = p * 0.97
    classic = math.ceil(-dn * math.log(p) / (LN2 * LN2))
    lo = math.floor(classic / 512.0)
    if lo > max_blocks or max_blocks < 1:
        return None
    lo = max(1, int(lo))
    k, rate = _best(dn / float(lo))
    hi = lo
    if not rate <= target:
        while True:
            if hi >= max_blocks:
                return None
            lo = hi
            hi = max_blocks if hi > max_blocks // 2 else 2 * hi
            k, rate = _best(dn / float(hi))
            if rate <= target:
                break
        while hi - lo > 1:
            mid = lo + (hi - lo) // 2
            km, rm = _best(dn / float(mid))
            if rm <= target:
                hi, k, rate = mid, km, rm
            else:
                lo = mid
    for j in range(1, k):
        r = bloom_model_fpr(dn / float(hi), j)
        if r <= target:
            k, rate = j, r
            break
    return 512 * hi, k, rate


def cuckoo_fpr(load, f, buckets):
    """fpr(load) as cuckoo_info evaluates it: -expm1(e * log1p(-q))."""
    if not load > 0.0:
        return 0.0
    e = (4.0 if buckets == 1 else 8.0) * load
    q = 1.0 / (math.ldexp(1.0, f) - 1.0)
    return -math.expm1(e * math.log1p(-q))


def cuckoo_items(b, layout=1):
    """floor(4B * L): the most items "Sizing" puts in b buckets, with the
    square-root term's 2.6 (layout 1) or 2 (layout 0, version 1.1.0)."""
    s = 4.0 * b
    lf = 0.95
    c = 2.6 if layout == 1 else 2.0
    if b > 2 and 1.0 - c / math.sqrt(s) < lf:
        lf = 1.0 - c / math.sqrt(s)
    return math.floor(s * lf)


def cuckoo_sizing(n, p, layout=1):
    """(buckets, fingerprint_bits) of "Sizing" for n items at rate p: 2 for
    n <= 7, else the smallest even B from 4 (layout 1, by bisection: the
    capacity never decreases over even B from 4), or the smallest power of
    two (layout 0, as version 1.1.0 sized)."""
    if layout == 1:
        lo, hi = 1, 1 << 60                     # B = 2 * hi
        if n <= cuckoo_items(2):
            hi = 1                              # B = 2 holds 7
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if n <= cuckoo_items(2 * mid):
                hi = mid
            else:
                lo = mid
        b = 2 * hi
    else:
        b = 1
        while n > cuckoo_items(b, 0):
            b *= 2
    load = float(n) / (4.0 * float(b))
    for f in range(4, 65):
        if cuckoo_fpr(load, f, b) <= p * 0.97:
            return b, f
    return None


# --- Stores ("Stores: a filter in shadow tables", "Kind 1") ----------------------

STORE_KEYS = {
    1: ("kind", "version", "capacity", "fpr", "bits", "hashes", "seed",
        "chunk_blocks"),
    2: ("kind", "version", "capacity", "fpr", "buckets", "fingerprint_bits",
        "seed", "chunk_buckets"),
    4: ("kind", "version", "capacity", "fpr", "seed", "leaf_items",
        "leaf_bytes", "base_depth", "sized", "row_reserve"),
}


SHAPE_KEYS = {1: ("bits", "hashes", "chunk_blocks"),
               2: ("buckets", "fingerprint_bits", "chunk_buckets")}
OPTIONAL_KEYS = {1: (), 2: ("layout",),
                 4: ("narrow_leaves", "rows_by_range", "narrow_below")}  # missing: 0
SCHEDULE_KEYS = ("growth", "tightening", "layers")


def _store_filter(rows, kind, seed, shape_keys, capacity, fpr, first, lazy):
    """One filter of a store: the kind-1 or kind-2 blob of the chunk rows
    `first` .. `first + C - 1` (rows: {id: data}), its shape read from
    shape_keys (a dict of the layout's keys).  A missing row is damage,
    unless `lazy` (a layer of a scalable store), where it is zeros.
    Returns (blob, C)."""
    if any(not isinstance(shape_keys.get(k), int) for k in SHAPE_KEYS[kind]):
        raise FormatError("configuration lacks or mistypes %s" % (SHAPE_KEYS[kind],))
    if kind == 1:
        bits, hashes, per = (shape_keys["bits"], shape_keys["hashes"],
                             shape_keys["chunk_blocks"])
        if bits <= 0 or bits % 512 or not 1 <= hashes <= 64 or per < 1:
            raise FormatError("configuration out of range: %r" % (shape_keys,))
        units, tail = bits // 512, 8               # blocks; a counter per row
        unit_bytes = lambda n: 64 * n
        shape = (hashes, bits)
    else:
        buckets, f, per = (shape_keys["buckets"], shape_keys["fingerprint_bits"],
                           shape_keys["chunk_buckets"])
        layout = shape_keys.get("layout", 0)       # no row: layout 0
        if (not isinstance(layout, int) or layout not in (0, 1)
                or buckets < 1 or buckets > (1 << 56)
                or (layout == 0 and buckets & (buckets - 1))
                or (layout == 1 and buckets % 2)
                or not 4 <= f <= 64 or per < 2 or per % 2):
            raise FormatError("configuration out of range: %r" % (shape_keys,))
        units, tail = buckets, 0                   # buckets; no counter
        unit_bytes = lambda n: (n * 4 * f + 7) // 8
        shape = (f | 4 << 8 | layout << 16, buckets)
    chunks = -(-units // per)
    body = bytearray()
    count = 0
    for j in range(chunks):
        held = unit_bytes(min(per, units - j * per))
        data = rows.get(first + j)
        if data is None:
            if not lazy:
                raise FormatError("chunk %d is missing" % (first + j))
            data = bytes(held + tail)
        if not isinstance(data, bytes) or len(data) != held + tail:
            raise FormatError("chunk %d is not %d bytes" % (first + j, held + tail))
        body += data[:held]
        if kind == 1:
            count = min(count + struct.unpack_from("<Q", data, held)[0],
                        (1 << 64) - 1)
    if kind == 2:   # items: the occupied slots
        bits_all = int.from_bytes(bytes(body), "little")
        mask = (1 << f) - 1
        count = sum(1 for j in range(units * 4) if (bits_all >> (j * f)) & mask)
    header = HEADER.pack(MAGIC, 1, kind, 1, 0, seed, shape[0], shape[1],
                         capacity, float(fpr), count, bytes(16))
    return header + bytes(body), chunks


AFFINITIES = ("BLOB", "TEXT", "NUMERIC", "INTEGER", "REAL")


def _store_key_class(key, kind, scalable):
    """The storage class ("Reading a store") of a configuration key a store
    of this kind and schedule writes, or None for a key it does not."""
    reals = ("fpr", "tightening")
    if key in ("kind", "version", "capacity", "seed", "fpr", "affinity",
               "deletes"):
        return {"fpr": float, "affinity": str}.get(key, int)
    if scalable and key in SCHEDULE_KEYS:
        return float if key in reals else int
    shape = SHAPE_KEYS.get(kind, ()) + OPTIONAL_KEYS.get(kind, ())
    if not scalable:
        return int if key in shape else None
    parts = key.split(".", 2)
    if (len(parts) != 3 or parts[0] != "layer" or not parts[1].isdigit()
            or (parts[1] != "0" and parts[1][0] == "0") or int(parts[1]) >= 64):
        return None
    if parts[2] in ("capacity", "fpr") or parts[2] in shape:
        return float if parts[2] == "fpr" else int
    return None


def _check_deletes(config):
    """The row `deletes` ("Reading a store"): only 0, only in a store of a
    kind that deletes (cuckoo, quotient)."""
    if "deletes" in config and (type(config["deletes"]) is not int
                                or config["deletes"] != 0
                                or config.get("kind") not in (2, 4)):
        raise FormatError("configuration deletes %r in a store of kind %r"
                          % (config["deletes"], config.get("kind")))


def _check_store_keys(config):
    """Refuses a key the store would not write, a value of another storage
    class than its key's, and an affinity other than the five names."""
    kind = config.get("kind")
    scalable = any(k in config for k in SCHEDULE_KEYS)
    for key, value in config.items():
        want = _store_key_class(key, kind, scalable) if isinstance(key, str) \
            else None
        if want is None:
            raise FormatError("configuration key %r is not a store's" % (key,))
        layers = config.get("layers")
        if (key.startswith("layer.") and isinstance(layers, int)
                and int(key.split(".")[1]) >= layers):
            continue  # a layer past the count: ignored, whatever it holds
        if type(value) is not want:
            raise FormatError("configuration %s is %r, not of its storage "
                              "class" % (key, value))
    if config.get("affinity", "BLOB") not in AFFINITIES:
        raise FormatError("affinity %r is not one of %s"
                          % (config["affinity"], AFFINITIES))
    _check_deletes(config)


WINDOW_KEYS = ("window", "generations", "clock", "time", "adaptive")
SLOT_CHUNKS = 1 << 40


def _index(text):
    """A decimal index as a store spells it (no sign, space or leading
    zero), below 64, or None."""
    if not text.isdigit() or (text != "0" and text[0] == "0") or int(text) >= 64:
        return None
    return int(text)


def _window_slots(config, kind, g):
    """The gen.<k>.* rows of a windowed store, their keys' spelling checked
    (k <= G, j < 64, a key of the layer's table): {k: {key: value}} with
    the layers' keys under ("layer", j).  Values are not judged here: only
    the rows a reader uses are (_read_windowed)."""
    layout = SHAPE_KEYS[kind] + OPTIONAL_KEYS[kind]
    slots = {}
    for key, value in config.items():
        if key in WINDOW_KEYS or key in ("kind", "version", "capacity", "seed",
                                         "fpr", "affinity", "deletes"):
            continue
        parts = key.split(".")
        k = _index(parts[1]) if len(parts) >= 3 and parts[0] == "gen" else None
        if k is None or k > g:
            raise FormatError("configuration key %r is not a windowed store's"
                              % (key,))
        d = slots.setdefault(k, {})
        if len(parts) == 3 and parts[2] in ("number", "layers"):
            d[parts[2]] = value
        elif (len(parts) == 5 and parts[2] == "layer"
              and _index(parts[3]) is not None
              and (parts[4] in ("capacity", "fpr") or parts[4] in layout)):
            d.setdefault(("layer", int(parts[3])), {})[parts[4]] = value
        else:
            raise FormatError("configuration key %r is not a windowed store's"
                              % (key,))
    return slots


def _read_windowed(config, rows, kind):
    """A windowed store ("Windowed stores"): the layered blob of its live
    generations at the store's time `time`, or None when none is live (the
    export is then an empty layer whose shape this version chooses).  Rows
    of a slot without its number, of an expired generation and of a layer
    past its generation's count are ignored whatever their values."""
    for key in WINDOW_KEYS:
        want = str if key == "clock" else int
        if type(config.get(key)) is not want:
            raise FormatError("configuration %s is missing or not of its "
                              "storage class" % key)
    w, g, t, adaptive = (config["window"], config["generations"],
                         config["time"], config["adaptive"])
    if (not 1 <= w <= 1 << 32 or not 1 <= g <= 32 or t < 0
            or adaptive not in (0, 1) or config["clock"] not in ("wall", "events")
            or any(k in config for k in SCHEDULE_KEYS + SHAPE_KEYS[kind]
                   + OPTIONAL_KEYS[kind])):
        raise FormatError("window configuration out of range: %r" % (config,))
    span = -(-w // g)
    if t % span or t > 1 << 62:
        raise FormatError("time %d is not the start of a generation, up to "
                          "2^62" % t)
    newest = t // span
    live, expired = [], []
    for k, d in _window_slots(config, kind, g).items():
        if "number" not in d:
            continue    # a generation being made by a write that failed
        n = d["number"]
        if type(n) is not int or n < 0 or n % (g + 1) != k or n > newest:
            raise FormatError("slot %d: generation %r out of range" % (k, n))
        if n < newest - g:
            expired.append(k)   # its rows: ignored, deleted by the next write
            continue
        layers = d.get("layers")
        if type(layers) is not int or not 1 <= layers <= 64:
            raise FormatError("slot %d: layers %r out of range" % (k, layers))
        live.append((n, k, layers, d))
    blobs, allowed = [], [(k * SLOT_CHUNKS, (k + 1) * SLOT_CHUNKS)
                          for k in expired]
    for n, k, layers, d in sorted(live):
        first = k * SLOT_CHUNKS
        for j in range(layers):
            keys = d.get(("layer", j), {})
            cap, rate = keys.get("capacity"), keys.get("fpr")
            if (type(cap) is not int or not 1 <= cap <= (1 << 63) - 1
                    or type(rate) is not float or not 0 < rate < 1):
                raise FormatError("slot %d layer %d: capacity or fpr missing "
                                  "or out of range" % (k, j))
            if any(type(keys.get(key, 0)) is not int
                   for key in SHAPE_KEYS[kind] + OPTIONAL_KEYS[kind]):
                raise FormatError("slot %d layer %d: a key not of its "
                                  "storage class" % (k, j))
            blob, chunks = _store_filter(rows, kind, config["seed"], keys, cap,
                                         rate, first, True)
            blobs.append(blob)
            first += chunks
        if first > (k + 1) * SLOT_CHUNKS:
            raise FormatError("slot %d overflows its chunk ids" % k)
        allowed.append((k * SLOT_CHUNKS, first))
    if len(blobs) > 64:
        raise FormatError("%d live layers, more than 64" % len(blobs))
    outside = [cid for cid in rows
               if not any(lo <= cid < hi for lo, hi in allowed)]
    if outside:
        raise FormatError("chunk %d is outside its layers" % outside[0])
    if not blobs:
        return None
    return layered_blob(blobs, 2, 0.5, float(config["fpr"]))


def read_store(conn, name):
    """The blob a bloom_store or cuckoo_store named `name` holds, reassembled
    from its shadow tables alone (conn needs no extension): for a scalable
    store, the layered (kind 3) blob of its layers; for a windowed store,
    that of its live generations (_read_windowed).  Raises FormatError for a
    store FORMAT.md says to refuse."""
    q = lambda s: '"' + s.replace('"', '""') + '"'
    config = dict(conn.execute("SELECT key, value FROM %s" % q(name + "_config")))
    if config.get("kind") == 4:
        return _read_quotient_store(conn, name, config)
    if "window" not in config:
        _check_store_keys(config)
    kind = config.get("kind")
    if kind not in STORE_KEYS:
        raise FormatError("configuration lacks a known kind: %r" % (kind,))
    common = ("kind", "version", "capacity", "fpr", "seed")
    missing = [k for k in common if k not in config]
    if missing:
        raise FormatError("configuration lacks %s" % ", ".join(missing))
    if any(not isinstance(config[k], int) for k in common if k != "fpr") \
            or not isinstance(config["fpr"], (int, float)):
        raise FormatError("configuration values of the wrong type")
    if (config["version"] != 1 or not 1 <= config["capacity"] <= (1 << 63) - 1
            or not 0.0 < config["fpr"] < 1.0
            or not 0 <= config["seed"] < (1 << 32)):
        raise FormatError("configuration out of range: %r" % (config,))
    rows = {}
    for cid, data in conn.execute("SELECT id, data FROM %s ORDER BY id"
                                  % q(name + "_chunks")):
        rows[cid] = data
    if "window" in config:
        if config.get("affinity", "BLOB") not in AFFINITIES:
            raise FormatError("affinity %r is not one of %s"
                              % (config["affinity"], AFFINITIES))
        _check_deletes(config)
        return _read_windowed(config, rows, kind)
    scalable = [k for k in SCHEDULE_KEYS if k in config]
    if not scalable:
        blob, chunks = _store_filter(rows, kind, config["seed"], config,
                                     config["capacity"], config["fpr"], 0, False)
        outside = [cid for cid in rows if not 0 <= cid < chunks]
        if outside:
            raise FormatError("chunk %d is outside its layers" % outside[0])
        return blob
    if len(scalable) != 3:
        raise FormatError("configuration has %s but not all of %s"
                          % (scalable, SCHEDULE_KEYS))
    growth, tightening, layers = (config["growth"], config["tightening"],
                                  config["layers"])
    if (not isinstance(growth, int) or not 1 <= growth <= 65535
            or not isinstance(tightening, (int, float)) or not 0 < tightening < 1
            or not isinstance(layers, int) or not 1 <= layers <= 64):
        raise FormatError("schedule out of range: %r" % (config,))
    blobs, first = [], 0
    for i in range(layers):
        keys = {k[len("layer.%d." % i):]: v for k, v in config.items()
                if k.startswith("layer.%d." % i)}
        cap, rate = keys.get("capacity"), keys.get("fpr")
        if (not isinstance(cap, int) or not 1 <= cap <= (1 << 63) - 1
                or not isinstance(rate, (int, float)) or not 0 < rate < 1):
            raise FormatError("layer %d: capacity or fpr missing or out of "
                              "range" % i)
        blob, chunks = _store_filter(rows, kind, config["seed"], keys, cap,
                                     rate, first, True)
        blobs.append(blob)
        first += chunks
    outside = [cid for cid in rows if not 0 <= cid < first]
    if outside:
        raise FormatError("chunk %d is outside its layers" % outside[0])
    return layered_blob(blobs, growth, tightening, float(config["fpr"]))


# --- Kind 4: quotient_store ("Stores" -> "Kind 4: quotient_store") ---------

QUOTIENT_STORE_RANGES = {"leaf_items": (1, 4094), "leaf_bytes": (64, 65536),
                         "base_depth": (0, 40), "sized": (0, 1)}


def quotient_first_bits(capacity, fpr, base):
    """Generation 0's width in a store with capacity ("Widths")."""
    m = capacity / 2.0 ** base
    t = -math.log2(15 / 16 / (1 + 3 / math.sqrt(m)))
    b = math.ceil(math.log2(m) - math.log2(fpr) + t)
    return max(1, min(b, 64, 128 - base))


def quotient_narrow_most(capacity, fpr, base):
    """The largest K below 2^D with W0 (2^D + K) <= 15/16 p 2^(D + b)
    ("Widths"); 0 when b < 2 or none fits."""
    b = quotient_first_bits(capacity, fpr, base)
    if b < 2:
        return 0
    m = capacity / 2.0 ** base
    w0 = m + 3 * math.sqrt(m)
    bound = 15 / 16 * fpr * 2.0 ** (base + b)
    k = min(2 ** base - 1, max(0, math.floor(bound / w0 - 2 ** base)))
    while k > 0 and w0 * (2 ** base + k) > bound:
        k -= 1
    return k


def quotient_narrow_below_most(leaf_items, fpr):
    """The largest narrow_below a store without capacity may have
    ("Widths"): f = (r * 31/32 - 26) / 23, r = p * 2^b / W, b = ceil(log2 W
    - log2 p + 5), W = (E + 1) / 2; 0 when b < 2 or f <= 0, 2^62 when f >=
    1, else floor(f * 2^20) * 2^42."""
    w = (leaf_items + 1) / 2
    b = max(1, min(math.ceil(math.log2(w) - math.log2(fpr) + 5), 64))
    if b < 2:
        return 0
    f = (fpr * 2.0 ** b / w * (31 / 32) - 26) / 23
    if not f > 0:
        return 0
    if f >= 1:
        return 2 ** 62
    return math.floor(f * 2.0 ** 20) * 2 ** 42


def _read_quotient_store(conn, name, config):
    """The layout-1 blob a quotient_store holds, from its three tables: the
    configuration's rows and classes, the directory (chunks 0 .. L - 1, no
    gap, nodes of depth base_depth to 62 covering the hash space once),
    each leaf's row (at id = its chunk, or with rows_by_range = 1 at id =
    p * 2^(62 - d) for its node 2^d + p) a sound record then zero bytes, 1
    to leaf_bytes bytes in all, a leaf without a row empty; the leaves in
    the order of their ranges, each record without the zeros after it,
    items their entries."""
    q = lambda s: '"' + s.replace('"', '""') + '"'
    for key, value in config.items():
        want = {"fpr": float, "affinity": str}.get(key, int)
        if key not in STORE_KEYS[4] + OPTIONAL_KEYS[4] + ("affinity",
                                                          "deletes"):
            raise FormatError("configuration key %r is not a quotient "
                              "store's" % (key,))
        if type(value) is not want:
            raise FormatError("configuration %s is %r, not of its storage "
                              "class" % (key, value))
    missing = [k for k in STORE_KEYS[4] if k not in config]
    if missing:
        raise FormatError("configuration lacks %s" % ", ".join(missing))
    if config.get("affinity", "BLOB") not in AFFINITIES:
        raise FormatError("affinity %r is not one of %s"
                          % (config["affinity"], AFFINITIES))
    _check_deletes(config)
    for key, (lo, hi) in QUOTIENT_STORE_RANGES.items():
        if not lo <= config[key] <= hi:
            raise FormatError("configuration %s %d out of range" % (key, config[key]))
    if (config["version"] != 1 or not 1 <= config["capacity"] <= I64_MAX
            or not 0.0 < config["fpr"] < 1.0
            or not 0 <= config["seed"] <= M32
            or not 0 <= config["row_reserve"] <= config["leaf_bytes"]):
        raise FormatError("configuration out of range: %r" % (config,))
    base = config["base_depth"]
    narrow = config.get("narrow_leaves", 0)
    if narrow != 0 and (config["sized"] != 1 or narrow < 0 or narrow > (
            quotient_narrow_most(config["capacity"], config["fpr"], base))):
        raise FormatError("narrow_leaves %d is more than the rate allows"
                          % narrow)
    below = config.get("narrow_below", 0)
    if below != 0 and (config["sized"] != 0 or below < 0 or below > (
            quotient_narrow_below_most(config["leaf_items"], config["fpr"]))):
        raise FormatError("narrow_below %d is more than the rate allows"
                          % below)
    by_range = config.get("rows_by_range", 0)
    if by_range not in (0, 1):
        raise FormatError("rows_by_range %d is not 0 or 1" % by_range)
    nodes = []
    for i, (chunk, node) in enumerate(conn.execute(
            "SELECT chunk, node FROM %s ORDER BY chunk" % q(name + "_directory"))):
        if chunk != i or type(node) is not int or node < 1:
            raise FormatError("directory row %d: chunk %r, node %r" % (i, chunk, node))
        d = node.bit_length() - 1
        if not base <= d <= 62:
            raise FormatError("directory: node %d's depth %d is not %d to 62"
                              % (node, d, base))
        nodes.append(node)
    if not nodes:
        raise FormatError("the directory is empty")
    order = sorted(range(len(nodes)),
                   key=lambda i: QuotientLeavesKind.node_range(nodes[i])[1])
    at = 0
    for i in order:
        _d, first, last = QuotientLeavesKind.node_range(nodes[i])
        if first != at:
            raise FormatError("node %d leaves a gap or overlaps" % nodes[i])
        at = last
    if at != 1 << 64:
        raise FormatError("the nodes do not reach the end of the hash space")
    rows = {}
    for cid, data, cls in conn.execute("SELECT id, CAST(data AS BLOB), "
                                       "typeof(data) FROM %s" % q(name + "_chunks")):
        if cls != "blob":
            raise FormatError("chunk %r is a %s, not a BLOB" % (cid, cls))
        rows[cid] = data
    def row_id(i):
        if not by_range:
            return i
        d = nodes[i].bit_length() - 1
        return (nodes[i] - (1 << d)) << (62 - d)
    ids = {row_id(i) for i in range(len(nodes))}
    outside = [cid for cid in rows if cid not in ids]
    if outside:
        raise FormatError("chunk row %r is no leaf's" % outside[0])
    records, items = [], 0
    for i in order:
        data = rows.get(row_id(i), b"\x00")
        if type(data) is not bytes or not 1 <= len(data) <= config["leaf_bytes"]:
            raise FormatError("chunk %d: %r is not 1 to %d bytes"
                              % (i, data, config["leaf_bytes"]))
        heads = _record_heads(data, "chunk %d" % i)
        used = heads[-1][3] + (heads[-1][4] + 7) // 8 if heads else 1
        if any(data[used:]):
            raise FormatError("chunk %d: bytes after its record are not zero" % i)
        rec = data[:used]
        for sec in heads:
            decode_section(rec, sec, "chunk %d" % i)
            items += sec[0]
        records.append((nodes[i], rec))
    return leaves_blob(records, config["capacity"], config["fpr"],
                       config["seed"], items)


def _record_heads(data, where):
    """The sections of the record at the start of data, which may be
    followed by other bytes (a chunk row's zeros)."""
    if not data:
        raise FormatError("%s: no byte 0" % where)
    at, s = 1, data[0]
    for _ in range(s if s <= 65 else 0):
        if at + 3 > len(data):
            break
        w = int.from_bytes(data[at:at + 3], "little")
        c, b, m = w & 4095, (w >> 12) & 127, (w >> 19) & 31
        if m > b:
            break
        at += 3 + (c + (1 << m) + c * (b - m) + 7) // 8
    return leaf_sections(data[:at], where)


def leaves_blob(records, capacity, fpr, seed, items):
    """A layout-1 blob ("Kind 4, layout 1"): records [(node, record bytes)]
    in the order of their ranges."""
    directory, area, end = b"", b"", 0
    for node, rec in records:
        end += len(rec)
        directory += struct.pack("<QQ", node, end)
        area += rec
    return HEADER.pack(MAGIC, 1, 4, 1, 0, seed, 1 << 16, len(records),
                       capacity, float(fpr), items, bytes(16)) + directory + area


def encode_leaf_record(sections):
    """A leaf's record from [(b, m, keys)], widest first, keys sorted: the
    bytes "A leaf's record" gives (m is the writer's choice)."""
    out = bytearray([len(sections)])
    for b, m, keys in sections:
        keys = sorted(keys)
        c, l = len(keys), b - m
        out += (c | b << 12 | m << 19).to_bytes(3, "little")
        x, pos, q = 0, 0, 0
        for k in keys:
            while q < k >> l:
                pos, q = pos + 1, q + 1       # a 0 bit closes bucket q
            x |= 1 << pos
            pos += 1
        u = c + (1 << m)
        for i, k in enumerate(keys):
            x |= (k & ((1 << l) - 1)) << (u + i * l)
        out += x.to_bytes((u + c * l + 7) // 8, "little")
    return bytes(out)
