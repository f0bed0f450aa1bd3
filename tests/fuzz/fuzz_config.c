/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the config loader. The input is the contents of a config
 * file. pg_config_load reads files only by name, and only files it can
 * trust (lib/trust.c: a regular file that no one but root or the user
 * running it can change, in directories no one else can write), so the
 * input goes into a file of mode 0600 in a directory of its own, mode
 * 0700, made in $TMPDIR or else /tmp: the real trust walk, open, fstat,
 * stdio reading, line reader, inih and every key's validation run. The
 * loader reads nothing else (no includes, no password files); with no
 * node set it asks gethostname. (A memfd, as /proc/self/fd/N, is a link
 * the trust walk cannot follow: every input would fail at the open, and
 * the target would fuzz nothing.) At start a known-good config must
 * load, or the target exits 1 with the loader's message.
 *
 * Invariants: a failure has a message that names the file; a success has
 * a config that keeps every promise pollguard.conf(5) makes: valid
 * names, IDs unique, durations within their bounds, peer lists that refer
 * to peers and leave out this node, credentials in pairs, a wait longer
 * than the claim horizon, allow ranges with their host bits clear, peer
 * URLs with a host and a port from 1 to 65535 and no user information,
 * query, fragment or white space, and every string terminated and free
 * of control characters (passwords included). Each cluster can be looked
 * up by its ID, as the tools do.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <strings.h>
#include <unistd.h>

#include "pollguard.h"
#include "fuzz.h"

static char	 dir[PATH_MAX];
static char	 path[PATH_MAX];

static void
cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

/* path, truncated and filled with data: aborts when it cannot. */
static void
put(const uint8_t *data, size_t size)
{
	size_t		 off = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		abort();
	while (off < size) {
		if ((n = write(fd, data + off, size - off)) == -1) {
			if (errno == EINTR)
				continue;
			abort();
		}
		off += n;
	}
	if (close(fd) == -1)
		abort();
}

/* A private directory under base that the loader trusts: 0, or -1. */
static int
setup(const char *base, char *err, size_t errlen)
{
	static const char	 good[] = "[cluster fuzz]\nwait = 1m\n";
	struct pg_config	*cfg = NULL;

	if (snprintf(dir, sizeof(dir), "%s/fuzz_config.XXXXXX", base) >=
	    (int)sizeof(dir) || mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "%s: mkdtemp: %s", base,
		    strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/pollguard.conf", dir);
	put((const uint8_t *)good, sizeof(good) - 1);
	if (pg_config_load(path, &cfg, err, errlen) == -1) {
		cleanup();
		return -1;
	}
	pg_config_free(cfg);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*tmp = getenv("TMPDIR");
	char		 err[PG_ERR_MAX], err2[PG_ERR_MAX];

	(void)argc;
	(void)argv;
	umask(077);
	if ((tmp == NULL || tmp[0] != '/' || setup(tmp, err, sizeof(err)) ==
	    -1) && setup("/tmp", err2, sizeof(err2)) == -1) {
		fprintf(stderr, "fuzz_config: a good config does not load, "
		    "so no input would: %s%s%s\n", tmp != NULL &&
		    tmp[0] == '/' ? err : "", tmp != NULL && tmp[0] == '/' ?
		    "; " : "", err2);
		exit(1);
	}
	atexit(cleanup);
	return 0;
}

#define STR_OK(s)	(terminated((s), sizeof(s)) && printable(s))

static void
check_duration(const char *what, int64_t ms, int64_t min, int64_t max)
{
	check(ms >= min && ms <= max, "%s %lld out of %lld..%lld", what,
	    (long long)ms, (long long)min, (long long)max);
}

static void
check_net(const struct pg_net *n)
{
	unsigned int	 max, i;

	check(n->family == AF_INET || n->family == AF_INET6, "allow family");
	max = n->family == AF_INET ? 32 : 128;
	check(n->prefix <= max, "allow prefix %u", n->prefix);
	for (i = n->prefix; i < max; i++)
		check((n->addr[i / 8] & (0x80 >> (i % 8))) == 0,
		    "allow: host bit %u set", i);
	check(pg_net_match(n, n->family, n->addr), "allow misses itself");
}

/* The parts of a URL that pg_config_load promises: url() in lib/confkey.c. */
static void
check_url(const char *url, size_t size)
{
	const char	*host, *path, *port;
	long		 n;

	check(terminated(url, size) && printable(url) && strpbrk(url, " ?#") ==
	    NULL, "url '%s'", url);
	if (strncasecmp(url, "http://", 7) == 0)
		host = url + 7;
	else {
		check(strncasecmp(url, "https://", 8) == 0, "url scheme '%s'",
		    url);
		host = url + 8;
	}
	path = host + strcspn(host, "/");
	check(path > host && *host != ':' && memchr(host, '@', path - host) ==
	    NULL, "url host '%s'", url);
	check(*path == '\0' || *path == '/', "url path '%s'", url);
	port = host[0] == '[' ? memchr(host, ']', path - host) : host;
	check(port != NULL, "url '[' without ']' '%s'", url);
	port += strcspn(port, ":/");
	if (*port == ':') {
		n = strtol(port + 1, NULL, 10);
		check(n >= 1 && n <= 65535 && (size_t)(path - port - 1) ==
		    strspn(port + 1, "0123456789"), "url port '%s'", url);
	}
}

static void
check_config(const struct pg_config *cfg)
{
	const struct pg_cluster	*c;
	const struct pg_peer	*p;
	size_t			 i, j;
	int64_t			 horizon;
	char			 asked[PG_PEERS_MAX];

	check(strcmp(cfg->path, path) == 0, "path %s", cfg->path);
	check(pg_peer_name_valid(cfg->node), "node '%s'", cfg->node);
	check(STR_OK(cfg->state) &&
	    cfg->state[0] == '/', "state '%s'", cfg->state);
	check_duration("timeout", cfg->timeout_ms, 100, 60000);
	check_duration("connect_timeout", cfg->connect_timeout_ms, 10,
	    cfg->timeout_ms);
	check(cfg->settle_ms == 0 || (cfg->settle_ms >= 100 &&
	    cfg->settle_ms <= 10000), "settle %lld",
	    (long long)cfg->settle_ms);
	check(cfg->npeers <= PG_PEERS_MAX && cfg->nclusters <=
	    PG_CLUSTERS_MAX, "%zu peers, %zu clusters", cfg->npeers,
	    cfg->nclusters);

	for (i = 0; i < cfg->npeers; i++) {
		p = &cfg->peers[i];
		check(pg_peer_name_valid(p->name), "peer '%s'", p->name);
		for (j = 0; j < i; j++)
			check(strcasecmp(p->name, cfg->peers[j].name) != 0,
			    "peer %s twice", p->name);
		check_url(p->url, sizeof(p->url));
		check(STR_OK(p->user) && strchr(p->user, ':') == NULL,
		    "user '%s'", p->user);
		check(STR_OK(p->password), "password not terminated or with "
		    "a control character");
		check((p->user[0] == '\0') == (p->password[0] == '\0'),
		    "peer %s: user without password", p->name);
		check(STR_OK(p->cafile) &&
		    (p->cafile[0] == '\0' || p->cafile[0] == '/'),
		    "cafile '%s'", p->cafile);
		check(p->line > 0, "peer line %d", p->line);
	}

	horizon = pg_claim_horizon(cfg->timeout_ms, cfg->settle_ms);
	for (i = 0; i < cfg->nclusters; i++) {
		c = &cfg->clusters[i];
		check(pg_cluster_id_valid(c->id), "cluster '%s'", c->id);
		check(pg_config_cluster(cfg, c->id) == c, "lookup of %s",
		    c->id);
		check(STR_OK(c->name), "name of %s", c->id);
		check_duration("wait", c->wait_ms, PG_WAIT_MIN_MS,
		    PG_WAIT_MAX_MS);
		check(c->unreachable == PG_UNREACHABLE_RUN || c->unreachable ==
		    PG_UNREACHABLE_SKIP, "unreachable %d", (int)c->unreachable);
		check(c->npeers <= cfg->npeers, "%zu peers", c->npeers);
		memset(asked, 0, sizeof(asked));
		for (j = 0; j < c->npeers; j++) {
			check(c->peers[j] < cfg->npeers, "peer index %zu",
			    c->peers[j]);
			check(strcasecmp(cfg->peers[c->peers[j]].name,
			    cfg->node) != 0, "%s asks itself", c->id);
			check(!asked[c->peers[j]], "a peer twice in %s",
			    c->id);
			asked[c->peers[j]] = 1;
		}
		if (c->npeers > 0 && cfg->settle_ms > 0)
			check(c->wait_ms > horizon, "%s: wait %lld within the "
			    "horizon %lld", c->id, (long long)c->wait_ms,
			    (long long)horizon);
		check(c->line > 0, "cluster line %d", c->line);
	}

	check(STR_OK(cfg->serve.listen) && STR_OK(cfg->serve.user) &&
	    strchr(cfg->serve.user, ':') == NULL, "[serve] strings");
	check(STR_OK(cfg->serve.password), "[serve] password not terminated "
	    "or with a control character");
	check((cfg->serve.user[0] == '\0') == (cfg->serve.password[0] ==
	    '\0'), "[serve] user without password");
	check(STR_OK(cfg->serve.run_as), "run_as");
	check(cfg->serve.nallow <= PG_ALLOW_MAX, "%zu allow entries",
	    cfg->serve.nallow);
	for (i = 0; i < cfg->serve.nallow; i++)
		check_net(&cfg->serve.allow[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_config	*cfg = NULL;
	char			 err[PG_ERR_MAX];

	put(data, size);
	memset(err, 0x55, sizeof(err));
	if (pg_config_load(path, &cfg, err, sizeof(err)) == -1) {
		check(terminated(err, sizeof(err)), "error not terminated");
		check(strncmp(err, path, strlen(path)) == 0 &&
		    err[strlen(path)] == ':', "error does not name the file: "
		    "%s", err);
		check(strlen(err) > strlen(path) + 2, "empty error");
		return 0;
	}
	check(cfg != NULL, "success without a config");
	check_config(cfg);
	pg_config_free(cfg);
	return 0;
}
