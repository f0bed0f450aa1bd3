/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for config.c: pg_config_load and friends, pg_net_parse and
 * pg_net_match. Config files are written into a fresh mkdtemp directory.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf-int.h"
#include "pollguard.h"
#include "tap.h"

static char	 dir[256];
static char	 path[PATH_MAX];
static char	 errbuf[PG_ERR_MAX];
static int	 nfiles;

static void
cleanup(void)
{
	char	 p[PATH_MAX];
	int	 i;

	for (i = 1; i <= nfiles; i++) {
		snprintf(p, sizeof(p), "%s/c%04d.conf", dir, i);
		unlink(p);
	}
	rmdir(dir);
}

/* Write a config file of len bytes with mode; its name goes to path. */
static const char *
conf_write_len(const char *text, size_t len, mode_t mode)
{
	int	 fd;

	snprintf(path, sizeof(path), "%s/c%04d.conf", dir, ++nfiles);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1)
		err(1, "%s", path);
	if (write(fd, text, len) != (ssize_t)len)
		err(1, "write %s", path);
	if (fchmod(fd, mode) == -1)
		err(1, "chmod %s", path);
	close(fd);
	return path;
}

static const char *
conf_write(const char *text, mode_t mode)
{
	return conf_write_len(text, strlen(text), mode);
}

static struct pg_config *
load_mode(const char *text, mode_t mode, const char *name)
{
	struct pg_config	*cfg = NULL;
	int			 r;

	conf_write(text, mode);
	errbuf[0] = '\0';
	r = pg_config_load(path, &cfg, errbuf, sizeof(errbuf));
	if (!is_int(r, 0, "%s: loads", name))
		diag("error: %s", errbuf);
	return r == 0 ? cfg : NULL;
}

static struct pg_config *
load(const char *text, const char *name)
{
	return load_mode(text, 0600, name);
}

/* The file is refused with "PATH:LINE:" and, when given, part. */
static void
refuse_len(const char *text, size_t len, mode_t mode, int line,
    const char *part, const char *name)
{
	struct pg_config	*cfg = NULL;
	char			 want[PATH_MAX + 32];
	int			 r;

	conf_write_len(text, len, mode);
	strlcpy(errbuf, "(unset)", sizeof(errbuf));
	r = pg_config_load(path, &cfg, errbuf, sizeof(errbuf));
	is_int(r, -1, "%s: refused", name);
	if (r == 0) {
		pg_config_free(cfg);
		errbuf[0] = '\0';
	}
	if (line > 0)
		snprintf(want, sizeof(want), "%s:%d: ", path, line);
	else
		snprintf(want, sizeof(want), "%s: ", path);
	like(errbuf, want, "%s: message names the file and line %d", name,
	    line);
	if (part != NULL)
		like(errbuf, part, "%s: message says \"%s\"", name, part);
}

static void
refuse(const char *text, int line, const char *part, const char *name)
{
	refuse_len(text, strlen(text), 0600, line, part, name);
}

/* The cluster's peers by name, sorted, joined with ','. */
static const char *
peer_names(const struct pg_config *cfg, const struct pg_cluster *c)
{
	static char	 buf[1024];
	const char	*names[PG_PEERS_MAX];
	const char	*t;
	size_t		 i, j;

	buf[0] = '\0';
	if (c == NULL)
		return "(no cluster)";
	for (i = 0; i < c->npeers && i < PG_PEERS_MAX; i++) {
		if (c->peers[i] >= cfg->npeers)
			return "(index out of range)";
		names[i] = cfg->peers[c->peers[i]].name;
	}
	for (i = 1; i < c->npeers; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (i = 0; i < c->npeers; i++) {
		if (i > 0)
			strlcat(buf, ",", sizeof(buf));
		strlcat(buf, names[i], sizeof(buf));
	}
	return buf;
}

static const char *
short_hostname(void)
{
	static char	 host[256];

	if (gethostname(host, sizeof(host)) == -1)
		return NULL;
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	return host;
}

static void
test_defaults(void)
{
	struct pg_config	*cfg;
	const struct pg_cluster	*c;
	const char		*host;

	cfg = load("[cluster mail]\nwait = 10m\n", "defaults");
	if (cfg == NULL)
		return;
	is_str(cfg->path, path, "defaults: path");
	is_str(cfg->state, "/var/lib/pollguard", "defaults: state");
	is_str(cfg->state, PG_STATE_DEFAULT, "defaults: state is "
	    "PG_STATE_DEFAULT");
	is_int(cfg->timeout_ms, 2000, "defaults: timeout");
	is_int(cfg->connect_timeout_ms, 1000, "defaults: connect_timeout");
	is_int(cfg->settle_ms, 500, "defaults: settle");
	host = short_hostname();
	ok(host != NULL, "gethostname works");
	if (host != NULL)
		is_str(cfg->node, host,
		    "defaults: node is the short host name");
	is_int(cfg->npeers, 0, "defaults: no peers");
	if (!is_int(cfg->nclusters, 1, "defaults: one cluster")) {
		pg_config_free(cfg);
		return;
	}
	is_str(cfg->clusters[0].id, "mail", "defaults: cluster id");
	is_str(cfg->clusters[0].name, "", "defaults: cluster name empty");
	is_int(cfg->clusters[0].wait_ms, 600000, "defaults: wait");
	is_int(cfg->clusters[0].unreachable, PG_UNREACHABLE_RUN,
	    "defaults: unreachable = run");
	is_int(cfg->clusters[0].npeers, 0, "defaults: standalone");
	is_int(cfg->clusters[0].line, 1, "defaults: cluster line");
	is_str(cfg->serve.listen, "", "defaults: serve listen empty");
	is_str(cfg->serve.user, "", "defaults: serve user empty");
	is_str(cfg->serve.run_as, "", "defaults: serve run_as empty");
	is_int(cfg->serve.nallow, 0, "defaults: serve allows any");
	c = pg_config_cluster(cfg, "mail");
	ok(c == &cfg->clusters[0], "pg_config_cluster finds mail");
	ok(pg_config_cluster(cfg, "news") == NULL,
	    "pg_config_cluster: no news");
	ok(pg_config_cluster(cfg, "") == NULL, "pg_config_cluster: no \"\"");
	ok(pg_config_cluster(cfg, "mai") == NULL,
	    "pg_config_cluster: no prefix match");
	pg_config_free(cfg);

	/* An unset node skips the peer named like this host. */
	if (host != NULL && pg_peer_name_valid(host)) {
		char	 text[1024], upper[256];
		size_t	 i;

		for (i = 0; host[i] != '\0' && i < sizeof(upper) - 1; i++)
			upper[i] = toupper((unsigned char)host[i]);
		upper[i] = '\0';
		snprintf(text, sizeof(text),
		    "[peer %s]\nurl = http://self/\n"
		    "[peer zz-other]\nurl = http://other/\n"
		    "[cluster mail]\nwait = 10m\n", upper);
		cfg = load(text, "host name peer");
		if (cfg != NULL) {
			is_str(peer_names(cfg, &cfg->clusters[0]), "zz-other",
			    "default node: the peer named like the host "
			    "(any case) is skipped");
			pg_config_free(cfg);
		}
	} else
		diag("host name not usable as a node name: skipped");
}

static const char every_key[] =
	"# every key\n"					/* 1 */
	"; another comment\n"				/* 2 */
	"\n"						/* 3 */
	"[pollguard]\n"					/* 4 */
	"node = Alpha\n"				/* 5 */
	"state = /srv/pollguard/state\n"		/* 6 */
	"timeout = 5s\n"				/* 7 */
	"connect_timeout = 300ms\n"			/* 8 */
	"settle = 2s\n"					/* 9 */
	"\n"						/* 10 */
	"[peer alpha]\n"				/* 11 */
	"url = http://alpha.example:8080/\n"		/* 12 */
	"[peer beta]\n"					/* 13 */
	"url = https://beta.example/pollguard\n"	/* 14 */
	"user = bob\n"					/* 15 */
	"password = s3cret;x\n"				/* 16 */
	"cafile = /etc/ssl/ca.pem\n"			/* 17 */
	"[peer Gamma]\n"				/* 18 */
	"url = http://[2001:db8::1]:81/x\n"		/* 19 */
	"\n"						/* 20 */
	"[cluster mail]\n"				/* 21 */
	"name = Mail fetch ; inline comment\n"		/* 22 */
	"wait = 15m\n"					/* 23 */
	"unreachable = skip\n"				/* 24 */
	"[cluster news.example]\n"			/* 25 */
	"wait = 20s\n"					/* 26 */
	"peers = beta, Gamma alpha\n"			/* 27 */
	"unreachable = run\n"				/* 28 */
	"[serve]\n"					/* 29 */
	"listen = 127.0.0.1:8080\n"			/* 30 */
	"user = peeruser\n"				/* 31 */
	"password = servepw\n"				/* 32 */
	"allow = 10.0.0.0/8, 2001:db8::/32 192.0.2.1\n"	/* 33 */
	"run_as = _pollguard\n";			/* 34 */

static void
test_every_key(void)
{
	struct pg_config	*cfg;
	const struct pg_cluster	*c;

	cfg = load(every_key, "every key");
	if (cfg == NULL)
		return;
	is_str(cfg->node, "Alpha", "node");
	is_str(cfg->state, "/srv/pollguard/state", "state");
	is_int(cfg->timeout_ms, 5000, "timeout");
	is_int(cfg->connect_timeout_ms, 300, "connect_timeout");
	is_int(cfg->settle_ms, 2000, "settle");

	is_int(cfg->npeers, 3, "three peers");
	if (cfg->npeers == 3) {
		is_str(cfg->peers[0].name, "alpha", "peer 0 name");
		is_str(cfg->peers[0].url, "http://alpha.example:8080/",
		    "peer 0 url");
		is_str(cfg->peers[0].user, "", "peer 0 user empty");
		is_str(cfg->peers[0].password, "", "peer 0 password empty");
		is_str(cfg->peers[0].cafile, "", "peer 0 cafile empty");
		is_int(cfg->peers[0].line, 11, "peer 0 line");
		is_str(cfg->peers[1].name, "beta", "peer 1 name");
		is_str(cfg->peers[1].url, "https://beta.example/pollguard",
		    "peer 1 url");
		is_str(cfg->peers[1].user, "bob", "peer 1 user");
		is_str(cfg->peers[1].password, "s3cret;x",
		    "peer 1 password (';' without space is kept)");
		is_str(cfg->peers[1].cafile, "/etc/ssl/ca.pem",
		    "peer 1 cafile");
		is_int(cfg->peers[1].line, 13, "peer 1 line");
		is_str(cfg->peers[2].name, "Gamma", "peer 2 name");
		is_str(cfg->peers[2].url, "http://[2001:db8::1]:81/x",
		    "peer 2 url");
		is_int(cfg->peers[2].line, 18, "peer 2 line");
	}

	is_int(cfg->nclusters, 2, "two clusters");
	c = pg_config_cluster(cfg, "mail");
	ok(c != NULL, "cluster mail found");
	if (c != NULL) {
		is_str(c->name, "Mail fetch", "mail name (inline comment cut)");
		is_int(c->wait_ms, 15 * 60 * 1000, "mail wait");
		is_int(c->unreachable, PG_UNREACHABLE_SKIP,
		    "mail unreachable = skip");
		is_int(c->line, 21, "mail line");
		is_str(peer_names(cfg, c), "Gamma,beta",
		    "mail peers: every peer but the node (Alpha ~ alpha)");
	}
	c = pg_config_cluster(cfg, "news.example");
	ok(c != NULL, "cluster news.example found");
	if (c != NULL) {
		is_int(c->wait_ms, 20000, "news wait (above the horizon 14s)");
		is_int(c->unreachable, PG_UNREACHABLE_RUN,
		    "news unreachable = run");
		is_int(c->line, 25, "news line");
		is_str(peer_names(cfg, c), "Gamma,beta",
		    "news peers: listed, node skipped");
	}
	ok(pg_config_cluster(cfg, "news") == NULL, "no cluster news");

	is_str(cfg->serve.listen, "127.0.0.1:8080", "serve listen");
	is_str(cfg->serve.user, "peeruser", "serve user");
	is_str(cfg->serve.password, "servepw", "serve password");
	is_str(cfg->serve.run_as, "_pollguard", "serve run_as");
	is_int(cfg->serve.nallow, 3, "serve allow: three entries");
	if (cfg->serve.nallow == 3) {
		unsigned char	 a4[4];

		is_int(cfg->serve.allow[0].family, AF_INET, "allow 0 family");
		is_int(cfg->serve.allow[0].prefix, 8, "allow 0 prefix");
		is_int(cfg->serve.allow[0].addr[0], 10, "allow 0 address");
		is_int(cfg->serve.allow[1].family, AF_INET6,
		    "allow 1 family");
		is_int(cfg->serve.allow[1].prefix, 32, "allow 1 prefix");
		is_int(cfg->serve.allow[2].family, AF_INET, "allow 2 family");
		is_int(cfg->serve.allow[2].prefix, 32,
		    "allow 2: one address is /32");
		inet_pton(AF_INET, "192.0.2.1", a4);
		ok(pg_net_match(&cfg->serve.allow[2], AF_INET, a4),
		    "allow 2 matches 192.0.2.1");
	}
	pg_config_free(cfg);
}

static void
peers_are(const char *text, const char *want, const char *name)
{
	struct pg_config	*cfg;

	if ((cfg = load(text, name)) == NULL)
		return;
	is_str(peer_names(cfg, pg_config_cluster(cfg, "c")), want,
	    "%s: peers", name);
	pg_config_free(cfg);
}

#define THREE_PEERS \
	"[peer alpha]\nurl = http://a/\n" \
	"[peer beta]\nurl = http://b/\n" \
	"[peer gamma]\nurl = http://g/\n"

static void
test_peers(void)
{
	struct pg_config	*cfg;

	peers_are("[pollguard]\nnode = ALPHA\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\n", "beta,gamma",
	    "default peers, node in other case");
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\n", "alpha,beta,gamma",
	    "default peers, node not a peer");
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = beta,gamma\n", "beta,gamma",
	    "peers with comma");
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = beta gamma\n", "beta,gamma",
	    "peers with space");
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = beta ,  gamma\n", "beta,gamma",
	    "peers with comma and spaces");
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = gamma,\tbeta,\n", "beta,gamma",
	    "peers with comma, tab and trailing comma");
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = gamma\n", "gamma",
	    "one peer");
	peers_are("[pollguard]\nnode = beta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = alpha, beta, gamma\n",
	    "alpha,gamma", "node listed in peers is skipped");
	peers_are("[pollguard]\nnode = Beta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = alpha beta\n",
	    "alpha", "node listed in peers, other case, is skipped");
	peers_are("[pollguard]\nnode = beta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers = beta\n",
	    "", "only the node listed: standalone");
	peers_are("[pollguard]\nnode = beta\n[peer beta]\nurl = http://b/\n"
	    "[cluster c]\nwait = 10s\n", "",
	    "only the node as peer: standalone");
	/* "peers =" with nothing: no peers at all. */
	peers_are("[pollguard]\nnode = delta\n" THREE_PEERS
	    "[cluster c]\nwait = 10s\npeers =\n", "",
	    "empty peers: standalone");
	/* A peer may be defined after the cluster naming it. */
	peers_are("[pollguard]\nnode = x\n[cluster c]\nwait = 10s\n"
	    "peers = late\n[peer late]\nurl = http://l/\n", "late",
	    "peer defined after the cluster");

	/* The unreachable policy. */
	if ((cfg = load("[cluster c]\nwait = 10s\nunreachable = skip\n"
	    "[cluster d]\nwait = 10s\nunreachable = run\n",
	    "unreachable")) != NULL) {
		is_int(cfg->clusters[0].unreachable, PG_UNREACHABLE_SKIP,
		    "unreachable = skip");
		is_int(cfg->clusters[1].unreachable, PG_UNREACHABLE_RUN,
		    "unreachable = run");
		pg_config_free(cfg);
	}
}

/* A line of exactly len characters (without the newline). */
static void
long_line(char *buf, size_t bufsize, const char *prefix, size_t len)
{
	size_t	 n;

	n = strlcpy(buf, prefix, bufsize);
	while (n < len && n < bufsize - 2)
		buf[n++] = 'x';
	buf[n++] = '\n';
	buf[n] = '\0';
}

static const char nul[] = "[cluster c]\nwait = 10s\nna\0me = x\n";

static void
test_syntax(void)
{
	struct pg_config	*cfg;
	char			 line[512], text[1024];

	/* Comments and blank lines; inline comments need white space. */
	if ((cfg = load("# c\n; c\n\n   \n[cluster c] ; c\n"
	    "wait = 10s ; ten\n" "name = a;b # c\n", "comments")) != NULL) {
		is_int(cfg->clusters[0].wait_ms, 10000,
		    "inline comment after a value");
		is_str(cfg->clusters[0].name, "a;b # c",
		    "';' without white space before it is kept");
		is_int(cfg->clusters[0].line, 5, "line counts comments");
		pg_config_free(cfg);
	}

	/* A UTF-8 byte order mark is skipped, as inih does. */
	if ((cfg = load("\xef\xbb\xbf[cluster c]\nwait = 10s\n",
	    "byte order mark")) != NULL) {
		is_str(cfg->clusters[0].id, "c", "byte order mark: cluster c");
		pg_config_free(cfg);
	}

	/* Line length: 199 characters are fine, 200 are not. */
	long_line(line, sizeof(line), "name = ", 199);
	snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n%s", line);
	if ((cfg = load(text, "line of 199 characters")) != NULL) {
		is_int(strlen(cfg->clusters[0].name), 199 - 7,
		    "199-character line: whole value kept");
		pg_config_free(cfg);
	}
	snprintf(text, sizeof(text), "[cluster c]\n%swait = 10s\n", line);
	if ((cfg = load(text, "line of 199 characters, then more"))
	    != NULL) {
		is_int(cfg->clusters[0].wait_ms, 10000,
		    "the line after a 199-character line is read");
		pg_config_free(cfg);
	}
	long_line(line, sizeof(line), "name = ", 200);
	snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n%s", line);
	refuse(text, 3, NULL, "line of 200 characters");
	/* CRLF: the CR is part of the line end, not of the 199. */
	long_line(line, sizeof(line), "name = ", 199);
	snprintf(text, sizeof(text), "[cluster c]\r\n%.199s\r\nwait = 10s\r\n",
	    line);
	if ((cfg = load(text, "CRLF line of 199 characters, then more"))
	    != NULL) {
		is_int(strlen(cfg->clusters[0].name), 199 - 7,
		    "CRLF 199-character line: whole value kept");
		is_int(cfg->clusters[0].wait_ms, 10000,
		    "the line after a CRLF 199-character line is read");
		pg_config_free(cfg);
	}
	long_line(line, sizeof(line), "name = ", 200);
	snprintf(text, sizeof(text), "[cluster c]\r\nwait = 10s\r\n%.200s\r\n",
	    line);
	refuse(text, 3, NULL, "CRLF line of 200 characters");
	snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n%.199s\rx\n",
	    line);
	refuse(text, 3, NULL, "199 characters, a CR and more on the line");
	long_line(line, sizeof(line), "name = ", 250);
	snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n%s", line);
	refuse(text, 3, NULL, "line of 250 characters");
	long_line(line, sizeof(line), "name = ", 400);
	snprintf(text, sizeof(text), "[cluster c]\n%swait = 10s\n", line);
	refuse(text, 2, NULL, "line of 400 characters, then more");
	long_line(line, sizeof(line), "# ", 300);
	snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n%s", line);
	refuse(text, 3, NULL, "comment line of 300 characters");
	long_line(line, sizeof(line), "name = ", 200);
	line[strlen(line) - 1] = '\0';		/* no newline at the end */
	snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n%s", line);
	refuse(text, 3, NULL, "last line of 200 characters, no newline");

	refuse("[cluster c]\nwait = 10s\n  name = x\n", 3, NULL,
	    "indented line after a key");
	refuse("[cluster c]\nname = x\n\tmore\nwait = 10s\n", 3, NULL,
	    "tab-indented continuation");
	refuse("[cluster c]\nwait = 10s\nfoo\n", 3, NULL,
	    "line without '='");
	refuse("[cluster c]\nname = x\nwait: 10s\n", 3, NULL,
	    "key: value");
	refuse("[cluster c]\nwait = 10s\n[cluster d\nwait = 10s\n", 3, NULL,
	    "section header without ']'");
	refuse("[cluster c] x\nwait = 10s\n", 1, NULL,
	    "text after a section header");
	refuse_len(nul, sizeof(nul) - 1, 0600, 3, NULL, "NUL byte");
	refuse("[cluster c]\nwait =\n", 2, NULL, "empty value");
	refuse("[cluster c]\nwait = 10s\nname =   \n", 3, NULL,
	    "value of white space");

	refuse("[cluster c]\nwait = 10s\n[bogus]\n", 3, "bogus",
	    "unknown section");
	refuse("[cluster c]\nwait = 10s\n[peer]\nurl = http://x/\n", 3, NULL,
	    "[peer] without a name");
	refuse("[cluster]\nwait = 10s\n", 1, NULL, "[cluster] without an ID");
	refuse("[pollguard x]\n", 1, NULL, "[pollguard] with an argument");
	refuse("[serve x]\n", 1, NULL, "[serve] with an argument");

	refuse("[cluster c]\nwait = 10s\nfoo = 1\n", 3, "foo",
	    "unknown key in [cluster]");
	refuse("[cluster c]\nwait = 10s\nurl = http://x/\n", 3, "url",
	    "peer key in [cluster]");
	refuse("[pollguard]\nwait = 10s\n", 2, "wait",
	    "cluster key in [pollguard]");
	refuse("[peer p]\nurl = http://p/\nwait = 10s\n", 3, "wait",
	    "cluster key in [peer]");
	refuse("[serve]\nport = 80\n", 2, "port", "unknown key in [serve]");

	refuse("[cluster c]\nwait = 10s\n[cluster c]\nwait = 20s\n", 3, NULL,
	    "duplicate [cluster]");
	refuse("[cluster c]\n[cluster c]\nwait = 20s\n", 2, NULL,
	    "duplicate [cluster], the first empty");
	refuse("[cluster c]\nwait = 10s\n[peer x]\n[peer x]\n"
	    "url = http://x/\n", 4, NULL, "duplicate [peer], the first empty");
	refuse("[peer x]\nurl = http://x/\n[peer X]\nurl = http://x/\n", 3,
	    NULL, "duplicate [peer] in another case");
	refuse("[serve]\n[cluster c]\nwait = 10s\n[serve]\n", 4, NULL,
	    "duplicate [serve], the first empty");
	refuse("[pollguard]\n[pollguard]\nnode = x\n", 2, NULL,
	    "duplicate [pollguard], the first empty");
	refuse("[pollguard]\nnode = x\n[cluster c]\nwait = 10s\n"
	    "[pollguard]\nsettle = 1s\n", 5, NULL,
	    "duplicate [pollguard], different keys");

	refuse("[cluster c]\nwait = 10s\nname = x\nwait = 20s\n", 4, "wait",
	    "duplicate key");
	refuse("[cluster c]\nwait = 10s\nwait = 10s\n", 3, "wait",
	    "duplicate key, same value");
	refuse("[pollguard]\nnode = a\nnode = a\n", 3, "node",
	    "duplicate key in [pollguard]");

	refuse("node = x\n[pollguard]\n", 1, "node", "key before any section");
	refuse("# c\n\nnode = x\n[pollguard]\n", 3, "node",
	    "key before any section, after comments");
}

static void
test_values(void)
{
	struct pg_config	*cfg;
	char			 text[512], name[40];
	int			 i;

	/* Durations. */
	refuse("[cluster c]\nwait = 10 s\n", 2, NULL, "wait = 10 s");
	refuse("[cluster c]\nwait = 1.5m\n", 2, NULL, "wait = 1.5m");
	refuse("[cluster c]\nwait = -10s\n", 2, NULL, "wait = -10s");
	refuse("[cluster c]\nwait = 9s\n", 2, "too small", "wait = 9s");
	refuse("[cluster c]\nwait = 9999ms\n", 2, "too small",
	    "wait = 9999ms");
	refuse("[cluster c]\nwait = 31d\n", 2, "too large", "wait = 31d");
	refuse("[cluster c]\nname = x\n", 1, NULL, "wait missing");
	refuse("[peer p]\nurl = http://p/\n[cluster c]\n", 3, NULL,
	    "wait missing, empty section");
	if ((cfg = load("[cluster c]\nwait = 10s\n[cluster d]\nwait = 30d\n"
	    "[cluster e]\nwait = 10\n", "wait bounds")) != NULL) {
		is_int(cfg->clusters[0].wait_ms, PG_WAIT_MIN_MS, "wait = 10s");
		is_int(cfg->clusters[1].wait_ms, PG_WAIT_MAX_MS, "wait = 30d");
		is_int(cfg->clusters[2].wait_ms, 10000,
		    "wait = 10 is seconds");
		pg_config_free(cfg);
	}
	refuse("[pollguard]\ntimeout = 2 s\n", 2, NULL, "timeout = 2 s");
	refuse("[pollguard]\ntimeout = 99ms\n", 2, "too small",
	    "timeout = 99ms");
	refuse("[pollguard]\ntimeout = 61s\n", 2, "too large",
	    "timeout = 61s");
	refuse("[pollguard]\nconnect_timeout = 9ms\n", 2, "too small",
	    "connect_timeout = 9ms");
	refuse("[pollguard]\nsettle = 11s\n", 2, "too large",
	    "settle = 11s");
	refuse("[pollguard]\nsettle = 1x\n", 2, NULL, "settle = 1x");
	if ((cfg = load("[pollguard]\ntimeout = 100ms\n"
	    "connect_timeout = 100ms\nsettle = 0\n", "duration bounds"))
	    != NULL) {
		is_int(cfg->timeout_ms, 100, "timeout = 100ms");
		is_int(cfg->connect_timeout_ms, 100,
		    "connect_timeout = timeout is fine");
		is_int(cfg->settle_ms, 0, "settle = 0");
		pg_config_free(cfg);
	}
	if ((cfg = load("[pollguard]\ntimeout = 60s\nconnect_timeout = 10ms\n"
	    "settle = 10s\n", "duration maxima")) != NULL) {
		is_int(cfg->timeout_ms, 60000, "timeout = 60s");
		is_int(cfg->connect_timeout_ms, 10, "connect_timeout = 10ms");
		is_int(cfg->settle_ms, 10000, "settle = 10s");
		pg_config_free(cfg);
	}
	/* Reported at the connect_timeout line, with both values. */
	refuse("[cluster c]\nwait = 10s\n[pollguard]\ntimeout = 500ms\n"
	    "connect_timeout = 600ms\n", 5, "600ms is longer than timeout "
	    "500ms", "connect_timeout > timeout");
	refuse("[pollguard]\nconnect_timeout = 3s\n", 2, "connect_timeout",
	    "connect_timeout > default timeout");
	/* A short timeout alone: the default connect_timeout follows it. */
	if ((cfg = load("[pollguard]\ntimeout = 500ms\nsettle = 0\n",
	    "timeout below the default connect_timeout")) != NULL) {
		is_int(cfg->connect_timeout_ms, 500,
		    "timeout 500ms alone: connect_timeout 500ms");
		pg_config_free(cfg);
	}

	/* [pollguard] values. */
	refuse("[pollguard]\nnode = -x\n", 2, NULL, "node = -x");
	refuse("[pollguard]\nnode = a/b\n", 2, NULL, "node = a/b");
	refuse("[pollguard]\nstate = var/lib/pollguard\n", 2, NULL,
	    "relative state");

	/* Cluster IDs. */
	refuse("[pollguard]\nnode = n\n[cluster ../x]\nwait = 10s\n", 3, NULL,
	    "cluster ../x");
	refuse("[pollguard]\nnode = n\n[cluster .hidden]\nwait = 10s\n", 3,
	    NULL, "cluster .hidden");
	refuse("[pollguard]\nnode = n\n[cluster a/b]\nwait = 10s\n", 3, NULL,
	    "cluster a/b");
	refuse("[cluster a b]\nwait = 10s\n", 1, NULL, "cluster a b");
	refuse("[cluster -x]\nwait = 10s\n", 1, NULL, "cluster -x");
	refuse("[cluster caf\xc3\xa9]\nwait = 10s\n", 1, NULL,
	    "cluster with UTF-8");
	refuse("[peer -x]\nurl = http://x/\n", 1, NULL, "peer -x");
	refuse("[peer .x]\nurl = http://x/\n", 1, NULL, "peer .x");

	/* Peer lists. */
	refuse("[peer p]\nurl = http://p/\n[cluster c]\nwait = 10s\n"
	    "peers = p, q\n", 5, "q", "peers naming an unknown peer");
	refuse("[peer p]\nurl = http://p/\n[cluster c]\nwait = 10s\n"
	    "peers = p p\n", 5, NULL, "peer listed twice");

	/* Peer URLs and credentials. */
	refuse("[peer p]\nurl = ftp://p/\n", 2, NULL, "url ftp://");
	refuse("[peer p]\nurl = p.example.org\n", 2, NULL, "url without "
	    "scheme");
	refuse("[peer p]\nurl = http://\n", 2, NULL, "url without host");
	refuse("[peer p]\nurl = https:///x\n", 2, NULL, "url with empty "
	    "host");
	refuse("[peer p]\nurl = http://a b/\n", 2, NULL, "url with a space");
	refuse("[peer p]\nurl = http://p/\x01\n", 2, NULL, "url with a "
	    "control character");
	refuse("[cluster c]\nwait = 10s\n[peer p]\nuser = u\npassword = pw\n",
	    3, "url", "url missing");
	refuse("[cluster c]\nwait = 10s\n[peer p]\n", 3, NULL,
	    "url missing, empty section");
	refuse("[peer p]\nurl = http://p/\nuser = u\n", 1, NULL,
	    "user without password");
	refuse("[peer p]\nurl = http://p/\npassword = pw\n", 1, NULL,
	    "password without user");
	refuse("[peer p]\nurl = https://p/\ncafile = ca.pem\n", 3, NULL,
	    "relative cafile");
	refuse("[cluster c]\nwait = 10s\n[serve]\nuser = u\n", 3, NULL,
	    "serve user without password");

	refuse("[cluster c]\nwait = 10s\nunreachable = maybe\n", 3, "maybe",
	    "unreachable = maybe");
	refuse("[cluster c]\nwait = 10s\nunreachable = Skip\n", 3, NULL,
	    "unreachable = Skip");

	/* [serve] listen. */
	if ((cfg = load("[serve]\nlisten = [::1]:8080\n", "listen [::1]:8080"))
	    != NULL) {
		is_str(cfg->serve.listen, "[::1]:8080", "listen [::1]:8080");
		pg_config_free(cfg);
	}
	if ((cfg = load("[serve]\nlisten = 127.0.0.1:80\n",
	    "listen 127.0.0.1:80")) != NULL) {
		is_str(cfg->serve.listen, "127.0.0.1:80",
		    "listen 127.0.0.1:80");
		pg_config_free(cfg);
	}
	if ((cfg = load("[serve]\nlisten = :8080\n", "listen :8080")) != NULL) {
		is_str(cfg->serve.listen, ":8080", "listen :8080");
		pg_config_free(cfg);
	}
	if ((cfg = load("[serve]\nlisten = :65535\n", "listen :65535"))
	    != NULL)
		pg_config_free(cfg);
	/* Port 0: any free port. */
	if ((cfg = load("[serve]\nlisten = :0\n", "listen :0")) != NULL) {
		is_str(cfg->serve.listen, ":0", "listen :0 stored");
		pg_config_free(cfg);
	}
	if ((cfg = load("[serve]\nlisten = 127.0.0.1:0\n",
	    "listen 127.0.0.1:0")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load("[serve]\nlisten = [::1]:0\n", "listen [::1]:0"))
	    != NULL)
		pg_config_free(cfg);
	refuse("[serve]\nlisten = :00000x\n", 2, NULL, "listen :00000x");
	refuse("[serve]\nlisten = ::1:80\n", 2, NULL, "listen ::1:80");
	refuse("[serve]\nlisten = host:0\n", 2, NULL, "listen host:0");
	refuse("[serve]\nlisten = localhost:80\n", 2, NULL,
	    "listen localhost:80");
	refuse("[serve]\nlisten = 1.2.3.4:65536\n", 2, NULL,
	    "listen 1.2.3.4:65536");
	refuse("[serve]\nlisten = 127.0.0.1\n", 2, NULL, "listen without port");
	refuse("[serve]\nlisten = [::1]\n", 2, NULL, "listen [::1]");
	refuse("[serve]\nlisten = 127.0.0.1:\n", 2, NULL, "listen empty port");
	refuse("[serve]\nlisten = 127.0.0.1:80x\n", 2, NULL, "listen 80x");
	refuse("[serve]\nlisten = 127.0.0.1:-1\n", 2, NULL, "listen -1");
	refuse("[serve]\nlisten = 127.0.0.1: 80\n", 2, NULL,
	    "listen with a space before the port");
	refuse("[serve]\nlisten = [1.2.3.4]:80\n", 2, NULL,
	    "listen IPv4 in brackets");

	/* [serve] allow. */
	refuse("[serve]\nallow = 10.0.0.0/8, 10.0.0.0/33\n", 2, "10.0.0.0/33",
	    "allow with a bad prefix");
	refuse("[serve]\nallow = example.org\n", 2, NULL, "allow a host name");
	refuse("[serve]\nallow = ::ffff:10.0.0.0/64\n", 2,
	    "IPv4-mapped range needs a prefix of 96", "allow an IPv4-mapped "
	    "range under /96");
	refuse("[serve]\nallow = 2001:db8::/129\n", 2, NULL,
	    "allow v6 /129");
	/* 64 entries fit a line of 197 characters. */
	strlcpy(text, "[serve]\nallow=::", sizeof(text));
	for (i = 1; i < PG_ALLOW_MAX; i++)
		strlcat(text, ",::", sizeof(text));
	strlcat(text, "\n", sizeof(text));
	if ((cfg = load(text, "allow 64 entries")) != NULL) {
		is_int(cfg->serve.nallow, PG_ALLOW_MAX, "allow 64 entries");
		pg_config_free(cfg);
	}

	/* [serve] run_as. */
	for (i = 0; i < 4; i++) {
		static const char *const good[] = {
			"pollguard", "_pollguard", "a-b_1",
			"abcdefghijklmnopqrstuvwxyz012345"	/* 32 */
		};

		snprintf(text, sizeof(text), "[serve]\nrun_as = %s\n", good[i]);
		snprintf(name, sizeof(name), "run_as %.20s", good[i]);
		if ((cfg = load(text, name)) != NULL) {
			is_str(cfg->serve.run_as, good[i], "%s stored", name);
			pg_config_free(cfg);
		}
	}
	for (i = 0; i < 7; i++) {
		static const char *const bad[] = {
			"Root", "1abc", "-x", "a b", "a:b",
			"abcdefghijklmnopqrstuvwxyz0123456",	/* 33 */
			"nobody"	/* shared with other daemons */
		};

		snprintf(text, sizeof(text), "[serve]\nrun_as = %s\n", bad[i]);
		snprintf(name, sizeof(name), "run_as %.20s", bad[i]);
		refuse(text, 2, NULL, name);
	}
}

/* Peer URLs: http:// or https://, host, optional port and path. */
static void
test_urls(void)
{
	static const char *const good[] = {
		"http://p", "http://p/", "https://p.example.org:7710/",
		"HTTP://P.Example.ORG", "http://a-b.c-d.example/x/y/",
		"http://1a.example", "http://127.0.0.1:1/",
		"http://192.0.2.1:65535", "https://[::1]:443/",
		"https://[2001:db8::1]/pollguard", "http://p:080/",
		"http://p/~u/a;b=c,d@e:f/%2Fg!$&'()*+",
		"http://abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
		    "0123456789a.example/"		/* a label of 63 */
	};
	static const struct {
		const char	*url, *part;
	} bad[] = {
		{ "ftp://p/", "does not start with http:// or https://" },
		{ "p.example.org", "does not start with http://" },
		{ "http:/p/", "does not start with http://" },
		{ "http://", "no host" },
		{ "https:///x", "no host" },
		{ "http://:80/", "no host" },
		{ "http://a b/", "white space" },
		{ "http://p/a b", "white space" },
		{ "http://p/?x=1", "query or fragment" },
		{ "http://p/#top", "query or fragment" },
		{ "http://p?x", "query or fragment" },
		{ "http://u@p/", "user information (user@)" },
		{ "http://u:pw@p:80/", "user information" },
		{ "http://p:", "':' without a port" },
		{ "http://p:/", "':' without a port" },
		{ "http://p:0/", "port 0 is not from 1 to 65535" },
		{ "http://p:65536/", "port 65536 is not from 1 to 65535" },
		{ "http://p:123456/", "port '123456' is not a number" },
		{ "http://p:-1/", "port '-1' is not a number" },
		{ "http://p:+80/", "port '+80' is not a number" },
		{ "http://p:80x/", "port '80x' is not a number" },
		{ "http://p:8080:1/", "port '8080:1'" },
		{ "http://p_q/", "'p_q' is not a host name" },
		{ "http://-p/", "'-p' is not a host name" },
		{ "http://p-/", "'p-' is not a host name" },
		{ "http://p..q/", "'p..q' is not a host name" },
		{ "http://.p/", "'.p' is not a host name" },
		{ "http://p./", "'p.' is not a host name" },
		{ "http://p.123/", "'p.123' is not a host name" },
		{ "http://caf\xc3\xa9/", "is not a host name" },
		{ "http://abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
		    "0123456789ab.example/", "is not a host name" },	/* 64 */
		{ "http://256.1.1.1/", "'256.1.1.1' is not an IPv4 address" },
		{ "http://1.2.3/", "'1.2.3' is not an IPv4 address" },
		{ "http://1.2.3.4.5/", "is not an IPv4 address" },
		{ "http://127.1/", "'127.1' is not an IPv4 address" },
		{ "http://010.0.0.1/", "is not an IPv4 address" },
		{ "http://0x7f.0.0.1/", "is not an IPv4 address" },
		{ "http://2130706433/", "is not an IPv4 address" },
		{ "http://[::1/", "'[' without ']'" },
		{ "http://[::1]x/", "'[::1]x' is not an IPv6 address" },
		{ "http://[]/", "'[]' is not an IPv6 address" },
		{ "http://[1.2.3.4]/", "is not an IPv6 address" },
		{ "http://[fe80::1%25eth0]/", "is not an IPv6 address" },
		{ "http://::1/", "no host" },
		{ "http://p\\q/", "is not a host name" },
		{ "http://p/%zz", "'%' in the path is not followed" },
		{ "http://p/%4", "'%' in the path is not followed" },
		{ "http://p/a\"b", "'\"' in the path must be written %22" },
		{ "http://p/a<b>", "'<' in the path must be written %3C" },
		{ "http://p/a\\b", "must be written %5C" },
		{ "http://p/caf\xc3\xa9", "byte 0xC3 in the path must be "
		    "written %C3" },
		{ "http://p/\x01", "control character 0x01" },
		{ "http://p/\x7f", "control character 0x7f" },
		{ "http://p/\tx", "control character 0x09" },
	};
	struct pg_config	*cfg;
	char			 text[512], name[64];
	size_t			 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "[peer p]\nurl = %s\n", good[i]);
		snprintf(name, sizeof(name), "url %.50s", good[i]);
		if ((cfg = load(text, name)) != NULL) {
			is_str(cfg->peers[0].url, good[i], "%s: stored", name);
			pg_config_free(cfg);
		}
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[cluster c]\nwait = 10s\n"
		    "[peer p]\nurl = %s\n", bad[i].url);
		snprintf(name, sizeof(name), "url %.50s", bad[i].url);
		refuse(text, 4, bad[i].part, name);
	}
	/* The message quotes the value, so that the wrong part is found. */
	refuse("[peer p]\nurl = http://p:0/\n", 2, "url: 'http://p:0/': port",
	    "url message quotes the url");
}

/* Control characters, empty lists, repeated keys in every section. */
static void
test_strict(void)
{
	static const struct {
		const char	*text, *part, *name;
		int		 line;
	} bad[] = {
		{ "[pollguard]\nnode = a\x01\n", "node: control character 0x01",
		    "node with a control character", 2 },
		{ "[pollguard]\nstate = /var/\x1b[1m\n", "control character "
		    "0x1b", "state with ESC", 2 },
		{ "[peer p]\nurl = http://p/\ncafile = /a\x7f\n", "cafile: "
		    "control character 0x7f", "cafile with DEL", 3 },
		{ "[peer p]\nurl = http://p/\nuser = u\npassword = a\x02\n",
		    "password: control character", "peer password with a "
		    "control character", 4 },
		{ "[serve]\nuser = u\npassword = a\tb\n", "password: control "
		    "character 0x09", "serve password with a tab", 3 },
		{ "[peer p]\nurl = http://p/\nuser = u\x03\npassword = p\n",
		    "user: control character", "user with a control "
		    "character", 3 },
		{ "[serve]\nuser = a:b\npassword = p\n", "must not contain ':'",
		    "serve user with ':'", 2 },
		{ "[cluster c]\nwait = 10s\nname = a\tb\n", "name: control "
		    "character 0x09", "name with a tab", 3 },
		{ "[serve]\nrun_as = a\x01\n", "run_as: control",
		    "run_as with a control character", 2 },
		{ "[cluster c]\nwait = 10s\nunreachable = run\x01\n",
		    "unreachable: control", "unreachable with a control "
		    "character", 3 },
		{ "[serve]\nallow = ,\n", "allow: separators but no address",
		    "allow = ,", 2 },
		{ "[serve]\nallow = ::1\nallow = , \t,\n", "separators but no "
		    "address", "a second allow line of separators", 3 },
		{ "[serve]\nallow = ::1\x01\n", "allow: control character",
		    "allow with a control character", 2 },
		{ "[peer p]\nurl = http://p/\n[cluster c]\nwait = 10s\n"
		    "peers = ,\n", "peers: separators but no names",
		    "peers = ,", 5 },
		{ "[peer p]\nurl = http://p/\n[cluster c]\nwait = 10s\n"
		    "peers = p\x01\n", "peers: control character",
		    "peers with a control character", 5 },
		{ "[peer p]\nurl = http://p/\nurl = http://q/\n", "'url' set "
		    "twice in [peer p]", "url twice", 3 },
		{ "[peer p]\nurl = http://p/\ncafile = /a\ncafile = /b\n",
		    "'cafile' set twice", "cafile twice", 4 },
		{ "[pollguard]\nnode = a\nnode = b\n", "'node' set twice",
		    "node twice", 3 },
		{ "[pollguard]\nsettle = 0\nsettle = 1s\n", "'settle' set "
		    "twice", "settle twice", 3 },
		{ "[cluster c]\nwait = 10s\nunreachable = run\n"
		    "unreachable = skip\n", "'unreachable' set twice",
		    "unreachable twice", 4 },
		{ "[serve]\nrun_as = a\nrun_as = b\n", "'run_as' set twice",
		    "run_as twice", 3 },
		{ "[pollguard]\nnode = a b\n", "node: invalid name",
		    "node with trailing text", 2 },
		{ "[pollguard]\ntimeout = 2s x\n", "invalid duration",
		    "timeout with trailing text", 2 },
		{ "[cluster c]\nwait = 10s\nunreachable = run skip\n",
		    "neither", "unreachable with trailing text", 3 },
		{ "[serve]\nrun_as = a b\n", "invalid user name",
		    "run_as with trailing text", 2 },
		{ "[pollguard]\nstate = \n", "state: empty value",
		    "empty state", 2 },
		{ "[peer p]\nurl =\n", "url: empty value", "empty url", 2 },
		{ "[peer p]\nurl = http://p/\ncafile = ;x\n", "cafile: empty "
		    "value", "cafile only a comment", 3 },
	};
	struct pg_config	*cfg;
	size_t			 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refuse(bad[i].text, bad[i].line, bad[i].part, bad[i].name);
	/* A tab separates list items. */
	if ((cfg = load("[peer p]\nurl = http://p/\n[serve]\n"
	    "allow = ::1\t10.0.0.0/8,\t192.0.2.1\n[cluster c]\nwait = 10s\n"
	    "peers = p\t\n", "tabs in lists")) != NULL) {
		is_int(cfg->serve.nallow, 3, "allow with tabs: 3 entries");
		is_int(cfg->clusters[0].npeers, 1, "peers with a tab: 1 peer");
		pg_config_free(cfg);
	}
}

static void
test_limits(void)
{
	struct pg_config	*cfg;
	char			*text;
	size_t			 size = 64 * 1024;
	int			 i;

	if ((text = malloc(size)) == NULL)
		err(1, NULL);
	text[0] = '\0';
	for (i = 0; i < PG_PEERS_MAX; i++) {
		char	 s[64];

		snprintf(s, sizeof(s), "[peer p%d]\nurl = http://p%d/\n", i, i);
		strlcat(text, s, size);
	}
	if ((cfg = load(text, "256 peers")) != NULL) {
		is_int(cfg->npeers, PG_PEERS_MAX, "256 peers");
		pg_config_free(cfg);
	}
	strlcat(text, "[peer last]\nurl = http://last/\n", size);
	refuse(text, 2 * PG_PEERS_MAX + 1, NULL, "257 peers");

	text[0] = '\0';
	for (i = 0; i < PG_CLUSTERS_MAX; i++) {
		char	 s[64];

		snprintf(s, sizeof(s), "[cluster c%d]\nwait = 10s\n", i);
		strlcat(text, s, size);
	}
	if ((cfg = load(text, "256 clusters")) != NULL) {
		is_int(cfg->nclusters, PG_CLUSTERS_MAX, "256 clusters");
		ok(pg_config_cluster(cfg, "c255") == &cfg->clusters[255],
		    "pg_config_cluster finds the last of 256");
		pg_config_free(cfg);
	}
	strlcat(text, "[cluster last]\nwait = 10s\n", size);
	refuse(text, 2 * PG_CLUSTERS_MAX + 1, NULL, "257 clusters");
	free(text);
}

static const char with_peer_password[] =
	"[peer p]\nurl = http://p/\nuser = u\npassword = pw\n"
	"[cluster c]\nwait = 10s\n";
static const char with_serve_password[] =
	"[cluster c]\nwait = 10s\n[serve]\nuser = u\npassword = pw\n";
static const char without_password[] =
	"[peer p]\nurl = http://p/\n[cluster c]\nwait = 10s\n";

static void
refuse_mode(const char *text, mode_t mode, const char *name)
{
	struct pg_config	*cfg = NULL;
	int			 r;

	conf_write(text, mode);
	strlcpy(errbuf, "(unset)", sizeof(errbuf));
	r = pg_config_load(path, &cfg, errbuf, sizeof(errbuf));
	is_int(r, -1, "%s at %04o: refused", name, (unsigned int)mode);
	if (r == 0) {
		pg_config_free(cfg);
		errbuf[0] = '\0';
	}
	like(errbuf, "chmod o-r", "%s at %04o: says chmod o-r", name,
	    (unsigned int)mode);
	like(errbuf, path, "%s at %04o: names the file", name,
	    (unsigned int)mode);
}

static void
test_passwords(void)
{
	struct pg_config	*cfg;

	/* Readable by others: refused. By the group: fine (root:pollguard). */
	refuse_mode(with_peer_password, 0644, "peer password");
	refuse_mode(with_peer_password, 0604, "peer password");
	refuse_mode(with_peer_password, 0444, "peer password");
	refuse_mode(with_peer_password, 0704, "peer password");
	refuse_mode(with_serve_password, 0644, "serve password");
	refuse_mode(with_serve_password, 0604, "serve password");
	if ((cfg = load_mode(with_peer_password, 0640,
	    "peer password at 0640")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load_mode(with_peer_password, 0440,
	    "peer password at 0440")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load_mode(with_serve_password, 0640,
	    "serve password at 0640")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load_mode(with_peer_password, 0600,
	    "peer password at 0600")) != NULL) {
		is_str(cfg->peers[0].password, "pw", "password read");
		pg_config_free(cfg);
	}
	if ((cfg = load_mode(with_peer_password, 0400,
	    "peer password at 0400")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load_mode(with_serve_password, 0600,
	    "serve password at 0600")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load_mode(without_password, 0644,
	    "no password at 0644")) != NULL)
		pg_config_free(cfg);
}

/* Writable by group or others, or another user's: refused (lib/trust.c). */
static void
test_trust(void)
{
	struct pg_config	*cfg;
	mode_t			 modes[] = { 0660, 0666, 0622, 0602 };
	size_t			 i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		conf_write(without_password, modes[i]);
		errbuf[0] = '\0';
		cfg = NULL;
		is_int(pg_config_load(path, &cfg, errbuf, sizeof(errbuf)), -1,
		    "mode %04o: refused", (unsigned int)modes[i]);
		pg_config_free(cfg);
		like(errbuf, "writable by group or others (owner ",
		    "mode %04o: says why, with the owner",
		    (unsigned int)modes[i]);
		like(errbuf, path, "mode %04o: names the file",
		    (unsigned int)modes[i]);
	}
	if (geteuid() != 0) {
		diag("not root: no file of another user");
		return;
	}
	conf_write(without_password, 0644);
	if (chown(path, 65534, 65534) == -1)
		err(1, "chown %s", path);
	errbuf[0] = '\0';
	cfg = NULL;
	is_int(pg_config_load(path, &cfg, errbuf, sizeof(errbuf)), -1,
	    "a file of user 65534: refused");
	pg_config_free(cfg);
	like(errbuf, "(uid 65534), mode 0644: it must belong to root",
	    "... naming its owner and mode");
	/* As a dropped serve reads it: root:pollguard 0640. */
	conf_write(without_password, 0640);
	if (chown(path, 0, 65534) == -1)
		err(1, "chown %s", path);
	cfg = NULL;
	is_int(pg_config_load(path, &cfg, errbuf, sizeof(errbuf)), 0,
	    "root's, group 65534, 0640: loads");
	pg_config_free(cfg);
}

static void
test_files(void)
{
	struct pg_config	*cfg = NULL;
	char			 missing[PATH_MAX];
	int			 r;

	snprintf(missing, sizeof(missing), "%s/no-such.conf", dir);
	strlcpy(errbuf, "(unset)", sizeof(errbuf));
	r = pg_config_load(missing, &cfg, errbuf, sizeof(errbuf));
	is_int(r, -1, "missing file: refused");
	like(errbuf, missing, "missing file: message names it");
	like(errbuf, "-c file", "missing file: message points to -c");
	like(errbuf, PG_CONF_ENV, "missing file: message points to "
	    PG_CONF_ENV);

	strlcpy(errbuf, "(unset)", sizeof(errbuf));
	r = pg_config_load(dir, &cfg, errbuf, sizeof(errbuf));
	is_int(r, -1, "directory as config: refused");
	like(errbuf, dir, "directory as config: message names it");
	ok(strstr(errbuf, PG_CONF_ENV) == NULL, "directory as config: there "
	    "is a file, no hint to name another");
	if (r == 0)
		pg_config_free(cfg);

	unsetenv(PG_CONF_ENV);
	is_str(pg_config_path(NULL), PG_CONF_DEFAULT, "config path: default");
	is_str(pg_config_path("/x.conf"), "/x.conf", "config path: -c");
	setenv(PG_CONF_ENV, "/env.conf", 1);
	is_str(pg_config_path(NULL), "/env.conf", "config path: env");
	is_str(pg_config_path("/x.conf"), "/x.conf",
	    "config path: -c beats env");
	setenv(PG_CONF_ENV, "", 1);
	is_str(pg_config_path(NULL), PG_CONF_DEFAULT,
	    "config path: empty env is ignored");
	unsetenv(PG_CONF_ENV);
}

static int
net(const char *s, struct pg_net *n)
{
	memset(n, 0xa5, sizeof(*n));
	return pg_net_parse(s, n);
}

static int
match(const struct pg_net *n, const char *addr)
{
	unsigned char	 a[16];
	int		 af;

	af = strchr(addr, ':') != NULL ? AF_INET6 : AF_INET;
	if (inet_pton(af, addr, a) != 1)
		errx(1, "test bug: bad address %s", addr);
	return pg_net_match(n, af, a);
}

static void
net_matches(const char *range, const char *addr, int want)
{
	struct pg_net	 n;

	if (net(range, &n) != 0) {
		ok(0, "%s parses (to match %s)", range, addr);
		return;
	}
	is_int(match(&n, addr) != 0, want, "%s %s %s", range,
	    want ? "matches" : "does not match", addr);
}

static void
net_is(const char *s, int family, const char *addr, unsigned int prefix)
{
	struct pg_net	 n;
	unsigned char	 a[16];

	memset(a, 0, sizeof(a));
	inet_pton(family, addr, a);
	is_int(net(s, &n), 0, "parse %s", s);
	is_int(n.family, family, "parse %s: family", s);
	is_int(n.prefix, prefix, "parse %s: prefix %u", s, prefix);
	ok(memcmp(n.addr, a, family == AF_INET ? 4 : 16) == 0,
	    "parse %s: address is %s", s, addr);
}

static void
test_net(void)
{
	static const char *const bad[] = {
		"", "10.0.0.0/33", "::/129", "10.0.0.0/", "/8", "10.0.0.0/8/8",
		"10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0.0/8 ",
		" 10.0.0.0/8", "10.0.0", "256.0.0.0", "example.org",
		"[::1]", "1.2.3.4/8x", "::1/", "2001:db8::/1000",
		"10.0.0.0/4294967304"
	};
	struct pg_net	 n;
	unsigned char	 v6[16];
	size_t		 i;

	net_is("192.0.2.0/24", AF_INET, "192.0.2.0", 24);
	net_is("192.0.2.1", AF_INET, "192.0.2.1", 32);
	net_is("2001:db8::1", AF_INET6, "2001:db8::1", 128);
	net_is("::1/128", AF_INET6, "::1", 128);
	net_is("0.0.0.0/0", AF_INET, "0.0.0.0", 0);
	net_is("::/0", AF_INET6, "::", 0);
	/* IPv4-mapped: kept as IPv4, as serve sees such a client. */
	net_is("::ffff:192.0.2.1", AF_INET, "192.0.2.1", 32);
	net_is("::ffff:10.0.0.0/104", AF_INET, "10.0.0.0", 8);
	net_is("::ffff:0:0/96", AF_INET, "0.0.0.0", 0);
	net_matches("::ffff:192.0.2.0/120", "192.0.2.77", 1);
	net_matches("::ffff:192.0.2.0/120", "192.0.3.1", 0);
	ok(net("::ffff:0:0/95", &n) == -1 && errno == EDOM,
	    "::ffff:0:0/95, an IPv4-mapped range under /96: refused (EDOM)");
	/* Host bits are cleared, as the header's struct says. */
	net_is("10.0.0.1/8", AF_INET, "10.0.0.0", 8);
	net_is("10.255.255.255/9", AF_INET, "10.128.0.0", 9);
	net_is("2001:db8:ffff::1/32", AF_INET6, "2001:db8::", 32);
	net_is("2001:db8:ffff::1/33", AF_INET6, "2001:db8:8000::", 33);
	net_is("1.2.3.4/0", AF_INET, "0.0.0.0", 0);

	net_matches("10.0.0.0/8", "10.1.2.3", 1);
	net_matches("10.0.0.0/8", "10.0.0.0", 1);
	net_matches("10.0.0.0/8", "10.255.255.255", 1);
	net_matches("10.0.0.0/8", "11.0.0.1", 0);
	net_matches("10.0.0.0/8", "9.255.255.255", 0);
	net_matches("10.0.0.1/8", "10.9.9.9", 1);
	net_matches("10.128.0.0/9", "10.200.0.1", 1);
	net_matches("10.128.0.0/9", "10.127.255.255", 0);
	net_matches("192.0.2.1", "192.0.2.1", 1);
	net_matches("192.0.2.1", "192.0.2.2", 0);
	net_matches("192.0.2.1/31", "192.0.2.0", 1);
	net_matches("192.0.2.1/31", "192.0.2.2", 0);
	net_matches("0.0.0.0/0", "1.2.3.4", 1);
	net_matches("0.0.0.0/0", "255.255.255.255", 1);
	net_matches("0.0.0.0/0", "::1", 0);
	net_matches("::1/128", "::1", 1);
	net_matches("::1/128", "::2", 0);
	net_matches("::1/128", "::", 0);
	net_matches("2001:db8::/32", "2001:db8:ffff::1", 1);
	net_matches("2001:db8::/32", "2001:db8::", 1);
	net_matches("2001:db8::/32", "2001:db9::1", 0);
	net_matches("2001:db8::/32", "2001:db7:ffff::", 0);
	net_matches("2001:db8:8000::/33", "2001:db8:8000::1", 1);
	net_matches("2001:db8:8000::/33", "2001:db8:7fff::", 0);
	net_matches("2001:db8::1/127", "2001:db8::", 1);
	net_matches("2001:db8::1/127", "2001:db8::2", 0);
	net_matches("::/0", "2001:db8::1", 1);
	net_matches("::/0", "::", 1);
	net_matches("::/0", "0.0.0.0", 0);
	net_matches("10.0.0.0/8", "a00::", 0);

	/* A v4 range never matches v6 bytes that begin like it. */
	if (net("10.0.0.0/8", &n) == 0) {
		memset(v6, 0, sizeof(v6));
		v6[0] = 10;
		is_int(pg_net_match(&n, AF_INET6, v6), 0,
		    "10.0.0.0/8 does not match AF_INET6 bytes 0a00::");
	}

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(net(bad[i], &n), -1, "parse \"%s\" fails", bad[i]);
}

/* A cluster with one peer, under [pollguard] keys. */
static void
horizon_conf(char *buf, size_t size, const char *global, const char *wait)
{
	snprintf(buf, size,
	    "[pollguard]\n"			/* 1 */
	    "node = me\n"			/* 2 */
	    "%s"				/* 3, 4 */
	    "[peer p]\n"			/* 5 */
	    "url = http://p/\n"			/* 6 */
	    "[cluster long]\n"			/* 7 */
	    "wait = 1h\n"			/* 8 */
	    "[cluster c]\n"			/* 9 */
	    "wait = %s\n", global, wait);	/* 10 */
}

static void
test_settle_horizon(void)
{
	struct pg_config	*cfg;
	char			 text[512];

	/* settle: 0 or 100ms..10s. */
	if ((cfg = load("[pollguard]\nsettle = 100ms\n", "settle = 100ms"))
	    != NULL) {
		is_int(cfg->settle_ms, 100, "settle = 100ms");
		pg_config_free(cfg);
	}
	if ((cfg = load("[pollguard]\nsettle = 0ms\n", "settle = 0ms"))
	    != NULL) {
		is_int(cfg->settle_ms, 0, "settle = 0ms: off");
		pg_config_free(cfg);
	}
	refuse("[pollguard]\nsettle = 50ms\n", 2, "settle", "settle = 50ms");
	refuse("[cluster c]\nwait = 10s\n[pollguard]\nsettle = 99ms\n", 4,
	    "settle", "settle = 99ms");
	refuse("[pollguard]\nsettle = 1ms\n", 2, "settle", "settle = 1ms");

	/*
	 * The horizon 2 x timeout + 1.5 x settle + 1s must be shorter than
	 * every wait of a cluster with peers; the error names the cluster.
	 */
	horizon_conf(text, sizeof(text), "timeout = 5s\nsettle = 500ms\n",
	    "10s");
	refuse(text, 9, "wait", "horizon 11.75s, wait 10s");
	horizon_conf(text, sizeof(text), "timeout = 3s\nsettle = 2s\n", "10s");
	refuse(text, 9, "wait", "horizon 10s, wait 10s (must be longer)");
	horizon_conf(text, sizeof(text), "timeout = 3s\nsettle = 2s\n",
	    "10001ms");
	if ((cfg = load(text, "horizon 10s, wait 10001ms")) != NULL)
		pg_config_free(cfg);
	horizon_conf(text, sizeof(text), "timeout = 2s\nsettle = 10s\n",
	    "20s");
	refuse(text, 9, "wait", "horizon 20s (settle 10s), wait 20s");
	horizon_conf(text, sizeof(text), "timeout = 2s\nsettle = 10s\n",
	    "21s");
	if ((cfg = load(text, "horizon 20s, wait 21s")) != NULL)
		pg_config_free(cfg);
	horizon_conf(text, sizeof(text), "# defaults\n\n", "10s");
	if ((cfg = load(text, "defaults: horizon 5.75s, wait 10s")) != NULL)
		pg_config_free(cfg);
	horizon_conf(text, sizeof(text), "timeout = 4s\n\n", "10s");
	if ((cfg = load(text, "timeout 4s: horizon 9.75s, wait 10s")) != NULL)
		pg_config_free(cfg);
	horizon_conf(text, sizeof(text), "timeout = 4500ms\n\n", "10s");
	refuse(text, 9, "wait", "timeout 4.5s: horizon 10.75s, wait 10s");
	/* settle 0: no settle round, no horizon to keep. */
	horizon_conf(text, sizeof(text), "timeout = 5s\nsettle = 0\n", "10s");
	if ((cfg = load(text, "settle 0: no horizon rule")) != NULL)
		pg_config_free(cfg);
	/* Standalone clusters have no peers to tell. */
	if ((cfg = load("[pollguard]\ntimeout = 5s\n[cluster c]\nwait = 10s\n",
	    "standalone cluster: no horizon rule")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load("[pollguard]\nnode = me\ntimeout = 5s\n"
	    "[peer me]\nurl = http://me/\n[cluster c]\nwait = 10s\n",
	    "only the node as peer: no horizon rule")) != NULL)
		pg_config_free(cfg);
	if ((cfg = load("[pollguard]\nnode = me\ntimeout = 5s\n"
	    "[peer p]\nurl = http://p/\n[cluster c]\nwait = 10s\npeers =\n",
	    "empty peers: no horizon rule")) != NULL)
		pg_config_free(cfg);
}

static void
test_allow_lines(void)
{
	struct pg_config	*cfg;
	char			 text[1024];
	int			 i;

	if ((cfg = load("[serve]\nallow = 10.0.0.0/8\nallow = 192.0.2.1, "
	    "::1\nallow = 2001:db8::/32\n", "allow on three lines")) != NULL) {
		is_int(cfg->serve.nallow, 4, "allow on three lines add up");
		if (cfg->serve.nallow == 4) {
			is_int(cfg->serve.allow[0].prefix, 8,
			    "allow lines: first entry first");
			is_int(cfg->serve.allow[1].prefix, 32,
			    "allow lines: second entry");
			is_int(cfg->serve.allow[2].prefix, 128,
			    "allow lines: third entry (::1)");
			is_int(cfg->serve.allow[3].prefix, 32,
			    "allow lines: the last line last");
		}
		pg_config_free(cfg);
	}
	/* 64 on two lines fit; one more on a third line does not. */
	strlcpy(text, "[serve]\nallow = ::", sizeof(text));
	for (i = 1; i < PG_ALLOW_MAX / 2; i++)
		strlcat(text, ",::", sizeof(text));
	strlcat(text, "\nallow = ::1", sizeof(text));
	for (i = 1; i < PG_ALLOW_MAX / 2; i++)
		strlcat(text, ",::1", sizeof(text));
	strlcat(text, "\n", sizeof(text));
	if ((cfg = load(text, "allow 64 on two lines")) != NULL) {
		is_int(cfg->serve.nallow, PG_ALLOW_MAX,
		    "allow 64 on two lines");
		pg_config_free(cfg);
	}
	strlcat(text, "allow = 192.0.2.1\n", sizeof(text));
	refuse(text, 4, NULL, "allow 65 on three lines");
	/* Other keys still may not repeat. */
	refuse("[serve]\nallow = ::1\nuser = u\npassword = p\nuser = v\n", 5,
	    "user", "serve user twice");
	refuse("[serve]\nlisten = :1\nlisten = :2\n", 3, "listen",
	    "listen twice");
}

/* "Did you mean": unknown keys and clusters (issue 34). */
static void
test_suggest(void)
{
	struct pg_config	*cfg;
	const char		*no = "did you mean";
	char			 text[PG_CLUSTERS_MAX * (PG_NAME_MAX + 32)];
	char			 id[PG_NAME_MAX + 1];
	size_t			 i;

	is_int(conf_near("wiat", "wait"), 1, "near: two letters swapped");
	is_int(conf_near("max_runtim", "max_runtime"), 1, "near: one left out");
	is_int(conf_near("seetle", "settle"), 1, "near: one changed");
	is_int(conf_near("waitt", "wait"), 1, "near: one more");
	is_int(conf_near("wait", "wait"), -1, "near: the same is not a typo");
	is_int(conf_near("foo", "wait"), -1, "near: not close");
	is_int(conf_near("c2", "c1"), -1, "near: too short to tell");
	is_int(conf_near("nosuch", "mail"), -1, "near: nosuch is not mail");
	memset(id, 'a', PG_NAME_MAX);
	id[PG_NAME_MAX] = '\0';
	is_int(conf_near(id, id + 1), 1, "near: 64 letters and 63");

	refuse("[cluster c]\nwiat = 10s\n", 2, "unknown key 'wiat' in "
	    "[cluster c]; did you mean 'wait'?", "wiat: did you mean wait");
	refuse("[pollguard]\nseetle = 1s\n", 2, "did you mean 'settle'?",
	    "seetle in [pollguard]: did you mean settle");
	refuse("[cluster c]\nwait = 10s\nfailbak = yes\n", 3,
	    "did you mean 'failback'?", "failbak: did you mean failback");
	refuse("[serve]\nmax_conections = 9\n", 2,
	    "did you mean 'max_connections'?", "max_conections");
	refuse("[cluster c]\nwait = 10s\nfoo = 1\n", 3, "foo", "foo");
	ok(strstr(errbuf, no) == NULL, "foo: no suggestion, nothing is near");

	if ((cfg = load("[cluster mail]\nwait = 10s\n[cluster web]\n"
	    "wait = 10s\n[cluster orders.db]\nwait = 10s\n",
	    "three clusters")) != NULL) {
		ok(pg_config_find(cfg, "web", errbuf, sizeof(errbuf)) ==
		    &cfg->clusters[1], "find: web is there");
		ok(pg_config_find(cfg, "mial", errbuf, sizeof(errbuf)) == NULL,
		    "find: no mial");
		like(errbuf, "no [cluster mial]; did you mean 'mail'? "
		    "(clusters: mail, web, orders.db)", "find mial: %s", errbuf);
		ok(pg_config_find(cfg, "nosuch", errbuf, sizeof(errbuf)) ==
		    NULL, "find: no nosuch");
		like(errbuf, "no [cluster nosuch] (clusters: mail, web, "
		    "orders.db)", "find nosuch: %s", errbuf);
		ok(strstr(errbuf, no) == NULL, "find nosuch: nothing near");
		pg_config_free(cfg);
	}
	if ((cfg = load("[pollguard]\nsettle = 1s\n", "no cluster")) !=
	    NULL) {
		ok(pg_config_find(cfg, "mail", errbuf, sizeof(errbuf)) == NULL,
		    "find in none: NULL");
		like(errbuf, "no [cluster mail]; it has no [cluster] section",
		    "find in none: %s", errbuf);
		pg_config_free(cfg);
	}
	/* As many clusters as may be, each of 64 letters: a list cut. */
	text[0] = '\0';
	for (i = 0; i < PG_CLUSTERS_MAX; i++) {
		memset(id, 'a' + i % 26, PG_NAME_MAX);
		snprintf(id + PG_NAME_MAX - 4, 5, "%04zu", i);
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
		    "[cluster %s]\nwait = 10s\n", id);
	}
	if ((cfg = load(text, "256 clusters of 64 letters")) != NULL) {
		id[PG_NAME_MAX - 1] = 'x';	/* the last one, mistyped */
		ok(pg_config_find(cfg, id, errbuf, sizeof(errbuf)) == NULL,
		    "find in 256: NULL");
		like(errbuf, "did you mean '", "find in 256: the near one "
		    "said before the list");
		i = strlen(errbuf);
		ok(i >= 5 && strcmp(errbuf + i - 5, " ...)") == 0,
		    "find in 256: the list cut with ' ...)'");
		ok(i < sizeof(errbuf) - 1, "find in 256: within the buffer");
		pg_config_free(cfg);
	}
}

int
main(void)
{
	const char	*tmp;

	umask(022);
	tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/t_config.XXXXXX",
	    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		err(1, "mkdtemp");
	test_defaults();
	test_every_key();
	test_peers();
	test_syntax();
	test_values();
	test_urls();
	test_strict();
	test_limits();
	test_passwords();
	test_settle_horizon();
	test_allow_lines();
	test_trust();
	test_files();
	test_net();
	test_suggest();
	cleanup();
	return done_testing();
}
