/* SPDX-License-Identifier: ISC */
/* conf.h: pollguard.conf(5), read by config.c and confkey.c. */
#ifndef PG_CONF_H
#define PG_CONF_H

#include "base.h"

#ifndef PG_SYSCONFDIR
#define PG_SYSCONFDIR		"/etc"		/* make SYSCONFDIR=... */
#endif
#define PG_CONF_DEFAULT		PG_SYSCONFDIR "/pollguard.conf"
#define PG_STATE_DEFAULT	"/var/lib/pollguard"
#define PG_CONF_ENV		"POLLGUARD_CONF"

#define PG_PEERS_MAX	256
#define PG_CLUSTERS_MAX	256
#define PG_ALLOW_MAX	64

#define PG_RUNTIME_MIN_MS	100LL		/* max_runtime, kill_after */
#define PG_PING_TIMEOUT_MAX_MS	5000LL		/* ping_timeout's default */

struct pg_net {
	int		 family;	/* AF_INET or AF_INET6 */
	unsigned char	 addr[16];	/* network byte order, host bits zero */
	unsigned int	 prefix;	/* 0..32 or 0..128 */
};

struct pg_peer {
	char		 name[PG_NAME_MAX + 1];
	char		 url[PG_VALUE_MAX];
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	char		 cafile[PG_VALUE_MAX];
	int		 line;		/* line of the section header */
};

/* The keys' values, each as pollguard.conf(5) describes it. */
enum pg_unreachable {
	PG_UNREACHABLE_RUN = 0,
	PG_UNREACHABLE_SKIP
};

enum pg_on_failure {
	PG_ON_FAILURE_HANDOVER = 0,
	PG_ON_FAILURE_STAY
};

enum pg_backend {
	PG_BACKEND_PEERS = 0,
	PG_BACKEND_ETCD
};

enum pg_lease_lost {
	PG_LEASE_LOST_KILL = 0,
	PG_LEASE_LOST_WARN
};

#define PG_ETCD_ENDPOINTS_MAX	8

struct pg_etcd {
	char		 endpoints[PG_ETCD_ENDPOINTS_MAX][PG_VALUE_MAX];
	size_t		 nendpoints;	/* 0: no [etcd] section */
	char		 prefix[PG_VALUE_MAX];	/* default "/pollguard/" */
	int64_t		 timeout_ms;	/* of each request */
	char		 cafile[PG_VALUE_MAX];
	char		 cert[PG_VALUE_MAX];
	char		 key[PG_VALUE_MAX];
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	int		 line;		/* of the section header; 0: none */
};

struct pg_cluster {
	char		 id[PG_NAME_MAX + 1];
	char		 name[PG_VALUE_MAX];
	int64_t		 wait_ms;
	enum pg_unreachable unreachable;
	int64_t		 max_runtime_ms; /* 0: no runtime limit */
	int64_t		 kill_after_ms;	/* SIGTERM to SIGKILL at the limit */
	enum pg_on_failure on_failure;
	int64_t		 cooldown_ms;	/* after a failed run; default wait */
	size_t		*peers;		/* indices into pg_config.peers */
	size_t		 npeers;	/* 0: standalone */
	int		 line;
	char		 prefer[PG_VALUE_MAX];	/* "a,b"; "": no prefer */
	int		 failback;
	int64_t		 failback_after_ms;	/* default: wait */
	int64_t		 prefer_slack_ms;	/* min(claim horizon, wait/4) */
	enum pg_backend	 backend;
	enum pg_lease_lost on_lease_lost;
	char		 ping[PG_VALUE_MAX];	/* lib/monitor.h; "": none */
	int64_t		 ping_timeout_ms;	/* of each ping */
};

struct pg_serve {
	char		 listen[PG_VALUE_MAX];	/* empty: inetd mode */
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	char		 run_as[PG_NAME_MAX + 1];
	struct pg_net	 allow[PG_ALLOW_MAX];
	size_t		 nallow;		/* 0: any client */
	int		 backlog;		/* listen(2) queue */
	int		 max_conn;		/* max_connections */
};

struct pg_config {
	char		 path[PATH_MAX];
	char		 node[PG_NAME_MAX + 1];
	char		 state[PATH_MAX];
	int64_t		 timeout_ms;
	int64_t		 connect_timeout_ms;
	int64_t		 settle_ms;
	struct pg_peer	*peers;
	size_t		 npeers;
	struct pg_cluster *clusters;
	size_t		 nclusters;
	struct pg_serve	 serve;
	struct pg_etcd	 etcd;
};

/*
 * The config file: -c's argument, else $POLLGUARD_CONF when set and not
 * empty, else the default.
 */
const char	*pg_config_path(const char *);

/*
 * Read and check a config file into a new *cfgp (pg_config_free frees
 * it); or -1 and in err "FILE:LINE: what is wrong" (LINE where known).
 */
int	 pg_config_load(const char *, struct pg_config **, char *, size_t);
void	 pg_config_free(struct pg_config *);

/* The cluster with this ID, or NULL. */
const struct pg_cluster *pg_config_cluster(const struct pg_config *,
	    const char *);

/*
 * The cluster with this ID; or NULL and in err "FILE: no [cluster ID]",
 * the nearest ID when one is near (conf_near), and the IDs there are.
 */
const struct pg_cluster *pg_config_find(const struct pg_config *,
	    const char *, char *, size_t);

/*
 * Parse one address or CIDR range ("192.0.2.0/24", "2001:db8::1") into
 * *net; return 0, or -1 when it is not one. An IPv4-mapped one
 * ("::ffff:192.0.2.0/120") is kept as IPv4 ("192.0.2.0/24"), as serve
 * sees such a client; -1 with errno EDOM when its prefix is under 96.
 */
int	 pg_net_parse(const char *, struct pg_net *);

/* True when the address (family, network byte order) lies in the range. */
int	 pg_net_match(const struct pg_net *, int, const void *);

#endif /* PG_CONF_H */
