/* SPDX-License-Identifier: ISC */
/* fleet.c: pollguard-status's view of a cluster (fleet.h), pure. */
#include <sys/param.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vis.h>

#include "fleet.h"

/* A local hold's why, as an operator typed it, safe to print. */
#define VIS_FLAGS	(VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL)

/* Add to nx's text; what does not fit is cut off. */
static void
say(struct pg_next *nx, const char *fmt, ...)
{
	size_t	 n = strlen(nx->text);
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(nx->text + n, sizeof(nx->text) - n, fmt, ap);
	va_end(ap);
}

/*
 * The moment every answer is taken as read, for the yield rule; far from
 * both ends of int64_t, so that the bounded moments before it stay positive.
 */
#define NOW	(INT64_MAX / 2)

struct pred {
	struct pg_decision d;	/* pg_decide's, over its view */
	int		 checks;	/* its check runs and is predicted */
	int		 busy;		/* a run, a claim or a check there */
	char		 why[PG_TEXT_MAX];	/* d for people, no "skip: " */
};

/* The others as node i's check gets them, into seen: their count. */
static size_t
view(const struct pg_fleet *f, size_t i, struct pg_seen *seen)
{
	const struct pg_fleet_node	*n;
	struct pg_seen			*s = seen;
	size_t				 j;

	for (j = 0; j < f->n; j++) {
		if (j == i)
			continue;
		n = &f->nodes[j];
		memset(s, 0, sizeof(*s));
		s->name = n->name;
		s->answer.kind = n->kind;
		pg_status_init(&s->status);
		if (PG_ANSWER_OK(n->kind)) {
			s->answer.kind = n->st.elapsed_ms == PG_NEVER ?
			    PG_ANSWER_NEVER : PG_ANSWER_ELAPSED;
			s->answer.elapsed_ms = n->st.elapsed_ms;
			s->has_status = f->nodes[i].has_status &&
			    n->has_status;
			if (s->has_status)
				s->status = n->st;
		}
		strlcpy(s->why, n->why, sizeof(s->why));
		s->sent_ns = s->recv_ns = NOW;
		s++;
	}
	return s - seen;
}

/* The node that is peer k of node i's view. */
#define NODE_OF(i, k)	((k) < (i) ? (k) : (k) + 1)

/*
 * Node i's check, as pollguard-check makes it now, by our config but for
 * the prefer order it announces (none before 0.4); or not predicted.
 */
static void
predict(const struct pg_fleet *f, size_t i, struct pg_seen *seen,
    struct pred *p)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	struct pg_cluster		 c = *f->cluster;
	struct pg_status		 own = n->st;
	const struct pg_status		*mine = n->has_status ? &own : NULL;
	size_t				 k;

	memset(p, 0, sizeof(*p));
	if (!PG_ANSWER_OK(n->kind) || (n->has_status &&
	    n->st.prefer[0] != '\0' && n->st.checked_ms >=
	    f->cluster->wait_ms + f->cluster->prefer_slack_ms))
		return;
	p->checks = 1;
	strlcpy(c.prefer, n->has_status ? n->st.prefer : "",
	    sizeof(c.prefer));
	k = view(f, i, seen);
	own.at_ns = NOW;
	p->busy = n->has_status && (own.running || own.deciding == 1 ||
	    (own.claim_ms >= 0 && (own.settle_ms < 0 || own.claim_ms <
	    pg_claim_horizon(own.timeout_ms, own.settle_ms))));
	pg_decide(&c, n->name, mine, p->busy, seen, k, &p->d);
	if (p->busy && !own.running)	/* else LOCAL's own text */
		strlcpy(p->why, own.deciding == 1 ? "another check on this "
		    "node is deciding" : "another check on this node kept its "
		    "claim", sizeof(p->why));
	else
		pg_decision_text(&p->d, &c, mine, seen, k, p->why,
		    sizeof(p->why));
	if (strncmp(p->why, "skip: ", 6) == 0)
		memmove(p->why, p->why + 6, strlen(p->why + 6) + 1);
}

/* sep and "b unreachable: counted as never" for the first; 1 if any. */
static int
never(const struct pg_fleet *f, struct pg_next *nx, const char *sep)
{
	size_t	 u;

	for (u = 0; u < f->n; u++)
		if (f->nodes[u].kind == PG_ANSWER_UNREACHABLE) {
			say(nx, "%s%s%s: counted as never", sep,
			    f->nodes[u].name, f->nodes[u].self ?
			    "'s record unreadable" : " unreachable");
			return 1;
		}
	return 0;
}

/* Node i keeps polling: active within wait, maybe running. */
static void
active(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	char				 a[PG_DURATION_MAX];

	nx->reason = PG_REASON_ACTIVE;
	nx->node = i;
	say(nx, "%s: active %s ago", n->name,
	    pg_duration_text(n->st.elapsed_ms, a));
	if (n->st.running && n->st.pid > 0)
		say(nx, ", running (pid %" PRId64 ")", n->st.pid);
	else if (n->st.running)
		say(nx, ", running");
	say(nx, " (wait %s), keeps polling",
	    pg_duration_text(f->cluster->wait_ms, a));
}

static void
anyone(const struct pg_fleet *f, struct pg_next *nx)
{
	char	 a[PG_DURATION_MAX];

	say(nx, "nobody active within wait %s: the first check to run goes",
	    pg_duration_text(f->cluster->wait_ms, a));
}

/* Several checks go: the first to run; the text names any awake. */
static void
several(const struct pg_fleet *f, const struct pred *p, struct pg_next *nx)
{
	size_t	 i, failed = f->n, awake = 0, named = 0;

	for (i = 0; i < f->n && failed == f->n; i++)
		if (p[i].checks && p[i].d.verdict == PG_GO &&
		    p[i].d.failed < f->n - 1)
			failed = NODE_OF(i, p[i].d.failed);
	for (i = 0; i < f->n; i++)
		awake += i != failed && PG_ANSWER_OK(f->nodes[i].kind) &&
		    f->nodes[i].st.elapsed_ms < f->cluster->wait_ms;
	if (awake == 0) {
		if (failed < f->n)
			say(nx, "%s's last run failed, handing over; ",
			    f->nodes[failed].name);
		anyone(f, nx);
	} else {
		for (i = 0; i < f->n; i++)
			if (p[i].checks && p[i].d.verdict == PG_GO)
				say(nx, "%s%s", named++ > 0 ? ", " : "",
				    f->nodes[i].name);
		say(nx, " would go: the first check to run goes");
	}
	if (never(f, nx, " ("))
		say(nx, ")");
}

static void
one(const struct pg_fleet *f, const struct pred *p, size_t x,
    struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[x];
	const struct pg_decision	*d = &p[x].d;
	size_t				 i, others = 0;
	int				 open;

	if (n->st.elapsed_ms < f->cluster->wait_ms) {
		active(f, x, nx);
		return;
	}
	nx->node = x;
	if (n->has_status && n->st.prefer[0] != '\0' &&
	    d->disagree >= f->n - 1) {
		nx->reason = PG_REASON_PREFERRED;
		say(nx, "%s: its check goes, the others skip (prefer %s)",
		    n->name, n->st.prefer);
		return;
	}
	for (i = 0; i < f->n; i++)
		others += i != x && p[i].checks;
	say(nx, "%s: its check goes%s", n->name,
	    others ? ", the others skip" : "");
	open = d->failed < f->n - 1 || f->n == 1;
	if (d->failed < f->n - 1)
		say(nx, " (%s's last run failed, handing over",
		    f->nodes[NODE_OF(x, d->failed)].name);
	else if (f->n == 1)
		say(nx, " (no peers");
	if (never(f, nx, open ? "; " : " (") || open)
		say(nx, ")");
}

/* No check goes, each for a reason of its own: the reasons, by node. */
static void
each(const struct pg_fleet *f, struct pred *p, struct pg_next *nx)
{
	size_t	 i, j;
	int	 sep = 0;

	nx->reason = PG_REASON_EACH;
	say(nx, "nobody goes now");
	for (i = 0; i < f->n; i++) {
		if (!p[i].checks || p[i].why[0] == '\0')
			continue;
		say(nx, "%s %s", sep++ ? ";" : ":", f->nodes[i].name);
		for (j = i + 1; j < f->n; j++)
			if (p[j].checks && strcmp(p[i].why, p[j].why) == 0) {
				say(nx, ", %s", f->nodes[j].name);
				p[j].why[0] = '\0';
			}
		say(nx, ": %s", p[i].why);
	}
	if (sep == 0)
		say(nx, ": no node's checks run");
}

static void
hold(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	char				 a[PG_DURATION_MAX];
	char				 vis[PG_STATUS_TEXT_MAX * 4 + 1];

	nx->reason = PG_REASON_HELD;
	nx->node = i;
	say(nx, "held for %s by %s", pg_duration_text(n->st.hold_ms, a),
	    n->st.hold_by[0] != '\0' ? n->st.hold_by : n->name);
	if (n->st.hold_why[0] != '\0') {
		strnvis(vis, n->st.hold_why, sizeof(vis), VIS_FLAGS);
		say(nx, " (%s)", vis);
	}
	say(nx, ": nobody goes");
}

static void
unreachable(const struct pg_fleet *f, size_t i, const char *policy,
    struct pg_next *nx)
{
	nx->reason = PG_REASON_UNREACHABLE;
	nx->node = i;
	say(nx, "nobody while %s is unreachable (%s)", f->nodes[i].name,
	    policy);
}

/* Node i's error: its own record, or its answer. */
static void
error(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	nx->reason = PG_REASON_INVALID;
	nx->node = i;
	say(nx, f->nodes[i].self ? "%s cannot read its own record: its check "
	    "fails" : "%s answers an error: checks that ask it refuse to "
	    "decide", f->nodes[i].name);
}

/* No check goes: the first reason, pollguard-status(1)'s order. */
static void
nobody(const struct pg_fleet *f, struct pred *p, struct pg_next *nx)
{
	const struct pg_fleet_node	*n;
	size_t				 i, held = f->n, self = f->n;
	size_t				 bad = f->n, lost = f->n, busy = f->n;

	for (i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (n->has_status && n->st.hold_ms > 0 && (held == f->n ||
		    n->st.hold_ms > f->nodes[held].st.hold_ms))
			held = i;
		if (n->self && !PG_ANSWER_OK(n->kind))
			self = i;
		if (!p[i].checks)
			continue;
		if (p[i].d.verdict == PG_REFUSE_INVALID && bad == f->n)
			bad = NODE_OF(i, p[i].d.peer);
		if (p[i].d.verdict == PG_SKIP_UNREACHABLE && lost == f->n)
			lost = NODE_OF(i, p[i].d.peer);
		if (p[i].busy && n->st.elapsed_ms < f->cluster->wait_ms &&
		    (busy == f->n ||
		    n->st.elapsed_ms < f->nodes[busy].st.elapsed_ms))
			busy = i;
	}
	if (held < f->n)
		hold(f, held, nx);
	else if (self < f->n || bad < f->n)
		error(f, self < f->n ? self : bad, nx);
	else if (lost < f->n)
		unreachable(f, lost, "unreachable = skip", nx);
	else if (busy < f->n)
		active(f, busy, nx);
	else
		each(f, p, nx);
}

/* On etcd, etcd orders the claims (pollguard(7), STRICT MODE ON ETCD). */
static void
by_etcd(const struct pg_fleet *f, struct pg_next *nx)
{
	size_t	 i;

	for (i = 0; i < f->n; i++) {
		if (f->nodes[i].self || PG_ANSWER_OK(f->nodes[i].kind))
			continue;
		if (f->nodes[i].kind == PG_ANSWER_UNREACHABLE)
			unreachable(f, i, "backend = etcd", nx);
		else
			error(f, i, nx);
		return;
	}
	if (f->holder < f->n && !PG_ANSWER_OK(f->nodes[f->holder].kind))
		error(f, f->holder, nx);
	else if (f->holder < f->n)
		active(f, f->holder, nx);
	else
		anyone(f, nx);
}

int
pg_fleet_next(const struct pg_fleet *f, struct pg_next *nx)
{
	struct pg_seen		*seen;
	struct pred		*p;
	size_t			 i, go = f->n, ngo = 0;

	memset(nx, 0, sizeof(*nx));	/* PG_REASON_GO */
	nx->node = f->n;
	if (f->cluster->backend == PG_BACKEND_ETCD) {
		by_etcd(f, nx);
		return 0;
	}
	seen = calloc(f->n + 1, sizeof(*seen));
	p = calloc(f->n + 1, sizeof(*p));
	if (seen == NULL || p == NULL) {
		free(seen);
		free(p);
		return -1;
	}
	for (i = 0; i < f->n; i++) {
		predict(f, i, seen, &p[i]);
		if (p[i].checks && p[i].d.verdict == PG_GO && ngo++ == 0)
			go = i;
	}
	if (ngo > 1)
		several(f, p, nx);
	else if (ngo == 1)
		one(f, p, go, nx);
	else
		nobody(f, p, nx);
	free(seen);
	free(p);
	return 0;
}

#define CELL_MAX	(PG_STATUS_TEXT_MAX * 6)

enum col {
	C_CLUSTER, C_NODE, C_REACH, C_ACTIVE, C_RUNNING, C_LAST, C_FAILS,
	C_RATE, C_HOLD, C_COUNT
};

static const char *const heads[C_COUNT] = {
	"CLUSTER", "NODE", "REACH", "ACTIVE", "RUNNING", "LAST", "FAILS",
	"RATE", "HOLD"
};

/* REACH: what the node answered; "error" for this node's own record. */
static const char *
reach_word(const struct pg_fleet_node *n)
{
	if (PG_ANSWER_OK(n->kind))
		return n->has_status ? "yes" : "elapsed only";
	if (n->kind == PG_ANSWER_UNREACHABLE)
		return n->self ? "error" : "unreachable";
	return n->kind == PG_ANSWER_REFUSED ? "refused" :
	    n->kind == PG_ANSWER_UNKNOWN ? "unknown" : "invalid";
}

/* After ACTIVE's time: [a claim reported][a check deciding]. */
static const char *const mark[2][2] = {
	{ "", " (deciding)" },
	{ " (claim)", " (claim, deciding)" }
};

/* The cells of one node's line; "-": none, or not known. */
static void
cells(const struct pg_fleet *f, const struct pg_fleet_node *n,
    char c[C_COUNT][CELL_MAX])
{
	const struct pg_status	*st = &n->st;
	char			 a[PG_DURATION_MAX], b[PG_DURATION_MAX], w[32];
	char			 why[PG_STATUS_TEXT_MAX * 4 + 1];
	int			 i, dec, full = n->has_status;

	for (i = 0; i < C_COUNT; i++)
		strlcpy(c[i], "-", CELL_MAX);
	strlcpy(c[C_CLUSTER], f->cluster->id, CELL_MAX);
	snprintf(c[C_NODE], CELL_MAX, "%s%s", n->name, n->self ? " (self)" :
	    "");
	strlcpy(c[C_REACH], reach_word(n), CELL_MAX);
	if (!PG_ANSWER_OK(n->kind))
		return;
	/* A check there holds the claim lock: its round is being decided. */
	dec = full && st->deciding == 1;
	if (st->elapsed_ms == PG_NEVER)
		snprintf(c[C_ACTIVE], CELL_MAX, "never%s", mark[0][dec]);
	else
		snprintf(c[C_ACTIVE], CELL_MAX, "%s ago%s",
		    pg_duration_text(st->elapsed_ms, a),
		    mark[st->claim_ms >= 0][dec]);
	if (!full)
		return;
	if (st->running && st->pid > 0)
		snprintf(c[C_RUNNING], CELL_MAX, "pid %" PRId64, st->pid);
	else
		strlcpy(c[C_RUNNING], st->running ? "yes" : "no", CELL_MAX);
	if (st->last)
		snprintf(c[C_LAST], CELL_MAX, "%s, %s, %s ago",
		    pg_status_last_text(st, w, sizeof(w)),
		    pg_duration_text(st->last_duration_ms, a),
		    pg_duration_text(st->last_end_ms, b));
	snprintf(c[C_FAILS], CELL_MAX, "%d", st->failures);
	/* Its clock's bound (doc/SAFETY.md, 3); none before 0.5. */
	if (st->rate_ppm >= 0)
		snprintf(c[C_RATE], CELL_MAX, "%" PRId64 "ppm", st->rate_ppm);
	if (st->hold_ms > 0) {
		strnvis(why, st->hold_why, sizeof(why), VIS_FLAGS);
		snprintf(c[C_HOLD], CELL_MAX, "%s%s%s%s%s",
		    pg_duration_text(st->hold_ms, a),
		    st->hold_by[0] != '\0' ? " by " : "", st->hold_by,
		    why[0] != '\0' ? ": " : "", why);
	}
}

/* One line: the cells padded to the widths, the last one not. */
static void
line(FILE *fp, char c[][CELL_MAX], size_t nc, const size_t *w)
{
	size_t	 i;

	for (i = 0; i + 1 < nc; i++)
		fprintf(fp, "%-*s  ", (int)w[i], c[i]);
	fprintf(fp, "%s\n", c[i]);
}

/* The string that fp made in *s, or NULL and ENOMEM (also when !ok). */
static char *
done(FILE *fp, char **s, int ok)
{
	ok = ok && !ferror(fp);
	if (fclose(fp) == 0 && ok)
		return *s;
	free(*s);
	errno = ENOMEM;
	return NULL;
}

char *
pg_fleet_table(const struct pg_fleet *f, size_t nf)
{
	char		 c[C_COUNT][CELL_MAX], *s = NULL;
	struct pg_next	 nx;
	size_t		 w[C_COUNT], i, j, k, len;
	FILE		*fp;
	int		 ok = 1;

	for (k = 0; k < C_COUNT; k++)
		w[k] = strlen(heads[k]);
	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i].n; j++) {
			cells(&f[i], &f[i].nodes[j], c);
			for (k = 0; k < C_COUNT; k++)
				w[k] = MAX(w[k], strlen(c[k]));
		}
	if ((fp = open_memstream(&s, &len)) == NULL)
		return NULL;
	for (k = 0; k < C_COUNT; k++)
		strlcpy(c[k], heads[k], CELL_MAX);
	line(fp, c, C_COUNT, w);
	for (i = 0; i < nf; i++) {
		for (j = 0; j < f[i].n; j++) {
			cells(&f[i], &f[i].nodes[j], c);
			line(fp, c, C_COUNT, w);
		}
		if (pg_fleet_next(&f[i], &nx) == -1) {
			ok = 0;
			break;
		}
		strlcpy(c[C_CLUSTER], f[i].cluster->id, CELL_MAX);
		strlcpy(c[C_NODE], "next", CELL_MAX);
		strlcpy(c[C_REACH], nx.text, CELL_MAX);
		line(fp, c, 3, w);
	}
	return done(fp, &s, ok);
}

/* The JSON being written; first: in an object or array just opened. */
struct js {
	FILE	*fp;
	int	 first;
};

/*
 * The value fmt makes, as the next member: after a ',' and "key": (key
 * NULL: in an array); a '}' or ']' that closes takes neither, nor
 * does the rest of a fmt that begins with one.
 */
static void __attribute__((__format__(__printf__, 3, 4)))
js(struct js *j, const char *key, const char *fmt, ...)
{
	va_list	 ap;

	if (*fmt != '}' && *fmt != ']') {
		if (!j->first)
			fputc(',', j->fp);
		if (key != NULL)
			fprintf(j->fp, "\"%s\":", key);
	}
	j->first = *fmt == '{' || *fmt == '[';
	va_start(ap, fmt);
	vfprintf(j->fp, fmt, ap);
	va_end(ap);
}

/* A string, escaped as fleet.h says, or null when s is NULL or empty. */
static void
js_str(struct js *j, const char *key, const char *s)
{
	const unsigned char	*u = (const unsigned char *)s;

	if (s == NULL || *s == '\0') {
		js(j, key, "null");
		return;
	}
	js(j, key, "\"");
	for (; *u != '\0'; u++)
		if (*u == '"' || *u == '\\')
			fprintf(j->fp, "\\%c", *u);
		else if (*u < 0x20 || *u > 0x7e)
			fprintf(j->fp, "\\u%04x", *u);
		else
			fputc(*u, j->fp);
	fputc('"', j->fp);
}

/* Milliseconds, or null for never (and unknown: cond false). */
static void
js_ms(struct js *j, const char *key, int cond, int64_t ms)
{
	if (cond && ms != PG_NEVER && ms >= 0)
		js(j, key, "%" PRId64, ms);
	else
		js(j, key, "null");
}

/* true, false, or null when v is negative. */
static void
js_bool(struct js *j, const char *key, int v)
{
	js(j, key, v < 0 ? "null" : v ? "true" : "false");
}

/* A node; one before 0.4 (no status) has its activity only. */
static void
js_node(struct js *j, const struct pg_fleet_node *n)
{
	const struct pg_status	*st = &n->st;
	int			 ok = PG_ANSWER_OK(n->kind);
	int			 full = n->has_status;

	js(j, NULL, "{");
	js_str(j, "name", n->name);
	js_bool(j, "self", n->self != 0);
	js_bool(j, "reachable", ok);
	js_str(j, "answer", !ok ? reach_word(n) : full ? "status" :
	    "elapsed");
	js_str(j, "error", ok ? NULL : n->why[0] != '\0' ? n->why :
	    reach_word(n));
	js_str(j, "version", full ? st->version : NULL);
	js_ms(j, "elapsed_ms", ok, st->elapsed_ms);
	js_ms(j, "claim_ms", ok, st->claim_ms);
	js_bool(j, "deciding", full ? st->deciding : -1);
	js_bool(j, "running", full ? st->running != 0 : -1);
	js_ms(j, "pid", full && st->running && st->pid > 0, st->pid);
	if (full && st->last) {
		js(j, "last", "{");
		js_ms(j, "exit", st->last_signal == 0, st->last_exit);
		js_ms(j, "signal", st->last_signal > 0, st->last_signal);
		js_bool(j, "timed_out", st->last_timeout != 0);
		js_ms(j, "duration_ms", 1, st->last_duration_ms);
		js_ms(j, "end_ms", 1, st->last_end_ms);
		js(j, NULL, "}");
	} else
		js_str(j, "last", NULL);
	js_ms(j, "last_success_ms", full, st->last_success_ms);
	js(j, "failures", full ? "%d" : "null", st->failures);
	js_ms(j, "rate_ppm", full, st->rate_ppm);
	js_str(j, "prefer", full ? st->prefer : NULL);
	js_ms(j, "checked_ms", full, st->checked_ms);
	js_ms(j, "checking_ms", full && st->checked_ms != PG_NEVER &&
	    st->checking_ms >= 0, st->checking_ms);
	if (full && st->yield[0] != '\0') {
		js(j, "yield", "{");
		js_str(j, "to", st->yield);
		js(j, "ms", "%" PRId64, st->yielded_ms);
		js(j, NULL, "}");
	} else
		js_str(j, "yield", NULL);
	if (full && st->hold_ms > 0) {
		js(j, "hold", "{");
		js(j, "left_ms", "%" PRId64, st->hold_ms);
		js_str(j, "by", st->hold_by);
		js_str(j, "why", st->hold_why);
		js(j, NULL, "}");
	} else
		js_str(j, "hold", NULL);
	js(j, NULL, "}");
}

/* next's reason in the JSON (pollguard-status(1)); else "none". */
static const char *const next_keys[PG_REASON_EACH + 1] = {
	[PG_REASON_GO] = "go",
	[PG_REASON_ACTIVE] = "active",
	[PG_REASON_HELD] = "held",
	[PG_REASON_INVALID] = "error",
	[PG_REASON_UNREACHABLE] = "unreachable",
	[PG_REASON_PREFERRED] = "preferred"
};

char *
pg_fleet_json(const char *version, const char *node,
    const struct pg_fleet *f, size_t nf)
{
	struct js		 j = { NULL, 1 };
	struct pg_next		 nx;
	char			*s = NULL;
	size_t			 i, k, len;
	int			 ok = 1;

	if ((j.fp = open_memstream(&s, &len)) == NULL)
		return NULL;
	js(&j, NULL, "{");
	js_str(&j, "version", version);
	js_str(&j, "node", node);
	js(&j, "clusters", "[");
	for (i = 0; i < nf; i++) {
		if (pg_fleet_next(&f[i], &nx) == -1) {
			ok = 0;
			break;
		}
		js(&j, NULL, "{");
		js_str(&j, "id", f[i].cluster->id);
		js(&j, "wait_ms", "%" PRId64, f[i].cluster->wait_ms);
		js_str(&j, "unreachable", f[i].cluster->unreachable ==
		    PG_UNREACHABLE_SKIP ? "skip" : "run");
		js(&j, "next", "{");
		js_str(&j, "reason", nx.reason == PG_REASON_GO &&
		    nx.node >= f[i].n ? "any" : next_keys[nx.reason] != NULL ?
		    next_keys[nx.reason] : "none");
		js_str(&j, "node", nx.node < f[i].n ?
		    f[i].nodes[nx.node].name : NULL);
		js_str(&j, "text", nx.text);
		js(&j, NULL, "}");
		js(&j, "nodes", "[");
		for (k = 0; k < f[i].n; k++)
			js_node(&j, &f[i].nodes[k]);
		js(&j, NULL, "]}");
	}
	js(&j, NULL, "]}\n");
	return done(j.fp, &s, ok);
}
