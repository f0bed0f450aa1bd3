/* SPDX-License-Identifier: ISC */
/*
 * touch.h: pollguard-touch's parts. bin/pollguard-touch.c has the options,
 * the record, the filter and the hold; bin/touch-run.c runs the job. The
 * lease hooks keep an etcd lease beside them, the ping hooks tell a dead
 * man's switch about each run. Two programs are built of these:
 * pollguard-touch-curl with the hooks of bin/etcd.c (libcurl, jansson)
 * and bin/touch-ping.c (over lib/ping.c), and pollguard-touch with
 * those of bin/touch-plain.c, which keeps no lease, sends no ping, and
 * hands a cluster on etcd or with a ping to pollguard-touch-curl.
 */
#ifndef TOUCH_H
#define TOUCH_H

#include <sys/types.h>

#include "tool.h"

/*
 * Record activity now (the lease first: touch_lease_keep). A failure is
 * reported once, until a refresh succeeds again or fails for another
 * reason (a filter refreshes every second); when fatal, the tool ends
 * (exit 73: before work starts, or at the end of a filter); otherwise
 * the work goes on.
 */
void	 touch_refresh(struct tool *, int);

/*
 * Run the job cmd under the cluster's run lock (exit 75 when a run is
 * going), in a process group of its own, so that signals and the runtime
 * limit (limit_ms, 0: none) reach all of it, grandchildren too; keep the
 * activity fresh; record the outcome of the run. Exits with the job's
 * status, 128 + its signal, or 124 when it timed out.
 */
__dead void	 touch_run(struct tool *, char **, int64_t);

/*
 * After the set-up, before the work: for a cluster on etcd, release the
 * key (release: -r), or make sure this node holds it and keep its lease
 * alive once (unless hold: -H, which needs no key). argv: main's, for
 * pollguard-touch to exec pollguard-touch-curl with (for a cluster on
 * etcd, or with a ping).
 */
void	 touch_lease_start(struct tool *, char **, int, int);

/* Before activity is recorded: keep the lease alive when it is due. */
void	 touch_lease_keep(struct tool *);

/*
 * Once in each turn of the job's supervision, at now (CLOCK_BOOTTIME ms):
 * keep the lease alive when due; once it is lost while the job runs (not
 * reaped), say so and, under on_lease_lost = kill, send SIGTERM to the
 * job's process group (pid) and set *killat, the SIGKILL's time, if not
 * set. 1 when it did.
 */
int	 touch_lease_lost(struct tool *, pid_t, int64_t, int, int64_t *);

/* When touch_lease_keep is due next (CLOCK_BOOTTIME ms); 0: never. */
int64_t	 touch_lease_due(void);

/* The job has ended: the next touch_lease_keep keeps the lease alive. */
void	 touch_lease_end(struct tool *);

/*
 * A job's run, for the cluster's ping (pollguard.conf(5)): its start,
 * once the run lock is taken, and its end with the status pollguard-touch
 * exits with. Each ping takes at most the cluster's ping_timeout; one
 * that fails is a warning, and changes nothing else.
 */
void	 touch_ping_start(struct tool *);
void	 touch_ping_end(struct tool *, int);

#endif /* TOUCH_H */
