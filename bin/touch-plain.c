/* SPDX-License-Identifier: ISC */
/*
 * touch-plain.c: pollguard-touch's hooks (touch.h): none. A cluster on etcd
 * or with a ping, and a run at a terminal whose peers are to be asked,
 * exec pollguard-touch-curl (libcurl, jansson), from beside this program,
 * else from the libexec directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "touch.h"

#ifndef PG_LIBEXECDIR
#define PG_LIBEXECDIR	"/usr/local/lib/pollguard"	/* make LIBEXECDIR= */
#endif
#define TOUCH_CURL	"pollguard-touch-curl"

/* The hooks of a cluster without a lease or a ping use no argument. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Exec pollguard-touch-curl with argv; returns when it cannot. */
static void
try_curl(char **argv)
{
	char	 self[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL &&
		    (size_t)snprintf(path, sizeof(path), "%.*s%s",
		    (int)(slash + 1 - self), self, TOUCH_CURL) < sizeof(path) &&
		    access(path, X_OK) == 0)
			execv(path, argv);
	}
	execv(PG_LIBEXECDIR "/" TOUCH_CURL, argv);
}

static __dead void
exec_curl(const struct tool *t, char **argv)
{
	try_curl(argv);
	tool_die_errno(EX_UNAVAILABLE, "the cluster %s, but %s",
	    t->cluster->backend == PG_BACKEND_ETCD ? "is on etcd" :
	    "has a ping", PG_LIBEXECDIR "/" TOUCH_CURL);
}

void
touch_lease_start(struct tool *t, char **argv, int release, int hold)
{
	if (t->cluster->backend == PG_BACKEND_ETCD ||
	    t->cluster->ping[0] != '\0')
		exec_curl(t, argv);
}

void
touch_lease_keep(struct tool *t)
{
}

int64_t
touch_lease_lost(struct tool *t, pid_t pid, int64_t now, int reaped,
    int64_t *killat)
{
	return 0;
}

void
touch_lease_end(void)
{
}

void
touch_ping(struct tool *t, int event)
{
}

void
touch_peers_warn(struct tool *t, char **argv)
{
	if (!isatty(STDERR_FILENO) || t->cluster->npeers == 0)
		return;
	try_curl(argv);
	tool_warn(t, "%s: the peers are not asked whether one is active: %s: "
	    "%s", t->cluster->id, PG_LIBEXECDIR "/" TOUCH_CURL,
	    strerror(errno));
}
