#!/usr/bin/perl
# Every name ext/ARCHITECTURE.md puts in backticks must exist, so that the
# map of the code cannot point at things that were renamed or removed; and
# every file under ext/ must be on it, so that a newcomer finds each one.
# Outside fenced blocks, each `...` span (it may cross a line break) is
# one of:
#   - a file or folder name: it has a '/' or ends in a known extension
#     (.c .h .md .mk .sh .py .a .t), with {h,c} braces expanded; it must
#     exist as a path under ext/ (ext/core/x.h for core/x.h), anywhere
#     under ext/ by its name, or, starting with tests/ or ext/, from the
#     project's root;
#   - a name: letters, digits, '_', '-', '.' and '*' (a wildcard, as in
#     cuckoo_buckets_*): each dotted part must occur as a whole word in a
#     source file under ext/ (.c .h .mk .sh: not the Markdown, which would
#     find the document itself);
#   - anything else is not checked: commands and SQL (`make test`,
#     `INTEGER PRIMARY KEY`, `trusted_schema=OFF`, `#include`), bare SQL
#     keywords (upper case without '_' or digit: `DELETE`, `IN`), and
#     names from outside the project (`libmurmurhash.a`, Debian's).
# ARCH_DOC names another document to check (default ext/ARCHITECTURE.md).
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
use File::Basename qw(dirname basename);
use File::Find qw(find);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $doc = $ENV{ARCH_DOC} // 'ext/ARCHITECTURE.md';
my %outside = map { $_ => 1 } qw(libmurmurhash.a);
my $file_ext = qr/\.(?:c|h|md|mk|sh|py|a|t)$/;

my (@files, %by_name, $source);
find({ no_chdir => 1, wanted => sub {
         return unless -f;
         push @files, $File::Find::name;
         push @{ $by_name{ basename($File::Find::name) } }, $File::Find::name;
       } }, 'ext');
for my $f (grep { /\.(?:c|h|mk|sh)$/ } sort @files) {
  open(my $fh, '<', $f) or die "$f: $!";
  local $/;
  $source .= <$fh> . "\n";
}


# 'file', 'name' or undef (not checked) for one backticked token.
sub class_of {
  my ($t) = @_;
  return undef if $outside{$t} || $t =~ /^\.\w+$/;   # `.c`: an extension
  return 'file' if $t =~ m{^[\w.{},/-]+$} &&
                   ($t =~ m{/} || $t =~ $file_ext || $t =~ /\.\{[\w,]+\}$/);
  return undef unless $t =~ /^[\w.*-]+$/ && $t =~ /[a-z_]/;
  return 'name';
}

sub file_exists {
  my ($t) = @_;
  my @paths = ($t);
  if ($t =~ /^(.*)\{([^}]*)\}(.*)$/) {
    @paths = map { "$1$_$3" } split /,/, $2;
  }
  for my $p (@paths) {
    (my $bare = $p) =~ s{/$}{};
    next if $p =~ m{^(?:ext|tests)/} && -e $bare;
    next if -e "ext/$bare";
    next if $p !~ m{/} && $by_name{$p};
    return 0;
  }
  return 1;
}

sub name_exists {
  my ($t) = @_;
  for my $part (split /\./, $t) {
    next if $part eq '';
    my $re = join '[A-Za-z0-9_]*', map { quotemeta } split /\*/, $part, -1;
    return 0 unless $source =~ /(?<![A-Za-z0-9_])$re(?![A-Za-z0-9_])/;
  }
  return 1;
}

open(my $fh, '<', $doc) or die "$doc: $!";
my $text = do { local $/; <$fh> };
close $fh;
$text =~ s/^```.*?^```//msg;
my (%seen, @names, @paths);
while ($text =~ /`([^`]+)`/g) {
  (my $t = $1) =~ s/\s+/ /g;
  next if $seen{$t}++;
  my $class = class_of($t) // next;
  push @{ $class eq 'file' ? \@paths : \@names }, $t;
}

my @missing = grep { !file_exists($_) } @paths;
check(@paths >= 20 && !@missing,
       "$doc: the " . scalar(@paths) . " file and folder names it gives exist",
       @paths < 20 ? ("only " . scalar(@paths) . " found: is the parse broken?") : (),
       map { "`$_`: no such file under ext/" } @missing);
@missing = grep { !name_exists($_) } @names;
check(@names >= 50 && !@missing,
       "$doc: the " . scalar(@names) . " names it gives occur in ext/'s sources",
       @names < 50 ? ("only " . scalar(@names) . " found: is the parse broken?") : (),
       map { "`$_`: not in any .c, .h, .mk or .sh file under ext/" } @missing);

# Every file under ext/ is on the map: named by its path, its name, or a
# brace form of them (`cuckoo.{h,c}`); naming its folder is not enough.
# Only git's tracked files count (those on
# disk outside a checkout, as in an unpacked tarball).
my @tracked = `git ls-files ext 2>/dev/null`;
chomp @tracked;
@tracked = grep { !m{/\.} } @files unless @tracked;
my %named;
for my $t (@paths) {
  my @expanded = ($t);
  @expanded = map { "$1$_$3" } split /,/, $2 if $t =~ /^(.*)\{([^}]*)\}(.*)$/;
  $named{$_} = 1 for @expanded;
}
sub named {
  my ($f) = @_;
  (my $rel = $f) =~ s{^ext/}{};
  return $named{$f} || $named{$rel} || $named{ basename($f) } ? 1 : 0;
}
my @unnamed = grep { $_ ne $doc && !named($_) } sort @tracked;
check(@tracked >= 60 && !@unnamed,
      "$doc names every one of the " . scalar(@tracked) . " files under ext/",
      map { "$_: not named" } @unnamed);

# The house style's line length (.clang-format): at most 100 columns in ext/.
my @long;
for my $f (grep { /\.[ch]$/ } @tracked) {
  open(my $src, '<', $f) or next;
  while (my $line = <$src>) {
    chomp $line;
    push @long, "$f:$.: " . length($line) . " columns" if length($line) > 100;
  }
}
check(!@long, "no line of ext/'s C is longer than 100 columns", @long);

# The check itself: names that do not exist are caught, whatever their form.
my @made_up = ('bloom_no_such_function', 'core/no_such_file.h',
               'format.{h,q}', 'no_such_prefix_*', 'filter_view.no_such_field');
my @caught = grep { my $c = class_of($_);
                    $c && ($c eq 'file' ? !file_exists($_) : !name_exists($_)) }
             @made_up;
check(@caught == @made_up, "made-up names are reported missing (@made_up)",
       "caught only: @caught");

done();
