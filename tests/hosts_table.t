#!/usr/bin/perl
# The README's host table tells each host how to load the extension; the
# host tests (tests/hosts/, make test-hosts) load it that way and say so
# ("loads by ..." in each scenario, next to the calls it makes).  Each
# call a host test makes to load must be in the README's recipe for that
# host, so that a recipe cannot drop a step the host needs (Python's
# enable_load_extension once was); every row of the table has a host test
# here, and every host test a row.  Prints TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Tap;
use File::Basename qw(dirname);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";

# README row label => [host test file, where its "loads by" text is].
my %hosts = (
  'sqlite3 shell'       => ['tests/hosts/shell.t', qr/loads by (.*?)"/],
  'Python `sqlite3`'    => ['tests/hosts/scenario.py',
                            qr/class StdSqlite3\b.*?self\.loads = "([^"]*)"/s],
  'APSW'                => ['tests/hosts/scenario.py',
                            qr/class Apsw\b.*?self\.loads = "([^"]*)"/s],
  'sqlite-utils'        => ['tests/hosts/scenario.py',
                            qr/class SqliteUtils\b.*?self\.loads = "([^"]*)"/s],
  'sqlite-utils (CLI)'  => ['tests/hosts/sqlite-utils-cli.t', qr/loads by (\S+?)"/],
  'Perl DBD::SQLite'    => ['tests/hosts/scenario.pl', qr/loads by (.*?)\\n"/],
  'Ruby sqlite3'        => ['tests/hosts/scenario.rb', qr/'loads by (.*?)'/],
  'Tcl sqlite3'         => ['tests/hosts/scenario.tcl', qr/loads by (.*?)"/],
  'Go mattn/go-sqlite3' => ['tests/hosts/scenario.go', qr/"(sql\.Register\(.*?\))\\n"/],
  'better-sqlite3'      => ['tests/hosts/scenario.js',
                            qr/function betterSqlite3\b.*?loads: '([^']*)'/s],
  'node-sqlite3'        => ['tests/hosts/scenario.js',
                            qr/function nodeSqlite3\b.*?loads: '([^']*)'/s],
  '`node:sqlite`'       => ['tests/hosts/scenario.js',
                            qr/function nodeSqlite\b.*?loads: "([^"]*)"/s],
  # Not loaded: linked in; the page the browser test opens starts it so.
  'a browser, WebAssembly' => ['tests/wasm/page.html', qr/await (SqliteBloom\.init\(\))/],
);
# The sqlite-utils row gives the command line and the API: both are checked
# against it.
my %row_of = ('sqlite-utils (CLI)' => 'sqlite-utils');

# The README's table: label => the "loads with" cell.
my ($readme) = slurp('README.md') =~ /^## Using it from a program\n(.*?)^## /ms;
$readme //= '';
my %cell;
while ($readme =~ /^\| ([^|]+?) \| ([^|]*(?:\|\|[^|]*)*?) \| [^|]+ \|$/mg) {
  my ($label, $loads) = ($1, $2);
  next if $label eq 'host' || $label =~ /^-+$/;
  $cell{$label} = $loads;
}
check(scalar(keys %cell) >= 10, "the README's host table has " . scalar(keys %cell) . " rows");

# The calls a "loads by" text makes: names called with '(', the shell's
# .load, the command line's --load-extension, Tcl's subcommand, options.
sub calls {
  my ($text) = @_;
  my %c;
  $c{$1} = 1 while $text =~ /([A-Za-z_][\w]*)\s*\(/g;
  $c{$1} = 1 while $text =~ /(\.load\b|--load-extension|enable_load_extension|allowExtension|Extensions)/g;
  delete $c{$_} for qw(SELECT);
  return sort keys %c;
}

for my $host (sort keys %hosts) {
  my ($file, $re) = @{ $hosts{$host} };
  my $row = $row_of{$host} // $host;
  my ($loads) = slurp($file) =~ $re;
  my $recipe = $cell{$row};
  if (!defined $loads || !defined $recipe) {
    check(0, "$host: its host test and its README row",
          defined $loads ? () : "no \"loads by\" text found in $file",
          defined $recipe ? () : "no README row \"$row\"");
    next;
  }
  my @calls = calls($loads);
  my @missing = grep { index($recipe, $_) < 0 } @calls;
  check(@calls && !@missing,
        "$host: the README's recipe has every call its host test makes to load (@calls)",
        map { "the README row \"$row\" lacks $_ (the test does: $loads)" } @missing);
}

my @untested = grep { my $l = $_; $l ne 'C, no loading' && !grep { ($row_of{$_} // $_) eq $l } keys %hosts }
               sort keys %cell;
check(!@untested, "every row of the README's host table but C has a host test",
      map { "no host test for the row \"$_\"" } @untested);
my @host_tests = glob('tests/hosts/*.t');
check(@host_tests >= scalar(keys %hosts) - 2,
      scalar(@host_tests) . " host tests under tests/hosts/ for " . scalar(keys %hosts) .
      " recipes (the Python ones share scenario.py, the Node ones scenario.js)");

# The check itself: a recipe without a step the host needs is caught.
my @caught = grep { index('conn.load_extension("./bloom")', $_) < 0 }
             calls('conn.enable_load_extension(True); conn.load_extension(path)');
check("@caught" eq 'enable_load_extension',
      "a recipe that drops enable_load_extension is caught (@caught)");

done();
