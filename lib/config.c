/*
 * config.c: pg_config_load reads pollguard.conf(5) and checks every value
 * in full, so that the tools never act on a half-understood file; and the
 * address ranges of [serve] allow.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <ini.h>

#include "pollguard.h"

/*
 * Debian's inih calls the handler without a line number, never for an
 * empty section, splits lines longer than 199 characters silently and
 * reads an indented line after a key as a continuation of its value. We
 * therefore feed it through our own line reader, which counts lines,
 * rejects what inih would misread, and sees every section header.
 */

enum section {
	SEC_NONE,
	SEC_GLOBAL,
	SEC_SERVE,
	SEC_PEER,
	SEC_CLUSTER,
	SEC_ETCD
};

struct parse {
	FILE			*fp;
	struct pg_config	*cfg;
	int			 line;
	enum section		 sec;
	unsigned int		 seen;		/* keys of this section so far */
	int			 seen_global;
	int			 connect_line;	/* connect_timeout was set here */
	int			 seen_serve;
	unsigned int		 seen_strict;	/* etcd keys of a [cluster] */
	int			 has_password;
	char			**peerlists;	/* per cluster, NULL: default */
	int			*peerlines;
	int			*preferlines;	/* per cluster, 0: no prefer */
	char			*err;
	size_t			 errlen;
	int			 failed;
	int			 errline;
};

static int
fail(struct parse *p, int line, const char *fmt, ...)
{
	char	 msg[PG_ERR_MAX];
	va_list	 ap;

	if (p->failed)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(p->err, p->errlen, "%s:%d: %s", p->cfg->path, line,
		    msg);
	else
		snprintf(p->err, p->errlen, "%s: %s", p->cfg->path, msg);
	p->failed = 1;
	p->errline = line;
	return 0;
}

static int
copy(struct parse *p, char *dst, size_t len, const char *src,
    const char *key)
{
	if (strlcpy(dst, src, len) >= len)
		return fail(p, p->line, "%s: too long (at most %zu "
		    "characters)", key, len - 1);
	return 1;
}

static int
duration(struct parse *p, const char *key, const char *val, int64_t min,
    int64_t max, int64_t *ms)
{
	const char	*errstr;
	char		 lo[32], hi[32];

	if (pg_duration_parse(val, min, max, ms, &errstr) == 0)
		return 1;
	if (pg_duration_format(min, lo, sizeof(lo)) == -1 ||
	    pg_duration_format(max, hi, sizeof(hi)) == -1)
		lo[0] = hi[0] = '\0';
	if (strcmp(errstr, "invalid") == 0)
		return fail(p, p->line, "%s: invalid duration '%s' (a whole "
		    "number with a unit ms, s, m, h or d)", key, val);
	if (strcmp(errstr, "too small") == 0)
		return fail(p, p->line, "%s: %s is too small (minimum %s)",
		    key, val, lo);
	return fail(p, p->line, "%s: %s is too large (maximum %s)", key, val,
	    hi);
}

/*
 * The bit of key in keys[], failing on unknown and repeated keys and on
 * control characters in the value: none is ever meant, and a tab only
 * separates the items of a list.
 */
static int
key_bit(struct parse *p, const char *section, const char *const *keys,
    const char *key, const char *val, unsigned int *bit)
{
	unsigned int	 i;
	int		 list;

	for (i = 0; keys[i] != NULL; i++)
		if (strcmp(keys[i], key) == 0)
			break;
	if (keys[i] == NULL)
		return fail(p, p->line, "unknown key '%s' in [%s]", key,
		    section);
	/* allow may be given on several lines: the lists add up. */
	if ((p->seen & (1U << i)) && strcmp(key, "allow") != 0)
		return fail(p, p->line, "'%s' set twice in [%s]", key,
		    section);
	list = strcmp(key, "allow") == 0 || strcmp(key, "peers") == 0 ||
	    strcmp(key, "prefer") == 0 || strcmp(key, "endpoints") == 0;
	for (; *val != '\0'; val++)
		if (((unsigned char)*val < 0x20 && !(list && *val == '\t')) ||
		    *val == 0x7f)
			return fail(p, p->line, "%s: control character 0x%02x "
			    "in the value", key, (unsigned char)*val);
	p->seen |= 1U << i;
	*bit = i;
	return 1;
}

static const char *const global_keys[] = {
	"node", "state", "timeout", "connect_timeout", "settle", NULL
};

static int
global_key(struct parse *p, const char *key, const char *val)
{
	struct pg_config	*cfg = p->cfg;
	unsigned int		 k;

	if (!key_bit(p, "pollguard", global_keys, key, val, &k))
		return 0;
	switch (k) {
	case 0:
		if (!pg_peer_name_valid(val))
			return fail(p, p->line, "node: invalid name '%s' "
			    "(letters, digits, '.', '_', '-'; at most %d)",
			    val, PG_NAME_MAX);
		return copy(p, cfg->node, sizeof(cfg->node), val, key);
	case 1:
		if (val[0] != '/')
			return fail(p, p->line, "state: '%s' is not an "
			    "absolute path", val);
		return copy(p, cfg->state, sizeof(cfg->state), val, key);
	case 2:
		return duration(p, key, val, 100, 60 * 1000,
		    &cfg->timeout_ms);
	case 3:
		p->connect_line = p->line;
		return duration(p, key, val, 10, 60 * 1000,
		    &cfg->connect_timeout_ms);
	default:
		if (!duration(p, key, val, 0, 10 * 1000, &cfg->settle_ms))
			return 0;
		/* Shorter, and the window would be smaller than a disk write. */
		if (cfg->settle_ms > 0 && cfg->settle_ms < 100)
			return fail(p, p->line, "settle: %s is too small (0 "
			    "turns it off; else at least 100ms)", val);
		return 1;
	}
}

/* c is a byte of set (never the terminating NUL). */
static int
in_set(int c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

#define ALNUM	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
		"0123456789"
#define HEX	"0123456789ABCDEFabcdef"

/*
 * An RFC 1123 host name: labels of 1 to 63 letters, digits and '-', not
 * starting or ending with '-', joined by '.', at most 253 characters in
 * all. The last label is not all digits, so that a name never looks like
 * an address (RFC 1123 2.1).
 */
static int
host_name_valid(const char *s, size_t n)
{
	size_t	 i, label = 0, digits = 0;

	if (n == 0 || n > 253)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = digits = 0;
			continue;
		}
		if (!in_set(s[i], ALNUM "-") || (s[i] == '-' && label == 0) ||
		    ++label > 63)
			return 0;
		if (in_set(s[i], "0123456789"))
			digits++;
	}
	return label > 0 && s[n - 1] != '-' && digits < label;
}

/* The host of a URL, n bytes at s; 0, or -1 and why it is wrong. */
static int
url_host(const char *s, size_t n, char *why, size_t len)
{
	char		 host[256];
	unsigned char	 buf[sizeof(struct in6_addr)];
	struct in_addr	 in;

	if (n == 0) {
		snprintf(why, len, "no host");
		return -1;
	}
	if (n >= sizeof(host)) {
		snprintf(why, len, "host longer than 253 characters");
		return -1;
	}
	memcpy(host, s, n);
	host[n] = '\0';
	if (host[0] == '[') {
		host[n - 1] = '\0';
		if (n < 3 || s[n - 1] != ']' ||
		    inet_pton(AF_INET6, host + 1, buf) != 1) {
			snprintf(why, len, "'%.*s' is not an IPv6 address in "
			    "brackets", (int)n, s);
			return -1;
		}
		return 0;
	}
	if (inet_pton(AF_INET, host, buf) == 1)
		return 0;
	/* The resolver would read "127.1" or "0x7f.0.0.1" as an address. */
	if (inet_aton(host, &in) != 0 ||
	    strspn(host, "0123456789.") == n) {
		snprintf(why, len, "'%s' is not an IPv4 address of four "
		    "decimal numbers 0 to 255 without leading zeros", host);
		return -1;
	}
	if (!host_name_valid(host, n)) {
		snprintf(why, len, "'%s' is not a host name (labels of 1 to 63 "
		    "letters, digits and '-' joined by '.'), an IPv4 address "
		    "or an [IPv6] address", host);
		return -1;
	}
	return 0;
}

/*
 * A peer's base URL: http:// or https://, a host, an optional port from
 * 1 to 65535 and an optional path of RFC 3986 characters and %XX escapes.
 * No user information, query or fragment: credentials have their own keys
 * and /v1/elapsed/CLUSTER is appended. Control characters were refused
 * before. 0, or -1 and why it is wrong.
 */
static int
url_check(const char *url, char *why, size_t len)
{
	const char	*host, *end, *port, *path, *errstr;
	char		 num[6];
	size_t		 n;

	if (strncasecmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		host = url + 8;
	else {
		snprintf(why, len, "does not start with http:// or https://");
		return -1;
	}
	if (strchr(url, ' ') != NULL) {
		snprintf(why, len, "white space");
		return -1;
	}
	if (strpbrk(url, "?#") != NULL) {
		snprintf(why, len, "a query or fragment ('?' or '#'); "
		    "/v1/elapsed/CLUSTER is appended to the path");
		return -1;
	}
	path = host + strcspn(host, "/");
	if (memchr(host, '@', path - host) != NULL) {
		snprintf(why, len, "user information (user@); credentials "
		    "go in user and password");
		return -1;
	}
	/* The port's ':' is the last one outside an IPv6 address. */
	end = host[0] == '[' ? memchr(host, ']', path - host) : host;
	if (end == NULL) {
		snprintf(why, len, "'[' without ']'");
		return -1;
	}
	end += strcspn(end, ":/");
	if (url_host(host, end - host, why, len) == -1)
		return -1;
	if (*end == ':') {
		port = end + 1;
		n = path - port;
		if (n == 0) {
			snprintf(why, len, "':' without a port");
			return -1;
		}
		if (n > 5 || strspn(port, "0123456789") != n) {
			snprintf(why, len, "port '%.*s' is not a number from 1 "
			    "to 65535", (int)n, port);
			return -1;
		}
		memcpy(num, port, n);
		num[n] = '\0';
		strtonum(num, 1, 65535, &errstr);
		if (errstr != NULL) {
			snprintf(why, len, "port %s is not from 1 to 65535",
			    num);
			return -1;
		}
	}
	for (; *path != '\0'; path++) {
		if (in_set(*path, ALNUM "-._~!$&'()*+,;=:@/"))
			continue;
		if (*path == '%' && in_set(path[1], HEX) &&
		    in_set(path[2], HEX)) {
			path += 2;
			continue;
		}
		if (*path == '%')
			snprintf(why, len, "'%%' in the path is not followed "
			    "by two hex digits");
		else if ((unsigned char)*path < 0x80)
			snprintf(why, len, "'%c' in the path must be written "
			    "%%%02X", *path, (unsigned char)*path);
		else
			snprintf(why, len, "byte 0x%02X in the path must be "
			    "written %%%02X", (unsigned char)*path,
			    (unsigned char)*path);
		return -1;
	}
	return 0;
}

/* An HTTP Basic user name: a ':' would end it early. */
static int
basic_user(struct parse *p, char *dst, size_t len, const char *val)
{
	if (strchr(val, ':') != NULL)
		return fail(p, p->line, "user: must not contain ':'");
	return copy(p, dst, len, val, "user");
}

static const char *const peer_keys[] = {
	"url", "user", "password", "cafile", NULL
};

static int
peer_key(struct parse *p, const char *key, const char *val)
{
	struct pg_peer	*peer = &p->cfg->peers[p->cfg->npeers - 1];
	char		 section[PG_NAME_MAX + 8], why[PG_ERR_MAX];
	unsigned int	 k;

	snprintf(section, sizeof(section), "peer %s", peer->name);
	if (!key_bit(p, section, peer_keys, key, val, &k))
		return 0;
	switch (k) {
	case 0:
		if (url_check(val, why, sizeof(why)) == -1)
			return fail(p, p->line, "url: '%s': %s", val, why);
		return copy(p, peer->url, sizeof(peer->url), val, key);
	case 1:
		return basic_user(p, peer->user, sizeof(peer->user), val);
	case 2:
		p->has_password = 1;
		return copy(p, peer->password, sizeof(peer->password), val,
		    key);
	default:
		if (val[0] != '/')
			return fail(p, p->line, "cafile: '%s' is not an "
			    "absolute path", val);
		return copy(p, peer->cafile, sizeof(peer->cafile), val, key);
	}
}

#define SEPARATORS	", \t"

/* The etcd backend's keys in [cluster], below with [etcd]. */
static int	 strict_key_is(const char *);
static int	 strict_key(struct parse *, struct pg_cluster *, const char *,
		    const char *);

static const char *const cluster_keys[] = {
	"name", "wait", "peers", "unreachable", "max_runtime", "kill_after",
	"on_failure", "cooldown", "prefer", "failback", "failback_after",
	"ping", "ping_timeout", NULL
};

/*
 * prefer, failback, failback_after (pollguard(7), PREFERRED NODE). The
 * names of prefer are checked once the whole file is read (prefer_list).
 */
static int
prefer_key(struct parse *p, struct pg_cluster *c, unsigned int k,
    const char *val)
{
	switch (k) {
	case 0:
		if (val[strspn(val, SEPARATORS)] == '\0')
			return fail(p, p->line, "prefer: no names");
		p->preferlines[p->cfg->nclusters - 1] = p->line;
		return copy(p, c->prefer, sizeof(c->prefer), val, "prefer");
	case 1:
		if (strcmp(val, "yes") == 0)
			c->failback = 1;
		else if (strcmp(val, "no") == 0)
			c->failback = 0;
		else
			return fail(p, p->line, "failback: '%s' is neither "
			    "'yes' nor 'no'", val);
		return 1;
	default:
		return duration(p, "failback_after", val, 0, PG_WAIT_MAX_MS,
		    &c->failback_after_ms);
	}
}

static int
cluster_key(struct parse *p, const char *key, const char *val)
{
	size_t			 i = p->cfg->nclusters - 1;
	struct pg_cluster	*c = &p->cfg->clusters[i];
	char			 section[PG_NAME_MAX + 16], why[PG_ERR_MAX];
	unsigned int		 k;

	snprintf(section, sizeof(section), "cluster %s", c->id);
	if (strict_key_is(key))
		return strict_key(p, c, key, val);
	if (!key_bit(p, section, cluster_keys, key, val, &k))
		return 0;
	switch (k) {
	case 0:
		return copy(p, c->name, sizeof(c->name), val, key);
	case 1:
		return duration(p, key, val, PG_WAIT_MIN_MS, PG_WAIT_MAX_MS,
		    &c->wait_ms);
	case 2:
		if (val[0] != '\0' && val[strspn(val, SEPARATORS)] == '\0')
			return fail(p, p->line, "peers: separators but no "
			    "names (an empty value means no peers)");
		if ((p->peerlists[i] = strdup(val)) == NULL)
			return fail(p, p->line, "%s", strerror(errno));
		p->peerlines[i] = p->line;
		return 1;
	case 3:
		if (strcmp(val, "run") == 0)
			c->unreachable = PG_UNREACHABLE_RUN;
		else if (strcmp(val, "skip") == 0)
			c->unreachable = PG_UNREACHABLE_SKIP;
		else
			return fail(p, p->line, "unreachable: '%s' is "
			    "neither 'run' nor 'skip'", val);
		return 1;
	case 4:
		return duration(p, key, val, PG_RUNTIME_MIN_MS, PG_WAIT_MAX_MS,
		    &c->max_runtime_ms);
	case 5:
		return duration(p, key, val, PG_RUNTIME_MIN_MS,
		    PG_KILL_AFTER_MAX_MS, &c->kill_after_ms);
	case 6:
		if (strcmp(val, "handover") == 0)
			c->on_failure = PG_ON_FAILURE_HANDOVER;
		else if (strcmp(val, "stay") == 0)
			c->on_failure = PG_ON_FAILURE_STAY;
		else
			return fail(p, p->line, "on_failure: '%s' is "
			    "neither 'handover' nor 'stay'", val);
		return 1;
	case 7:
		return duration(p, key, val, 0, PG_WAIT_MAX_MS,
		    &c->cooldown_ms);
	case 11:	/* checked as a peer's url is */
		if (url_check(val, why, sizeof(why)) == -1)
			return fail(p, p->line, "ping: '%s': %s", val, why);
		return copy(p, c->ping, sizeof(c->ping), val, key);
	case 12:
		return duration(p, key, val, 100, PG_PING_TIMEOUT_MAX_MS,
		    &c->ping_timeout_ms);
	default:
		return prefer_key(p, c, k - 8, val);
	}
}

static int
user_name_valid(const char *s)
{
	size_t	 n;

	n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	return n > 0 && n <= 32 && s[n] == '\0' &&
	    (islower((unsigned char)s[0]) || s[0] == '_');
}

static const char *const serve_keys[] = {
	"listen", "user", "password", "allow", "run_as", "backlog",
	"max_connections", NULL
};

/* A whole number from min to max, digits only. */
static int
count(struct parse *p, const char *key, const char *val, long long min,
    long long max, int *n)
{
	const char	*errstr;
	long long	 v;

	if (val[strspn(val, "0123456789")] != '\0')
		return fail(p, p->line, "%s: '%s' is not a whole number",
		    key, val);
	/* More digits than a long long holds is too large all the same. */
	v = strlen(val) > 18 ? LLONG_MAX : strtonum(val, 0, LLONG_MAX,
	    &errstr);
	if (v < min)
		return fail(p, p->line, "%s: %s is too small (minimum %lld)",
		    key, val, min);
	if (v > max)
		return fail(p, p->line, "%s: %s is too large (maximum %lld)",
		    key, val, max);
	*n = (int)v;
	return 1;
}

static int
serve_key(struct parse *p, const char *key, const char *val)
{
	struct pg_serve	*sv = &p->cfg->serve;
	struct sockaddr_storage	 ss;	/* listen: parsed to be checked */
	const char	*why;
	char		 list[PG_VALUE_MAX], *tok, *last;
	unsigned int	 k;

	if (!key_bit(p, "serve", serve_keys, key, val, &k))
		return 0;
	switch (k) {
	case 0:
		if (pg_listen_parse(val, &ss, &why) == -1)
			return fail(p, p->line, "listen: '%s' is not ADDR:PORT,"
			    " [ADDR]:PORT or :PORT (%s)", val, why);
		return copy(p, sv->listen, sizeof(sv->listen), val, key);
	case 1:
		return basic_user(p, sv->user, sizeof(sv->user), val);
	case 2:
		p->has_password = 1;
		return copy(p, sv->password, sizeof(sv->password), val, key);
	case 3:
		if (!copy(p, list, sizeof(list), val, key))
			return 0;
		/* No entries would mean any client. */
		if (list[strspn(list, SEPARATORS)] == '\0')
			return fail(p, p->line, "allow: separators but no "
			    "address");
		for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
		    tok = strtok_r(NULL, SEPARATORS, &last)) {
			if (sv->nallow == PG_ALLOW_MAX)
				return fail(p, p->line, "allow: more than %d "
				    "entries", PG_ALLOW_MAX);
			errno = 0;	/* EDOM: the one reason told apart */
			if (pg_net_parse(tok, &sv->allow[sv->nallow]) == -1)
				return fail(p, p->line, errno == EDOM ?
				    "allow: '%s': an IPv4-mapped range needs "
				    "a prefix of 96 or more" : "allow: '%s' is "
				    "not an address or CIDR range", tok);
			sv->nallow++;
		}
		return 1;
	case 4:
		if (!user_name_valid(val))
			return fail(p, p->line, "run_as: invalid user name "
			    "'%s'", val);
		return copy(p, sv->run_as, sizeof(sv->run_as), val, key);
	case 5:
		return count(p, key, val, 1, PG_BACKLOG_MAX, &sv->backlog);
	default:
		return count(p, key, val, 1, PG_CONN_MAX_MAX, &sv->max_conn);
	}
}

/*
 * The etcd backend (pollguard(7), STRICT MODE ON ETCD): [cluster] backend
 * and on_lease_lost, and the [etcd] section. Their keys are checked here,
 * apart from the peer protocol's, with the same rules: unknown or
 * repeated keys and control characters are errors.
 */
static const char *const strict_keys[] = { "backend", "on_lease_lost", NULL };

static int
strict_key_is(const char *key)
{
	size_t	 i;

	for (i = 0; strict_keys[i] != NULL; i++)
		if (strcmp(strict_keys[i], key) == 0)
			return 1;
	return 0;
}

static int
strict_key(struct parse *p, struct pg_cluster *c, const char *key,
    const char *val)
{
	char		 section[PG_NAME_MAX + 16];
	unsigned int	 seen = p->seen, k;
	int		 r;

	snprintf(section, sizeof(section), "cluster %s", c->id);
	p->seen = p->seen_strict;
	r = key_bit(p, section, strict_keys, key, val, &k);
	p->seen_strict = p->seen;
	p->seen = seen;
	if (!r)
		return 0;
	if (k == 0) {
		if (strcmp(val, "peers") == 0)
			c->backend = PG_BACKEND_PEERS;
		else if (strcmp(val, "etcd") == 0)
			c->backend = PG_BACKEND_ETCD;
		else
			return fail(p, p->line, "backend: '%s' is neither "
			    "'peers' nor 'etcd'", val);
		return 1;
	}
	if (strcmp(val, "kill") == 0)
		c->on_lease_lost = PG_LEASE_LOST_KILL;
	else if (strcmp(val, "warn") == 0)
		c->on_lease_lost = PG_LEASE_LOST_WARN;
	else
		return fail(p, p->line, "on_lease_lost: '%s' is neither "
		    "'kill' nor 'warn'", val);
	return 1;
}

static int
etcd_section(struct parse *p)
{
	if (p->cfg->etcd.line)
		return fail(p, p->line, "[etcd] repeats line %d",
		    p->cfg->etcd.line);
	p->cfg->etcd.line = p->line;
	p->sec = SEC_ETCD;
	return 1;
}

/* cafile, cert, key: absolute paths, read by libcurl at each run. */
static int
etcd_path(struct parse *p, char *dst, size_t len, const char *key,
    const char *val)
{
	if (val[0] != '/')
		return fail(p, p->line, "%s: '%s' is not an absolute path",
		    key, val);
	return copy(p, dst, len, val, key);
}

static const char *const etcd_keys[] = {
	"endpoints", "prefix", "timeout", "cafile", "cert", "key", "user",
	"password", NULL
};

static int
etcd_key(struct parse *p, const char *key, const char *val)
{
	struct pg_etcd	*e = &p->cfg->etcd;
	char		 list[PG_VALUE_MAX], why[PG_ERR_MAX], *tok, *last;
	unsigned int	 k;
	size_t		 i;

	if (!key_bit(p, "etcd", etcd_keys, key, val, &k))
		return 0;
	switch (k) {
	case 0:
		if (!copy(p, list, sizeof(list), val, key))
			return 0;
		for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
		    tok = strtok_r(NULL, SEPARATORS, &last)) {
			if (e->nendpoints == PG_ETCD_ENDPOINTS_MAX)
				return fail(p, p->line, "endpoints: more than "
				    "%d", PG_ETCD_ENDPOINTS_MAX);
			if (url_check(tok, why, sizeof(why)) == -1)
				return fail(p, p->line, "endpoints: '%s': %s",
				    tok, why);
			for (i = 0; i < e->nendpoints; i++)
				if (strcmp(e->endpoints[i], tok) == 0)
					return fail(p, p->line, "endpoints: "
					    "'%s' listed twice", tok);
			strlcpy(e->endpoints[e->nendpoints++], tok,
			    sizeof(e->endpoints[0]));
		}
		if (e->nendpoints == 0)
			return fail(p, p->line, "endpoints: separators but no "
			    "URL");
		return 1;
	case 1:
		/* Printable, no blank: the key is PREFIX followed by the ID. */
		if (val[0] != '/' || strlen(val) > 128 ||
		    strpbrk(val, " \t") != NULL)
			return fail(p, p->line, "prefix: '%s' is not a path "
			    "starting with '/', without blanks, of at most 128 "
			    "characters", val);
		for (i = 0; val[i] != '\0'; i++)
			if ((unsigned char)val[i] > 0x7e)
				return fail(p, p->line, "prefix: byte 0x%02x is "
				    "not printable ASCII", (unsigned char)val[i]);
		return copy(p, e->prefix, sizeof(e->prefix), val, key);
	case 2:
		return duration(p, key, val, 100, 60 * 1000, &e->timeout_ms);
	case 3:
		return etcd_path(p, e->cafile, sizeof(e->cafile), key, val);
	case 4:
		return etcd_path(p, e->cert, sizeof(e->cert), key, val);
	case 5:
		return etcd_path(p, e->key, sizeof(e->key), key, val);
	case 6:
		return basic_user(p, e->user, sizeof(e->user), val);
	default:
		p->has_password = 1;
		return copy(p, e->password, sizeof(e->password), val, key);
	}
}

/*
 * What needs the whole file: an etcd cluster needs [etcd] endpoints and
 * asks no peers (a peers list for it is an error, the default list is
 * dropped); [etcd] gets its defaults.
 */
static int
etcd_finish(struct parse *p)
{
	struct pg_config	*cfg = p->cfg;
	struct pg_etcd		*e = &cfg->etcd;
	struct pg_cluster	*c;
	size_t			 i;

	for (i = 0; i < cfg->nclusters; i++) {
		c = &cfg->clusters[i];
		if (c->backend != PG_BACKEND_ETCD)
			continue;
		if (e->nendpoints == 0)
			return fail(p, c->line, "[cluster %s] has backend = "
			    "etcd but %s", c->id, e->line ? "[etcd] has no "
			    "endpoints" : "there is no [etcd] section");
		if (p->peerlines[i] != 0)
			return fail(p, p->peerlines[i], "peers: not used by a "
			    "cluster with backend = etcd");
		c->npeers = 0;
	}
	if (e->line == 0)
		return 1;
	if (e->nendpoints == 0)
		return fail(p, e->line, "[etcd] has no endpoints");
	if ((e->user[0] == '\0') != (e->password[0] == '\0'))
		return fail(p, e->line, "[etcd] needs both user and password, "
		    "or neither");
	if ((e->cert[0] == '\0') != (e->key[0] == '\0'))
		return fail(p, e->line, "[etcd] needs both cert and key, or "
		    "neither");
	if (e->prefix[0] == '\0')
		strlcpy(e->prefix, "/pollguard/", sizeof(e->prefix));
	if (e->timeout_ms == 0)
		e->timeout_ms = cfg->timeout_ms;
	return 1;
}

static int
handler(void *arg, const char *section, const char *key, const char *val)
{
	struct parse	*p = arg;

	(void)section;	/* the reader tracks sections itself */
	if (p->failed)
		return 0;
	/* "peers =" is the one empty value: a cluster with no peers. */
	if (val[0] == '\0' && (p->sec != SEC_CLUSTER || strcmp(key, "peers")))
		return fail(p, p->line, "%s: empty value", key);
	switch (p->sec) {
	case SEC_GLOBAL:
		return global_key(p, key, val);
	case SEC_SERVE:
		return serve_key(p, key, val);
	case SEC_PEER:
		return peer_key(p, key, val);
	case SEC_CLUSTER:
		return cluster_key(p, key, val);
	case SEC_ETCD:
		return etcd_key(p, key, val);
	default:
		return fail(p, p->line, "'%s' before the first [section]",
		    key);
	}
}

static int
grow(struct parse *p, void *arrp, size_t n, size_t size)
{
	void	**arr = arrp, *na;

	if ((na = reallocarray(*arr, n + 1, size)) == NULL)
		return fail(p, p->line, "%s", strerror(errno));
	*arr = na;
	memset((char *)na + n * size, 0, size);
	return 1;
}

static int
new_peer(struct parse *p, const char *name)
{
	struct pg_config	*cfg = p->cfg;
	size_t			 i;

	if (!pg_peer_name_valid(name))
		return fail(p, p->line, "invalid peer name '%s' (letters, "
		    "digits, '.', '_', '-'; at most %d)", name, PG_NAME_MAX);
	for (i = 0; i < cfg->npeers; i++)
		if (strcasecmp(cfg->peers[i].name, name) == 0)
			return fail(p, p->line, "[peer %s] repeats line %d",
			    name, cfg->peers[i].line);
	if (cfg->npeers == PG_PEERS_MAX)
		return fail(p, p->line, "more than %d peers", PG_PEERS_MAX);
	if (!grow(p, &cfg->peers, cfg->npeers, sizeof(*cfg->peers)))
		return 0;
	strlcpy(cfg->peers[cfg->npeers].name, name,
	    sizeof(cfg->peers[0].name));
	cfg->peers[cfg->npeers++].line = p->line;
	return 1;
}

static int
new_cluster(struct parse *p, const char *id)
{
	struct pg_config	*cfg = p->cfg;
	size_t			 i, n = cfg->nclusters;

	if (!pg_cluster_id_valid(id))
		return fail(p, p->line, "invalid cluster ID '%s' (letters, "
		    "digits, '.', '_', '-', not starting with '.' or '-'; at "
		    "most %d)", id, PG_NAME_MAX);
	for (i = 0; i < n; i++)
		if (strcmp(cfg->clusters[i].id, id) == 0)
			return fail(p, p->line, "[cluster %s] repeats line %d",
			    id, cfg->clusters[i].line);
	if (n == PG_CLUSTERS_MAX)
		return fail(p, p->line, "more than %d clusters",
		    PG_CLUSTERS_MAX);
	if (!grow(p, &cfg->clusters, n, sizeof(*cfg->clusters)) ||
	    !grow(p, &p->peerlists, n, sizeof(*p->peerlists)) ||
	    !grow(p, &p->peerlines, n, sizeof(*p->peerlines)) ||
	    !grow(p, &p->preferlines, n, sizeof(*p->preferlines)))
		return 0;
	strlcpy(cfg->clusters[n].id, id, sizeof(cfg->clusters[0].id));
	cfg->clusters[n].line = p->line;
	cfg->clusters[n].kill_after_ms = PG_KILL_AFTER_MS;
	cfg->clusters[n].ping_timeout_ms = PG_PING_TIMEOUT_MAX_MS;
	cfg->clusters[n].cooldown_ms = -1;	/* not set: the wait */
	cfg->clusters[n].failback = 1;
	cfg->clusters[n].failback_after_ms = -1;	/* not set: the wait */
	cfg->nclusters++;
	return 1;
}

/* A section header "[...]" starting at column 0 of the current line. */
static int
section(struct parse *p, const char *line)
{
	char		 name[PG_VALUE_MAX], *arg;
	const char	*end;
	size_t		 n;

	if ((end = strchr(line, ']')) == NULL)
		return fail(p, p->line, "section header without ']'");
	if ((n = end - line - 1) >= sizeof(name))
		return fail(p, p->line, "section header too long");
	memcpy(name, line + 1, n);
	name[n] = '\0';
	end += 1 + strspn(end + 1, " \t\r\n");
	if (*end != '\0' && *end != ';' && *end != '#')
		return fail(p, p->line, "text after the section header");
	p->seen = 0;
	p->seen_strict = 0;
	if ((arg = strchr(name, ' ')) != NULL) {
		*arg++ = '\0';
		arg += strspn(arg, " \t");
	}
	if (strcmp(name, "pollguard") == 0 && arg == NULL) {
		if (p->seen_global)
			return fail(p, p->line, "[pollguard] repeats line %d",
			    p->seen_global);
		p->seen_global = p->line;
		p->sec = SEC_GLOBAL;
		return 1;
	}
	if (strcmp(name, "serve") == 0 && arg == NULL) {
		if (p->seen_serve)
			return fail(p, p->line, "[serve] repeats line %d",
			    p->seen_serve);
		p->seen_serve = p->line;
		p->sec = SEC_SERVE;
		return 1;
	}
	if (strcmp(name, "peer") == 0 && arg != NULL) {
		p->sec = SEC_PEER;
		return new_peer(p, arg);
	}
	if (strcmp(name, "cluster") == 0 && arg != NULL) {
		p->sec = SEC_CLUSTER;
		return new_cluster(p, arg);
	}
	if (strcmp(name, "etcd") == 0 && arg == NULL)
		return etcd_section(p);
	if (arg != NULL)
		arg[-1] = ' ';
	return fail(p, p->line, "unknown section [%s] (expected [pollguard], "
	    "[serve], [etcd], [peer NAME] or [cluster ID])", name);
}

static char *
reader(char *buf, int size, void *arg)
{
	struct parse	*p = arg;
	char		*line;
	size_t		 n = 0;
	int		 c = EOF;

	if (p->failed)
		return NULL;
	while (n < (size_t)size - 1 && (c = getc(p->fp)) != EOF) {
		if (c == '\0') {
			fail(p, p->line + 1, "NUL byte");
			return NULL;
		}
		buf[n++] = c;
		if (c == '\n')
			break;
	}
	if (n == 0)
		return NULL;
	buf[n] = '\0';
	p->line++;
	/* A full buffer: the line end (LF or CRLF) must come next. */
	if (c != '\n' && c != EOF && (c = getc(p->fp)) == '\r')
		c = getc(p->fp);
	if (c != '\n' && c != EOF) {
		fail(p, p->line, "line longer than %d characters", size - 1);
		return NULL;
	}
	line = buf;
	if (p->line == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0)
		line += 3;	/* inih skips a UTF-8 byte order mark */
	n = strspn(line, " \t");
	if (line[0] == '[')
		section(p, line);
	else if (n > 0 && strchr(";#\r\n", line[n]) == NULL)
		fail(p, p->line, "line starts with white space (inih would "
		    "read it as part of the previous value)");
	else if (strchr(";#\r\n", line[0]) == NULL &&
	    line[strcspn(line, "=:")] == ':')
		fail(p, p->line, "expected key = value, not key: value");
	return p->failed ? NULL : buf;
}

/*
 * Peers are told the time since a claim, not since the latest refresh,
 * for the claim's horizon: an active node must still look active to them,
 * so every wait must be longer.
 */
static int
check_horizon(struct parse *p)
{
	struct pg_config	*cfg = p->cfg;
	int64_t			 horizon;
	char			 h[32], w[32];
	size_t			 i;

	horizon = pg_claim_horizon(cfg->timeout_ms, cfg->settle_ms);
	if (cfg->settle_ms == 0)
		return 1;
	for (i = 0; i < cfg->nclusters; i++) {
		if (cfg->clusters[i].npeers == 0 ||
		    cfg->clusters[i].wait_ms > horizon)
			continue;
		pg_duration_format(horizon, h, sizeof(h));
		pg_duration_format(cfg->clusters[i].wait_ms, w, sizeof(w));
		return fail(p, cfg->clusters[i].line, "[cluster %s]: wait %s "
		    "is not longer than the claim horizon %s (2 x timeout + "
		    "1.5 x settle + 1s); raise wait or lower timeout or settle",
		    cfg->clusters[i].id, w, h);
	}
	return 1;
}

/*
 * The prefer list of cluster i, once its peers are known: every name is
 * this node or one of the cluster's peers, none twice. Kept as written,
 * joined by commas: the form peers compare (without case) to their own.
 */
static int
prefer_list(struct parse *p, size_t i)
{
	struct pg_config	*cfg = p->cfg;
	struct pg_cluster	*c = &cfg->clusters[i];
	char			 list[PG_VALUE_MAX], out[PG_VALUE_MAX];
	char			*tok, *last, *o;
	size_t			 j, k, len;

	if (c->failback_after_ms == -1)
		c->failback_after_ms = c->wait_ms;
	j = pg_claim_horizon(cfg->timeout_ms, cfg->settle_ms);
	c->prefer_slack_ms = (int64_t)j < c->wait_ms / 4 ? (int64_t)j :
	    c->wait_ms / 4;
	if (c->prefer[0] == '\0')
		return 1;
	/* etcd orders such a cluster: no peer ever sees a preference. */
	if (c->backend == PG_BACKEND_ETCD)
		return fail(p, p->preferlines[i], "prefer: not with backend = "
		    "etcd in [cluster %s]", c->id);
	strlcpy(list, c->prefer, sizeof(list));
	out[0] = '\0';
	for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
	    tok = strtok_r(NULL, SEPARATORS, &last)) {
		for (k = 0; k < c->npeers; k++)
			if (strcasecmp(cfg->peers[c->peers[k]].name, tok) == 0)
				break;
		if (k == c->npeers && strcasecmp(tok, cfg->node) != 0)
			return fail(p, p->preferlines[i], "prefer: %s is "
			    "neither this node (%s) nor a peer of [cluster %s]",
			    tok, cfg->node, c->id);
		len = strlen(tok);
		for (o = out; *o != '\0'; o += strcspn(o, ",") +
		    (o[strcspn(o, ",")] == ',')) {
			if (strcspn(o, ",") == len &&
			    strncasecmp(o, tok, len) == 0)
				return fail(p, p->preferlines[i], "prefer: %s "
				    "listed twice", tok);
		}
		if (out[0] != '\0')
			strlcat(out, ",", sizeof(out));
		strlcat(out, tok, sizeof(out));
	}
	strlcpy(c->prefer, out, sizeof(c->prefer));
	return 1;
}

/* Resolve what needs the whole file: defaults and cross-references. */
static int
finish(struct parse *p)
{
	struct pg_config	*cfg = p->cfg;
	struct pg_cluster	*c;
	char			*tok, *last, host[256];
	size_t			 i, j, k;

	if (cfg->node[0] == '\0') {
		if (gethostname(host, sizeof(host)) == -1)
			return fail(p, 0, "gethostname: %s", strerror(errno));
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		if (!pg_peer_name_valid(host))
			return fail(p, 0, "host name '%s' is not a valid node "
			    "name; set node in [pollguard]", host);
		strlcpy(cfg->node, host, sizeof(cfg->node));
	}
	/* The default connect_timeout never exceeds a shorter timeout. */
	if (cfg->connect_timeout_ms > cfg->timeout_ms && p->connect_line == 0)
		cfg->connect_timeout_ms = cfg->timeout_ms;
	if (cfg->connect_timeout_ms > cfg->timeout_ms)
		return fail(p, p->connect_line, "connect_timeout %lldms is "
		    "longer than timeout %lldms", (long long)
		    cfg->connect_timeout_ms, (long long)cfg->timeout_ms);
	for (i = 0; i < cfg->npeers; i++) {
		if (cfg->peers[i].url[0] == '\0')
			return fail(p, cfg->peers[i].line, "[peer %s] has no "
			    "url", cfg->peers[i].name);
		if ((cfg->peers[i].user[0] == '\0') !=
		    (cfg->peers[i].password[0] == '\0'))
			return fail(p, cfg->peers[i].line, "[peer %s] needs "
			    "both user and password, or neither",
			    cfg->peers[i].name);
	}
	if ((cfg->serve.user[0] == '\0') != (cfg->serve.password[0] == '\0'))
		return fail(p, p->seen_serve, "[serve] needs both user and "
		    "password, or neither");
	for (i = 0; i < cfg->nclusters; i++) {
		c = &cfg->clusters[i];
		if (c->wait_ms == 0)
			return fail(p, c->line, "[cluster %s] has no wait",
			    c->id);
		if (c->cooldown_ms == -1)
			c->cooldown_ms = c->wait_ms;
		if ((c->peers = calloc(cfg->npeers + 1, sizeof(*c->peers))) ==
		    NULL)
			return fail(p, 0, "%s", strerror(errno));
		if (p->peerlists[i] == NULL) {
			for (j = 0; j < cfg->npeers; j++)
				if (strcasecmp(cfg->peers[j].name,
				    cfg->node) != 0)
					c->peers[c->npeers++] = j;
			continue;
		}
		for (tok = strtok_r(p->peerlists[i], SEPARATORS, &last);
		    tok != NULL; tok = strtok_r(NULL, SEPARATORS, &last)) {
			for (j = 0; j < cfg->npeers; j++)
				if (strcasecmp(cfg->peers[j].name, tok) == 0)
					break;
			if (j == cfg->npeers)
				return fail(p, p->peerlines[i], "peers: no "
				    "[peer %s] in this file", tok);
			for (k = 0; k < c->npeers; k++)
				if (c->peers[k] == j)
					return fail(p, p->peerlines[i],
					    "peers: %s listed twice", tok);
			if (strcasecmp(tok, cfg->node) != 0)
				c->peers[c->npeers++] = j;
		}
	}
	for (i = 0; i < cfg->nclusters; i++)
		if (!prefer_list(p, i))
			return 0;
	return etcd_finish(p) && check_horizon(p);
}

const char *
pg_config_path(const char *opt)
{
	const char	*env;

	if (opt != NULL)
		return opt;
	if ((env = getenv(PG_CONF_ENV)) != NULL && env[0] != '\0')
		return env;
	return PG_CONF_DEFAULT;
}

int
pg_config_load(const char *path, struct pg_config **cfgp, char *err,
    size_t errlen)
{
	struct parse		 p;
	struct pg_config	*cfg;
	struct stat		 sb;
	size_t			 i;
	int			 fd, r;

	memset(&p, 0, sizeof(p));
	if ((cfg = calloc(1, sizeof(*cfg))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	p.cfg = cfg;
	p.err = err;
	p.errlen = errlen;
	if (path[0] == '\0') {
		snprintf(err, errlen, "config file name is empty");
		free(cfg);
		return -1;
	}
	if (strlcpy(cfg->path, path, sizeof(cfg->path)) >= sizeof(cfg->path)) {
		snprintf(err, errlen, "config file name too long");
		free(cfg);
		return -1;
	}
	strlcpy(cfg->state, PG_STATE_DEFAULT, sizeof(cfg->state));
	cfg->timeout_ms = 2000;
	cfg->connect_timeout_ms = 1000;
	cfg->settle_ms = 500;
	cfg->serve.backlog = PG_BACKLOG_DEFAULT;
	cfg->serve.max_conn = PG_CONN_MAX_DEFAULT;

	/* O_NONBLOCK: a FIFO named as the config must not hang the tool. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) ==
	    -1 ||
	    fstat(fd, &sb) == -1) {
		fail(&p, 0, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		fail(&p, 0, "not a regular file");
		goto out;
	}
	if ((p.fp = fdopen(fd, "r")) == NULL) {
		fail(&p, 0, "%s", strerror(errno));
		goto out;
	}
	fd = -1;
	r = ini_parse_stream(reader, &p, handler, &p);
	if (!p.failed && ferror(p.fp))
		fail(&p, 0, "read error");
	if (r > 0 && (!p.failed || r < p.errline)) {
		p.failed = 0;
		fail(&p, r, "syntax error (expected [section] or key = value)");
	}
	if (!p.failed && r < 0)
		fail(&p, 0, "out of memory");
	if (!p.failed)
		finish(&p);
	/* Group-readable is fine: root:pollguard 0640 for a dropped serve. */
	if (!p.failed && p.has_password && (sb.st_mode & S_IROTH))
		fail(&p, 0, "contains passwords but is readable by others "
		    "(mode %04o); run: chmod o-r %s",
		    (unsigned int)(sb.st_mode & 07777), path);
out:
	if (p.fp != NULL)
		fclose(p.fp);
	else if (fd != -1)
		close(fd);
	for (i = 0; i < cfg->nclusters; i++)
		free(p.peerlists[i]);
	free(p.peerlists);
	free(p.peerlines);
	free(p.preferlines);
	if (p.failed) {
		pg_config_free(cfg);
		return -1;
	}
	*cfgp = cfg;
	return 0;
}

void
pg_config_free(struct pg_config *cfg)
{
	size_t	 i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nclusters; i++)
		free(cfg->clusters[i].peers);
	free(cfg->clusters);
	if (cfg->peers != NULL)
		explicit_bzero(cfg->peers, cfg->npeers * sizeof(*cfg->peers));
	free(cfg->peers);
	explicit_bzero(cfg, sizeof(*cfg));
	free(cfg);
}

const struct pg_cluster *
pg_config_cluster(const struct pg_config *cfg, const char *id)
{
	size_t	 i;

	for (i = 0; i < cfg->nclusters; i++)
		if (strcmp(cfg->clusters[i].id, id) == 0)
			return &cfg->clusters[i];
	return NULL;
}

int
pg_net_parse(const char *s, struct pg_net *net)
{
	static const unsigned char v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	char		 addr[INET6_ADDRSTRLEN];
	const char	*slash, *errstr;
	unsigned int	 max, i;
	size_t		 n;

	memset(net, 0, sizeof(*net));
	slash = strchr(s, '/');
	n = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (n == 0 || n >= sizeof(addr))
		return -1;
	memcpy(addr, s, n);
	addr[n] = '\0';
	net->family = strchr(addr, ':') != NULL ? AF_INET6 : AF_INET;
	max = net->family == AF_INET6 ? 128 : 32;
	if (inet_pton(net->family, addr, net->addr) != 1)
		return -1;
	net->prefix = max;
	if (slash != NULL) {
		if (strspn(slash + 1, "0123456789") != strlen(slash + 1))
			return -1;
		net->prefix = strtonum(slash + 1, 0, max, &errstr);
		if (errstr != NULL)
			return -1;
	}
	/*
	 * ::ffff:a.b.c.d: an IPv4 client, which pollguard-serve sees as
	 * a.b.c.d (conn.c): kept as that, or it would never match.
	 */
	if (net->family == AF_INET6 &&
	    memcmp(net->addr, v4mapped, sizeof(v4mapped)) == 0) {
		if (net->prefix < 96) {
			errno = EDOM;
			return -1;
		}
		net->family = AF_INET;
		net->prefix -= 96;
		memmove(net->addr, net->addr + 12, 4);
		memset(net->addr + 4, 0, 12);
		max = 32;
	}
	for (i = net->prefix; i < max; i++)
		net->addr[i / 8] &= ~(0x80 >> (i % 8));
	return 0;
}

int
pg_net_match(const struct pg_net *net, int family, const void *addr)
{
	const unsigned char	*a = addr;
	unsigned int		 full = net->prefix / 8, rest = net->prefix % 8;

	if (family != net->family)
		return 0;
	if (memcmp(a, net->addr, full) != 0)
		return 0;
	return rest == 0 ||
	    ((a[full] ^ net->addr[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}
