/* SPDX-License-Identifier: ISC */
/*
 * state-int.h: private to the sources of the state directory (stamp.c,
 * statedir.c, lock.c, record.c, side.c, sidefmt.c); state.h has what
 * the rest of the library and the tools use. The same contract: 0 or -1
 * with errno unless stated otherwise.
 */
#ifndef PG_STATE_INT_H
#define PG_STATE_INT_H

#include "state.h"

/* The longest name of a file beside a record, ".CLUSTER.SUFFIX". */
#define PG_STATE_NAME_MAX	(PG_NAME_MAX + 16)

/*
 * The name of a file beside cluster's record: ".CLUSTER.SUFFIX", into buf
 * (PG_STATE_NAME_MAX bytes are enough). The leading dot keeps it apart
 * from every record: no cluster ID starts with one. -1: ENAMETOOLONG.
 */
int	 pg_state_name(char *, size_t, const char *, const char *);

/*
 * Read a whole small file of the directory into buf (len bytes at most):
 * its length, 0 when it is absent, -1 with errno; EBADMSG when it is no
 * regular file of 1 to len bytes.
 */
ssize_t	 pg_state_get(struct pg_state *, const char *, char *, size_t);

/*
 * Replace a file of the directory with these bytes, atomically: a
 * temporary file, fsync, rename. The caller holds the record lock.
 */
int	 pg_state_put(struct pg_state *, const char *, const char *, size_t);

/* Remove a file of the directory; none is success. Under the lock too. */
int	 pg_state_unlink(struct pg_state *, const char *);

/*
 * The record lock of a cluster (lock.c): taken, waiting for it; and
 * released, leaving errno as it was.
 */
int	 pg_rec_lock(struct pg_state *, const char *);
void	 pg_rec_unlock(struct pg_state *);

/* Two stamps of one boot (by boot ID, else by the monotonic clock). */
int	 pg_stamp_same_boot(const struct pg_stamp *, const struct pg_stamp *);

/*
 * A stamp in the side record: the line "KEY BOOT MONO WALL" appended as
 * pg_appendf does (0, or -1 when it does not fit); and the value "BOOT
 * MONO WALL", the whole of s[0..n), read back (0, or -1).
 */
int	 pg_stamp_append(char *, size_t, size_t *, const char *,
	    const struct pg_stamp *);
int	 pg_stamp_value(const char *, size_t, struct pg_stamp *);

#endif
