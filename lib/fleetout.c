/* SPDX-License-Identifier: ISC */
/*
 * fleetout.c: what pollguard-status prints of the fleets fleet.c
 * predicts: the table for people and the JSON (pollguard-status(1) has
 * its schema). Plain data in, a malloc'd string out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fleet.h"
#include "fleet-int.h"

#define CELL_MAX	(PG_STATUS_TEXT_MAX * 6)

enum col {
	C_CLUSTER, C_NODE, C_REACH, C_ACTIVE, C_RUNNING, C_LAST, C_FAILS,
	C_HOLD, C_COUNT
};

static const char *const heads[C_COUNT] = {
	"CLUSTER", "NODE", "REACH", "ACTIVE", "RUNNING", "LAST", "FAILS",
	"HOLD"
};

/* REACH: what the node answered; "error" for this node's own record. */
static const char *
reach_word(const struct pg_fleet_node *n)
{
	switch (n->kind) {
	case PG_ANSWER_ELAPSED:
	case PG_ANSWER_NEVER:
		return n->has_status ? "yes" : "elapsed only";
	case PG_ANSWER_UNREACHABLE:
		return n->self ? "error" : "unreachable";
	case PG_ANSWER_REFUSED:
		return "refused";
	case PG_ANSWER_UNKNOWN:
		return "unknown";
	default:
		return "invalid";
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
	if (st->hold_ms > 0) {
		pg_fleet_safe(st->hold_why, why, sizeof(why));
		snprintf(c[C_HOLD], CELL_MAX, "%s%s%s%s%s",
		    pg_duration_text(st->hold_ms, a),
		    st->hold_by[0] != '\0' ? " by " : "", st->hold_by,
		    why[0] != '\0' ? ": " : "", why);
	}
}

/* One line: the cells padded to the widths, the last one not. */
static void
line(struct pg_sbuf *b, char c[][CELL_MAX], size_t nc, const size_t *w)
{
	size_t	 i;

	for (i = 0; i < nc; i++) {
		if (i + 1 < nc)
			pg_sb_printf(b, "%-*s  ", (int)w[i], c[i]);
		else
			pg_sb_printf(b, "%s\n", c[i]);
	}
}

char *
pg_fleet_table(const struct pg_fleet *f, size_t nf)
{
	char		 c[C_COUNT][CELL_MAX];
	struct pg_sbuf	 b = { NULL, 0, 0, 0 };
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
		if (pg_fleet_next(&f[i], &nx) == -1) {
			b.fail = 1;
			break;
		}
		strlcpy(c[C_CLUSTER], f[i].cluster->id, CELL_MAX);
		strlcpy(c[C_NODE], "next", CELL_MAX);
		strlcpy(c[C_REACH], nx.text, CELL_MAX);
		line(&b, c, 3, w);
	}
	return pg_sb_end(&b);
}

/* A JSON string: quotes, backslashes, and \uXXXX for the rest. */
static void
js_str(struct pg_sbuf *b, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 e[6] = { '\\', 'u', '0', '0' };
	unsigned char		 ch;
	size_t			 run;

	PG_SB_LIT(b, "\"");
	while (*s != '\0') {
		for (run = 0; s[run] >= 0x20 && s[run] < 0x7f &&
		    s[run] != '"' && s[run] != '\\'; run++)
			;
		pg_sb_add(b, s, run);
		s += run;
		if (*s == '\0')
			break;
		ch = (unsigned char)*s++;
		if (ch == '"' || ch == '\\') {
			e[1] = ch;
			pg_sb_add(b, e, 2);
			e[1] = 'u';
			continue;
		}
		e[4] = hex[ch >> 4];
		e[5] = hex[ch & 0xf];
		pg_sb_add(b, e, 6);
	}
	PG_SB_LIT(b, "\"");
}

/* "key": then a string, or null when s is NULL or empty. */
static void
js_key_str(struct pg_sbuf *b, const char *key, const char *s)
{
	pg_sb_printf(b, "\"%s\":", key);
	if (s == NULL || s[0] == '\0')
		PG_SB_LIT(b, "null");
	else
		js_str(b, s);
}

/* "key": milliseconds, or null for never (and unknown: cond false). */
static void
js_key_ms(struct pg_sbuf *b, const char *key, int cond, int64_t ms)
{
	if (cond && ms != PG_NEVER && ms >= 0)
		pg_sb_printf(b, "\"%s\":%" PRId64, key, ms);
	else
		pg_sb_printf(b, "\"%s\":null", key);
}

static const char *
reach_key(const struct pg_fleet_node *n)
{
	return !PG_ANSWER_OK(n->kind) ? reach_word(n) : n->has_status ?
	    "status" : "elapsed";
}

static void
js_node(struct pg_sbuf *b, const struct pg_fleet_node *n)
{
	const struct pg_status	*st = &n->st;
	int			 ok = PG_ANSWER_OK(n->kind);
	int			 full = n->has_status;

	PG_SB_LIT(b, "{");
	js_key_str(b, "name", n->name);
	pg_sb_printf(b, ",\"self\":%s,\"reachable\":%s,\"answer\":\"%s\",",
	    n->self ? "true" : "false", ok ? "true" : "false",
	    reach_key(n));
	js_key_str(b, "error", ok ? NULL : n->why[0] != '\0' ? n->why :
	    reach_word(n));
	PG_SB_LIT(b, ",");
	js_key_str(b, "version", full ? st->version : NULL);
	PG_SB_LIT(b, ",");
	js_key_ms(b, "elapsed_ms", ok, st->elapsed_ms);
	PG_SB_LIT(b, ",");
	js_key_ms(b, "claim_ms", ok, st->claim_ms);
	if (full && st->deciding >= 0)
		pg_sb_printf(b, ",\"deciding\":%s", st->deciding ? "true" :
		    "false");
	else
		PG_SB_LIT(b, ",\"deciding\":null");
	if (!full) {
		pg_sb_printf(b, ",\"running\":null,\"pid\":null,\"last\":null,"
		    "\"last_success_ms\":null,\"failures\":null,"
		    "\"prefer\":null,\"checked_ms\":null,\"checking_ms\":null,"
		    "\"yield\":null,\"hold\":null}");
		return;
	}
	pg_sb_printf(b, ",\"running\":%s,", st->running ? "true" : "false");
	js_key_ms(b, "pid", st->running && st->pid > 0, st->pid);
	if (st->last) {
		PG_SB_LIT(b, ",\"last\":{");
		js_key_ms(b, "exit", st->last_signal == 0, st->last_exit);
		PG_SB_LIT(b, ",");
		js_key_ms(b, "signal", st->last_signal > 0, st->last_signal);
		pg_sb_printf(b, ",\"timed_out\":%s,", st->last_timeout ?
		    "true" : "false");
		js_key_ms(b, "duration_ms", 1, st->last_duration_ms);
		PG_SB_LIT(b, ",");
		js_key_ms(b, "end_ms", 1, st->last_end_ms);
		PG_SB_LIT(b, "}");
	} else
		PG_SB_LIT(b, ",\"last\":null");
	PG_SB_LIT(b, ",");
	js_key_ms(b, "last_success_ms", 1, st->last_success_ms);
	pg_sb_printf(b, ",\"failures\":%d,", st->failures);
	js_key_str(b, "prefer", st->prefer[0] != '\0' ? st->prefer : NULL);
	PG_SB_LIT(b, ",");
	js_key_ms(b, "checked_ms", st->checked_ms != PG_NEVER, st->checked_ms);
	PG_SB_LIT(b, ",");
	js_key_ms(b, "checking_ms", st->checked_ms != PG_NEVER &&
	    st->checking_ms >= 0, st->checking_ms);
	if (st->yield[0] != '\0') {
		PG_SB_LIT(b, ",\"yield\":{");
		js_key_str(b, "to", st->yield);
		pg_sb_printf(b, ",\"ms\":%" PRId64 "},", st->yielded_ms);
	} else
		PG_SB_LIT(b, ",\"yield\":null,");
	if (st->hold_ms > 0) {
		pg_sb_printf(b, "\"hold\":{\"left_ms\":%" PRId64 ",",
		    st->hold_ms);
		js_key_str(b, "by", st->hold_by);
		PG_SB_LIT(b, ",");
		js_key_str(b, "why", st->hold_why);
		PG_SB_LIT(b, "}}");
	} else
		PG_SB_LIT(b, "\"hold\":null}");
}

/* next's reason in the JSON (pollguard-status(1)). */
static const char *
next_key(const struct pg_next *nx, size_t n)
{
	switch (nx->reason) {
	case PG_REASON_GO:
		return nx->node < n ? "go" : "any";
	case PG_REASON_ACTIVE:
		return "active";
	case PG_REASON_HELD:
		return "held";
	case PG_REASON_INVALID:
		return "error";
	case PG_REASON_UNREACHABLE:
		return "unreachable";
	case PG_REASON_PREFERRED:
		return "preferred";
	default:
		return "none";
	}
}

char *
pg_fleet_json(const char *version, const char *node,
    const struct pg_fleet *f, size_t nf)
{
	const struct pg_cluster	*c;
	struct pg_sbuf		 b = { NULL, 0, 0, 0 };
	struct pg_next		 nx;
	size_t			 i, j;

	PG_SB_LIT(&b, "{");
	js_key_str(&b, "version", version);
	PG_SB_LIT(&b, ",");
	js_key_str(&b, "node", node);
	PG_SB_LIT(&b, ",\"clusters\":[");
	for (i = 0; i < nf; i++) {
		c = f[i].cluster;
		if (pg_fleet_next(&f[i], &nx) == -1) {
			b.fail = 1;
			break;
		}
		if (i > 0)
			PG_SB_LIT(&b, ",");
		PG_SB_LIT(&b, "{");
		js_key_str(&b, "id", c->id);
		pg_sb_printf(&b, ",\"wait_ms\":%" PRId64 ",\"unreachable\":"
		    "\"%s\",\"next\":{\"reason\":\"%s\",", c->wait_ms,
		    c->unreachable == PG_UNREACHABLE_SKIP ? "skip" : "run",
		    next_key(&nx, f[i].n));
		js_key_str(&b, "node", nx.node < f[i].n ?
		    f[i].nodes[nx.node].name : NULL);
		PG_SB_LIT(&b, ",");
		js_key_str(&b, "text", nx.text);
		PG_SB_LIT(&b, "},\"nodes\":[");
		for (j = 0; j < f[i].n; j++) {
			if (j > 0)
				PG_SB_LIT(&b, ",");
			js_node(&b, &f[i].nodes[j]);
		}
		PG_SB_LIT(&b, "]}");
	}
	PG_SB_LIT(&b, "]}\n");
	return pg_sb_end(&b);
}
