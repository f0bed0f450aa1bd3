/*
 * monitor.h: monitoring where cron users already look. ping.c sends the
 * pings of a dead man's switch (the healthchecks protocol) from the node
 * that runs a job. Same contracts as pollguard.h: nothing here exits or
 * prints.
 */
#ifndef PG_MONITOR_H
#define PG_MONITOR_H

#include "pollguard.h"

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

#endif /* PG_MONITOR_H */
