/*
 * Asking a cluster's peers, all at once, with libcurl's multi interface.
 * Only pollguard-check links this (and libcurl).
 */
#ifndef PEERS_H
#define PEERS_H

#include "pollguard.h"

#define PEER_WHY_MAX	160

struct round {
	struct pg_seen	*seen;		/* one per peer of the cluster */
	char		(*why)[PEER_WHY_MAX];	/* what each said, printable */
	size_t		 n;
	int64_t		 start_ns;	/* CLOCK_BOOTTIME */
	int64_t		 end_ns;
};

/* Set up libcurl once. -1 on failure. */
int	 peers_init(void);

/*
 * Ask every peer of the cluster for its elapsed time, in parallel, within
 * the config's timeout for the whole round. Fills r (allocated here; free
 * with peers_free). -1 with errno on a local failure (memory, clock).
 */
int	 peers_ask(const struct pg_config *, const struct pg_cluster *,
	    struct round *);
void	 peers_free(struct round *);

/* CLOCK_BOOTTIME in nanoseconds. */
int64_t	 peers_clock(void);

#endif /* PEERS_H */
