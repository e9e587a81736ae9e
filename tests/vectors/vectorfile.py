"""Reading and writing the golden vector files (see README.txt).

NAME.hex      the blob: hex digits, any whitespace; '#' starts a comment.
NAME.answers  one line each, '#' lines are comments:
    info <column> <json>               a bloom_info (cuckoo_info) field
    test <answer> <class> <json>       a probe and its answer: 1, 0 or NULL
    reject <why>                       the blob must be refused (no info/test)
  <class> is integer, real, text, blob, null or key; the value is JSON:
  integer and real as JSON numbers (a real is written by Python's repr, so
  it reads back exactly, -0.0, Infinity and -Infinity included), text as a
  JSON string, blob as a JSON string of hex digits, null as null, and key
  (bloom_key's arguments) as a JSON array of [class, value] pairs.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import json

CLASSES = ("integer", "real", "text", "blob", "null", "key")


def read_hex(path):
    digits = []
    with open(path, encoding="ascii") as f:
        for line in f:
            digits.append("".join(line.split("#", 1)[0].split()))
    return bytes.fromhex("".join(digits))


def write_hex(path, blob, comment):
    with open(path, "x", encoding="ascii") as f:
        for line in comment.splitlines():
            f.write("# %s\n" % line)
        for off in range(0, len(blob), 32):
            f.write("%s  # %d\n" % (blob[off:off + 32].hex().upper(), off))


def class_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool) or isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "real"
    if isinstance(v, str):
        return "text"
    return "blob"


def to_json(cls, v):
    if cls == "key":
        return [[class_of(p), to_json(class_of(p), p)] for p in v]
    if cls == "blob":
        return bytes(v).hex()
    return v


def from_json(cls, j):
    if cls == "key":
        return tuple(from_json(c, p) for c, p in j)
    if cls == "blob":
        return bytes.fromhex(j)
    if cls == "real":
        return float(j)
    if cls == "integer":
        if not isinstance(j, int):
            raise ValueError("integer probe %r" % (j,))
        return j
    if cls == "text" and not isinstance(j, str):
        raise ValueError("text probe %r" % (j,))
    if cls == "null" and j is not None:
        raise ValueError("null probe %r" % (j,))
    return j


def dump(obj):
    return json.dumps(obj, ensure_ascii=True, allow_nan=True)


class Answers:
    def __init__(self):
        self.info = {}          # column -> value
        self.tests = []         # (answer, class, value)
        self.reject = None      # reason, for a blob that must be refused

    @classmethod
    def read(cls, path):
        a = cls()
        with open(path, encoding="ascii") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                word, rest = line.split(" ", 1)
                if word == "info":
                    col, j = rest.split(" ", 1)
                    a.info[col] = json.loads(j)
                elif word == "test":
                    ans, klass, j = rest.split(" ", 2)
                    if klass not in CLASSES:
                        raise ValueError("%s:%d: class %r" % (path, n, klass))
                    a.tests.append((None if ans == "NULL" else int(ans), klass,
                                    from_json(klass, json.loads(j))))
                elif word == "reject":
                    a.reject = rest
                else:
                    raise ValueError("%s:%d: %r" % (path, n, line))
        return a

    def write(self, path, comment):
        with open(path, "x", encoding="ascii") as f:
            for line in comment.splitlines():
                f.write("# %s\n" % line)
            if self.reject is not None:
                f.write("reject %s\n" % self.reject)
            for col, v in self.info.items():
                f.write("info %s %s\n" % (col, dump(v)))
            for ans, klass, v in self.tests:
                f.write("test %s %s %s\n" % ("NULL" if ans is None else ans,
                                            klass, dump(to_json(klass, v))))
