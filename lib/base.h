/* SPDX-License-Identifier: ISC */
/*
 * base.h: what every layer of the library uses: limits, the clocks,
 * durations and names (clock.c, duration.c), and the "key value" text
 * format (kv.c). lib/pollguard.h lists the layers.
 *
 * Contract for every function of the library's headers: it never exits
 * and never prints. Functions returning int return 0 on success and -1
 * on failure unless stated otherwise; the reason is in errno or in the
 * caller's error buffer, as each declaration says.
 */
#ifndef PG_BASE_H
#define PG_BASE_H

#include <sys/types.h>

#include <limits.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>

/* The release, from the file VERSION: the Makefile passes it. */
#ifndef PG_VERSION
#error "PG_VERSION is not defined: build with make, which reads VERSION"
#endif

#define PG_NAME_MAX	64	/* cluster IDs, peer and node names */
#define PG_VALUE_MAX	200	/* inih reads at most 199 characters a line */
#define PG_ERR_MAX	512	/* size for error buffers */
#define PG_WHY_MAX	160	/* what a peer said, for people */
#define PG_NEVER	INT64_MAX	/* elapsed: never active */
#define PG_WAIT_MIN_MS	(10LL * 1000)	/* a cluster's wait, at least */
#define PG_WAIT_MAX_MS	(30LL * 24 * 3600 * 1000)	/* and at most */

/* clock.c: reading the clocks. */

/*
 * Read a clock (CLOCK_BOOTTIME, CLOCK_MONOTONIC, CLOCK_REALTIME) in
 * nanoseconds into *ns. -1 with errno when it cannot be read.
 */
int	 pg_clock(clockid_t, int64_t *);

/* duration.c: durations, and the names of clusters and nodes. */

/*
 * Parse a duration: a decimal integer followed by a unit ms, s, m, h or d;
 * a bare integer means seconds. On success store milliseconds in *ms and
 * return 0. On failure return -1 and point *errstr at "invalid", "too
 * small" or "too large" (as strtonum(3) does).
 */
int	 pg_duration_parse(const char *, int64_t, int64_t, int64_t *,
	    const char **);

/*
 * Format milliseconds for people, in at most two units and leaving out
 * what is zero: "250ms", "3.2s", "10s", "12m5s", "2h", "3d4h"; PG_NEVER
 * formats as "never". Negative or truncated: -1.
 */
int	 pg_duration_format(int64_t, char *, size_t);

/*
 * pg_duration_format into buf, PG_DURATION_MAX bytes, or "?" for what
 * it refuses: buf, for a message.
 */
#define PG_DURATION_MAX	32
const char	*pg_duration_text(int64_t, char *);

/*
 * True when the string is a valid cluster ID: 1 to PG_NAME_MAX characters
 * of [A-Za-z0-9._-], not starting with '.' or '-'. IDs name state files
 * and URL path segments, and are command-line arguments.
 */
int	 pg_cluster_id_valid(const char *);

/* The same rule for peer and node names. */
int	 pg_peer_name_valid(const char *);

/*
 * How long from now until the earliest of the times at[0..n) that are
 * set (> 0), never less than 0: one already past is due now. Times in
 * ms of one clock; with none set, until INT64_MAX.
 */
int64_t	 pg_time_left(int64_t, const int64_t *, size_t);

/*
 * kv.c: the "key value" format of the side record, the lease record and
 * the status answer: lines of a key, one space and a value (the rest of
 * the line). A key is 1 to PG_KV_KEY_MAX of [a-z0-9_]. Pure: no I/O.
 */

/*
 * Append printf-formatted text to buf (len bytes) at *off and advance
 * *off: 0, or -1, *off unchanged, when it does not fit. The record and
 * status formatters OR (|=) the results of their steps and fail once, at
 * the end.
 */
int	 pg_appendf(char *, size_t, size_t *, const char *, ...)
	    __attribute__((__format__(__printf__, 4, 5)));

/* The end of a formatter: off, or -1 with ENAMETOOLONG when r is not 0. */
int	 pg_kv_done(int, size_t);

#define PG_KV_KEY_MAX	32	/* a key's length */
#define PG_KV_CRLF	0x1	/* a CR before a line's LF is not part of it */
#define PG_KV_BLANK	0x2	/* a blank line ends the block (else: SYNTAX) */
#define PG_KV_STRICT	0x4	/* an unknown key is an error (else: skipped) */

enum pg_kv_error {
	PG_KV_NO_LF = 1,	/* the last line has no LF */
	PG_KV_LONG,		/* longer than line_max, or a NUL in it */
	PG_KV_SYNTAX,		/* not "key value" */
	PG_KV_UNKNOWN,		/* PG_KV_STRICT: a key not known */
	PG_KV_TWICE		/* a known key again */
};

/* A reader of lines; the fields after flags say what it read last. */
struct pg_kv {
	const char		*p;		/* the next line */
	const char		*end;
	const char *const	*keys;		/* known, NULL last; 32 at
						   most */
	int			 flags;		/* PG_KV_* */
	size_t			 line_max;	/* the longest line without its
						   end; 0: no limit */
	unsigned int		 seen;		/* a bit per known key read */
	size_t			 nline;		/* lines read, from 1 */
	const char		*line;		/* that line, without its end */
	size_t			 len;
	unsigned int		 key;		/* its key's index in keys */
	const char		*val;		/* its value, val[0..vlen) */
	size_t			 vlen;
	enum pg_kv_error	 error;		/* why pg_kv_next said -1 */
};

/* Read the lines of buf[0..len) with these keys and flags. */
void	 pg_kv_init(struct pg_kv *, const char *, size_t, const char *const *,
	    int);

/*
 * A file: at most max bytes, its first line the version line magic (with
 * its LF), then lines of these keys. 0, or -1 when it is not such a file.
 */
int	 pg_kv_begin(struct pg_kv *, const char *, size_t, size_t,
	    const char *, const char *const *, int);

/*
 * The next line of a known key: 1, its index in key and its value in
 * val; lines of unknown keys are skipped. 0 at the end (with
 * PG_KV_BLANK, after a blank line). -1, the reason in error, when a line
 * has no LF, is longer than line_max or holds a NUL, is not "key value",
 * or has a known key read before (key then says which).
 */
int	 pg_kv_next(struct pg_kv *);

/* True when each of the n bytes at s is from lo to hi. */
int	 pg_bytes_within(const char *, size_t, char, char);

/*
 * A number from lo to hi, the whole of s[0..n): 1 to 19 decimal digits,
 * nothing else, read by strtonum. 0 and *v, or -1.
 */
int	 pg_kv_num(const char *, size_t, int64_t, int64_t, int64_t *);

#endif /* PG_BASE_H */
