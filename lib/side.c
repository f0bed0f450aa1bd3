/* SPDX-License-Identifier: ISC */
/* side.c: the side record, ".CLUSTER.side" (doc/STATE.md, "The side"). */
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <string.h>

#include "state-int.h"

#define BIT(k)		(1U << (k))
#define ALL(seen, m)	(((seen) & (m)) == (m))

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
	int		 r;

	memset(o, 0, sizeof(*o));
	o->exit_status = -1;
	if (pg_kv_begin(&kv, buf, len, PG_OUTCOME_MAX, OUTCOME_MAGIC,
	    outcome_keys, 0) == -1)
		return pg_bad_msg(o, sizeof(*o));
	while ((r = pg_kv_next(&kv)) == 1)
		if (outcome_value(o, &kv) == -1)
			return pg_bad_msg(o, sizeof(*o));
	/* A run's start, its end with one result, or neither of those. */
	o->ended = (kv.seen & BIT(K_END)) != 0;
	o->succeeded = (kv.seen & BIT(K_SUCCESS)) != 0;
	if (r == -1 || !ALL(kv.seen, BIT(K_RUNNING) | BIT(K_START) |
	    BIT(K_FAILURES)) || (!o->running && !o->ended))
		return pg_bad_msg(o, sizeof(*o));
	if (o->ended ? !(kv.seen & BIT(K_DURATION)) ||
	    !(kv.seen & BIT(K_EXIT)) == !(kv.seen & BIT(K_SIGNAL)) :
	    (kv.seen & (BIT(K_DURATION) | BIT(K_EXIT) | BIT(K_SIGNAL) |
	    BIT(K_TIMED_OUT))) != 0)
		return pg_bad_msg(o, sizeof(*o));
	return 0;
}

#define HOLD_MAGIC	"pollguard-hold 1\n"

enum { H_UNTIL, H_MS, H_BY, H_WHY };
static const char *const hold_keys[] = { "until", "ms", "by", "why", NULL };

/* A text of a hold: one line of the file and of the status answer. */
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

static int
hold_valid(int64_t ms, const char *by, const char *why)
{
	if (ms < 1 || ms > PG_HOLD_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	return hold_text(by, strnlen(by, PG_HOLD_TEXT_MAX)) == -1 ||
	    hold_text(why, strnlen(why, PG_HOLD_TEXT_MAX)) == -1 ? -1 : 0;
}

int
pg_hold_make(struct pg_hold *h, int64_t ms, const char *by, const char *why)
{
	memset(h, 0, sizeof(*h));
	if (by == NULL)
		by = "";
	if (why == NULL)
		why = "";
	if (hold_valid(ms, by, why) == -1 || pg_stamp_now(&h->until) == -1)
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

	/*
	 * Its boot is that of the moment it was set: its end lies ahead of
	 * now, which without boot IDs reads as a reboot.
	 */
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

	if (hold_valid(h->ms, h->by, h->why) == -1)
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
		return pg_bad_msg(h, sizeof(*h));
	while ((r = pg_kv_next(&kv)) == 1) {
		if (kv.key == H_UNTIL)
			r = pg_stamp_value(kv.val, kv.vlen, &h->until);
		else if (kv.key == H_MS)
			r = pg_kv_num(kv.val, kv.vlen, 1, PG_HOLD_MAX_MS,
			    &h->ms);
		else if (kv.vlen == 0)
			r = -1;
		else if ((r = hold_text(kv.val, kv.vlen)) == 0)
			memcpy(kv.key == H_BY ? h->by : h->why, kv.val,
			    kv.vlen);
		if (r == -1)
			return pg_bad_msg(h, sizeof(*h));
	}
	/* The end cannot be earlier after boot than the time it was set for. */
	if (r == -1 || !ALL(kv.seen, BIT(H_UNTIL) | BIT(H_MS)) ||
	    h->until.mono_ns < h->ms * 1000000)
		return pg_bad_msg(h, sizeof(*h));
	return 0;
}

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
		return pg_bad_msg(ck, sizeof(*ck));
	while ((r = pg_kv_next(&kv)) == 1) {
		if (kv.key == C_YIELD) {
			if (kv.vlen > PG_NAME_MAX)
				return pg_bad_msg(ck, sizeof(*ck));
			memcpy(ck->yield, kv.val, kv.vlen);
		} else if (pg_stamp_value(kv.val, kv.vlen, kv.key == C_LAST ?
		    &ck->last : kv.key == C_SINCE ? &ck->since :
		    &ck->yielded) == -1)
			return pg_bad_msg(ck, sizeof(*ck));
	}
	if (r == -1 || !ALL(kv.seen, BIT(C_LAST) | BIT(C_SINCE)) ||
	    !(kv.seen & BIT(C_YIELD)) != !(kv.seen & BIT(C_YIELDED)) ||
	    ((kv.seen & BIT(C_YIELD)) && !pg_peer_name_valid(ck->yield)))
		return pg_bad_msg(ck, sizeof(*ck));
	return 0;
}

#define SIDE_SUFFIX	"side"
#define SECTION		"pollguard-"

enum part { P_OUTCOME, P_HOLD, P_CHECKED, P_COUNT };
static const char *const part_magic[P_COUNT] = {
	OUTCOME_MAGIC, HOLD_MAGIC, CHECKED_MAGIC
};

struct parts {
	const char	*part[P_COUNT];
	size_t		 len[P_COUNT];
};

/* The side record as a writer reads it: its bytes, and its parts. */
struct side {
	char		 buf[PG_SIDE_MAX];
	size_t		 len;		/* 0: none, or it could not be read */
	int		 damaged;	/* as a whole, or refused */
	struct parts	 p;
};

static int
is_section(const char *s, size_t n)
{
	return n >= sizeof(SECTION) - 1 &&
	    memcmp(s, SECTION, sizeof(SECTION) - 1) == 0;
}

static enum part
part_of(const char *sec, size_t n)
{
	size_t		 w;
	enum part	 k;

	for (w = 0; w < n && sec[w] != ' ' && sec[w] != '\n'; w++)
		;
	for (k = 0; k < P_COUNT; k++)
		if (strcspn(part_magic[k], " ") == w &&
		    memcmp(part_magic[k], sec, w) == 0)
			break;
	return k;
}

/* The end of the section at p: the next line that begins one, or end. */
static const char *
section_end(const char *p, const char *end)
{
	do
		p = (const char *)memchr(p, '\n', end - p) + 1;
	while (p < end && !is_section(p, end - p));
	return p;
}

/* Find the parts of buf[0..len): 0, or -1 (EBADMSG): damaged. */
static int
split(const char *buf, size_t len, struct parts *p)
{
	const char	*q, *e;
	enum part	 k;

	memset(p, 0, sizeof(*p));
	if (len == 0)
		return 0;
	if (len > PG_SIDE_MAX || buf[len - 1] != '\n' ||
	    memchr(buf, '\0', len) != NULL || !is_section(buf, len))
		return pg_bad_msg(p, sizeof(*p));
	for (q = buf; q < buf + len; q = e) {
		e = section_end(q, buf + len);
		if ((k = part_of(q, e - q)) == P_COUNT)
			continue;	/* a later version's */
		if (p->part[k] != NULL)
			return pg_bad_msg(p, sizeof(*p));
		p->part[k] = q;
		p->len[k] = e - q;
	}
	return 0;
}

/* Part k into v: 1, 0: none, -1 (EBADMSG). */
static int
part_parse(const struct parts *p, enum part k, void *v)
{
	const char	*sec = p->part[k];
	size_t		 n = p->len[k];

	if (sec == NULL)
		return 0;
	if (k == P_OUTCOME)
		return pg_outcome_parse(sec, n, v) == -1 ? -1 : 1;
	if (k == P_HOLD)
		return pg_hold_parse(sec, n, v) == -1 ? -1 : 1;
	return pg_checked_parse(sec, n, v) == -1 ? -1 : 1;
}

/*
 * Read the side record into s and find its parts: 0 (s->len 0 when there
 * is none), or -1 with errno and no parts; s->damaged when EBADMSG, ELOOP
 * or EPERM (pg_state_openat).
 */
static int
side_get(struct pg_state *st, const char *cluster, struct side *s)
{
	ssize_t		 n;

	memset(&s->p, 0, sizeof(s->p));
	s->len = 0;
	if ((n = pg_state_get(st, cluster, SIDE_SUFFIX, s->buf,
	    sizeof(s->buf))) == -1 || split(s->buf, n, &s->p) == -1) {
		/* A link or another's file is replaced, as a damaged one. */
		s->damaged = errno == EBADMSG || errno == ELOOP ||
		    errno == EPERM;
		return -1;
	}
	s->damaged = 0;
	s->len = n;
	return 0;
}

static int
part_read(struct pg_state *st, const char *cluster, enum part k, void *v)
{
	struct side	 s;

	if (side_get(st, cluster, &s) == -1)
		return -1;
	return part_parse(&s.p, k, v);
}

/* Lock and read the side record; one damaged as a whole reads as none. */
static int
side_lock(struct pg_state *st, const char *cluster, struct side *s)
{
	if (pg_rec_lock(st, cluster) == -1)
		return -1;
	if (side_get(st, cluster, s) == -1 && !s->damaged) {
		pg_rec_unlock(st);
		return -1;
	}
	return 0;
}

/* Append t[0..n) to out at *off while it ends within room bytes. */
static void
keep(char *out, size_t *off, size_t room, const char *t, size_t n)
{
	if (t != NULL && *off <= room && n <= room - *off) {
		memcpy(out + *off, t, n);
		*off += n;
	}
}

/*
 * Replace part k of s (read by side_lock) with text[0..len) (len 0: none),
 * keeping what else fits, and release the record lock. The file is removed
 * when nothing is left; removing an absent part from an undamaged file
 * writes nothing.
 */
static int
side_write(struct pg_state *st, const char *cluster, struct side *s,
    enum part k, const char *text, size_t len)
{
	char		 out[PG_SIDE_MAX];
	const char	*p, *e;
	size_t		 off = 0;
	enum part	 i;
	int		 r = 0;

	if (len > sizeof(out)) {
		errno = ENAMETOOLONG;
		r = -1;
	} else if (len > 0 || s->p.part[k] != NULL || s->damaged) {
		for (i = 0; i < P_COUNT; i++)
			if (i == k)
				keep(out, &off, sizeof(out), text, len);
			else
				keep(out, &off, sizeof(out) -
				    (i < k ? len : 0), s->p.part[i],
				    s->p.len[i]);
		for (p = s->buf; p < s->buf + s->len; p = e) {
			e = section_end(p, s->buf + s->len);
			if (part_of(p, e - p) == P_COUNT)
				keep(out, &off, sizeof(out), p, e - p);
		}
		r = pg_state_put(st, cluster, SIDE_SUFFIX, off > 0 ? out :
		    NULL, off);
	}	/* else nothing to remove: no write */
	pg_rec_unlock(st);
	return r;
}

/* Replace part k (len 0: remove it), under the record lock. */
static int
side_put(struct pg_state *st, const char *cluster, enum part k,
    const char *text, size_t len)
{
	struct side	 s;

	if (side_lock(st, cluster, &s) == -1)
		return -1;
	return side_write(st, cluster, &s, k, text, len);
}

int
pg_outcome_read(struct pg_state *st, const char *cluster,
    struct pg_outcome *o)
{
	return part_read(st, cluster, P_OUTCOME, o);
}

int
pg_outcome_start(struct pg_state *st, const char *cluster, pid_t pid,
    struct pg_outcome *o)
{
	struct side	 s;
	char		 buf[PG_OUTCOME_MAX];
	int		 len, locked, saved = 0;

	/* Without the lock, *o is still what would be written. */
	if (!(locked = side_lock(st, cluster, &s) == 0)) {
		saved = errno;
		side_get(st, cluster, &s);
	}
	if (part_parse(&s.p, P_OUTCOME, o) != 1) {
		memset(o, 0, sizeof(*o));
		o->exit_status = -1;
	}
	if (o->running && o->failures < INT64_MAX)
		o->failures++;
	o->running = 1;
	o->pid = pid;
	if (pg_stamp_now(&o->start) == -1 ||
	    (len = pg_outcome_format(o, buf, sizeof(buf))) == -1) {
		if (locked)
			pg_rec_unlock(st);
		return -1;
	}
	if (!locked) {
		errno = saved;
		return -1;
	}
	return side_write(st, cluster, &s, P_OUTCOME, buf, len);
}

int
pg_outcome_finish(struct pg_state *st, const char *cluster, int status,
    int timed_out, struct pg_outcome *o)
{
	char	 buf[PG_OUTCOME_MAX];
	int	 failed, len;

	o->running = 0;
	o->ended = 1;
	if (pg_stamp_now(&o->end) == -1)
		return -1;
	/* Across boots, or a clock gone back: not known, 0. */
	o->duration_ms = strcmp(o->end.boot_id, o->start.boot_id) == 0 &&
	    o->end.mono_ns > o->start.mono_ns ?
	    (o->end.mono_ns - o->start.mono_ns) / 1000000 : 0;
	if (WIFSIGNALED(status)) {
		o->exit_status = -1;
		o->signal = WTERMSIG(status);
	} else {
		o->exit_status = WEXITSTATUS(status);
		o->signal = 0;
	}
	o->timed_out = timed_out != 0;
	failed = o->timed_out || o->signal != 0 || o->exit_status != 0;
	if (!failed) {
		o->failures = 0;
		o->succeeded = 1;
		o->success = o->end;
	} else if (o->failures < INT64_MAX)
		o->failures++;
	if ((len = pg_outcome_format(o, buf, sizeof(buf))) == -1)
		return -1;
	return side_put(st, cluster, P_OUTCOME, buf, len);
}

int
pg_outcome_write(struct pg_state *st, const char *cluster,
    const struct pg_outcome *o)
{
	char	 buf[PG_OUTCOME_MAX];
	int	 len;

	if ((len = pg_outcome_format(o, buf, sizeof(buf))) == -1)
		return -1;
	return side_put(st, cluster, P_OUTCOME, buf, len);
}

enum pg_run
pg_outcome_run(struct pg_state *st, const char *cluster,
    const struct pg_outcome *o)
{
	struct pg_outcome	 again;
	int			 held;

	if (o == NULL)
		return PG_RUN_NONE;
	if (!o->running)
		return PG_RUN_DONE;
	if ((held = pg_lock_held(st, cluster)) == 1)
		return PG_RUN_RUNNING;
	if (held == 0) {
		/* The run may have ended since o was read: read again. */
		if (pg_outcome_read(st, cluster, &again) == 1 &&
		    (!again.running || again.start.mono_ns !=
		    o->start.mono_ns))
			return PG_RUN_DONE;
		return PG_RUN_DIED;
	}
	if (o->pid > 0 && kill(o->pid, 0) == -1 && errno == ESRCH)
		return PG_RUN_DIED;
	return PG_RUN_RUNNING;
}

int
pg_hold_write(struct pg_state *st, const char *cluster,
    const struct pg_hold *h)
{
	char	 buf[PG_HOLD_FILE_MAX];
	int	 len;

	if ((len = pg_hold_format(h, buf, sizeof(buf))) == -1)
		return -1;
	return side_put(st, cluster, P_HOLD, buf, len);
}

int
pg_hold_remove(struct pg_state *st, const char *cluster)
{
	return side_put(st, cluster, P_HOLD, NULL, 0);
}

int
pg_checked_read(struct pg_state *st, const char *cluster,
    struct pg_checked *ck)
{
	return part_read(st, cluster, P_CHECKED, ck);
}

int
pg_checked_write(struct pg_state *st, const char *cluster,
    const struct pg_checked *ck)
{
	char	 buf[PG_CHECKED_MAX];
	int	 len;

	if ((len = pg_checked_format(ck, buf, sizeof(buf))) == -1)
		return -1;
	return side_put(st, cluster, P_CHECKED, buf, len);
}

/* The parts p into sd, found when r is 0; else every part -1. */
static int
side_parts(int r, const struct parts *p, struct pg_side *sd)
{
	memset(sd, 0, sizeof(*sd));
	if (r == -1) {
		sd->outcome = sd->hold = sd->checked = -1;
		return -1;
	}
	sd->outcome = part_parse(p, P_OUTCOME, &sd->o);
	sd->hold = part_parse(p, P_HOLD, &sd->h);
	sd->checked = part_parse(p, P_CHECKED, &sd->ck);
	return 0;
}

int
pg_side_parse(const char *buf, size_t len, struct pg_side *sd)
{
	struct parts	 p;

	return side_parts(split(buf, len, &p), &p, sd);
}

int
pg_side_read(struct pg_state *st, const char *cluster, struct pg_side *sd)
{
	struct side	 s;

	return side_parts(side_get(st, cluster, &s), &s.p, sd);
}
