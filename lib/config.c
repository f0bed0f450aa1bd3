/* SPDX-License-Identifier: ISC */
/*
 * config.c: pg_config_load reads pollguard.conf(5) in full, so that the
 * tools never act on a half-understood file: its lines, its sections and
 * what needs the whole file. The keys and their values: confkey.c.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <ini.h>

#include "conf-int.h"
#include "decide.h"

/* An etcd cluster asks no peers; [etcd] gets its defaults. */
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
			return conf_fail(p, c->line, "[cluster %s] has backend "
			    "= etcd but %s", c->id, e->line ? "[etcd] has no "
			    "endpoints" : "there is no [etcd] section");
		if (p->peerlines[i] != 0)
			return conf_fail(p, p->peerlines[i], "peers: not used "
			    "by a cluster with backend = etcd");
		c->npeers = 0;
	}
	if (e->line == 0)
		return 1;
	if (e->nendpoints == 0)
		return conf_fail(p, e->line, "[etcd] has no endpoints");
	if ((e->user[0] == '\0') != (e->password[0] == '\0'))
		return conf_fail(p, e->line, "[etcd] needs both user and "
		    "password, or neither");
	if ((e->cert[0] == '\0') != (e->key[0] == '\0'))
		return conf_fail(p, e->line, "[etcd] needs both cert and key, "
		    "or neither");
	if (e->prefix[0] == '\0')
		strlcpy(e->prefix, "/pollguard/", sizeof(e->prefix));
	if (e->timeout_ms == 0)
		e->timeout_ms = cfg->timeout_ms;
	return 1;
}

static int
grow(struct parse *p, void *arrp, size_t n, size_t size)
{
	void	**arr = arrp, *na;

	if ((na = reallocarray(*arr, n + 1, size)) == NULL)
		return conf_fail(p, p->line, "%s", strerror(errno));
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
		return conf_fail(p, p->line, "invalid peer name '%s' (letters, "
		    "digits, '.', '_', '-'; at most %d)", name, PG_NAME_MAX);
	for (i = 0; i < cfg->npeers; i++)
		if (strcasecmp(cfg->peers[i].name, name) == 0)
			return conf_fail(p, p->line, "[peer %s] repeats line "
			    "%d", name, cfg->peers[i].line);
	if (cfg->npeers == PG_PEERS_MAX)
		return conf_fail(p, p->line, "more than %d peers",
		    PG_PEERS_MAX);
	if (!grow(p, &cfg->peers, cfg->npeers, sizeof(*cfg->peers)))
		return 0;
	strlcpy(cfg->peers[cfg->npeers].name, name,
	    sizeof(cfg->peers[0].name));
	cfg->peers[cfg->npeers].line = p->line;
	p->sec = SEC_PEER;
	p->base = &cfg->peers[cfg->npeers++];
	snprintf(p->label, sizeof(p->label), "peer %s", name);
	return 1;
}

static int
new_cluster(struct parse *p, const char *id)
{
	struct pg_config	*cfg = p->cfg;
	size_t			 i, n = cfg->nclusters;

	if (!pg_cluster_id_valid(id))
		return conf_fail(p, p->line, "invalid cluster ID '%s' "
		    "(letters, digits, '.', '_', '-', not starting with '.' or "
		    "'-'; at most %d)", id, PG_NAME_MAX);
	for (i = 0; i < n; i++)
		if (strcmp(cfg->clusters[i].id, id) == 0)
			return conf_fail(p, p->line, "[cluster %s] repeats "
			    "line %d", id, cfg->clusters[i].line);
	if (n == PG_CLUSTERS_MAX)
		return conf_fail(p, p->line, "more than %d clusters",
		    PG_CLUSTERS_MAX);
	if (!grow(p, &cfg->clusters, n, sizeof(*cfg->clusters)))
		return 0;
	strlcpy(cfg->clusters[n].id, id, sizeof(cfg->clusters[0].id));
	cfg->clusters[n].line = p->line;
	cfg->clusters[n].kill_after_ms = 10 * 1000;
	cfg->clusters[n].ping_timeout_ms = PG_PING_TIMEOUT_MAX_MS;
	cfg->clusters[n].cooldown_ms = -1;	/* not set: the wait */
	cfg->clusters[n].failback = 1;
	cfg->clusters[n].failback_after_ms = -1;	/* not set: the wait */
	cfg->nclusters++;
	p->sec = SEC_CLUSTER;
	p->base = &cfg->clusters[n];
	snprintf(p->label, sizeof(p->label), "cluster %s", id);
	return 1;
}

static int
single(struct parse *p, const char *name, enum section sec, int *line,
    void *base)
{
	if (*line)
		return conf_fail(p, p->line, "[%s] repeats line %d", name,
		    *line);
	*line = p->line;
	p->sec = sec;
	p->base = base;
	strlcpy(p->label, name, sizeof(p->label));
	return 1;
}

/* A section header "[...]" starting at column 0 of the current line. */
static int
section(struct parse *p, const char *line)
{
	struct pg_config	*cfg = p->cfg;
	char			 name[PG_VALUE_MAX], *sp, *arg = NULL;
	const char		*end;
	size_t			 n;

	if ((end = strchr(line, ']')) == NULL)
		return conf_fail(p, p->line, "section header without ']'");
	if ((n = end - line - 1) >= sizeof(name))
		return conf_fail(p, p->line, "section header too long");
	memcpy(name, line + 1, n);
	name[n] = '\0';
	end += 1 + strspn(end + 1, " \t\r\n");
	if (strchr(";#", *end) == NULL)
		return conf_fail(p, p->line, "text after the section header");
	p->seen = 0;
	if ((sp = strchr(name, ' ')) != NULL) {
		*sp = '\0';
		arg = sp + 1 + strspn(sp + 1, " \t");
	}
	if (strcmp(name, "pollguard") == 0 && arg == NULL)
		return single(p, name, SEC_GLOBAL, &p->seen_global, cfg);
	if (strcmp(name, "serve") == 0 && arg == NULL)
		return single(p, name, SEC_SERVE, &p->seen_serve, &cfg->serve);
	if (strcmp(name, "etcd") == 0 && arg == NULL)
		return single(p, name, SEC_ETCD, &cfg->etcd.line, &cfg->etcd);
	if (strcmp(name, "peer") == 0 && arg != NULL)
		return new_peer(p, arg);
	if (strcmp(name, "cluster") == 0 && arg != NULL)
		return new_cluster(p, arg);
	return conf_fail(p, p->line, "unknown section [%.*s] (expected "
	    "[pollguard], [serve], [etcd], [peer NAME] or [cluster ID])",
	    (int)n, line + 1);
}

/*
 * Debian's inih gives conf_key no line number nor empty sections,
 * splits long lines silently and joins an indented line to the value
 * before: this reader counts lines, sees sections, refuses the rest.
 */
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
			conf_fail(p, p->line + 1, "NUL byte");
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
		conf_fail(p, p->line, "line longer than %d characters",
		    size - 1);
		return NULL;
	}
	line = buf;
	if (p->line == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0)
		line += 3;	/* inih skips a UTF-8 byte order mark */
	n = strspn(line, " \t");
	if (line[0] == '[')
		section(p, line);
	else if (n > 0 && strchr(";#\r\n", line[n]) == NULL)
		conf_fail(p, p->line, "line starts with white space (inih "
		    "would read it as part of the previous value)");
	else if (strchr(";#\r\n", line[0]) == NULL &&
	    line[strcspn(line, "=:")] == ':')
		conf_fail(p, p->line, "expected key = value, not key: value");
	return p->failed ? NULL : buf;
}

/*
 * Within it peers see a claim's age (doc/PROTOCOL.md): waits are longer.
 * Each cluster's prefer_slack_ms derives from it.
 */
static int
check_horizon(struct parse *p)
{
	struct pg_config	*cfg = p->cfg;
	struct pg_cluster	*c;
	int64_t			 horizon;
	char			 h[PG_DURATION_MAX], w[PG_DURATION_MAX];
	size_t			 i;

	horizon = pg_claim_horizon(cfg->timeout_ms, cfg->settle_ms);
	for (i = 0; i < cfg->nclusters; i++) {
		c = &cfg->clusters[i];
		c->prefer_slack_ms = horizon < c->wait_ms / 4 ? horizon :
		    c->wait_ms / 4;
		if (cfg->settle_ms > 0 && c->npeers > 0 &&
		    c->wait_ms <= horizon)
			return conf_fail(p, c->line, "[cluster %s]: wait %s is "
			    "not longer than the claim horizon %s (2 x timeout "
			    "+ 1.5 x settle + 1s); raise wait or lower timeout "
			    "or settle", c->id, pg_duration_text(c->wait_ms, w),
			    pg_duration_text(horizon, h));
	}
	return 1;
}

/*
 * Cluster i's prefer names this node or its peers, once each; kept as
 * spelt, joined by commas, as peers compare it (without case).
 */
static int
prefer_list(struct parse *p, size_t i)
{
	struct pg_config	*cfg = p->cfg;
	struct pg_cluster	*c = &cfg->clusters[i];
	char			 out[PG_VALUE_MAX];
	char			*tok, *last;
	unsigned char		 named[PG_PEERS_MAX + 1];
	size_t			 k;

	if (c->prefer[0] == '\0')
		return 1;
	/* etcd orders such a cluster: no peer ever sees a preference. */
	if (c->backend == PG_BACKEND_ETCD)
		return conf_fail(p, p->preferlines[i], "prefer: not with "
		    "backend = etcd in [cluster %s]", c->id);
	out[0] = '\0';
	memset(named, 0, sizeof(named));
	for (tok = strtok_r(c->prefer, SEPARATORS, &last); tok != NULL;
	    tok = strtok_r(NULL, SEPARATORS, &last)) {
		for (k = 0; k < c->npeers; k++)
			if (strcasecmp(cfg->peers[c->peers[k]].name, tok) == 0)
				break;
		if (k == c->npeers && strcasecmp(tok, cfg->node) != 0)
			return conf_fail(p, p->preferlines[i], "prefer: %s is "
			    "neither this node (%s) nor a peer of [cluster %s]",
			    tok, cfg->node, c->id);
		/* k: the peer, or c->npeers for this node (never a peer). */
		if (named[k]++)
			return conf_fail(p, p->preferlines[i], "prefer: %s "
			    "listed twice", tok);
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
	unsigned char		 named[PG_PEERS_MAX];
	size_t			 i, j;

	if (cfg->node[0] == '\0') {
		if (gethostname(host, sizeof(host)) == -1)
			return conf_fail(p, 0, "gethostname: %s",
			    strerror(errno));
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		if (!pg_peer_name_valid(host))
			return conf_fail(p, 0, "host name '%s' is not a valid "
			    "node name; set node in [pollguard]", host);
		strlcpy(cfg->node, host, sizeof(cfg->node));
	}
	/* The default connect_timeout never exceeds a shorter timeout. */
	if (cfg->connect_timeout_ms > cfg->timeout_ms && p->connect_line == 0)
		cfg->connect_timeout_ms = cfg->timeout_ms;
	if (cfg->connect_timeout_ms > cfg->timeout_ms)
		return conf_fail(p, p->connect_line, "connect_timeout %lldms "
		    "is longer than timeout %lldms",
		    (long long) cfg->connect_timeout_ms,
		    (long long)cfg->timeout_ms);
	for (i = 0; i < cfg->npeers; i++) {
		if (cfg->peers[i].url[0] == '\0')
			return conf_fail(p, cfg->peers[i].line, "[peer %s] has "
			    "no url", cfg->peers[i].name);
		if ((cfg->peers[i].user[0] == '\0') !=
		    (cfg->peers[i].password[0] == '\0'))
			return conf_fail(p, cfg->peers[i].line, "[peer %s] "
			    "needs both user and password, or neither",
			    cfg->peers[i].name);
	}
	if ((cfg->serve.user[0] == '\0') != (cfg->serve.password[0] == '\0'))
		return conf_fail(p, p->seen_serve, "[serve] needs both user "
		    "and password, or neither");
	for (i = 0; i < cfg->nclusters; i++) {
		c = &cfg->clusters[i];
		if (c->wait_ms == 0)
			return conf_fail(p, c->line, "[cluster %s] has no wait",
			    c->id);
		if (c->cooldown_ms == -1)
			c->cooldown_ms = c->wait_ms;
		if (c->failback_after_ms == -1)
			c->failback_after_ms = c->wait_ms;
		if ((c->peers = calloc(cfg->npeers + 1, sizeof(*c->peers))) ==
		    NULL)
			return conf_fail(p, 0, "%s", strerror(errno));
		if (p->peerlists[i] == NULL) {
			for (j = 0; j < cfg->npeers; j++)
				if (strcasecmp(cfg->peers[j].name,
				    cfg->node) != 0)
					c->peers[c->npeers++] = j;
			continue;
		}
		memset(named, 0, sizeof(named));
		for (tok = strtok_r(p->peerlists[i], SEPARATORS, &last);
		    tok != NULL; tok = strtok_r(NULL, SEPARATORS, &last)) {
			for (j = 0; j < cfg->npeers; j++)
				if (strcasecmp(cfg->peers[j].name, tok) == 0)
					break;
			if (j == cfg->npeers)
				return conf_fail(p, p->peerlines[i], "peers: "
				    "no [peer %s] in this file", tok);
			if (named[j]++)
				return conf_fail(p, p->peerlines[i],
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
	char			 terr[PG_ERR_MAX];
	size_t			 i;
	int			 fd, r;

	if (path[0] == '\0' || strlen(path) >= sizeof(cfg->path)) {
		snprintf(err, errlen, "config file name %s", path[0] == '\0' ?
		    "is empty" : "too long");
		return -1;
	}
	if ((cfg = calloc(1, sizeof(*cfg))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.err = err;
	p.errlen = errlen;
	strlcpy(cfg->path, path, sizeof(cfg->path));
	strlcpy(cfg->state, PG_STATE_DEFAULT, sizeof(cfg->state));
	cfg->timeout_ms = 2000;
	cfg->connect_timeout_ms = 1000;
	cfg->settle_ms = 500;
	cfg->serve.backlog = 1024;
	cfg->serve.max_conn = 1024;

	/*
	 * O_NONBLOCK: a FIFO named as the config must not hang the tool.
	 * Trusted, walked from / (pollguard.conf(5), SECURITY): whoever can
	 * change the file names the files that the tools replace.
	 */
	if ((fd = pg_trust_open(path, PG_TRUST_REG, O_RDONLY | O_NOCTTY |
	    O_NONBLOCK, NULL, NULL, terr, sizeof(terr))) == -1)
		conf_fail(&p, 0, "%s%s", terr, errno != ENOENT ? "" : "; name "
		    "the configuration file with -c file or " PG_CONF_ENV);
	else if (fstat(fd, &sb) == -1)
		conf_fail(&p, 0, "%s", strerror(errno));
	else if ((p.fp = fdopen(fd, "r")) == NULL)
		conf_fail(&p, 0, "%s", strerror(errno));
	if (p.failed)
		goto out;
	r = ini_parse_stream(reader, &p, conf_key, &p);
	if (!p.failed && ferror(p.fp))
		conf_fail(&p, 0, "read error");
	if (r > 0 && (!p.failed || r < p.errline)) {
		p.failed = 0;
		conf_fail(&p, r, "syntax error (expected [section] or key = "
		    "value)");
	}
	if (!p.failed && r < 0)
		conf_fail(&p, 0, "out of memory");
	if (!p.failed)
		finish(&p);
	/* Group-readable is fine: root:pollguard 0640 for a dropped serve. */
	if (!p.failed && p.has_password && (sb.st_mode & S_IROTH))
		conf_fail(&p, 0, "contains passwords but is readable by others "
		    "(mode %04o); run: chmod o-r %s",
		    (unsigned int)(sb.st_mode & 07777), path);
out:
	if (p.fp != NULL)
		fclose(p.fp);
	else if (fd != -1)
		close(fd);
	for (i = 0; i < cfg->nclusters; i++)
		free(p.peerlists[i]);
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

const struct pg_cluster *
pg_config_find(const struct pg_config *cfg, const char *id, char *err,
    size_t errlen)
{
	const struct pg_cluster	*c;
	const char		*best = NULL;
	char			 list[PG_ERR_MAX / 2];
	size_t			 i, len;
	int			 d, bestd = -1, full = 0;

	if ((c = pg_config_cluster(cfg, id)) != NULL)
		return c;
	strlcpy(list, cfg->nclusters == 0 ? "; it has no [cluster] section" :
	    " (clusters:", sizeof(list));
	for (i = 0; i < cfg->nclusters; i++) {
		if ((d = conf_near(id, cfg->clusters[i].id)) != -1 &&
		    (bestd == -1 || d < bestd)) {
			bestd = d;
			best = cfg->clusters[i].id;
		}
		/* As many as fit, with room left for " ...)". */
		len = strlen(list);
		if (full || len + strlen(cfg->clusters[i].id) + 8 >
		    sizeof(list)) {
			if (!full++)
				strlcat(list, " ...", sizeof(list));
			continue;
		}
		snprintf(list + len, sizeof(list) - len, "%s %s", i > 0 ?
		    "," : "", cfg->clusters[i].id);
	}
	if (cfg->nclusters > 0)
		strlcat(list, ")", sizeof(list));
	snprintf(err, errlen, "%s: no [cluster %s]%s%s%s%s", cfg->path, id,
	    best != NULL ? "; did you mean '" : "", best != NULL ? best : "",
	    best != NULL ? "'?" : "", list);
	return NULL;
}
