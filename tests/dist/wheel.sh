#!/bin/sh
# make dist's Python wheel (make test-dist sets BLOOM_VERSION, BLOOM_WHEEL
# and the project's links, BLOOM_HOMEPAGE, BLOOM_REPOSITORY and
# BLOOM_ISSUES).  Prints TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# - the wheel is sqlite_bloom-VERSION-py3-none-<platform>.whl, tagged so in
#   its WHEEL file, not pure; it holds sqlite_bloom/__init__.py, the module
#   sqlite_bloom/bloom.so and the .dist-info files, nothing else; its
#   METADATA says sqlite-bloom VERSION, with the project's links as
#   Home-page and Project-URL; its license file is ext/packaging/copyright;
# - the platform is what its module needs: manylinux_2_N_<machine>, N the
#   newest GLIBC_2.N among the versions of the module's dynamic symbols
#   (objdump -T; at least 5 on x86, 17 elsewhere, the oldest pip knows),
#   the machine this one's, which the module is built for; this glibc is
#   that new; the module needs no shared library but libc and libm (the
#   rest of manylinux's rule); and ext/packaging/wheel.sh --platform, which
#   names it, names a shared object calling arc4random (GLIBC_2.36)
#   manylinux_2_36, refuses one linked with libsqlite3, and, if
#   aarch64-linux-gnu-gcc is here, names one built by it *_aarch64;
# - in a fresh venv made by Debian's /usr/bin/python3 (python3-venv; as
#   root it is installed if missing, else the checks are skipped naming
#   it), `pip install --no-index` installs it; then, from an empty
#   directory, sqlite_bloom.__version__ is VERSION, loadable_path() lies in
#   the venv, and sqlite_bloom.load(conn) loads the module into a sqlite3
#   connection, whose bloom_version() is VERSION and which builds a filter,
#   keeps a store through a trigger and probes both; so does an APSW
#   connection (Debian's python3-apsw, if installed); pip uninstall removes
#   every file it installed.
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
version=${BLOOM_VERSION:?run through make test-dist}
wheel=${BLOOM_WHEEL:?run through make test-dist}
case "$wheel" in /*) ;; *) wheel=$repo/$wheel ;; esac
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$repo/tests/lib/tap.sh"

# --- the wheel, as a file ----------------------------------------------------
info=sqlite_bloom-$version.dist-info
"$python" - "$wheel" "$tmp" <<'PY' >"$tmp/list" 2>&1
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in sorted(z.namelist()):
        print(name)
    z.extractall(out + "/unpacked")
PY
check $? "$(basename "$wheel") is a zip archive" "$(cat "$tmp/list")"
cat >"$tmp/want" <<WANT
$info/COPYRIGHT
$info/METADATA
$info/RECORD
$info/WHEEL
$info/top_level.txt
sqlite_bloom/__init__.py
sqlite_bloom/bloom.so
WANT
cmp -s "$tmp/list" "$tmp/want"
check $? "it holds sqlite_bloom/__init__.py, sqlite_bloom/bloom.so and the .dist-info files, nothing else" \
  "$(diff "$tmp/want" "$tmp/list")"
u=$tmp/unpacked
so=$u/sqlite_bloom/bloom.so
# The platform its module needs, read here from the module itself.
machine=$(uname -m)
case "$machine" in x86_64|i686) floor=5 ;; *) floor=17 ;; esac
need=$(objdump -T "$so" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' |
       sort -n | tail -n 1)
[ "${need:-0}" -ge "$floor" ] || need=$floor
plat=manylinux_2_${need}_$machine
elf_of() { LC_ALL=C readelf -h "$1" 2>/dev/null | grep -E '^ *(Class|Data|Machine):'; }
[ -n "$(elf_of "$so")" ] && [ "$(elf_of "$so")" = "$(elf_of "$(command -v sh)")" ]
check $? "its module is built for this machine, $machine (readelf -h, as /bin/sh)" \
  "$(elf_of "$so")"
needed=$(objdump -p "$so" 2>/dev/null | awk '$1 == "NEEDED" { print $2 }' | sort | tr '\n' ' ')
[ "$needed" = "libc.so.6 libm.so.6 " ]
check $? "its module needs no library but libc and libm, as a manylinux wheel may (got: $needed)"
name=sqlite_bloom-$version-py3-none-$plat.whl
[ "$(basename "$wheel")" = "$name" ] && [ -s "$wheel" ]
check $? "the wheel is $name: its module needs glibc 2.$need (objdump -T)"
here=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc 2\.\([0-9]*\).*/\1/p')
[ -n "$here" ] && [ "$here" -ge "$need" ]
check $? "this machine's glibc (2.$here) is that new, so pip here may install it"
printf '#include <stdlib.h>\nunsigned pick(void) { return arc4random(); }\n' >"$tmp/new.c"
got=$(${CC:-cc} -shared -fPIC -o "$tmp/new.so" "$tmp/new.c" 2>&1 &&
      sh ext/packaging/wheel.sh --platform "$tmp/new.so" 2>&1)
[ "$got" = "manylinux_2_36_$machine" ]
check $? "wheel.sh --platform follows the binary: a shared object calling arc4random is manylinux_2_36_$machine (got '$got')"
got=$(${CC:-cc} -shared -fPIC -o "$tmp/linked.so" "$tmp/new.c" -Wl,--no-as-needed -lsqlite3 2>&1 &&
      sh ext/packaging/wheel.sh --platform "$tmp/linked.so" 2>&1)
case "$got" in *"needs libsqlite3.so.0"*) r=0 ;; *) r=1 ;; esac
check $r "and refuses a shared object that needs libsqlite3.so.0 (got '$got')"
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
  got=$(aarch64-linux-gnu-gcc -shared -fPIC -o "$tmp/arm.so" "$tmp/new.c" 2>&1 &&
        sh ext/packaging/wheel.sh --platform "$tmp/arm.so" 2>&1)
  [ "$got" = "manylinux_2_36_aarch64" ]
  check $? "and its machine: built by aarch64-linux-gnu-gcc, manylinux_2_36_aarch64 (got '$got')"
else
  skip 1 "no aarch64-linux-gnu-gcc (the Debian package gcc-aarch64-linux-gnu) to build another machine's binary"
fi
fields=$(grep -E '^(Name|Version): ' "$u/$info/METADATA" 2>/dev/null | tr '\n' ' ')
[ "$fields" = "Name: sqlite-bloom Version: $version " ]
check $? "its METADATA says sqlite-bloom $version (got: $fields)"
fields=$(grep -E '^(Home-page|Project-URL): ' "$u/$info/METADATA" 2>/dev/null | tr '\n' '|')
[ "$fields" = "Home-page: ${BLOOM_HOMEPAGE:?}|Project-URL: Homepage, $BLOOM_HOMEPAGE|Project-URL: Source, ${BLOOM_REPOSITORY:?}|Project-URL: Issues, ${BLOOM_ISSUES:?}|" ]
check $? "its METADATA links the project: Home-page and Project-URL Homepage, Source, Issues (got: $fields)"
fields=$(grep -E '^(Root-Is-Purelib|Tag): ' "$u/$info/WHEEL" 2>/dev/null | tr '\n' ' ')
[ "$fields" = "Root-Is-Purelib: false Tag: py3-none-$plat " ]
check $? "its WHEEL file says a platform wheel, py3-none-$plat (got: $fields)"
cmp -s "$u/$info/COPYRIGHT" ext/packaging/copyright &&
  grep -qx 'License-File: COPYRIGHT' "$u/$info/METADATA"
check $? "its license file is ext/packaging/copyright (.dist-info/COPYRIGHT, License-File in METADATA)"
got=$(cd "$tmp" && sqlite3 :memory: ".load $u/sqlite_bloom/bloom" "SELECT bloom_version();" 2>&1)
[ "$got" = "$version" ]
check $? "its module answers bloom_version() = $version in the sqlite3 shell (got '$got')"

# --- installed into a fresh venv ----------------------------------------------
venv_checks=8
if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s deps DEB_PACKAGES=python3-venv \
    >"$tmp/deps.out" 2>&1
fi
if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  skip $venv_checks "$python cannot make a venv with pip: needs the Debian package python3-venv"
else
  "$python" -m venv "$tmp/venv" >"$tmp/venv.out" 2>&1 &&
    "$tmp/venv/bin/python" -m pip install --no-index --no-cache-dir \
      --disable-pip-version-check -q "$wheel" >"$tmp/pip.out" 2>&1
  check $? "pip install --no-index installs it into a fresh venv made by $python" \
    "$(cat "$tmp/venv.out" "$tmp/pip.out" | tail -n 10)"
  mkdir "$tmp/away"
  (cd "$tmp/away" && "$tmp/venv/bin/python" - "$version" "$tmp/venv") >"$tmp/use.out" 2>&1 <<'PY'
import os, sqlite3, sys
version, venv = sys.argv[1], os.path.realpath(sys.argv[2])
import sqlite_bloom

def ok(cond, name):
    print(("ok" if cond else "not ok") + " - " + name)

ok(sqlite_bloom.__version__ == version,
   "sqlite_bloom.__version__ is %s (got %r)" % (version, sqlite_bloom.__version__))
path = sqlite_bloom.loadable_path()
ok(os.path.realpath(path).startswith(venv + os.sep) and os.path.isfile(path + ".so"),
   "loadable_path() is the venv's module, without its suffix (%s)" % path)
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
sqlite_bloom.load(conn)
conn.enable_load_extension(False)
(got,) = conn.execute("SELECT bloom_version()").fetchone()
ok(got == version, "sqlite_bloom.load(conn): bloom_version() = %s (got %r)" % (version, got))
conn.executescript("""
  CREATE TABLE items(id INTEGER PRIMARY KEY);
  CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01);
  CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
    INSERT INTO seen(value) VALUES (NEW.id);
  END;""")
conn.executemany("INSERT INTO items VALUES (?)", [(i,) for i in range(1, 101)])
found = sum(conn.execute("SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?)",
                         (i,)).fetchone()[0] for i in range(1, 101))
(f,) = conn.execute("SELECT bloom_build(id, 1000, 0.01) FROM items").fetchone()
(same,) = conn.execute("SELECT filter = ? FROM seen", (f,)).fetchone()
ok(found == 100 and same == 1,
   "a trigger-kept store answers its 100 ids and exports bloom_build's bytes "
   "(found %d, same %r)" % (found, same))
PY
  while read -r line; do
    case "$line" in
      "ok - "*) check 0 "${line#ok - }" ;;
      "not ok - "*) check 1 "${line#not ok - }" ;;
    esac
  done <"$tmp/use.out"
  [ "$(grep -c '^ok - \|^not ok - ' "$tmp/use.out")" = 4 ]
  check $? "the venv's Python ran the four checks above" "$(tail -n 10 "$tmp/use.out")"
  apsw=$("$python" -c 'import apsw, os; print(os.path.dirname(os.path.dirname(apsw.__file__)))' 2>/dev/null)
  if [ -z "$apsw" ]; then
    skip 1 "no APSW for $python (the Debian package python3-apsw)"
  else
    got=$(cd "$tmp/away" && PYTHONPATH=$apsw "$tmp/venv/bin/python" -c '
import apsw, sqlite_bloom
conn = apsw.Connection(":memory:")
(getattr(conn, "enable_load_extension", None) or conn.enableloadextension)(True)
sqlite_bloom.load(conn)
print(conn.cursor().execute("SELECT bloom_version()").fetchall()[0][0])' 2>&1)
    [ "$got" = "$version" ]
    check $? "sqlite_bloom.load(conn) loads it into an APSW connection too (got '$got')"
  fi
  site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
  "$tmp/venv/bin/python" -m pip uninstall -y -q sqlite-bloom >"$tmp/uninstall.out" 2>&1 &&
    [ ! -e "$site/sqlite_bloom" ] && [ ! -e "$site/$info" ]
  check $? "pip uninstall sqlite-bloom removes sqlite_bloom/ and $info" \
    "$(cat "$tmp/uninstall.out"; ls "$site")"
fi

echo "1..$n"
exit $failed
