/* SPDX-License-Identifier: ISC */
/*
 * pollguard-check: may this node poll now (pollguard(7))? The options, the
 * tests on this node and round 1; the claim is bin/check-claim.c's, strict
 * mode bin/etcd.c's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decide.h"
#include "check.h"

static __dead void
usage(void)
{
	fprintf(stderr, "usage: pollguard-check [-Enqv] [-c file] cluster\n");
	exit(tool_status(EX_USAGE));
}

/* Read this node's record: report a damaged one; with -v, its age. */
static void
read_own(struct tool *t)
{
	struct pg_stamp	 rec, now;
	struct stat	 sb;
	const char	*id = t->cluster->id;
	char		 ago[32];
	int		 r;

	if ((r = pg_state_read(&t->state, id, &rec)) == -1) {
		if (errno == ELOOP)
			tool_die(EX_DATAERR, "%s/%s: a symbolic link, which is "
			    "never followed; 'pollguard-touch %s' replaces it",
			    t->state.path, id, id);
		if (errno != EBADMSG)
			tool_die_errno(EX_IOERR, "%s/%s", t->state.path, id);
		if (fstatat(t->state.dirfd, id, &sb, AT_SYMLINK_NOFOLLOW) ==
		    0 && S_ISDIR(sb.st_mode))
			tool_die(EX_DATAERR, "%s/%s: a directory, not a state "
			    "record: remove it; 'pollguard-touch %s' then "
			    "writes the record", t->state.path, id, id);
		tool_die(EX_DATAERR, "%s/%s: not a valid state record; "
		    "'pollguard-touch %s' replaces it", t->state.path, id, id);
	}
	if (!t->verbose)
		return;
	if (pg_stamp_now(&now) == -1)
		tool_die_errno(EX_OSERR, "clock");
	pg_duration_format(r == 0 ? PG_NEVER : pg_stamp_elapsed(&rec, &now),
	    ago, sizeof(ago));
	tool_explain(t, "%s: last activity on this node: %s%s",
	    t->cluster->id, ago, r == 0 ? "" : " ago");
}

/*
 * Record this check (pollguard(7), PREFERRED NODE): its start, go, and
 * whom it yields to after this run. A failure costs only the preference.
 */
static void
checked(struct tool *t, const struct pg_stamp *start, int go,
    const char *yield)
{
	const struct pg_cluster	*c = t->cluster;
	struct pg_checked	 ck;
	int			 had;

	if (c->prefer[0] == '\0')	/* only prefer reads it */
		return;
	if ((had = pg_checked_read(&t->state, c->id, &ck)) == -1)
		had = 0;
	pg_checked_next(&ck, had, start, c->wait_ms + c->prefer_slack_ms, go,
	    yield);
	if (pg_checked_write(&t->state, c->id, &ck) == -1)
		tool_warn(t, "cannot record the check in %s/.%s.side: %s",
		    t->state.path, c->id, strerror(errno));
}

/* Another prefer order on a peer: loud, also under cron. */
static void
disagree(const struct tool *t, const struct pg_seen *s)
{
	struct tool	 loud = *t;
	char		 its[PG_VALUE_MAX + 2], mine[PG_VALUE_MAX + 2];

	loud.verbose = 1;
	tool_warn(&loud, "cluster %s: peer %s announces prefer %s, this node "
	    "%s: prefer is not applied until they agree", t->cluster->id,
	    s->name, s->has_status ? tool_order(its, sizeof(its),
	    s->status.prefer) : "none (no status: before 0.4)",
	    tool_order(mine, sizeof(mine), t->cluster->prefer));
}

static int
check(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	struct pg_decision	 d;
	static struct pg_round	 r;	/* static: reachable until exit */
	struct pg_status	 own, *ownp = &own;
	struct pg_stamp		 start;
	const char		*conf = NULL, *id;
	char			 text[PG_TEXT_MAX];
	size_t			 other;
	int64_t			 started, now, prev_check_ns;	/* round 2 */
	int			 ch, held, claim = 1, lockfd = -1, bad = 0;

	if (pg_clock(CLOCK_BOOTTIME, &started) == -1)
		started = INT64_MAX;	/* never "after it started" */

	argv[0] = (char *)getprogname();
	while ((ch = getopt(argc, argv, "c:Enqv")) != -1) {
		switch (ch) {
		case 'E':
			tool_exit_err = 255;
			break;
		case 'c':
			conf = optarg;
			break;
		case 'n':
			claim = 0;
			break;
		case 'q':
			t.quiet = 1;
			break;
		case 'v':
			t.verbose = 1;
			break;
		default:
			bad = 1;	/* usage() once -E is known */
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || bad)
		usage();

	openlog(getprogname(), LOG_PID, LOG_USER);
	/* A reader gone (check -v | head) must not kill a claim's check. */
	signal(SIGPIPE, SIG_IGN);
	tool_setup(&t, conf, argv[0]);
	id = t.cluster->id;
	if (pg_stamp_now(&start) == -1)
		tool_die_errno(EX_OSERR, "clock");
	read_own(&t);

	if ((held = pg_lock_held(&t.state, id)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t.state.path, id);
	if (held) {
		if (claim)
			checked(&t, &start, 0, NULL);
		tool_decided(&t, "%s: skip: a run on this node is still going",
		    id);
		return PG_SKIP_LOCAL;
	}
	/* Another check of this cluster on this node is deciding: let it. */
	if (claim && (held = pg_claim_lock(&t.state, id, &lockfd)) != 1) {
		if (held == -1)
			tool_die_errno(EX_CANTCREAT, "%s/.%s.claim",
			    t.state.path, id);
		tool_decided(&t, "%s: skip: another check on this node is "
		    "deciding", id);
		return PG_SKIP_LOCAL;
	}
	/* This node's status, as its serve tells peers: a hold, a failure. */
	if (pg_status_local(&t.state, t.cluster, t.cfg->node, &own) == -1) {
		tool_warn(&t, "cluster %s: this node's status cannot be read "
		    "(%s): its holds and failures are not known", id,
		    strerror(errno));
		ownp = NULL;
	}
	/* Strict mode: no peer is asked; only this node's hold stops it. */
	if (t.cluster->backend == PG_BACKEND_ETCD) {
		if (ownp != NULL && own.hold_ms > 0) {
			pg_decide(t.cluster, t.cfg->node, ownp, 0, NULL, 0, &d);
			pg_decision_text(&d, t.cluster, ownp, NULL, 0, text,
			    sizeof(text));
			tool_decided(&t, "%s: %s", id, text);
			return d.verdict;
		}
		return etcd_check(&t, claim);
	}
	/*
	 * Activity since this check started, or a claim within its horizon
	 * (doc/SAFETY.md, section 5): by the activity's age, not the claim,
	 * so that a check held up past the claim's horizon still sees it.
	 */
	if (claim && ownp != NULL && own.elapsed_ms != PG_NEVER &&
	    own.elapsed_ms < INT64_MAX / 1000000 &&
	    pg_clock(CLOCK_BOOTTIME, &now) == 0 &&
	    now - own.elapsed_ms * 1000000 > started) {
		tool_decided(&t, "%s: skip: another check on this node "
		    "claimed the round %" PRId64 "ms ago, as this one started",
		    id, own.elapsed_ms);
		return PG_SKIP_LOCAL;
	}
	if (claim && ownp != NULL && own.claim_ms >= 0) {
		tool_decided(&t, "%s: skip: another check on this node "
		    "kept its claim %" PRId64 "ms ago, within its horizon", id,
		    own.claim_ms);
		return PG_SKIP_LOCAL;
	}
	prev_check_ns = pg_prefer_prev_check(ownp);

	memset(&r, 0, sizeof(r));
	if (t.cluster->npeers > 0) {
		if (pg_peers_init() == -1)
			tool_die(EX_SOFTWARE, "libcurl cannot be initialised");
		check_ask(&t, &r, NULL);
	}
	/* Every node orders claims by one rule (none with settle = 0). */
	if (claim && t.cfg->settle_ms > 0 && (other = pg_settle_disagrees(
	    t.cfg->settle_ms, t.cfg->timeout_ms, r.seen, r.n)) < r.n)
		tool_die(EX_PROTOCOL, "cluster %s: peer %s announces settle "
		    "%" PRId64 "ms and timeout %" PRId64 "ms, this node settle "
		    "%" PRId64 "ms and timeout %" PRId64 "ms: settle and "
		    "timeout must be the same on every node of a cluster", id,
		    r.seen[other].name, r.seen[other].status.settle_ms,
		    r.seen[other].status.timeout_ms, t.cfg->settle_ms,
		    t.cfg->timeout_ms);
	pg_decide(t.cluster, t.cfg->node, ownp, 0, r.seen, r.n, &d);
	if (d.disagree < r.n)
		disagree(&t, &r.seen[d.disagree]);
	/* Before any claim: a go that is not a yield ends a yield first. */
	if (claim)
		checked(&t, &start, d.verdict == PG_GO, d.yield ?
		    r.seen[d.prefer].name : NULL);
	if (d.standalone)
		tool_warn(&t, "cluster %s has no peers: standalone, always "
		    "polling", id);
	pg_decision_text(&d, t.cluster, ownp, r.seen, r.n, text, sizeof(text));
	if (d.verdict != PG_GO) {
		tool_decided(&t, "%s: %s", id, text);
		return d.verdict;
	}
	if (!claim) {
		tool_decided(&t, "%s: %s (not claimed: -n)", id, text);
		return PG_GO;
	}
	if (d.failed < r.n || d.prefer < r.n || d.yielded < r.n)
		tool_decided(&t, "%s: %s; claiming", id, text);
	if (t.cluster->npeers > 0 && t.cfg->settle_ms > 0) {
		ch = claim_and_settle(&t, &r, prev_check_ns);
		pg_round_free(&r);
		return ch;
	}
	pg_round_free(&r);
	if (pg_state_touch(&t.state, id) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot record activity in %s/%s",
		    t.state.path, id);
	tool_decided(&t, "%s: go, claimed", id);
	return PG_GO;
}

int
main(int argc, char *argv[])
{
	int	 status = tool_status(check(argc, argv));

	/* Without libcurl's and OpenSSL's exit handlers (BENCHMARKS.md). */
	fflush(NULL);
	_exit(status);
}
