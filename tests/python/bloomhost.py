"""Shared by the Python tests: TAP output and a connection with bloom loaded.

BLOOM_SO names the extension (default: bloom.so at the project root), as
`make test` exports it for the plain and the sanitizer pass.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os
import sqlite3
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def bloom_so():
    return os.environ.get("BLOOM_SO") or os.path.join(ROOT, "bloom.so")


def connect(path=":memory:"):
    """A sqlite3 connection with the extension loaded (fails loudly)."""
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        raise SystemExit(
            "%s: this Python's sqlite3 cannot load extensions "
            "(built without --enable-loadable-sqlite-extensions); "
            "use Debian's /usr/bin/python3" % sys.executable)
    conn = sqlite3.connect(path)
    conn.enable_load_extension(True)
    conn.load_extension(bloom_so())
    conn.enable_load_extension(False)
    return conn


class Tap:
    """Prints TAP as it goes; done() prints the plan and gives the exit code."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, *diag):
        self.n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        if not cond:
            self.failed += 1
            for d in diag:
                for line in str(d).splitlines():
                    print("#   " + line)
        sys.stdout.flush()
        return cond

    def todo(self, cond, name, why):
        """A known failure, as a TAP TODO: reported, never failing the run."""
        self.n += 1
        print("%s %d - %s # TODO %s" % ("ok" if cond else "not ok", self.n, name, why))
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # skip %s" % (self.n, name, why))

    def note(self, *lines):
        for text in lines:
            for line in str(text).splitlines():
                print("# " + line)
        sys.stdout.flush()

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed or not self.n else 0
