/* SPDX-License-Identifier: ISC */
/*
 * touch.h: pollguard-touch's parts. pollguard-touch-curl links the lease
 * hooks of bin/etcd.c and the ping hooks of bin/touch-ping.c; plain
 * pollguard-touch those of bin/touch-plain.c, which exec the former.
 */
#ifndef TOUCH_H
#define TOUCH_H

#include <sys/types.h>

#include "tool.h"

/* -t's runtime limit in ms (0: none); exit 64 when it is not one. */
int64_t	 touch_limit(const char *);

/*
 * Record activity now (the lease first). A state directory removed or
 * replaced since (pg_state_moved) is opened again, made when missing, and
 * the record carried over. 0: recorded; 1: recorded in the directory made
 * or opened again; -1: not recorded; -2: the directory cannot be used
 * again, or not recorded in it. A failure is reported once until it
 * changes; fatal: exit 73, else the work goes on.
 */
int	 touch_refresh(struct tool *, int);

/*
 * Watch the state directory's parent: SIGIO (and the descriptor, returned,
 * readable) when a name in it changes, so that the directory's removal or
 * rename is noticed at once, not at the next refresh. -1: no inotify; the
 * refreshes notice. Again after the directory is made again.
 */
int	 touch_watch(const struct tool *);

/* The events read: 1 when one is about the directory, or its parent. */
int	 touch_watched(const struct tool *);

/*
 * Run cmd under the run lock (exit 75 when held; lockfd: held already,
 * -1: take it), in a process group of its own, with a runtime limit (ms,
 * 0: none); keep the activity fresh; record the outcome. The run's start
 * is recorded before the start ping and before cmd runs; claimfd (-1:
 * none), a check's claim lock, is closed then. Exits as the job, 128 + its
 * signal, or 124.
 */
__dead void	 touch_run(struct tool *, char **, int64_t, int, int);

/*
 * After the set-up: on etcd, release the key (-r), or hold it and keep
 * its lease alive (unless -H). argv: main's, to exec pollguard-touch-curl.
 */
void	 touch_lease_start(struct tool *, char **, int, int);

/* Before activity is recorded: keep the lease alive when it is due. */
void	 touch_lease_keep(struct tool *);

/*
 * Each turn of the job's supervision, at now (CLOCK_BOOTTIME ms): keep the
 * lease alive; once lost while the job runs, say so and, under
 * on_lease_lost = kill, SIGTERM the group pid, set *killat and return
 * INT64_MIN. Else when the next keepalive is due (as now); 0: never.
 */
int64_t	 touch_lease_lost(struct tool *, pid_t, int64_t, int, int64_t *);

/* The job has ended: the next touch_lease_keep keeps the lease alive. */
void	 touch_lease_end(void);

/*
 * Before a run at a terminal (stderr): warn of each peer that is active or
 * running a job, which pollguard-touch does not heed (pollguard-run does).
 * Plain pollguard-touch execs pollguard-touch-curl with argv (main's) to
 * ask them.
 */
void	 touch_peers_warn(struct tool *, char **);

/*
 * The cluster's ping of a run's start (PG_PING_START) or end (its exit
 * status), within ping_timeout; a failure is only a warning.
 */
void	 touch_ping(struct tool *, int);

#endif /* TOUCH_H */
