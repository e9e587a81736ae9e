"""Runs a Python test of tests/ with its SQLite on the emulated machine:
python3 tests/cross/remote_run.py SCRIPT [ARGS].  bloomhost.connect() then
opens a tests/cross/remote.py connection (sqlpipe under qemu, that
machine's bloom.so), and bloomhost.bloom_so() names that bloom.so (the
sqlite3 shell on PATH is that machine's too: tests/cross/run.sh).  The
script itself, and the independent reader, run natively; a plain
sqlite3.connect() stays native, so a database the emulated machine wrote
is read here and the other way round.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]

import bloomhost                                                # noqa: E402
import remote                                                   # noqa: E402

bloomhost.connect = remote.connect
bloomhost.bloom_so = lambda: os.environ["CROSS_BLOOM_SO"]

# Which machine answers, before the script's TAP (its plan comes last).
probe = remote.connect()
print("# SQLite %s on %s (%s), bloom.so %s" % (
    probe.execute("SELECT sqlite_version()").fetchone()[0], probe.machine,
    " ".join(remote.command()), bloomhost.bloom_so()))
probe.close()

script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
