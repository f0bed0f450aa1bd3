/* SPDX-License-Identifier: ISC */
/*
 * What pollguard's tools share beyond the library: messages (stderr and
 * syslog) and the set-up every tool does. Unlike the library, these exit.
 */
#ifndef TOOL_H
#define TOOL_H

#include <sysexits.h>

#include "conf.h"
#include "state.h"

#ifndef __dead
#define __dead	__attribute__((__noreturn__))
#endif

/* Exit status of a local run that is still going (touch --). */
#define EXIT_RUNNING	EX_TEMPFAIL

struct tool {
	struct pg_config		*cfg;
	const struct pg_cluster		*cluster;
	struct pg_state			 state;
	int				 quiet;	/* no warnings on stderr */
	int				 verbose;
};

/* 0: never write to stderr (serve under inetd: it may be the socket). */
extern int	 tool_stderr;

/*
 * Not 0: every error status (above 3, the verdicts) becomes this one;
 * pollguard-check -E sets 255, which ExecCondition= takes as a failure.
 */
extern int	 tool_exit_err;

/* The status to exit with for a status, after tool_exit_err. */
int	 tool_status(int);

/* Open syslog under the program's name. */
void	 tool_init(void);

/* An error: stderr and syslog. */
void	 tool_error(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));

/* tool_error, then exit with the status given. */
__dead void	 tool_die(int, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* tool_die with ": strerror(errno)" appended. */
__dead void	 tool_die_errno(int, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/*
 * A warning: always to syslog; to stderr when it is a terminal, or with
 * -v, and never with -q. Cron mails what a job prints, so a warning that
 * needs no action stays off a non-terminal stderr.
 */
void	 tool_warn(const struct tool *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* tool_warn at another syslog priority. */
void	 tool_log(const struct tool *, int, const char *, ...)
	    __attribute__((__format__(__printf__, 3, 4)));

/* With -v: a line on stderr explaining what happens. */
void	 tool_explain(const struct tool *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
/*
 * A decision: to syslog at LOG_INFO, and to stderr only with -v, so that
 * cron stays silent.
 */
void	 tool_decided(const struct tool *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/*
 * Validate the cluster argument (exit 64), load the config (exit 78), find
 * the cluster in it (exit 78) and open the state directory (exit 73).
 */
void	 tool_setup(struct tool *, const char *, const char *);

/* A prefer order for a message: in double quotes into buf, or "none". */
const char *tool_order(char *, size_t, const char *);

/* A clock (pg_clock) in milliseconds; exit 71 when it cannot be read. */
int64_t	 tool_clock_ms(clockid_t);

/*
 * Catch SIGTERM, SIGINT and SIGHUP with the handler; with block, block
 * them first, so that they arrive only where the caller unblocks them.
 */
void	 tool_catch(void (*)(int), int);

#endif /* TOOL_H */
