/* SPDX-License-Identifier: ISC */
/*
 * monitor.h: a dead man's switch's pings (ping.c) and a monitoring
 * plugin's verdict (plugin.c). As base.h: nothing here exits or prints.
 */
#ifndef PG_MONITOR_H
#define PG_MONITOR_H

#include "fleet.h"

/* ping.c: only pollguard-touch-curl links it, and so libcurl. */

#define PG_RID_LEN	36	/* a UUID: 8-4-4-4-12 hex digits */
#define PG_PING_START	-1	/* the event of pg_ping_url: the start */
#define PG_PING_URL_MAX	(PG_VALUE_MAX + 64)
#define PG_PING_BODY_MAX 1024	/* bytes of an answer read, at most */

/* A random (version 4) UUID in lower case into rid (PG_RID_LEN + 1). */
void	 pg_ping_rid(char *);

/*
 * base without trailing '/'s, "/start" (PG_PING_START) or "/N" (exit
 * status N, 0 to 255), "?rid=" rid. 0, or -1: EINVAL, ENAMETOOLONG.
 */
int	 pg_ping_url(char *, size_t, const char *, int, const char *);

/* A URL's host, for messages (the path may hold a key); no "://": all. */
void	 pg_ping_host(char *, size_t, const char *);

/*
 * GET url within timeout_ms in all, no redirect, TLS verified. 0 on a
 * 2xx; -1 with why otherwise. Not thread-safe (curl_global_init(3)).
 */
int	 pg_ping_send(const char *, int64_t, char *, size_t);

/*
 * Set up a libcurl easy handle as libcurl-security(3) asks: url, connect
 * and total timeouts (ms), at most max bytes to fn(arg), err, agent.
 */
void	 pg_curl_setup(void *, const char *, int64_t, int64_t, int64_t,
	    size_t (*)(char *, size_t, size_t, void *), void *, char *,
	    const char *);

/* plugin.c: pollguard-status -p, a monitoring plugin. No I/O. */

enum pg_plugin_state {
	PG_PLUGIN_OK = 0,
	PG_PLUGIN_WARNING = 1,
	PG_PLUGIN_CRITICAL = 2,
	PG_PLUGIN_UNKNOWN = 3
};

#define PG_PLUGIN_FAILURES	3	/* failed runs in a row: WARNING */
#define PG_PLUGIN_LINE_MAX	1024	/* the line, with its newline */

struct pg_plugin {
	int64_t		 warn_ms;	/* since the last success: WARNING */
	int64_t		 crit_ms;	/* above it: CRITICAL */
	int64_t		 known_ms;	/* configured this long; 0: unknown */
	const char	*serve_why;	/* why this node's serve did not
					   answer; NULL: it did, or unasked */
};

/*
 * The verdict on one cluster (f: its nodes, this node first) as
 * pollguard-status(1) describes -p, and its line, with a newline, in buf.
 */
enum pg_plugin_state pg_plugin_check(const struct pg_fleet *,
	    const struct pg_plugin *, char *, size_t);

/* "POLLGUARD UNKNOWN - why\n" into buf, why's '|' as '/', controls '?'. */
void	 pg_plugin_unknown(char *, size_t, const char *);

#endif /* PG_MONITOR_H */
