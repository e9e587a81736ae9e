#!/usr/bin/tclsh
# The host scenario (tests/hosts/lib.sh) from Tcl's sqlite3 package
# (Debian's libsqlite3-tcl):  tclsh scenario.tcl BLOOM_SO VERSION
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# Tcl binds $var by the value's current internal representation: a value
# last used as a number binds as INTEGER or REAL, a string as TEXT, a pure
# byte array as a BLOB; @var always binds a BLOB.
package require sqlite3

lassign $argv so version
set n 0
proc ok {cond name {todo ""}} {
  global n
  incr n
  puts "[expr {$cond ? "ok" : "not ok"}] $n - $name[expr {$todo ne "" ? " # TODO $todo" : ""}]"
}

sqlite3 db :memory:
db enable_load_extension 1
db eval {SELECT load_extension($so)}
db enable_load_extension 0
puts "# host: Tcl [info patchlevel] sqlite3 [package present sqlite3]\
      (SQLite [db onecolumn {SELECT sqlite_version()}]);\
      loads by db enable_load_extension 1; db eval {SELECT load_extension(\$path)}"

set got [db onecolumn {SELECT bloom_version()}]
ok [expr {$got eq $version}] "Tcl sqlite3 loads $so: bloom_version() = $version (got $got)"

# Numbers made by expr: a literal (set cap 1000) may still be a string.
set cap [expr {1000}]
set p [expr {0.01}]
set f [db onecolumn {
  WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000)
  SELECT bloom_build(v, $cap, $p) FROM s}]
ok [expr {[string length $f] == 1344}] \
  "bloom_build comes back as a byte array of 1344 (got [string length $f])"
set in [expr {42}]
set out [expr {4242}]
set probes [list [db onecolumn {SELECT bloom_test(@f, $in)}] \
                 [db onecolumn {SELECT bloom_test(@f, $out)}]]
ok [expr {$probes eq "1 0"}] "bloom_test(@filter, \$integer): 42 in, 4242 out (got $probes)"

db eval {
  CREATE TABLE items(id INTEGER PRIMARY KEY);
  CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01);
  CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER);
  CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
    INSERT INTO seen(value) VALUES (NEW.id);
    INSERT INTO typed(value) VALUES (NEW.id);
  END;
}
db transaction {
  for {set id 1} {$id <= 100} {incr id} { db eval {INSERT INTO items(id) VALUES ($id)} }
}
set got [db onecolumn {SELECT count(*) FROM items}]
ok [expr {$got == 100}] "100 ids inserted bound as integers, in one transaction (got $got)"
set found 0
for {set id 1} {$id <= 100} {incr id} {
  incr found [db onecolumn {SELECT EXISTS (SELECT 1 FROM seen WHERE value = $id)}]
}
ok [expr {$found == 100}] "each of them probed bound as an integer is found ($found of 100)"
set false 0
for {set id 1001} {$id <= 1100} {incr id} {
  incr false [db onecolumn {SELECT EXISTS (SELECT 1 FROM seen WHERE value = $id)}]
}
ok [expr {$false < 10}] "fewer than 10 of 100 absent ids are ($false)"

set number [expr {12340 + 5}]
set text [string range "#12345" 1 end]
set types [db eval {SELECT typeof($number), typeof($text)}]
puts "# binds: 12345 -> [lindex $types 0], '12345' -> [lindex $types 1]"
ok [expr {$types eq "integer text"}] \
  "an integer binds as integer, a string '12345' as text (got $types)"
set read [string trim " 1000 "]
set err [expr {[catch {db eval {SELECT bloom_build(1, $read)}} msg] ? $msg : "no error"}]
ok [expr {$err eq "bloom_build: n must be an integer >= 1, got TEXT"}] \
  "so a number read as a string is TEXT to bloom_build's n, which says so (got: $err)"
db eval {INSERT INTO items(id) VALUES ($text)}
set got [db onecolumn {SELECT typeof(id) FROM items WHERE id = 12345}]
ok [expr {$got eq "integer"}] "the id '12345' bound as text is stored as an integer (got $got)"
set text [string range "#12345" 1 end]
ok [expr {[db onecolumn {SELECT EXISTS (SELECT 1 FROM seen WHERE value = $text)}] == 1}] \
  "a probe bound as text '12345' finds it" \
  "a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345;\
   create it with affinity = INTEGER, bind an integer, or CAST"
ok [expr {[db onecolumn {
  SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST($text AS INTEGER))}] == 1}] \
  "a probe written CAST(\$text AS INTEGER) finds it"
set got [db onecolumn {SELECT EXISTS (SELECT 1 FROM typed WHERE value = $text)}]
ok [expr {$got == 1}] \
  "a probe of the affinity = INTEGER store bound as text '12345' finds it (got $got)"
set abc abc
set other [string range "#12346" 1 end]
set got [db eval {SELECT EXISTS (SELECT 1 FROM typed WHERE value = $abc),
                         EXISTS (SELECT 1 FROM typed WHERE value = $other),
                         typeof($abc), typeof($other)}]
ok [expr {$got eq "0 0 text text"}] \
  "and ones bound as text 'abc' and '12346' do not (got $got)"

set export [db onecolumn {SELECT filter FROM seen}]
set same [db onecolumn {SELECT @export = (SELECT bloom_build(id, 1000, 0.01) FROM items)}]
set member [db onecolumn {SELECT bloom_test(@export, 12345)}]
ok [expr {[string length $export] > 0 && $same == 1 && $member == 1}] \
  "SELECT filter comes back as a byte array, bloom_build's over the table, with 12345 in it\
   (same $same, member $member)"

# Step 6: quotient stores, growing and sized, kept by a trigger.
db eval {
  CREATE TABLE events(id INTEGER PRIMARY KEY);
  CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01);
  CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01);
  CREATE TRIGGER events_q AFTER INSERT ON events BEGIN
    INSERT INTO qgrow(value) VALUES (NEW.id);
    INSERT INTO qsized(value) VALUES (NEW.id);
  END;
}
set got [db onecolumn {SELECT count(*) FROM qsized_directory}]
ok [expr {$got == 4}] "quotient_store(capacity = 1000) is made of 4 leaves (got $got)"
db transaction {
  for {set id 1} {$id <= 600} {incr id} { db eval {INSERT INTO events(id) VALUES ($id)} }
}
set got [db onecolumn {SELECT count(*) FROM qgrow_directory}]
ok [expr {$got > 1}] \
  "600 ids inserted bound as integers: the growing quotient_store split its leaf ($got leaves)"
foreach store {qgrow qsized} {
  set q "SELECT EXISTS (SELECT 1 FROM $store WHERE value = \$id)"
  set found 0
  for {set id 1} {$id <= 600} {incr id} { incr found [db onecolumn $q] }
  set false 0
  for {set id 1001} {$id <= 1100} {incr id} { incr false [db onecolumn $q] }
  ok [expr {$found == 600 && $false < 10}] "$store: each id probed bound as an integer is\
    found ($found of 600), fewer than 10 of 100 absent ones are ($false)"
  for {set id 1} {$id <= 50} {incr id} { db eval "DELETE FROM $store WHERE value = \$id" }
  set found 0
  for {set id 51} {$id <= 600} {incr id} { incr found [db onecolumn $q] }
  ok [expr {$found == 550}] \
    "$store: after deleting 1..50 bound as integers, 51..600 are all found ($found of 550)"
  set blob [db onecolumn "SELECT filter FROM $store"]
  set info [list [db onecolumn {SELECT items FROM quotient_info(@blob)}] \
                 [db onecolumn {SELECT blocks FROM quotient_info(@blob)}] \
                 [db onecolumn "SELECT count(*) FROM ${store}_directory"] \
                 [db onecolumn {SELECT count(*) FROM events WHERE id <= 50
                                AND quotient_test(@blob, id)}]]
  set unlike [db onecolumn "WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s
    WHERE v < 1100) SELECT count(*) FROM s WHERE quotient_test(@blob, v)
    != EXISTS (SELECT 1 FROM $store WHERE value = s.v)"]
  lassign $info items blocks rows kept
  ok [expr {[string length $blob] > 0 && $items >= 550 && $items <= 550 + $kept
            && $blocks == $rows && $unlike == 0}] \
    "$store: SELECT filter comes back as a byte array; bound as @blob, quotient_info counts\
     550 items (a delete that matched several widths removes none, and its id is still\
     found) in as many leaves as the directory, and quotient_test answers 1..1100 as the\
     store (items, leaves, directory, deleted still found: $info; $unlike unlike)"
}
db close
puts "1..$n"
