/* SPDX-License-Identifier: ISC */
/*
 * pollguard-serve: the transport of peers' questions (lib/conn.c answers
 * them, lib/serve.c decides what): options, sockets, the pidfile, signals
 * and one event loop, standalone or on stdin and stdout (inetd). It opens
 * the state directory read-only.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"
#include "tool.h"

#define ACCEPT_BURST	64		/* accepts per wake-up */

struct server {
	struct tool	 t;		/* the config in force, its state */
	const char	*confpath;
	int		 listen_arg;	/* -l: the listen key is not used */
	size_t		 maxconn;	/* at start; 1 under inetd */
	struct pollfd	*pfd;		/* maxconn + 1 */
	struct pg_loglim lim;		/* standalone: the log lines' limit */
	int		 inetd;		/* the limit is in a file instead */
	int		 limited;	/* inetd: the file was seen */
	int64_t		 emfile_at;	/* when accept's EMFILE was logged */
};

static volatile sig_atomic_t	 got_term, got_hup;

#define OPTS	"c:il:p:v"
#define USAGE	"usage: pollguard-serve [-v] [-c file] [-i]\n" \
	"       pollguard-serve [-v] [-c file] [-p pidfile] -l [addr]:port\n"

/* Load the config, and use it and its state directory (if there yet). */
static int
server_load(struct server *s, char *err, size_t elen)
{
	struct pg_config	*cfg;
	struct pg_state		 st;

	if (pg_config_load(s->confpath, &cfg, err, elen) == -1)
		return -1;
	st.dirfd = -1;
	/* Trusted or not by the run_as user, at each request (statedir.c). */
	if (pg_state_open(&st, cfg->state, 0, err, elen) == -1 &&
	    errno != ENOENT && !(errno == EPERM && geteuid() == 0 &&
	    cfg->serve.run_as[0] != '\0')) {
		pg_config_free(cfg);
		return -1;
	}
	pg_state_close(&s->t.state);
	s->t.state = st;
	pg_config_free(s->t.cfg);
	s->t.cfg = cfg;
	return 0;
}

/* Whether n lines of status from c (NULL: none) are logged (loglimit.c). */
static int
log_admit(struct server *s, const struct pg_client *c, int status, int n)
{
	static char	 sum[PG_LOGLIM_CLIENTS + 1][PG_LOGLIM_SUMMARY_MAX];
	int64_t		 now = tool_clock_ms(PG_CONN_CLOCK);
	size_t		 i, nsum;
	int		 ok;

	s->limited = 1;
	if (s->inetd)
		ok = pg_loglim_shared(now, c, status, n, sum, &nsum);
	else
		ok = pg_loglim_step(&s->lim, now, c, status, n, sum, &nsum);
	for (i = 0; i < nsum; i++)
		tool_log(&s->t, LOG_NOTICE, "%s", sum[i]);
	return ok;
}

/* An answer's log lines: damage and refusals, bounded; the rest with -v. */
static void
log_reply(struct server *s, const struct pg_reply *r)
{
	int	 note = r->level == LOG_NOTICE, n = note + (r->err[0] != '\0');
	int	 ok;

	ok = n == 0 || log_admit(s, &r->client, note ? r->status :
	    PG_LOGLIM_ERRORS, n);
	if (ok && r->err[0] != '\0')
		tool_log(&s->t, LOG_ERR, "%s", r->err);
	if ((ok && note) || (r->level == LOG_INFO && s->t.verbose))
		tool_log(&s->t, r->level, "%s", r->log);
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_term = 1;
}

/* SIGHUP: a new config, or the old one and a log line saying why. */
static void
reload(struct server *s)
{
	struct pg_serve	 old;
	char		 err[PG_ERR_MAX];

	old = s->t.cfg->serve;
	if (server_load(s, err, sizeof(err)) == -1) {
		tool_error("reload failed, keeping the old config: %s", err);
		return;
	}
	if ((!s->listen_arg && strcmp(old.listen, s->t.cfg->serve.listen) !=
	    0) || old.backlog != s->t.cfg->serve.backlog ||
	    old.max_conn != s->t.cfg->serve.max_conn)
		tool_log(&s->t, LOG_WARNING, "listen, backlog or "
		    "max_connections changed in %s; it takes effect at the "
		    "next start", s->confpath);
	tool_log(&s->t, LOG_INFO, "reloaded %s", s->confpath);
}

/* Accept what is waiting; false when out of descriptors for a while. */
static int
accept_some(struct server *s, int lfd, struct pg_conn **conns, size_t *nconn)
{
	const struct pg_reply	*log;
	struct pg_reply		 r;
	int			 i;

	for (i = 0; i < ACCEPT_BURST; i++) {
		if (pg_conn_accept(lfd, conns, nconn, s->maxconn, s->t.cfg,
		    &s->t.state, &r, &log) == 0) {
			if (log != NULL)
				log_reply(s, log);
		} else if (errno == EMFILE || errno == ENFILE) {
			/* Back every 100 ms: logged once a minute. */
			if (tool_clock_ms(PG_CONN_CLOCK) >= s->emfile_at) {
				tool_log(&s->t, LOG_WARNING, "accept: %s "
				    "(logged once a minute)", strerror(errno));
				s->emfile_at = tool_clock_ms(PG_CONN_CLOCK) +
				    PG_LOGLIM_MINUTE;
			}
			return 0;	/* let others finish */
		} else
			break;
	}
	return 1;
}

/* Until no connection is left and no lfd (-1: inetd; SIGTERM closes). */
static void
serve_loop(struct server *s, int lfd, struct pg_conn **conns, size_t nconn)
{
	struct pollfd	*pfd = s->pfd;
	struct timespec	 ts;
	struct pg_conn	*c;
	sigset_t	 empty;
	int64_t		 now, next, paused = 0;
	size_t		 i, j, k;
	int		 w;

	sigemptyset(&empty);
	for (;;) {
		if (got_hup) {
			got_hup = 0;
			reload(s);
		}
		if (got_term && lfd != -1) {
			close(lfd);
			lfd = -1;
		}
		/* Expire and write; close what is done; the next deadline. */
		now = tool_clock_ms(PG_CONN_CLOCK);
		if (pg_loglim_due(&s->lim) <= now)	/* standalone only */
			log_admit(s, NULL, 0, 0);
		next = pg_loglim_due(&s->lim) < now + 60000 ?
		    pg_loglim_due(&s->lim) : now + 60000;
		for (i = j = 0; i < nconn; i++) {
			c = conns[i];
			if (pg_conn_expire(c, now, s->t.cfg, &s->t.state))
				log_reply(s, &c->reply);
			if (c->state == PG_CONN_WRITE)
				pg_conn_write(c);
			if (c->state == PG_CONN_DONE) {
				pg_conn_free(c);
				continue;
			}
			if (c->deadline < next)
				next = c->deadline;
			conns[j++] = c;
		}
		if ((nconn = j) == 0 && lfd == -1)
			break;
		k = 0;
		if (lfd != -1 && now >= paused) {
			pfd[k].fd = lfd;
			pfd[k++].events = POLLIN;
		} else if (lfd != -1 && paused < next)
			next = paused;
		for (i = 0; i < nconn; i++) {
			w = conns[i]->state == PG_CONN_WRITE;
			pfd[k + i].fd = w ? conns[i]->wfd : conns[i]->rfd;
			pfd[k + i].events = w ? POLLOUT : POLLIN;
		}
		now = tool_clock_ms(PG_CONN_CLOCK);
		ts.tv_sec = next > now ? (next - now) / 1000 : 0;
		ts.tv_nsec = next > now ? (next - now) % 1000 * 1000000 : 0;
		if (ppoll(pfd, k + nconn, &ts, &empty) == -1) {
			if (errno == EINTR)
				continue;
			tool_die_errno(EX_OSERR, "poll");
		}
		for (i = 0; i < nconn; i++)
			if (pfd[k + i].revents != 0 && pg_conn_ready(conns[i],
			    s->t.cfg, &s->t.state))
				log_reply(s, &conns[i]->reply);
		if (k > 0 && pfd[0].revents != 0 &&
		    !accept_some(s, lfd, conns, &nconn))
			paused = tool_clock_ms(PG_CONN_CLOCK) + 100;
	}
}

/* One connection on stdin and stdout; err or a run_as failure: 500. */
static int
serve_inetd(struct server *s, const char *err)
{
	static struct pollfd	 pfd[2];
	struct pg_conn	*c;
	struct pg_reply	 r;
	char		 msg[PG_ERR_MAX];
	int		 code = EX_CONFIG;

	s->maxconn = 1;
	s->pfd = pfd;
	s->inetd = 1;

	if (err == NULL && (code = pg_drop_privileges(s->t.cfg->serve.run_as,
	    msg, sizeof(msg))) != 0)
		err = msg;
	c = pg_conn_new(STDIN_FILENO, STDOUT_FILENO, NULL, err == NULL ?
	    s->t.cfg : NULL);
	/* Its line is a 500's, within the limit too. */
	if (err != NULL && (c == NULL || log_admit(s, &c->client, 500, 1)))
		tool_error("%s", err);
	if (c == NULL)
		return err != NULL ? code : EX_OSERR;
	if (err != NULL) {
		pg_reply_error(&r, 500);
		pg_conn_reply(c, &r, NULL);
	} else if (c->state == PG_CONN_WRITE)	/* refused: 403 */
		log_reply(s, &c->reply);
	/* A backstop: whatever happens, this process does not linger. */
	alarm((c->deadline - tool_clock_ms(PG_CONN_CLOCK) + PG_CONN_DRAIN_MS) /
	    1000 + 5);
	serve_loop(s, -1, &c, 1);
	/* The summaries of a minute over: whichever connection comes next. */
	if (!s->limited)
		log_admit(s, NULL, 0, 0);
	return code;
}

static const char	*exit_pidpath;
static int		 exit_pidfd = -1;

static void
remove_pidfile(void)
{
	if (exit_pidfd != -1)
		pg_pidfile_remove(exit_pidfd, exit_pidpath);
	exit_pidfd = -1;
}

static int
serve_standalone(struct server *s, const char *spec, const char *pidpath)
{
	struct pg_conn		**conns;
	struct sockaddr_storage	 ss;
	const char		*why;
	char			 name[PG_ADDRSTR_MAX + 16], msg[PG_ERR_MAX];
	uint64_t		 nofile;
	pid_t			 other;
	int			 lfd, r;

	/* A bad address is a usage error: it creates no pidfile. */
	if (pg_listen_parse(spec, &ss, &why) == -1)
		tool_die(EX_USAGE, "listen: '%s': %s", spec, why);
	/* Never through a link, never another's file (lib/pidfile.c). */
	if (pidpath != NULL && (exit_pidfd = pg_pidfile_open(pidpath, &other,
	    msg, sizeof(msg))) == -1)
		tool_die(EX_CANTCREAT, "%s", msg);
	exit_pidpath = pidpath;
	/* From now on every exit removes it, also when binding fails. */
	atexit(remove_pidfile);
	s->maxconn = s->t.cfg->serve.max_conn;
	if ((conns = calloc(s->maxconn, sizeof(*conns))) == NULL ||
	    (s->pfd = calloc(s->maxconn + 1, sizeof(*s->pfd))) == NULL)
		tool_die_errno(EX_OSERR, "%zu connections", s->maxconn);
	/* Fewer descriptors: clients wait in the listen queue, not 503. */
	if ((nofile = pg_listen_nofile(s->maxconn + 16)) < s->maxconn + 16)
		tool_log(&s->t, LOG_WARNING, "open file limit %llu: fewer than "
		    "%zu connections fit; raise it (ulimit -n)",
		    (unsigned long long)nofile, s->maxconn);
	if ((lfd = pg_listen_open(spec, s->t.cfg->serve.backlog, name,
	    sizeof(name), msg, sizeof(msg))) == -1)
		tool_die(EX_OSERR, "%s", msg);
	if ((r = pg_drop_privileges(s->t.cfg->serve.run_as, msg,
	    sizeof(msg))) != 0)
		tool_die(r, "%s", msg);
	/* It needs no privilege once it listens: say so, once. */
	if (geteuid() == 0 && s->t.cfg->serve.run_as[0] == '\0')
		tool_log(&s->t, LOG_WARNING, "running as root: set run_as = "
		    "pollguard (a user of its own) in [serve] of %s",
		    s->t.cfg->path);
	if (exit_pidfd != -1 && pg_pidfile_write(exit_pidfd) == -1)
		tool_die_errno(EX_CANTCREAT, "%s", pidpath);

	/* Signals arrive only in ppoll, between two rounds of work. */
	tool_catch(on_signal, 1);

	tool_log(&s->t, LOG_INFO, "listening on %s", name);
	serve_loop(s, lfd, conns, 0);
	tool_log(&s->t, LOG_INFO, "exiting");
	free(s->pfd);
	free(conns);
	return 0;
}

int
main(int argc, char *argv[])
{
	static struct server	 s;	/* static: reachable until exit */
	const char		*listen = NULL, *pidpath = NULL, *conf = NULL;
	char			 err[PG_ERR_MAX];
	int			 ch, inetd = 0, loaded;

	s.t.state.dirfd = -1;
	argv[0] = (char *)getprogname();
	tool_options(argc, argv, OPTS, USAGE);
	while ((ch = getopt(argc, argv, OPTS)) != -1) {
		switch (ch) {
		case 'c':
			conf = optarg;
			break;
		case 'i':
			inetd = 1;
			break;
		case 'l':
			listen = optarg;
			s.listen_arg = 1;
			break;
		case 'p':
			pidpath = optarg;
			break;
		case 'v':
			s.t.verbose = 1;
			break;
		default:
			tool_usage(USAGE);
		}
	}
	if (argc != optind || (inetd && (listen != NULL || pidpath != NULL)))
		tool_usage(USAGE);
	s.confpath = pg_config_path(conf);
	signal(SIGPIPE, SIG_IGN);
	openlog("pollguard-serve", LOG_PID, LOG_DAEMON);

	/* Errors wait for the mode: under inetd, stderr may be the socket. */
	loaded = server_load(&s, err, sizeof(err)) == 0;
	if (!inetd && listen == NULL && loaded &&
	    s.t.cfg->serve.listen[0] != '\0')
		listen = s.t.cfg->serve.listen;
	/*
	 * A broken config may hide a listen key: with -l, -p, or no client
	 * on stdin (a person, a service manager), say so on stderr.
	 */
	if (!loaded && !inetd && (listen != NULL || pidpath != NULL ||
	    !pg_conn_is_socket(STDIN_FILENO)))
		tool_die(EX_CONFIG, "%s", err);
	if (inetd || listen == NULL) {
		if (pidpath != NULL)
			tool_usage(USAGE);
		if (!inetd && isatty(STDIN_FILENO))
			tool_die(EX_USAGE, "stdin is a terminal: inetd mode "
			    "(no -l, no listen in %s); to listen, give -l "
			    "[addr]:port or set listen in [serve]", s.confpath);
		tool_stderr = 0;
		return serve_inetd(&s, loaded ? NULL : err);
	}
	return serve_standalone(&s, listen, pidpath);
}
