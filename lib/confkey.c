/* SPDX-License-Identifier: ISC */
/*
 * confkey.c: the keys of each section of pollguard.conf(5), for
 * pg_config_load (config.c): each value checked in full, unknown and
 * repeated keys refused; and conf_fail, the reason a parse fails.
 */
#include <sys/socket.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * A key of a section: what its value is and where it goes, at off in the
 * section's struct (p->base). check, when there is one, runs first; for
 * OTHER it does all there is.
 */
enum kind {
	STRING,		/* of size bytes at most, the NUL included */
	PASSWORD,	/* a STRING that makes the file's mode matter */
	DURATION,	/* an int64_t of ms, from min to max */
	COUNT,		/* an int, from min to max */
	CHOICE,		/* an int or enum: min for the word a, max for b */
	OTHER
};

struct key {
	const char	*name;
	enum kind	 kind;
	size_t		 off, size;
	int64_t		 min, max;
	const char	*a, *b;
	int		(*check)(struct parse *, const char *, const char *);
};

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

/* A whole number from min to max, digits only. */
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
	if (v < min)
		return conf_fail(p, p->line, "%s: %s is too small (minimum "
		    "%lld)", key, val, min);
	if (v > max)
		return conf_fail(p, p->line, "%s: %s is too large (maximum "
		    "%lld)", key, val, max);
	*n = (int)v;
	return 1;
}

static int
node_name(struct parse *p, const char *key, const char *val)
{
	if (!pg_peer_name_valid(val))
		return conf_fail(p, p->line, "%s: invalid name '%s' (letters, "
		    "digits, '.', '_', '-'; at most %d)", key, val, PG_NAME_MAX);
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

/* A peer's url, a cluster's ping. */
static int
url(struct parse *p, const char *key, const char *val)
{
	char	 why[PG_ERR_MAX];

	if (conf_url_check(val, why, sizeof(why)) == -1)
		return conf_fail(p, p->line, "%s: '%s': %s", key, val, why);
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

/*
 * pollguard(7), PREFERRED NODE. The names are checked once the whole
 * file is read (prefer_list).
 */
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

/* A system user name for run_as. */
static int
run_as(struct parse *p, const char *key, const char *val)
{
	size_t	 n;

	n = strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	if (n == 0 || n > 32 || val[n] != '\0' ||
	    !(islower((unsigned char)val[0]) || val[0] == '_'))
		return conf_fail(p, p->line, "%s: invalid user name '%s'", key,
		    val);
	return 1;
}

static int
endpoints(struct parse *p, const char *key, const char *val)
{
	struct pg_etcd	*e = &p->cfg->etcd;
	char		 list[PG_VALUE_MAX], why[PG_ERR_MAX], *tok, *last;
	size_t		 i;

	if (!copy(p, list, sizeof(list), val, key))
		return 0;
	for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
	    tok = strtok_r(NULL, SEPARATORS, &last)) {
		if (e->nendpoints == PG_ETCD_ENDPOINTS_MAX)
			return conf_fail(p, p->line, "endpoints: more than %d",
			    PG_ETCD_ENDPOINTS_MAX);
		if (conf_url_check(tok, why, sizeof(why)) == -1)
			return conf_fail(p, p->line, "endpoints: '%s': %s",
			    tok, why);
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

static const struct key global_keys[] = {
	{ "node", STRING, FIELD(pg_config, node), .check = node_name },
	{ "state", STRING, FIELD(pg_config, state), .check = absolute },
	{ "timeout", DURATION, FIELD(pg_config, timeout_ms), 100, 60 * 1000 },
	{ "connect_timeout", OTHER, .check = connect_timeout },
	{ "settle", OTHER, .check = settle },
	{ NULL }
};

static const struct key peer_keys[] = {
	{ "url", STRING, FIELD(pg_peer, url), .check = url },
	{ "user", STRING, FIELD(pg_peer, user), .check = basic_user },
	{ "password", PASSWORD, FIELD(pg_peer, password) },
	{ "cafile", STRING, FIELD(pg_peer, cafile), .check = absolute },
	{ NULL }
};

/* backend and on_lease_lost: the etcd backend (pollguard(7), STRICT MODE). */
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
	    PG_RUNTIME_MIN_MS, PG_KILL_AFTER_MAX_MS },
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
	{ "backend", CHOICE, FIELD(pg_cluster, backend), PG_BACKEND_PEERS,
	    PG_BACKEND_ETCD, "peers", "etcd" },
	{ "on_lease_lost", CHOICE, FIELD(pg_cluster, on_lease_lost),
	    PG_LEASE_LOST_KILL, PG_LEASE_LOST_WARN, "kill", "warn" },
	{ NULL }
};

static const struct key serve_keys[] = {
	{ "listen", STRING, FIELD(pg_serve, listen), .check = listen_addr },
	{ "user", STRING, FIELD(pg_serve, user), .check = basic_user },
	{ "password", PASSWORD, FIELD(pg_serve, password) },
	{ "allow", OTHER, .check = allow },
	{ "run_as", STRING, FIELD(pg_serve, run_as), .check = run_as },
	{ "backlog", COUNT, FIELD(pg_serve, backlog), 1, PG_BACKLOG_MAX },
	{ "max_connections", COUNT, FIELD(pg_serve, max_conn), 1,
	    PG_CONN_MAX_MAX },
	{ NULL }
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
	{ NULL }
};

/*
 * Unknown and repeated keys are refused, and control characters in the
 * value: none is ever meant, and a tab only separates the items of a
 * list.
 */
int
conf_key(struct parse *p, const char *key, const char *val)
{
	static const struct key	*const sections[] = {
		[SEC_GLOBAL] = global_keys,
		[SEC_SERVE] = serve_keys,
		[SEC_PEER] = peer_keys,
		[SEC_CLUSTER] = cluster_keys,
		[SEC_ETCD] = etcd_keys
	};
	const struct key	*k;
	const char		*v;
	char			*dst;
	unsigned int		 bit;
	int			 list;

	if (p->sec == SEC_NONE)
		return conf_fail(p, p->line, "'%s' before the first "
		    "[section]", key);
	for (k = sections[p->sec]; k->name != NULL; k++)
		if (strcmp(k->name, key) == 0)
			break;
	if (k->name == NULL)
		return conf_fail(p, p->line, "unknown key '%s' in [%s]", key,
		    p->label);
	bit = 1U << (k - sections[p->sec]);
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
