/* SPDX-License-Identifier: ISC */
/*
 * confkey.c: the keys of each section of pollguard.conf(5), for
 * pg_config_load (config.c): each value checked in full, unknown and
 * repeated keys refused; and conf_fail, the reason a parse fails.
 */
#include <sys/socket.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
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
	char		 lo[32], hi[32];

	if (pg_duration_parse(val, min, max, ms, &errstr) == 0)
		return 1;
	if (pg_duration_format(min, lo, sizeof(lo)) == -1 ||
	    pg_duration_format(max, hi, sizeof(hi)) == -1)
		lo[0] = hi[0] = '\0';
	if (strcmp(errstr, "invalid") == 0)
		return conf_fail(p, p->line, "%s: invalid duration '%s' (a "
		    "whole number with a unit ms, s, m, h or d)", key, val);
	if (strcmp(errstr, "too small") == 0)
		return conf_fail(p, p->line, "%s: %s is too small (minimum %s)",
		    key, val, lo);
	return conf_fail(p, p->line, "%s: %s is too large (maximum %s)", key,
	    val, hi);
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
		return conf_fail(p, p->line, "unknown key '%s' in [%s]", key,
		    section);
	/* allow may be given on several lines: the lists add up. */
	if ((p->seen & (1U << i)) && strcmp(key, "allow") != 0)
		return conf_fail(p, p->line, "'%s' set twice in [%s]", key,
		    section);
	list = strcmp(key, "allow") == 0 || strcmp(key, "peers") == 0 ||
	    strcmp(key, "prefer") == 0 || strcmp(key, "endpoints") == 0;
	for (; *val != '\0'; val++)
		if (((unsigned char)*val < 0x20 && !(list && *val == '\t')) ||
		    *val == 0x7f)
			return conf_fail(p, p->line, "%s: control character "
			    "0x%02x in the value", key, (unsigned char)*val);
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
			return conf_fail(p, p->line, "node: invalid name '%s' "
			    "(letters, digits, '.', '_', '-'; at most %d)",
			    val, PG_NAME_MAX);
		return copy(p, cfg->node, sizeof(cfg->node), val, key);
	case 1:
		if (val[0] != '/')
			return conf_fail(p, p->line, "state: '%s' is not an "
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
			return conf_fail(p, p->line, "settle: %s is too small "
			    "(0 turns it off; else at least 100ms)", val);
		return 1;
	}
}

/* An HTTP Basic user name: a ':' would end it early. */
static int
basic_user(struct parse *p, char *dst, size_t len, const char *val)
{
	if (strchr(val, ':') != NULL)
		return conf_fail(p, p->line, "user: must not contain ':'");
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
		if (conf_url_check(val, why, sizeof(why)) == -1)
			return conf_fail(p, p->line, "url: '%s': %s", val, why);
		return copy(p, peer->url, sizeof(peer->url), val, key);
	case 1:
		return basic_user(p, peer->user, sizeof(peer->user), val);
	case 2:
		p->has_password = 1;
		return copy(p, peer->password, sizeof(peer->password), val,
		    key);
	default:
		if (val[0] != '/')
			return conf_fail(p, p->line, "cafile: '%s' is not an "
			    "absolute path", val);
		return copy(p, peer->cafile, sizeof(peer->cafile), val, key);
	}
}


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
			return conf_fail(p, p->line, "prefer: no names");
		p->preferlines[p->cfg->nclusters - 1] = p->line;
		return copy(p, c->prefer, sizeof(c->prefer), val, "prefer");
	case 1:
		if (strcmp(val, "yes") == 0)
			c->failback = 1;
		else if (strcmp(val, "no") == 0)
			c->failback = 0;
		else
			return conf_fail(p, p->line, "failback: '%s' is "
			    "neither 'yes' nor 'no'", val);
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
			return conf_fail(p, p->line, "peers: separators but no "
			    "names (an empty value means no peers)");
		if ((p->peerlists[i] = strdup(val)) == NULL)
			return conf_fail(p, p->line, "%s", strerror(errno));
		p->peerlines[i] = p->line;
		return 1;
	case 3:
		if (strcmp(val, "run") == 0)
			c->unreachable = PG_UNREACHABLE_RUN;
		else if (strcmp(val, "skip") == 0)
			c->unreachable = PG_UNREACHABLE_SKIP;
		else
			return conf_fail(p, p->line, "unreachable: '%s' is "
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
			return conf_fail(p, p->line, "on_failure: '%s' is "
			    "neither 'handover' nor 'stay'", val);
		return 1;
	case 7:
		return duration(p, key, val, 0, PG_WAIT_MAX_MS,
		    &c->cooldown_ms);
	case 11:	/* checked as a peer's url is */
		if (conf_url_check(val, why, sizeof(why)) == -1)
			return conf_fail(p, p->line, "ping: '%s': %s", val,
			    why);
		return copy(p, c->ping, sizeof(c->ping), val, key);
	case 12:
		return duration(p, key, val, 100, PG_PING_TIMEOUT_MAX_MS,
		    &c->ping_timeout_ms);
	default:
		return prefer_key(p, c, k - 8, val);
	}
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
			return conf_fail(p, p->line, "listen: '%s' is not "
			    "ADDR:PORT, [ADDR]:PORT or :PORT (%s)", val, why);
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
			return conf_fail(p, p->line, "allow: separators but no "
			    "address");
		for (tok = strtok_r(list, SEPARATORS, &last); tok != NULL;
		    tok = strtok_r(NULL, SEPARATORS, &last)) {
			if (sv->nallow == PG_ALLOW_MAX)
				return conf_fail(p, p->line, "allow: more than "
				    "%d entries", PG_ALLOW_MAX);
			errno = 0;	/* EDOM: the one reason told apart */
			if (pg_net_parse(tok, &sv->allow[sv->nallow]) == -1)
				return conf_fail(p, p->line, errno == EDOM ?
				    "allow: '%s': an IPv4-mapped range needs "
				    "a prefix of 96 or more" : "allow: '%s' is "
				    "not an address or CIDR range", tok);
			sv->nallow++;
		}
		return 1;
	case 4:
		if (!conf_user_name_valid(val))
			return conf_fail(p, p->line, "run_as: invalid user "
			    "name '%s'", val);
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
			return conf_fail(p, p->line, "backend: '%s' is neither "
			    "'peers' nor 'etcd'", val);
		return 1;
	}
	if (strcmp(val, "kill") == 0)
		c->on_lease_lost = PG_LEASE_LOST_KILL;
	else if (strcmp(val, "warn") == 0)
		c->on_lease_lost = PG_LEASE_LOST_WARN;
	else
		return conf_fail(p, p->line, "on_lease_lost: '%s' is neither "
		    "'kill' nor 'warn'", val);
	return 1;
}

/* cafile, cert, key: absolute paths, read by libcurl at each run. */
static int
etcd_path(struct parse *p, char *dst, size_t len, const char *key,
    const char *val)
{
	if (val[0] != '/')
		return conf_fail(p, p->line, "%s: '%s' is not an absolute path",
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
				return conf_fail(p, p->line, "endpoints: more "
				    "than %d", PG_ETCD_ENDPOINTS_MAX);
			if (conf_url_check(tok, why, sizeof(why)) == -1)
				return conf_fail(p, p->line, "endpoints: '%s': "
				    "%s", tok, why);
			for (i = 0; i < e->nendpoints; i++)
				if (strcmp(e->endpoints[i], tok) == 0)
					return conf_fail(p, p->line,
					    "endpoints: '%s' listed twice",
					    tok);
			strlcpy(e->endpoints[e->nendpoints++], tok,
			    sizeof(e->endpoints[0]));
		}
		if (e->nendpoints == 0)
			return conf_fail(p, p->line, "endpoints: separators "
			    "but no URL");
		return 1;
	case 1:
		/* Printable, no blank: the key is PREFIX followed by the ID. */
		if (val[0] != '/' || strlen(val) > 128 ||
		    strpbrk(val, " \t") != NULL)
			return conf_fail(p, p->line, "prefix: '%s' is not a "
			    "path starting with '/', without blanks, of at "
			    "most 128 characters", val);
		for (i = 0; val[i] != '\0'; i++)
			if ((unsigned char)val[i] > 0x7e)
				return conf_fail(p, p->line, "prefix: byte "
				    "0x%02x is not printable ASCII",
				    (unsigned char)val[i]);
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

int
conf_key(struct parse *p, const char *key, const char *val)
{
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
		return conf_fail(p, p->line, "'%s' before the first [section]",
		    key);
	}
}
