#!/usr/bin/perl
# Runs the examples in README.md and checks their output, so the reference
# cannot drift from the code.  An example is a fenced block whose first line
# starts with "sqlite> ": each "sqlite> " line (with "   ...> " continuation
# lines) is one statement, run in a fresh in-memory database with the
# extension loaded, and the lines after it, up to the next statement, are its
# exact expected output.  Errors are compared as "Error: <message>".
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempfile);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $so = $ENV{BLOOM_SO} // './bloom.so';
$so =~ s/\.so$//;

open(my $fh, '<', 'README.md') or die "README.md: $!";
my @lines = <$fh>;
close $fh;

# $block: undef outside a fence, 'new' on its first line, then 'example'
# (the block opened with a statement) or 'other'.
my (@examples, $block, $current);
for my $line (@lines) {
  chomp $line;
  if ($line =~ /^```/) {
    $block = defined $block ? undef : 'new';
    undef $current;
    next;
  }
  next unless defined $block;
  $block = $line =~ /^sqlite> / ? 'example' : 'other' if $block eq 'new';
  next unless $block eq 'example';
  if ($line =~ /^sqlite> (.*)$/) {
    $current = { sql => $1, want => [] };
    push @examples, $current;
  } elsif ($line =~ /^\s*\.\.\.> (.*)$/ && !@{ $current->{want} }) {
    $current->{sql} .= "\n$1";
  } else {
    push @{ $current->{want} }, $line;
  }
}

# A sanitizer build of the extension loads only with its runtime preloaded.
$ENV{LD_PRELOAD} = $ENV{BLOOM_PRELOAD} if $ENV{BLOOM_PRELOAD};
$ENV{ASAN_OPTIONS} = ($ENV{ASAN_OPTIONS} // '') . ':detect_leaks=0';

my $n = 0;
my $failed = 0;
for my $ex (@examples) {
  my ($tmp, $path) = tempfile(UNLINK => 1);
  print $tmp ".load $so\n$ex->{sql}\n";
  close $tmp;
  my @got = `sqlite3 -batch :memory: < '$path' 2>&1`;
  chomp @got;
  s/^(?:Runtime|Parse) error near line \d+: /Error: /, s/^Error: (?:stepping|in prepare), /Error: / for @got;
  my $ok = join("\n", @got) eq join("\n", @{ $ex->{want} });
  $n++;
  (my $name = $ex->{sql}) =~ s/\s+/ /g;
  $name = substr($name, 0, 90) . '...' if length $name > 93;
  print(($ok ? "ok" : "not ok") . " $n - README: $name\n");
  unless ($ok) {
    $failed = 1;
    print "#   want: $_\n" for @{ $ex->{want} };
    print "#   got:  $_\n" for @got;
  }
}
print "not ok 1 - README holds no examples\n" and $failed = 1 and $n = 1 unless $n;
print "1..$n\n";
exit $failed;
