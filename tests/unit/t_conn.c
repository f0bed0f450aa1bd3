/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for conn.c, one client connection, over a socket pair: a
 * request that arrives in pieces, a head too large, the client's end of
 * input before and in the middle of a request, the deadline, a client
 * that reads slowly, the limits of the lingering close, the 403 of the
 * allow list at once, the 503 beyond the connection limit, and run_as.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sysexits.h>
#include <unistd.h>

#include "pollguard.h"
#include "tap.h"

#define REQ	"GET /v1/elapsed/x HTTP/1.1\r\nHost: x\r\n\r\n"

static struct pg_config	 cfg;	/* no clusters, no state: 404 */
static struct pg_state	 st = { .dirfd = -1 };
static int		 cl;	/* the client's end */

/* A connection on one end of a new socket pair; the client gets the other. */
static struct pg_conn *
conn(const struct sockaddr_storage *from)
{
	struct pg_conn	*c;
	int		 sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		err(1, "socketpair");
	cl = sv[1];
	if ((c = pg_conn_new(sv[0], sv[0], from, &cfg)) == NULL)
		err(1, "pg_conn_new");
	return c;
}

static void
say(const char *s)
{
	if (write(cl, s, strlen(s)) != (ssize_t)strlen(s))
		err(1, "write");
}

/* What the client reads up to the end of input, as a string. */
static char *
hear(void)
{
	static char	 buf[4096];
	size_t		 n = 0;
	ssize_t		 r;

	while (n < sizeof(buf) - 1 &&
	    (r = read(cl, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
	return buf;
}

static struct sockaddr_storage *
addr(const char *s)
{
	static struct sockaddr_storage	 ss;
	struct sockaddr_in		*sin = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, s, &sin->sin_addr);
	return &ss;
}

static void
pieces(void)
{
	struct pg_conn	*c = conn(NULL);
	const char	*part[] = { "GET /v1/ela", "psed/x HTTP/1.1\r\nHo",
	    "st: x\r\n", "\r" };
	size_t		 i;
	int		 answered = 0;

	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		say(part[i]);
		answered += pg_conn_ready(c, &cfg, &st);
	}
	ok(answered == 0 && c->state == PG_CONN_READ,
	    "a request in pieces: no answer before the head is complete");
	ok(pg_conn_ready(c, &cfg, &st) == 0, "no input: no answer");
	say("\n");
	is_int(pg_conn_ready(c, &cfg, &st), 1, "the last piece: answered");
	is_int(c->state, PG_CONN_WRITE, "answered: writing");
	is_str(c->reply.log, "client -: 404 Not Found (no such cluster "
	    "here): \"GET /v1/elapsed/x HTTP/1.1\"", "the log line");
	is_int(c->reply.level, LOG_NOTICE, "at LOG_NOTICE");
	say("more");
	pg_conn_write(c);
	is_int(c->state, PG_CONN_DRAIN, "written, bytes of the client "
	    "unread: draining");
	like(hear(), "HTTP/1.1 404 Not Found\r\n", "the client has the 404 "
	    "and the end of input");
	pg_conn_ready(c, &cfg, &st);
	is_int(c->state, PG_CONN_DRAIN, "the client's bytes are drained");
	close(cl);
	pg_conn_ready(c, &cfg, &st);
	is_int(c->state, PG_CONN_DONE, "the client closed: done");
	pg_conn_free(c);
}

/*
 * One whole request head and nothing after it: closed once written, no
 * drain. Bytes after the head, read with it: drained.
 */
static void
whole(void)
{
	struct pg_conn	*c = conn(NULL);

	say(REQ);
	is_int(pg_conn_ready(c, &cfg, &st), 1, "a whole head: answered");
	pg_conn_write(c);
	is_int(c->state, PG_CONN_DONE, "nothing more sent: done once "
	    "written, no drain");
	pg_conn_free(c);
	like(hear(), "HTTP/1.1 404 Not Found\r\n", "the client has the "
	    "answer and the end of input");
	close(cl);

	c = conn(NULL);
	say(REQ);
	close(cl);
	pg_conn_ready(c, &cfg, &st);
	pg_conn_write(c);
	is_int(c->state, PG_CONN_DONE, "the client closed after its "
	    "request: done");
	pg_conn_free(c);

	c = conn(NULL);
	say(REQ "GET /");
	pg_conn_ready(c, &cfg, &st);
	pg_conn_write(c);
	is_int(c->state, PG_CONN_DRAIN, "more than one head read: "
	    "draining");
	like(hear(), "HTTP/1.1 404 Not Found\r\n", "the client has the "
	    "answer");
	close(cl);
	pg_conn_ready(c, &cfg, &st);
	is_int(c->state, PG_CONN_DONE, "then its end: done");
	pg_conn_free(c);
}

/* The answer to what the client sent, then its end of input. */
static void
bad(const char *what, const char *in, const char *log)
{
	struct pg_conn	*c = conn(NULL);
	size_t		 n;
	int		 answered = 0;

	for (n = 0; in != NULL && n < strlen(in) && !answered; n += 1000) {
		if (write(cl, in + n, strlen(in) - n > 1000 ? 1000 :
		    strlen(in) - n) == -1)
			err(1, "write");
		answered = pg_conn_ready(c, &cfg, &st);
	}
	shutdown(cl, SHUT_WR);
	while (!answered && c->state == PG_CONN_READ)
		answered = pg_conn_ready(c, &cfg, &st);
	if (log == NULL)
		ok(!answered && c->state == PG_CONN_DONE, "%s: done, no answer",
		    what);
	else {
		ok(answered && c->state == PG_CONN_WRITE, "%s: answered", what);
		like(c->reply.log, log, "%s: the log line", what);
	}
	close(cl);
	pg_conn_free(c);
}

static void
bounds(void)
{
	char	*big;

	bad("end of input, nothing sent", NULL, NULL);
	bad("end of input mid-request", "GET /v1/el",
	    "client -: 400 Bad Request (the head ended early): \"GET /v1/el\"");
	if ((big = malloc(PG_REQ_HEAD_MAX * 2)) == NULL)
		err(1, NULL);
	memset(big, 'a', PG_REQ_HEAD_MAX * 2 - 1);
	memcpy(big, "GET /v1/elapsed/x HTTP/1.1\r\nX: ", 31);
	big[PG_REQ_HEAD_MAX * 2 - 1] = '\0';
	bad("a head too large", big, ": 431 ");
	free(big);
}

static void
deadline(void)
{
	struct pg_conn	*c = conn(NULL);
	int64_t		 ns;

	ok(pg_clock(PG_CONN_CLOCK, &ns) == 0 && c->deadline >= ns / 1000000 &&
	    c->deadline <= ns / 1000000 + cfg.timeout_ms,
	    "the deadline: the timeout");
	is_int(pg_conn_expire(c, c->deadline - 1, &cfg, &st), 0,
	    "before the deadline: nothing");
	say("GET /v1/el");
	pg_conn_ready(c, &cfg, &st);
	is_int(pg_conn_expire(c, c->deadline, &cfg, &st), 1,
	    "at the deadline: answered");
	like(c->reply.log, ": 408 Request Timeout: \"GET /v1/el\"",
	    "408, with the request so far");
	pg_conn_expire(c, c->deadline - 1, &cfg, &st);
	pg_conn_write(c);
	like(hear(), "HTTP/1.1 408 ", "the client has the 408");
	is_int(c->state, PG_CONN_DRAIN, "draining");
	ok(pg_clock(PG_CONN_CLOCK, &ns) == 0 && c->deadline > ns / 1000000 &&
	    c->deadline <= ns / 1000000 + PG_CONN_DRAIN_MS,
	    "for PG_CONN_DRAIN_MS");
	is_int(pg_conn_expire(c, c->deadline, &cfg, &st), 0,
	    "the drain's deadline: no answer");
	is_int(c->state, PG_CONN_DONE, "but done");
	close(cl);
	pg_conn_free(c);
}

/* A client that does not read: the answer goes out as it takes it. */
static void
slow(void)
{
	struct pg_conn	*c = conn(NULL);
	char		 buf[4096];
	size_t		 junk = 0, got = 0;
	ssize_t		 n;
	int		 rounds = 0;

	say(REQ "x");		/* a byte after the head: a drain follows */
	pg_conn_ready(c, &cfg, &st);
	memset(buf, 'j', sizeof(buf));
	while ((n = write(c->wfd, buf, sizeof(buf))) > 0)
		junk += n;
	pg_conn_write(c);
	ok(c->state == PG_CONN_WRITE && c->outoff == 0,
	    "the client's buffer full: still writing");
	while (c->state == PG_CONN_WRITE && rounds++ < 10000) {
		if (got < junk && (n = read(cl, buf, junk - got <
		    sizeof(buf) ? junk - got : sizeof(buf))) > 0)
			got += n;
		pg_conn_write(c);
	}
	is_int(c->state, PG_CONN_DRAIN, "written as the client reads");
	while (got < junk && (n = read(cl, buf, junk - got < sizeof(buf) ?
	    junk - got : sizeof(buf))) > 0)
		got += n;
	like(hear(), "HTTP/1.1 404 Not Found\r\n", "the answer, whole, "
	    "after what was in the way");
	close(cl);
	pg_conn_free(c);

	c = conn(NULL);
	say(REQ);
	pg_conn_ready(c, &cfg, &st);
	close(cl);
	pg_conn_write(c);
	is_int(c->state, PG_CONN_DONE, "a client gone before the answer: "
	    "done");
	pg_conn_free(c);
}

/* The lingering close ends after PG_CONN_DRAIN_MAX bytes. */
static void
drain(void)
{
	struct pg_conn	*c = conn(NULL);
	char		 buf[4096];
	size_t		 sent = 0;
	ssize_t		 n;

	say(REQ "d");		/* a byte after the head: a drain follows */
	pg_conn_ready(c, &cfg, &st);
	pg_conn_write(c);
	hear();
	memset(buf, 'd', sizeof(buf));
	while (c->state == PG_CONN_DRAIN && sent < 4 * PG_CONN_DRAIN_MAX) {
		if ((n = write(cl, buf, sizeof(buf))) > 0)
			sent += n;
		pg_conn_ready(c, &cfg, &st);
	}
	is_int(c->state, PG_CONN_DONE, "a client that goes on sending: done");
	ok(c->drained >= PG_CONN_DRAIN_MAX &&
	    c->drained < PG_CONN_DRAIN_MAX + sizeof(buf),
	    "after PG_CONN_DRAIN_MAX bytes (%zu)", c->drained);
	close(cl);
	pg_conn_free(c);
}

static void
refused(void)
{
	struct pg_conn	*c;
	struct pg_reply	 r;
	int		 sv[2];

	cfg.serve.nallow = 1;
	pg_net_parse("192.0.2.0/24", &cfg.serve.allow[0]);
	c = conn(addr("10.0.0.1"));
	is_int(c->state, PG_CONN_WRITE, "not on the allow list: answered at "
	    "once");
	is_str(c->reply.log, "client 10.0.0.1: 403 Forbidden", "its log line");
	pg_conn_write(c);
	like(hear(), "HTTP/1.1 403 Forbidden\r\n", "the client has the 403");
	close(cl);
	pg_conn_free(c);
	c = conn(addr("192.0.2.9"));
	is_int(c->state, PG_CONN_READ, "on the allow list: reading");
	close(cl);
	pg_conn_free(c);
	cfg.serve.nallow = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		err(1, "socketpair");
	cl = sv[1];
	say(REQ);
	pg_conn_refuse(sv[0], addr("192.0.2.7"), 256, &r);
	like(hear(), "HTTP/1.1 503 Service Unavailable\r\n",
	    "beyond the limit: 503");
	is_str(r.log, "client 192.0.2.7: 503 Service Unavailable (256 "
	    "connections open)", "its log line");
	is_int(r.level, LOG_NOTICE, "at LOG_NOTICE");
	ok(fcntl(sv[0], F_GETFD) == -1 && errno == EBADF, "and closed");
	close(cl);

	/* Without a config (serve -i when it cannot load one): the 500. */
	c = pg_conn_new(STDIN_FILENO, STDOUT_FILENO, NULL, NULL);
	ok(c != NULL && c->state == PG_CONN_READ,
	    "no config: not answered, the caller answers");
	pg_reply_error(&r, 500);
	pg_conn_reply(c, &r, NULL);
	ok(c->state == PG_CONN_WRITE && c->outlen > 0 && c->reply.level == -1,
	    "with its answer, not logged");
	c->rfd = -1;	/* not stdin: pg_conn_free closes rfd */
	pg_conn_free(c);
}

static void
run_as(void)
{
	char	 msg[PG_ERR_MAX];

	is_int(pg_drop_privileges("", msg, sizeof(msg)), 0,
	    "run_as empty: nothing to do");
	if (geteuid() != 0) {
		is_int(pg_drop_privileges("nobody", msg, sizeof(msg)), 0,
		    "not root: run_as ignored");
		return;
	}
	is_int(pg_drop_privileges("pg-no-such-user", msg, sizeof(msg)),
	    EX_NOUSER, "root, no such user: EX_NOUSER");
	is_str(msg, "run_as: no user 'pg-no-such-user'", "and why");
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	cfg.timeout_ms = 5000;
	if (snprintf(cfg.state, sizeof(cfg.state), "%s/none",
	    tap_tmpdir("t_conn")) >= (int)sizeof(cfg.state))
		errx(1, "TMPDIR too long");
	pieces();
	whole();
	bounds();
	deadline();
	slow();
	drain();
	refused();
	run_as();
	return done_testing();
}
