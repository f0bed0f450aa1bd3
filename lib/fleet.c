/* SPDX-License-Identifier: ISC */
/*
 * fleet.c: what pollguard-status shows of a cluster across its nodes.
 * The tool asks the nodes and fills in a struct pg_fleet per cluster;
 * everything it prints is made here, from plain data, so that the unit
 * tests can check the prediction, the table and the JSON exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vis.h>

#include "pollguard.h"

#define DUR_MAX		32
#define CELL_MAX	(PG_STATUS_TEXT_MAX * 6)

enum col {
	C_CLUSTER, C_NODE, C_REACH, C_ACTIVE, C_RUNNING, C_LAST, C_FAILS,
	C_HOLD, C_COUNT
};

static const char *const heads[C_COUNT] = {
	"CLUSTER", "NODE", "REACH", "ACTIVE", "RUNNING", "LAST", "FAILS",
	"HOLD"
};

/* A growing string; once a step fails, every later one does nothing. */
struct sbuf {
	char	*p;
	size_t	 len, cap;
	int	 fail;
};

static void
sb_add(struct sbuf *b, const char *s, size_t n)
{
	char	*p;
	size_t	 cap;

	if (b->fail)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap == 0 ? 4096 : b->cap;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((p = realloc(b->p, cap)) == NULL) {
			b->fail = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char	 s[CELL_MAX * 2];
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(s))
		b->fail = 1;
	else
		sb_add(b, s, n);
}

#define SB_LIT(b, s)	sb_add((b), (s), sizeof(s) - 1)

/* The string made, or NULL and ENOMEM. */
static char *
sb_end(struct sbuf *b)
{
	if (b->fail || b->p == NULL) {
		free(b->p);
		errno = ENOMEM;
		return NULL;
	}
	return b->p;
}

/* A duration for people; "?" for what pg_duration_format refuses. */
static const char *
dur(int64_t ms, char *buf)
{
	if (pg_duration_format(ms, buf, DUR_MAX) == -1)
		strlcpy(buf, "?", DUR_MAX);
	return buf;
}

/* Text as an operator typed it (a local hold's why), safe to print. */
static void
safe(const char *in, char *out, size_t len)
{
	strnvis(out, in, len, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL);
}

/* A node that answered with an activity time: it counts in the rule. */
static int
answered(const struct pg_fleet_node *n)
{
	return PG_REACH_OK(n->reach);
}

/* A node as a check sees it among its peers. */
static void
as_seen(const struct pg_fleet_node *n, struct pg_seen *s)
{
	memset(s, 0, sizeof(*s));
	s->name = n->name;
	s->has_status = n->reach == PG_REACH_STATUS;
	s->status = n->st;
	if (answered(n)) {
		s->answer.kind = n->st.elapsed_ms == PG_NEVER ?
		    PG_ANSWER_NEVER : PG_ANSWER_ELAPSED;
		s->answer.elapsed_ms = n->st.elapsed_ms;
	} else if (n->reach == PG_REACH_UNREACHABLE)
		s->answer.kind = PG_ANSWER_UNREACHABLE;
	else
		s->answer.kind = PG_ANSWER_INVALID;
}

/*
 * The one moment, on one clock, at which pollguard-status takes every
 * answer as read, for the rules that compare moments (the yield rule:
 * a node's previous check against a peer's yield); far from both ends
 * of int64_t, so that the moments before it that the rules compute,
 * each bounded (pg_prefer_prev_check, pg_yield_ignores), stay positive.
 */
#define NOW	(INT64_MAX / 2)

/*
 * With a preference, who goes is each node's own decision: pg_decide as
 * its check makes it, from its status and what the others show. The one
 * node that would go; f->n when none would, several would (the race
 * closure then picks), a node did not answer its status, or memory ran
 * out (no prediction is made), or a node announces another order (no
 * preference is applied then). A node whose checks have not run within
 * wait and the slack (its cron does not run) is not one that goes.
 */
static size_t
preferred(const struct pg_fleet *f)
{
	const struct pg_fleet_node	*n;
	struct pg_decision		 d;
	struct pg_status		 own;
	struct pg_seen			*seen;
	size_t				 i, j, k, go = f->n;

	if (f->cluster == NULL || f->cluster->prefer[0] == '\0' || f->n < 2 ||
	    (seen = calloc(f->n - 1, sizeof(*seen))) == NULL)
		return f->n;
	for (i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (n->reach != PG_REACH_STATUS ||
		    strcasecmp(n->st.prefer, f->cluster->prefer) != 0) {
			go = f->n;
			break;
		}
		if (n->st.checked_ms >= f->cluster->wait_ms +
		    f->cluster->prefer_slack_ms)
			continue;
		for (j = k = 0; j < f->n; j++)
			if (j != i) {
				as_seen(&f->nodes[j], &seen[k]);
				seen[k++].recv_ns = NOW;
			}
		own = n->st;
		own.at_ns = NOW;
		pg_decide(f->cluster, n->name, &own, own.running, seen, k, &d);
		if (d.verdict != PG_GO)
			continue;
		if (go < f->n) {
			go = f->n;
			break;
		}
		go = i;
	}
	free(seen);
	return go;
}

void
pg_fleet_next(const struct pg_fleet *f, struct pg_next *nx)
{
	const struct pg_fleet_node	*n;
	char				 a[DUR_MAX], b[DUR_MAX];
	char				 why[PG_STATUS_TEXT_MAX * 4 + 8];
	char				 vis[PG_STATUS_TEXT_MAX * 4 + 1];
	size_t				 i, held = f->n, bad = f->n;
	size_t				 active = f->n, lost = f->n;
	size_t				 failed = f->n, pref;
	struct pg_seen			 seen;

	for (i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (!answered(n)) {
			if (n->reach == PG_REACH_UNREACHABLE) {
				if (lost == f->n)
					lost = i;
			} else if (bad == f->n)
				bad = i;
			continue;
		}
		if (n->st.hold_ms > 0 && (held == f->n ||
		    n->st.hold_ms > f->nodes[held].st.hold_ms))
			held = i;
		/* As the checks see it: a failed node handing over. */
		as_seen(n, &seen);
		if (pg_handover_ignores(f->on_failure, &seen)) {
			failed = i;
			continue;
		}
		if (n->st.elapsed_ms < f->wait_ms && (active == f->n ||
		    n->st.elapsed_ms < f->nodes[active].st.elapsed_ms))
			active = i;
	}

	memset(nx, 0, sizeof(*nx));
	if (held < f->n) {
		n = &f->nodes[held];
		nx->why = PG_NEXT_HELD;
		nx->node = held;
		why[0] = '\0';
		if (n->st.hold_why[0] != '\0') {
			safe(n->st.hold_why, vis, sizeof(vis));
			snprintf(why, sizeof(why), " (%s)", vis);
		}
		snprintf(nx->text, sizeof(nx->text), "held for %s by %s%s: "
		    "nobody goes", dur(n->st.hold_ms, a),
		    n->st.hold_by[0] != '\0' ? n->st.hold_by : n->name, why);
	} else if (bad < f->n) {
		nx->why = PG_NEXT_ERROR;
		nx->node = bad;
		if (f->nodes[bad].reach == PG_REACH_ERROR)
			snprintf(nx->text, sizeof(nx->text), "%s cannot read "
			    "its own record: its check fails",
			    f->nodes[bad].name);
		else
			snprintf(nx->text, sizeof(nx->text), "%s answers an "
			    "error: checks that ask it refuse to decide",
			    f->nodes[bad].name);
	} else if ((pref = preferred(f)) < f->n && pref != active) {
		nx->why = PG_NEXT_PREFERRED;
		nx->node = pref;
		snprintf(nx->text, sizeof(nx->text), "%s: its check goes, the "
		    "others skip (prefer %s)", f->nodes[pref].name,
		    f->cluster->prefer);
	} else if (active < f->n) {
		n = &f->nodes[active];
		nx->why = PG_NEXT_ACTIVE;
		nx->node = active;
		if (n->st.running && n->st.pid > 0)
			snprintf(why, sizeof(why), ", running (pid %" PRId64
			    ")", n->st.pid);
		else
			snprintf(why, sizeof(why), "%s", n->st.running ?
			    ", running" : "");
		snprintf(nx->text, sizeof(nx->text), "%s: active %s ago%s "
		    "(wait %s), keeps polling", n->name, dur(n->st.elapsed_ms,
		    a), why, dur(f->wait_ms, b));
	} else if (lost < f->n && f->unreachable == PG_UNREACHABLE_SKIP) {
		nx->why = PG_NEXT_UNREACHABLE;
		nx->node = lost;
		snprintf(nx->text, sizeof(nx->text), "nobody while %s is "
		    "unreachable (unreachable = skip)", f->nodes[lost].name);
	} else {
		nx->why = PG_NEXT_ANY;
		snprintf(why, sizeof(why), "%s%s", failed < f->n ?
		    f->nodes[failed].name : "", failed < f->n ?
		    "'s last run failed, handing over; " : "");
		snprintf(nx->text, sizeof(nx->text), "%snobody active within "
		    "wait %s: the first check to run goes%s%s%s", why,
		    dur(f->wait_ms, a), lost < f->n ? " (" : "",
		    lost < f->n ? f->nodes[lost].name : "",
		    lost < f->n ? " unreachable: counted as never)" : "");
	}
}

static const char *
reach_word(enum pg_reach r)
{
	switch (r) {
	case PG_REACH_STATUS:
		return "yes";
	case PG_REACH_ELAPSED:
		return "elapsed only";
	case PG_REACH_UNREACHABLE:
		return "unreachable";
	case PG_REACH_REFUSED:
		return "refused";
	case PG_REACH_UNKNOWN:
		return "unknown";
	case PG_REACH_INVALID:
		return "invalid";
	default:
		return "error";
	}
}

/* After ACTIVE's time: [a claim reported][a check deciding]. */
static const char *const mark[2][2] = {
	{ "", " (deciding)" },
	{ " (claim)", " (claim, deciding)" }
};

/* The cells of one node's line. */
static void
cells(const struct pg_fleet *f, const struct pg_fleet_node *n,
    char c[C_COUNT][CELL_MAX])
{
	const struct pg_status	*st = &n->st;
	char			 a[DUR_MAX], b[DUR_MAX], w[32];
	char			 why[PG_STATUS_TEXT_MAX * 4 + 1];
	int			 i, dec, full = n->reach == PG_REACH_STATUS;

	for (i = 0; i < C_COUNT; i++)
		strlcpy(c[i], "-", CELL_MAX);
	strlcpy(c[C_CLUSTER], f->id, CELL_MAX);
	snprintf(c[C_NODE], CELL_MAX, "%s%s", n->name, n->self ? " (self)" :
	    "");
	strlcpy(c[C_REACH], reach_word(n->reach), CELL_MAX);
	if (!answered(n))
		return;
	/* A check there holds the claim lock: its round is being decided. */
	dec = full && st->deciding == 1;
	if (st->elapsed_ms == PG_NEVER)
		snprintf(c[C_ACTIVE], CELL_MAX, "never%s", mark[0][dec]);
	else
		snprintf(c[C_ACTIVE], CELL_MAX, "%s ago%s",
		    dur(st->elapsed_ms, a), mark[st->claim_ms >= 0][dec]);
	if (!full)
		return;
	if (st->running && st->pid > 0)
		snprintf(c[C_RUNNING], CELL_MAX, "pid %" PRId64, st->pid);
	else
		strlcpy(c[C_RUNNING], st->running ? "yes" : "no", CELL_MAX);
	if (st->last)
		snprintf(c[C_LAST], CELL_MAX, "%s, %s, %s ago",
		    pg_status_last_text(st, w, sizeof(w)), dur(st->last_duration_ms, a),
		    dur(st->last_end_ms, b));
	snprintf(c[C_FAILS], CELL_MAX, "%d", st->failures);
	if (st->hold_ms > 0) {
		safe(st->hold_why, why, sizeof(why));
		snprintf(c[C_HOLD], CELL_MAX, "%s%s%s%s%s", dur(st->hold_ms, a),
		    st->hold_by[0] != '\0' ? " by " : "", st->hold_by,
		    why[0] != '\0' ? ": " : "", why);
	}
}

/* One line: the cells padded to the widths, the last one not. */
static void
line(struct sbuf *b, char c[][CELL_MAX], size_t nc, const size_t *w)
{
	size_t	 i;

	for (i = 0; i < nc; i++) {
		if (i + 1 < nc)
			sb_printf(b, "%-*s  ", (int)w[i], c[i]);
		else
			sb_printf(b, "%s\n", c[i]);
	}
}

char *
pg_fleet_table(const struct pg_fleet *f, size_t nf)
{
	char		 c[C_COUNT][CELL_MAX];
	struct sbuf	 b = { NULL, 0, 0, 0 };
	struct pg_next	 nx;
	size_t		 w[C_COUNT], i, j, k, len;

	for (k = 0; k < C_COUNT; k++)
		w[k] = strlen(heads[k]);
	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i].n; j++) {
			cells(&f[i], &f[i].nodes[j], c);
			for (k = 0; k < C_COUNT; k++)
				if ((len = strlen(c[k])) > w[k])
					w[k] = len;
		}
	for (k = 0; k < C_COUNT; k++)
		strlcpy(c[k], heads[k], CELL_MAX);
	line(&b, c, C_COUNT, w);
	for (i = 0; i < nf; i++) {
		for (j = 0; j < f[i].n; j++) {
			cells(&f[i], &f[i].nodes[j], c);
			line(&b, c, C_COUNT, w);
		}
		pg_fleet_next(&f[i], &nx);
		strlcpy(c[C_CLUSTER], f[i].id, CELL_MAX);
		strlcpy(c[C_NODE], "next", CELL_MAX);
		strlcpy(c[C_REACH], nx.text, CELL_MAX);
		line(&b, c, 3, w);
	}
	return sb_end(&b);
}

/* A JSON string: quotes, backslashes, and \uXXXX for the rest. */
static void
js_str(struct sbuf *b, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 e[6] = { '\\', 'u', '0', '0' };
	unsigned char		 ch;
	size_t			 run;

	SB_LIT(b, "\"");
	while (*s != '\0') {
		for (run = 0; s[run] >= 0x20 && s[run] < 0x7f &&
		    s[run] != '"' && s[run] != '\\'; run++)
			;
		sb_add(b, s, run);
		s += run;
		if (*s == '\0')
			break;
		ch = (unsigned char)*s++;
		if (ch == '"' || ch == '\\') {
			e[1] = ch;
			sb_add(b, e, 2);
			e[1] = 'u';
			continue;
		}
		e[4] = hex[ch >> 4];
		e[5] = hex[ch & 0xf];
		sb_add(b, e, 6);
	}
	SB_LIT(b, "\"");
}

/* "key": then a string, or null when s is NULL or empty. */
static void
js_key_str(struct sbuf *b, const char *key, const char *s)
{
	sb_printf(b, "\"%s\":", key);
	if (s == NULL || s[0] == '\0')
		SB_LIT(b, "null");
	else
		js_str(b, s);
}

/* "key": milliseconds, or null for never (and unknown: cond false). */
static void
js_key_ms(struct sbuf *b, const char *key, int cond, int64_t ms)
{
	if (cond && ms != PG_NEVER && ms >= 0)
		sb_printf(b, "\"%s\":%" PRId64, key, ms);
	else
		sb_printf(b, "\"%s\":null", key);
}

static const char *
reach_key(enum pg_reach r)
{
	return r == PG_REACH_STATUS ? "status" : r == PG_REACH_ELAPSED ?
	    "elapsed" : reach_word(r);
}

static void
js_node(struct sbuf *b, const struct pg_fleet_node *n)
{
	const struct pg_status	*st = &n->st;
	int			 ok = answered(n);
	int			 full = n->reach == PG_REACH_STATUS;

	SB_LIT(b, "{");
	js_key_str(b, "name", n->name);
	sb_printf(b, ",\"self\":%s,\"reachable\":%s,\"answer\":\"%s\",",
	    n->self ? "true" : "false", ok ? "true" : "false",
	    reach_key(n->reach));
	js_key_str(b, "error", ok ? NULL : n->why[0] != '\0' ? n->why :
	    reach_word(n->reach));
	SB_LIT(b, ",");
	js_key_str(b, "version", full ? st->version : NULL);
	SB_LIT(b, ",");
	js_key_ms(b, "elapsed_ms", ok, st->elapsed_ms);
	SB_LIT(b, ",");
	js_key_ms(b, "claim_ms", ok, st->claim_ms);
	if (full && st->deciding >= 0)
		sb_printf(b, ",\"deciding\":%s", st->deciding ? "true" :
		    "false");
	else
		SB_LIT(b, ",\"deciding\":null");
	if (!full) {
		sb_printf(b, ",\"running\":null,\"pid\":null,\"last\":null,"
		    "\"last_success_ms\":null,\"failures\":null,"
		    "\"prefer\":null,\"checked_ms\":null,\"checking_ms\":null,"
		    "\"yield\":null,\"hold\":null}");
		return;
	}
	sb_printf(b, ",\"running\":%s,", st->running ? "true" : "false");
	js_key_ms(b, "pid", st->running && st->pid > 0, st->pid);
	if (st->last) {
		SB_LIT(b, ",\"last\":{");
		js_key_ms(b, "exit", st->last_signal == 0, st->last_exit);
		SB_LIT(b, ",");
		js_key_ms(b, "signal", st->last_signal > 0, st->last_signal);
		sb_printf(b, ",\"timed_out\":%s,", st->last_timeout ? "true" :
		    "false");
		js_key_ms(b, "duration_ms", 1, st->last_duration_ms);
		SB_LIT(b, ",");
		js_key_ms(b, "end_ms", 1, st->last_end_ms);
		SB_LIT(b, "}");
	} else
		SB_LIT(b, ",\"last\":null");
	SB_LIT(b, ",");
	js_key_ms(b, "last_success_ms", 1, st->last_success_ms);
	sb_printf(b, ",\"failures\":%d,", st->failures);
	js_key_str(b, "prefer", st->prefer[0] != '\0' ? st->prefer : NULL);
	SB_LIT(b, ",");
	js_key_ms(b, "checked_ms", st->checked_ms != PG_NEVER, st->checked_ms);
	SB_LIT(b, ",");
	js_key_ms(b, "checking_ms", st->checked_ms != PG_NEVER &&
	    st->checking_ms >= 0, st->checking_ms);
	if (st->yield[0] != '\0') {
		SB_LIT(b, ",\"yield\":{");
		js_key_str(b, "to", st->yield);
		sb_printf(b, ",\"ms\":%" PRId64 "},", st->yielded_ms);
	} else
		SB_LIT(b, ",\"yield\":null,");
	if (st->hold_ms > 0) {
		sb_printf(b, "\"hold\":{\"left_ms\":%" PRId64 ",", st->hold_ms);
		js_key_str(b, "by", st->hold_by);
		SB_LIT(b, ",");
		js_key_str(b, "why", st->hold_why);
		SB_LIT(b, "}}");
	} else
		SB_LIT(b, "\"hold\":null}");
}

static const char *const next_keys[] = {
	"any", "active", "held", "error", "unreachable", "preferred"
};

char *
pg_fleet_json(const char *version, const char *node,
    const struct pg_fleet *f, size_t nf)
{
	struct sbuf	 b = { NULL, 0, 0, 0 };
	struct pg_next	 nx;
	size_t		 i, j;

	SB_LIT(&b, "{");
	js_key_str(&b, "version", version);
	SB_LIT(&b, ",");
	js_key_str(&b, "node", node);
	SB_LIT(&b, ",\"clusters\":[");
	for (i = 0; i < nf; i++) {
		pg_fleet_next(&f[i], &nx);
		if (i > 0)
			SB_LIT(&b, ",");
		SB_LIT(&b, "{");
		js_key_str(&b, "id", f[i].id);
		sb_printf(&b, ",\"wait_ms\":%" PRId64 ",\"unreachable\":\"%s\","
		    "\"next\":{\"reason\":\"%s\",", f[i].wait_ms,
		    f[i].unreachable == PG_UNREACHABLE_SKIP ? "skip" : "run",
		    next_keys[nx.why]);
		js_key_str(&b, "node", nx.why == PG_NEXT_ANY ? NULL :
		    f[i].nodes[nx.node].name);
		SB_LIT(&b, ",");
		js_key_str(&b, "text", nx.text);
		SB_LIT(&b, "},\"nodes\":[");
		for (j = 0; j < f[i].n; j++) {
			if (j > 0)
				SB_LIT(&b, ",");
			js_node(&b, &f[i].nodes[j]);
		}
		SB_LIT(&b, "]}");
	}
	SB_LIT(&b, "]}\n");
	return sb_end(&b);
}
