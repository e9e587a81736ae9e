#!/bin/sh
# The host scenario (tests/hosts/lib.sh) from the sqlite-utils command
# line (Debian's sqlite-utils): every command takes --load-extension=PATH;
# `-p NAME VALUE` binds TEXT, always; `insert` and `bulk` bind the values
# of JSON documents by their JSON type (a number is an INTEGER); `query -r`
# writes a BLOB's bytes to stdout.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb sqlite-utils
db=$tmp/su.db
su() { # su COMMAND ARGS...: sqlite-utils COMMAND on the database, bloom loaded
  cmd=$1
  shift
  sqlite-utils "$cmd" --load-extension="$so" "$db" "$@" 2>&1
}
echo "# host: sqlite-utils $(sqlite-utils --version | sed 's/.*version //') (CLI, SQLite $(su query 'SELECT sqlite_version()' -r)); loads by --load-extension=PATH"

got=$(su query "SELECT bloom_version()" -r)
[ "$got" = "$version" ]
check $? "sqlite-utils --load-extension=$so: bloom_version() = $version (got '$got')"

su query "CREATE TABLE filters AS WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000) SELECT bloom_build(v, 1000, 0.01) AS f FROM s" >/dev/null
su query "SELECT f FROM filters" -r >"$tmp/f.bin"
json=$(su query "SELECT f FROM filters")
[ "$(wc -c <"$tmp/f.bin")" = 1344 ] && case "$json" in *'"$base64": true'*) true ;; *) false ;; esac
check $? "bloom_build comes back as 1344 raw bytes with -r, as {\"\$base64\": ...} in JSON"
got=$(su query "SELECT bloom_test(f, CAST(:in AS INTEGER)), bloom_test(f, CAST(:out AS INTEGER)) FROM filters" \
        -p in 42 -p out 4242 --arrays)
[ "$got" = "[[1, 0]]" ]
check $? "bloom_test(f, CAST(:v AS INTEGER)) with -p v 42, 4242: in, out (got $got)"

su query "CREATE TABLE items(id INTEGER PRIMARY KEY)" >/dev/null
su query "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01)" >/dev/null
su query "CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER)" >/dev/null
su query "CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN INSERT INTO seen(value) VALUES (NEW.id); INSERT INTO typed(value) VALUES (NEW.id); END" >/dev/null
su query "CREATE TABLE hits(id)" >/dev/null
ids() { # ids FROM TO: a JSON array of {"id": N}
  seq "$1" "$2" | sed 's/.*/{"id": &}/' | paste -sd, | sed 's/^/[/; s/$/]/'
}
ids 1 100 >"$tmp/ids.json"
su insert items "$tmp/ids.json" >/dev/null
got=$(su query "SELECT count(*) FROM items" -r)
[ "$got" = 100 ]
check $? "100 ids inserted by sqlite-utils insert from JSON numbers (got '$got')"
probe="INSERT INTO hits SELECT :id WHERE EXISTS (SELECT 1 FROM seen WHERE value = :id)"
su bulk "$probe" "$tmp/ids.json" >/dev/null
got=$(su query "SELECT count(*) FROM hits" -r)
[ "$got" = 100 ]
check $? "each of them probed by sqlite-utils bulk, bound from JSON numbers, is found ($got of 100)"
ids 1001 1100 >"$tmp/absent.json"
su query "DELETE FROM hits" >/dev/null
su bulk "$probe" "$tmp/absent.json" >/dev/null
got=$(su query "SELECT count(*) FROM hits" -r)
[ "$got" -lt 10 ]
check $? "fewer than 10 of 100 absent ids are ($got)"

got=$(su query "SELECT typeof(:i) AS i, typeof(:t) AS t" -p i 12345 -p t 12345 --arrays)
echo '[{"i": 12345, "t": "12345"}]' >"$tmp/types.json"
su query "CREATE TABLE types(i, t)" >/dev/null
su bulk "INSERT INTO types SELECT typeof(:i), typeof(:t)" "$tmp/types.json" >/dev/null
json=$(su query "SELECT i, t FROM types" --arrays)
echo "# binds: -p 12345 -> ${got}; JSON 12345, \"12345\" -> $json"
[ "$got" = '[["text", "text"]]' ] && [ "$json" = '[["integer", "text"]]' ]
check $? "-p binds text, always ($got); JSON binds 12345 as integer, \"12345\" as text ($json)"
echo '[{"id": "12345"}]' >"$tmp/text.json"
su insert items "$tmp/text.json" >/dev/null
got=$(su query "SELECT typeof(id) FROM items WHERE id = 12345" -r)
[ "$got" = integer ]
check $? "the id \"12345\" inserted from a JSON string is stored as an integer (got '$got')"
got=$(su query "SELECT EXISTS (SELECT 1 FROM seen WHERE value = :id)" -p id 12345 -r)
[ "$got" = 1 ]
check $? "a probe with -p id 12345 (text) finds it" \
  "a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345; create it with affinity = INTEGER, or write CAST(:id AS INTEGER)"
got=$(su query "SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST(:id AS INTEGER))" -p id 12345 -r)
[ "$got" = 1 ]
check $? "a probe written CAST(:id AS INTEGER) with -p id 12345 finds it (got '$got')"
got=$(su query "SELECT EXISTS (SELECT 1 FROM typed WHERE value = :id)" -p id 12345 -r)
[ "$got" = 1 ]
check $? "a probe of the affinity = INTEGER store with -p id 12345 (text) finds it (got '$got')"
got=$(su query "SELECT EXISTS (SELECT 1 FROM typed WHERE value = :a), EXISTS (SELECT 1 FROM typed WHERE value = :o)" \
        -p a abc -p o 12346 --arrays)
[ "$got" = "[[0, 0]]" ]
check $? "and ones with -p a abc, -p o 12346 (text) do not (got $got)"

su query "SELECT filter FROM seen" -r >"$tmp/export.bin"
su query "SELECT bloom_build(id, 1000, 0.01) FROM items" -r >"$tmp/built.bin"
got=$(su query "SELECT bloom_test(filter, 12345) FROM seen" -r)
cmp -s "$tmp/export.bin" "$tmp/built.bin" && [ -s "$tmp/export.bin" ] && [ "$got" = 1 ]
check $? "SELECT filter, written by -r, is bloom_build's bytes over the table, with 12345 in it"

# Step 6: quotient stores, growing and sized, kept by a trigger.
su query "CREATE TABLE events(id INTEGER PRIMARY KEY)" >/dev/null
su query "CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01)" >/dev/null
su query "CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01)" >/dev/null
su query "CREATE TRIGGER events_q AFTER INSERT ON events BEGIN INSERT INTO qgrow(value) VALUES (NEW.id); INSERT INTO qsized(value) VALUES (NEW.id); END" >/dev/null
su query "CREATE TABLE qchecks(store, items, blocks, rows, kept, unlike, type)" >/dev/null
got=$(su query "SELECT count(*) FROM qsized_directory" -r)
[ "$got" = 4 ]
check $? "quotient_store(capacity = 1000) is made of 4 leaves (got '$got')"
ids 1 600 >"$tmp/events.json"
su insert events "$tmp/events.json" >/dev/null
got=$(su query "SELECT count(*) FROM qgrow_directory" -r)
[ "$got" -gt 1 ]
check $? "600 ids inserted from JSON numbers: the growing quotient_store split its leaf ($got leaves)"
ids 1 50 >"$tmp/gone.json"
ids 51 600 >"$tmp/kept.json"
for store in qgrow qsized; do
  probe="INSERT INTO hits SELECT :id WHERE EXISTS (SELECT 1 FROM $store WHERE value = :id)"
  su query "DELETE FROM hits" >/dev/null
  su bulk "$probe" "$tmp/events.json" >/dev/null
  found=$(su query "SELECT count(*) FROM hits" -r)
  su query "DELETE FROM hits" >/dev/null
  su bulk "$probe" "$tmp/absent.json" >/dev/null
  false=$(su query "SELECT count(*) FROM hits" -r)
  [ "$found" = 600 ] && [ "$false" -lt 10 ]
  check $? "$store: each id probed by bulk, bound from JSON numbers, is found ($found of 600), fewer than 10 of 100 absent ones are ($false)"
  su bulk "DELETE FROM $store WHERE value = :id" "$tmp/gone.json" >/dev/null
  su query "DELETE FROM hits" >/dev/null
  su bulk "$probe" "$tmp/kept.json" >/dev/null
  found=$(su query "SELECT count(*) FROM hits" -r)
  [ "$found" = 550 ]
  check $? "$store: after deleting 1..50 by bulk from JSON numbers, 51..600 are all found ($found of 550)"
  # The export as JSON ({"$base64": true, ...}), bound back as a BLOB by bulk.
  su query "SELECT filter AS f FROM $store" >"$tmp/export.json"
  su bulk "INSERT INTO qchecks SELECT '$store', (SELECT items FROM quotient_info(:f)),
      (SELECT blocks FROM quotient_info(:f)), (SELECT count(*) FROM ${store}_directory),
      (SELECT count(*) FROM events WHERE id <= 50 AND quotient_test(:f, id)),
      (WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1100)
       SELECT count(*) FROM s WHERE quotient_test(:f, v) != EXISTS (SELECT 1 FROM $store WHERE value = s.v)),
      typeof(:f)" "$tmp/export.json" >/dev/null
  got=$(su query "SELECT items, blocks, rows, kept, unlike, type FROM qchecks WHERE store = '$store'" --csv --no-headers | tr -d '\r')
  echo "$got" | awk -F, '$1 >= 550 && $1 <= 550 + $4 && $2 == $3 && $5 == 0 && $6 == "blob" { ok = 1 } END { exit !ok }'
  check $? "$store: SELECT filter as JSON, bound back by bulk as a blob: quotient_info counts 550 items (a delete that matched several widths removes none, and its id is still found) in as many leaves as the directory, and quotient_test answers 1..1100 as the store (items, leaves, directory, deleted still found, unlike, type: $got)"
done
echo "1..$n"
exit $failed
