#!/bin/sh
# The host scenario (tests/hosts/lib.sh) in the sqlite3 shell (Debian's
# sqlite3): `.load PATH`, parameters bound with `.parameter set` (whose
# value is SQL: 12345 is an integer, "'12345'" text, readfile(...) a blob),
# and filters written to files with writefile() as the shell's bytes.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb sqlite3
# run SCRIPT: the shell's output for SCRIPT in a database that loaded bloom
db=$tmp/shell.db
run() { printf '.load %s\n%s\n' "${so%.so}" "$1" | sqlite3 -batch "$db" 2>&1; }
echo "# host: sqlite3 shell $(sqlite3 --version | cut -d' ' -f1); loads by .load PATH"

got=$(run "SELECT bloom_version();")
[ "$got" = "$version" ]
check $? "the sqlite3 shell loads $so: bloom_version() = $version (got '$got')"

got=$(run ".parameter set :n 1000
.parameter set :p 0.01
SELECT writefile('$tmp/f.bin', bloom_build(value, :n, :p)) FROM generate_series(1, 1000);")
[ "$got" = 1344 ] && [ "$(wc -c <"$tmp/f.bin")" = 1344 ]
check $? "bloom_build, written to a file by writefile(), is 1344 bytes (got '$got')"
got=$(run ".parameter set @f \"readfile('$tmp/f.bin')\"
.parameter set :in 42
.parameter set :out 4242
SELECT bloom_test(@f, :in), bloom_test(@f, :out);")
[ "$got" = "1|0" ]
check $? "bloom_test(readfile() bound as @f, integer): 42 in, 4242 out (got '$got')"

{ echo "CREATE TABLE items(id INTEGER PRIMARY KEY);
CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01);
CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER);
CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
  INSERT INTO seen(value) VALUES (NEW.id);
  INSERT INTO typed(value) VALUES (NEW.id);
END;
BEGIN;"
  i=1; while [ $i -le 100 ]; do printf '.parameter set :id %d\nINSERT INTO items(id) VALUES (:id);\n' $i; i=$((i + 1)); done
  echo "COMMIT;
SELECT count(*) FROM items;"; } >"$tmp/insert.sql"
got=$(run "$(cat "$tmp/insert.sql")")
[ "$got" = 100 ]
check $? "100 ids inserted bound as integers, in one transaction (got '$got')"
probes() { # probes FROM TO: how many of FROM..TO the store finds, each bound as :id
  i=$1
  while [ "$i" -le "$2" ]; do
    printf '.parameter set :id %d\nSELECT EXISTS (SELECT 1 FROM seen WHERE value = :id);\n' "$i"
    i=$((i + 1))
  done >"$tmp/probes.sql"
  run "$(cat "$tmp/probes.sql")" | grep -c '^1$'
}
got=$(probes 1 100)
[ "$got" = 100 ]
check $? "each of them probed bound as an integer is found ($got of 100)"
got=$(probes 1001 1100)
[ "$got" -lt 10 ]
check $? "fewer than 10 of 100 absent ids are ($got)"

got=$(run ".parameter set :i 12345
.parameter set :t \"'12345'\"
SELECT typeof(:i), typeof(:t);")
echo "# binds: 12345 -> ${got%|*}, '12345' -> ${got#*|}"
[ "$got" = "integer|text" ]
check $? ".parameter set :i 12345 binds an integer, :t \"'12345'\" text (got '$got')"
got=$(run ".parameter set :t \"'12345'\"
INSERT INTO items(id) VALUES (:t);
SELECT typeof(id) FROM items WHERE id = 12345;")
[ "$got" = integer ]
check $? "the id '12345' bound as text is stored as an integer (got '$got')"
got=$(run ".parameter set :t \"'12345'\"
SELECT EXISTS (SELECT 1 FROM seen WHERE value = :t);")
[ "$got" = 1 ]
check $? "a probe bound as text '12345' finds it" \
  "a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345; create it with affinity = INTEGER, bind an integer, or CAST"
got=$(run ".parameter set :t \"'12345'\"
SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST(:t AS INTEGER));")
[ "$got" = 1 ]
check $? "a probe written CAST(:t AS INTEGER) finds it (got '$got')"
got=$(run ".parameter set :t \"'12345'\"
SELECT EXISTS (SELECT 1 FROM typed WHERE value = :t);")
[ "$got" = 1 ]
check $? "a probe of the affinity = INTEGER store bound as text '12345' finds it (got '$got')"
got=$(run ".parameter set :a \"'abc'\"
.parameter set :o \"'12346'\"
SELECT EXISTS (SELECT 1 FROM typed WHERE value = :a), EXISTS (SELECT 1 FROM typed WHERE value = :o);")
[ "$got" = "0|0" ]
check $? "and ones bound as text 'abc' and '12346' do not (got '$got')"

got=$(run "SELECT writefile('$tmp/export.bin', filter) FROM seen;
SELECT writefile('$tmp/built.bin', bloom_build(id, 1000, 0.01)) FROM items;
.parameter set @e \"readfile('$tmp/export.bin')\"
SELECT bloom_test(@e, 12345);")
cmp -s "$tmp/export.bin" "$tmp/built.bin" && [ "$(echo "$got" | tail -n 1)" = 1 ]
check $? "SELECT filter, written to a file, is bloom_build's bytes over the table, with 12345 in it"

# Step 6: quotient stores, growing and sized, kept by a trigger.
got=$(run "CREATE TABLE events(id INTEGER PRIMARY KEY);
CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01);
CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01);
CREATE TRIGGER events_q AFTER INSERT ON events BEGIN
  INSERT INTO qgrow(value) VALUES (NEW.id);
  INSERT INTO qsized(value) VALUES (NEW.id);
END;
SELECT count(*) FROM qsized_directory;")
[ "$got" = 4 ]
check $? "quotient_store(capacity = 1000) is made of 4 leaves (got '$got')"
{ echo "BEGIN;"
  i=1; while [ $i -le 600 ]; do printf '.parameter set :id %d\nINSERT INTO events(id) VALUES (:id);\n' $i; i=$((i + 1)); done
  echo "COMMIT;
SELECT count(*) FROM qgrow_directory;"; } >"$tmp/events.sql"
got=$(run "$(cat "$tmp/events.sql")")
[ "$got" -gt 1 ]
check $? "600 ids inserted bound as integers: the growing quotient_store split its leaf ($got leaves)"
qprobes() { # qprobes STORE FROM TO: how many of FROM..TO STORE finds, each bound as :id
  i=$2
  while [ "$i" -le "$3" ]; do
    printf '.parameter set :id %d\nSELECT EXISTS (SELECT 1 FROM %s WHERE value = :id);\n' "$i" "$1"
    i=$((i + 1))
  done >"$tmp/probes.sql"
  run "$(cat "$tmp/probes.sql")" | grep -c '^1$'
}
for store in qgrow qsized; do
  found=$(qprobes $store 1 600)
  false=$(qprobes $store 1001 1100)
  [ "$found" = 600 ] && [ "$false" -lt 10 ]
  check $? "$store: each id probed bound as an integer is found ($found of 600), fewer than 10 of 100 absent ones are ($false)"
  i=1
  while [ $i -le 50 ]; do
    printf '.parameter set :id %d\nDELETE FROM %s WHERE value = :id;\n' $i $store
    i=$((i + 1))
  done >"$tmp/delete.sql"
  run "$(cat "$tmp/delete.sql")" >/dev/null
  found=$(qprobes $store 51 600)
  [ "$found" = 550 ]
  check $? "$store: after deleting 1..50 bound as integers, 51..600 are all found ($found of 550)"
  got=$(run "SELECT writefile('$tmp/q.bin', filter) FROM $store;
.parameter set @e \"readfile('$tmp/q.bin')\"
SELECT typeof(@e), (SELECT items FROM quotient_info(@e)), (SELECT blocks FROM quotient_info(@e)),
  (SELECT count(*) FROM ${store}_directory),
  (SELECT count(*) FROM events WHERE id <= 50 AND quotient_test(@e, id)),
  (WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1100)
   SELECT count(*) FROM s WHERE quotient_test(@e, v) != EXISTS (SELECT 1 FROM $store WHERE value = s.v));" |
    tail -n 1)
  echo "$got" | awk -F'|' '$1 == "blob" && $2 >= 550 && $2 <= 550 + $5 && $3 == $4 && $6 == 0 { ok = 1 } END { exit !ok }'
  check $? "$store: SELECT filter, written to a file, bound back by readfile(): quotient_info counts 550 items (a delete that matched several widths removes none, and its id is still found) in as many leaves as the directory, and quotient_test answers 1..1100 as the store (type, items, leaves, directory, deleted still found, unlike: $got)"
done
echo "1..$n"
exit $failed
