/* SPDX-License-Identifier: ISC */
/* tool.c: what the tools share beyond the library (tool.h). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <vis.h>

#include "decide.h"
#include "tool.h"

int	 tool_stderr = 1;
int	 tool_exit_err;

/* The state directory tool_setup opened, for tool_strerror. */
static const struct pg_state	*tool_state;

void
tool_options(int argc, char *argv[], const char *opts, const char *usage)
{
	const char	*a, *o;
	int		 i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		a = argv[i];
		if (a[0] != '-' || a[1] == '\0') {
			if (opts[0] == '+')
				break;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "--version") == 0) {
			if (a[2] == 'h')
				fputs(usage, stdout);
			else
				printf("%s %s\n", getprogname(), PG_VERSION);
			exit(fflush(stdout) == EOF ? EX_IOERR : 0);
		}
		if (a[1] == '-')
			continue;	/* getopt says it is unknown */
		/* An option taking an argument: the rest, or the next. */
		for (a++; *a != '\0'; a++)
			if (*a != ':' && (o = strchr(opts, *a)) != NULL &&
			    o[1] == ':') {
				i += a[1] == '\0';
				break;
			}
	}
}

void
tool_usage(const char *usage)
{
	fputs(usage, stderr);
	exit(tool_status(EX_USAGE));
}

int
tool_status(int status)
{
	return tool_exit_err != 0 && status > 3 ? tool_exit_err : status;
}

/* Messages quote arguments and config values: escape control bytes. */
static void
vlog(int prio, int to_stderr, const char *fmt, va_list ap)
{
	char	 msg[PG_ERR_MAX * 2], safe[sizeof(msg) * 4];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	strnvis(safe, msg, sizeof(safe), VIS_CSTYLE | VIS_OCTAL | VIS_TAB |
	    VIS_NL | VIS_NOSLASH);
	if (prio != -1)
		syslog(prio, "%s", safe);
	if (to_stderr && tool_stderr)
		fprintf(stderr, "%s: %s\n", getprogname(), safe);
}

void
tool_die(int status, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 1, fmt, ap);
	va_end(ap);
	exit(tool_status(status));
}

const char *
tool_strerror(int errnum)
{
	return tool_state != NULL ? pg_state_strerror(tool_state, errnum) :
	    strerror(errnum);
}

void
tool_die_errno(int status, const char *fmt, ...)
{
	char	 msg[PG_ERR_MAX * 2];
	va_list	 ap;
	int	 saved = errno;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tool_die(status, "%s: %s", msg, tool_strerror(saved));
}

void
tool_log(const struct tool *t, int prio, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(prio, t == NULL || (!t->quiet && (t->verbose ||
	    isatty(STDERR_FILENO))), fmt, ap);
	va_end(ap);
}

void
tool_explain(const struct tool *t, const char *fmt, ...)
{
	va_list	 ap;

	if (!t->verbose)
		return;
	va_start(ap, fmt);
	vlog(-1, 1, fmt, ap);
	va_end(ap);
}

const char *
tool_order(char *buf, size_t len, const char *order)
{
	if (order[0] == '\0')
		return "none";
	snprintf(buf, len, "\"%s\"", order);
	return buf;
}

void
tool_decided(const struct tool *t, const char *fmt, ...)
{
	char	 msg[PG_TEXT_MAX + PG_NAME_MAX + 8];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	syslog(LOG_INFO, "%s", msg);
	tool_explain(t, "%s", msg);
}

void
tool_config(struct tool *t, const char *confopt, const char *id)
{
	char	 err[PG_ERR_MAX];

	if (id != NULL && !pg_cluster_id_valid(id))
		tool_die(EX_USAGE, "invalid cluster ID '%.*s' (1 to %d letters,"
		    " digits, '.', '_', '-', not starting with '.' or '-')",
		    PG_NAME_MAX + 1, id, PG_NAME_MAX);
	if (pg_config_load(pg_config_path(confopt), &t->cfg, err,
	    sizeof(err)) == -1)
		tool_die(EX_CONFIG, "%s", err);
	if (id != NULL && (t->cluster = pg_config_find(t->cfg, id, err,
	    sizeof(err))) == NULL)
		tool_die(EX_CONFIG, "%s", err);
}

void
tool_setup(struct tool *t, const char *confopt, const char *id)
{
	char	 err[PG_ERR_MAX];

	tool_config(t, confopt, id);
	/* One not to be trusted is a configuration error, as the file's. */
	if (pg_state_open(&t->state, t->cfg->state, 1, err,
	    sizeof(err)) == -1)
		tool_die(errno == EPERM ? EX_CONFIG : EX_CANTCREAT, "%s", err);
	tool_state = &t->state;
}

int64_t
tool_clock_ms(clockid_t id)
{
	int64_t	 ns;

	if (pg_clock(id, &ns) == -1)
		tool_die_errno(EX_OSERR, "clock");
	return ns / 1000000;
}

void
tool_catch(void (*handler)(int), int block)
{
	struct sigaction	 sa;
	sigset_t		 set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (block)
		sigprocmask(SIG_BLOCK, &set, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
