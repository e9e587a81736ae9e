# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# TAP for the Perl test scripts (tests/*.t): check() prints one numbered
# test and its diagnostics when it fails, slurp() reads a file whole ('' if
# it cannot), done() prints the plan and exits 1 if any test failed.
package Tap;
use strict;
use warnings;
use Exporter qw(import);
our @EXPORT = qw(check slurp done);

my $n = 0;
my $failed = 0;

sub check {
  my ($ok, $name, @diag) = @_;
  $n++;
  print(($ok ? "ok" : "not ok") . " $n - $name\n");
  unless ($ok) {
    print "#   $_\n" for map { split /\n/ } @diag;
    $failed = 1;
  }
  return $ok;
}

sub slurp {
  my ($path) = @_;
  open(my $fh, '<', $path) or return '';
  local $/;
  return scalar <$fh>;
}

sub done {
  print "1..$n\n";
  exit($failed ? 1 : 0);
}

1;
