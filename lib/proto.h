/* SPDX-License-Identifier: ISC */
/*
 * proto.h: what nodes say to each other: the status answer (status.c),
 * the peer protocol (proto.c) and the asking of a cluster's peers
 * (peers.c).
 */
#ifndef PG_PROTO_H
#define PG_PROTO_H

#include <signal.h>

#include "conf.h"

/*
 * status.c: the status answer (GET /v1/status/CLUSTER), both ends. Pure:
 * no I/O. Lines of "key value", a blank line after each cluster; readers
 * ignore keys they do not know (pollguard(7), The status answer).
 */

#define PG_STATUS_TEXT_MAX	128	/* hold_by, hold_why */
#define PG_STATUS_LINE_MAX	(PG_STATUS_TEXT_MAX * 4)	/* a value */
#define PG_STATUS_MAX		2048	/* one cluster's block */

struct pg_status {
	char		 cluster[PG_NAME_MAX + 1];
	char		 node[PG_NAME_MAX + 1];	/* "": not said */
	char		 version[32];		/* "": not said */
	int64_t		 elapsed_ms;	/* since activity; PG_NEVER */
	int64_t		 claim_ms;	/* since a claim within its horizon;
					   -1: none */
	int		 running;	/* a run is going on */
	int64_t		 pid;		/* its PID; 0: not said */
	int		 last;		/* a run ended: last_* are set */
	int		 last_exit;	/* its exit status; -1: a signal */
	int		 last_signal;	/* the signal that ended it; 0: none */
	int		 last_timeout;	/* it ran into max_runtime */
	int64_t		 last_duration_ms;
	int64_t		 last_end_ms;	/* since it ended */
	int64_t		 last_success_ms;	/* since the last run that
						   succeeded; PG_NEVER */
	int		 failures;	/* failed runs in a row */
	int64_t		 hold_ms;	/* a hold's time left; 0: no hold */
	char		 hold_by[PG_STATUS_TEXT_MAX];
	char		 hold_why[PG_STATUS_TEXT_MAX];	/* printable ASCII */
	/*
	 * The fast rule (pollguard(7)): a peer that says "deciding" decides
	 * by it, and says its settle and timeout with it. -1: not said.
	 */
	int		 deciding;	/* a check there holds the claim lock */
	int64_t		 settle_ms;
	int64_t		 timeout_ms;
	/* pollguard(7), PREFERRED NODE */
	char		 prefer[PG_VALUE_MAX];	/* its order; "": none said */
	int64_t		 checked_ms;	/* since its last check; PG_NEVER */
	int64_t		 checking_ms;	/* its checks have run without a
					   gap this long; -1: not said */
	char		 yield[PG_NAME_MAX + 1]; /* it yields to; "": no */
	int64_t		 yielded_ms;	/* since it decided to */
	int64_t		 at_ns;		/* pg_status_local only: read at
					   this CLOCK_BOOTTIME; else 0 */
};

/* An empty status: never active, no run, no hold. */
void	 pg_status_init(struct pg_status *);

/*
 * One cluster's status as lines, without the blank line that ends it:
 * the length, or -1 when it does not fit. hold_why is escaped (vis(3))
 * so that it stays one printable line.
 */
int	 pg_status_format(const struct pg_status *, char *, size_t);

/*
 * Quote up to 24 bytes of a peer's text for a message: in double quotes,
 * escaped as vis(3) does, "..." after it when there was more.
 */
void	 pg_quote(char *, size_t, const char *, size_t);

/*
 * Read one cluster's status from buf[0..len): lines up to a blank line
 * or the end. The first line must be "cluster ID" and "elapsed" must be
 * there; unknown keys are skipped; a known key twice, a value out of its
 * range, a line without LF or longer than PG_STATUS_LINE_MAX, or a NUL is
 * an error. 0 and *used (bytes read, with the blank line), or -1 and a
 * reason for people in why.
 */
int	 pg_status_parse(const char *, size_t, struct pg_status *, size_t *,
	    char *, size_t);

/* How the last run ended, for people: "exit 1", "signal 9", "timed out". */
const char	*pg_status_last_text(const struct pg_status *, char *, size_t);

/*
 * Handover (pollguard(7), HANDOVER): a status says its node's last run
 * failed when the failure streak is above 0, a run has ended and none is
 * going. Such a node is in cooldown while its last run ended less than
 * cooldown ms ago.
 */
int	 pg_status_failed(const struct pg_status *);
int	 pg_status_cooldown(const struct pg_status *, int64_t);

/*
 * proto.c: the peer protocol, both ends. Pure: no I/O.
 *
 * Requests: GET or HEAD, HTTP/1.0 or 1.1, one per connection, of
 * /v1/elapsed/CLUSTER, /v1/elapsed, /v1/status/CLUSTER, /v1/status or
 * /metrics. No body.
 */

#define PG_REQ_LINE_MAX	1024	/* request line with its CRLF; else 414 */
#define PG_REQ_HEAD_MAX	8192	/* request line and headers; else 431 */
#define PG_REQ_HEADERS_MAX 64	/* header fields; else 431 */
#define PG_AUTH_MAX	544	/* base64 of 199-byte user ":" 199-byte
				   password */
#define PG_ANSWER_MAX	64	/* bytes of a peer's answer check reads */

enum pg_target {
	PG_TARGET_ONE,		/* /v1/elapsed/CLUSTER */
	PG_TARGET_ALL,		/* /v1/elapsed */
	PG_TARGET_METRICS,	/* /metrics */
	PG_TARGET_STATUS_ONE,	/* /v1/status/CLUSTER */
	PG_TARGET_STATUS_ALL	/* /v1/status */
};

struct pg_request {
	int		 head;		/* HEAD: headers only */
	int		 minor;		/* HTTP/1.minor: 0 or 1 */
	enum pg_target	 target;
	char		 cluster[PG_NAME_MAX + 1];
	int		 has_auth;	/* an Authorization field was sent */
	char		 auth[PG_AUTH_MAX + 1];	/* its Basic token, "" if not
						   Basic or too long */
	size_t		 linelen;	/* request line, without CRLF */
	size_t		 used;		/* bytes of the head, with the blank
					   line */
	const char	*why;		/* a 400's reason, for the log */
};

/*
 * Parse the start of a connection's input, buf[0..len): the request line
 * and header fields up to the blank line. Return 0 when it needs more
 * bytes, else an HTTP status: 200 (req is filled in), or 400, 404, 405,
 * 414, 431, 505 as soon as the bytes so far show it. Bare LF line ends
 * are accepted. req->minor and req->linelen are set as soon as the
 * request line is complete, also for errors.
 */
int	 pg_request_parse(const char *, size_t, struct pg_request *);

/* The reason phrase of a status this protocol uses, or "Error". */
const char	*pg_status_text(int);

/*
 * Format a response into buf: status line (HTTP/1.minor), Content-Type
 * "text/plain; charset=utf-8", Content-Length, Connection: close,
 * Cache-Control: no-store, the extra header lines given (each ending in
 * CRLF, or NULL), and the body unless head is set. When extra starts with
 * a Content-Type field, it replaces the default one. Return the length,
 * or -1 when it does not fit.
 */
int	 pg_response(char *, size_t, int, int, const char *, const char *,
	    size_t, int);

/* Base64 (RFC 4648, padded) of src into dst: the length, -1: too small. */
int	 pg_base64(const void *, size_t, char *, size_t);

/* What a peer's answer is. Only the first two are answers to the question. */
enum pg_answer_kind {
	PG_ANSWER_ELAPSED,	/* elapsed_ms is valid */
	PG_ANSWER_NEVER,	/* the peer never polled */
	PG_ANSWER_UNREACHABLE,	/* refused, timed out, no DNS, 5xx */
	PG_ANSWER_REFUSED,	/* 401 or 403: credentials or allow list */
	PG_ANSWER_UNKNOWN,	/* 404: a wrong url, or no such cluster there */
	PG_ANSWER_SELF,		/* the peer is this node itself */
	PG_ANSWER_INVALID	/* anything else: nonsense */
};

/* True for the kinds that are misconfiguration: REFUSED to INVALID. */
#define PG_ANSWER_BAD(k)	((k) >= PG_ANSWER_REFUSED)

/* True for the kinds that answer the question: ELAPSED and NEVER. */
#define PG_ANSWER_OK(k)		((k) <= PG_ANSWER_NEVER)

struct pg_answer {
	enum pg_answer_kind kind;
	int64_t		 elapsed_ms;
};

/*
 * Read a peer's answer to GET /v1/elapsed/CLUSTER: the HTTP status (0
 * when there was none), its Content-Type (NULL when absent), the body
 * (at most PG_ANSWER_MAX bytes kept) and whether more was sent. Fill in
 * *a: 200 with a decimal integer (0 to 2^63-2, optional final LF or CRLF)
 * is ELAPSED; 200 with "never" is NEVER; 5xx and 0 are UNREACHABLE; 401
 * and 403 are REFUSED; 404 is UNKNOWN; everything else is INVALID. why
 * gets a short reason for people ("401 Unauthorized", "not a number:
 * \"abc\""), already safe to print.
 */
void	 pg_answer_parse(long, const char *, const char *, size_t, int,
	    struct pg_answer *, char *, size_t);

/*
 * Read a peer's answer to GET /v1/status/CLUSTER (id), of at most
 * PG_STATUS_MAX bytes, as pg_answer_parse does one to /v1/elapsed: the
 * same status, Content-Type and length rules, and named set when the
 * answer had a Pollguard-Node field. Return 1, touching nothing, for a
 * 404 without that field: a serve before 0.4, which does not know the
 * path; ask it /v1/elapsed/CLUSTER. Else return 0 and fill in *a (a 404
 * with the field is UNKNOWN: no such cluster there): a 200 whose body is
 * one status block of cluster id (pg_status_parse) gives *st, and ELAPSED
 * or NEVER from its elapsed; a block that does not parse is INVALID with
 * the parser's reason in why.
 */
int	 pg_answer_status(long, const char *, int, const char *, const char *,
	    size_t, int, struct pg_answer *, struct pg_status *, char *,
	    size_t);

/*
 * peers.c: asking a cluster's peers, all at once, with libcurl's multi
 * interface. Only pollguard-check links this, and so libcurl.
 */

/*
 * One peer's answer to one question, and when it was asked. All times
 * are this node's CLOCK_BOOTTIME in nanoseconds.
 */
struct pg_seen {
	const char	*name;		/* the peer's name */
	struct pg_answer answer;
	char		 why[PG_WHY_MAX];	/* the answer for people,
						   already escaped */
	int64_t		 sent_ns;	/* no later than the request left */
	int64_t		 recv_ns;	/* no earlier than the answer was
					   read */
	int		 answered;	/* round 2: it was reachable
					   in round 1 */
	/*
	 * The peer answered GET /v1/status/CLUSTER (0.4 on): status holds
	 * what it said, and answer is read from status.elapsed_ms. 0: a
	 * peer before 0.4 (old set, it answered /v1/elapsed/CLUSTER), or no
	 * usable answer at all.
	 */
	int		 has_status;
	struct pg_status status;
	int		 old;		/* a serve before 0.4: 404 for
					   /v1/status without Pollguard-Node */
};

struct pg_round {
	struct pg_seen	*seen;		/* one per peer of the cluster */
	size_t		 n;
	int64_t		 start_ns;	/* CLOCK_BOOTTIME, before any request */
	int64_t		 end_ns;	/* after the last answer */
};

/* Set up libcurl once per process. -1 on failure. */
int	 pg_peers_init(void);

/*
 * Set it nonzero from a signal handler installed without SA_RESTART: a
 * round under way stops waiting for its peers, at once when the signal
 * interrupts the wait, else within a second; the peers it had no answer
 * from read as unreachable. pollguard-check sets it for a signal that
 * withdraws its claim, which must not wait out the timeout.
 */
extern volatile sig_atomic_t pg_peers_stop;

/*
 * Ask the peers i of the cluster with which[i] set (which NULL: all; the
 * others read as unreachable, "not asked") for their status (GET
 * /v1/status/CLUSTER), in parallel, within the config's timeout for the
 * whole round; a peer that answers 404 without a Pollguard-Node field (a
 * serve before 0.4) is asked GET /v1/elapsed/CLUSTER in the same round,
 * and marked old. After round prev of the same cluster (or NULL), peers
 * that were old in prev are asked /v1/elapsed at once. Fills r
 * (allocated here; free with pg_round_free). -1 with errno on a local
 * failure (memory, clock).
 */
int	 pg_peers_ask_some(const struct pg_config *,
	    const struct pg_cluster *, const struct pg_round *, const int *,
	    struct pg_round *);
#define pg_peers_ask_again(cfg, c, prev, r) \
	pg_peers_ask_some((cfg), (c), (prev), NULL, (r))
#define pg_peers_ask(cfg, c, r)	pg_peers_ask_some((cfg), (c), NULL, NULL, (r))
void	 pg_round_free(struct pg_round *);

#endif /* PG_PROTO_H */
