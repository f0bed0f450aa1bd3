/* SPDX-License-Identifier: ISC */
/*
 * confkey.c: the keys of each section of pollguard.conf(5) and the check
 * of their values, for pg_config_load (config.c); [serve] allow's ranges.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf-int.h"
#include "serve.h"

int
conf_fail(struct parse *p, int line, const char *fmt, ...)
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

/* A key: its value's kind, at off in p->base; check first, if any. */
enum kind {
	STRING,		/* of size bytes at most, the NUL included */
	PASSWORD,	/* a STRING that makes the file's mode matter */
	DURATION,	/* an int64_t of ms, from min to max */
	COUNT,		/* an int, from min to max */
	CHOICE,		/* an int or enum: min for word a, max for b */
	OTHER		/* its check does it all: conf_key writes nothing */
};

struct key {
	const char	*name;
	enum kind	 kind;
	size_t		 off, size;
	int64_t		 min, max;
	const char	*a, *b;
	int		(*check)(struct parse *, const char *, const char *);
};

/* conf_key writes a CHOICE as an int: each such enum must be one. */
typedef char choice_is_int[sizeof(enum pg_unreachable) == sizeof(int) &&
    sizeof(enum pg_on_failure) == sizeof(int) &&
    sizeof(enum pg_backend) == sizeof(int) &&
    sizeof(enum pg_lease_lost) == sizeof(int) ? 1 : -1];

#define FIELD(s, f)	.off = offsetof(struct s, f), \
			.size = sizeof(((struct s *)NULL)->f)

static int
copy(struct parse *p, char *dst, size_t len, const char *src,
    const char *key)
{
	if (strlcpy(dst, src, len) >= len)
		return conf_fail(p, p->line, "%s: too long (at most %zu "
		    "characters)", key, len - 1);
	return 1;
}

static int
duration(struct parse *p, const char *key, const char *val, int64_t min,
    int64_t max, int64_t *ms)
{
	const char	*errstr;
	char		 lim[PG_DURATION_MAX];
	int		 small;

	if (pg_duration_parse(val, min, max, ms, &errstr) == 0)
		return 1;
	if (strcmp(errstr, "invalid") == 0)
		return conf_fail(p, p->line, "%s: invalid duration '%s' (a "
		    "whole number with a unit ms, s, m, h or d)", key, val);
	small = strcmp(errstr, "too small") == 0;
	return conf_fail(p, p->line, "%s: %s is %s (%s %s)", key, val, errstr,
	    small ? "minimum" : "maximum",
	    pg_duration_text(small ? min : max, lim));
}

static int
count(struct parse *p, const char *key, const char *val, long long min,
    long long max, int *n)
{
	const char	*errstr;
	long long	 v;

	if (val[strspn(val, "0123456789")] != '\0')
		return conf_fail(p, p->line, "%s: '%s' is not a whole number",
		    key, val);
	/* More digits than a long long holds is too large all the same. */
	v = strlen(val) > 18 ? LLONG_MAX : strtonum(val, 0, LLONG_MAX,
	    &errstr);
	if (v < min || v > max)
		return conf_fail(p, p->line, "%s: %s is too %s %lld)", key, val,
		    v < min ? "small (minimum" : "large (maximum",
		    v < min ? min : max);
	*n = (int)v;
	return 1;
}

/*
 * The URL val of key is wrong, for this reason: returns 0. The message
 * leaves out the URL's user information, which may hold a password.
 */
static int __attribute__((__format__(__printf__, 4, 5)))
bad(struct parse *p, const char *key, const char *val, const char *fmt, ...)
{
	char		 why[PG_ERR_MAX];
	const char	*host, *at;
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	host = (host = strstr(val, "://")) != NULL ? host + 3 : val;
	if ((at = memrchr(host, '@', strcspn(host, "/"))) != NULL)
		return conf_fail(p, p->line, "%s: '%.*s...%s': %s", key,
		    (int)(host - val), val, at, why);
	return conf_fail(p, p->line, "%s: '%s': %s", key, val, why);
}

#define ALNUM	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
		"0123456789"

/* RFC 1123; the last label not all digits, or it looks like an address. */
static int
host_name_valid(const char *s)
{
	size_t	 n;

	if (strlen(s) > 253)
		return 0;
	for (;; s += n + 1) {
		n = strspn(s, ALNUM "-");
		if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-' ||
		    (s[n] != '.' && s[n] != '\0'))
			return 0;
		if (s[n] == '\0')
			return strspn(s, "0123456789") < n;
	}
}

/* The host of a URL, n bytes at s. */
static int
url_host(struct parse *p, const char *key, const char *val, const char *s,
    size_t n)
{
	char		 host[256];
	unsigned char	 buf[sizeof(struct in6_addr)];
	struct in_addr	 in;

	if (n == 0)
		return bad(p, key, val, "no host");
	if (n >= sizeof(host))
		return bad(p, key, val, "host longer than 253 characters");
	memcpy(host, s, n);
	host[n] = '\0';
	if (host[0] == '[') {
		host[n - 1] = '\0';
		if (n < 3 || s[n - 1] != ']' ||
		    inet_pton(AF_INET6, host + 1, buf) != 1)
			return bad(p, key, val, "'%.*s' is not an IPv6 address "
			    "in brackets", (int)n, s);
		return 1;
	}
	if (inet_pton(AF_INET, host, buf) == 1)
		return 1;
	/* The resolver would read "127.1" or "0x7f.0.0.1" as an address. */
	if (inet_aton(host, &in) != 0 ||
	    strspn(host, "0123456789.") == n)
		return bad(p, key, val, "'%s' is not an IPv4 address of four "
		    "decimal numbers 0 to 255 without leading zeros", host);
	if (!host_name_valid(host))
		return bad(p, key, val, "'%s' is not a host name (labels of 1 "
		    "to 63 letters, digits and '-' joined by '.'), an IPv4 "
		    "address or an [IPv6] address", host);
	return 1;
}

/*
 * A base URL (url, endpoints, ping): a path is appended to it and
 * credentials have their own keys.
 */
static int
url(struct parse *p, const char *key, const char *val)
{
	const char	*host, *end, *port, *path;
	int64_t		 v;
	size_t		 n;

	if (strncasecmp(val, "http://", 7) == 0)
		host = val + 7;
	else if (strncasecmp(val, "https://", 8) == 0)
		host = val + 8;
	else
		return bad(p, key, val, "does not start with http:// or "
		    "https://");
	if (strchr(val, ' ') != NULL)
		return bad(p, key, val, "white space");
	if (strpbrk(val, "?#") != NULL)
		return bad(p, key, val, "a query or fragment ('?' or '#'); "
		    "pollguard appends a path to this URL");
	path = host + strcspn(host, "/");
	/* [cluster] has no user and password keys. */
	if (memchr(host, '@', path - host) != NULL)
		return bad(p, key, val, "user information (user@), not shown; "
		    "%s", strcmp(key, "ping") == 0 ? "a ping sends no "
		    "credentials: use a URL that needs none (the check's "
		    "secret in its path)" : "credentials go in user and "
		    "password");
	/* The port's ':' is the last one outside an IPv6 address. */
	end = host[0] == '[' ? memchr(host, ']', path - host) : host;
	if (end == NULL)
		return bad(p, key, val, "'[' without ']'");
	end += strcspn(end, ":/");
	if (!url_host(p, key, val, host, end - host))
		return 0;
	if (*end == ':') {
		port = end + 1;
		n = path - port;
		if (n == 0)
			return bad(p, key, val, "':' without a port");
		if (n > 5 || strspn(port, "0123456789") != n)
			return bad(p, key, val, "port '%.*s' is not a number "
			    "from 1 to 65535", (int)n, port);
		if (pg_kv_num(port, n, 1, 65535, &v) == -1)
			return bad(p, key, val, "port %.*s is not from 1 to "
			    "65535", (int)n, port);
	}
	for (; *path != '\0'; path++) {
		if (strchr(ALNUM "-._~!$&'()*+,;=:@/", *path) != NULL)
			continue;
		if (*path == '%' && isxdigit((unsigned char)path[1]) &&
		    isxdigit((unsigned char)path[2])) {
			path += 2;
			continue;
		}
		if (*path == '%')
			return bad(p, key, val, "'%%' in the path is not "
			    "followed by two hex digits");
		if ((unsigned char)*path < 0x80)
			return bad(p, key, val, "'%c' in the path must be "
			    "written %%%02X", *path, (unsigned char)*path);
		return bad(p, key, val, "byte 0x%02X in the path must be "
		    "written %%%02X", (unsigned char)*path,
		    (unsigned char)*path);
	}
	return 1;
}

static int
node_name(struct parse *p, const char *key, const char *val)
{
	if (!pg_peer_name_valid(val))
		return conf_fail(p, p->line, "%s: invalid name '%s' (letters, "
		    "digits, '.', '_', '-'; at most %d)", key, val,
		    PG_NAME_MAX);
	return 1;
}

/* state; cafile, cert, key: read by libcurl at each run. */
static int
absolute(struct parse *p, const char *key, const char *val)
{
	if (val[0] != '/')
		return conf_fail(p, p->line, "%s: '%s' is not an absolute path",
		    key, val);
	return 1;
}

static int
connect_timeout(struct parse *p, const char *key, const char *val)
{
	p->connect_line = p->line;
	return duration(p, key, val, 10, 60 * 1000,
	    &p->cfg->connect_timeout_ms);
}

static int
settle(struct parse *p, const char *key, const char *val)
{
	if (!duration(p, key, val, 0, 10 * 1000, &p->cfg->settle_ms))
		return 0;
	/* Shorter, and the window would be smaller than a disk write. */
	if (p->cfg->settle_ms > 0 && p->cfg->settle_ms < 100)
		return conf_fail(p, p->line, "%s: %s is too small (0 turns it "
		    "off; else at least 100ms)", key, val);
	return 1;
}

/* An HTTP Basic user name: a ':' would end it early. */
static int
basic_user(struct parse *p, const char *key, const char *val)
{
	if (strchr(val, ':') != NULL)
		return conf_fail(p, p->line, "%s: must not contain ':'", key);
	return 1;
}

static int
peers(struct parse *p, const char *key, const char *val)
{
	size_t	 i = p->cfg->nclusters - 1;

	if (val[0] != '\0' && val[strspn(val, SEPARATORS)] == '\0')
		return conf_fail(p, p->line, "%s: separators but no names (an "
		    "empty value means no peers)", key);
	if ((p->peerlists[i] = strdup(val)) == NULL)
		return conf_fail(p, p->line, "%s", strerror(errno));
	p->peerlines[i] = p->line;
	return 1;
}

/* The names are checked once the file is read (prefer_list). */
static int
prefer(struct parse *p, const char *key, const char *val)
{
	if (val[strspn(val, SEPARATORS)] == '\0')
		return conf_fail(p, p->line, "%s: no names", key);
	p->preferlines[p->cfg->nclusters - 1] = p->line;
	return 1;
}

static int
listen_addr(struct parse *p, const char *key, const char *val)
{
	struct sockaddr_storage	 ss;	/* parsed to be checked */
	const char		*why;

	if (pg_listen_parse(val, &ss, &why) == -1)
		return conf_fail(p, p->line, "%s: '%s' is not ADDR:PORT, "
		    "[ADDR]:PORT or :PORT (%s)", key, val, why);
	return 1;
}

static int
allow(struct parse *p, const char *key, const char *val)
{
	struct pg_serve	*sv = &p->cfg->serve;
	char		 list[PG_VALUE_MAX], *tok, *last;

	if (!copy(p, list, sizeof(list), val, key))
		return 0;
	/* No entries would mean any client. */
	if (list[strspn(list, SEPARATORS)] == '\0')
		return conf_fail(p, p->line, "allow: separators but no "
		    "address");
	for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
	    tok = strtok_r(NULL, SEPARATORS, &last)) {
		if (sv->nallow == PG_ALLOW_MAX)
			return conf_fail(p, p->line, "allow: more than %d "
			    "entries", PG_ALLOW_MAX);
		errno = 0;	/* EDOM: the one reason told apart */
		if (pg_net_parse(tok, &sv->allow[sv->nallow]) == -1)
			return conf_fail(p, p->line, errno == EDOM ?
			    "allow: '%s': an IPv4-mapped range needs a prefix "
			    "of 96 or more" : "allow: '%s' is not an address "
			    "or CIDR range", tok);
		sv->nallow++;
	}
	return 1;
}

static int
run_as(struct parse *p, const char *key, const char *val)
{
	size_t	 n;

	n = strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	if (n == 0 || n > 32 || val[n] != '\0' ||
	    !(islower((unsigned char)val[0]) || val[0] == '_'))
		return conf_fail(p, p->line, "%s: invalid user name '%s'", key,
		    val);
	/* The server trusts its user's files: pollguard.conf(5), SECURITY. */
	if (strcmp(val, "nobody") == 0)
		return conf_fail(p, p->line, "%s: nobody is shared with other "
		    "daemons; make a user for pollguard alone (as "
		    "_pollguard)", key);
	return 1;
}

static int
endpoints(struct parse *p, const char *key, const char *val)
{
	struct pg_etcd	*e = &p->cfg->etcd;
	char		 list[PG_VALUE_MAX], *tok, *last;
	size_t		 i;

	if (!copy(p, list, sizeof(list), val, key))
		return 0;
	for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
	    tok = strtok_r(NULL, SEPARATORS, &last)) {
		if (e->nendpoints == PG_ETCD_ENDPOINTS_MAX)
			return conf_fail(p, p->line, "endpoints: more than %d",
			    PG_ETCD_ENDPOINTS_MAX);
		if (!url(p, key, tok))
			return 0;
		for (i = 0; i < e->nendpoints; i++)
			if (strcmp(e->endpoints[i], tok) == 0)
				return conf_fail(p, p->line, "endpoints: '%s' "
				    "listed twice", tok);
		strlcpy(e->endpoints[e->nendpoints++], tok,
		    sizeof(e->endpoints[0]));
	}
	if (e->nendpoints == 0)
		return conf_fail(p, p->line, "endpoints: separators but no "
		    "URL");
	return 1;
}

/* Printable, no blank: the key is PREFIX followed by the ID. */
static int
prefix(struct parse *p, const char *key, const char *val)
{
	size_t	 i;

	if (val[0] != '/' || strlen(val) > 128 || strpbrk(val, " \t") != NULL)
		return conf_fail(p, p->line, "%s: '%s' is not a path starting "
		    "with '/', without blanks, of at most 128 characters", key,
		    val);
	for (i = 0; val[i] != '\0'; i++)
		if ((unsigned char)val[i] > 0x7e)
			return conf_fail(p, p->line, "%s: byte 0x%02x is not "
			    "printable ASCII", key, (unsigned char)val[i]);
	return 1;
}

/* Optimal string alignment distance, in three rows of the table. */
int
conf_near(const char *word, const char *name)
{
	int	 row[3][PG_NAME_MAX + 2], *prev2, *prev, *cur, *tmp, d;
	size_t	 lw = strlen(word), ln = strlen(name), i, j;

	if (lw > PG_NAME_MAX + 1 || ln > PG_NAME_MAX + 1)
		return -1;
	for (j = 0; j <= ln; j++)
		row[1][j] = j;
	prev2 = row[0];
	prev = row[1];
	cur = row[2];
	for (i = 1; i <= lw; i++) {
		cur[0] = i;
		for (j = 1; j <= ln; j++) {
			d = prev[j - 1] + (word[i - 1] != name[j - 1]);
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && word[i - 1] == name[j - 2] &&
			    word[i - 2] == name[j - 1] && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		tmp = prev2;
		prev2 = prev;
		prev = cur;
		cur = tmp;
	}
	d = prev[ln];
	return d > 0 && (size_t)d * 3 <= (lw > ln ? lw : ln) ? d : -1;
}

static const struct key global_keys[] = {
	{ "node", STRING, FIELD(pg_config, node), .check = node_name },
	{ "state", STRING, FIELD(pg_config, state), .check = absolute },
	{ "timeout", DURATION, FIELD(pg_config, timeout_ms), 100, 60 * 1000 },
	{ "connect_timeout", OTHER, .check = connect_timeout },
	{ "settle", OTHER, .check = settle },
	{ 0 }
};

static const struct key peer_keys[] = {
	{ "url", STRING, FIELD(pg_peer, url), .check = url },
	{ "user", STRING, FIELD(pg_peer, user), .check = basic_user },
	{ "password", PASSWORD, FIELD(pg_peer, password) },
	{ "cafile", STRING, FIELD(pg_peer, cafile), .check = absolute },
	{ 0 }
};

static const struct key cluster_keys[] = {
	{ "name", STRING, FIELD(pg_cluster, name) },
	{ "wait", DURATION, FIELD(pg_cluster, wait_ms), PG_WAIT_MIN_MS,
	    PG_WAIT_MAX_MS },
	{ "peers", OTHER, .check = peers },
	{ "unreachable", CHOICE, FIELD(pg_cluster, unreachable),
	    PG_UNREACHABLE_RUN, PG_UNREACHABLE_SKIP, "run", "skip" },
	{ "max_runtime", DURATION, FIELD(pg_cluster, max_runtime_ms),
	    PG_RUNTIME_MIN_MS, PG_WAIT_MAX_MS },
	{ "kill_after", DURATION, FIELD(pg_cluster, kill_after_ms),
	    PG_RUNTIME_MIN_MS, 3600 * 1000 },
	{ "on_failure", CHOICE, FIELD(pg_cluster, on_failure),
	    PG_ON_FAILURE_HANDOVER, PG_ON_FAILURE_STAY, "handover", "stay" },
	{ "cooldown", DURATION, FIELD(pg_cluster, cooldown_ms), 0,
	    PG_WAIT_MAX_MS },
	{ "prefer", STRING, FIELD(pg_cluster, prefer), .check = prefer },
	{ "failback", CHOICE, FIELD(pg_cluster, failback), 1, 0, "yes", "no" },
	{ "failback_after", DURATION, FIELD(pg_cluster, failback_after_ms), 0,
	    PG_WAIT_MAX_MS },
	{ "ping", STRING, FIELD(pg_cluster, ping), .check = url },
	{ "ping_timeout", DURATION, FIELD(pg_cluster, ping_timeout_ms), 100,
	    PG_PING_TIMEOUT_MAX_MS },
	{ 0 }
};

/* The etcd backend's keys of [cluster] (pollguard(7), STRICT MODE). */
static const struct key strict_keys[] = {
	{ "backend", CHOICE, FIELD(pg_cluster, backend), PG_BACKEND_PEERS,
	    PG_BACKEND_ETCD, "peers", "etcd" },
	{ "on_lease_lost", CHOICE, FIELD(pg_cluster, on_lease_lost),
	    PG_LEASE_LOST_KILL, PG_LEASE_LOST_WARN, "kill", "warn" },
	{ 0 }
};

static const struct key serve_keys[] = {
	{ "listen", STRING, FIELD(pg_serve, listen), .check = listen_addr },
	{ "user", STRING, FIELD(pg_serve, user), .check = basic_user },
	{ "password", PASSWORD, FIELD(pg_serve, password) },
	{ "allow", OTHER, .check = allow },
	{ "run_as", STRING, FIELD(pg_serve, run_as), .check = run_as },
	{ "backlog", COUNT, FIELD(pg_serve, backlog), 1, 65535 },
	{ "max_connections", COUNT, FIELD(pg_serve, max_conn), 1, 65536 },
	{ 0 }
};

static const struct key etcd_keys[] = {
	{ "endpoints", OTHER, .check = endpoints },
	{ "prefix", STRING, FIELD(pg_etcd, prefix), .check = prefix },
	{ "timeout", DURATION, FIELD(pg_etcd, timeout_ms), 100, 60 * 1000 },
	{ "cafile", STRING, FIELD(pg_etcd, cafile), .check = absolute },
	{ "cert", STRING, FIELD(pg_etcd, cert), .check = absolute },
	{ "key", STRING, FIELD(pg_etcd, key), .check = absolute },
	{ "user", STRING, FIELD(pg_etcd, user), .check = basic_user },
	{ "password", PASSWORD, FIELD(pg_etcd, password) },
	{ 0 }
};

/* A key that no table of the section has; the nearest, if one is near. */
static int
unknown(struct parse *p, const struct key *const *t, const char *key)
{
	const struct key	*k;
	const char		*best = NULL;
	int			 d, bestd = -1;

	for (; *t != NULL; t++)
		for (k = *t; k->name != NULL; k++)
			if ((d = conf_near(key, k->name)) != -1 &&
			    (bestd == -1 || d < bestd)) {
				bestd = d;
				best = k->name;
			}
	if (best == NULL)
		return conf_fail(p, p->line, "unknown key '%s' in [%s]", key,
		    p->label);
	return conf_fail(p, p->line, "unknown key '%s' in [%s]; did you mean "
	    "'%s'?", key, p->label, best);
}

/* No control character is ever meant; a tab separates list items. */
int
conf_key(void *arg, const char *section, const char *key, const char *val)
{
	static const struct key	*const sections[][3] = {
		[SEC_GLOBAL] = { global_keys },
		[SEC_SERVE] = { serve_keys },
		[SEC_PEER] = { peer_keys },
		[SEC_CLUSTER] = { cluster_keys, strict_keys },
		[SEC_ETCD] = { etcd_keys }
	};
	struct parse		*p = arg;
	const struct key	*const *t, *k;
	const char		*v;
	char			*dst;
	unsigned int		 bit = 1;
	int			 list;

	(void)section;	/* the reader tracks sections itself */
	/* "peers =" is the one empty value: a cluster with no peers. */
	if (val[0] == '\0' && (p->sec != SEC_CLUSTER || strcmp(key, "peers")))
		return conf_fail(p, p->line, "%s: empty value", key);
	if (p->sec == SEC_NONE)
		return conf_fail(p, p->line, "'%s' before the first "
		    "[section]", key);
	/* bit: the key's in p->seen, counted over the section's tables. */
	for (t = sections[p->sec]; *t != NULL; t++) {
		for (k = *t; k->name != NULL && strcmp(k->name, key) != 0; k++)
			bit <<= 1;
		if (k->name != NULL)
			break;
	}
	if (*t == NULL)
		return unknown(p, sections[p->sec], key);
	/* allow may be given on several lines: the lists add up. */
	if ((p->seen & bit) && strcmp(key, "allow") != 0)
		return conf_fail(p, p->line, "'%s' set twice in [%s]", key,
		    p->label);
	list = strcmp(key, "allow") == 0 || strcmp(key, "peers") == 0 ||
	    strcmp(key, "prefer") == 0 || strcmp(key, "endpoints") == 0;
	for (v = val; *v != '\0'; v++)
		if (((unsigned char)*v < 0x20 && !(list && *v == '\t')) ||
		    *v == 0x7f)
			return conf_fail(p, p->line, "%s: control character "
			    "0x%02x in the value", key, (unsigned char)*v);
	p->seen |= bit;

	if (k->check != NULL && !k->check(p, key, val))
		return 0;
	dst = (char *)p->base + k->off;
	switch (k->kind) {
	case PASSWORD:
		p->has_password = 1;
		/* FALLTHROUGH */
	case STRING:
		return copy(p, dst, k->size, val, key);
	case DURATION:
		return duration(p, key, val, k->min, k->max, (int64_t *)dst);
	case COUNT:
		return count(p, key, val, k->min, k->max, (int *)dst);
	case CHOICE:
		if (strcmp(val, k->a) != 0 && strcmp(val, k->b) != 0)
			return conf_fail(p, p->line, "%s: '%s' is neither '%s' "
			    "nor '%s'", key, val, k->a, k->b);
		*(int *)dst = strcmp(val, k->a) == 0 ? k->min : k->max;
		return 1;
	default:
		return 1;
	}
}

int
pg_net_parse(const char *s, struct pg_net *net)
{
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
	/* pollguard-serve sees an IPv4-mapped client as IPv4 (conn.c). */
	if (net->family == AF_INET6 &&
	    memcmp(net->addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
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

	if (family != net->family || memcmp(a, net->addr, full) != 0)
		return 0;
	return rest == 0 ||
	    ((a[full] ^ net->addr[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}
