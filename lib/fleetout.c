/* SPDX-License-Identifier: ISC */
/*
 * fleetout.c: what pollguard-status prints of the fleets fleet.c
 * predicts: the table for people and the JSON (pollguard-status(1) has
 * its schema), made by stdio in memory (open_memstream(3)).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"

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
	if (ferror(fp))
		ok = 0;
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
				if ((len = strlen(c[k])) > w[k])
					w[k] = len;
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

/* The JSON being written. */
struct js {
	FILE	*fp;
	int	 first;		/* in an object or array just opened */
};

/* A ',' before all but the first member; then "key": unless key is NULL. */
static void
js_key(struct js *j, const char *key)
{
	if (!j->first)
		fputc(',', j->fp);
	j->first = 0;
	if (key != NULL)
		fprintf(j->fp, "\"%s\":", key);
}

/* Open ('{', '[') or close ('}', ']') an object or an array. */
static void
js_open(struct js *j, const char *key, int ch)
{
	js_key(j, key);
	fputc(ch, j->fp);
	j->first = 1;
}

static void
js_close(struct js *j, int ch)
{
	fputc(ch, j->fp);
	j->first = 0;
}

/* A string, or null when s is NULL or empty: '"', '\\' and \u00XX. */
static void
js_str(struct js *j, const char *key, const char *s)
{
	const unsigned char	*u = (const unsigned char *)s;

	js_key(j, key);
	if (s == NULL || *s == '\0') {
		fputs("null", j->fp);
		return;
	}
	fputc('"', j->fp);
	for (; *u != '\0'; u++)
		if (*u == '"' || *u == '\\')
			fprintf(j->fp, "\\%c", *u);
		else if (*u < 0x20 || *u > 0x7e)
			fprintf(j->fp, "\\u%04x", *u);
		else
			fputc(*u, j->fp);
	fputc('"', j->fp);
}

static void
js_num(struct js *j, const char *key, int64_t v)
{
	js_key(j, key);
	fprintf(j->fp, "%" PRId64, v);
}

/* Milliseconds, or null for never (and unknown: cond false). */
static void
js_ms(struct js *j, const char *key, int cond, int64_t ms)
{
	if (cond && ms != PG_NEVER && ms >= 0)
		js_num(j, key, ms);
	else
		js_str(j, key, NULL);
}

/* true, false, or null when v is negative. */
static void
js_bool(struct js *j, const char *key, int v)
{
	js_key(j, key);
	fputs(v < 0 ? "null" : v ? "true" : "false", j->fp);
}

/* A node; one before 0.4 (no status) has its activity only. */
static void
js_node(struct js *j, const struct pg_fleet_node *n)
{
	const struct pg_status	*st = &n->st;
	int			 ok = PG_ANSWER_OK(n->kind);
	int			 full = n->has_status;

	js_open(j, NULL, '{');
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
		js_open(j, "last", '{');
		js_ms(j, "exit", st->last_signal == 0, st->last_exit);
		js_ms(j, "signal", st->last_signal > 0, st->last_signal);
		js_bool(j, "timed_out", st->last_timeout != 0);
		js_ms(j, "duration_ms", 1, st->last_duration_ms);
		js_ms(j, "end_ms", 1, st->last_end_ms);
		js_close(j, '}');
	} else
		js_str(j, "last", NULL);
	js_ms(j, "last_success_ms", full, st->last_success_ms);
	if (full)
		js_num(j, "failures", st->failures);
	else
		js_str(j, "failures", NULL);
	js_str(j, "prefer", full ? st->prefer : NULL);
	js_ms(j, "checked_ms", full && st->checked_ms != PG_NEVER,
	    st->checked_ms);
	js_ms(j, "checking_ms", full && st->checked_ms != PG_NEVER &&
	    st->checking_ms >= 0, st->checking_ms);
	if (full && st->yield[0] != '\0') {
		js_open(j, "yield", '{');
		js_str(j, "to", st->yield);
		js_num(j, "ms", st->yielded_ms);
		js_close(j, '}');
	} else
		js_str(j, "yield", NULL);
	if (full && st->hold_ms > 0) {
		js_open(j, "hold", '{');
		js_num(j, "left_ms", st->hold_ms);
		js_str(j, "by", st->hold_by);
		js_str(j, "why", st->hold_why);
		js_close(j, '}');
	} else
		js_str(j, "hold", NULL);
	js_close(j, '}');
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
	const struct pg_cluster	*c;
	struct js		 j = { NULL, 1 };
	struct pg_next		 nx;
	char			*s = NULL;
	size_t			 i, k, len;
	int			 ok = 1;

	if ((j.fp = open_memstream(&s, &len)) == NULL)
		return NULL;
	js_open(&j, NULL, '{');
	js_str(&j, "version", version);
	js_str(&j, "node", node);
	js_open(&j, "clusters", '[');
	for (i = 0; i < nf; i++) {
		c = f[i].cluster;
		if (pg_fleet_next(&f[i], &nx) == -1) {
			ok = 0;
			break;
		}
		js_open(&j, NULL, '{');
		js_str(&j, "id", c->id);
		js_num(&j, "wait_ms", c->wait_ms);
		js_str(&j, "unreachable", c->unreachable ==
		    PG_UNREACHABLE_SKIP ? "skip" : "run");
		js_open(&j, "next", '{');
		js_str(&j, "reason", nx.reason == PG_REASON_GO &&
		    nx.node >= f[i].n ? "any" : next_keys[nx.reason] != NULL ?
		    next_keys[nx.reason] : "none");
		js_str(&j, "node", nx.node < f[i].n ?
		    f[i].nodes[nx.node].name : NULL);
		js_str(&j, "text", nx.text);
		js_close(&j, '}');
		js_open(&j, "nodes", '[');
		for (k = 0; k < f[i].n; k++)
			js_node(&j, &f[i].nodes[k]);
		js_close(&j, ']');
		js_close(&j, '}');
	}
	js_close(&j, ']');
	js_close(&j, '}');
	fputc('\n', j.fp);
	return done(j.fp, &s, ok);
}
