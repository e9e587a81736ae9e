# make test-cluster: the failover test of bloom on a three-node dqlite
# cluster (tests/cluster/failover.sh, TAP).  Needs make dqlite's node and
# python3 for the protocol client; not part of make test, which never
# depends on dqlite.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
.PHONY: test-cluster

test-cluster: dqlite
	$(MAKE) --no-print-directory deps DEB_PACKAGES="perl python3"
	$(PROVE) -v --exec sh tests/cluster/failover.sh :: $(CURDIR)/$(DQLITE_NODE)

# make bench-cluster: a probe's round trip to the leader and bloom_probe
# over 1M values on it (in ten statements and in one), each beside the same
# work in a local SQLite, then the failover time (tests/cluster/measure.py;
# figures, not assertions).
.PHONY: bench-cluster

# A Python whose sqlite3 can load extensions (Debian's; pyenv's cannot).
CLUSTER_PYTHON ?= $(firstword $(BLOOM_PYTHON) /usr/bin/python3)

bench-cluster: dqlite bloom.so
	$(CLUSTER_PYTHON) tests/cluster/measure.py $(DQLITE_NODE) $(CURDIR)/bloom.so
