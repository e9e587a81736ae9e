#!/bin/sh
# Failover test for bloom on a dqlite cluster (make test-cluster):
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   three bloom-dqlite-node processes on 127.0.0.1, nodes 2 and 3 joining
#   node 1; a table, a filter kept as a BLOB, and a bloom_store and two
#   quotient_stores (growing and sized) kept by a trigger, a tenth of the
#   first rows deleted from the quotient ones by a trigger on a table of
#   deletions, loaded through dqclient.py (the wire protocol); the leader
#   SIGKILLed; then
#   the data, the filter bytes and every probe must be what they were on
#   the old leader, writes must go on through the new one, and the killed
#   node, restarted on its data, must hold the same bytes once it leads.
#
# Every write is idempotent (INSERT OR IGNORE, IF NOT EXISTS): a write
# that loses its leader may be reported failed although it was committed,
# and is then simply sent again.  Prints TAP; every process it started is
# stopped by its pid on the way out, pass or fail.
#
#   tests/cluster/failover.sh NODE_BINARY
set -u
NODE=${1:?usage: failover.sh path/to/bloom-dqlite-node}
HERE=$(cd "$(dirname "$0")" && pwd)
CLIENT="python3 $HERE/dqclient.py"
DB=bloomdb
ITEMS=20000   # loaded before the failover
MORE=5000     # written through the new leader
CAPACITY=40000
FPR=0.01
ABSENT=50000  # non-members probed for false positives

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bloom-cluster.XXXXXX") || exit 1
PIDS=""
n=0
failed=0

ok() { # ok <0|1> <description> [detail]
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    [ $# -gt 2 ] && printf '%s\n' "$3" | sed 's/^/#   /'
    failed=$((failed + 1))
  fi
}

note() { echo "# $*"; }

cleanup() {
  for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
  for p in $PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$p" 2>/dev/null
  done
  if [ "$failed" = 0 ]; then rm -rf "$WORK"; else echo "# logs kept in $WORK"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Three free ports, chosen by the kernel.
PORTS=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))
for s in ss: s.close()')
set -- $PORTS
ADDR1=127.0.0.1:$1 ADDR2=127.0.0.1:$2 ADDR3=127.0.0.1:$3
ALL=$ADDR1,$ADDR2,$ADDR3
addr_of() { eval echo "\$ADDR$1"; }
pid_of() { eval echo "\${PID$1:-}"; }

start_node() { # start_node <id> [join list]
  addr=$(addr_of "$1")
  if [ $# -gt 1 ]; then
    "$NODE" --id "$1" --address "$addr" --dir "$WORK/node$1" --join "$2" \
      >>"$WORK/node$1.log" 2>&1 &
  else
    "$NODE" --id "$1" --address "$addr" --dir "$WORK/node$1" >>"$WORK/node$1.log" 2>&1 &
  fi
  eval "PID$1=$!"
  PIDS="$PIDS $!"
}

# Waits for the node's nth "ready" line (restarts append to the same log).
wait_ready() { # wait_ready <id> <nth>
  i=0
  while c=$(grep -c '^ready:' "$WORK/node$1.log" 2>/dev/null); [ "${c:-0}" -lt "$2" ]; do
    kill -0 "$(pid_of "$1")" 2>/dev/null || return 1
    [ $i -ge 300 ] && return 1
    sleep 0.1
    i=$((i + 1))
  done
}

# One query through the cluster (dqclient.py finds the leader).
q() { timeout 30 $CLIENT "$ALL" "$DB" query "$1" 2>>"$WORK/client.log"; }

# A write, sent again until it succeeds (idempotent statements only).
w() {
  i=0
  until timeout 30 $CLIENT "$ALL" "$DB" exec "$1" 2>>"$WORK/client.log"; do
    i=$((i + 1))
    [ $i -ge 40 ] && { echo "# gave up on: $1"; return 1; }
    sleep 0.25
  done
}

leader() { timeout 10 $CLIENT "$ALL" "$DB" leader 2>/dev/null; }

# The numbers from 1 to N as a table c(k).
series() { echo "WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < $1)"; }

# Everything the checks compare, one line each: the rows, the filter's
# bytes, the store's bytes, false negatives of both, and the positives
# among $ABSENT values never inserted (bloom_test, bloom_probe, the store).
# A Bloom filter's bytes but its inserted counter (header bytes 40-47):
# INSERT OR IGNORE INTO items reaches the trigger's insert into the store,
# which then adds only values it does not hold yet and counts only those
# (a false positive is skipped, its bits being set already).
uncounted() {
  echo "substr($1, 1, 40) || substr($1, 49)"
}

snapshot() {
  q "SELECT 'rows', count(*), sum(id), sum(length(v)) FROM items" &&
  q "SELECT 'filter', hex($(uncounted f)) FROM filters WHERE name = 'items'" &&
  q "SELECT 'store', hex($(uncounted filter)) FROM items_store" &&
  q "SELECT 'false negatives', count(*) FROM items, filters
      WHERE name = 'items' AND NOT bloom_test(f, v)" &&
  q "SELECT 'store false negatives', count(*) FROM items
      WHERE NOT EXISTS (SELECT 1 FROM items_store WHERE value = items.v)" &&
  q "SELECT 'positives', sum(bloom_test(f, 'absent-' || k))
      FROM filters, ($(series $ABSENT) SELECT k FROM c) WHERE name = 'items'" &&
  q "SELECT 'probe positives',
      sum(bloom_probe('SELECT f FROM filters WHERE name = ''items''', 'absent-' || k))
      FROM ($(series $ABSENT) SELECT k FROM c)" &&
  q "SELECT 'store positives', count(*) FROM ($(series $ABSENT) SELECT k FROM c) AS c
      WHERE EXISTS (SELECT 1 FROM items_store WHERE value = 'absent-' || c.k)" &&
  quotient_snapshot
}

# The quotient stores, one line each: their exports, their leaves, false
# negatives (rows kept, probed in each store), positives among the absent
# values (each store), and per store its export's quotient_info items and
# blocks, the directory's rows, the deleted values the export still finds
# and the values (rows and absent) the export answers otherwise than the
# store.
quotient_snapshot() {
  q "SELECT 'quotient', hex(filter) FROM items_q" &&
  q "SELECT 'quotient sized', hex(filter) FROM items_qs" &&
  q "SELECT 'quotient leaves', (SELECT count(*) FROM items_q_directory),
      (SELECT count(*) FROM items_qs_directory)" &&
  q "SELECT 'quotient false negatives', count(*) FROM items
      WHERE v NOT IN (SELECT v FROM gone)
        AND NOT (EXISTS (SELECT 1 FROM items_q WHERE value = items.v)
                 AND EXISTS (SELECT 1 FROM items_qs WHERE value = items.v))" &&
  q "SELECT 'quotient positives',
      (SELECT count(*) FROM ($(series $ABSENT) SELECT k FROM c) AS c
        WHERE EXISTS (SELECT 1 FROM items_q WHERE value = 'absent-' || c.k)),
      (SELECT count(*) FROM ($(series $ABSENT) SELECT k FROM c) AS c
        WHERE EXISTS (SELECT 1 FROM items_qs WHERE value = 'absent-' || c.k))" &&
  # (The export as a scalar subquery, made once: a store joined in FROM
  # may be scanned, so exported, once a row.)
  for t in items_q items_qs; do
    e="(SELECT filter FROM $t)"
    q "SELECT 'quotient export $t', (SELECT items FROM quotient_info($e)),
        (SELECT blocks FROM quotient_info($e)), (SELECT count(*) FROM ${t}_directory),
        (SELECT count(*) FROM gone WHERE quotient_test($e, v)),
        (SELECT count(*) FROM (SELECT v FROM items UNION ALL
                               SELECT 'absent-' || k FROM ($(series $ABSENT) SELECT k FROM c)) AS p
          WHERE quotient_test($e, p.v) != EXISTS (SELECT 1 FROM $t WHERE value = p.v))" ||
      return 1
  done
}

# quotient_ok <snapshot file> <rows>: the quotient stores' lines as they
# must be with <rows> rows and the deletions: no false negative; positives
# at most 3% of the absent values (1% asked); each export counts the rows
# less the deletions (more only by deleted values matching entries of
# several widths, which FORMAT.md lets a DELETE keep, and which the export
# then still finds), in as many leaves as its directory, and answers every
# value as its store; the growing store split its first leaf, the sized
# one keeps the 128 leaves CREATE made (FORMAT.md: the least D with
# $CAPACITY / 2^D <= 0.85 * 511, 511 entries a leaf at 4096-byte pages; a
# leaf splits only past 511 entries, and these hold some 200).
quotient_ok() {
  gone=$(q "SELECT count(*) FROM gone")
  [ "$(field "$1" "quotient false negatives")" = 0 ] &&
  field "$1" "quotient positives" | awk -F'|' -v max=$((ABSENT * 3 / 100)) \
    '$1 <= max && $2 <= max { ok = 1 } END { exit !ok }' &&
  field "$1" "quotient leaves" | awk -F'|' '$1 > 1 && $2 == 128 { ok = 1 } END { exit !ok }' &&
  for t in items_q items_qs; do
    field "$1" "quotient export $t" | awk -F'|' -v kept=$(($2 - gone)) \
      '$1 >= kept && $1 <= kept + $4 && $2 == $3 && $5 == 0 { ok = 1 } END { exit !ok }' ||
      return 1
  done
}

field() { # field <snapshot file> <name>: the value after "name|"
  grep "^$2|" "$1" | cut -d'|' -f2-
}


# --- a cluster of three ----------------------------------------------------
note "nodes at $ALL, data in $WORK"
start_node 1
wait_ready 1 1; r1=$?
start_node 2 "$ADDR1"
start_node 3 "$ADDR1,$ADDR2"
wait_ready 2 1; r2=$?
wait_ready 3 1; r3=$?
ok $((r1 + r2 + r3)) "three nodes start, nodes 2 and 3 join through the protocol"
voters=$(timeout 10 $CLIENT "$ALL" "$DB" cluster 2>/dev/null | grep -c '|voter$')
ok "$([ "$voters" = 3 ] && echo 0 || echo 1)" "the cluster lists three voters" "voters: $voters"

# --- load --------------------------------------------------------------
w "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, v TEXT NOT NULL)" &&
w "CREATE VIRTUAL TABLE IF NOT EXISTS items_store
     USING bloom_store(capacity = $CAPACITY, fpr = $FPR)" &&
w "CREATE VIRTUAL TABLE IF NOT EXISTS items_q USING quotient_store(fpr = $FPR)" &&
w "CREATE VIRTUAL TABLE IF NOT EXISTS items_qs
     USING quotient_store(capacity = $CAPACITY, fpr = $FPR)" &&
w "CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
     INSERT INTO items_store(value) VALUES (NEW.v);
     INSERT INTO items_q(value) VALUES (NEW.v);
     INSERT INTO items_qs(value) VALUES (NEW.v);
   END" &&
w "CREATE TABLE IF NOT EXISTS gone(v TEXT PRIMARY KEY)" &&
w "CREATE TRIGGER IF NOT EXISTS gone_ai AFTER INSERT ON gone BEGIN
     DELETE FROM items_q WHERE value = NEW.v;
     DELETE FROM items_qs WHERE value = NEW.v;
   END" &&
w "$(series $ITEMS) INSERT OR IGNORE INTO items SELECT k, 'item-' || k FROM c" &&
w "INSERT OR IGNORE INTO gone SELECT v FROM items WHERE id % 10 = 0" &&
w "CREATE TABLE IF NOT EXISTS filters(name TEXT PRIMARY KEY, f BLOB)" &&
w "INSERT OR IGNORE INTO filters
     SELECT 'items', bloom_build(v, $CAPACITY, $FPR) FROM items"
ok $? "table, trigger-kept stores, deletions and built filter loaded through the cluster"

snapshot >"$WORK/before" 2>&1
ok $? "the old leader answers every check"
rows=$(field "$WORK/before" rows)
ok "$(case "$rows" in "$ITEMS|$((ITEMS * (ITEMS + 1) / 2))|"*) echo 0 ;; *) echo 1 ;; esac)" \
  "all $ITEMS rows are there" "$rows"
bf=$(field "$WORK/before" filter)
ok "$([ ${#bf} -gt 1000 ] && [ "$bf" = "$(field "$WORK/before" store)" ] && echo 0 || echo 1)" \
  "the trigger-kept store holds the same bytes as bloom_build over the table, but for the count"
quotient_ok "$WORK/before" "$ITEMS"
ok $? "the quotient stores: no false negative, positives near the 1% asked, exports that count \
the rows less the deletions and answer as the stores, the growing one split, the sized one in 128 leaves" \
  "$(grep '^quotient [lpfe]' "$WORK/before")"
fp=$(field "$WORK/before" positives)
ok "$([ "${fp:-x}" -ge 0 ] 2>/dev/null && [ "$fp" -le $((ABSENT * 3 / 100)) ] && echo 0 || echo 1)" \
  "false positives among $ABSENT absent values stay near the 1% asked ($fp)"

# The idempotency table of the README, in a database of its own: request
# ids recorded once however often they are sent, a store kept by a trigger.
app() { timeout 30 $CLIENT "$ALL" app "$@" 2>>"$WORK/client.log"; }
app_write() {
  i=0
  until app exec "$1"; do
    i=$((i + 1))
    [ $i -ge 40 ] && return 1
    sleep 0.25
  done
}
app_write "CREATE TABLE IF NOT EXISTS processed(request_id TEXT PRIMARY KEY) WITHOUT ROWID" &&
app_write "CREATE VIRTUAL TABLE IF NOT EXISTS seen
             USING bloom_store(capacity = 200000, fpr = 0.01)" &&
app_write "CREATE TRIGGER IF NOT EXISTS processed_seen AFTER INSERT ON processed BEGIN
             INSERT INTO seen(value) VALUES (NEW.request_id);
           END" &&
app_write "INSERT OR IGNORE INTO processed VALUES ('req-00000042')" &&
app_write "INSERT OR IGNORE INTO processed VALUES ('req-00000042')"
ok $? "idempotency table: created and a request recorded twice"
idem() { # the rows, then the store's verdict on a recorded and a new id
  app query "SELECT count(*),
                    EXISTS (SELECT 1 FROM seen WHERE value = 'req-00000042'),
                    EXISTS (SELECT 1 FROM seen WHERE value = 'req-00000043')
               FROM processed"
}
v=$(idem)
ok "$([ "$v" = "1|1|0" ] && echo 0 || echo 1)" \
  "idempotency table: one row; the store says maybe for it, certainly new for another" "$v"

# --- kill the leader -----------------------------------------------------
old=$(leader)
victim=""
for id in 1 2 3; do [ "$(addr_of $id)" = "$old" ] && victim=$id; done
ok "$([ -n "$victim" ] && echo 0 || echo 1)" "a leader is known ($old)"
[ -n "$victim" ] || exit 1
kill -KILL "$(pid_of "$victim")"
t0=$(now_ms)
wait "$(pid_of "$victim")" 2>/dev/null
new=""
i=0
while [ $i -lt 200 ]; do
  new=$(leader)
  [ -n "$new" ] && [ "$new" != "$old" ] && break
  sleep 0.05
  i=$((i + 1))
done
t1=$(now_ms)
ok "$([ -n "$new" ] && [ "$new" != "$old" ] && echo 0 || echo 1)" \
  "a new leader is elected after SIGKILL of node $victim"
note "failover: new leader $new $((t1 - t0)) ms after SIGKILL of $old"
for id in 1 2 3; do
  [ "$id" = "$victim" ] && continue
  kill -0 "$(pid_of "$id")" 2>/dev/null
  ok $? "node $id survived the leader's death"
done

snapshot >"$WORK/after" 2>&1
ok $? "the new leader answers every check"
for f in rows filter store "false negatives" "store false negatives" \
         positives "probe positives" "store positives" quotient "quotient sized" \
         "quotient leaves" "quotient false negatives" "quotient positives" \
         "quotient export items_q" "quotient export items_qs"; do
  a=$(field "$WORK/before" "$f")
  b=$(field "$WORK/after" "$f")
  ok "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" "after failover: $f unchanged" \
     "before: $(printf '%.60s' "$a")
after:  $(printf '%.60s' "$b")"
done
ok "$([ "$(field "$WORK/after" "false negatives")" = 0 ] &&
      [ "$(field "$WORK/after" "store false negatives")" = 0 ] && echo 0 || echo 1)" \
  "no false negatives, filter or store"

app_write "INSERT OR IGNORE INTO processed VALUES ('req-00000042')"
v=$(idem)
ok "$([ "$v" = "1|1|0" ] && echo 0 || echo 1)" \
  "idempotency table after failover: the request sent again is still recorded once" "$v"

# --- keep writing through the new leader ------------------------------------
wrote=0
k=$ITEMS
while [ $k -lt $((ITEMS + MORE)) ]; do
  w "INSERT OR IGNORE INTO items
       SELECT n, 'item-' || n FROM ($(series 100) SELECT $k + k AS n FROM c)" || wrote=1
  k=$((k + 100))
done
ok $wrote "$MORE more rows written through the new leader, 100 a statement"
total=$((ITEMS + MORE))
count=$(q "SELECT count(*) FROM items")
ok "$([ "$count" = "$total" ] && echo 0 || echo 1)" "the table holds $total rows" "count: $count"
same=$(q "SELECT (SELECT $(uncounted filter) FROM items_store) =
                 (SELECT $(uncounted "bloom_build(v, $CAPACITY, $FPR)") FROM items)")
ok "$([ "$same" = 1 ] && echo 0 || echo 1)" \
  "the trigger kept the store equal to bloom_build over all $total rows, but for the count"
snapshot >"$WORK/written" 2>&1
ok $? "the new leader answers every check after the writes"
# The stock shell (Debian's go-dqlite) is a client too, when installed.
if command -v dqlite >/dev/null 2>&1; then
  shell=$(timeout 30 dqlite -s "$ALL" "$DB" \
    "SELECT count(*), (SELECT count(*) FROM items_store WHERE value = 'item-$total') FROM items" 2>&1)
  ok "$([ "$shell" = "$total|1" ] && echo 0 || echo 1)" \
    "the dqlite shell reads the same rows and probes the store" "$shell"
else
  n=$((n + 1)); echo "ok $n # SKIP no dqlite shell (apt-get install go-dqlite)"
fi
ok "$([ "$(field "$WORK/written" "store false negatives")" = 0 ] && echo 0 || echo 1)" \
  "no store false negatives after the writes"
quotient_ok "$WORK/written" "$total"
ok $? "the quotient stores after the writes: no false negative, positives near the 1% asked, \
exports that count the rows less the deletions and answer as the stores" \
  "$(grep '^quotient [lpfe]' "$WORK/written")"

# --- the killed node comes back -----------------------------------------------
others=""
for id in 1 2 3; do [ "$id" != "$victim" ] && others="$others${others:+,}$(addr_of $id)"; done
start_node "$victim" "$others"
wait_ready "$victim" 2
ok $? "node $victim restarts on its data and rejoins"
sleep 2 # quiesce: no write is in flight, the restarted node catches up
i=0
until [ "$(leader)" = "$old" ] || [ $i -ge 10 ]; do
  timeout 30 $CLIENT "$ALL" "$DB" transfer "$victim" 2>>"$WORK/client.log"
  sleep 0.5
  i=$((i + 1))
done
ok "$([ "$(leader)" = "$old" ] && echo 0 || echo 1)" \
  "leadership moves to the restarted node $victim"
snapshot >"$WORK/restarted" 2>&1
ok $? "the restarted node answers every check"
ok "$([ "$(wc -l <"$WORK/written")" = 15 ] && cmp -s "$WORK/written" "$WORK/restarted" &&
      echo 0 || echo 1)" "the restarted node holds the same rows, filter and store bytes \
(Bloom and quotient), probes" \
  "$(diff "$WORK/written" "$WORK/restarted" | cut -c1-80 | head -6)"
for id in 1 2 3; do
  kill -0 "$(pid_of "$id")" 2>/dev/null
  ok $? "node $id is still running"
done

# --- clean stop --------------------------------------------------------
for id in 1 2 3; do
  p=$(pid_of "$id")
  kill -TERM "$p"
  wait "$p"
  ok $? "node $id stops cleanly on SIGTERM"
done

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
