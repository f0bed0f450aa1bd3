/* SPDX-License-Identifier: ISC */
/*
 * sidefmt.c: the text of each part of the side record (side.c), both
 * ends: the outcome, the hold, the checked part. Each is a version line
 * and "key value" lines (kv.c); a reader ignores keys it does not know
 * and checks those it knows in full. And the rules of a hold. No I/O
 * but the clock that pg_hold_make reads.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "state-int.h"

#define BIT(k)	(1U << (k))

/* A structure of size bytes cleared; -1 with EBADMSG, for the parsers. */
static int
bad(void *p, size_t size)
{
	memset(p, 0, size);
	errno = EBADMSG;
	return -1;
}

/*
 * The outcome: the job's runs on this node. Its text:
 *
 *	pollguard-outcome 1
 *	running 0|1
 *	pid PID
 *	start BOOT MONO WALL
 *	end BOOT MONO WALL		(from here on: when a run ended)
 *	duration_ms MS
 *	exit STATUS | signal NUMBER
 *	timed_out 0|1
 *	success BOOT MONO WALL		(when a run succeeded)
 *	failures N
 */
#define OUTCOME_MAGIC	"pollguard-outcome 1\n"

enum {
	K_RUNNING, K_PID, K_START, K_END, K_DURATION, K_EXIT, K_SIGNAL,
	K_TIMED_OUT, K_FAILURES, K_SUCCESS
};
static const char *const outcome_keys[] = {
	"running", "pid", "start", "end", "duration_ms", "exit", "signal",
	"timed_out", "failures", "success", NULL
};

int
pg_outcome_format(const struct pg_outcome *o, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	r |= pg_appendf(buf, len, &off, OUTCOME_MAGIC "running %d\npid %ld\n",
	    o->running ? 1 : 0, (long)o->pid);
	r |= pg_stamp_append(buf, len, &off, "start", &o->start);
	if (o->ended) {
		r |= pg_stamp_append(buf, len, &off, "end", &o->end);
		r |= pg_appendf(buf, len, &off, "duration_ms %" PRId64 "\n"
		    "%s %d\ntimed_out %d\n", o->duration_ms, o->signal > 0 ?
		    "signal" : "exit", o->signal > 0 ? o->signal :
		    o->exit_status, o->timed_out ? 1 : 0);
	}
	if (o->succeeded)
		r |= pg_stamp_append(buf, len, &off, "success", &o->success);
	r |= pg_appendf(buf, len, &off, "failures %" PRId64 "\n",
	    o->failures);
	return pg_kv_done(r, off);
}

/* One line of the outcome into o: 0, or -1 when its value is not valid. */
static int
outcome_value(struct pg_outcome *o, const struct pg_kv *kv)
{
	int64_t	 v;

	switch (kv->key) {
	case K_START:
	case K_END:
	case K_SUCCESS:
		return pg_stamp_value(kv->val, kv->vlen, kv->key == K_START ?
		    &o->start : kv->key == K_END ? &o->end : &o->success);
	case K_PID:
		if (pg_kv_num(kv->val, kv->vlen, 0, INT_MAX, &v) == -1)
			return -1;
		o->pid = v;
		return 0;
	case K_EXIT:
		if (pg_kv_num(kv->val, kv->vlen, 0, 255, &v) == -1)
			return -1;
		o->exit_status = v;
		return 0;
	case K_SIGNAL:
		if (pg_kv_num(kv->val, kv->vlen, 1, 127, &v) == -1)
			return -1;
		o->signal = v;
		return 0;
	case K_DURATION:
		return pg_kv_num(kv->val, kv->vlen, 0, INT64_MAX,
		    &o->duration_ms);
	case K_FAILURES:
		return pg_kv_num(kv->val, kv->vlen, 0, INT64_MAX,
		    &o->failures);
	default:	/* running, timed_out: flags */
		if (pg_kv_num(kv->val, kv->vlen, 0, 1, &v) == -1)
			return -1;
		*(kv->key == K_RUNNING ? &o->running : &o->timed_out) = v;
		return 0;
	}
}

int
pg_outcome_parse(const char *buf, size_t len, struct pg_outcome *o)
{
	struct pg_kv	 kv;
	unsigned int	 seen;
	int		 r;

	memset(o, 0, sizeof(*o));
	o->exit_status = -1;
	if (pg_kv_begin(&kv, buf, len, PG_OUTCOME_MAX, OUTCOME_MAGIC,
	    outcome_keys, 0) == -1)
		return bad(o, sizeof(*o));
	while ((r = pg_kv_next(&kv)) == 1)
		if (outcome_value(o, &kv) == -1)
			return bad(o, sizeof(*o));
	seen = kv.seen;
	if (r == -1)
		return bad(o, sizeof(*o));
	/* A run's start, its end with one result, or neither of those. */
	o->ended = (seen & BIT(K_END)) != 0;
	o->succeeded = (seen & BIT(K_SUCCESS)) != 0;
	if ((seen & (BIT(K_RUNNING) | BIT(K_START) | BIT(K_FAILURES))) !=
	    (BIT(K_RUNNING) | BIT(K_START) | BIT(K_FAILURES)) ||
	    (!o->running && !o->ended))
		return bad(o, sizeof(*o));
	if (o->ended ? !(seen & BIT(K_DURATION)) ||
	    !(seen & BIT(K_EXIT)) == !(seen & BIT(K_SIGNAL)) :
	    (seen & (BIT(K_DURATION) | BIT(K_EXIT) | BIT(K_SIGNAL) |
	    BIT(K_TIMED_OUT))) != 0)
		return bad(o, sizeof(*o));
	return 0;
}

/*
 * The hold. Its text:
 *
 *	pollguard-hold 1
 *	until BOOT MONO WALL	the moment it ends, on this host's clocks
 *	ms MS			how long it was set for
 *	by USER@NODE		(optional)
 *	why MESSAGE		(optional; the rest of the line)
 *
 * The end is stored rather than the start so that, within a boot, the
 * time left is a difference of monotonic clocks like every elapsed time;
 * ms bounds a hold read after a reboot, when only the wall clock is left.
 */
#define HOLD_MAGIC	"pollguard-hold 1\n"

enum { H_UNTIL, H_MS, H_BY, H_WHY };
static const char *const hold_keys[] = { "until", "ms", "by", "why", NULL };

/*
 * A text of a hold, s[0..n): printable ASCII, no blank at either end, so
 * that it stays one line of the file and of the status answer. 0, or -1
 * with errno.
 */
static int
hold_text(const char *s, size_t n)
{
	if (n >= PG_HOLD_TEXT_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!pg_bytes_within(s, n, 0x20, 0x7e) ||
	    (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
pg_hold_make(struct pg_hold *h, int64_t ms, const char *by, const char *why)
{
	memset(h, 0, sizeof(*h));
	if (by == NULL)
		by = "";
	if (why == NULL)
		why = "";
	if (ms < 1 || ms > PG_HOLD_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	if (hold_text(by, strlen(by)) == -1 ||
	    hold_text(why, strlen(why)) == -1 ||
	    pg_stamp_now(&h->until) == -1)
		return -1;
	h->until.mono_ns += ms * 1000000;
	h->until.wall_ns += ms * 1000000;
	h->ms = ms;
	strlcpy(h->by, by, sizeof(h->by));
	strlcpy(h->why, why, sizeof(h->why));
	return 0;
}

int64_t
pg_hold_left(const struct pg_hold *h, const struct pg_stamp *now)
{
	struct pg_stamp	 set = h->until;
	int64_t		 left;

	/* The moment it was set; its boot is the boot of the hold. */
	set.mono_ns -= h->ms * 1000000;
	set.wall_ns -= h->ms * 1000000;
	if (pg_stamp_same_boot(&set, now))
		left = (h->until.mono_ns - now->mono_ns) / 1000000;
	else
		left = h->ms - pg_stamp_elapsed(&set, now);
	if (left > h->ms)
		left = h->ms;
	return left > 0 ? left : 0;
}

int
pg_hold_format(const struct pg_hold *h, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	if (h->ms < 1 || h->ms > PG_HOLD_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	if (hold_text(h->by, strnlen(h->by, sizeof(h->by))) == -1 ||
	    hold_text(h->why, strnlen(h->why, sizeof(h->why))) == -1)
		return -1;
	r |= pg_appendf(buf, len, &off, HOLD_MAGIC);
	r |= pg_stamp_append(buf, len, &off, "until", &h->until);
	r |= pg_appendf(buf, len, &off, "ms %" PRId64 "\n", h->ms);
	if (h->by[0] != '\0')
		r |= pg_appendf(buf, len, &off, "by %s\n", h->by);
	if (h->why[0] != '\0')
		r |= pg_appendf(buf, len, &off, "why %s\n", h->why);
	return pg_kv_done(r, off);
}

int
pg_hold_parse(const char *buf, size_t len, struct pg_hold *h)
{
	struct pg_kv	 kv;
	int		 r;

	memset(h, 0, sizeof(*h));
	if (pg_kv_begin(&kv, buf, len, PG_HOLD_FILE_MAX, HOLD_MAGIC,
	    hold_keys, 0) == -1)
		return bad(h, sizeof(*h));
	while ((r = pg_kv_next(&kv)) == 1) {
		switch (kv.key) {
		case H_UNTIL:
			r = pg_stamp_value(kv.val, kv.vlen, &h->until);
			break;
		case H_MS:
			r = pg_kv_num(kv.val, kv.vlen, 1, PG_HOLD_MAX_MS,
			    &h->ms);
			break;
		default:	/* by, why */
			if ((r = kv.vlen == 0 ? -1 :
			    hold_text(kv.val, kv.vlen)) == 0)
				memcpy(kv.key == H_BY ? h->by : h->why,
				    kv.val, kv.vlen);
			break;
		}
		if (r == -1)
			return bad(h, sizeof(*h));
	}
	/* The end cannot be earlier after boot than the time it was set for. */
	if (r == -1 || (kv.seen & (BIT(H_UNTIL) | BIT(H_MS))) !=
	    (BIT(H_UNTIL) | BIT(H_MS)) || h->until.mono_ns < h->ms * 1000000)
		return bad(h, sizeof(*h));
	return 0;
}

/*
 * The checked part. Its text:
 *
 *	pollguard-checked 1
 *	last BOOT MONO WALL	the latest check began
 *	since BOOT MONO WALL	checks have run without a longer gap since
 *	yield NODE		(optional) the preferred node it yields to
 *	yielded BOOT MONO WALL	(with yield) when it decided to
 */
#define CHECKED_MAGIC	"pollguard-checked 1\n"

enum { C_LAST, C_SINCE, C_YIELD, C_YIELDED };
static const char *const checked_keys[] = {
	"last", "since", "yield", "yielded", NULL
};

int
pg_checked_format(const struct pg_checked *ck, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	if (ck->yield[0] != '\0' && !pg_peer_name_valid(ck->yield)) {
		errno = EINVAL;
		return -1;
	}
	r |= pg_appendf(buf, len, &off, CHECKED_MAGIC);
	r |= pg_stamp_append(buf, len, &off, "last", &ck->last);
	r |= pg_stamp_append(buf, len, &off, "since", &ck->since);
	if (ck->yield[0] != '\0') {
		r |= pg_appendf(buf, len, &off, "yield %s\n", ck->yield);
		r |= pg_stamp_append(buf, len, &off, "yielded", &ck->yielded);
	}
	return pg_kv_done(r, off);
}

int
pg_checked_parse(const char *buf, size_t len, struct pg_checked *ck)
{
	struct pg_kv	 kv;
	int		 r;

	memset(ck, 0, sizeof(*ck));
	if (pg_kv_begin(&kv, buf, len, PG_CHECKED_MAX, CHECKED_MAGIC,
	    checked_keys, 0) == -1)
		return bad(ck, sizeof(*ck));
	while ((r = pg_kv_next(&kv)) == 1) {
		if (kv.key == C_YIELD) {
			if (kv.vlen == 0 || kv.vlen > PG_NAME_MAX)
				return bad(ck, sizeof(*ck));
			memcpy(ck->yield, kv.val, kv.vlen);
			if (!pg_peer_name_valid(ck->yield))
				return bad(ck, sizeof(*ck));
		} else if (pg_stamp_value(kv.val, kv.vlen, kv.key == C_LAST ?
		    &ck->last : kv.key == C_SINCE ? &ck->since :
		    &ck->yielded) == -1)
			return bad(ck, sizeof(*ck));
	}
	if (r == -1 || (kv.seen & (BIT(C_LAST) | BIT(C_SINCE))) !=
	    (BIT(C_LAST) | BIT(C_SINCE)) ||
	    !(kv.seen & BIT(C_YIELD)) != !(kv.seen & BIT(C_YIELDED)))
		return bad(ck, sizeof(*ck));
	return 0;
}
