"""Deterministic probe values of every SQL storage class.

A probe is (kind, value): kind 'value' with a Python value that sqlite3 binds
as INTEGER, REAL, TEXT, BLOB or NULL; or kind 'key' with a tuple of parts
that stands for bloom_key(*parts).  The first probes are the edge cases,
then a seeded random mix, so the same n always gives the same list.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import math
import random
import struct

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

EDGE_VALUES = [
    # INTEGER, including the extremes and the neighbours of 2^53
    0, 1, -1, 42, -42, 255, 256, 65535, 1 << 31, -(1 << 31), (1 << 32) + 7,
    (1 << 53) - 1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1,
    I64_MIN, I64_MIN + 1, I64_MAX, I64_MAX - 1,
    # REAL with an integral value: hashed as the INTEGER
    0.0, -0.0, 1.0, -1.0, 42.0, 255.0, 2.0 ** 53, -(2.0 ** 53), 1e15,
    -(2.0 ** 63), 2.0 ** 62, 9007199254740993.0,
    # REAL outside the INTEGER range or not integral: hashed as binary64
    2.0 ** 63, -(2.0 ** 64), 1e300, -1e300, float("inf"), float("-inf"),
    0.5, -0.5, 1.5, 0.1, 42.5, -42.000001, 5e-324, -5e-324,
    2.2250738585072014e-308, 1.7976931348623157e308, math.pi, -math.e,
    # TEXT: empty, ASCII, digits, non-ASCII, embedded NUL, longer than a block
    "", "a", "abc", "abd", "42", "42.0", "-0", " ", "\t\n", "é", "e\u0301",
    "日本語", "Ελληνικά", "\U0001F642", "a\x00b", "\x00",
    "x" * 15, "x" * 16, "x" * 17, "y" * 31, "y" * 32, "y" * 33, "z" * 1000,
    # BLOB: empty, one byte, the bytes of some TEXT and INTEGER probes
    b"", b"\x00", b"\xff", b"42", b"abc", b"\x2a\x00\x00\x00\x00\x00\x00\x00",
    b"\x00" * 16, b"\xff" * 17, bytes(range(256)),
    # NULL
    None,
]

EDGE_KEYS = [
    ("ab", "c"), ("a", "bc"), (42, "x"), (42.0, "x"), (-0.0,), (0,),
    ("acme", 17), ("acme", 17.0), ("acme", b"17"), ("acme", "17"),
    ("",), (b"",), ("", ""), (b"", b""), (1.5, "é"), (I64_MIN, I64_MAX),
    (2.0 ** 63,), (float("inf"), float("-inf")), ("日本", b"\x00", 7),
    (7, None), (None,), ("tenant", None, 3),
]


def random_value(rng):
    r = rng.random()
    if r < 0.22:                                   # INTEGER
        s = rng.random()
        if s < 0.4:
            return rng.randrange(-1000, 100000)
        if s < 0.8:
            return rng.randrange(I64_MIN, I64_MAX + 1)
        return rng.randrange(-(1 << 40), 1 << 40)
    if r < 0.32:                                   # REAL, integral
        return float(rng.randrange(-(1 << 53), 1 << 53) >> rng.randrange(0, 53))
    if r < 0.44:                                   # REAL, any bits but NaN
        while True:
            x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if not math.isnan(x):
                return x
    if r < 0.50:
        return rng.random() * 1000 - 500          # REAL, mostly non-integral
    if r < 0.72:                                   # TEXT
        s = rng.random()
        if s < 0.5:
            return "req-%08d" % rng.randrange(10 ** 8)
        alphabet = "abcXYZ019 -_é日\U0001F642\x00"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
    if r < 0.9:                                    # BLOB
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40)))
    if r < 0.999:                                  # small INTEGER-like REAL
        return float(rng.randrange(-1000, 100000))
    return None


def random_key(rng):
    parts = tuple(random_value(rng) for _ in range(rng.randrange(1, 4)))
    return parts


def make_probes(n, seed=20240601, key_share=0.2):
    """n probes: every edge case, then a seeded mix (key_share of them keys)."""
    out = [("value", v) for v in EDGE_VALUES] + [("key", k) for k in EDGE_KEYS]
    rng = random.Random(seed)
    while len(out) < n:
        if rng.random() < key_share:
            out.append(("key", random_key(rng)))
        else:
            out.append(("value", random_value(rng)))
    return out[:n]


def storage_class(kind, v):
    """The SQL storage class of a probe as bound ('key' for bloom_key)."""
    if kind == "key":
        return "key"
    if v is None:
        return "null"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "real"
    if isinstance(v, str):
        return "text"
    return "blob"
