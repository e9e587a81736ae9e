"""bloom, the SQLite extension of Bloom and cuckoo filters, for Python.

    import sqlite3
    import sqlite_bloom

    conn = sqlite3.connect("app.db")
    conn.enable_load_extension(True)
    sqlite_bloom.load(conn)
    conn.enable_load_extension(False)

loadable_path() is the module's path as load_extension() takes it (no
suffix); load(conn) loads it into a sqlite3.Connection or an APSW
Connection whose extension loading is enabled, as sqlite_vec.load does
(APSW before 3.41 spells it conn.enableloadextension(True)).
Python's sqlite3 can load extensions only when the interpreter was built
with --enable-loadable-sqlite-extensions: Debian's /usr/bin/python3 is,
pyenv's and python.org's builds are not.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os

try:
    from importlib.metadata import version as _version
    __version__ = _version("sqlite-bloom")
except Exception:               # not installed from the wheel
    __version__ = None

__all__ = ["loadable_path", "load"]


def loadable_path():
    """The path of the extension's module, without its suffix."""
    return os.path.normpath(os.path.join(os.path.dirname(__file__), "bloom"))


def load(conn):
    """Loads the extension into conn (enable_load_extension(True) first)."""
    # APSW before 3.41 names it loadextension (and enableloadextension).
    load_extension = (getattr(conn, "load_extension", None)
                      or getattr(conn, "loadextension", None))
    if load_extension is None:
        raise RuntimeError(
            "sqlite_bloom.load: %r cannot load SQLite extensions; Python's "
            "sqlite3 can when the interpreter was built with "
            "--enable-loadable-sqlite-extensions (Debian's /usr/bin/python3 "
            "is; pyenv's and python.org's builds are not), and APSW always "
            "can" % (conn,))
    load_extension(loadable_path())
