/* SPDX-License-Identifier: ISC */
/* record.c: the activity record of a cluster, and pg_state_set. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
		/*
		 * The record keeps its last claim for the boot: serve tells
		 * from it whether a go's job has started (lib/local.c). An
		 * unreadable record has no claim to keep.
		 */
		if (pg_state_read(st, cluster, &old) == 1 &&
		    old.claim_ns > 0 && pg_stamp_same_boot(&old, &now) &&
		    old.claim_ns <= now.mono_ns) {
			now.claim_ns = old.claim_ns;
			now.horizon_ms = old.horizon_ms;
		}
		r = (len = pg_stamp_format(&now, buf, sizeof(buf))) == -1 ?
		    -1 : pg_state_put(st, cluster, NULL, buf, len);
	}
	pg_rec_unlock(st);
	return r;
}

/* Remove the claim's link to what it replaced, if it made one: 0. */
static int
unlink_undo(struct pg_state *st, const char *cluster)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	char			 name[PG_STATE_NAME_MAX];
	int			 saved = errno;

	if (p->linked && pg_state_name(name, sizeof(name), cluster,
	    PG_UNDO_SUFFIX) == 0)
		unlinkat(st->dirfd, name, 0);
	errno = saved;
	return p->linked = 0;
}

/*
 * Keep what the claim replaces: the record's file itself, by a second
 * name (so that the withdrawal needs no new disk blocks), and its bytes.
 */
static void
keep_undo(struct pg_state *st, const char *cluster)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	char			 name[PG_STATE_NAME_MAX];

	if (pg_state_name(name, sizeof(name), cluster, PG_UNDO_SUFFIX) == 0 &&
	    (unlinkat(st->dirfd, name, 0) == 0 || errno == ENOENT) &&
	    linkat(st->dirfd, cluster, st->dirfd, name, 0) == 0) {
		p->linked = 1;
		/* Through the link: the bytes of its file, not a symlink's. */
		if ((p->undolen = pg_state_get(st, cluster, PG_UNDO_SUFFIX,
		    p->undo, sizeof(p->undo))) > 0)
			return;
		unlink_undo(st, cluster);
	}
	p->undolen = pg_state_read_raw(st, cluster, p->undo,
	    sizeof(p->undo));
}

int
pg_state_claim(struct pg_state *st, const char *cluster, int64_t horizon_ms,
    struct pg_stamp *rec, int64_t *visible_ns)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct pg_stamp		 done;
	int			 len, r = -1;

	p->undolen = -1;
	p->linked = 0;
	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	if (pg_stamp_now(rec) == -1)
		goto out;
	rec->claim_ns = rec->mono_ns;
	rec->horizon_ms = horizon_ms;
	if ((len = pg_stamp_format(rec, p->undoby, sizeof(p->undoby))) == -1)
		goto out;
	keep_undo(st, cluster);
	r = pg_state_put(st, cluster, NULL, p->undoby, len);
	/* A tmpfs counts a link against its inodes: not at the claim's cost. */
	if (r == -1 && errno == ENOSPC && p->linked) {
		unlink_undo(st, cluster);
		r = pg_state_put(st, cluster, NULL, p->undoby, len);
	}
	if (r == -1 || (r = pg_stamp_now(&done)) == -1) {
		unlink_undo(st, cluster);
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
 * The claim's link to what it replaced is still new[0..len): rename it
 * over the record, which needs no new disk blocks. 0, or -1 with errno.
 */
static int
rename_undo(struct pg_state *st, const char *cluster, const char *new,
    size_t len)
{
	char	 name[PG_STATE_NAME_MAX], was[PG_RECORD_MAX];

	if (pg_state_name(name, sizeof(name), cluster, PG_UNDO_SUFFIX) == -1 ||
	    pg_state_get(st, cluster, PG_UNDO_SUFFIX, was, sizeof(was)) !=
	    (ssize_t)len || memcmp(was, new, len) != 0 ||
	    renameat(st->dirfd, name, st->dirfd, cluster) == -1)
		return -1;
	pg_state_priv(st)->linked = 0;
	return 0;
}

/*
 * Replace the record with new[0..len) (NULL: remove it; link: by the
 * claim's link, if it can) while it is still buf, in one step under the
 * record lock (doc/STATE.md, Locks). 1: done, 0: someone wrote since, or
 * it is damaged; -1 with errno.
 */
static int
replace_ours(struct pg_state *st, const char *cluster, const char *buf,
    int blen, const char *new, size_t len, int link)
{
	char	 now[PG_RECORD_MAX];
	ssize_t	 n;
	int	 r;

	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	if ((n = pg_state_read_raw(st, cluster, now, sizeof(now))) == -1)
		r = errno == EBADMSG ? 0 : -1;
	else if (n != blen || memcmp(now, buf, blen) != 0)
		r = 0;
	else if ((link && new != NULL && rename_undo(st, cluster, new,
	    len) == 0) || pg_state_put(st, cluster, NULL, new, len) == 0)
		r = 1;
	else
		r = -1;
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
	if ((r = replace_ours(st, cluster, buf, blen, by, len, 0)) != 1)
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
	int			 blen, mine, r;

	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	/* What the claim replaced: old misses a touch just before the claim. */
	if ((mine = made_claim(p, cluster, buf))) {
		old = p->undo;
		len = p->undolen;
	}
	if (len > PG_RECORD_MAX) {
		errno = EINVAL;
		return -1;
	}
	r = replace_ours(st, cluster, buf, blen, len == 0 ? NULL : old, len,
	    mine && p->linked);
	/* Failed: kept for another try, or pg_state_unclaim. */
	if (r != -1 && mine) {
		unlink_undo(st, cluster);
		p->undolen = -1;
	}
	return r;
}

int
pg_state_unclaim(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec, int64_t wait_ms, int64_t *left_ms)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct pg_stamp		 old, now;
	char			 buf[PG_RECORD_MAX];
	int64_t			 left;
	int			 blen, r;

	*left_ms = 0;
	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1 ||
	    pg_stamp_now(&now) == -1)
		return -1;
	if (!made_claim(p, cluster, buf))
		return 0;
	/*
	 * Until what the claim replaced is idle, the claim stands for it;
	 * one that cannot be read, as long as the claim itself is active.
	 */
	if (p->undolen == 0)
		left = 0;
	else if (pg_stamp_parse(p->undo, p->undolen, &old) == 0)
		left = wait_ms - pg_stamp_elapsed(&old, &now);
	else
		left = wait_ms - pg_stamp_elapsed(rec, &now);
	if (left > 0) {
		*left_ms = left;
		return 0;
	}
	if ((r = replace_ours(st, cluster, buf, blen, NULL, 0, 0)) != -1) {
		unlink_undo(st, cluster);
		p->undolen = -1;
	}
	return r;
}

int
pg_state_reopen(struct pg_state *st, const char *cluster, const char *rec,
    size_t len, char *err, size_t errlen)
{
	char	 path[PATH_MAX], buf[PG_RECORD_MAX];
	int	 r = 0;

	strlcpy(path, st->path, sizeof(path));
	pg_state_close(st);
	if (pg_state_open(st, path, 1, err, errlen) == -1)
		return -1;
	if (len == 0)
		return 0;
	if (len > PG_RECORD_MAX) {
		errno = EINVAL;
		r = -1;
	} else if ((r = pg_rec_lock(st, cluster)) == 0) {
		if (pg_state_read_raw(st, cluster, buf, sizeof(buf)) == 0)
			r = pg_state_put(st, cluster, NULL, rec, len);
		pg_rec_unlock(st);
	}
	if (r == -1)
		snprintf(err, errlen, "cannot write %s/%s: %s", st->path,
		    cluster, pg_state_strerror(st, errno));
	return r;
}

int
pg_state_remove(struct pg_state *st, const char *cluster)
{
	return pg_state_set(st, cluster, NULL, NULL, 0);
}
