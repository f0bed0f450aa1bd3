/* SPDX-License-Identifier: ISC */
/*
 * state-int.h: private to the sources of the state directory (those of
 * state.h, and lease.c). The same contract: 0 or -1 with errno unless
 * stated otherwise.
 */
#ifndef PG_STATE_INT_H
#define PG_STATE_INT_H

#include "state.h"

/* What a struct pg_state keeps for these sources, in its priv. */
struct pg_state_priv {
	dev_t		 dev;		/* dirfd's, as opened */
	ino_t		 ino;
	int		 recfd;		/* lock.c: the record lock, or -1 */
	pid_t		 recpid;	/* ... opened by this process */
	char		 reccluster[PG_NAME_MAX + 1];	/* ... for this */
	/*
	 * What the last pg_state_claim replaced: undolen bytes (0: no record;
	 * -1: nothing kept, no claim or the record could not be read); with
	 * linked, the file itself, also named ".CLUSTER.undo".
	 */
	char		 undo[PG_RECORD_MAX];
	ssize_t		 undolen;
	int		 linked;
	char		 undoby[PG_RECORD_MAX];	/* the claim */
	char		 undocluster[PG_NAME_MAX + 1];
};

/* It fits in priv: else this array's size is -1, and the build fails. */
typedef char	 pg_state_priv_fits[sizeof(struct pg_state_priv) <=
		    PG_STATE_PRIV_MAX ? 1 : -1];

static inline struct pg_state_priv *
pg_state_priv(struct pg_state *st)
{
	return (struct pg_state_priv *)(void *)st->priv.bytes;
}

/*
 * A claim's second name for the record it replaced, ".CLUSTER.undo":
 * removed when older than PG_UNDO_STALE_S (its inode's change time, which
 * the link sets), as a crash can leave it (doc/STATE.md, "Withdrawal").
 */
#define PG_UNDO_SUFFIX		"undo"
#define PG_UNDO_STALE_S		600

/* The longest name of a file beside a record, ".CLUSTER.SUFFIX". */
#define PG_STATE_NAME_MAX	(PG_NAME_MAX + 16)

/* ".CLUSTER.SUFFIX" into buf (PG_STATE_NAME_MAX). -1: ENAMETOOLONG. */
int	 pg_state_name(char *, size_t, const char *, const char *);

/*
 * cluster's record (suffix NULL) or the file beside it. get: read it
 * whole (len at most): its length, 0 when absent, -1 (EBADMSG: no regular
 * file of 1 to len bytes). put: replace it atomically, or remove it when
 * buf is NULL (none is success), under the record lock; set: put, taking
 * the lock.
 */
ssize_t	 pg_state_get(struct pg_state *, const char *, const char *, char *,
	    size_t);
int	 pg_state_put(struct pg_state *, const char *, const char *,
	    const char *, size_t);
int	 pg_state_set(struct pg_state *, const char *, const char *,
	    const char *, size_t);

/*
 * openat(2) name in the directory (flags, and never through a symbolic
 * link; created 0600), refusing one that another user owns: a descriptor,
 * or -1 with errno (ELOOP, EPERM: why in st->why).
 */
int	 pg_state_openat(struct pg_state *, const char *, int);

/* close(2) fd, leaving errno as it was: -1, a failure's way out. */
int	 pg_close_fail(int);

/* Take the record lock, waiting; release it, leaving errno as it was. */
int	 pg_rec_lock(struct pg_state *, const char *);
void	 pg_rec_unlock(struct pg_state *);

/* Two stamps of one boot (by boot ID, else by the monotonic clock). */
int	 pg_stamp_same_boot(const struct pg_stamp *, const struct pg_stamp *);

/*
 * A stamp in the side record. append: the line "KEY BOOT MONO WALL" at
 * *off, advancing it: 0, or -1 when it does not fit (*off and buf are
 * then undefined). value: the value "BOOT MONO WALL", all of s[0..n): 0,
 * or -1 with EBADMSG.
 */
int	 pg_stamp_append(char *, size_t, size_t *, const char *,
	    const struct pg_stamp *);
int	 pg_stamp_value(const char *, size_t, struct pg_stamp *);

/* Clear size bytes at p and fail with EBADMSG: -1. The parsers' way out. */
int	 pg_bad_msg(void *, size_t);

#endif
