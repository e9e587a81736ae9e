#!/usr/bin/perl
# Every shell command README.md and ext/REFERENCE.md give is run by a test,
# as their sqlite> examples are by tests/readme.t, so no recipe can stop
# building unnoticed.  A shell command is each command of an indented code
# block (a trailing \ continues it; a "  # comment" is dropped), the "$ "
# line opening a fenced block, and an inline code span whose first word,
# after any VAR=value words, is a program of @programs (`make` alone, the
# others with an argument).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# Each must have an entry in %recipes: `run`, run here from a scratch
# directory (the static link first, then the others) with its result
# checked; or `by`, the test or make rule that runs it, which must contain
# the text given (so it cannot drift away unnoticed); `make test` itself is
# run by CI (.ci/run).  A command with no entry fails, and so does an entry
# whose command no document gives any more.  The ASan pass skips this test
# (BLOOM_PRELOAD set): the plain pass runs it.  Prints TAP.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Tap;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Temp qw(tempdir);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $repo = abs_path('.');
if ($ENV{BLOOM_PRELOAD}) {
  print "1..0 # SKIP the documented commands run in the plain pass\n";
  exit 0;
}
my $so = abs_path($ENV{BLOOM_SO} // './bloom.so');
chomp(my $version = `env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory version`);
my %in_env = (MAKEFLAGS => undef, MFLAGS => undef, MAKELEVEL => undef);

# --- the commands of the documents ------------------------------------------
my @programs = qw(make cc sqlite3 python3 /usr/bin/python3 pip npm node go perl ruby
                  tclsh sqlite-utils apt-get pkg-config ./configure pyenv prove git
                  ldconfig build/bloom-dqlite-node);
my %program = map { $_ => 1 } @programs;
sub is_command {
  my @words = split ' ', $_[0];
  shift @words while @words && $words[0] =~ /^[A-Z_][A-Z0-9_]*=\S/;
  return @words && $program{$words[0]} && ($words[0] eq 'make' || @words > 1);
}
# doc => [ [command, kind, line], ... ], and the fenced sessions' lines.
my (%commands, %session);
for my $doc ('README.md', 'ext/REFERENCE.md') {
  my @lines = split /\n/, slurp($doc);
  my ($fence, $opening, $code, $blank, $cont, $prose, $in_session) = (0, 0, 0, 1, '', '', 0);
  for my $i (0 .. $#lines) {
    my $line = $lines[$i];
    if ($line =~ /^```/) {
      ($fence, $opening, $in_session) = (!$fence, !$fence, 0);
      $prose .= "\n";
      next;
    }
    if ($fence) {
      if ($opening && $line =~ /^\$ (.*)$/) {
        push @{ $commands{$doc} }, [$1, 'session', $i + 1];
        $in_session = $1;
      } elsif ($in_session) {
        push @{ $session{$in_session} }, $line;
      }
      $opening = 0;
      next;
    }
    if (($code || $blank) && $line =~ /^ {4}\S/ || $cont ne '' && $line =~ /^\s+\S/) {
      $code = 1;
      (my $c = $cont . $line) =~ s/^\s+//;
      if ($c =~ s/\\$//) { $cont = $c; next }
      $cont = '';
      $c =~ s/\s{2,}#.*$//;
      $c =~ s/\s+/ /g;
      push @{ $commands{$doc} }, [$c, 'block', $i + 1];
      next;
    }
    $code = 0 if $line =~ /\S/;
    $blank = $line !~ /\S/;
    $prose .= "$line\n";
  }
  while ($prose =~ /`([^`]+)`/g) {
    (my $span = $1) =~ s/\s+/ /g;
    push @{ $commands{$doc} }, [$span, 'inline', 0] if is_command($span);
  }
}

# --- how each is run ---------------------------------------------------------
my $scratch = tempdir(CLEANUP => 1);
# sh COMMAND in DIR: its output and exit status, as a user's shell runs it.
sub sh_in {
  my ($dir, $command) = @_;
  local @ENV{keys %in_env} = values %in_env;
  my $out = `cd '$dir' && { $command\n} 2>&1`;
  return ($out, $? >> 8);
}
# A fresh directory where ./bloom.so is the extension under test, and ext/
# and sql/ those of the project, as in the project root.
my $dirs = 0;
sub project_like {
  my $dir = "$scratch/" . ++$dirs;
  mkdir $dir or die "$dir: $!";
  symlink($so, "$dir/bloom.so") and symlink("$repo/ext", "$dir/ext") and
    symlink("$repo/sql", "$dir/sql") or die "symlink: $!";
  return $dir;
}

my $static = 'cc -DSQLITE_CORE -Iext app.c ext/bloom_ext.c ext/core/*.c ext/functions/*.c '
           . 'ext/store/*.c "$(cc -print-file-name=libmurmurhash.a)" -lsqlite3 -lm';
my %recipes = (
  # The static link of "Linking it into a program", with its app.c.
  $static => { run => sub {
    my $dir = project_like();
    my ($c) = slurp('ext/REFERENCE.md') =~ /^## Linking it into a program\n.*?^```c\n(.*?)^```$/ms;
    open(my $fh, '>', "$dir/app.c") or die; print $fh $c // ''; close $fh;
    my ($out, $rc) = sh_in($dir, $_[0]);
    return (0, "it builds app.c, the program shown above it, without a word", $out)
      if $rc != 0 || length $out;
    ($out) = sh_in($dir, './a.out');
    chomp $out;
    return ($out eq "bloom $version, linked in as $version",
            "it builds app.c, whose a.out runs the extension linked in ($out)");
  } },
  'cc app.c $(pkg-config --cflags --libs bloom)' =>
    { by => 'tests/dist/dist.sh', has => 'cc app.c $(pkg-config --cflags --libs bloom)' },
  'make' => { run => sub {
    my ($out, $rc) = sh_in($repo, 'make -s');
    my ($got) = sh_in($scratch, "sqlite3 :memory: '.load $repo/bloom' 'SELECT bloom_version();'");
    return ($rc == 0 && $got eq "$version\n", "make builds ./bloom.so, which answers $version", $out . $got);
  } },
  'make demo' => { run => sub {
    my ($out, $rc) = sh_in($repo, 'make -s demo');
    return ($rc == 0 && $out =~ /\S/ && $out !~ /^Error/m, "make demo runs sql/demo.sql to the end", $out);
  } },
  'sqlite3 visits.db' => { run => sub {
    # The session of "A first session", on a database with a table of 1,000
    # visited URLs; a statement shown with output must print it exactly.
    my $dir = project_like();
    sh_in($dir, q{sqlite3 visits.db "CREATE TABLE visited(url TEXT);
      WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000)
      INSERT INTO visited SELECT 'https://example.com/page/' || i FROM s;"});
    my (@script, @want, $statement);
    for (@{ $session{$_[0]} // [] }) {
      if (/^sqlite> (.*)$/) { push @script, $1; push @want, [$1, []]; }
      else { push @{ $want[-1][1] }, $_ if @want }
    }
    return (0, "the session has statements") unless @want;
    for my $w (@want) {
      open(my $fh, '>', "$dir/one.sql") or die;
      print $fh ".load ./bloom\n$w->[0]\n" unless $w->[0] =~ /^\.load/;
      print $fh "$w->[0]\n" if $w->[0] =~ /^\.load/;
      close $fh;
      my ($out, $rc) = sh_in($dir, 'sqlite3 -batch -bail visits.db < one.sql');
      my $shown = join '', map { "$_\n" } @{ $w->[1] };
      return (0, "\"$w->[0]\" runs", $out) if $rc != 0;
      return (0, "\"$w->[0]\" prints what is shown", "want: $shown", "got: $out")
        if @{ $w->[1] } && $out ne $shown;
    }
    return (1, "its " . @want . " statements run on a table of 1,000 URLs, printing what is shown");
  } },
  'python3 -c "import sqlite3; print(hasattr(sqlite3.Connection, \'enable_load_extension\'))"' => { run => sub {
    local $ENV{PATH} = "/usr/bin:$ENV{PATH}";
    my ($out, $rc) = sh_in($scratch, $_[0]);
    return ($rc == 0 && $out eq "True\n", "with Debian's /usr/bin/python3 first on PATH it prints True",
            $out);
  } },
  'make test' => { by => '.ci/run', has => "\nmake test\n" },
  'make test-hosts' => { by => '.ci/run', has => "\nmake test-hosts\n" },
  'make check' => { by => '.ci/run', has => "\nmake check\n" },
  'make dist' => { by => 'tests/dist/dist.mk', has => 'test-dist: dist' },
  'make install' => { by => 'tests/install.t', has => 'make -s install PREFIX=/usr/local DESTDIR=' },
  'make dqlite' => { by => 'tests/cluster/cluster.mk', has => 'test-cluster: dqlite' },
  'build/bloom-dqlite-node --id 1 --address 10.0.0.1:9001 --dir /var/lib/bloom' =>
    { by => 'tests/cluster/failover.sh', has => '"$NODE" --id "$1" --address "$addr" --dir "$WORK/node$1" >>' },
  'build/bloom-dqlite-node --id 2 --address 10.0.0.2:9001 --dir /var/lib/bloom --join 10.0.0.1:9001' =>
    { by => 'tests/cluster/failover.sh', has => '"$NODE" --id "$1" --address "$addr" --dir "$WORK/node$1" --join "$2"' },
  'sqlite3 :memory: < sql/NAME.sql' => { by => 'tests/scripts.t', has => 'sqlite3 -batch -bail :memory:' },
  'apt-get install python3' =>
    { by => 'Makefile', has => 'DEB_PACKAGES = gcc make sqlite3 libsqlite3-dev libmurmurhash-dev perl python3' },
  '/usr/bin/python3 -m venv env && env/bin/pip install build/dist/sqlite_bloom-*.whl' =>
    { by => 'tests/dist/wheel.sh', has => '"$python" -m venv "$tmp/venv"' },
  'npm install ./build/dist/sqlite-bloom-[0-9]*.tgz' =>
    { by => 'tests/dist/npm.sh', has => 'npm install --offline' },
  'make wasm' => { by => 'tests/wasm/wasm.mk', has => '$(MAKE) --no-print-directory wasm' },
  'npm install ./build/dist/sqlite-bloom-wasm-*.tgz' =>
    { by => 'tests/wasm/package.t', has => 'npm install --offline' },
  'apt-get install ./build/dist/libsqlite3-mod-bloom_*.deb ./build/dist/libsqlite3-mod-bloom-dev_*.deb' =>
    { by => 'tests/dist/dist.sh', has => 'apt-get install -y -q' },
);

# --- each command, in the documents' order (the static link first) -----------
my (%seen, @order);
for my $doc ('ext/REFERENCE.md', 'README.md') {
  for my $c (@{ $commands{$doc} // [] }) {
    my ($text, $kind, $line) = @$c;
    next if $seen{$text}++;
    push @order, [$doc, $text, $kind, $line];
  }
}
@order = ((grep { $_->[1] eq $static } @order), (grep { $_->[1] ne $static } @order));
check(scalar(grep { $_->[1] eq $static } @order), "ext/REFERENCE.md gives the static link command");
for my $c (@order) {
  my ($doc, $text, $kind, $line) = @$c;
  my $where = $line ? "$doc:$line" : "$doc (inline)";
  my $recipe = $recipes{$text};
  if (!$recipe) {
    check(0, "$where: \`$text\` is run by a test",
          "a shell command no test runs: give it an entry in tests/commands.t's %recipes");
  } elsif ($recipe->{run}) {
    my ($ok, $what, @diag) = $recipe->{run}->($text);
    check($ok, "$where: \`$text\`: $what", @diag);
  } else {
    my $has = index(slurp($recipe->{by}), $recipe->{has}) >= 0;
    (my $shown = $recipe->{has}) =~ s/\n/ /g;
    $shown =~ s/^ | $//g;
    check($has, "$where: \`$text\` is run by $recipe->{by} ($shown)");
  }
}
my @stale = grep { !$seen{$_} } sort keys %recipes;
check(!@stale, "every entry of %recipes is a command the documents give", map { "no document gives: $_" } @stale);

done();
