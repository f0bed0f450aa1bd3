/* SPDX-License-Identifier: ISC */
/*
 * touch-ping.c: pollguard-touch-curl's hooks (touch.h): the ping
 * (lib/ping.c), the peers asked at a terminal (lib/peers.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "monitor.h"
#include "proto.h"
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

void
touch_peers_warn(struct tool *t, char **argv)
{
	const struct pg_cluster	*c = t->cluster;
	const struct pg_seen	*s;
	struct pg_round		 r;
	char			 ago[PG_DURATION_MAX];
	const char		*cmd = "command";
	size_t			 i;

	for (i = 1; argv[i] != NULL; i++)
		if (strcmp(argv[i], "--") == 0 && argv[i + 1] != NULL) {
			cmd = argv[i + 1];
			break;
		}
	if (!isatty(STDERR_FILENO) || c->npeers == 0 ||
	    c->backend == PG_BACKEND_ETCD || pg_peers_init() == -1 ||
	    pg_peers_ask_some(t->cfg, c, NULL, NULL, &r) == -1)
		return;
	for (i = 0; i < r.n; i++) {
		s = &r.seen[i];
		if (s->answer.kind != PG_ANSWER_ELAPSED ||
		    (s->answer.elapsed_ms >= c->wait_ms &&
		    !(s->has_status && s->status.running)))
			continue;
		tool_warn(t, "%s: peer %s is %s (%s ago): pollguard-touch "
		    "runs the job all the same, as it ignores the peers by "
		    "design; 'pollguard-run %s -- %s' runs it only when this "
		    "node may poll", c->id, s->name, s->has_status &&
		    s->status.running ? "running a job" : "active",
		    pg_duration_text(s->answer.elapsed_ms, ago), c->id, cmd);
	}
	pg_round_free(&r);
}
