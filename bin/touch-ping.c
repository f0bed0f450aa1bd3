/* SPDX-License-Identifier: ISC */
/* touch-ping.c: pollguard-touch-curl's ping hook (touch.h), lib/ping.c. */
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "monitor.h"
#include "touch.h"

void
touch_ping(struct tool *t, int event)
{
	static char	 rid[PG_RID_LEN + 1];
	struct tool	 loud = *t;
	char		 url[PG_PING_URL_MAX], host[PG_VALUE_MAX];
	char		 why[PG_ERR_MAX], what[16];
	const char	*id = t->cluster->id;

	if (t->cluster->ping[0] == '\0')
		return;
	if (event == PG_PING_START)
		pg_ping_rid(rid);
	if (pg_ping_url(url, sizeof(url), t->cluster->ping, event, rid) == -1)
		snprintf(why, sizeof(why), "the URL is too long");
	else if (pg_ping_send(url, t->cluster->ping_timeout_ms, why,
	    sizeof(why)) == 0)
		return;
	if (event == PG_PING_START)
		strlcpy(what, "start", sizeof(what));
	else
		snprintf(what, sizeof(what), "end (%d)", event);
	/* Monitoring that does not hear of the run: stderr too (cron mails). */
	loud.verbose = 1;
	pg_ping_host(host, sizeof(host), t->cluster->ping);
	tool_log(&loud, LOG_WARNING, "%s: the ping of the run's %s to %s "
	    "failed: %s", id, what, host, why);
}
