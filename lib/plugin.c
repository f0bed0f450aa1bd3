/* SPDX-License-Identifier: ISC */
/* plugin.c: pollguard-status -p, a monitoring plugin's verdict (monitor.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "monitor.h"

#define TEXT_MAX	640	/* the text, and each part of it */
#define DUR_MAX		PG_DURATION_MAX	/* pg_duration_text, secs */

static const char *const words[] = {
	"OK", "WARNING", "CRITICAL", "UNKNOWN"
};

/* The reasons of each state, in the order the text names them. */
static const enum pg_plugin_state order[] = {
	PG_PLUGIN_CRITICAL, PG_PLUGIN_UNKNOWN, PG_PLUGIN_WARNING, PG_PLUGIN_OK
};

/* Append a part (none if empty) to buf, after "; "; cut short: "...". */
static void
add(char *buf, const char *fmt, ...)
{
	char	 part[TEXT_MAX];
	size_t	 n = strlen(buf);
	va_list	 ap;
	int	 r;

	va_start(ap, fmt);
	vsnprintf(part, sizeof(part), fmt, ap);
	va_end(ap);
	if (part[0] == '\0')
		return;
	r = snprintf(buf + n, TEXT_MAX - n, "%s%s", n > 0 ? "; " : "", part);
	if (r < 0 || (size_t)r >= TEXT_MAX - n)
		memcpy(buf + TEXT_MAX - 4, "...", 4);
}

/* Milliseconds as seconds for perfdata: "90", "1.5", "0.25". */
static const char *
secs(int64_t ms, char *buf)
{
	size_t	 n;

	snprintf(buf, DUR_MAX, "%" PRId64 ".%03" PRId64, ms / 1000,
	    ms % 1000);
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* The longest any answer vouches for: the node existed that long ago. */
static int64_t
traces(const struct pg_status *st)
{
	/* A run's start: end + duration, which a peer could make overflow. */
	int64_t	 start = st->last_duration_ms < PG_NEVER - st->last_end_ms ?
	    st->last_end_ms + st->last_duration_ms : PG_NEVER - 1;
	int64_t	 v[] = { st->elapsed_ms, st->claim_ms, st->checked_ms,
	    st->checking_ms, st->last ? start : 0, st->last_success_ms };
	int64_t	 t = 0;
	size_t	 i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] != PG_NEVER && v[i] > t)
			t = v[i];
	return t;
}

/* A '|' would start the perfdata, a control character end the line. */
static void
oneline(char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '|')
			*s = '/';
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

enum pg_plugin_state
pg_plugin_check(const struct pg_fleet *f, const struct pg_plugin *p,
    char *buf, size_t len)
{
	const struct pg_fleet_node *n;
	char			 why[4][TEXT_MAX];	/* by state */
	char			 a[DUR_MAX], b[DUR_MAX], c[DUR_MAX];
	char			 runs[TEXT_MAX], text[TEXT_MAX];
	enum pg_plugin_state	 state = PG_PLUGIN_OK;
	int64_t			 best = PG_NEVER, known = p->known_ms, s, age;
	size_t			 i, bestnode = 0, answered = 0, running = 0;
	int			 failures = 0;

	memset(why, 0, sizeof(why));
	runs[0] = '\0';
	for (i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (!PG_ANSWER_OK(n->kind)) {
			add(why[n->self ? PG_PLUGIN_UNKNOWN :
			    PG_PLUGIN_WARNING], n->self ? "%s (this node): %s" :
			    "%s does not answer (%s)", n->name, n->why);
			continue;
		}
		if (!n->self || p->serve_why == NULL)
			answered++;
		/* Since its last success; a node before 0.4: its activity. */
		s = n->has_status ? n->st.last_success_ms : n->st.elapsed_ms;
		if (s < best) {
			best = s;
			bestnode = i;
		}
		if (traces(&n->st) > known)
			known = traces(&n->st);
		if (!n->has_status)
			continue;
		if (n->st.running) {
			running++;
			if (runs[0] != '\0')
				strlcat(runs, ", ", sizeof(runs));
			strlcat(runs, n->name, sizeof(runs));
		}
		if (n->st.hold_ms > 0)
			add(why[PG_PLUGIN_WARNING], "held on %s, %s left",
			    n->name, pg_duration_text(n->st.hold_ms, a));
		if (n->st.failures >= PG_PLUGIN_FAILURES)
			add(why[PG_PLUGIN_WARNING], "%s failed %d runs in a "
			    "row", n->name, n->st.failures);
		if (n->st.failures > failures)
			failures = n->st.failures;
	}
	if (p->serve_why != NULL)
		add(why[PG_PLUGIN_WARNING], "the serve of %s (this node) does "
		    "not answer (%s)", f->n > 0 ? f->nodes[0].name : "?",
		    p->serve_why);
	if (running > 1)
		add(why[PG_PLUGIN_CRITICAL], "runs on %zu nodes at once: %s",
		    running, runs);

	/* Without a success, the time known stands for the time since. */
	age = best != PG_NEVER ? best : known;
	if (best != PG_NEVER)
		snprintf(text, sizeof(text), "last success %s ago on %s",
		    pg_duration_text(best, a), f->nodes[bestnode].name);
	else
		snprintf(text, sizeof(text), "no success in the %s known",
		    pg_duration_text(known, a));
	if (age > p->crit_ms)
		add(why[PG_PLUGIN_CRITICAL], "%s (critical: %s)", text,
		    pg_duration_text(p->crit_ms, b));
	else if (age > p->warn_ms)
		add(why[PG_PLUGIN_WARNING], "%s (warning: %s)", text,
		    pg_duration_text(p->warn_ms, b));
	else if (best != PG_NEVER)
		add(why[PG_PLUGIN_OK], "%s", text);
	else if (known > 0)
		add(why[PG_PLUGIN_OK], "no success yet, in the %s known",
		    pg_duration_text(known, a));
	else
		add(why[PG_PLUGIN_OK], "no success yet");

	text[0] = '\0';
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (state == PG_PLUGIN_OK && why[order[i]][0] != '\0')
			state = order[i];
		add(text, "%s", why[order[i]]);
	}
	add(text, "%zu of %zu nodes answer", answered, f->n);
	oneline(text);
	snprintf(buf, len, "POLLGUARD %s - %s: %s | "
	    "'since_success'=%s%s;%s;%s;0 'failures'=%d;%d;;0 "
	    "'reachable'=%zu;;;0;%zu "
	    "'running'=%zu;;1;0;%zu\n", words[state], f->cluster->id, text,
	    best != PG_NEVER ? secs(best, a) : "U", best != PG_NEVER ? "s" : "",
	    secs(p->warn_ms, b), secs(p->crit_ms, c), failures,
	    PG_PLUGIN_FAILURES - 1, answered, f->n, running, f->n);
	return state;
}

void
pg_plugin_unknown(char *buf, size_t len, const char *why)
{
	char	 text[TEXT_MAX];

	strlcpy(text, why, sizeof(text));
	oneline(text);
	snprintf(buf, len, "POLLGUARD UNKNOWN - %s\n", text);
}
