/*
 * pollguard-check: may this node poll now? Ask every peer of the cluster
 * at once; go (exit 0) when none was active within the wait, claiming the
 * round, settling and asking again to resolve claims made at the same
 * moment; otherwise skip. See pollguard(7) for the algorithm.
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

#include "etcd.h"
#include "tool.h"

static volatile sig_atomic_t	 got_signal;
static int64_t			 prev_check_ns = INT64_MIN;	/* round 2 */

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
		/* touch renames a record over a file or link, not a directory. */
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

static void
on_signal(int sig)
{
	got_signal = sig;
	pg_peers_stop = 1;	/* round 2 need not run to its timeout */
}

/*
 * Say what each peer answered (with -v), warn about unreachable peers
 * and complain loudly about peers that answered nonsense.
 */
static void
report(struct tool *t, const struct pg_round *r, int second)
{
	const struct pg_cluster	*c = t->cluster;
	const struct pg_peer	*p;
	const struct pg_seen	*s;
	const char		*again = second ? "again: " : "";
	char			 ago[32], wait[32];
	size_t			 i;

	pg_duration_format(c->wait_ms, wait, sizeof(wait));
	for (i = 0; i < r->n; i++) {
		p = &t->cfg->peers[c->peers[i]];
		s = &r->seen[i];
		switch (s->answer.kind) {
		case PG_ANSWER_ELAPSED:
			pg_duration_format(s->answer.elapsed_ms, ago,
			    sizeof(ago));
			tool_explain(t, "%s: %s%s: %s: %s %s ago (wait %s)%s%s",
			    c->id, again, p->name, s->why,
			    s->has_status && s->status.claim_ms >= 0 ?
			    "claimed" : s->answer.elapsed_ms < c->wait_ms ?
			    "active" : "idle", ago, wait, pg_handover_ignores(
			    c->on_failure, s) ? "; its last run failed: not "
			    "counted" : "", s->old ? " (before 0.4)" : "");
			break;
		case PG_ANSWER_NEVER:
			tool_explain(t, "%s: %s%s: never: idle%s", c->id,
			    again, p->name, s->old ? " (before 0.4)" : "");
			break;
		case PG_ANSWER_UNREACHABLE:
			tool_warn(t, "cluster %s: %speer %s (%s) unreachable: "
			    "%s; %s", c->id, again, p->name, p->url, s->why,
			    c->unreachable == PG_UNREACHABLE_SKIP ?
			    "skipping the round (unreachable = skip)" :
			    "counts as never");
			break;
		case PG_ANSWER_SELF:
			tool_error("cluster %s: peer %s (%s) is this node, %s, "
			    "or a host of the same node name: if this host is "
			    "%s, set node = %s in [pollguard]; if not, fix the "
			    "peer's url, or that host's node", c->id, p->name,
			    p->url, t->cfg->node, p->name, p->name);
			break;
		default:
			tool_error("cluster %s: peer %s (%s) answered %s: "
			    "check its [peer %s] section and its serve's "
			    "config%s", c->id, p->name, p->url, s->why,
			    p->name, pg_answer_hint(s->answer.kind));
			break;
		}
	}
}

static void
ask(struct tool *t, struct pg_round *r, const struct pg_round *first)
{
	if (pg_peers_ask_again(t->cfg, t->cluster, first, r) == -1)
		tool_die_errno(EX_OSERR, "asking the peers of %s",
		    t->cluster->id);
	/* A round a signal cut short: its silent peers were not slow. */
	if (!got_signal)
		report(t, r, first != NULL);
}

/* Sleep ns, or until a signal that withdraws the claim. */
static void
nap(int64_t ns)
{
	struct timespec	 ts;

	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !got_signal)
		;
}

/*
 * Round 2 comes at once when every peer showed its status (and so the
 * rule it decides by) in round 1; any other peer (before 0.4, behind a
 * proxy that passes only /v1/elapsed/, unreachable, invalid) may be a
 * 0.3 node, whose rule orders a claim it did not see only after the
 * sleep (doc/SAFETY.md). 1: slept.
 */
static int
settle_sleep(const struct tool *t, const struct pg_round *first)
{
	const char	*id = t->cluster->id;
	int64_t		 ns = pg_settle_sleep_ns(t->cfg->settle_ms);
	size_t		 i;

	for (i = 0; i < first->n; i++)
		if (!pg_peer_fast(&first->seen[i]))
			break;
	if (i == first->n) {
		tool_explain(t, "%s: go, claimed; settling at once: every peer "
		    "shows its status", id);
		return 0;
	}
	tool_explain(t, "%s: go, claimed; %s shows no status (before 0.4, or "
	    "a proxy): settling %" PRId64 "ms", id, first->seen[i].name,
	    ns / 1000000);
	nap(ns);
	return 1;
}

/* Take the claim back: put back the record that was there before it. */
static void
withdraw(struct tool *t, const struct pg_stamp *rec, const char *old,
    size_t oldlen)
{
	if (pg_state_restore(&t->state, t->cluster->id, rec, old, oldlen) ==
	    -1)
		tool_error("cannot withdraw the claim in %s/%s: %s",
		    t->state.path, t->cluster->id, strerror(errno));
}

/* A signal while the claim is out: withdraw it, then die of the signal. */
static void
interrupted(struct tool *t, const struct pg_stamp *rec, const char *old,
    size_t oldlen)
{
	withdraw(t, rec, old, oldlen);
	tool_decided(t, "%s: interrupted: claim withdrawn", t->cluster->id);
	signal(got_signal, SIG_DFL);
	raise(got_signal);
	exit(128 + got_signal);
}

/*
 * Keep the claim. When it became visible late, lengthen its horizon
 * first, so that a peer still in its round 2 sees the claim rather than
 * the job's first refresh (pollguard(7)); when that would reach the wait
 * time, or the record cannot be written, withdraw instead (*why says
 * why); when it is no longer our claim (a writer on this node), too.
 */
static enum pg_verdict
keep(struct tool *t, const struct pg_claim *cl, struct pg_stamp *rec,
    enum pg_settle_why *why)
{
	const char	*id = t->cluster->id;
	int64_t		 h;
	int		 r;

	*why = PG_LOST_SLOW_WRITE;
	if ((h = pg_claim_keep_horizon(cl, t->cluster->wait_ms)) == 0)
		return PG_SKIP_ACTIVE;
	if (h == rec->horizon_ms ||
	    (r = pg_state_lengthen(&t->state, id, rec, h)) == 1) {
		*why = PG_KEEP;
		return PG_GO;
	}
	if (r == 0)
		*why = PG_LOST_OVERWRITTEN;
	else
		tool_error("cannot lengthen the claim in %s/%s: %s",
		    t->state.path, id, strerror(errno));
	return PG_SKIP_ACTIVE;
}

/*
 * The wait for a peer whose name sorts after ours: ask the pending peers again, after 1, 2, 4 .. 32
 * ms, until each has decided (pg_settle_poll) or our deadline has passed.
 * r is the last round asked, freed and refilled here. Returns the
 * verdict, with the reason and peer.
 */
static enum pg_verdict
poll_pending(struct tool *t, struct pg_claim *cl, struct pg_round *r,
    int *pending, enum pg_settle_why *why, size_t *peer,
    const struct pg_stamp *rec, const char *old, size_t oldlen)
{
	const struct pg_cluster	*c = t->cluster;
	enum pg_verdict		 v = PG_GO;
	int64_t			 backoff = 1;
	size_t			 i;

	while (v == PG_GO && *why == PG_WAIT) {
		for (i = 0; i < r->n; i++)
			if (pending[i])
				tool_explain(t, "%s: %s: waiting for %s to "
				    "decide", c->id, t->cfg->node,
				    r->seen[i].name);
		nap(backoff * 1000000);
		if (backoff < 32)
			backoff *= 2;
		if (got_signal)
			interrupted(t, rec, old, oldlen);
		pg_round_free(r);
		if (pg_peers_ask_some(t->cfg, c, NULL, pending, r) == -1)
			tool_die_errno(EX_OSERR, "asking the peers of %s",
			    c->id);
		if (got_signal)
			interrupted(t, rec, old, oldlen);
		cl->end_ns = r->end_ns;
		v = pg_settle_poll(cl, c->wait_ms, r->seen, r->n, pending, why,
		    peer);
	}
	return v;
}

/*
 * The last moment of a go. Peers stop counting a node whose last run
 * failed once its claim's horizon has passed, unless its last activity
 * came more than a second after the run's end (pg_handover_ignores): a
 * check held up that long after it decided to keep must not go, since a
 * peer may have gone meanwhile. The run may also have failed during this
 * check (a run on this node that began after its lock test), so every
 * go is tested, on this node's status as its serve reports it, by the
 * rule of on_failure = handover whatever this node's setting (the
 * peers' is the one that applies). The claim must last a while longer
 * (settle/4 and 50 ms, the margin of pg_settle's slow round), for the
 * job's start under pollguard-touch, which makes peers count the node
 * again. 1 when still counted; else 0, *why set.
 */
static int
still_counted(struct tool *t, const struct pg_stamp *rec,
    enum pg_settle_why *why, struct pg_seen *self)
{
	int64_t		 now, left_ms;

	memset(self, 0, sizeof(*self));
	self->name = t->cfg->node;
	if (pg_status_local(&t->state, t->cluster, t->cfg->node,
	    &self->status) == -1) {
		*why = PG_LOST_SELF;
		return 0;
	}
	/* A hold put on this node while we settled: as on a peer. */
	if (self->status.hold_ms > 0) {
		*why = PG_LOST_HELD;
		return 0;
	}
	if (pg_clock(CLOCK_BOOTTIME, &now) == -1)
		left_ms = 0;
	else
		left_ms = rec->horizon_ms - (now - rec->claim_ns) / 1000000;
	if (left_ms < t->cfg->settle_ms / 4 + 50)
		self->status.claim_ms = -1;
	self->has_status = 1;
	self->answer.kind = PG_ANSWER_ELAPSED;
	self->answer.elapsed_ms = self->status.elapsed_ms;
	*why = PG_LOST_EXPIRED;
	return !pg_handover_ignores(PG_ON_FAILURE_HANDOVER, self);
}

/*
 * A claim withdrawn for want of time, of an answer or of certainty is
 * worth a warning; one that another node's claim, a hold or the policy
 * ordered is the rule at work.
 */
static int
worth_a_warning(enum pg_settle_why why)
{
	switch (why) {
	case PG_KEEP:
	case PG_LOST_EARLIER:
	case PG_LOST_NAME:
	case PG_LOST_UNREACHABLE:
	case PG_LOST_INVALID:
	case PG_LOST_HELD:
	case PG_WAIT:
	case PG_LOST_KEPT:
		return 0;
	default:
		return 1;
	}
}

/*
 * Claim, settle, ask again: keep the claim or withdraw it, restoring the
 * record that was there. Returns the exit status. The claim lock, taken
 * before round 1, stays held until exit, after the record was restored or
 * the claim lengthened: a peer's serve reads "deciding no" only then
 * (pollguard(7)).
 */
static int
claim_and_settle(struct tool *t, const struct pg_round *first)
{
	const struct pg_cluster	*c = t->cluster;
	struct sigaction	 sa;
	struct pg_stamp		 rec;
	struct pg_claim		 cl;
	struct pg_round		 r;
	struct pg_seen		 self, *by = NULL;
	enum pg_settle_why	 why;
	enum pg_verdict		 v;
	char			 old[PG_RECORD_MAX], text[PG_TEXT_MAX];
	ssize_t			 oldlen;
	size_t			 peer, i;
	int			*pending;

	if ((oldlen = pg_state_read_raw(&t->state, c->id, old,
	    sizeof(old))) == -1)
		oldlen = 0;	/* damaged: read_own said so; not restored */

	/* A signal while the claim is out withdraws it. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	memset(&cl, 0, sizeof(cl));
	cl.node = t->cfg->node;
	cl.settle_ms = t->cfg->settle_ms;
	cl.timeout_ms = t->cfg->timeout_ms;
	cl.horizon_ms = pg_claim_horizon(t->cfg->timeout_ms,
	    t->cfg->settle_ms);
	cl.on_failure = c->on_failure;
	cl.prev_check_ns = prev_check_ns;	/* pg_yield_ignores */
	cl.yield_slack_ms = c->prefer_slack_ms;
	if (pg_state_claim(&t->state, c->id, cl.horizon_ms, &rec,
	    &cl.visible_ns) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot record activity in %s/%s",
		    t->state.path, c->id);
	cl.claim_ns = rec.mono_ns;
	cl.start_ns = first->start_ns;
	cl.slept = settle_sleep(t, first);
	if (got_signal)
		interrupted(t, &rec, old, oldlen);
	ask(t, &r, first);
	if (got_signal)
		interrupted(t, &rec, old, oldlen);
	cl.end_ns = r.end_ns;
	for (i = 0; i < r.n; i++)
		r.seen[i].answered =
		    first->seen[i].answer.kind != PG_ANSWER_UNREACHABLE;

	if ((pending = calloc(r.n + 1, sizeof(*pending))) == NULL)
		tool_die_errno(EX_OSERR, "memory");
	v = pg_settle(&cl, c->wait_ms, c->unreachable, r.seen, r.n, pending,
	    &why, &peer);
	if (v == PG_GO && why == PG_WAIT)
		v = poll_pending(t, &cl, &r, pending, &why, &peer, &rec, old,
		    oldlen);
	free(pending);
	if (v == PG_GO && (v = keep(t, &cl, &rec, &why)) == PG_GO) {
		if (still_counted(t, &rec, &why, &self)) {
			pg_round_free(&r);
			tool_decided(t, "%s: keep the claim: go", c->id);
			return PG_GO;
		}
		v = PG_SKIP_ACTIVE;
		if (why == PG_LOST_HELD)
			by = &self;
	}
	if (v != PG_GO && why == PG_KEEP)
		why = PG_LOST_SLOW_WRITE;
	withdraw(t, &rec, old, oldlen);
	pg_settle_text(why, by != NULL ? by : &r.seen[peer], text,
	    sizeof(text));
	if (worth_a_warning(why))
		tool_warn(t, "cluster %s: %s", c->id, text);
	else
		tool_decided(t, "%s: %s", c->id, text);
	pg_round_free(&r);
	return v;
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
	int64_t			 started, now;
	int			 ch, held, claim = 1, lockfd = -1, bad = 0;

	if (pg_clock(CLOCK_BOOTTIME, &started) == -1)
		started = INT64_MAX;	/* never "after it started" */

	argv[0] = (char *)getprogname();	/* getopt names it, not its path */
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
	 * A reader that went away (check -v 2>&1 | head) must not kill the check
	 * with its claim out: the write fails, the check goes on.
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
		tool_decided(&t, "%s: skip: a run on this node is still going", id);
		return PG_SKIP_LOCAL;
	}
	/* Another check of this cluster on this node is deciding: let it. */
	if (claim && (held = pg_claim_lock(&t.state, id, &lockfd)) != 1) {
		if (held == -1)
			tool_die_errno(EX_CANTCREAT, "%s/.%s.claim",
			    t.state.path, id);
		tool_decided(&t, "%s: skip: another check on this node is deciding",
		    id);
		return PG_SKIP_LOCAL;
	}
	/* Strict mode: etcd orders the claims (bin/etcd.c). */
	if (t.cluster->backend == PG_BACKEND_ETCD)
		return etcd_check(&t, claim);
	/* This node's status, as its serve tells peers: a hold, a failure. */
	if (pg_status_local(&t.state, t.cluster, t.cfg->node, &own) == -1) {
		tool_warn(&t, "cluster %s: this node's status cannot be read "
		    "(%s): its holds and failures are not known", id,
		    strerror(errno));
		ownp = NULL;
	}
	/*
	 * Activity in our own record after this check started: another
	 * check on this node, started with this one, kept its claim (one
	 * that withdrew put the record back) and released the claim lock
	 * before this one took it, as the fast rule's quick rounds allow; or
	 * its job has refreshed the record since. Skip as if it still held
	 * the lock. The time since the activity is used, not the claim, so
	 * that a check held up past the claim's horizon still sees it.
	 */
	if (claim && ownp != NULL && own.elapsed_ms != PG_NEVER &&
	    own.elapsed_ms < INT64_MAX / 1000000 &&
	    pg_clock(CLOCK_BOOTTIME, &now) == 0 &&
	    now - own.elapsed_ms * 1000000 > started) {
		tool_decided(&t, "%s: skip: another check on this node claimed the "
		    "round %" PRId64 "ms ago, as this one started", id,
		    own.elapsed_ms);
		return PG_SKIP_LOCAL;
	}
	/*
	 * A claim of another check on this node, still within its horizon:
	 * kept, its run about to start. A claim of ours would hide it from
	 * a peer's round 2, which would then take ours, later than its own,
	 * for the only activity here (doc/SAFETY.md, two checks on a node).
	 */
	if (claim && ownp != NULL && own.claim_ms >= 0) {
		tool_decided(&t, "%s: skip: another check on this node kept its "
		    "claim %" PRId64 "ms ago; its run is starting", id,
		    own.claim_ms);
		return PG_SKIP_LOCAL;
	}
	prev_check_ns = pg_prefer_prev_check(ownp);

	memset(&r, 0, sizeof(r));
	if (t.cluster->npeers > 0) {
		if (pg_peers_init() == -1)
			tool_die(EX_SOFTWARE, "libcurl cannot be initialised");
		ask(&t, &r, NULL);
	}
	/*
	 * Every node of a cluster must order claims by the same rule. With
	 * settle = 0 nothing orders them (pollguard.conf(5)): no rule to share.
	 */
	if (claim && t.cfg->settle_ms > 0 && (other = pg_settle_disagrees(t.cfg->settle_ms,
	    t.cfg->timeout_ms, r.seen, r.n)) < r.n)
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
		ch = claim_and_settle(&t, &r);
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
