/* SPDX-License-Identifier: ISC */
/*
 * state.h: the state directory of a node and the files in it (formats
 * and locks: doc/STATE.md). What only their sources share is in
 * state-int.h.
 */
#ifndef PG_STATE_H
#define PG_STATE_H

#include "base.h"

/* stamp.c: moments of this host and the activity record's text. */

#define PG_BOOT_ID_LEN	36

/* A moment on this host, or an activity record. */
struct pg_stamp {
	char		 boot_id[PG_BOOT_ID_LEN + 1];	/* "" when unknown */
	int64_t		 mono_ns;	/* CLOCK_BOOTTIME: counts suspend */
	int64_t		 wall_ns;	/* CLOCK_REALTIME, only across
					   reboots */
	/*
	 * Records only: the moment (CLOCK_BOOTTIME) of the claim that began
	 * this round, and how long after it peers are told the time since the
	 * claim rather than since the latest refresh (see pg_record_elapsed).
	 * Both 0: no claim. pg_stamp_now sets both to 0.
	 */
	int64_t		 claim_ns;
	int64_t		 horizon_ms;
};

/* Read the clocks and the boot ID. -1 with errno when a clock fails. */
int	 pg_stamp_now(struct pg_stamp *);

/*
 * Milliseconds from the activity rec to the moment now, as
 * doc/PROTOCOL.md, "What elapsed means", says. A record from the future
 * (impossible within a boot) counts as 0.
 */
int64_t	 pg_stamp_elapsed(const struct pg_stamp *, const struct pg_stamp *);

/*
 * What serve reports for a record: pg_stamp_elapsed, except within the
 * claim's horizon, where it is the time since the claim. Refreshes by the
 * winner's job then do not hide when it claimed from peers still settling
 * their own claims.
 */
int64_t	 pg_record_elapsed(const struct pg_stamp *, const struct pg_stamp *);

/* rec's claim is reported as such at now: same boot, within horizon_ms. */
int	 pg_stamp_in_horizon(const struct pg_stamp *, const struct pg_stamp *);

/*
 * The record as written to disk, and back. format: the length written, or
 * -1 when it does not fit. parse: 0, or -1 with EBADMSG when malformed.
 */
int	 pg_stamp_format(const struct pg_stamp *, char *, size_t);
int	 pg_stamp_parse(const char *, size_t, struct pg_stamp *);

#define PG_RECORD_MAX	160	/* the longest record, in bytes */

/*
 * statedir.c: the state directory, opened once per tool; records, locks
 * and side records are files in it.
 */

#define PG_STATE_PRIV_MAX	512	/* struct pg_state_priv, at most */

/*
 * An open state directory. The tools read dirfd and path; the rest is
 * the library's: priv is only room for what the sources of the state
 * directory keep in it (lib/state-int.h), as struct sockaddr_storage is
 * room for an address.
 */
struct pg_state {
	int		 dirfd;		/* -1: not open */
	char		 path[PATH_MAX];
	/*
	 * pg_serve_state: why the directory at the path cannot be used
	 * (mode, permissions, not a directory); "" when it is open or
	 * absent. dirfd is -1 then.
	 */
	char		 refused[PG_ERR_MAX];
	union {
		unsigned char	 bytes[PG_STATE_PRIV_MAX];
		int64_t		 align;
		void		*palign;
	}		 priv;
};

/*
 * Open the state directory, creating its last component (mode 0755) when
 * it is missing and create is set; with create, also remove temporary
 * files that writers killed mid-write left behind (older than a minute).
 * Refuses a path that is not absolute, not a directory, or writable by
 * group or others. On failure return -1 and write the reason, naming the
 * directory, to err. pg_state_close also closes the handle's descriptor
 * of the record lock, which the writers take (lock.c); readers never do.
 */
int	 pg_state_open(struct pg_state *, const char *, int, char *, size_t);
void	 pg_state_close(struct pg_state *);

/*
 * The state directory at path for serve, which never creates it: *st,
 * (re)opened when it appeared since, or was removed or replaced (the
 * records are in the one at the path now); NULL while there is none.
 * When there is one that cannot be used (a mode pg_state_open refuses,
 * no permission, not a directory), *st with dirfd -1 and the reason in
 * st->refused: serve must answer 500 then, not "never", which would hide
 * it: peers warn of a 500 and apply their unreachable policy (with
 * "skip", they skip). st->dirfd is -1 before the first call.
 */
struct pg_state	*pg_serve_state(struct pg_state *, const char *);

/* write(2) all of a buffer, going on after EINTR. -1 with errno. */
int	 pg_write_all(int, const void *, size_t);

/* record.c: the activity record of a cluster, "CLUSTER". */

/*
 * Read the record of a cluster: 1 and *rec when there is one, 0 when there
 * is none ("never"), -1 on failure with errno (EBADMSG: malformed record).
 */
int	 pg_state_read(struct pg_state *, const char *, struct pg_stamp *);

/*
 * Record activity now: replace the record atomically (doc/STATE.md) with
 * pg_stamp_now, keeping the claim of the record it replaces while that
 * claim's horizon lasts. -1 with errno.
 */
int	 pg_state_touch(struct pg_state *, const char *);

/*
 * Claim a round: write a record of now whose claim is now, with the horizon
 * given (ms). Store the record written in *rec and the moment the rename
 * made it visible (CLOCK_BOOTTIME, ns) in *visible_ns. The handle keeps
 * the record the claim replaced, for pg_state_restore.
 */
int	 pg_state_claim(struct pg_state *, const char *, int64_t,
	    struct pg_stamp *, int64_t *);

/*
 * Lengthen this handle's claim *rec to horizon_ms, in one step under the
 * record lock, only while the record on disk is still that claim (a
 * later writer's record stays); pg_state_restore then takes back the
 * longer one as this handle's. 1: lengthened (*rec too), 0: the record
 * is no longer the claim, -1 with errno.
 */
int	 pg_state_lengthen(struct pg_state *, const char *, struct pg_stamp *,
	    int64_t);

/*
 * The record's bytes exactly as on disk, for pg_state_restore: the length
 * (at most PG_RECORD_MAX), 0 when there is none, -1 with errno.
 */
ssize_t	 pg_state_read_raw(struct pg_state *, const char *, char *, size_t);

/*
 * Take back the claim rec: put back the record it replaced (atomically, as
 * pg_state_touch), or remove the record when there was none; but only
 * while the record on disk is still rec: when someone wrote since, leave
 * theirs. The check and the replacement are one step under the record
 * lock, so a touch is never undone. What is put back is what
 * pg_state_claim replaced, when this handle made the claim rec; else the
 * bytes given, as pg_state_read_raw returned them before the claim
 * (length 0: none). 1: restored, 0: left alone, -1 with errno.
 */
int	 pg_state_restore(struct pg_state *, const char *,
	    const struct pg_stamp *, const char *, size_t);

/* Remove the record: the cluster reads as never. No record is success. */
int	 pg_state_remove(struct pg_state *, const char *);

/* lock.c: the run lock and the claim lock of a cluster. */

/*
 * Take the cluster's run lock without waiting. 1: taken, the descriptor
 * in *fd (close-on-exec; the lock lasts until it is closed). 0: another
 * process holds it. -1: failure, errno set.
 */
int	 pg_lock_take(struct pg_state *, const char *, int *);

/*
 * Take the cluster's claim lock (".CLUSTER.claim") without waiting, as
 * pg_lock_take: pollguard-check holds it from its first question to its
 * exit, so that two checks on one node never claim, settle and restore
 * over each other.
 */
int	 pg_claim_lock(struct pg_state *, const char *, int *);

/* 1 when a process holds the run lock, 0 when not, -1 on failure. */
int	 pg_lock_held(struct pg_state *, const char *);

/*
 * Does a pollguard-check of the cluster hold the claim lock, that is, is
 * one deciding on this node? Only tests, never takes it (F_OFD_GETLK on a
 * read-only descriptor), so that asking can never make a check of this
 * node skip. A user who cannot open the 0600 lock file (pollguard-serve
 * as its own user) is answered from /proc/locks. 1: held (a write lock),
 * 0: not, -1 with errno: cannot tell.
 */
int	 pg_claim_held(struct pg_state *, const char *);

/*
 * side.c: the side record of a cluster, ".CLUSTER.side", and its parts:
 * the outcome of the job's runs, a hold, this node's checks (their text,
 * and what a damaged one does: doc/STATE.md).
 */

#define PG_SIDE_MAX	2048	/* the longest side record, in bytes */

/* The outcome part: end and what follows are the last finished run's. */
struct pg_outcome {
	int		 running;	/* a run started and has not ended */
	pid_t		 pid;		/* the latest run's job, 0: unknown */
	struct pg_stamp	 start;		/* the latest run began (no claim) */
	int		 ended;		/* a run has finished: what follows */
	struct pg_stamp	 end;
	int64_t		 duration_ms;
	int		 exit_status;	/* 0..255, or -1 when signalled */
	int		 signal;	/* the signal that ended it, or 0 */
	int		 timed_out;	/* killed at max_runtime */
	int64_t		 failures;	/* failed runs in a row, 0 after a
					   success */
	int		 succeeded;	/* a run has succeeded: success
					   is set */
	struct pg_stamp	 success;	/* when the last successful run ended */
};

#define PG_OUTCOME_MAX	512	/* the longest outcome part, in bytes */

/*
 * A part's text and back, as for each part below. format: the length, or
 * -1 (ENAMETOOLONG) when it does not fit. parse: 0, or -1 with EBADMSG
 * when it is not a version 1 part; unknown keys are skipped.
 */
int	 pg_outcome_format(const struct pg_outcome *, char *, size_t);
int	 pg_outcome_parse(const char *, size_t, struct pg_outcome *);

/*
 * Read the outcome of a cluster: 1 and *o, 0 when no run was recorded,
 * -1 with errno (EBADMSG: damaged).
 */
int	 pg_outcome_read(struct pg_state *, const char *, struct pg_outcome *);

/*
 * A run of the job began now, as process pid: record running, keeping
 * the last finished run's result and the failure count from the file
 * (a damaged or missing one counts from nothing). A run recorded as
 * running whose end was never written (pollguard-touch was killed)
 * counts as one more failure. *o gets what was written, for
 * pg_outcome_finish, also when writing fails (-1 with errno).
 */
int	 pg_outcome_start(struct pg_state *, const char *, pid_t,
	    struct pg_outcome *);

/*
 * The run begun by pg_outcome_start ended now with this wait(2) status,
 * timed out or not: record the result in *o and write it. A non-zero
 * exit, a signal or a timeout adds one to the failures, a success resets
 * them. -1 with errno when the write fails (*o is updated regardless).
 */
int	 pg_outcome_finish(struct pg_state *, const char *, int, int,
	    struct pg_outcome *);

enum pg_run {
	PG_RUN_NONE,		/* no run recorded */
	PG_RUN_DONE,		/* the last run finished */
	PG_RUN_RUNNING,		/* a run is going */
	PG_RUN_DIED		/* recorded running, but its pollguard-touch is
				   gone: the end was never recorded */
};

/*
 * What a record read by pg_outcome_read (or NULL: none) says, checked
 * against the run lock (pg_lock_held): running with the lock free is
 * DIED. When the lock cannot be tested (serve, as another user, may not
 * open the 0600 lock file), a job PID that no longer exists is DIED.
 */
enum pg_run	 pg_outcome_run(struct pg_state *, const char *,
	    const struct pg_outcome *);

/* The hold part: when it ends and how it is counted, doc/STATE.md. */
#define PG_HOLD_MAX_MS		(7LL * 24 * 3600 * 1000)	/* 7d */
#define PG_HOLD_TEXT_MAX	128	/* by, why: PG_STATUS_TEXT_MAX */
#define PG_HOLD_FILE_MAX	512	/* the longest hold part, in bytes */

struct pg_hold {
	struct pg_stamp	 until;		/* when it ends (no claim) */
	int64_t		 ms;		/* how long it was set for */
	char		 by[PG_HOLD_TEXT_MAX];	/* "user@node"; "": not said */
	char		 why[PG_HOLD_TEXT_MAX];	/* "": not said */
};

/*
 * A hold of ms (1..PG_HOLD_MAX_MS) from now. by and why must be printable
 * ASCII without a leading or trailing blank, shorter than
 * PG_HOLD_TEXT_MAX (NULL or "": not said). 0, or -1 with errno: EINVAL
 * (ms out of range, a character refused), ENAMETOOLONG (a text too long).
 */
int	 pg_hold_make(struct pg_hold *, int64_t, const char *, const char *);

/* The hold's time left at now in ms; 0: it has ended. */
int64_t	 pg_hold_left(const struct pg_hold *, const struct pg_stamp *);

/* format: also -1 with EINVAL for a field that pg_hold_make refuses. */
int	 pg_hold_format(const struct pg_hold *, char *, size_t);
int	 pg_hold_parse(const char *, size_t, struct pg_hold *);

/* Replace the hold atomically, under the record lock. -1 with errno. */
int	 pg_hold_write(struct pg_state *, const char *, const struct pg_hold *);

/* Lift the hold: remove its part. No hold is success. */
int	 pg_hold_remove(struct pg_state *, const char *);

/* The checked part, of a cluster with prefer (doc/PREFER.md). */
#define PG_CHECKED_MAX	384	/* the longest checked part, in bytes */

struct pg_checked {
	struct pg_stamp	 last;		/* the latest check began (no claim) */
	struct pg_stamp	 since;		/* checks without a longer gap since */
	char		 yield[PG_NAME_MAX + 1];	/* "": no yield */
	struct pg_stamp	 yielded;	/* when it decided to yield */
};

/* format: also -1 with EINVAL for a yield that is not a valid name. */
int	 pg_checked_format(const struct pg_checked *, char *, size_t);
int	 pg_checked_parse(const char *, size_t, struct pg_checked *);

/* Read it: 1 and *ck, 0 when there is none, -1 with errno (EBADMSG). */
int	 pg_checked_read(struct pg_state *, const char *, struct pg_checked *);

/* Replace it atomically, under the record lock. -1 with errno. */
int	 pg_checked_write(struct pg_state *, const char *,
	    const struct pg_checked *);

/* The whole side record, read at once (pg_status_local). */
struct pg_side {
	int			 outcome;	/* 1: o is set; 0: none; -1:
						   damaged */
	struct pg_outcome	 o;
	int			 hold;		/* 1: h (it may have ended) */
	struct pg_hold		 h;
	int			 checked;	/* 1: ck */
	struct pg_checked	 ck;
};

/*
 * The side record's text, all of it: each part 1 and its value, 0 (none)
 * or -1 (damaged). 0, or -1 with EBADMSG when it is damaged as a whole
 * (every part -1). No text, len 0, is no part.
 */
int	 pg_side_parse(const char *, size_t, struct pg_side *);

/*
 * Read the side record of a cluster with one open, and parse it: 0, or
 * -1 with errno when it cannot be read or is damaged as a whole.
 */
int	 pg_side_read(struct pg_state *, const char *, struct pg_side *);

#endif /* PG_STATE_H */
