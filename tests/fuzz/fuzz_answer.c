/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: pollguard-check reading a peer's answer. The input is the
 * raw bytes a peer sends back, status line, header fields and body. The
 * real peers_ask (lib/peers.c) asks two peers with the real libcurl over
 * real loopback TCP connections to a listener of this process. The link
 * wraps curl_multi_add_handle (ld --wrap) to add two callbacks to each
 * transfer: one sets SO_LINGER to 0 (no TIME_WAIT), the other, called
 * once libcurl has connected, accepts the connection, writes the whole
 * input into it and shuts it down for writing, so every answer ends. A
 * socket handed over as already connected would be simpler, but libcurl
 * 7.88 ignores CURL_SOCKOPT_ALREADY_CONNECTED (curl issue 10626).
 * libcurl parses the status and headers, peers.c's write callback keeps
 * the body, xfer_result and pg_answer_parse judge it; pg_decide then
 * turns the answers into a verdict. FUZZ_DEBUG=1 shows the transfers and
 * what each peer was found to say.
 *
 * Both paths are exercised: each peer is asked /v1/status first, and the
 * input answers it; a 404 without Pollguard-Node makes peers.c ask
 * /v1/elapsed in the same round, answered by the same input. An input
 * that starts with "0.3\n" plays a 0.3 serve: the status request gets a
 * bare 404, and the rest of the input answers /v1/elapsed.
 *
 * Invariants: both peers, given the same bytes, get the same answer;
 * the kind is one of the four, an elapsed time is in range, "never" is
 * PG_NEVER; what each said is a terminated, printable string; no peer
 * runs into the timeout (the answer always ends); a usable answer came
 * with status 200; a status only with a usable answer, of the cluster
 * asked and agreeing with it, and without a nonce: the input cannot know
 * the one each request drew, so a block with one, or an answer with a
 * Pollguard-Nonce field, is a cached copy and never taken; a 0.3 serve
 * is marked old and has none; the verdict is one of those documented.
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>

#include "pollguard.h"
#include "fuzz.h"

#define NPEERS	2

static struct pg_config		 cfg;
static struct pg_peer		 peers[NPEERS];
static struct pg_cluster	 cluster;
static size_t			 index_of[NPEERS] = { 0, 1 };
static int			 listener = -1;
static const uint8_t		*input;
static size_t			 input_len;
static int			 old03;		/* "0.3\n": a 0.3 serve */
static int			 served[2 * NPEERS];	/* status, elapsed */
static size_t			 nserved;
static size_t			 nadded;	/* transfers this input */

/* What a 0.3 serve answers to a path it does not know. */
static const char	 notfound[] = "HTTP/1.1 404 Not Found\r\n"
    "Content-Type: text/plain\r\nContent-Length: 10\r\n"
    "Connection: close\r\n\r\nNot Found\n";

CURLMcode	 __real_curl_multi_add_handle(CURLM *, CURL *);
CURLMcode	 __wrap_curl_multi_add_handle(CURLM *, CURL *);

/* Close with a reset: thousands of connections a second leave no
 * TIME_WAIT behind to run out of ports. */
static void
no_linger(int fd)
{
	struct linger	 l = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

static int
socket_options(void *arg, curl_socket_t fd, curlsocktype purpose)
{
	(void)arg;
	(void)purpose;
	no_linger(fd);
	return CURL_SOCKOPT_OK;
}

/*
 * libcurl has connected to the listener and is about to send its request:
 * take the connection and put the whole answer in it, then end it.
 */
static int
connected(void *arg, char *ip, char *local, int port, int lport)
{
	const uint8_t	*in = input;
	size_t		 off = 0, len = input_len;
	ssize_t		 n;
	int		 fd;

	/* arg: 1 for the first transfers, the status requests. */
	if (old03 && arg != NULL) {
		in = (const uint8_t *)notfound;
		len = sizeof(notfound) - 1;
	}
	(void)ip;
	(void)local;
	(void)port;
	(void)lport;
	if ((fd = accept(listener, NULL, NULL)) == -1) {
		perror("accept");
		abort();
	}
	no_linger(fd);
	if (nserved == sizeof(served) / sizeof(served[0])) {
		fprintf(stderr, "more than two requests a peer\n");
		abort();
	}
	while (off < len) {
		if ((n = write(fd, in + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			perror("write");
			abort();
		}
		off += n;
	}
	shutdown(fd, SHUT_WR);
	served[nserved++] = fd;
	return CURL_PREREQFUNC_OK;
}

CURLMcode
__wrap_curl_multi_add_handle(CURLM *multi, CURL *easy)
{
	curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, socket_options);
	curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, connected);
	curl_easy_setopt(easy, CURLOPT_PREREQDATA,
	    nadded++ < NPEERS ? (void *)1 : NULL);
	if (getenv("FUZZ_DEBUG") != NULL)
		curl_easy_setopt(easy, CURLOPT_VERBOSE, 1L);
	return __real_curl_multi_add_handle(multi, easy);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	size_t			 i;

	(void)argc;
	(void)argv;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1 || bind(listener, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(listener, 16) == -1 ||
	    getsockname(listener, (struct sockaddr *)&sin, &len) == -1) {
		perror("listener on 127.0.0.1");
		exit(1);
	}
	if (pg_peers_init() == -1) {
		fprintf(stderr, "curl_global_init failed\n");
		exit(1);
	}
	strlcpy(cfg.node, "fuzz", sizeof(cfg.node));
	cfg.timeout_ms = 5000;
	cfg.connect_timeout_ms = 1000;
	cfg.settle_ms = 500;
	cfg.peers = peers;
	cfg.npeers = NPEERS;
	for (i = 0; i < NPEERS; i++) {
		snprintf(peers[i].name, sizeof(peers[i].name), "peer%zu", i);
		snprintf(peers[i].url, sizeof(peers[i].url),
		    "http://127.0.0.1:%u/", ntohs(sin.sin_port));
	}
	/* One asks with credentials: a different request, the same answer. */
	strlcpy(peers[0].user, "check", sizeof(peers[0].user));
	strlcpy(peers[0].password, "s3cret", sizeof(peers[0].password));
	strlcpy(cluster.id, "c1", sizeof(cluster.id));
	cluster.wait_ms = 10000;
	cluster.peers = index_of;
	cluster.npeers = NPEERS;
	cfg.clusters = &cluster;
	cfg.nclusters = 1;
	return 0;
}

/* A strict status line "HTTP/1.x 200" somewhere in the answer. */
static int
has_200(const uint8_t *data, size_t size)
{
	const uint8_t	*p = data, *end = data + size;

	while ((p = memmem(p, end - p, "HTTP/1.", 7)) != NULL) {
		if (end - p >= 13 && (p[7] == '0' || p[7] == '1') &&
		    memcmp(p + 8, " 200", 4) == 0 && (p[12] == ' ' ||
		    p[12] == '\r' || p[12] == '\n'))
			return 1;
		p++;
	}
	return 0;
}

/*
 * A line "Pollguard-Nonce:" in the first head (up to the first empty
 * line): libcurl hands it to peers.c, and the input cannot hold the
 * nonce the request drew.
 */
static int
echoes(const uint8_t *p, size_t n)
{
	static const char	 f[] = "pollguard-nonce:";
	const uint8_t		*end = p + n, *nl;

	while (p < end && (nl = memchr(p, '\n', end - p)) != NULL) {
		p = nl + 1;
		if (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end &&
		    p[1] == '\n')))
			return 0;
		if ((size_t)(end - p) >= sizeof(f) - 1 &&
		    strncasecmp((const char *)p, f, sizeof(f) - 1) == 0)
			return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_round		 r;
	struct pg_decision	 d;
	const struct pg_answer	*a;
	size_t			 i;

	/* The socket buffer holds it all before libcurl reads. */
	if (size > 65536)
		return 0;
	input = data;
	input_len = size;
	old03 = size >= 4 && memcmp(data, "0.3\n", 4) == 0;
	if (old03) {
		input += 4;
		input_len -= 4;
	}
	nadded = 0;
	check(pg_peers_ask_some(&cfg, &cluster, NULL, NULL, &r) == 0,
	    "peers_ask failed");
	check(nserved >= NPEERS && nserved <= 2 * NPEERS, "%zu requests to "
	    "%d peers", nserved, NPEERS);
	check(!old03 || nserved == 2 * NPEERS, "a 0.3 serve not asked "
	    "/v1/elapsed");
	while (nserved > 0)
		close(served[--nserved]);

	check(r.n == NPEERS, "%zu answers", r.n);
	if (getenv("FUZZ_DEBUG") != NULL)
		for (i = 0; i < NPEERS; i++)
			fprintf(stderr, "peer%zu: kind %d: %s\n", i,
			    (int)r.seen[i].answer.kind, r.seen[i].why);
	for (i = 0; i < NPEERS; i++) {
		a = &r.seen[i].answer;
		check(terminated(r.seen[i].why, PG_WHY_MAX), "why not terminated");
		check(printable(r.seen[i].why), "why not printable: %s", r.seen[i].why);
		check(strcmp(r.seen[i].why, "timed out") != 0, "a complete answer "
		    "ran into the timeout");
		check(a->kind == PG_ANSWER_ELAPSED || a->kind ==
		    PG_ANSWER_NEVER || a->kind == PG_ANSWER_UNREACHABLE ||
		    PG_ANSWER_BAD(a->kind), "kind %d", (int)a->kind);
		if (a->kind == PG_ANSWER_ELAPSED)
			check(a->elapsed_ms >= 0 && a->elapsed_ms < PG_NEVER,
			    "elapsed %lld", (long long)a->elapsed_ms);
		if (a->kind == PG_ANSWER_NEVER)
			check(a->elapsed_ms == PG_NEVER, "never is %lld",
			    (long long)a->elapsed_ms);
		if (a->kind == PG_ANSWER_ELAPSED || a->kind == PG_ANSWER_NEVER)
			check(has_200(data, size), "an answer without a "
			    "status line HTTP/1.x 200: %s", r.seen[i].why);
		check(r.seen[i].recv_ns >= r.start_ns &&
		    r.seen[i].recv_ns <= r.end_ns, "times out of order");
		check(r.seen[i].sent_ns >= r.start_ns &&
		    r.seen[i].sent_ns <= r.seen[i].recv_ns,
		    "sent after the answer came");
		check(!old03 || (r.seen[i].old && !r.seen[i].has_status),
		    "a 0.3 serve not taken as one");
		check(!r.seen[i].has_status || (!r.seen[i].old &&
		    (a->kind == PG_ANSWER_ELAPSED || a->kind ==
		    PG_ANSWER_NEVER) && a->elapsed_ms ==
		    r.seen[i].status.elapsed_ms &&
		    strcmp(r.seen[i].status.cluster, cluster.id) == 0),
		    "a status that disagrees with the answer");
		check(!r.seen[i].has_status ||
		    r.seen[i].status.nonce[0] == '\0', "a status with the "
		    "nonce %s, not the request's, accepted",
		    r.seen[i].status.nonce);
		check(!echoes(input, input_len) || !PG_ANSWER_OK(a->kind),
		    "an answer with a Pollguard-Nonce field taken: %s",
		    r.seen[i].why);
	}
		check(r.seen[0].answer.kind == r.seen[1].answer.kind &&
	    r.seen[0].answer.elapsed_ms == r.seen[1].answer.elapsed_ms &&
	    strcmp(r.seen[0].why, r.seen[1].why) == 0, "the same bytes, two answers: "
	    "'%s' and '%s'", r.seen[0].why, r.seen[1].why);

	pg_decide(&cluster, cfg.node, NULL, 0, r.seen, NPEERS, &d);
	check(d.verdict == PG_GO || d.verdict == PG_SKIP_ACTIVE ||
	    d.verdict == PG_REFUSE_INVALID, "verdict %d", (int)d.verdict);
	check(!d.standalone, "standalone with peers");
	if (PG_ANSWER_BAD(r.seen[0].answer.kind))
		check(d.verdict == PG_REFUSE_INVALID || d.verdict ==
		    PG_SKIP_ACTIVE, "nonsense did not refuse");
	pg_round_free(&r);
	return 0;
}
