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
	/* Records only: the claim (CLOCK_BOOTTIME) and its horizon; 0: none. */
	int64_t		 claim_ns;
	int64_t		 horizon_ms;
};

/* Read the clocks and the boot ID (no claim). -1 with errno. */
int	 pg_stamp_now(struct pg_stamp *);

/* ms from rec to now (doc/PROTOCOL.md, "What elapsed means"); >= 0. */
int64_t	 pg_stamp_elapsed(const struct pg_stamp *, const struct pg_stamp *);

/* What serve reports: within the claim's horizon, the time since it. */
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

/* statedir.c: the state directory, opened once per tool. */

#define PG_STATE_PRIV_MAX	512	/* struct pg_state_priv, at most */

/* An open state directory: tools read dirfd and path; priv is lib's. */
struct pg_state {
	int		 dirfd;		/* -1: not open */
	char		 path[PATH_MAX];
	char		 real[PATH_MAX];	/* its real path (pg_trust) */
	/* pg_serve_state: why not (dirfd -1 then); "" when open or absent. */
	char		 refused[PG_ERR_MAX];
	/* Why the last file opened in it was refused; "": it was not. */
	char		 why[PG_ERR_MAX];
	union {
		unsigned char	 bytes[PG_STATE_PRIV_MAX];
		int64_t		 align;
		void		*palign;
	}		 priv;
};

/*
 * Open the state directory at an absolute path (with create: make it,
 * 0755, and sweep stale temporary files). -1 with errno (ENOTDIR: no
 * directory; EPERM: not trusted, pg_trust), the reason in err, dirfd -1
 * and refused "". pg_state_close also closes the record lock's descriptor.
 */
int	 pg_state_open(struct pg_state *, const char *, int, char *, size_t);
void	 pg_state_close(struct pg_state *);

/*
 * The directory at the handle's path is no longer the one it has open
 * (removed, renamed or replaced; or none is open): 1; 0: it is; -1 with
 * errno when its path cannot be looked up.
 */
int	 pg_state_moved(struct pg_state *);

/*
 * No file in it is opened through a symbolic link (errno ELOOP) or when
 * another user owns it (EPERM, pg_trust_file). For a message after such
 * a failure: what is wrong with the file, with its owner and mode, or
 * strerror(errnum).
 */
const char	*pg_state_strerror(const struct pg_state *, int);

/*
 * serve's directory at path, (re)opened when it appeared or was replaced
 * (dirfd -1 before the first call), and trusted again at each call: st;
 * NULL while there is none; st with dirfd -1 and the reason in refused
 * when it cannot be used.
 */
struct pg_state	*pg_serve_state(struct pg_state *, const char *);

/* write(2) all of a buffer, going on after EINTR. -1 with errno. */
int	 pg_write_all(int, const void *, size_t);

/* record.c: the activity record of a cluster, "CLUSTER". */

/* 1 and *rec, 0 when there is none, -1 with errno (EBADMSG: malformed). */
int	 pg_state_read(struct pg_state *, const char *, struct pg_stamp *);

/* Replace the record with now, keeping its claim of this boot. */
int	 pg_state_touch(struct pg_state *, const char *);

/*
 * Write a record of now claimed now with this horizon (ms): it in *rec,
 * and when the rename made it visible (CLOCK_BOOTTIME ns) in *visible_ns.
 * The handle keeps what it replaced, for pg_state_restore: its bytes, and
 * the file itself by a second name, ".CLUSTER.undo" (when it can link it).
 */
int	 pg_state_claim(struct pg_state *, const char *, int64_t,
	    struct pg_stamp *, int64_t *);

/*
 * Lengthen the claim *rec to horizon_ms while the record is still it, as
 * this handle's to restore. 1: done (*rec too), 0: someone wrote since,
 * -1 with errno.
 */
int	 pg_state_lengthen(struct pg_state *, const char *, struct pg_stamp *,
	    int64_t);

/* The record's bytes (PG_RECORD_MAX at most): length, 0: none, -1. */
ssize_t	 pg_state_read_raw(struct pg_state *, const char *, char *, size_t);

/*
 * Take back the claim rec while the record is still it, byte for byte:
 * put back what this handle's claim replaced (renaming its second name
 * back, which needs no new disk blocks, else writing its bytes), else the
 * bytes given (from pg_state_read_raw; length 0: none, removed). 1: done,
 * 0: left alone, -1 with errno (the handle keeps what it needs to try
 * again, or pg_state_unclaim).
 */
int	 pg_state_restore(struct pg_state *, const char *,
	    const struct pg_stamp *, const char *, size_t);

/*
 * After a pg_state_restore that failed (-1): remove the record while it is
 * still the claim rec, once what this handle's claim replaced counts for
 * nothing by wait_ms (none, or idle; doc/STATE.md, "Withdrawal"). 1:
 * removed; 0: left alone, with the time until it can be in *left_ms (0:
 * it is no longer the claim, or nothing was kept); -1 with errno.
 */
int	 pg_state_unclaim(struct pg_state *, const char *,
	    const struct pg_stamp *, int64_t, int64_t *);

/*
 * After pg_state_moved: open the directory at the handle's path again,
 * making it when missing (pg_state_open), and give cluster's record the
 * bytes rec[0..len) (of pg_state_read_raw; len 0: none) when there is
 * none. 0, or -1 with errno and the reason in err (dirfd -1 when the
 * directory itself failed).
 */
int	 pg_state_reopen(struct pg_state *, const char *, const char *,
	    size_t, char *, size_t);

/* Remove the record: the cluster reads as never. No record is success. */
int	 pg_state_remove(struct pg_state *, const char *);

/* lock.c: the run lock and the claim lock of a cluster (doc/STATE.md). */

/*
 * Take the run lock (pg_lock_take) or the claim lock (pg_claim_lock)
 * without waiting: 1 and a close-on-exec descriptor in *fd that holds it,
 * 0 when another process holds it, -1 with errno.
 */
int	 pg_lock_take(struct pg_state *, const char *, int *);
int	 pg_claim_lock(struct pg_state *, const char *, int *);

/*
 * Is the run lock (pg_lock_held) or the claim lock (pg_claim_held) held?
 * Tests only, never takes it. 1: held, 0: not, -1 with errno.
 */
int	 pg_lock_held(struct pg_state *, const char *);
int	 pg_claim_held(struct pg_state *, const char *);

/* side.c: the side record of a cluster, ".CLUSTER.side", and its parts. */

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
	int64_t		 failures;	/* failed runs in a row */
	int		 succeeded;	/* a run has succeeded: success */
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
 * Read a part (pg_outcome_read, pg_checked_read): 1 and its value, 0 when
 * there is none, -1 with errno (EBADMSG: damaged).
 */
int	 pg_outcome_read(struct pg_state *, const char *, struct pg_outcome *);

/*
 * A run began now as pid: write *o running, one more failure when the
 * last run never recorded its end. *o is set also when the write fails.
 */
int	 pg_outcome_start(struct pg_state *, const char *, pid_t,
	    struct pg_outcome *);

/* Write *o as it is, as when a run is recorded again: 0, -1 with errno. */
int	 pg_outcome_write(struct pg_state *, const char *,
	    const struct pg_outcome *);

/*
 * The run ended now with this wait(2) status, timed out or not: write *o
 * (updated also when the write fails).
 */
int	 pg_outcome_finish(struct pg_state *, const char *, int, int,
	    struct pg_outcome *);

enum pg_run {
	PG_RUN_NONE,		/* no run recorded */
	PG_RUN_DONE,		/* the last run finished */
	PG_RUN_RUNNING,		/* a run is going */
	PG_RUN_DIED		/* recorded running, but the run lock is free,
				   or untestable and the PID gone */
};

/*
 * What an outcome read (NULL: none) says, checked against the run lock;
 * when the lock cannot be tested, a run whose PID is gone is DIED.
 */
enum pg_run	 pg_outcome_run(struct pg_state *, const char *,
	    const struct pg_outcome *);

/* The hold part (doc/STATE.md, "The hold"). */
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
 * A hold of ms (1..PG_HOLD_MAX_MS) from now; by and why (NULL or "": not
 * said) printable ASCII, no blank at either end. -1 with errno: EINVAL,
 * or ENAMETOOLONG (a text of PG_HOLD_TEXT_MAX or more).
 */
int	 pg_hold_make(struct pg_hold *, int64_t, const char *, const char *);

/* The hold's time left at now in ms; 0: it has ended. */
int64_t	 pg_hold_left(const struct pg_hold *, const struct pg_stamp *);

/* format: also -1 with EINVAL for a field that pg_hold_make refuses. */
int	 pg_hold_format(const struct pg_hold *, char *, size_t);
int	 pg_hold_parse(const char *, size_t, struct pg_hold *);

/*
 * Replace or remove (no hold is success) the part, under the record lock:
 * 0, or -1 with errno.
 */
int	 pg_hold_write(struct pg_state *, const char *, const struct pg_hold *);
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

/*
 * Read it as a part (above); replace it under the record lock: 0, or -1
 * with errno.
 */
int	 pg_checked_read(struct pg_state *, const char *, struct pg_checked *);
int	 pg_checked_write(struct pg_state *, const char *,
	    const struct pg_checked *);

/* The whole side record: each part 1 (set), 0 (none) or -1 (damaged). */
struct pg_side {
	int			 outcome;
	struct pg_outcome	 o;
	int			 hold;		/* it may have ended */
	struct pg_hold		 h;
	int			 checked;
	struct pg_checked	 ck;
};

/*
 * Parse a side record's text (len 0: no parts), or read and parse the
 * file: 0, or -1 with errno (EBADMSG: damaged as a whole, every part -1).
 */
int	 pg_side_parse(const char *, size_t, struct pg_side *);
int	 pg_side_read(struct pg_state *, const char *, struct pg_side *);

/*
 * unreach.c: ".CLUSTER.unreachable", when this node last reported each
 * peer it could not reach (doc/STATE.md, "Unreachable peers").
 */

/*
 * peer of cluster cannot be reached now: is it to be reported? 1: yes,
 * and now is recorded for it (under the record lock, atomically); 0: it
 * was reported less than every_ms ago. A record missing or damaged says
 * yes. -1 with errno: the record could not be written (report it too).
 */
int	 pg_unreachable_due(struct pg_state *, const char *, const char *,
	    int64_t);

/*
 * The npeers peers of cluster answered: forget when they were reported,
 * so that their next outage is reported at once (one read of the record,
 * without the lock, when none was). 0, or -1 with errno: the record could
 * not be written (the next report comes up to an hour late).
 */
int	 pg_unreachable_clear(struct pg_state *, const char *,
	    const char *const *, size_t, int64_t);

#endif /* PG_STATE_H */
