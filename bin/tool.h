/* SPDX-License-Identifier: ISC */
/* tool.h: what the tools share beyond the library. Unlike it, these exit. */
#ifndef TOOL_H
#define TOOL_H

#include <sysexits.h>
#include <syslog.h>

#include "conf.h"
#include "state.h"

#ifndef __dead
#define __dead	__attribute__((__noreturn__))
#endif

struct tool {
	struct pg_config		*cfg;
	const struct pg_cluster		*cluster;
	struct pg_state			 state;
	int				 quiet;	/* no warnings on stderr */
	int				 verbose;
};

/* 0: never write to stderr (serve under inetd: it may be the socket). */
extern int	 tool_stderr;

/* Not 0: every error status (above 3) becomes it (check -E: 255). */
extern int	 tool_exit_err;

/*
 * Before getopt, with getopt's option string and the usage text (the man
 * page's SYNOPSIS): --help among the options prints the usage on stdout,
 * --version "PROGRAM VERSION"; either exits 0. Options end at "--" (and
 * with a '+' string at the first operand), as getopt sees them.
 */
void	 tool_options(int, char *[], const char *, const char *);

/* The usage text on stderr, and exit 64 (after tool_exit_err). */
__dead void	 tool_usage(const char *);

/* The status to exit with for a status, after tool_exit_err. */
int	 tool_status(int);

/* An error (tool_error), then exit with the status given. */
__dead void	 tool_die(int, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/*
 * strerror, or after tool_setup, for a file of the state directory, what
 * is wrong with it (pg_state_strerror).
 */
const char	*tool_strerror(int);

/* tool_die with ": tool_strerror(errno)" appended. */
__dead void	 tool_die_errno(int, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/*
 * To syslog at a priority; to stderr on a terminal or with -v, never
 * with -q (cron mails what a job prints); with no tool, always.
 */
void	 tool_log(const struct tool *, int, const char *, ...)
	    __attribute__((__format__(__printf__, 3, 4)));
#define tool_warn(t, ...)	tool_log((t), LOG_WARNING, __VA_ARGS__)
#define tool_error(...)		tool_log(NULL, LOG_ERR, __VA_ARGS__)

/* With -v: a line on stderr explaining what happens. */
void	 tool_explain(const struct tool *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* A decision: syslog at LOG_INFO, and stderr only with -v. */
void	 tool_decided(const struct tool *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/*
 * Validate the cluster ID (exit 64), load the config (78) and find the
 * cluster (78); id NULL: only load.
 */
void	 tool_config(struct tool *, const char *, const char *);

/*
 * tool_config, then open the state directory (exit 73; 78 when it is not
 * to be trusted).
 */
void	 tool_setup(struct tool *, const char *, const char *);

/* A prefer order for a message: in double quotes into buf, or "none". */
const char *tool_order(char *, size_t, const char *);

/* A clock (pg_clock) in milliseconds; exit 71 when it cannot be read. */
int64_t	 tool_clock_ms(clockid_t);

/* Catch SIGTERM, SIGINT and SIGHUP; with block, block them first. */
void	 tool_catch(void (*)(int), int);

#endif /* TOOL_H */
