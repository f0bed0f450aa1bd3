/* SPDX-License-Identifier: ISC */
/*
 * proto.h: what nodes say to each other (doc/PROTOCOL.md): the status
 * answer (status.c), the peer protocol (proto.c) and the asking of a
 * cluster's peers (peers.c). status.c and proto.c are pure: no I/O.
 */
#ifndef PG_PROTO_H
#define PG_PROTO_H

#include <signal.h>

#include "conf.h"

#define PG_STATUS_TEXT_MAX	128	/* hold_by, hold_why */
#define PG_STATUS_LINE_MAX	(PG_STATUS_TEXT_MAX * 4)	/* a value */
#define PG_STATUS_MAX		2048	/* one cluster's block */
/* Pollguard-Nonce: lowercase hex digits (doc/PROTOCOL.md, Fresh answers). */
#define PG_NONCE_LEN		32

/* A status block (doc/PROTOCOL.md, The status answer). */
struct pg_status {
	char		 cluster[PG_NAME_MAX + 1];
	char		 node[PG_NAME_MAX + 1];	/* "": not said */
	char		 version[32];		/* "": not said */
	int64_t		 elapsed_ms;	/* PG_NEVER: never */
	int64_t		 claim_ms;	/* -1: no claim */
	int		 running;
	int64_t		 pid;		/* 0: not said */
	int		 last;		/* a run ended: last_* are set */
	int		 last_exit;	/* -1: a signal ended it */
	int		 last_signal;	/* 0: none */
	int		 last_timeout;	/* it ran into max_runtime */
	int64_t		 last_duration_ms;
	int64_t		 last_end_ms;
	int64_t		 last_success_ms;	/* PG_NEVER: never */
	int		 failures;	/* failed runs in a row */
	int64_t		 hold_ms;	/* 0: no hold */
	char		 hold_by[PG_STATUS_TEXT_MAX];
	char		 hold_why[PG_STATUS_TEXT_MAX];	/* printable ASCII */
	int		 deciding;	/* -1, and settle, timeout: not said */
	int64_t		 settle_ms;
	int64_t		 timeout_ms;
	int64_t		 rate_ppm;	/* its clock's bound; -1: not said */
	char		 prefer[PG_VALUE_MAX];	/* "": none said */
	int64_t		 checked_ms;	/* PG_NEVER: never */
	int64_t		 checking_ms;	/* -1: not said */
	char		 yield[PG_NAME_MAX + 1]; /* "": no yield */
	int64_t		 yielded_ms;
	char		 nonce[PG_NONCE_LEN + 1];	/* "": not said */
	int64_t		 wait_ms;	/* the cluster's wait; -1: not said */
	char		 on_failure[16];	/* "handover", "stay" */
	char		 backend[16];		/* "peers", "etcd" */
	int64_t		 at_ns;		/* pg_status_local: CLOCK_BOOTTIME */
	int		 horizon;	/* pg_status_local: claim in horizon */
};

/* An empty status: never active, no run, no hold. */
void	 pg_status_init(struct pg_status *);

/*
 * One cluster's block, without the blank line after it, into buf: its
 * length, or -1 when it does not fit. hold_why is escaped (vis(3)).
 */
int	 pg_status_format(const struct pg_status *, char *, size_t);

/* Up to 24 bytes of a peer's text, quoted and vis(3)-escaped, "..." more. */
void	 pg_quote(char *, size_t, const char *, size_t);

/*
 * Read one block from buf[0..len), up to a blank line or the end: 0 and
 * *used (with the blank line), or -1 and a reason for people in why.
 */
int	 pg_status_parse(const char *, size_t, struct pg_status *, size_t *,
	    char *, size_t);

/* How the last run ended, for people: "exit 1", "signal 9", "timed out". */
const char	*pg_status_last_text(const struct pg_status *, char *, size_t);

/*
 * Handover (pollguard(7), HANDOVER): the last run failed (failures, a run
 * ended, none going); and it ended less than cooldown ms ago.
 */
int	 pg_status_failed(const struct pg_status *);
int	 pg_status_cooldown(const struct pg_status *, int64_t);

/* The limits of doc/PROTOCOL.md, Limits. */
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
	char		 auth[PG_AUTH_MAX + 1];	/* its Basic token, or "" */
	char		 nonce[PG_NONCE_LEN + 1];	/* the asker's, or "" */
	size_t		 linelen;	/* request line, without CRLF */
	size_t		 used;		/* the head, with the blank line */
	const char	*why;		/* a 400's reason, for the log */
};

/*
 * Parse the request head in buf[0..len): 0 when it needs more bytes, else
 * an HTTP status, 200 with req filled in. req->minor and req->linelen are
 * set once the request line is complete, also for errors.
 */
int	 pg_request_parse(const char *, size_t, struct pg_request *);

/* The reason phrase of a status this protocol uses, or "Error". */
const char	*pg_status_text(int);

/*
 * Format a response (doc/PROTOCOL.md, Answers) into buf: HTTP/1.minor,
 * status, the extra header lines (CRLF each, or NULL; a Content-Type
 * first replaces the default), the body unless head. Its length, or -1.
 */
int	 pg_response(char *, size_t, int, int, const char *, const char *,
	    size_t, int);

/* Base64 (RFC 4648, padded) of src into dst: the length, -1: too small. */
int	 pg_base64(const void *, size_t, char *, size_t);

/* What a peer's answer is (doc/PROTOCOL.md, How an asker reads). */
enum pg_answer_kind {
	PG_ANSWER_ELAPSED,	/* elapsed_ms is valid */
	PG_ANSWER_NEVER,	/* the peer never polled */
	PG_ANSWER_UNREACHABLE,	/* refused, timed out, no DNS, 5xx */
	PG_ANSWER_REFUSED,	/* 401 or 403: credentials or allow list */
	PG_ANSWER_UNKNOWN,	/* 404: a wrong url, or no such cluster there */
	PG_ANSWER_SELF,		/* the peer is this node itself */
	PG_ANSWER_INVALID	/* anything else: nonsense */
};

/* Misconfiguration: REFUSED to INVALID. An answer: ELAPSED or NEVER. */
#define PG_ANSWER_BAD(k)	((k) >= PG_ANSWER_REFUSED)
#define PG_ANSWER_OK(k)		((k) <= PG_ANSWER_NEVER)

struct pg_answer {
	enum pg_answer_kind kind;
	int64_t		 elapsed_ms;
};

/*
 * Read a peer's answer to /v1/elapsed/CLUSTER: HTTP status (0: none),
 * Content-Type (or NULL), body (PG_ANSWER_MAX bytes kept), whether more
 * came. Fills in *a, and why with a reason for people, safe to print.
 */
void	 pg_answer_parse(long, const char *, const char *, size_t, int,
	    struct pg_answer *, char *, size_t);

/*
 * The same for /v1/status/CLUSTER (id), PG_STATUS_MAX bytes kept, named:
 * a Pollguard-Node field came. 1, touching nothing, for a serve before
 * 0.4 (a 404 without it); else 0, *a, and *st from a 200.
 */
int	 pg_answer_status(long, const char *, int, const char *, const char *,
	    size_t, int, struct pg_answer *, struct pg_status *, char *,
	    size_t);

/* s is PG_NONCE_LEN lowercase hex digits. */
int	 pg_nonce_valid(const char *, size_t);

/*
 * A status st read in answer to a request that sent nonce: 1 when it is
 * fresh (its nonce is ours, or it is of a serve before 0.5, which sends
 * none); else 0 and why, for people (doc/PROTOCOL.md, Fresh answers).
 */
int	 pg_status_fresh(const struct pg_status *, const char *, char *,
	    size_t);

/*
 * peers.c: asking a cluster's peers at once with libcurl (pollguard-check
 * only). Times are this node's CLOCK_BOOTTIME in nanoseconds.
 */
struct pg_seen {
	const char	*name;		/* the peer's name */
	struct pg_answer answer;
	char		 why[PG_WHY_MAX];	/* for people, escaped */
	int64_t		 sent_ns;	/* no later than the request left */
	int64_t		 recv_ns;	/* no earlier than the answer came */
	int		 answered;	/* round 2: reachable in round 1 */
	int		 has_status;	/* it answered /v1/status: status */
	struct pg_status status;
	int		 old;		/* a serve before 0.4 */
};

struct pg_round {
	struct pg_seen	*seen;		/* one per peer of the cluster */
	size_t		 n;
	int64_t		 start_ns;	/* before any request */
	int64_t		 end_ns;	/* after the last answer */
};

/* Set up libcurl once per process. -1 on failure. */
int	 pg_peers_init(void);

/*
 * Set from a signal handler (no SA_RESTART): a round stops waiting within
 * a second; peers not heard from read as unreachable.
 */
extern volatile sig_atomic_t pg_peers_stop;

/*
 * Ask the peers i with which[i] set (NULL: all; others "not asked") for
 * their status, within the config's timeout; old ones in round prev (or
 * NULL) for their elapsed. Fills r, freed with pg_round_free. -1 with
 * errno on a local failure (memory, clock).
 */
int	 pg_peers_ask_some(const struct pg_config *,
	    const struct pg_cluster *, const struct pg_round *, const int *,
	    struct pg_round *);

/*
 * The same in steps, for rounds that overlap (doc/SAFETY.md, 4, "A peer
 * that does not answer"): up to PG_ASKING_ROUNDS rounds asked in one
 * pg_asking. pg_asking_start asks as pg_peers_ask_some, each question
 * within the timeout from the round's start; pg_asking_run waits for
 * answers until until_ns, returning sooner once round r (NULL: none)
 * has no question open, or on pg_peers_stop; pg_asking_open: whether
 * r's question to peer i is open; pg_asking_heard: whether any byte came
 * from peer i in round r; pg_asking_drop gives one up (its answer stays
 * as at the start, "timed out", received now_ns); pg_asking_end gives
 * up r's open questions and stamps r->end_ns. The rounds must stay in
 * place until pg_asking_free, and are freed with pg_round_free. -1 with
 * errno on a local failure (memory, clock).
 */
#define PG_ASKING_ROUNDS	2
struct pg_asking;
struct pg_asking *pg_asking_new(void);
int	 pg_asking_start(struct pg_asking *, const struct pg_config *,
	    const struct pg_cluster *, const struct pg_round *, const int *,
	    struct pg_round *);
int	 pg_asking_run(struct pg_asking *, int64_t, const struct pg_round *);
int	 pg_asking_open(struct pg_asking *, const struct pg_round *, size_t);
int	 pg_asking_heard(struct pg_asking *, const struct pg_round *, size_t);
void	 pg_asking_drop(struct pg_asking *, const struct pg_round *, size_t,
	    int64_t);
int	 pg_asking_end(struct pg_asking *, struct pg_round *);
void	 pg_asking_free(struct pg_asking *);
void	 pg_round_free(struct pg_round *);

#endif /* PG_PROTO_H */
