/* SPDX-License-Identifier: ISC */
/*
 * check-decide.c: pollguard-check's decision (check.h, check_decide): the
 * tests on this node and round 1; the claim is bin/check-claim.c's, strict
 * mode bin/etcd.c's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decide.h"
#include "check.h"

static struct pg_round	 r;	/* static: reachable until exit */

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
		/* A link, or another user's file: lib/statedir.c says. */
		if (errno == ELOOP || errno == EPERM)
			tool_die(EX_DATAERR, "%s/%s: %s; 'pollguard-touch %s' "
			    "replaces it", t->state.path, id,
			    tool_strerror(errno), id);
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


static int
decide(struct tool *t, int claim, int64_t started, int *claimfd, int *runfd)
{
	struct pg_decision	 d;
	struct pg_status	 own, *ownp = &own;
	struct pg_stamp		 start;
	const char		*id;
	char			 text[PG_TEXT_MAX];
	int64_t			 now, prev_check_ns;	/* round 2 */
	int			 held, v;

	id = t->cluster->id;
	if (pg_stamp_now(&start) == -1)
		tool_die_errno(EX_OSERR, "clock");
	read_own(t);

	if ((held = pg_lock_held(&t->state, id)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t->state.path, id);
	if (held) {
		if (claim)
			check_checked(t, &start, 0, NULL);
		tool_decided(t, "%s: skip: a run on this node is still going",
		    id);
		return PG_SKIP_LOCAL;
	}
	/* Another check of this cluster on this node is deciding: let it. */
	if (claim && (held = pg_claim_lock(&t->state, id, claimfd)) != 1) {
		if (held == -1)
			tool_die_errno(EX_CANTCREAT, "%s/.%s.claim",
			    t->state.path, id);
		tool_decided(t, "%s: skip: another check on this node is "
		    "deciding", id);
		return PG_SKIP_LOCAL;
	}
	/* This node's status, as its serve tells peers: a hold, a failure. */
	if (pg_status_local(&t->state, t->cluster, t->cfg->node, &own) == -1) {
		tool_warn(t, "cluster %s: this node's status cannot be read "
		    "(%s): its holds and failures are not known", id,
		    tool_strerror(errno));
		ownp = NULL;
	}
	/*
	 * pollguard-run: the run lock from here on, taken after this node's
	 * status was read (held, it would show a run that died as going).
	 */
	if (claim && runfd != NULL &&
	    (held = pg_lock_take(&t->state, id, runfd)) != 1) {
		if (held == -1)
			tool_die_errno(EX_IOERR, "%s/.%s.lock", t->state.path,
			    id);
		check_checked(t, &start, 0, NULL);
		tool_decided(t, "%s: skip: a run on this node is still going",
		    id);
		return PG_SKIP_LOCAL;
	}
	/* Strict mode: no peer is asked; only this node's hold stops it. */
	if (t->cluster->backend == PG_BACKEND_ETCD) {
		if (ownp != NULL && own.hold_ms > 0) {
			pg_decide(t->cluster, t->cfg->node, ownp, 0, NULL, 0,
			    &d);
			pg_decision_text(&d, t->cluster, ownp, NULL, 0, text,
			    sizeof(text));
			tool_decided(t, "%s: %s", id, text);
			return d.verdict;
		}
		return etcd_check(t, claim);
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
		tool_decided(t, "%s: skip: another check on this node "
		    "claimed the round %" PRId64 "ms ago, as this one started",
		    id, own.elapsed_ms);
		return PG_SKIP_LOCAL;
	}
	/* A sibling's claim within its horizon (doc/SAFETY.md, 5). */
	if (claim && ownp != NULL && own.claim_ms >= 0 && own.horizon) {
		tool_decided(t, "%s: skip: another check on this node "
		    "kept its claim %" PRId64 "ms ago, within its horizon",
		    id, own.claim_ms);
		return PG_SKIP_LOCAL;
	}
	prev_check_ns = pg_prefer_prev_check(ownp);

	memset(&r, 0, sizeof(r));
	if (t->cluster->npeers > 0) {
		if (pg_peers_init() == -1)
			tool_die(EX_SOFTWARE, "libcurl cannot be initialised");
		check_round1(t, ownp, &r, claim && t->cfg->settle_ms > 0);
	}
	/* Every node orders claims by one rule (none with settle = 0). */
	if (claim && t->cfg->settle_ms > 0 &&
	    check_disagrees(t, &r, text, sizeof(text)) < r.n)
		tool_die(EX_PROTOCOL, "cluster %s: %s", id, text);
	pg_decide(t->cluster, t->cfg->node, ownp, 0, r.seen, r.n, &d);
	if (d.disagree < r.n)
		check_disagree(t, &r.seen[d.disagree]);
	/* Before any claim: a go that is not a yield ends a yield first. */
	if (claim)
		check_checked(t, &start, d.verdict == PG_GO, d.yield ?
		    r.seen[d.prefer].name : NULL);
	if (d.standalone)
		tool_warn(t, "cluster %s has no peers: standalone, always "
		    "polling", id);
	pg_decision_text(&d, t->cluster, ownp, r.seen, r.n, text, sizeof(text));
	if (d.verdict != PG_GO) {
		tool_decided(t, "%s: %s", id, text);
		return d.verdict;
	}
	if (!claim) {
		tool_decided(t, "%s: %s (not claimed: -n)", id, text);
		return PG_GO;
	}
	if (d.failed < r.n || d.prefer < r.n || d.yielded < r.n)
		tool_decided(t, "%s: %s; claiming", id, text);
	if (t->cluster->npeers > 0 && t->cfg->settle_ms > 0) {
		v = claim_and_settle(t, &r, prev_check_ns, ownp, &d);
		pg_round_free(&r);
		return v;
	}
	pg_round_free(&r);
	if (pg_state_touch(&t->state, id) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot record activity in %s/%s",
		    t->state.path, id);
	tool_decided(t, "%s: go, claimed", id);
	return PG_GO;
}


int
check_decide(struct tool *t, int claim, int64_t started, int *claimfd,
    int *runfd)
{
	int	 v;

	*claimfd = -1;
	if (runfd != NULL)
		*runfd = -1;
	v = decide(t, claim, started, claimfd, runfd);
	pg_round_free(&r);
	if (v == PG_GO && claim)
		return v;
	/* A skip (pollguard-run -w tries again): neither lock is kept. */
	if (*claimfd != -1)
		close(*claimfd);
	if (runfd != NULL && *runfd != -1)
		close(*runfd);
	*claimfd = -1;
	if (runfd != NULL)
		*runfd = -1;
	return v;
}
