#!/usr/bin/perl
# The host scenario (tests/hosts/lib.sh) from Perl's DBI with DBD::SQLite
# (Debian's libdbd-sqlite3-perl):  perl scenario.pl BLOOM_SO VERSION
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# DBD::SQLite binds every parameter as TEXT unless told otherwise, Perl
# numbers included: numbers and blobs are bound with a type
# (bind_param(..., SQL_INTEGER), SQL_BLOB), or, for numbers, with
# $dbh->{sqlite_see_if_its_a_number} = 1.
use strict;
use warnings;
use DBI qw(:sql_types);

my ($so, $version) = @ARGV;
my $n = 0;
sub ok {
  my ($cond, $name, $todo) = @_;
  $n++;
  print(($cond ? "ok" : "not ok") . " $n - $name" . ($todo ? " # TODO $todo" : "") . "\n");
}

my $dbh = DBI->connect("dbi:SQLite:dbname=:memory:", "", "",
                       { RaiseError => 1, PrintError => 0, AutoCommit => 1 });
$dbh->sqlite_enable_load_extension(1);
$dbh->sqlite_load_extension($so);
$dbh->sqlite_enable_load_extension(0);
print "# host: Perl DBD::SQLite $DBD::SQLite::VERSION (SQLite @{[ $dbh->selectrow_array('SELECT sqlite_version()') ]}); ",
      "loads by \$dbh->sqlite_enable_load_extension(1); \$dbh->sqlite_load_extension(\$path)\n";

# The first column of the first row; each parameter [value, SQL type] or a
# plain value (bound without a type: DBD::SQLite's default).
sub one {
  my ($sql, @params) = @_;
  my $sth = $dbh->prepare($sql);
  my $i = 0;
  for my $p (@params) {
    $i++;
    ref $p ? $sth->bind_param($i, $p->[0], $p->[1]) : $sth->bind_param($i, $p);
  }
  $sth->execute;
  my @row = $sth->fetchrow_array;
  $sth->finish;
  return $row[0];
}
sub int_ { [$_[0], SQL_INTEGER] }
sub blob { [$_[0], SQL_BLOB] }

my $got = one("SELECT bloom_version()");
ok($got eq $version, "DBD::SQLite loads $so: bloom_version() = $version (got '$got')");

my $f = one("WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000)"
            . " SELECT bloom_build(v, ?, ?) FROM s", int_(1000), [0.01, SQL_DOUBLE]);
ok(defined $f && length($f) == 1344, "bloom_build comes back as a byte string of 1344 (got "
   . length($f // '') . ")");
my @probes = (one("SELECT bloom_test(?, ?)", blob($f), int_(42)),
              one("SELECT bloom_test(?, ?)", blob($f), int_(4242)));
ok("@probes" eq "1 0", "bloom_test(filter bound SQL_BLOB, SQL_INTEGER): 42 in, 4242 out (got @probes)");

$dbh->do($_) for (
  "CREATE TABLE items(id INTEGER PRIMARY KEY)",
  "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01)",
  "CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER)",
  "CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
     INSERT INTO seen(value) VALUES (NEW.id);
     INSERT INTO typed(value) VALUES (NEW.id);
   END");
$dbh->begin_work;
my $insert = $dbh->prepare("INSERT INTO items(id) VALUES (?)");
for my $id (1 .. 100) { $insert->bind_param(1, $id, SQL_INTEGER); $insert->execute }
$dbh->commit;
$got = one("SELECT count(*) FROM items");
ok($got == 100, "100 ids inserted bound SQL_INTEGER, in one transaction (got $got)");
my $probe = "SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?)";
my ($found, $false) = (0, 0);
$found += one($probe, int_($_)) for 1 .. 100;
ok($found == 100, "each of them probed bound SQL_INTEGER is found ($found of 100)");
$false += one($probe, int_($_)) for 1001 .. 1100;
ok($false < 10, "fewer than 10 of 100 absent ids are ($false)");

my $number = 12345;
my @types = (one("SELECT typeof(?)", $number), one("SELECT typeof(?)", "12345"),
             one("SELECT typeof(?)", int_($number)));
print "# binds: 12345 -> $types[0], '12345' -> $types[1], 12345 as SQL_INTEGER -> $types[2]\n";
ok("@types" eq "text text integer", "a Perl number binds as text unless typed: "
   . "12345 -> $types[0], '12345' -> $types[1], SQL_INTEGER -> $types[2]");
$found = 0;
$found += one($probe, $_) for 1 .. 100;
ok($found == 0, "so ids probed bound untyped find none of the 100 integers ($found)");
{
  local $dbh->{sqlite_see_if_its_a_number} = 1;
  $got = one("SELECT typeof(?)", $number);
  $found = 0;
  $found += one($probe, $_) for 1 .. 100;
  ok($got eq 'integer' && $found == 100, "with sqlite_see_if_its_a_number, a number binds as "
     . "$got and finds them all ($found)");
}
$insert->bind_param(1, "12345", SQL_VARCHAR);
$insert->execute;
$got = one("SELECT typeof(id) FROM items WHERE id = 12345");
ok($got eq 'integer', "the id '12345' bound as text is stored as an integer (got $got)");
ok(one($probe, "12345") == 1, "a probe bound as text '12345' finds it",
   "a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345; "
   . "create it with affinity = INTEGER, bind SQL_INTEGER, or CAST");
ok(one("SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST(? AS INTEGER))", "12345") == 1,
   "a probe written CAST(? AS INTEGER), bound as text, finds it");
my $typed = "SELECT EXISTS (SELECT 1 FROM typed WHERE value = ?)";
$got = one($typed, "12345");
ok($got == 1, "a probe of the affinity = INTEGER store bound as text '12345' finds it (got $got)");
my @misses = (one($typed, "abc"), one($typed, "12346"));
ok("@misses" eq "0 0", "and ones bound as text 'abc' and '12346' do not (got @misses)");

my $export = one("SELECT filter FROM seen");
my $same = one("SELECT ? = (SELECT bloom_build(id, 1000, 0.01) FROM items)", blob($export));
my $member = one("SELECT bloom_test(?, 12345)", blob($export));
ok(defined $export && $same == 1 && $member == 1, "SELECT filter comes back as a byte string, "
   . "bloom_build's over the table, with 12345 in it (same $same, member $member)");
$got = eval { one("SELECT bloom_test(?, 1)", $export) } // $dbh->errstr;
ok($got =~ /must be a BLOB, got TEXT/, "an untyped filter binds as text, and bloom_test says so "
   . "(got: $got)");

# Step 6: quotient stores, growing and sized, kept by a trigger.
$dbh->do($_) for (
  "CREATE TABLE events(id INTEGER PRIMARY KEY)",
  "CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01)",
  "CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01)",
  "CREATE TRIGGER events_q AFTER INSERT ON events BEGIN
     INSERT INTO qgrow(value) VALUES (NEW.id);
     INSERT INTO qsized(value) VALUES (NEW.id);
   END");
$got = one("SELECT count(*) FROM qsized_directory");
ok($got == 4, "quotient_store(capacity = 1000) is made of 4 leaves (got $got)");
$dbh->begin_work;
$insert = $dbh->prepare("INSERT INTO events(id) VALUES (?)");
for my $id (1 .. 600) { $insert->bind_param(1, $id, SQL_INTEGER); $insert->execute }
$dbh->commit;
$got = one("SELECT count(*) FROM qgrow_directory");
ok($got > 1, "600 ids inserted bound SQL_INTEGER: the growing quotient_store split its leaf "
   . "($got leaves)");
for my $store (qw(qgrow qsized)) {
  my $q = "SELECT EXISTS (SELECT 1 FROM $store WHERE value = ?)";
  ($found, $false) = (0, 0);
  $found += one($q, int_($_)) for 1 .. 600;
  $false += one($q, int_($_)) for 1001 .. 1100;
  ok($found == 600 && $false < 10, "$store: each id probed bound SQL_INTEGER is found "
     . "($found of 600), fewer than 10 of 100 absent ones are ($false)");
  my $delete = $dbh->prepare("DELETE FROM $store WHERE value = ?");
  for my $id (1 .. 50) { $delete->bind_param(1, $id, SQL_INTEGER); $delete->execute }
  $found = 0;
  $found += one($q, int_($_)) for 51 .. 600;
  ok($found == 550, "$store: after deleting 1..50 bound SQL_INTEGER, 51..600 are all found "
     . "($found of 550)");
  my $blob = one("SELECT filter FROM $store");
  my @info = (one("SELECT items FROM quotient_info(?)", blob($blob)),
              one("SELECT blocks FROM quotient_info(?)", blob($blob)),
              one("SELECT count(*) FROM ${store}_directory"),
              one("SELECT count(*) FROM events WHERE id <= 50 AND quotient_test(?, id)",
                  blob($blob)));
  my $unlike = one("WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s "
                   . "WHERE v < 1100) SELECT count(*) FROM s WHERE quotient_test(?, v) "
                   . "!= EXISTS (SELECT 1 FROM $store WHERE value = s.v)", blob($blob));
  ok(defined $blob && $info[0] >= 550 && $info[0] <= 550 + $info[3] && $info[1] == $info[2]
     && $unlike == 0, "$store: SELECT filter comes back as a byte string; bound SQL_BLOB, "
     . "quotient_info counts 550 items (a delete that matched several widths removes none, "
     . "and its id is still found) in as many leaves as the directory, and quotient_test "
     . "answers 1..1100 as the store (items, leaves, directory, deleted still found: @info; "
     . "$unlike unlike)");
}
print "1..$n\n";
