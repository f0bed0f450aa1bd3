/* SPDX-License-Identifier: ISC */
/*
 * side.c: the side record of a cluster, ".CLUSTER.side": what this node
 * did besides being active, kept apart from the activity record so that
 * a damaged side record never affects it. Three parts, each a section of
 * "key value" lines after a version line of its own (sidefmt.c):
 *
 *	pollguard-outcome 1	the job's runs (pollguard-touch --)
 *	pollguard-hold 1	a hold on the cluster (pollguard-touch -H)
 *	pollguard-checked 1	this node's checks (pollguard-check, prefer)
 *
 * in this order, each only when there is one; a section begins at each
 * line that begins with "pollguard-". Each part is read on its own: a
 * damaged section reads as a damaged part and leaves the others readable.
 * A file that is damaged as a whole (no LF at its end, a NUL, too long,
 * not a section first, a part twice) reads as damaged in every part.
 * Sections of later versions are skipped, and kept by writers.
 *
 * Readers take no lock: the file is replaced by rename. Writers change
 * one part under the cluster's record lock (lock.c): they read the file,
 * replace their section, keep the others byte for byte and rename, so
 * that no part's update is lost to another's. A damaged file is replaced.
 */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "state-int.h"

#define SIDE_SUFFIX	"side"
#define SECTION		"pollguard-"

enum part { P_OUTCOME, P_HOLD, P_CHECKED, P_COUNT };
static const char *const part_names[P_COUNT] = {
	"pollguard-outcome", "pollguard-hold", "pollguard-checked"
};

/* Each part's section in the bytes of a side record; NULL: none. */
struct parts {
	const char	*part[P_COUNT];
	size_t		 len[P_COUNT];
};

/* The side record as a writer reads it: its bytes, and its parts. */
struct side {
	char		 buf[PG_SIDE_MAX];
	size_t		 len;		/* 0: none, or damaged */
	int		 damaged;	/* as a whole */
	struct parts	 p;
};

static int
is_section(const char *s, size_t n)
{
	return n >= sizeof(SECTION) - 1 &&
	    memcmp(s, SECTION, sizeof(SECTION) - 1) == 0;
}

/* The part a section is, by the first word of its first line. */
static enum part
part_of(const char *sec, size_t n)
{
	size_t		 w;
	enum part	 k;

	for (w = 0; w < n && sec[w] != ' ' && sec[w] != '\n'; w++)
		;
	for (k = 0; k < P_COUNT; k++)
		if (strlen(part_names[k]) == w &&
		    memcmp(part_names[k], sec, w) == 0)
			break;
	return k;
}

/*
 * The section at *p, up to the next line that begins one, or the end,
 * in sec[0..*n): 1, or 0 at the end. The bytes end with an LF.
 */
static int
next_section(const char **p, const char *end, const char **sec,
    size_t *n)
{
	const char	*q = *p;

	if (q >= end)
		return 0;
	do
		q = (const char *)memchr(q, '\n', end - q) + 1;
	while (q < end && !is_section(q, end - q));
	*sec = *p;
	*n = q - *p;
	*p = q;
	return 1;
}

/*
 * Find the parts of buf[0..len): 0, or -1 when it is damaged as a whole
 * (p then has none).
 */
static int
split(const char *buf, size_t len, struct parts *p)
{
	const char	*q, *sec;
	size_t		 n;
	enum part	 k;

	memset(p, 0, sizeof(*p));
	if (len == 0)
		return 0;
	if (len > PG_SIDE_MAX || buf[len - 1] != '\n' ||
	    memchr(buf, '\0', len) != NULL || !is_section(buf, len))
		goto bad;
	for (q = buf; next_section(&q, buf + len, &sec, &n);) {
		if ((k = part_of(sec, n)) == P_COUNT)
			continue;	/* a later version's */
		if (p->part[k] != NULL)
			goto bad;
		p->part[k] = sec;
		p->len[k] = n;
	}
	return 0;
bad:
	memset(p, 0, sizeof(*p));
	return -1;
}

/*
 * Read the side record into s, and find its parts: 0 (s->len 0 when
 * there is none), or -1 with errno (EBADMSG: damaged as a whole).
 */
static int
side_get(struct pg_state *st, const char *cluster, struct side *s)
{
	char		 name[PG_STATE_NAME_MAX];
	ssize_t		 n;

	memset(&s->p, 0, sizeof(s->p));
	s->len = 0;
	s->damaged = 0;
	if (pg_state_name(name, sizeof(name), cluster, SIDE_SUFFIX) == -1 ||
	    (n = pg_state_get(st, name, s->buf, sizeof(s->buf))) == -1) {
		s->damaged = errno == EBADMSG;
		return -1;
	}
	if (split(s->buf, n, &s->p) == -1) {
		s->damaged = 1;
		errno = EBADMSG;
		return -1;
	}
	s->len = n;
	return 0;
}

/* Part k of the side record: 1 and its section, 0: none, -1 with errno. */
static int
part_get(struct pg_state *st, const char *cluster, enum part k,
    struct side *s)
{
	if (side_get(st, cluster, s) == -1)
		return -1;
	return s->p.part[k] != NULL;
}

/*
 * Take the record lock and read the side record under it. One damaged
 * as a whole reads as none: the write replaces it.
 */
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
 * Replace part k of the side record s, read by side_lock, with text[0..
 * len) (len 0: no such part), keep the other sections, write the file
 * (none when nothing is left) and release the record lock. What does
 * not fit beside the new part is left out: only a damaged section or a
 * later version's can be that long.
 */
static int
side_write(struct pg_state *st, const char *cluster, struct side *s,
    enum part k, const char *text, size_t len)
{
	char		 name[PG_STATE_NAME_MAX], out[PG_SIDE_MAX];
	const char	*p, *sec;
	size_t		 off = 0, n;
	enum part	 i;
	int		 r;

	if (len > sizeof(out) ||
	    pg_state_name(name, sizeof(name), cluster, SIDE_SUFFIX) == -1) {
		errno = ENAMETOOLONG;
		r = -1;
		goto out;
	}
	/* Nothing to remove: no write. */
	if (len == 0 && s->p.part[k] == NULL && !s->damaged) {
		r = 0;
		goto out;
	}
	for (i = 0; i < P_COUNT; i++)
		if (i == k)
			keep(out, &off, sizeof(out), text, len);
		else
			keep(out, &off, sizeof(out) - (i < k ? len : 0),
			    s->p.part[i], s->p.len[i]);
	for (p = s->buf; next_section(&p, s->buf + s->len, &sec, &n);)
		if (part_of(sec, n) == P_COUNT)
			keep(out, &off, sizeof(out), sec, n);
	r = off > 0 ? pg_state_put(st, name, out, off) :
	    pg_state_unlink(st, name);
out:
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

/* The outcome part into o: 1, 0 when there is none, -1 (EBADMSG). */
static int
outcome_of(const struct parts *p, struct pg_outcome *o)
{
	if (p->part[P_OUTCOME] == NULL)
		return 0;
	return pg_outcome_parse(p->part[P_OUTCOME], p->len[P_OUTCOME],
	    o) == -1 ? -1 : 1;
}

int
pg_outcome_read(struct pg_state *st, const char *cluster,
    struct pg_outcome *o)
{
	struct side	 s;

	if (part_get(st, cluster, P_OUTCOME, &s) == -1)
		return -1;
	return outcome_of(&s.p, o);
}

int
pg_outcome_start(struct pg_state *st, const char *cluster, pid_t pid,
    struct pg_outcome *o)
{
	struct side	 s;
	char		 buf[PG_OUTCOME_MAX];
	int		 len, locked, saved = 0;

	/*
	 * Read under the lock, as a hold or a check may change the file
	 * meanwhile. Without the lock, *o is still what would be written.
	 */
	if (!(locked = side_lock(st, cluster, &s) == 0)) {
		saved = errno;
		side_get(st, cluster, &s);
	}
	if (outcome_of(&s.p, o) != 1) {
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
pg_hold_read(struct pg_state *st, const char *cluster, struct pg_hold *h,
    int64_t *left_ms)
{
	struct side	 s;
	struct pg_stamp	 now;
	int		 r;

	if ((r = part_get(st, cluster, P_HOLD, &s)) != 1)
		return r;
	if (pg_hold_parse(s.p.part[P_HOLD], s.p.len[P_HOLD], h) == -1 ||
	    pg_stamp_now(&now) == -1)
		return -1;
	*left_ms = pg_hold_left(h, &now);
	return *left_ms > 0;
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
	struct side	 s;
	int		 r;

	if ((r = part_get(st, cluster, P_CHECKED, &s)) != 1)
		return r;
	return pg_checked_parse(s.p.part[P_CHECKED], s.p.len[P_CHECKED],
	    ck) == -1 ? -1 : 1;
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

int
pg_side_parse(const char *buf, size_t len, struct pg_side *sd)
{
	struct parts	 p;

	memset(sd, 0, sizeof(*sd));
	if (split(buf, len, &p) == -1) {
		sd->outcome = sd->hold = sd->checked = -1;
		errno = EBADMSG;
		return -1;
	}
	sd->outcome = outcome_of(&p, &sd->o);
	if ((sd->hold = p.part[P_HOLD] != NULL) &&
	    pg_hold_parse(p.part[P_HOLD], p.len[P_HOLD], &sd->h) == -1)
		sd->hold = -1;
	if ((sd->checked = p.part[P_CHECKED] != NULL) &&
	    pg_checked_parse(p.part[P_CHECKED], p.len[P_CHECKED],
	    &sd->ck) == -1)
		sd->checked = -1;
	return 0;
}

int
pg_side_read(struct pg_state *st, const char *cluster, struct pg_side *sd)
{
	char		 name[PG_STATE_NAME_MAX], buf[PG_SIDE_MAX];
	ssize_t		 n;

	if (pg_state_name(name, sizeof(name), cluster, SIDE_SUFFIX) == -1 ||
	    (n = pg_state_get(st, name, buf, sizeof(buf))) == -1) {
		memset(sd, 0, sizeof(*sd));
		sd->outcome = sd->hold = sd->checked = -1;
		return -1;
	}
	return pg_side_parse(buf, n, sd);
}
