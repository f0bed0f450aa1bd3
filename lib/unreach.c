/* SPDX-License-Identifier: ISC */
/*
 * unreach.c: ".CLUSTER.unreachable", when this node last reported each
 * peer of the cluster that it could not reach (doc/STATE.md, "Unreachable
 * peers"), so that pollguard-check says so under cron once an hour, not
 * at every round.
 */
#include <errno.h>
#include <string.h>

#include "state-int.h"

#define MAGIC		"pollguard-unreachable 1\n"
#define SUFFIX		"unreachable"
#define FILE_MAX	8192

/*
 * The lines of in[0..n) still within every_ms of now, without peer's,
 * appended to out; 1 when peer's was one of them. A record that is not
 * whole (damaged, cut short) keeps none: -1.
 */
static int
keep(const char *in, ssize_t n, const char *peer, int64_t every_ms,
    const struct pg_stamp *now, char *out, size_t len, size_t *off)
{
	struct pg_stamp	 then;
	const char	*p, *nl, *sp, *end = in + n;
	size_t		 m = sizeof(MAGIC) - 1, plen = strlen(peer);
	int		 found = 0;

	if (n < (ssize_t)m || memcmp(in, MAGIC, m) != 0 || in[n - 1] != '\n')
		return -1;
	for (p = in + m; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if ((sp = memchr(p, ' ', nl - p)) == NULL || sp == p ||
		    pg_stamp_value(sp + 1, nl - sp - 1, &then) == -1)
			return -1;
		if (pg_stamp_elapsed(&then, now) >= every_ms)
			continue;
		if ((size_t)(sp - p) == plen && memcmp(p, peer, plen) == 0)
			found = 1;
		else if (pg_appendf(out, len, off, "%.*s\n", (int)(nl - p),
		    p) == -1)
			return -1;
	}
	return found;
}

/*
 * Under the record lock, the record without peer's line and those over
 * every_ms old; add: with a new line of peer's unless it had one (then
 * unchanged). 1: written with peer's new line; 0: not; -1 with errno.
 */
static int
rewrite(struct pg_state *st, const char *cluster, const char *peer,
    int64_t every_ms, int add)
{
	char		 in[FILE_MAX], out[FILE_MAX];
	struct pg_stamp	 now;
	ssize_t		 n;
	size_t		 off = 0;
	int		 r;

	if (pg_stamp_now(&now) == -1 || pg_rec_lock(st, cluster) == -1)
		return -1;
	/* Missing, damaged, another's: said again, and written anew. */
	n = pg_state_get(st, cluster, SUFFIX, in, sizeof(in));
	pg_appendf(out, sizeof(out), &off, "%s", MAGIC);
	if (n <= 0 || (r = keep(in, n, peer, every_ms, &now, out,
	    sizeof(out), &off)) == -1) {
		off = sizeof(MAGIC) - 1;
		r = 0;
	}
	if (r == add) {		/* said already, or nothing to forget */
		pg_rec_unlock(st);
		return 0;
	}
	if (add && pg_stamp_append(out, sizeof(out), &off, peer,
	    &now) == -1) {
		errno = ENAMETOOLONG;
		r = -1;
	} else
		r = pg_state_put(st, cluster, SUFFIX, out, off);
	pg_rec_unlock(st);
	return r == -1 ? -1 : add;
}

int
pg_unreachable_due(struct pg_state *st, const char *cluster,
    const char *peer, int64_t every_ms)
{
	return rewrite(st, cluster, peer, every_ms, 1);
}

int
pg_unreachable_clear(struct pg_state *st, const char *cluster,
    const char *const *peers, size_t npeers, int64_t every_ms)
{
	char		 in[FILE_MAX], scratch[FILE_MAX];
	struct pg_stamp	 now;
	ssize_t		 n;
	size_t		 i, off;

	/* Written by rename: read once without the lock; nearly always none. */
	if ((n = pg_state_get(st, cluster, SUFFIX, in, sizeof(in))) <= 0 ||
	    pg_stamp_now(&now) == -1)
		return 0;
	for (i = 0; i < npeers; i++) {
		off = 0;
		if (keep(in, n, peers[i], every_ms, &now, scratch,
		    sizeof(scratch), &off) == 1 &&
		    rewrite(st, cluster, peers[i], every_ms, 0) == -1)
			return -1;
	}
	return 0;
}
