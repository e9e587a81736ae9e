#!/usr/bin/env python3
"""dqclient.py SERVERS DB COMMAND: a small client of dqlite's wire protocol.

  query SQL     rows as "a|b|c" lines (BLOBs in hex, NULL empty)
  exec SQL      one statement, whatever its ';'s (a trigger body has some)
  leader        the leader's address, or nothing
  cluster       "id|address|role" lines
  transfer ID   make node ID the leader

The stock `dqlite` shell splits its input at every ';', so it cannot
create a trigger, and cannot move leadership; the failover test uses this
instead.  Protocol version 1, as doc/protocol.md of dqlite describes it:
a message is a header word (body size in words, type, revision, unused)
and a body of little-endian words; a text is NUL-terminated and
zero-padded to a word.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
import socket
import struct
import sys

REQ_LEADER, REQ_OPEN, REQ_EXEC_SQL, REQ_QUERY_SQL = 0, 3, 8, 9
REQ_CLUSTER, REQ_TRANSFER = 16, 17
RESP_FAILURE, RESP_SERVER, RESP_SERVERS, RESP_DB = 0, 1, 3, 4
RESP_RESULT, RESP_ROWS, RESP_EMPTY = 6, 7, 8
ROWS_PART, ROWS_DONE = 0xEEEEEEEEEEEEEEEE, 0xFFFFFFFFFFFFFFFF
ROLES = {0: "voter", 1: "stand-by", 2: "spare"}


class Refused(Exception):
    pass


def text(s):
    data = s.encode() + b"\0"
    return data + b"\0" * (-len(data) % 8)


def u64(v):
    return struct.pack("<Q", v)


class Conn:
    def __init__(self, address, timeout=15):
        host, port = address.rsplit(":", 1)
        self.s = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
        self.s.sendall(u64(1))

    def close(self):
        self.s.close()

    def read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.s.recv(n - len(data))
            if not chunk:
                raise OSError("connection closed")
            data += chunk
        return data

    def response(self):
        words, kind, _, _ = struct.unpack("<IBBH", self.read(8))
        body = self.read(words * 8)
        if kind == RESP_FAILURE:
            code = struct.unpack("<Q", body[:8])[0]
            raise Refused("%s (%d)" % (body[8:].split(b"\0")[0].decode(), code))
        return kind, body

    def request(self, kind, body):
        self.s.sendall(struct.pack("<IBBH", len(body) // 8, kind, 0, 0) + body)
        return self.response()


class Reader:
    def __init__(self, body):
        self.b, self.off = body, 0

    def u64(self):
        v = struct.unpack_from("<Q", self.b, self.off)[0]
        self.off += 8
        return v

    def text(self):
        end = self.b.index(b"\0", self.off)
        s = self.b[self.off:end].decode()
        self.off += (end - self.off) // 8 * 8 + 8
        return s

    def blob(self):
        n = self.u64()
        data = self.b[self.off:self.off + n]
        self.off += (n + 7) // 8 * 8
        return data

    def more(self):
        return self.off < len(self.b)


def leader_of(servers):
    for address in servers:
        try:
            c = Conn(address, timeout=3)
            try:
                kind, body = c.request(REQ_LEADER, u64(0))
            finally:
                c.close()
            r = Reader(body)
            r.u64()
            found = r.text()
            if kind == RESP_SERVER and found:
                return found
        except (OSError, Refused, ValueError):
            continue
    return None


def value(r, code):
    if code in (1, 9):
        v = struct.unpack_from("<q", r.b, r.off)[0]
        r.off += 8
        return str(v)
    if code == 2:
        v = struct.unpack_from("<d", r.b, r.off)[0]
        r.off += 8
        return repr(v)
    if code in (3, 10):
        return r.text()
    if code == 4:
        return r.blob().hex().upper()
    if code == 5:
        r.u64()
        return ""
    if code == 11:
        return str(r.u64())
    raise ValueError("unknown value type %d" % code)


def rows(conn, body):
    """Every row of a ROWS answer and of the batches that follow it (each
    batch repeats the column count and names)."""
    while True:
        r = Reader(body)
        ncols = r.u64()
        for _ in range(ncols):
            r.text()
        while True:
            marker = struct.unpack_from("<Q", r.b, r.off)[0]
            if marker in (ROWS_PART, ROWS_DONE):
                break
            header = r.b[r.off:r.off + (ncols + 15) // 16 * 8]
            r.off += len(header)
            codes = [(header[i // 2] >> (4 * (i % 2))) & 0xF for i in range(ncols)]
            yield [value(r, c) for c in codes]
        if marker == ROWS_DONE:
            return
        _, body = conn.response()


def main():
    servers, db, command = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
    if command == "leader":
        print(leader_of(servers) or "")
        return 0
    leader = leader_of(servers)
    if leader is None:
        print("dqclient: no leader among " + sys.argv[1], file=sys.stderr)
        return 2
    conn = Conn(leader)
    try:
        if command == "transfer":
            conn.request(REQ_TRANSFER, u64(int(sys.argv[4])))
        elif command == "cluster":
            kind, body = conn.request(REQ_CLUSTER, u64(1))
            r = Reader(body)
            for _ in range(r.u64()):
                node_id, address, role = r.u64(), r.text(), r.u64()
                print("%d|%s|%s" % (node_id, address, ROLES.get(role, role)))
        else:
            kind, body = conn.request(REQ_OPEN, text(db) + u64(0) + text(""))
            db_id = struct.unpack_from("<I", body)[0]
            no_params = u64(0)
            if command == "exec":
                conn.request(REQ_EXEC_SQL, u64(db_id) + text(sys.argv[4]) + no_params)
            elif command == "query":
                kind, body = conn.request(REQ_QUERY_SQL, u64(db_id) + text(sys.argv[4]) + no_params)
                for row in rows(conn, body):
                    print("|".join(row))
            else:
                print("dqclient: unknown command " + command, file=sys.stderr)
                return 2
    except (Refused, OSError) as e:
        print("dqclient: %s: %s" % (leader, e), file=sys.stderr)
        return 1
    finally:
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
