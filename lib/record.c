/* SPDX-License-Identifier: ISC */
/* record.c: the activity record of a cluster, and pg_state_set. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "state-int.h"

int
pg_state_set(struct pg_state *st, const char *cluster, const char *suffix,
    const char *buf, size_t len)
{
	int	 r;

	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	r = pg_state_put(st, cluster, suffix, buf, len);
	pg_rec_unlock(st);
	return r;
}

ssize_t
pg_state_read_raw(struct pg_state *st, const char *cluster, char *buf,
    size_t len)
{
	return pg_state_get(st, cluster, NULL, buf, len < PG_RECORD_MAX ? len :
	    PG_RECORD_MAX);
}

int
pg_state_read(struct pg_state *st, const char *cluster, struct pg_stamp *rec)
{
	char		 buf[PG_RECORD_MAX];
	ssize_t		 n;

	if ((n = pg_state_read_raw(st, cluster, buf, sizeof(buf))) <= 0)
		return n;
	return pg_stamp_parse(buf, n, rec) == -1 ? -1 : 1;
}

int
pg_state_touch(struct pg_state *st, const char *cluster)
{
	struct pg_stamp	 now, old;
	char		 buf[PG_RECORD_MAX];
	int		 len, r;

	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	/* Under the lock: touches replace each other in the order of times. */
	if ((r = pg_stamp_now(&now)) == 0) {
		/* An unreadable record has no claim to keep. */
		if (pg_state_read(st, cluster, &old) == 1 &&
		    pg_stamp_in_horizon(&old, &now)) {
			now.claim_ns = old.claim_ns;
			now.horizon_ms = old.horizon_ms;
		}
		r = (len = pg_stamp_format(&now, buf, sizeof(buf))) == -1 ?
		    -1 : pg_state_put(st, cluster, NULL, buf, len);
	}
	pg_rec_unlock(st);
	return r;
}

int
pg_state_claim(struct pg_state *st, const char *cluster, int64_t horizon_ms,
    struct pg_stamp *rec, int64_t *visible_ns)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct pg_stamp		 done;
	int			 len, r = -1;

	p->undolen = -1;
	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	if (pg_stamp_now(rec) == -1)
		goto out;
	rec->claim_ns = rec->mono_ns;
	rec->horizon_ms = horizon_ms;
	if ((len = pg_stamp_format(rec, p->undoby, sizeof(p->undoby))) == -1)
		goto out;
	p->undolen = pg_state_read_raw(st, cluster, p->undo,
	    sizeof(p->undo));
	if (pg_state_put(st, cluster, NULL, p->undoby, len) == -1 ||
	    pg_stamp_now(&done) == -1) {
		p->undolen = -1;
		goto out;
	}
	strlcpy(p->undocluster, cluster, sizeof(p->undocluster));
	*visible_ns = done.mono_ns;
	r = 0;
out:
	pg_rec_unlock(st);
	return r;
}

/*
 * Replace the record with new[0..len) (NULL: remove it) while it is still
 * buf, in one step under the record lock (doc/STATE.md, Locks). 1: done,
 * 0: someone wrote since, or it is damaged; -1 with errno.
 */
static int
replace_ours(struct pg_state *st, const char *cluster, const char *buf,
    int blen, const char *new, size_t len)
{
	char	 now[PG_RECORD_MAX];
	ssize_t	 n;
	int	 r;

	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	if ((n = pg_state_read_raw(st, cluster, now, sizeof(now))) == -1)
		r = errno == EBADMSG ? 0 : -1;
	else if (n == blen && memcmp(now, buf, blen) == 0)
		r = pg_state_put(st, cluster, NULL, new, len) == -1 ? -1 : 1;
	else
		r = 0;
	pg_rec_unlock(st);
	return r;
}

/* This handle's last pg_state_claim wrote buf to cluster's record. */
static int
made_claim(const struct pg_state_priv *p, const char *cluster,
    const char *buf)
{
	return p->undolen >= 0 && strcmp(p->undocluster, cluster) == 0 &&
	    strcmp(p->undoby, buf) == 0;
}

int
pg_state_lengthen(struct pg_state *st, const char *cluster,
    struct pg_stamp *rec, int64_t horizon_ms)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct pg_stamp		 longer = *rec;
	char			 buf[PG_RECORD_MAX], by[PG_RECORD_MAX];
	int			 blen, len, r;

	longer.horizon_ms = horizon_ms;
	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1 ||
	    (len = pg_stamp_format(&longer, by, sizeof(by))) == -1)
		return -1;
	if ((r = replace_ours(st, cluster, buf, blen, by, len)) != 1)
		return r;
	if (made_claim(p, cluster, buf))
		memcpy(p->undoby, by, len + 1);
	*rec = longer;
	return 1;
}

int
pg_state_restore(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec, const char *old, size_t len)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	char			 buf[PG_RECORD_MAX];
	int			 blen, r;

	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	/* What the claim replaced: old misses a touch just before the claim. */
	if (made_claim(p, cluster, buf)) {
		old = p->undo;
		len = p->undolen;
	}
	if (len > PG_RECORD_MAX) {
		errno = EINVAL;
		return -1;
	}
	r = replace_ours(st, cluster, buf, blen, len == 0 ? NULL : old, len);
	if (r != -1)
		p->undolen = -1;
	return r;
}

int
pg_state_remove(struct pg_state *st, const char *cluster)
{
	return pg_state_set(st, cluster, NULL, NULL, 0);
}
