/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the status answer (GET /v1/status/CLUSTER) as
 * pollguard-check and pollguard-status read it from a peer, and what
 * pollguard-status makes of it. The input is the body, as an exact-size
 * heap copy. pg_status_parse must not read past it; what it accepts must
 * be in range, format (pg_status_format), and parse back to the same
 * struct (hold_why comes back escaped, as the format escapes it, or is
 * refused when escaping made it too long); what it refuses must say why
 * in printable text. The status is then a node of a fleet: the table and
 * the JSON of pg_fleet_table and pg_fleet_json must be printable ASCII
 * lines, the JSON one line.
 */
#include <stdint.h>
#include <vis.h>

#include "pollguard.h"
#include "fuzz.h"

/* Printable ASCII and newlines only; with one_line, one line at the end. */
static int
text_ok(const char *s, int one_line)
{
	size_t	 n = strlen(s);

	if (n == 0 || s[n - 1] != '\n')
		return 0;
	if (one_line && strchr(s, '\n') != s + n - 1)
		return 0;
	for (; *s != '\0'; s++)
		if (*s != '\n' && ((unsigned char)*s < 0x20 ||
		    (unsigned char)*s > 0x7e))
			return 0;
	return 1;
}

static void
ranges(const struct pg_status *st)
{
	check(pg_cluster_id_valid(st->cluster), "cluster '%s'", st->cluster);
	check(st->node[0] == '\0' || pg_peer_name_valid(st->node), "node");
	check(terminated(st->version, sizeof(st->version)) &&
	    printable(st->version), "version");
	check(st->elapsed_ms >= 0, "elapsed %lld", (long long)st->elapsed_ms);
	check(st->claim_ms >= -1 && st->claim_ms < PG_NEVER, "claim");
	check(st->running == 0 || st->running == 1, "running");
	check(st->pid >= 0 && st->pid <= INT32_MAX, "pid");
	check(st->last_signal == 0 || st->last_exit == -1, "exit and signal");
	check(st->last_exit >= -1 && st->last_exit <= 255, "exit");
	check(st->failures >= 0 && st->hold_ms >= 0, "failures, hold");
	check(terminated(st->hold_by, sizeof(st->hold_by)) &&
	    printable(st->hold_by), "hold_by");
	check(terminated(st->hold_why, sizeof(st->hold_why)) &&
	    printable(st->hold_why), "hold_why");
}

/* Format st and parse it back. */
static void
round_trip(const struct pg_status *st)
{
	struct pg_status	 want, back;
	char			 buf[PG_STATUS_MAX], why[128];
	char			 vis[PG_STATUS_TEXT_MAX * 4 + 1];
	size_t			 used = 0;
	int			 n, r;

	n = pg_status_format(st, buf, sizeof(buf));
	check(n > 0 && (size_t)n < sizeof(buf), "cannot format: %d", n);
	want = *st;
	strnvis(vis, st->hold_why, sizeof(vis), VIS_CSTYLE | VIS_OCTAL |
	    VIS_TAB | VIS_NL | VIS_NOSLASH);
	memset(want.hold_why, 0, sizeof(want.hold_why));
	r = pg_status_parse(buf, n, &back, &used, why, sizeof(why));
	if (st->hold_ms > 0 && strlen(vis) >= sizeof(want.hold_why)) {
		check(r == -1, "hold_why of %zu bytes escaped read back",
		    strlen(vis));
		return;
	}
	check(r == 0, "does not parse back (%s): %s", why, buf);
	check(used == (size_t)n, "read %zu of %d bytes", used, n);
	/* The format leaves out what it need not say. */
	if (st->hold_ms > 0)
		strlcpy(want.hold_why, vis, sizeof(want.hold_why));
	else
		memset(want.hold_by, 0, sizeof(want.hold_by));
	if (!st->running)
		want.pid = 0;
	if (!st->last) {
		want.last_timeout = 0;
		want.last_duration_ms = 0;
		want.last_end_ms = 0;
	}
	check(memcmp(&want, &back, sizeof(want)) == 0, "parses back "
	    "different: %s", buf);
}

static void
fleet(const struct pg_status *st)
{
	struct pg_fleet_node	 n[3];
	struct pg_cluster	 c;
	struct pg_fleet		 f;
	char			*s;

	memset(n, 0, sizeof(n));
	n[0].name = "a";
	n[0].self = 1;
	n[0].kind = PG_ANSWER_ELAPSED;
	n[0].has_status = 1;
	n[0].st = *st;
	n[1].name = "b";
	n[1].kind = PG_ANSWER_ELAPSED;
	pg_status_init(&n[1].st);
	n[1].st.elapsed_ms = st->elapsed_ms;
	n[2].name = "c";
	n[2].kind = PG_ANSWER_INVALID;
	strlcpy(n[2].why, st->hold_why, sizeof(n[2].why));
	pg_status_init(&n[2].st);
	memset(&c, 0, sizeof(c));
	strlcpy(c.id, st->cluster, sizeof(c.id));
	c.wait_ms = PG_WAIT_MIN_MS;
	c.unreachable = PG_UNREACHABLE_SKIP;
	c.on_failure = PG_ON_FAILURE_HANDOVER;
	c.cooldown_ms = PG_WAIT_MIN_MS;
	c.prefer_slack_ms = PG_WAIT_MIN_MS / 4;
	c.failback = 1;
	strlcpy(c.prefer, st->prefer, sizeof(c.prefer));
	memset(&f, 0, sizeof(f));
	f.cluster = &c;
	f.nodes = n;
	f.n = 3;
	s = pg_fleet_table(&f, 1);
	check(s != NULL && text_ok(s, 0), "table: %s", s);
	free(s);
	s = pg_fleet_json(PG_VERSION, st->node, &f, 1);
	check(s != NULL && text_ok(s, 1), "json: %s", s);
	free(s);
	/* Every node answered: the rule runs for each of them. */
	n[2].kind = PG_ANSWER_ELAPSED;
	n[2].has_status = 1;
	n[2].st = *st;
	s = pg_fleet_table(&f, 1);
	check(s != NULL && text_ok(s, 0), "table: %s", s);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_status	 st;
	char			*buf, why[128];
	size_t			 used = (size_t)-1;

	buf = fuzz_copy(data, size);
	why[0] = '\0';
	if (pg_status_parse(buf, size, &st, &used, why, sizeof(why)) == -1) {
		check(why[0] != '\0' && terminated(why, sizeof(why)) &&
		    printable(why), "why: %s", why);
		free(buf);
		return 0;
	}
	check(used > 0 && used <= size, "used %zu of %zu", used, size);
	ranges(&st);
	round_trip(&st);
	fleet(&st);
	free(buf);
	return 0;
}
