# Sourced by tests/python.t, tests/interop.t and tests/vectors.t (from the
# project root): sets PY to a Python 3 whose sqlite3 module can load SQLite
# extensions, or prints a failing TAP plan saying how to get one and exits.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# A Python can load extensions when its sqlite3.Connection has
# enable_load_extension; builds configured without
# --enable-loadable-sqlite-extensions (pyenv's and python.org's defaults,
# macOS's system Python) lack it.  Debian's /usr/bin/python3 has it.
# BLOOM_PYTHON, if set, is tried first.
can_load='import sqlite3, sys; sys.exit(0 if hasattr(sqlite3.Connection, "enable_load_extension") else 1)'
PY=
tried=
for candidate in ${BLOOM_PYTHON:-} /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
  [ -n "$candidate" ] || continue
  tried="$tried $candidate"
  if [ -x "$candidate" ] && "$candidate" -c "$can_load" 2>/dev/null; then
    PY=$candidate
    break
  fi
done
if [ -z "$PY" ]; then
  echo "1..1"
  echo "not ok 1 - no Python 3 here can load SQLite extensions (tried:${tried:- none})"
  echo "#   A Python can when  python3 -c 'import sqlite3; print(hasattr(sqlite3.Connection, \"enable_load_extension\"))'"
  echo "#   prints True.  On Debian/Ubuntu:  apt-get install python3  (gives /usr/bin/python3)."
  echo "#   Or build Python with  ./configure --enable-loadable-sqlite-extensions"
  echo "#   (pyenv: PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install ...),"
  echo "#   or point BLOOM_PYTHON at such an interpreter."
  exit 1
fi

# Runs a Python test script with the interpreter found; a sanitizer build of
# the extension loads only with its runtime preloaded, and the leak checker
# would report the interpreter's own allocations.
run_python() {
  if [ -n "${BLOOM_PRELOAD:-}" ]; then
    LD_PRELOAD=$BLOOM_PRELOAD
    export LD_PRELOAD
  fi
  ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
  PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the work tree
  export PYTHONDONTWRITEBYTECODE
  export ASAN_OPTIONS
  exec "$PY" "$@"
}
