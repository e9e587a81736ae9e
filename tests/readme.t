#!/usr/bin/perl
# Runs the examples of the documentation and checks their output, so the
# reference cannot drift from the code.  The documents are README.md, then
# every *.md under ext/ and tests/ in sorted order; README.md and
# ext/REFERENCE.md must each hold at least one example.  An example is a
# fenced block whose first line starts with "sqlite> ": each "sqlite> " line
# (with "   ...> " continuation lines) is one statement, run in a fresh
# in-memory database with the extension loaded, and the lines after it, up
# to the next statement, are its exact expected output.  Errors are compared
# as "Error: <message>".  Each document's relative links must also lead to
# a file that exists and, with a #fragment, to one of its headings (as
# GitHub makes anchors of them), since the documents link into each other.
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
use File::Find qw(find);
use File::Temp qw(tempfile);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $so = $ENV{BLOOM_SO} // './bloom.so';
$so =~ s/\.so$//;

my @more;
find({ no_chdir => 1,
       wanted => sub { push @more, $File::Find::name if -f && /\.md$/ } },
     grep { -d } qw(ext tests));
my @required = ('README.md', 'ext/REFERENCE.md');
my %more = map { $_ => 1 } @more, grep { $_ ne 'README.md' } @required;
my @docs = ('README.md', sort keys %more);

# The examples of one document, in order: { sql, want => [lines] }.
sub examples {
  my ($doc) = @_;
  open(my $fh, '<', $doc) or die "$doc: $!";
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
  return @examples;
}

# A sanitizer build of the extension loads only with its runtime preloaded.
$ENV{LD_PRELOAD} = $ENV{BLOOM_PRELOAD} if $ENV{BLOOM_PRELOAD};
$ENV{ASAN_OPTIONS} = ($ENV{ASAN_OPTIONS} // '') . ':detect_leaks=0';


for my $doc (@docs) {
  my @examples = -f $doc ? examples($doc) : ();
  check(0, "$doc holds no example")
    if !@examples && grep { $_ eq $doc } @required;
  for my $ex (@examples) {
    my ($tmp, $path) = tempfile(UNLINK => 1);
    print $tmp ".load $so\n$ex->{sql}\n";
    close $tmp;
    my @got = `sqlite3 -batch :memory: < '$path' 2>&1`;
    chomp @got;
    s/^(?:Runtime|Parse) error near line \d+: /Error: /, s/^Error: (?:stepping|in prepare), /Error: / for @got;
    my $ok = join("\n", @got) eq join("\n", @{ $ex->{want} });
    (my $name = $ex->{sql}) =~ s/\s+/ /g;
    $name = substr($name, 0, 80) . '...' if length $name > 83;
    check($ok, "$doc: $name");
    unless ($ok) {
      print "#   want: $_\n" for @{ $ex->{want} };
      print "#   got:  $_\n" for @got;
    }
  }
}
# GitHub's anchor for a heading: lower case, punctuation but '-' and '_'
# dropped, spaces turned into '-', "-1", "-2"... for repeats.
sub anchors {
  my ($doc) = @_;
  open(my $fh, '<:encoding(UTF-8)', $doc) or return;
  my (%seen, $fence);
  my %anchors;
  while (my $line = <$fh>) {
    $fence = !$fence, next if $line =~ /^```/;
    next if $fence || $line !~ /^#+ +(.*?)\s*$/;
    (my $a = lc $1) =~ s/[^\p{L}\p{M}\p{N}\p{Pc} -]//g;
    $a =~ tr/ /-/;
    $anchors{ $seen{$a}++ ? "$a-" . ($seen{$a} - 1) : $a } = 1;
  }
  return \%anchors;
}

for my $doc (grep { -f } @docs) {
  open(my $fh, '<:encoding(UTF-8)', $doc) or die "$doc: $!";
  my $text = do { local $/; <$fh> };
  close $fh;
  $text =~ s/^```.*?^```//msg;
  my (@bad, $links);
  while ($text =~ /\]\(([^()\s]+)\)/g) {
    my ($file, $frag) = split /#/, $1, 2;
    next if $file =~ m{^[a-z]+:};
    $links++;
    my $target = $file eq '' ? $doc : dirname($doc) . "/$file";
    if (!-e $target) {
      push @bad, "$1: no such file";
    } elsif (defined $frag && !(anchors($target) // {})->{$frag}) {
      push @bad, "$1: no such heading";
    }
  }
  next unless $links;
  check(!@bad, "$doc: its $links links lead somewhere");
  print "#   $_\n" for @bad;
}

done();
