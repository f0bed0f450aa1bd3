/* SPDX-License-Identifier: ISC */
/*
 * touch-etcd.c: pollguard-touch-curl's lease hooks (touch.h): this node's
 * etcd lease kept alive while it records activity and while its job runs
 * (pollguard(7), STRICT MODE ON ETCD), over bin/etcd.c.
 */
#include <signal.h>

#include "etcd.h"
#include "touch.h"

void
touch_lease_start(struct tool *t, char **argv, int release, int hold)
{
	(void)argv;
	if (t->cluster->backend == PG_BACKEND_ETCD && release)
		etcd_release(t);
	else if (t->cluster->backend == PG_BACKEND_ETCD && !hold)
		etcd_hold_start(t);
}

void
touch_lease_keep(struct tool *t)
{
	/* The lease first: it is what other nodes see. */
	if (t->cluster->backend == PG_BACKEND_ETCD)
		etcd_hold_refresh(t, tool_clock_ms(CLOCK_BOOTTIME));
}

/*
 * Keep the lease alive when due; once it is lost while the job runs, say
 * so (etcd_hold_refresh did) and, under on_lease_lost = kill, stop the
 * job's process group as the runtime limit does, SIGKILL counted from
 * the SIGTERM (a keepalive may have taken time since now). 1 when it did.
 */
int
touch_lease_lost(struct tool *t, pid_t pid, int64_t now, int reaped,
    int64_t *killat)
{
	static int	 done;

	if (t->cluster->backend != PG_BACKEND_ETCD || done)
		return 0;
	if (!etcd_hold_lost() && !etcd_hold_refresh(t, now))
		return 0;
	done = 1;
	if (reaped || t->cluster->on_lease_lost == PG_LEASE_LOST_WARN)
		return 0;
	tool_error("%s: the lease is lost: SIGTERM to the job's process "
	    "group (on_lease_lost = kill)", t->cluster->id);
	kill(-pid, SIGTERM);
	if (*killat == 0)
		*killat = tool_clock_ms(CLOCK_BOOTTIME) +
		    t->cluster->kill_after_ms;
	return 1;
}

int64_t
touch_lease_due(void)
{
	return etcd_hold_due();
}

void
touch_lease_end(struct tool *t)
{
	if (t->cluster->backend == PG_BACKEND_ETCD)
		etcd_hold_force();
}
