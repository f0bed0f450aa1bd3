/*
 * pollguard-serve: answer peers' questions "how long since your last
 * activity in cluster X?" over HTTP. Under inetd, xinetd, systemd sockets
 * or socat the connection is stdin and stdout; standalone, one process
 * accepts connections in a poll(2) loop. Both hand each connection to the
 * same request path: conn_input, conn_expire and conn_answer.
 *
 * serve never writes state: it opens the state directory read-only.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <libutil.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define CONN_MAX	256		/* open connections, standalone */
#define DRAIN_MS	1000		/* lingering close: at most this long */
#define DRAIN_MAX	(64 * 1024)	/* and this many bytes */
#define ACCEPT_BURST	64		/* accepts per wake-up */

enum conn_state {
	C_READ,		/* reading the request head */
	C_WRITE,	/* writing the answer */
	C_DRAIN,	/* answer sent: read what the client still sends */
	C_DONE
};

struct conn {
	int		 rfd, wfd;
	enum conn_state	 state;
	int64_t		 deadline;	/* ms, CLOCK_MONOTONIC */
	char		*in;
	size_t		 inlen, incap;
	char		*out;
	size_t		 outlen, outoff;
	size_t		 drained;
	int		 family;	/* AF_INET, AF_INET6, 0: unknown */
	unsigned char	 addr[16];
	char		 name[INET6_ADDRSTRLEN];
};

struct server {
	struct tool	 t;
	const char	*confpath;
	struct pg_config *cfg;
	struct pg_state	 state;		/* dirfd -1: none (yet) */
	dev_t		 state_dev;	/* the directory state.dirfd is */
	ino_t		 state_ino;
	int		 state_known;	/* state_dev and state_ino are set */
	char		 auth[PG_AUTH_MAX + 1];	/* expected token, 0-padded */
	/* "Pollguard-Node: NAME": a node that asks itself can tell (peers.c) */
	char		 nodefield[PG_NAME_MAX + 24];
	int		 standalone;
};

static volatile sig_atomic_t	 got_term, got_hup;

static __dead void
usage(void)
{
	fprintf(stderr, "usage: pollguard-serve [-v] [-c file] [-i]\n"
	    "       pollguard-serve [-v] [-c file] [-p pidfile] -l "
	    "[addr]:port\n");
	exit(EX_USAGE);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Which directory the state descriptor is: fixed while it is open. */
static void
state_held(struct server *s)
{
	struct stat	 sb;

	s->state_known = s->state.dirfd != -1 &&
	    fstat(s->state.dirfd, &sb) == 0;
	if (s->state_known) {
		s->state_dev = sb.st_dev;
		s->state_ino = sb.st_ino;
	}
}

/*
 * Take a loaded config into use: the expected credentials and the state
 * directory. A missing state directory is not an error: nothing was ever
 * recorded here, so every cluster answers never.
 */
static int
server_use(struct server *s, struct pg_config *cfg, char *err, size_t elen)
{
	struct pg_state	 st;
	char		 cred[PG_VALUE_MAX * 2];
	char		 auth[PG_AUTH_MAX + 1];

	memset(auth, 0, sizeof(auth));
	if (cfg->serve.user[0] != '\0') {
		snprintf(cred, sizeof(cred), "%s:%s", cfg->serve.user,
		    cfg->serve.password);
		if (pg_base64(cred, strlen(cred), auth, sizeof(auth)) == -1) {
			snprintf(err, elen, "[serve] user and password are too "
			    "long");
			explicit_bzero(cred, sizeof(cred));
			return -1;
		}
		explicit_bzero(cred, sizeof(cred));
	}
	st.dirfd = -1;
	if (pg_state_open(&st, cfg->state, 0, err, elen) == -1 &&
	    errno != ENOENT)
		return -1;
	pg_state_close(&s->state);
	s->state = st;
	state_held(s);
	memcpy(s->auth, auth, sizeof(auth));
	explicit_bzero(auth, sizeof(auth));
	pg_config_free(s->cfg);
	s->cfg = cfg;
	snprintf(s->nodefield, sizeof(s->nodefield), "Pollguard-Node: %s\r\n",
	    cfg->node);
	return 0;
}

/*
 * The state directory, opened when it appeared since, and again when it
 * was removed or replaced: the records are in the one at its path now.
 */
static struct pg_state *
server_state(struct server *s)
{
	struct stat	 now;
	char		 err[PG_ERR_MAX];
	int		 moved;

	if (s->state.dirfd != -1) {
		if (stat(s->cfg->state, &now) == -1)
			moved = errno == ENOENT || errno == ENOTDIR;
		else
			moved = s->state_known &&
			    (now.st_dev != s->state_dev ||
			    now.st_ino != s->state_ino);
		if (moved)
			pg_state_close(&s->state);
	}
	if (s->state.dirfd == -1) {
		pg_state_open(&s->state, s->cfg->state, 0, err, sizeof(err));
		state_held(s);
	}
	return s->state.dirfd == -1 ? NULL : &s->state;
}

/*
 * Who is on the other end: the socket's peer (from, when accept gave it),
 * or what socat says.
 */
static void
conn_peer(struct conn *c, int fd, const struct sockaddr_storage *from)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len = sizeof(ss);
	const char		*env;
	char			 buf[INET6_ADDRSTRLEN + 2];
	size_t			 n;
	int			 v6 = 0;

	c->family = 0;
	strlcpy(c->name, "-", sizeof(c->name));
	if (from != NULL)
		memcpy(&ss, from, sizeof(ss));
	else if (getpeername(fd, (struct sockaddr *)&ss, &len) == -1)
		ss.ss_family = AF_UNSPEC;
	if (ss.ss_family == AF_INET) {
		c->family = AF_INET;
		memcpy(c->addr, &sin->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6) {
		v6 = 1;
	} else if ((env = getenv("SOCAT_PEERADDR")) != NULL &&
	    (n = strlen(env)) < sizeof(buf)) {
		/* socat's EXEC hands over a socket pair, not the socket. */
		memcpy(buf, env, n + 1);
		if (buf[0] == '[' && n > 2 && buf[n - 1] == ']') {
			buf[n - 1] = '\0';
			memmove(buf, buf + 1, n - 1);
		}
		if (inet_pton(AF_INET, buf, c->addr) == 1)
			c->family = AF_INET;
		else if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) == 1)
			v6 = 1;
	}
	if (v6 && IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
		c->family = AF_INET;
		memcpy(c->addr, &sin6->sin6_addr.s6_addr[12], 4);
	} else if (v6) {
		c->family = AF_INET6;
		memcpy(c->addr, &sin6->sin6_addr, 16);
	}
	if (c->family != 0)
		inet_ntop(c->family, c->addr, c->name, sizeof(c->name));
}

static int
conn_allowed(const struct server *s, const struct conn *c)
{
	size_t	 i;

	if (s->cfg->serve.nallow == 0)
		return 1;
	for (i = 0; i < s->cfg->serve.nallow; i++)
		if (c->family != 0 &&
		    pg_net_match(&s->cfg->serve.allow[i], c->family, c->addr))
			return 1;
	return 0;
}

/* Constant time: the token is compared whole, padded to a fixed size. */
static int
auth_ok(const struct server *s, const struct pg_request *req)
{
	char	 got[PG_AUTH_MAX + 1];
	int	 ok;

	if (s->auth[0] == '\0')
		return 1;
	memset(got, 0, sizeof(got));
	strlcpy(got, req->auth, sizeof(got));
	ok = pg_equal_ct(got, s->auth, sizeof(got)) && req->has_auth;
	explicit_bzero(got, sizeof(got));
	return ok;
}

/* One cluster's elapsed: 1 and *ms, 0 never, -1 the record is damaged. */
static int
elapsed(struct server *s, const char *id, const struct pg_stamp *now,
    int64_t *ms)
{
	struct pg_state	*st;
	struct pg_stamp	 rec;
	int		 r;

	if ((st = server_state(s)) == NULL)
		return 0;
	if ((r = pg_state_read(st, id, &rec)) == -1) {
		tool_log(&s->t, LOG_ERR, "%s/%s: %s", st->path, id,
		    errno == EBADMSG ? "not a valid state record" :
		    strerror(errno));
		return -1;
	}
	if (r == 1)
		*ms = pg_record_elapsed(&rec, now);
	return r;
}

/*
 * The body of a 200 answer to the question peers ask, about one cluster,
 * or the status of a failure. It is short, and written into buf: the
 * memory stream of the other answers clears a buffer of BUFSIZ bytes
 * first, which was half the work of a request.
 */
static int
body_one(struct server *s, const struct pg_request *req, char *buf,
    size_t len, size_t *outlen)
{
	const struct pg_cluster	*c;
	struct pg_stamp		 now;
	int64_t			 ms;
	int			 r, n;

	if (pg_stamp_now(&now) == -1)
		return 500;
	if ((c = pg_config_cluster(s->cfg, req->cluster)) == NULL)
		return 404;
	if ((r = elapsed(s, c->id, &now, &ms)) == -1)
		return 500;
	if (r == 0)
		n = snprintf(buf, len, "never\n");
	else
		n = snprintf(buf, len, "%" PRId64 "\n", ms);
	if (n < 0 || (size_t)n >= len)
		return 500;
	*outlen = n;
	return 200;
}

/* The body of any other 200 answer, or the status of a failure. */
static int
body(struct server *s, const struct pg_request *req, FILE *fp,
    const char **ctype)
{
	const struct pg_cluster	*c;
	struct pg_stamp		 now;
	int64_t			 ms;
	size_t			 i;
	int			 r;

	if (pg_stamp_now(&now) == -1)
		return 500;
	if (req->target == PG_TARGET_ALL) {
		for (i = 0; i < s->cfg->nclusters; i++) {
			c = &s->cfg->clusters[i];
			if ((r = elapsed(s, c->id, &now, &ms)) == 1)
				fprintf(fp, "%s %" PRId64 "\n", c->id, ms);
			else if (r == 0)
				fprintf(fp, "%s never\n", c->id);
		}
		return 200;
	}
	*ctype = "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n";
	fprintf(fp, "# HELP pollguard_build_info The pollguard version "
	    "answering.\n# TYPE pollguard_build_info gauge\n"
	    "pollguard_build_info{version=\"%s\"} 1\n", PG_VERSION);
	fprintf(fp, "# HELP pollguard_wait_seconds The cluster's wait time."
	    "\n# TYPE pollguard_wait_seconds gauge\n");
	for (i = 0; i < s->cfg->nclusters; i++)
		fprintf(fp, "pollguard_wait_seconds{cluster=\"%s\"} %" PRId64
		    ".%03" PRId64 "\n", s->cfg->clusters[i].id,
		    s->cfg->clusters[i].wait_ms / 1000,
		    s->cfg->clusters[i].wait_ms % 1000);
	fprintf(fp, "# HELP pollguard_last_activity_seconds Seconds since "
	    "this node's last activity in the cluster; absent: never.\n"
	    "# TYPE pollguard_last_activity_seconds gauge\n");
	for (i = 0; i < s->cfg->nclusters; i++)
		if (elapsed(s, s->cfg->clusters[i].id, &now, &ms) == 1)
			fprintf(fp, "pollguard_last_activity_seconds{cluster="
			    "\"%s\"} %" PRId64 ".%03" PRId64 "\n",
			    s->cfg->clusters[i].id, ms / 1000, ms % 1000);
	return 200;
}

/*
 * Decide the answer to a request (status is what the parser said, or 408)
 * and put it in c->out. Refusals are logged, one escaped line each.
 */
static void
conn_answer(struct server *s, struct conn *c, int status,
    const struct pg_request *req)
{
	const char	*extra = NULL, *ctype = NULL, *why = "";
	char		*text = NULL, line[256], head[512], one[32];
	size_t		 textlen = 0, n;
	FILE		*fp = NULL;
	int		 hlen;

	if (!conn_allowed(s, c)) {
		status = 403;
		why = c->family == 0 ? " (client address unknown)" : "";
	} else if (status == 200 && !auth_ok(s, req)) {
		status = 401;
		extra = "WWW-Authenticate: Basic realm=\"pollguard\"\r\n";
		why = req->has_auth ? " (wrong credentials)" :
		    " (no credentials)";
	} else if (status == 200 && req->target == PG_TARGET_ONE) {
		status = body_one(s, req, one, sizeof(one), &textlen);
		if (status == 200 && (text = strdup(one)) == NULL)
			status = 500;
		if (status == 200)
			extra = s->nodefield;
		if (status == 404)
			why = " (no such cluster here)";
	} else if (status == 200) {
		if ((fp = open_memstream(&text, &textlen)) == NULL)
			status = 500;
		else {
			status = body(s, req, fp, &ctype);
			if (fclose(fp) != 0)
				status = 500;
			if (status != 200) {
				free(text);
				text = NULL;
			}
		}
	}
	if (status == 405)
		extra = "Allow: GET, HEAD\r\n";
	if (status != 200) {
		textlen = strlen(pg_status_text(status)) + 1;
		if ((text = malloc(textlen + 1)) != NULL)
			snprintf(text, textlen + 1, "%s\n",
			    pg_status_text(status));
		else
			textlen = 0;
	}
	if (ctype != NULL)
		extra = ctype;
	hlen = pg_response(head, sizeof(head), req->minor, status, extra,
	    NULL, textlen, 1);
	c->outlen = c->outoff = 0;
	if (hlen > 0 && (c->out = malloc(hlen + textlen)) != NULL) {
		memcpy(c->out, head, hlen);
		if (!req->head && text != NULL) {
			memcpy(c->out + hlen, text, textlen);
			c->outlen = hlen + textlen;
		} else
			c->outlen = hlen;
	}
	free(text);

	/* The request line, as far as it came, for the log. */
	n = req->linelen > 0 ? req->linelen : c->inlen;
	if (n > 200)
		n = 200;
	if (n > 0)
		memcpy(line, c->in, n);
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (status >= 400)
		tool_log(&s->t, LOG_NOTICE, "client %s: %d %s%s: \"%s\"",
		    c->name, status, pg_status_text(status), why, line);
	else if (s->t.verbose)
		tool_log(&s->t, LOG_INFO, "client %s: %d \"%s\"", c->name,
		    status, line);
	c->state = C_WRITE;
	c->deadline = now_ms() + s->cfg->timeout_ms;
}

/* Bytes arrived: answer once the head is complete or cannot be. */
static void
conn_input(struct server *s, struct conn *c)
{
	struct pg_request	 req;
	int			 status;

	if ((status = pg_request_parse(c->in, c->inlen, &req)) != 0)
		conn_answer(s, c, status, &req);
}

/* The client closed: a partial request is a bad one; none needs no answer. */
static void
conn_eof(struct server *s, struct conn *c)
{
	struct pg_request	 req;

	if (c->inlen == 0) {
		c->state = C_DONE;
		return;
	}
	pg_request_parse(c->in, c->inlen, &req);
	conn_answer(s, c, 400, &req);
}

/* The deadline passed while reading: 408. */
static void
conn_expire(struct server *s, struct conn *c)
{
	struct pg_request	 req;

	pg_request_parse(c->in ? c->in : "", c->inlen, &req);
	conn_answer(s, c, 408, &req);
}

/*
 * Read what is there. 1: read something, 0: nothing now (EAGAIN), -1:
 * end of input or an error, the connection is over.
 */
static int
conn_read(struct conn *c)
{
	char	*nb;
	ssize_t	 n;

	if (c->inlen == c->incap) {
		/* The parser decides long before the buffer is full. */
		if (c->incap >= PG_REQ_HEAD_MAX + 1)
			return -1;
		c->incap = c->incap == 0 ? 1024 : c->incap * 2;
		if (c->incap > PG_REQ_HEAD_MAX + 1)
			c->incap = PG_REQ_HEAD_MAX + 1;
		if ((nb = realloc(c->in, c->incap)) == NULL)
			return -1;
		c->in = nb;
	}
	n = read(c->rfd, c->in + c->inlen, c->incap - c->inlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	c->inlen += n;
	return 1;
}

/* Write what is left. 1: all written, 0: not yet, -1: failed. */
static int
conn_write(struct conn *c)
{
	ssize_t	 n;

	while (c->outoff < c->outlen) {
		n = write(c->wfd, c->out + c->outoff, c->outlen - c->outoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		c->outoff += n;
	}
	return 1;
}

/*
 * The answer is out. Closing now, with bytes of the client still unread,
 * would make the kernel reset the connection and could destroy the
 * answer in flight: shut down our side and read until the client closes.
 */
static void
conn_drain_start(struct conn *c)
{
	if (shutdown(c->wfd, SHUT_WR) == -1) {
		c->state = C_DONE;
		return;
	}
	c->state = C_DRAIN;
	c->deadline = now_ms() + DRAIN_MS;
}

static void
conn_drain(struct conn *c)
{
	char	 buf[4096];
	ssize_t	 n;

	while ((n = read(c->rfd, buf, sizeof(buf))) > 0)
		if ((c->drained += n) >= DRAIN_MAX)
			break;
	if (n == 0 || c->drained >= DRAIN_MAX ||
	    (n == -1 && errno != EAGAIN && errno != EINTR))
		c->state = C_DONE;
}

static void
conn_free(struct conn *c)
{
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
}

/*
 * Bind first, then become run_as, before any request is read. On failure
 * return the exit status (EX_NOUSER, EX_OSERR), the reason in err.
 */
static int
drop_privileges(struct server *s, char *err, size_t elen)
{
	struct passwd	*pw;
	const char	*user = s->cfg->serve.run_as;

	if (geteuid() != 0 || user[0] == '\0')
		return 0;
	if ((pw = getpwnam(user)) == NULL) {
		snprintf(err, elen, "run_as: no user '%s'", user);
		return EX_NOUSER;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) == -1 ||
	    setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1) {
		snprintf(err, elen, "run_as %s: %s", user, strerror(errno));
		return EX_OSERR;
	}
	if (getuid() != pw->pw_uid || geteuid() != pw->pw_uid ||
	    getgid() != pw->pw_gid || getegid() != pw->pw_gid ||
	    (pw->pw_uid != 0 && setuid(0) != -1)) {
		snprintf(err, elen, "run_as %s: privileges not dropped", user);
		return EX_OSERR;
	}
	return 0;
}

/* inetd mode: the answer is out; the lingering close (conn_drain_start). */
static void
inetd_linger(struct conn *c)
{
	struct pollfd	 pfd;
	int		 r;

	conn_drain_start(c);
	pfd.fd = c->rfd;
	pfd.events = POLLIN;
	while (c->state == C_DRAIN) {
		if ((r = poll(&pfd, 1, (int)(c->deadline - now_ms() > 0 ?
		    c->deadline - now_ms() : 0))) == 0)
			break;
		if (r > 0)
			conn_drain(c);
	}
}

/*
 * inetd mode: one connection on stdin and stdout. A config that could not
 * be loaded (err says why) or a run_as that fails still gets the client
 * an answer (500), then exit 78 or the run_as failure's status.
 */
static int
serve_inetd(struct server *s, const char *err)
{
	struct pollfd		 pfd;
	struct conn		 c;
	char			 buf[256], msg[PG_ERR_MAX];
	int64_t			 end;
	int			 r, n, code = EX_CONFIG;

	memset(&c, 0, sizeof(c));
	c.rfd = STDIN_FILENO;
	c.wfd = STDOUT_FILENO;
	conn_peer(&c, c.rfd, NULL);
	if (err == NULL && (code = drop_privileges(s, msg, sizeof(msg))) != 0)
		err = msg;
	if (err != NULL) {
		tool_error("%s", err);
		n = pg_response(buf, sizeof(buf), 1, 500, NULL,
		    "Internal Server Error\n", 22, 0);
		if (n > 0 && pg_write_all(c.wfd, buf, n) == 0)
			inetd_linger(&c);
		return code;
	}
	/* A backstop: whatever happens, this process does not linger. */
	alarm((s->cfg->timeout_ms + DRAIN_MS) / 1000 + 5);

	end = now_ms() + s->cfg->timeout_ms;
	pfd.fd = c.rfd;
	pfd.events = POLLIN;
	while (c.state == C_READ) {
		r = poll(&pfd, 1, (int)(end - now_ms() > 0 ? end - now_ms() :
		    0));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == 0) {
			conn_expire(s, &c);
			break;
		}
		if ((r = conn_read(&c)) == -1) {
			conn_eof(s, &c);
			break;
		}
		if (r == 1)
			conn_input(s, &c);
	}
	if (c.state == C_WRITE && pg_write_all(c.wfd, c.out, c.outlen) == 0)
		inetd_linger(&c);
	conn_free(&c);
	return 0;
}

/*
 * ":port", "addr:port" or "[addr]:port" into *ss, address and port; ":port"
 * is IPv6's any address. Exit 64 when it is none of these.
 */
static void
listen_parse(const char *spec, struct sockaddr_storage *ssp)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	char			 host[INET6_ADDRSTRLEN + 2];
	const char		*colon, *errstr;
	size_t			 n;
	int			 port;

	if ((colon = strrchr(spec, ':')) == NULL ||
	    (n = colon - spec) >= sizeof(host))
		tool_die(EX_USAGE, "listen: '%s' is not [addr]:port", spec);
	port = strtonum(colon + 1, 0, 65535, &errstr);
	if (errstr != NULL || colon[1] == '\0' ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		tool_die(EX_USAGE, "listen: '%s': port %s", spec,
		    errstr ? errstr : "missing");
	memcpy(host, spec, n);
	host[n] = '\0';
	memset(&ss, 0, sizeof(ss));
	if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &sin6->sin6_addr) != 1)
			tool_die(EX_USAGE, "listen: '%s': not an IPv6 address",
			    spec);
		ss.ss_family = AF_INET6;
	} else if (n > 0) {
		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			tool_die(EX_USAGE, "listen: '%s': not an IPv4 address",
			    spec);
		ss.ss_family = AF_INET;
	} else
		ss.ss_family = AF_INET6;	/* all addresses, both families */
	if (ss.ss_family == AF_INET6)
		sin6->sin6_port = htons(port);
	else
		sin->sin_port = htons(port);
	*ssp = ss;
}

/* The address listen_parse made of spec into a bound, listening socket. */
static int
listen_on(const char *spec, const struct sockaddr_storage *ssp, char *name,
    size_t nlen)
{
	struct sockaddr_storage	 ss = *ssp;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	char			 addr[INET6_ADDRSTRLEN];
	socklen_t		 len;
	in_port_t		 port;
	int			 fd, on = 1, off = 0, any = spec[0] == ':';

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1 && any && errno == EAFNOSUPPORT) {
		port = sin6->sin6_port;
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = AF_INET;
		sin->sin_port = port;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
	}
	if (fd == -1)
		tool_die_errno(EX_OSERR, "socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss.ss_family == AF_INET6) {
		if (any)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off,
			    sizeof(off));
		len = sizeof(*sin6);
	} else
		len = sizeof(*sin);
	if (bind(fd, (struct sockaddr *)&ss, len) == -1)
		tool_die_errno(EX_OSERR, "listen on %s", spec);
	if (listen(fd, 128) == -1)
		tool_die_errno(EX_OSERR, "listen on %s", spec);
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		tool_die_errno(EX_OSERR, "getsockname");
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, addr, sizeof(addr));
		snprintf(name, nlen, "[%s]:%u", addr, ntohs(sin6->sin6_port));
	} else {
		inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr));
		snprintf(name, nlen, "%s:%u", addr, ntohs(sin->sin_port));
	}
	return fd;
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_term = 1;
}

/* SIGHUP: a new config, or the old one and a log line saying why. */
static void
reload(struct server *s, const char *listening)
{
	struct pg_config	*cfg;
	char			 err[PG_ERR_MAX], old[PG_VALUE_MAX];

	strlcpy(old, s->cfg->serve.listen, sizeof(old));
	if (pg_config_load(s->confpath, &cfg, err, sizeof(err)) == -1 ||
	    server_use(s, cfg, err, sizeof(err)) == -1) {
		tool_error("reload failed, keeping the old config: %s", err);
		return;
	}
	if (listening != NULL && strcmp(old, s->cfg->serve.listen) != 0)
		tool_log(&s->t, LOG_WARNING, "listen changed in %s; it takes "
		    "effect at the next start", s->confpath);
	tool_log(&s->t, LOG_INFO, "reloaded %s", s->confpath);
}

/*
 * Descriptors for CONN_MAX connections and a few more, as far as the hard
 * limit allows. Below that, accept fails with EMFILE before the limit is
 * reached, and clients beyond it wait in the listen queue instead of
 * being answered 503.
 */
static void
raise_nofile(struct server *s)
{
	struct rlimit	 rl;
	rlim_t		 want = CONN_MAX + 16;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ?
	    rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < want)
		tool_log(&s->t, LOG_WARNING, "open file limit %llu: fewer than "
		    "%d connections fit; raise it (ulimit -n)",
		    (unsigned long long)rl.rlim_cur, CONN_MAX);
}

/* A connection beyond the limit: a short 503 if it fits, then close. */
static void
refuse_busy(struct server *s, int fd, const struct sockaddr_storage *from)
{
	struct conn	 c;
	char		 buf[256];
	int		 n, drained = 0;

	memset(&c, 0, sizeof(c));
	conn_peer(&c, fd, from);
	/*
	 * Read what the client already sent: closing with it unread would
	 * reset the connection and could take the 503 with it.
	 */
	while (read(fd, buf, sizeof(buf)) > 0 && ++drained < 32)
		;
	n = pg_response(buf, sizeof(buf), 1, 503, NULL,
	    "Service Unavailable\n", 20, 0);
	/* Best effort: a client that does not read it misses nothing. */
	if (n > 0 && write(fd, buf, n) == -1 && errno != EAGAIN)
		n = -1;
	close(fd);
	tool_log(&s->t, LOG_NOTICE, "client %s: 503 Service Unavailable "
	    "(%d connections open)", c.name, CONN_MAX);
}

static struct pidfh	*exit_pidfile;

static void
remove_pidfile(void)
{
	if (exit_pidfile != NULL)
		pidfile_remove(exit_pidfile);
	exit_pidfile = NULL;
}

static int
serve_standalone(struct server *s, const char *spec, const char *pidpath)
{
	struct sigaction	 sa;
	struct sockaddr_storage	 ss, from;	/* listen address; a client */
	struct pollfd		 pfd[CONN_MAX + 1];
	struct conn		*conns[CONN_MAX + 1];
	struct conn		*c;
	struct pidfh		*pfh = NULL;
	sigset_t		 block, empty;
	struct timespec		 ts;
	char			 name[INET6_ADDRSTRLEN + 16], msg[PG_ERR_MAX];
	int64_t			 now, next;
	pid_t			 other;
	socklen_t		 sslen;
	size_t			 nconn = 0, i, j;
	int			 lfd, fd, r, k;
	int64_t			 paused = 0;

	/* A bad address is a usage error: it creates no pidfile. */
	listen_parse(spec, &ss);
	if (pidpath != NULL &&
	    (pfh = pidfile_open(pidpath, 0644, &other)) == NULL) {
		if (errno == EEXIST)
			tool_die(EX_CANTCREAT, "%s: already running as PID %d",
			    pidpath, (int)other);
		tool_die_errno(EX_CANTCREAT, "%s", pidpath);
	}
	/* From now on every exit removes it, also when binding fails. */
	exit_pidfile = pfh;
	atexit(remove_pidfile);
	raise_nofile(s);
	lfd = listen_on(spec, &ss, name, sizeof(name));
	if ((r = drop_privileges(s, msg, sizeof(msg))) != 0)
		tool_die(r, "%s", msg);
	if (pfh != NULL && pidfile_write(pfh) == -1)
		tool_die_errno(EX_CANTCREAT, "%s", pidpath);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&empty);

	tool_log(&s->t, LOG_INFO, "listening on %s", name);
	for (;;) {
		if (got_hup) {
			got_hup = 0;
			reload(s, spec);
		}
		if (got_term && lfd != -1) {
			close(lfd);
			lfd = -1;
		}
		if (lfd == -1 && nconn == 0)
			break;

		/* Expire, write, drain; work out the next deadline. */
		now = now_ms();
		next = now + 60000;
		for (i = 0; i < nconn; i++) {
			c = conns[i];
			if (c->state == C_READ && now >= c->deadline)
				conn_expire(s, c);
			if (c->state == C_WRITE && now >= c->deadline)
				c->state = C_DONE;
			if (c->state == C_DRAIN && now >= c->deadline)
				c->state = C_DONE;
			if (c->state == C_WRITE && (r = conn_write(c)) != 0) {
				if (r == 1)
					conn_drain_start(c);
				else
					c->state = C_DONE;
			}
			if (c->state != C_DONE && c->deadline < next)
				next = c->deadline;
		}
		/* Close what is done, keeping the array dense. */
		for (i = j = 0; i < nconn; i++) {
			if (conns[i]->state == C_DONE) {
				close(conns[i]->rfd);
				conn_free(conns[i]);
				free(conns[i]);
			} else
				conns[j++] = conns[i];
		}
		nconn = j;
		if (lfd == -1 && nconn == 0)
			break;

		k = 0;
		if (lfd != -1 && now >= paused) {
			pfd[k].fd = lfd;
			pfd[k].events = POLLIN;
			k++;
		} else if (lfd != -1 && paused < next)
			next = paused;
		for (i = 0; i < nconn; i++) {
			pfd[k + i].fd = conns[i]->rfd;
			pfd[k + i].events = conns[i]->state == C_WRITE ?
			    POLLOUT : POLLIN;
		}
		now = now_ms();
		ts.tv_sec = next > now ? (next - now) / 1000 : 0;
		ts.tv_nsec = next > now ? (next - now) % 1000 * 1000000 : 0;
		r = ppoll(pfd, k + nconn, &ts, &empty);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			tool_die_errno(EX_OSERR, "poll");
		}
		for (i = 0; i < nconn; i++) {
			if (pfd[k + i].revents == 0)
				continue;
			c = conns[i];
			if (c->state == C_READ) {
				if ((r = conn_read(c)) == 1)
					conn_input(s, c);
				else if (r == -1)
					conn_eof(s, c);
			} else if (c->state == C_DRAIN)
				conn_drain(c);
		}
		if (k == 0 || pfd[0].revents == 0)
			continue;
		for (i = 0; i < ACCEPT_BURST; i++) {
			sslen = sizeof(from);
			memset(&from, 0, sizeof(from));
			fd = accept4(lfd, (struct sockaddr *)&from, &sslen,
			    SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (fd == -1) {
				/* Out of descriptors: let others finish. */
				if (errno == EMFILE || errno == ENFILE) {
					tool_log(&s->t, LOG_WARNING, "accept: "
					    "%s", strerror(errno));
					paused = now_ms() + 100;
				}
				break;
			}
			if (nconn == CONN_MAX) {
				refuse_busy(s, fd, &from);
				continue;
			}
			if ((c = calloc(1, sizeof(*c))) == NULL) {
				close(fd);
				break;
			}
			c->rfd = c->wfd = fd;
			c->deadline = now_ms() + s->cfg->timeout_ms;
			conn_peer(c, fd, &from);
			conns[nconn++] = c;
		}
	}
	tool_log(&s->t, LOG_INFO, "exiting");
	return 0;
}

/* inetd, xinetd, systemd (Accept=yes) and socat all give a socket. */
static int
stdin_is_socket(void)
{
	struct stat	 sb;

	return fstat(STDIN_FILENO, &sb) == 0 && S_ISSOCK(sb.st_mode);
}

int
main(int argc, char *argv[])
{
	static struct server	 s;	/* static: reachable until exit */
	struct pg_config	*cfg;
	const char		*listen = NULL, *pidpath = NULL, *conf = NULL;
	char			 err[PG_ERR_MAX], spec[PG_VALUE_MAX];
	int			 ch, inetd = 0, loaded;

	memset(&s, 0, sizeof(s));
	s.state.dirfd = -1;
	while ((ch = getopt(argc, argv, "c:il:p:v")) != -1) {
		switch (ch) {
		case 'c':
			conf = optarg;
			break;
		case 'i':
			inetd = 1;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'p':
			pidpath = optarg;
			break;
		case 'v':
			s.t.verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (argc != optind || (inetd && (listen != NULL || pidpath != NULL)))
		usage();
	s.confpath = pg_config_path(conf);
	signal(SIGPIPE, SIG_IGN);
	openlog("pollguard-serve", LOG_PID, LOG_DAEMON);

	/*
	 * One load decides the mode and serves it. Errors wait until the
	 * mode is known: under inetd, stderr may be the client's socket.
	 */
	loaded = pg_config_load(s.confpath, &cfg, err, sizeof(err)) == 0;
	if (loaded && server_use(&s, cfg, err, sizeof(err)) == -1) {
		pg_config_free(cfg);
		loaded = 0;
	}
	if (!inetd && listen == NULL && loaded &&
	    s.cfg->serve.listen[0] != '\0') {
		strlcpy(spec, s.cfg->serve.listen, sizeof(spec));
		listen = spec;
	}
	/*
	 * Without -i, a config that cannot be loaded may hide a listen key:
	 * with -p, or with no connection on stdin (a person, a service
	 * manager), say so on stderr rather than answer a client that is
	 * not there.
	 */
	if (!loaded && !inetd && listen == NULL &&
	    (pidpath != NULL || !stdin_is_socket()))
		tool_die(EX_CONFIG, "%s", err);
	if (inetd || listen == NULL) {
		if (pidpath != NULL)
			usage();
		tool_stderr = 0;
		return serve_inetd(&s, loaded ? NULL : err);
	}
	if (!loaded)
		tool_die(EX_CONFIG, "%s", err);
	return serve_standalone(&s, listen, pidpath);
}
