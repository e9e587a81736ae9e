#!/usr/bin/env python3
"""measure.py NODE BLOOM_SO [LATENCY_MS]: figures for bloom on a dqlite cluster
(make bench-cluster), each beside the same work done locally in one run.

Starts three bloom-dqlite-node processes on 127.0.0.1, loads the same table
and filter on the cluster and into a local in-memory SQLite with BLOOM_SO
loaded, then times:

  - one probe statement (bloom_test of one value against the stored
    filter), sent and answered one at a time, over the protocol to the
    leader vs local sqlite3 from the same Python;
  - bloom_probe over 1,000,000 generated values on the leader vs local:
    in one statement, and in ten statements of 100,000.  A statement runs
    on the leader's only thread, which then sends no heartbeat: one that
    outlasts the election timeout (15 x LATENCY_MS, default 20 ms) may
    cost the node its leadership, and fail with "not leader".  That is
    reported as such.
  - failover: the leader's process SIGKILLed, then the time until another
    node names a new leader (polled every 10 ms from this process).

The cluster runs on loopback: the round trip is the protocol's and the
node's cost, without a real network's latency.  Every process it starts is
stopped by its pid.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dqclient as dq  # noqa: E402

ITEMS = 20000
PROBES = 2000
BIG = 1000000
SERIES = "WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < %d)"
LOAD = [
    "CREATE TABLE items(id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
    "INSERT INTO items SELECT k, 'item-' || k FROM (%s SELECT k FROM c)" % (SERIES % ITEMS),
    "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB)",
    "INSERT INTO filters SELECT 'items', bloom_build(v, %d, 0.01) FROM items" % ITEMS,
]
PROBE = "SELECT bloom_test(f, 'item-%d') FROM filters WHERE name = 'items'"
BULK = ("SELECT sum(bloom_probe('SELECT f FROM filters WHERE name = ''items''', "
        "'item-' || k)) FROM (%s SELECT %d + k AS k FROM c)")
CHUNK = 100000


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_ready(path, proc, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise SystemExit("node exited: " + open(path).read())
        if "ready:" in open(path).read():
            return
        time.sleep(0.05)
    raise SystemExit("node not ready: " + path)


class Remote:
    def __init__(self, leader):
        self.c = dq.Conn(leader)
        _, body = self.c.request(dq.REQ_OPEN, dq.text("bench") + dq.u64(0) + dq.text(""))
        self.db = dq.struct.unpack_from("<I", body)[0]

    def execute(self, sql):
        self.c.request(dq.REQ_EXEC_SQL, dq.u64(self.db) + dq.text(sql) + dq.u64(0))

    def query(self, sql):
        _, body = self.c.request(dq.REQ_QUERY_SQL, dq.u64(self.db) + dq.text(sql) + dq.u64(0))
        return list(dq.rows(self.c, body))


class Local:
    def __init__(self, so):
        import sqlite3
        self.db = sqlite3.connect(":memory:")
        self.db.enable_load_extension(True)
        self.db.load_extension(so)

    def execute(self, sql):
        self.db.execute(sql)
        self.db.commit()

    def query(self, sql):
        return [[str(v) for v in row] for row in self.db.execute(sql)]


def probe_times(remote, local):
    """Each probe on the leader, then the same probe locally: interleaved,
    so that the machine's noise falls on both alike."""
    times = ([], [])
    for i in range(PROBES):
        for db, out in zip((remote, local), times):
            t = time.perf_counter()
            db.query(PROBE % (i % ITEMS + 1))
            out.append(time.perf_counter() - t)
    result = []
    for out in times:
        out.sort()
        result += [statistics.median(out), out[int(len(out) * 0.99)]]
    return result


def bulk_time(db, size):
    """Median of three passes over BIG values in statements of size, and
    the total of the sums; None and why if the leader was lost."""
    times, total = [], 0
    for _ in range(3):
        t = time.perf_counter()
        total = 0
        for start in range(0, BIG, size):
            try:
                total += int(db.query(BULK % (SERIES % size, start))[0][0])
            except dq.Refused as e:
                return None, str(e)
        times.append(time.perf_counter() - t)
    return statistics.median(times), total


def wait_leader(addrs):
    for _ in range(100):
        leader = dq.leader_of(addrs)
        if leader:
            return leader
        time.sleep(0.1)
    raise SystemExit("no leader")


def main():
    node, so = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    latency = sys.argv[3] if len(sys.argv) > 3 else "20"
    work = tempfile.mkdtemp(prefix="bloom-measure.")
    ports = free_ports(3)
    addrs = ["127.0.0.1:%d" % p for p in ports]
    procs = []
    try:
        for i, addr in enumerate(addrs, 1):
            args = [node, "--id", str(i), "--address", addr, "--dir", "%s/n%d" % (work, i),
                    "--latency-ms", latency]
            if i > 1:
                args += ["--join", addrs[0]]
            log = "%s/n%d.log" % (work, i)
            procs.append(subprocess.Popen(args, stdout=open(log, "w"), stderr=subprocess.STDOUT))
            wait_ready(log, procs[-1])
        remote = Remote(wait_leader(addrs))
        local = Local(so)
        for sql in LOAD:
            remote.execute(sql)
            local.execute(sql)
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                    if line.startswith("model name")), "?")
        print("# machine: %s, %d cores; 3 nodes on loopback, --latency-ms %s"
              % (cpu, os.cpu_count(), latency))
        r_med, r_p99, l_med, l_p99 = probe_times(remote, local)
        print("probe statement, cluster leader: median %.0f us, p99 %.0f us (%d statements)"
              % (r_med * 1e6, r_p99 * 1e6, PROBES))
        print("probe statement, local sqlite3:  median %.0f us, p99 %.0f us"
              % (l_med * 1e6, l_p99 * 1e6))
        print("ratio cluster/local (median): %.1f" % (r_med / l_med))
        status = 0
        for size in (CHUNK, BIG):
            # A new connection to whoever leads now: a long statement may
            # have cost the last leader its place after it answered.
            time.sleep(1)
            remote = Remote(wait_leader(addrs))
            rb, rres = bulk_time(remote, size)
            lb, lres = bulk_time(local, size)
            what = "bloom_probe over %d values, statements of %d" % (BIG, size)
            if rb is None:
                print("%s: on the leader failed (%s); local %.2f s" % (what, rres, lb))
                continue
            print("%s: leader %.2f s, local %.2f s, ratio %.2f; positives %d, %s"
                  % (what, rb, lb, rb / lb, rres, "same" if rres == lres else "DIFFERENT"))
            if rres != lres:
                status = 1
        old = wait_leader(addrs)
        victim = procs[addrs.index(old)]
        others = [a for a in addrs if a != old]
        victim.kill()
        t = time.perf_counter()
        victim.wait()
        new = None
        while time.perf_counter() - t < 10 and not new:
            new = dq.leader_of(others)
            if not new or new == old:
                new = None
                time.sleep(0.01)
        print("failover: %s ms from SIGKILL of the leader to a new one"
              % ("%.0f" % ((time.perf_counter() - t) * 1000) if new else "no leader in 10000"))
        return status
        return 0
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
