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

/*
 * Record activity now (the lease first). A failure is reported once until
 * it changes; fatal: exit 73, else the work goes on.
 */
void	 touch_refresh(struct tool *, int);

/*
 * Run cmd under the run lock (exit 75 when held), in a process group of
 * its own, with a runtime limit (ms, 0: none); keep the activity fresh;
 * record the outcome. Exits as the job, 128 + its signal, or 124.
 */
__dead void	 touch_run(struct tool *, char **, int64_t);

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
 * The cluster's ping of a run's start (PG_PING_START) or end (its exit
 * status), within ping_timeout; a failure is only a warning.
 */
void	 touch_ping(struct tool *, int);

#endif /* TOUCH_H */
