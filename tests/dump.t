#!/bin/sh
# A database holding a bloom_store, a cuckoo_store, a scalable bloom_store, a windowed one
# and a quotient_store (grown to several leaves), written out with the sqlite3 shell's .dump
# and read back into a new database: the stores answer as before (the export byte for byte),
# integrity_check is ok, the quotient_store exports the same after VACUUM (into another page
# size too), and the restored stores take new inserts.  BLOOM_SO names the extension;
# BLOOM_PRELOAD is preloaded (the ASan runtime for a sanitizer build).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
so=${BLOOM_SO:-./bloom.so}
so=${so%.so}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
shell() { # shell DB SQL...: the sqlite3 shell with the extension loaded
  db=$1
  shift
  LD_PRELOAD=${BLOOM_PRELOAD:-} ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 \
    sqlite3 -batch -bail "$db" ".load $so" "$@"
}
n=0
fail=0
check() { # check WHAT GOT WANT
  n=$((n + 1))
  if [ "$2" = "$3" ]; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    echo "#   got:  $2"
    echo "#   want: $3"
    fail=1
  fi
}

shell "$dir/a.db" \
  "CREATE TABLE items(v);" \
  "INSERT INTO items WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) SELECT 'item-' || i FROM c;" \
  "CREATE VIRTUAL TABLE b USING bloom_store(capacity = 5000, fpr = 0.01);" \
  "INSERT INTO b(value) SELECT v FROM items;" \
  "CREATE VIRTUAL TABLE c USING cuckoo_store(capacity = 5000, fpr = 0.01);" \
  "INSERT INTO c(value) SELECT v FROM items;" \
  "CREATE VIRTUAL TABLE g USING bloom_store(capacity = 200, growth = 2);" \
  "INSERT INTO g(value) SELECT v FROM items;" \
  "CREATE VIRTUAL TABLE w USING bloom_store(window = 3600, clock = 'events');" \
  "INSERT INTO w(value, at) SELECT v, 1000000 + rowid * 2 FROM items;" \
  "CREATE VIRTUAL TABLE q USING quotient_store(fpr = 0.01);" \
  "INSERT INTO q(value) SELECT v FROM items;" \
  "INSERT INTO q(value) VALUES ('item-1');" \
  "CREATE TABLE saved AS SELECT (SELECT filter FROM b) AS bf, (SELECT filter FROM c) AS cf, (SELECT filter FROM g) AS gf, (SELECT filter FROM w) AS wf, (SELECT filter FROM q) AS qf;" \
  >/dev/null
shell "$dir/a.db" ".dump" >"$dir/dump.sql"
rows=$(grep -c 'INSERT INTO \(b\|c\|g\|w\|q\)_chunks' "$dir/dump.sql")
check ".dump writes the stores' chunk rows ($rows)" "$([ "$rows" -gt 0 ] && echo yes)" "yes"
shell "$dir/b.db" ".read $dir/dump.sql" >/dev/null 2>"$dir/err"
check "the dump reads back into a new database" "$(cat "$dir/err")" ""
check "the restored bloom_store exports the same filter" \
  "$(shell "$dir/b.db" "SELECT (SELECT filter FROM b) = (SELECT bf FROM saved);")" "1"
check "the restored cuckoo_store exports the same filter" \
  "$(shell "$dir/b.db" "SELECT (SELECT filter FROM c) = (SELECT cf FROM saved);")" "1"
check "the restored scalable bloom_store exports the same layered filter" \
  "$(shell "$dir/b.db" "SELECT (SELECT filter FROM g) = (SELECT gf FROM saved) AND (SELECT value FROM g_config WHERE key = 'layers') > 1;")" "1"
check "the restored windowed bloom_store exports the same live generations" \
  "$(shell "$dir/b.db" "SELECT (SELECT filter FROM w) = (SELECT wf FROM saved) AND (SELECT count(*) FROM w WHERE generation IS NOT NULL) = 9;")" "1"
leaves=$(grep -c 'INSERT INTO "\?q_directory' "$dir/dump.sql")
check ".dump writes the quotient_store's directory rows ($leaves leaves)" "$([ "$leaves" -gt 1 ] && echo yes)" "yes"
check "the restored quotient_store exports the same filter, of several leaves" \
  "$(shell "$dir/b.db" "SELECT (SELECT filter FROM q) = (SELECT qf FROM saved) AND (SELECT count(*) FROM q_directory) = $leaves;")" "1"
check "every item is in the four restored stores" \
  "$(shell "$dir/b.db" "SELECT count(*) FROM items WHERE NOT EXISTS (SELECT 1 FROM b WHERE value = items.v) OR NOT EXISTS (SELECT 1 FROM c WHERE value = items.v) OR NOT EXISTS (SELECT 1 FROM g WHERE value = items.v) OR NOT EXISTS (SELECT 1 FROM q WHERE value = items.v);")" "0"
check "the quotient_store's answers for 3,000 items and 20,000 others are its saved export's" \
  "$(shell "$dir/b.db" "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000), p(v) AS (SELECT v FROM items UNION ALL SELECT 'other-' || i FROM c) SELECT count(*) FROM p WHERE EXISTS (SELECT 1 FROM q WHERE value = p.v) IS NOT quotient_test((SELECT qf FROM saved), p.v);")" "0"
check "after VACUUM the quotient_store exports the same filter" \
  "$(shell "$dir/b.db" "VACUUM;" "SELECT (SELECT filter FROM q) = (SELECT qf FROM saved);")" "1"
check "after VACUUM into 512-byte pages too, and it holds every item" \
  "$(shell "$dir/b.db" "PRAGMA page_size = 512;" "VACUUM;" "SELECT (SELECT filter FROM q) = (SELECT qf FROM saved) AND NOT EXISTS (SELECT 1 FROM items WHERE NOT EXISTS (SELECT 1 FROM q WHERE value = items.v)) AND (SELECT page_size FROM pragma_page_size) = 512;")" "1"
check "integrity_check is ok after the restore" \
  "$(shell "$dir/b.db" "PRAGMA integrity_check;")" "ok"
check "the restored stores take new inserts" \
  "$(shell "$dir/b.db" "INSERT INTO b(value) VALUES ('new'); INSERT INTO c(value) VALUES ('new'); INSERT INTO g(value) VALUES ('new'); INSERT INTO w(value) VALUES ('new'); INSERT INTO q(value) VALUES ('new'); SELECT EXISTS (SELECT 1 FROM b WHERE value = 'new') AND EXISTS (SELECT 1 FROM c WHERE value = 'new') AND EXISTS (SELECT 1 FROM g WHERE value = 'new') AND EXISTS (SELECT 1 FROM w WHERE value = 'new') AND EXISTS (SELECT 1 FROM q WHERE value = 'new') AND (SELECT items FROM quotient_info((SELECT filter FROM q))) = 3002;")" "1"
echo "1..$n"
exit $fail
