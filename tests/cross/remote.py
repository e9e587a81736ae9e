"""A connection to SQLite on another machine, for make test-cross.

connect(path) starts tests/cross/sqlpipe.c as $CROSS_SQLPIPE under
$CROSS_QEMU (the emulated machine, see tests/cross/run.sh) on the database
`path`, with $BLOOM_SO (that machine's bloom.so) loaded, and gives an object
that behaves as the Python tests use a sqlite3.Connection: execute (one
statement, positional parameters), executemany, executescript, commit,
rollback, close, text_factory, and cursors with description, fetchone,
fetchall and iteration.  Errors are sqlite3.Error's subclasses, with
SQLite's message.  So a test written for Python's sqlite3 module runs
unchanged, natively, while every statement runs on the emulated machine.

Transactions as Python 3.11's sqlite3 module makes them (isolation_level
""): a BEGIN before an INSERT, UPDATE, DELETE or REPLACE outside a
transaction; commit() and rollback() end it; close() leaves it uncommitted.
Rows are read whole when the statement runs, so an error a later row would
raise is raised by execute().  The messages are sqlpipe.c's (little-endian,
framed).
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os
import re
import shlex
import sqlite3
import struct
import subprocess

_DML = re.compile(r"(?:\s|--[^\n]*\n|/\*.*?\*/)*(INSERT|UPDATE|DELETE|REPLACE)\b",
                  re.I | re.S)
_CONSTRAINT = 19   # SQLITE_CONSTRAINT (the low byte of an extended code)


def command():
    """The command that runs the server on the emulated machine."""
    return shlex.split(os.environ.get("CROSS_QEMU", "")) + [
        os.environ["CROSS_SQLPIPE"]]


def _value(v):
    if v is None:
        return b"n"
    if isinstance(v, bool) or isinstance(v, int):
        if not -2**63 <= v < 2**63:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return b"i" + struct.pack("<q", v)
    if isinstance(v, float):
        return b"f" + struct.pack("<d", v)
    if isinstance(v, str):
        data = v.encode("utf-8")
        return b"t" + struct.pack("<I", len(data)) + data
    if isinstance(v, (bytes, bytearray, memoryview)):
        data = bytes(v)
        return b"b" + struct.pack("<I", len(data)) + data
    raise sqlite3.ProgrammingError("Error binding parameter: type %r is not "
                                   "supported" % type(v).__name__)


class Cursor:
    def __init__(self, names, rows):
        self.description = tuple((n, None, None, None, None, None, None)
                                 for n in names) if names else None
        self._rows = rows
        self._at = 0

    def fetchone(self):
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self):
        rows, self._at = self._rows[self._at:], len(self._rows)
        return rows

    def __iter__(self):
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row


class Connection:
    def __init__(self, path):
        self.text_factory = str
        self.in_transaction = False
        self._proc = subprocess.Popen(command() + [path], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE)
        kind, body = self._read()
        if kind != b"K":
            self.close()
            self._raise(body, "cannot open %s on the emulated machine" % path)
        self.machine = body.decode("ascii", "replace")

    # -- frames --
    def _send(self, kind, body):
        self._proc.stdin.write(kind + struct.pack("<I", len(body)) + body)
        self._proc.stdin.flush()

    def _read(self):
        head = self._proc.stdout.read(5)
        if len(head) != 5:
            raise sqlite3.OperationalError(
                "the emulated machine's sqlpipe ended (exit %r)" % self._proc.poll())
        (n,) = struct.unpack("<I", head[1:])
        body = self._proc.stdout.read(n)
        return head[:1], body

    def _raise(self, body, fallback=None):
        if len(body) < 5:
            raise sqlite3.OperationalError(fallback or "sqlpipe: no message")
        (code,) = struct.unpack("<I", body[:4])
        self.in_transaction = not body[4]
        msg = body[5:].decode("utf-8", "replace")
        if msg in ("You can only execute one statement at a time.",
                   "Incorrect number of bindings supplied."):
            raise sqlite3.ProgrammingError(msg)
        if code & 0xff == _CONSTRAINT:
            raise sqlite3.IntegrityError(msg)
        raise sqlite3.OperationalError(msg)

    def _decode(self, body, at):
        tag = body[at:at + 1]
        at += 1
        if tag == b"n":
            return None, at
        if tag == b"i":
            return struct.unpack_from("<q", body, at)[0], at + 8
        if tag == b"f":
            return struct.unpack_from("<d", body, at)[0], at + 8
        (n,) = struct.unpack_from("<I", body, at)
        data = body[at + 4:at + 4 + n]
        at += 4 + n
        if tag == b"b":
            return data, at
        if self.text_factory is bytes:
            return data, at
        try:
            return self.text_factory(data.decode("utf-8")), at
        except UnicodeDecodeError:
            raise sqlite3.OperationalError("Could not decode to UTF-8 column")

    def _run(self, sql, sets):
        if self._proc is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        if _DML.match(sql) and not self.in_transaction:
            self.executescript_nocommit("BEGIN ")
        data = sql.encode("utf-8")
        body = [struct.pack("<I", len(data)), data, struct.pack("<I", len(sets))]
        for params in sets:
            params = tuple(params)
            body.append(struct.pack("<I", len(params)))
            body += [_value(v) for v in params]
        self._send(b"X", b"".join(body))
        kind, head = self._read()
        if kind == b"E":
            self._raise(head)
        (ncols,) = struct.unpack_from("<I", head, 0)
        names, at = [], 4
        for _ in range(ncols):
            (n,) = struct.unpack_from("<I", head, at)
            names.append(head[at + 4:at + 4 + n].decode("utf-8"))
            at += 4 + n
        rows = []
        while True:
            kind, body = self._read()
            if kind == b"R":
                row, at = [], 0
                for _ in range(ncols):
                    v, at = self._decode(body, at)
                    row.append(v)
                rows.append(tuple(row))
            elif kind == b"D":
                self.in_transaction = not body[0]
                return Cursor(names, rows)
            else:
                self._raise(body)

    # -- what the tests call --
    def execute(self, sql, params=()):
        return self._run(sql, [params] if params else [])

    def executemany(self, sql, seq):
        sets = [tuple(p) for p in seq]
        if not sets:
            return Cursor([], [])
        return self._run(sql, sets)

    def executescript_nocommit(self, sql):
        self._send(b"S", sql.encode("utf-8"))
        kind, body = self._read()
        if kind == b"E":
            self._raise(body)
        self.in_transaction = not body[0]

    def executescript(self, sql):
        # Python's executescript commits an open transaction first.
        self.commit()
        self.executescript_nocommit(sql)
        return Cursor([], [])

    def commit(self):
        if self.in_transaction:
            self.executescript_nocommit("COMMIT")

    def rollback(self):
        if self.in_transaction:
            self.executescript_nocommit("ROLLBACK")

    def close(self):
        if self._proc is None:
            return
        try:
            self._send(b"Q", b"")
        except (BrokenPipeError, ValueError):
            pass
        self._proc.stdin.close()
        self._proc.wait()
        self._proc.stdout.close()
        self._proc = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def connect(path=":memory:"):
    """A connection on the emulated machine with its bloom.so loaded."""
    return Connection(path)
