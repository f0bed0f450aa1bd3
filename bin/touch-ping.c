/* SPDX-License-Identifier: ISC */
/*
 * touch-ping.c: pollguard-touch-curl's ping hooks (touch.h), over
 * lib/ping.c. The job never waits on a ping longer than ping_timeout,
 * and a ping that fails changes nothing but a warning.
 */
#include <stdio.h>
#include <syslog.h>

#include "monitor.h"
#include "touch.h"

static char	 rid[PG_RID_LEN + 1];

static void
ping(struct tool *t, int event)
{
	struct tool	 loud = *t;
	char		 url[PG_PING_URL_MAX], host[PG_VALUE_MAX];
	char		 why[PG_ERR_MAX], what[16];
	const char	*id = t->cluster->id;

	if (t->cluster->ping[0] == '\0')
		return;
	if (pg_ping_url(url, sizeof(url), t->cluster->ping, event, rid) == -1)
		snprintf(why, sizeof(why), "the URL is too long");
	else if (pg_ping_send(url, t->cluster->ping_timeout_ms, why,
	    sizeof(why)) == 0)
		return;
	if (event == PG_PING_START)
		snprintf(what, sizeof(what), "start");
	else
		snprintf(what, sizeof(what), "end (%d)", event);
	/*
	 * Monitoring that does not hear of the run is worth a line on stderr
	 * (cron mails it), not only in syslog.
	 */
	loud.verbose = 1;
	pg_ping_host(host, sizeof(host), t->cluster->ping);
	tool_log(&loud, LOG_WARNING, "%s: the ping of the run's %s to %s "
	    "failed: %s", id, what, host, why);
}

void
touch_ping_start(struct tool *t)
{
	pg_ping_rid(rid);
	ping(t, PG_PING_START);
}

void
touch_ping_end(struct tool *t, int status)
{
	ping(t, status);
}
