/* SPDX-License-Identifier: ISC */
/*
 * pollguard-check: may this node poll now? Ask every peer of the cluster
 * at once; go (exit 0) when none was active within the wait, claiming the
 * round, settling and asking again to resolve claims made at the same
 * moment; otherwise skip. See pollguard(7) for the algorithm. This file
 * is the options, the tests on this node and round 1; the claim and its
 * settling are bin/check-claim.c's, strict mode bin/etcd.c's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "decide.h"
#include "local.h"
#include "check.h"
#include "etcd.h"

static __dead void
usage(void)
{
	fprintf(stderr, "usage: pollguard-check [-Enqv] [-c file] cluster\n");
	exit(tool_status(EX_USAGE));
}

/*
 * Read this node's own record: a damaged one is reported, not silently
 * replaced. With -v, say how long ago this node was last active.
 */
static void
read_own(struct tool *t)
{
	struct pg_stamp	 rec, now;
	struct stat	 sb;
	const char	*id = t->cluster->id;
	char		 ago[32];
	int		 r, e;

	if ((r = pg_state_read(&t->state, id, &rec)) == -1) {
		e = errno;
		/*
		 * touch renames a record over a file or link, not a
		 * directory.
		 */
		if (e == ELOOP)
			tool_die(EX_DATAERR, "%s/%s: a symbolic link, which is "
			    "never followed; 'pollguard-touch %s' replaces it",
			    t->state.path, id, id);
		if (e == EBADMSG && fstatat(t->state.dirfd, id, &sb,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode))
			tool_die(EX_DATAERR, "%s/%s: a directory, not a state "
			    "record: remove it; 'pollguard-touch %s' then "
			    "writes the record", t->state.path, id, id);
		if (e == EBADMSG)
			tool_die(EX_DATAERR, "%s/%s: not a valid state record;"
			    " 'pollguard-touch %s' replaces it", t->state.path,
			    id, id);
		errno = e;
		tool_die_errno(EX_IOERR, "%s/%s", t->state.path, id);
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
 * Record this check in the checked record (pollguard(7), PREFERRED
 * NODE): it began at start; go, and whom this go is the last run before
 * yielding to. Peers read it through serve; a failure only costs this
 * node its preference, so it is a warning.
 */
static void
checked(struct tool *t, const struct pg_stamp *start, int go,
    const char *yield)
{
	const struct pg_cluster	*c = t->cluster;
	struct pg_checked	 ck;
	int			 had;

	/* Only prefer reads it: no durable write for the others. */
	if (c->prefer[0] == '\0')
		return;
	if ((had = pg_checked_read(&t->state, c->id, &ck)) == -1)
		had = 0;
	pg_checked_next(&ck, had, start, c->wait_ms + c->prefer_slack_ms, go,
	    yield);
	if (pg_checked_write(&t->state, c->id, &ck) == -1)
		tool_warn(t, "cannot record the check in %s/.%s.side: %s",
		    t->state.path, c->id, strerror(errno));
}

/*
 * A peer announces another prefer order: prefer is not applied. Loud
 * (syslog and stderr, also under cron), since the fleet's config is not
 * what its operator thinks.
 */
static void
disagree(const struct tool *t, const struct pg_seen *s)
{
	char		 msg[PG_TEXT_MAX + 2 * PG_VALUE_MAX];
	char		 its[PG_VALUE_MAX + 2], mine[PG_VALUE_MAX + 2];

	snprintf(msg, sizeof(msg), "cluster %s: peer %s announces prefer "
	    "%s, this node %s: prefer is not applied until they agree",
	    t->cluster->id, s->name, s->has_status ? tool_order(its,
	    sizeof(its), s->status.prefer) : "none (no status: before 0.4)",
	    tool_order(mine, sizeof(mine), t->cluster->prefer));
	syslog(LOG_WARNING, "%s", msg);
	if (!t->quiet)
		fprintf(stderr, "pollguard-check: %s\n", msg);
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

	/* getopt names it, not its path */
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

	tool_init();
	/*
	 * A reader that went away (check -v 2>&1 | head) must not kill the
	 * check with its claim out: the write fails, the check goes on.
	 */
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
	/*
	 * Strict mode: etcd orders the claims (bin/etcd.c); no peer is
	 * asked, so only this node's own hold can stop it.
	 */
	if (t.cluster->backend == PG_BACKEND_ETCD) {
		if (ownp != NULL && own.hold_ms > 0) {
			/* With no peers, pg_decide skips for the hold alone. */
			pg_decide(t.cluster, t.cfg->node, ownp, 0, NULL, 0, &d);
			pg_decision_text(&d, t.cluster, ownp, NULL, 0, text,
			    sizeof(text));
			tool_decided(&t, "%s: %s", id, text);
			return d.verdict;
		}
		return etcd_check(&t, claim);
	}
	/*
	 * Activity in our own record after this check started: a check on
	 * this node started with this one kept its claim and released the
	 * claim lock before we took it, or its job has refreshed the record
	 * since (doc/SAFETY.md, section 5). The time since the activity is
	 * used, not the claim, so that a check held up past the claim's
	 * horizon still sees it.
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
	/*
	 * A claim of another check on this node, still within its horizon:
	 * ours would hide it from a peer's round 2 (doc/SAFETY.md, section 5).
	 */
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
	/*
	 * Every node of a cluster must order claims by the same rule. With
	 * settle = 0 nothing orders them (pollguard.conf(5)): no rule to share.
	 */
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

/*
 * -E maps every error to 255, the one status ExecCondition= treats as a
 * failure rather than a skip; the verdicts 0 to 3 stay.
 */
int
main(int argc, char *argv[])
{
	int	 status = tool_status(check(argc, argv));

	/*
	 * Nothing is left to clean up that the kernel does not: leave
	 * without libcurl's and OpenSSL's exit handlers, 4% of a check's
	 * instructions (BENCHMARKS.md). stderr is unbuffered; the rest is
	 * flushed here.
	 */
	fflush(NULL);
	_exit(status);
}
