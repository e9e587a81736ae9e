#!/usr/bin/perl
# One version number: BLOOM_VERSION in ext/sqlite3_bloom.h, which the
# Makefile reads for the packages (make test-dist checks the packages).
# Fails when any of these disagree with it: the Makefile's `make version`,
# bloom_version() of the built extension (BLOOM_SO, default ./bloom.so;
# BLOOM_PRELOAD is preloaded, the ASan runtime for a sanitizer build), the
# newest section of ext/CHANGES.md (sections "## X.Y.Z (YYYY-MM-DD)", newest
# first), and every version of bloom that README.md and ext/REFERENCE.md
# mention (an X.Y.Z not part of a longer dotted number, nor the version of
# other software named just before it, as in "SQLite 3.40.1"); and no file
# of ext/packaging/ may write the version (the packages are labelled from
# make version when built, and tests/dist/ checks each).  Prints TAP.
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
my $semver = qr/\d+\.\d+\.\d+/;

my @defines = slurp('ext/sqlite3_bloom.h') =~ /^#define BLOOM_VERSION "([^"]*)"$/mg;
my $version = $defines[0] // '';
check(@defines == 1 && $version =~ /^$semver$/,
      "ext/sqlite3_bloom.h defines BLOOM_VERSION once, as X.Y.Z: '$version'");

# As a user runs it: not as a sub-make of make test's (its jobserver).
my $make = `env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory version 2>&1`;
chomp $make;
check($make eq $version, "make version (what the packages are labelled) says $version",
      "got: $make");

my $so = $ENV{BLOOM_SO} // './bloom.so';
$so =~ s/\.so$//;
$so = "./$so" unless $so =~ m{/};
local $ENV{LD_PRELOAD} = $ENV{BLOOM_PRELOAD} // '';
local $ENV{ASAN_OPTIONS} = ($ENV{ASAN_OPTIONS} // '') . ':detect_leaks=0';
my $answer = `sqlite3 :memory: '.load $so' 'SELECT bloom_version();' 2>&1`;
chomp $answer;
check($answer eq $version, "bloom_version() of $so.so answers $version", "got: $answer");

my $changes = slurp('ext/CHANGES.md');
my @sections = $changes =~ /^## (.*)$/mg;
my @bad = grep { !/^$semver \(\d{4}-\d\d-\d\d\)$/ } @sections;
check(@sections && !@bad, "ext/CHANGES.md: " . scalar(@sections)
      . " sections, each headed \"## X.Y.Z (YYYY-MM-DD)\"", map { "heading: ## $_" } @bad);
my @versions = map { /^($semver)/ ? $1 : '' } @sections;
check(@versions && $versions[0] eq $version,
      "the newest section of ext/CHANGES.md is $version", "first: " . ($versions[0] // 'none'));
my $ordered = 1;
for my $i (1 .. $#versions) {
  my @a = split /\./, $versions[$i - 1];
  my @b = split /\./, $versions[$i];
  my $cmp = $a[0] <=> $b[0] || $a[1] <=> $b[1] || $a[2] <=> $b[2];
  $ordered = 0 unless $cmp > 0;
}
check($ordered, "its sections are newest first, each version once: @versions");

my $others = qr/(?:sqlite3?|dqlite|libdqlite\S*|raft|python3?|gcc|clang|glibc|debian|apsw|ruby|tcl|go|node(?:\.js)?|better-sqlite3|node-sqlite3|mattn\/go-sqlite3|sqlite-utils|dbd::sqlite)(?:\s+version)?\s+$/i;
for my $doc ('README.md', 'ext/REFERENCE.md') {
  my $text = slurp($doc);
  my (@same, @other);
  while ($text =~ /(?<![\d.])($semver)(?!\.?\d)/g) {
    my ($found, $at) = ($1, $-[1]);
    next if substr($text, $at > 40 ? $at - 40 : 0, $at > 40 ? 40 : $at) =~ $others;
    my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
    if ($found eq $version) { push @same, $line } else { push @other, "line $line: $found" }
  }
  check(!@other && ($doc ne 'ext/REFERENCE.md' || @same),
        "$doc mentions no other version of bloom than $version (" . scalar(@same)
        . " mentions)", @other);
}

# The packages (make dist: the Debian package, the wheel, the npm package)
# are labelled with make version at build time; tests/dist/ checks each.
# So no packaging source may write the version itself.
my @packaging = grep { -f } split /\n/, `git ls-files ext/packaging 2>/dev/null`;
@packaging = grep { -f } glob('ext/packaging/* ext/packaging/*/* ext/packaging/*/*/*')
  unless @packaging;
my @written = grep { slurp($_) =~ /(?<![\d.])\Q$version\E(?![\d.])/ } @packaging;
check(@packaging && !@written, "no file of ext/packaging/ (" . scalar(@packaging)
      . " files) writes $version: the packages take it from make version",
      map { "writes it: $_" } @written);

done();
