/*
** The few requests of dqlite's client protocol (version 1) that a node
** needs to join a cluster: who leads, who belongs, add a node, give it a
** role.  libdqlite serves the protocol but offers no client for it, and
** the bookworm `dqlite` shell cannot add a node, so these are written here
** from the protocol's description: every message is a one-word header
** (body size in words, type, revision) and a body of little-endian words.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef BLOOM_DQLITE_WIRE_H
#define BLOOM_DQLITE_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum { WIRE_VOTER = 0, WIRE_STANDBY = 1, WIRE_SPARE = 2 };

/* One member of the cluster as the leader's configuration lists it. */
struct wire_member {
  uint64_t id;
  uint64_t role;
  char address[256];
};

/* Each function returns 0, or -1 with a sentence in err (which names the
** address or the failing request). */

/* A connected, handshaken socket to address ("host:port", "[v6]:port"),
** with timeout_ms bounding the connect and every later read or write. */
int wire_connect(const char *address, int timeout_ms, char *err, size_t errlen);

/* The leader as the node on fd knows it; *leader is "" when it knows none
** (a node that is not a voter never does). */
int wire_leader(int fd, char *leader, size_t leaderlen, char *err, size_t errlen);

/* The cluster's members, at most max of them, into members; *n is how many
** there are (possibly more than max). */
int wire_cluster(int fd, struct wire_member *members, size_t max, size_t *n,
                 char *err, size_t errlen);

/* ADD: the node id at address joins as a spare (the leader answers once the
** new configuration is committed). */
int wire_add(int fd, uint64_t id, const char *address, char *err, size_t errlen);

/* ASSIGN: node id gets role (the leader first catches a new voter up). */
int wire_assign(int fd, uint64_t id, uint64_t role, char *err, size_t errlen);

/* Splits "host:port" (or "[v6]:port") into host and port; 0 on success. */
int wire_split_address(const char *address, char *host, size_t hostlen,
                       char *port, size_t portlen);

#endif
