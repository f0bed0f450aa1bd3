/* SPDX-License-Identifier: ISC */
/*
 * status-plugin.c: pollguard-status -p (status.h). Every failure is
 * UNKNOWN (3), with a line on stdout, also after a tool_die (at exit).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "monitor.h"
#include "status.h"

static int	 plugin_said;

static void
plugin_exit(void)
{
	if (!plugin_said)
		fputs("POLLGUARD UNKNOWN - pollguard-status failed: see its "
		    "standard error or syslog\n", stdout);
}

static __dead void
plugin_unknown(const char *fmt, ...)
{
	char	 why[PG_ERR_MAX * 2], line[PG_PLUGIN_LINE_MAX];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pg_plugin_unknown(line, sizeof(line), why);
	plugin_said = 1;
	fputs(line, stdout);
	exit(PG_PLUGIN_UNKNOWN);
}

/* A threshold, -w or -C: at least 1s, at most 3 x the longest wait. */
static int64_t
threshold(int opt, const char *arg, int64_t dflt)
{
	const char	*errstr;
	int64_t		 ms;

	if (arg == NULL)
		return dflt;
	if (pg_duration_parse(arg, 1000, 3 * PG_WAIT_MAX_MS, &ms,
	    &errstr) == -1)
		plugin_unknown("-%c %s: %s (a duration from 1s to 90d)", opt,
		    arg, errstr);
	return ms;
}

/* The config's age by ctime (a copy cannot set it back); 0: unknown. */
static int64_t
conf_age(const struct pg_config *cfg)
{
	struct stat	 sb;
	struct timespec	 now;
	int64_t		 ms;

	if (stat(cfg->path, &sb) == -1 ||
	    clock_gettime(CLOCK_REALTIME, &now) == -1)
		return 0;
	ms = ((int64_t)now.tv_sec - sb.st_ctim.tv_sec) * 1000 +
	    (now.tv_nsec - sb.st_ctim.tv_nsec) / 1000000;
	return ms > 0 ? ms : 0;
}

/*
 * Ask the nodes, and this node's serve too at its [peer] if any (not on
 * etcd): *why says why it did not answer as this node, or stays NULL.
 */
static void
plugin_ask(const struct pg_config *cfg, const struct pg_cluster *c,
    struct pg_state *st, struct pg_round *r, struct pg_fleet *f,
    struct pg_cluster *me, const char **why)
{
	const struct pg_seen	*s;
	size_t			 i;

	*me = *c;
	*why = NULL;
	for (i = 0; i < cfg->npeers; i++)
		if (strcasecmp(cfg->peers[i].name, cfg->node) == 0)
			break;
	if (i == cfg->npeers || c->backend == PG_BACKEND_ETCD) {
		status_ask(cfg, c, st, r, f);
		return;
	}
	if ((me->peers = reallocarray(NULL, c->npeers + 1,
	    sizeof(*me->peers))) == NULL)
		plugin_unknown("memory: %s", strerror(errno));
	if (c->npeers > 0)
		memcpy(me->peers, c->peers, c->npeers * sizeof(*me->peers));
	me->peers[me->npeers++] = i;
	status_ask(cfg, me, st, r, f);
	f->n--;
	s = &r->seen[r->n - 1];
	if (PG_ANSWER_OK(s->answer.kind))
		*why = "another node answers at its url";
	else if (s->answer.kind != PG_ANSWER_SELF)
		*why = s->why;
}

__dead void
status_plugin(const char *conf, int argc, char *argv[], const char *wopt,
    const char *copt, int bad, const char *usage)
{
	static struct pg_config	*cfg;	/* static: reachable until exit */
	static struct pg_round	 r;
	static struct pg_fleet	 f;
	static struct pg_cluster me;
	struct pg_state		 state, *st = &state;
	const struct pg_cluster	*c;
	struct pg_plugin	 p;
	char			 err[PG_ERR_MAX], line[PG_PLUGIN_LINE_MAX];
	enum pg_plugin_state	 ps;

	openlog(getprogname(), LOG_PID, LOG_USER);
	tool_exit_err = PG_PLUGIN_UNKNOWN;
	atexit(plugin_exit);
	if (bad || argc != 1) {
		fputs(usage, stderr);
		plugin_unknown("usage: pollguard-status -p [-C duration] "
		    "[-c file] [-w duration] cluster");
	}
	if (!pg_cluster_id_valid(argv[0]))
		plugin_unknown("invalid cluster ID '%.*s'", PG_NAME_MAX + 1,
		    argv[0]);
	if (pg_config_load(pg_config_path(conf), &cfg, err, sizeof(err)) == -1)
		plugin_unknown("%s", err);
	if ((c = pg_config_find(cfg, argv[0], err, sizeof(err))) == NULL)
		plugin_unknown("%s", err);
	p.warn_ms = threshold('w', wopt, 2 * c->wait_ms);
	p.crit_ms = threshold('C', copt, 3 * c->wait_ms);
	/* One threshold given moves the other's default out of its way. */
	if (p.warn_ms > p.crit_ms && wopt != NULL && copt != NULL)
		plugin_unknown("-w %s is above -C %s", wopt, copt);
	if (p.warn_ms > p.crit_ms && copt == NULL)
		p.crit_ms = p.warn_ms;
	if (p.warn_ms > p.crit_ms)
		p.warn_ms = p.crit_ms;
	p.known_ms = conf_age(cfg);
	if (pg_state_open(st, cfg->state, 0, err, sizeof(err)) == -1) {
		if (errno != ENOENT)
			plugin_unknown("%s", err);
		st = NULL;
	}
	if (pg_peers_init() == -1)
		plugin_unknown("libcurl cannot be initialised");
	plugin_ask(cfg, c, st, &r, &f, &me, &p.serve_why);
	/* On etcd, the key's holder shows its activity only. */
	if (c->backend == PG_BACKEND_ETCD && f.n == 2)
		f.nodes[1].has_status = 0;
	ps = pg_plugin_check(&f, &p, line, sizeof(line));
	plugin_said = 1;
	if (fputs(line, stdout) == EOF || fflush(stdout) == EOF)
		exit(PG_PLUGIN_UNKNOWN);
	exit(ps);
}
