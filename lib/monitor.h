/* SPDX-License-Identifier: ISC */
/*
 * monitor.h: monitoring where cron users already look. ping.c sends the
 * pings of a dead man's switch (the healthchecks protocol) from the node
 * that runs a job; plugin.c turns what a cluster's nodes say into a
 * monitoring plugin's verdict (pollguard-status -p). Same contracts as
 * base.h: nothing here exits or prints.
 */
#ifndef PG_MONITOR_H
#define PG_MONITOR_H

#include "fleet.h"

/*
 * ping.c: a run's pings. Only pollguard-touch-curl links it, and so
 * libcurl.
 */

#define PG_RID_LEN	36	/* a UUID: 8-4-4-4-12 hex digits */
#define PG_PING_START	-1	/* the event of pg_ping_url: the start */
#define PG_PING_URL_MAX	(PG_VALUE_MAX + 64)
#define PG_PING_BODY_MAX 1024	/* bytes of an answer read, at most */

/*
 * A run ID: a random (version 4) UUID in lower case, from
 * arc4random_buf(3), into rid (PG_RID_LEN + 1 bytes).
 */
void	 pg_ping_rid(char *);

/*
 * The URL of an event of a run: base (a [cluster] ping, without its
 * trailing '/'s) followed by "/start" for PG_PING_START, or by "/N" for a
 * run that ended with exit status N (0 to 255), and "?rid=" rid. 0, or -1
 * with errno: EINVAL (another event), ENAMETOOLONG.
 */
int	 pg_ping_url(char *, size_t, const char *, int, const char *);

/*
 * The host of a URL, for messages (the rest may hold a check's key): up
 * to the first '/' after "://", into buf; the whole URL when it has no
 * "://".
 */
void	 pg_ping_host(char *, size_t, const char *);

/*
 * Send one ping: GET url, within timeout_ms in all (connecting
 * included), no redirect followed, TLS verified, at most
 * PG_PING_BODY_MAX bytes of the answer read and then dropped. 0 when
 * the answer is 2xx; -1 with why (for people) otherwise. libcurl is set
 * up at the first call (not thread-safe, as curl_global_init(3)).
 */
int	 pg_ping_send(const char *, int64_t, char *, size_t);

/*
 * Set up a libcurl easy handle for url as libcurl-security(3) asks (ping,
 * etcd): connect and total timeouts in ms, at most max bytes of the
 * answer to fn(arg), libcurl's error in err, agent as the User-Agent.
 */
void	 pg_curl_setup(void *, const char *, int64_t, int64_t, int64_t,
	    size_t (*)(char *, size_t, size_t, void *), void *, char *,
	    const char *);

/*
 * plugin.c: pollguard-status -p CLUSTER, a monitoring plugin (the
 * Monitoring Plugins development guidelines): one line "POLLGUARD STATE
 * - text | perfdata" and the state as exit status. Pure: no I/O.
 */

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
	int64_t		 known_ms;	/* the cluster has been configured on
					   this node at least this long; 0:
					   not known */
	const char	*serve_why;	/* this node's serve did not answer,
					   why (escaped); NULL: it did, or
					   was not asked */
};

/*
 * The verdict on one cluster (f: its nodes, this node first), and its
 * line, with a newline, in buf. Thresholds compare "older than": a last
 * success exactly crit_ms ago is not yet CRITICAL.
 *
 * CRITICAL: two nodes or more show a run going, or no node has
 * succeeded for longer than crit_ms. A node before 0.4 (no status) shows
 * only its activity, which counts as its last success. When no node
 * ever succeeded, the cluster's age stands for the time since: the
 * longest that anything vouches for (known_ms, a node's activity, its
 * checks running without a gap, its last run's start).
 * UNKNOWN (unless CRITICAL): this node's own record cannot be read.
 * WARNING: the last success is older than warn_ms, a node shows a hold,
 * a node failed PG_PLUGIN_FAILURES runs in a row or more, a node did not
 * answer, or this node's serve did not.
 *
 * The text names every reason, the worst first, and ends with how many
 * nodes answered; a '|' in it becomes '/', a control character '?'. The
 * perfdata: since_success (seconds; U: never) with the thresholds,
 * failures (the most in a row of any node), reachable and running nodes.
 */
enum pg_plugin_state pg_plugin_check(const struct pg_fleet *,
	    const struct pg_plugin *, char *, size_t);

/*
 * The line of an UNKNOWN that comes before any answer (a usage or
 * configuration error): "POLLGUARD UNKNOWN - why\n" into buf, why made
 * one line of text as above.
 */
void	 pg_plugin_unknown(char *, size_t, const char *);

#endif /* PG_MONITOR_H */
