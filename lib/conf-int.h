/* SPDX-License-Identifier: ISC */
/*
 * conf-int.h: private to config.c and confkey.c. Functions taking a
 * struct parse return 1, or 0 with the reason in it (conf_fail).
 */
#ifndef PG_CONF_INT_H
#define PG_CONF_INT_H

#include <stdio.h>

#include "conf.h"

enum section {
	SEC_NONE,
	SEC_GLOBAL,
	SEC_SERVE,
	SEC_PEER,
	SEC_CLUSTER,
	SEC_ETCD
};

struct parse {
	FILE			*fp;
	struct pg_config	*cfg;
	int			 line;
	enum section		 sec;
	void			*base;		/* its struct */
	char			 label[PG_NAME_MAX + 16]; /* "peer a" */
	unsigned int		 seen;		/* keys of this section */
	int			 seen_global;
	int			 connect_line;	/* of connect_timeout */
	int			 seen_serve;
	int			 has_password;
	/* Per cluster: peers (NULL: default), its line, prefer's (0: none). */
	char			*peerlists[PG_CLUSTERS_MAX];
	int			 peerlines[PG_CLUSTERS_MAX];
	int			 preferlines[PG_CLUSTERS_MAX];
	char			*err;
	size_t			 errlen;
	int			 failed;
	int			 errline;
};

#define SEPARATORS	", \t"	/* between the items of a list */

/*
 * The parse fails at this line (0: none); the first failure counts.
 * Returns 0, for the caller's return.
 */
int	 conf_fail(struct parse *, int, const char *, ...)
	    __attribute__((__format__(__printf__, 3, 4)));

/*
 * How near a mistyped word is to name: the edits (a letter inserted,
 * removed or changed, or two neighbours swapped) that turn one into the
 * other, when that is at most one for every three letters of the longer
 * and not 0; -1 when it is farther, or when they are the same.
 */
int	 conf_near(const char *, const char *);

/* inih's handler: a line "key = value" of the current section. */
int	 conf_key(void *, const char *, const char *, const char *);

#endif
