# make test-cluster: the failover test of bloom on a three-node dqlite
# cluster (tests/cluster/failover.sh, TAP).  Needs make dqlite's node and
# python3 for the protocol client; not part of make test, which never
# depends on dqlite.
.PHONY: test-cluster

test-cluster: dqlite
	$(MAKE) --no-print-directory deps DEB_PACKAGES="perl python3"
	$(PROVE) -v --exec sh tests/cluster/failover.sh :: $(CURDIR)/$(DQLITE_NODE)
