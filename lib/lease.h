/* SPDX-License-Identifier: ISC */
/* lease.h: the etcd backend (doc/ETCD.md): lease record, answers, client. */
#ifndef PG_LEASE_H
#define PG_LEASE_H

#include "conf.h"
#include "state.h"

/* lease.c: this node's lease record, ".CLUSTER.lease" (doc/STATE.md). */
struct pg_lease {
	int64_t		 id;		/* the etcd lease ID, > 0 */
	int64_t		 revision;	/* the key's create_revision, > 0 */
	int64_t		 ttl_s;		/* the TTL granted, in seconds */
};

#define PG_LEASE_MAX	128	/* the lease file, in bytes */

/* The file's text (the length, or -1) and back (0, or -1 with EBADMSG). */
int	 pg_lease_format(const struct pg_lease *, char *, size_t);
int	 pg_lease_parse(const char *, size_t, struct pg_lease *);

/* Read: 1 and *l, 0 when there is none, -1 with errno. */
int	 pg_lease_read(struct pg_state *, const char *, struct pg_lease *);
int	 pg_lease_write(struct pg_state *, const char *,
	    const struct pg_lease *);
int	 pg_lease_remove(struct pg_state *, const char *);

/* etcdjson.c: etcd's answers, read with jansson. Pure: no I/O. */
#define PG_ETCD_ANSWER_MAX	(64 * 1024)	/* bytes of an answer read */
#define PG_ETCD_KEY_MAX		256		/* PREFIX and cluster ID */
#define PG_ETCD_VALUE_MAX	256
#define PG_ETCD_TOKEN_MAX	512
#define PG_ETCD_TTL_MAX		9000000000LL	/* etcd's MaxLeaseTTL, s */

enum pg_etcd_op {
	PG_ETCD_AUTH,		/* /v3/auth/authenticate */
	PG_ETCD_GRANT,		/* /v3/lease/grant */
	PG_ETCD_KEEPALIVE,	/* /v3/lease/keepalive */
	PG_ETCD_TTL,		/* /v3/lease/timetolive */
	PG_ETCD_REVOKE,		/* /v3/lease/revoke */
	PG_ETCD_TXN,		/* /v3/kv/txn: create-if-absent, else range */
	PG_ETCD_RANGE		/* /v3/kv/range of one key */
};

struct pg_etcd_kv {
	int64_t		 create_revision;	/* > 0 */
	int64_t		 mod_revision;
	int64_t		 lease;			/* 0: none */
	char		 value[PG_ETCD_VALUE_MAX];	/* NUL added */
	size_t		 valuelen;
};

struct pg_etcd_reply {
	int		 error;		/* etcd answered an error: */
	int		 code;		/* its gRPC code; -1: not said */
	char		 message[PG_WHY_MAX];	/* its message, raw */
	int64_t		 revision;	/* the header's */
	char		 token[PG_ETCD_TOKEN_MAX];	/* AUTH */
	int64_t		 id, ttl;	/* GRANT, KEEPALIVE, TTL (-1: gone) */
	int		 succeeded;	/* TXN: the key was created */
	int		 found;		/* TXN failed, RANGE: the key's kv */
	struct pg_etcd_kv kv;
};

/*
 * Read the answer buf[0..len) to op about key: 0 and *r (r->error set for
 * etcd's error), or -1 (EBADMSG, *r zeroed) and why, for people.
 */
int	 pg_etcd_parse(enum pg_etcd_op, const char *, const char *, size_t,
	    struct pg_etcd_reply *, char *, size_t);

/* The node of a value "node NAME\n...": 0, or -1 and "" (not ours). */
int	 pg_etcd_value(const struct pg_etcd_kv *, char *, size_t);

/* Base64 (RFC 4648, padded, canonical) of src into dst: the length, -1. */
int	 pg_base64_decode(const char *, size_t, void *, size_t);

/* etcd.c: the client, over libcurl (doc/ETCD.md, endpoints and bounds). */
enum pg_etcd_result {
	PG_ETCD_OK = 0,
	PG_ETCD_HELD,		/* claim: another lease holds the key */
	PG_ETCD_LOST,		/* keepalive, revoke: the lease is gone */
	PG_ETCD_UNREACHABLE,	/* no endpoint answered: exit 3 */
	PG_ETCD_REFUSED,	/* credentials, permission, TLS: exit 76 */
	PG_ETCD_INVALID,	/* an answer that is not etcd's: exit 76 */
	PG_ETCD_ERROR		/* a local failure (memory): errno */
};

struct pg_etcd_conn;

/* Set up libcurl once per process. -1 on failure. */
int	 pg_etcd_init(void);

/* A client for the config's [etcd]; NULL with errno. */
struct pg_etcd_conn *pg_etcd_open(const struct pg_config *);

/* The last failure, for people, escaped: "http://a:2379: ...". */
const char	*pg_etcd_why(const struct pg_etcd_conn *);

/* What a claim found: the key's holder. */
struct pg_etcd_holder {
	char		 node[PG_NAME_MAX + 1];	/* "": not pollguard's value */
	int64_t		 lease;
	int64_t		 revision;	/* its create_revision */
};

/*
 * Claim the cluster's key for node (doc/ETCD.md, pollguard-check), mine
 * being this node's lease record or NULL: OK and *l, the lease held;
 * HELD and *h, the key's holder; else the failure.
 */
enum pg_etcd_result pg_etcd_claim(struct pg_etcd_conn *,
	    const struct pg_cluster *, const char *, const struct pg_lease *,
	    struct pg_lease *, struct pg_etcd_holder *);

/* Read the key: OK and *h (found 1), or OK with found 0, or a failure. */
enum pg_etcd_result pg_etcd_peek(struct pg_etcd_conn *,
	    const struct pg_cluster *, struct pg_etcd_holder *, int *);

/* A lease's time left in seconds (-1: expired). */
enum pg_etcd_result pg_etcd_ttl(struct pg_etcd_conn *, int64_t, int64_t *);

/*
 * Keep a lease alive: OK and the TTL renewed in *ttl_s, or LOST. No try
 * runs past until (CLOCK_BOOTTIME ms, 0: none): then UNREACHABLE.
 */
enum pg_etcd_result pg_etcd_keepalive(struct pg_etcd_conn *, int64_t,
	    int64_t, int64_t *);

/* Revoke a lease, deleting the key on it: OK, or LOST (not there). */
enum pg_etcd_result pg_etcd_revoke(struct pg_etcd_conn *, int64_t);

#endif /* PG_LEASE_H */
