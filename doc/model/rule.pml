/* SPDX-License-Identifier: ISC */
/*
 * rule.pml: the decision rules of pollguard-check, written once, for
 * the protocol model (pollguard.pml) and for the driver that compares
 * them with the library (ruledrv.pml, tests/model/rulecmp.c).
 *
 *	decide		pg_decide (lib/decide.c), round 1
 *	settle		pg_settle, round 2
 *	settle_poll	pg_settle_poll, the waits for pending peers
 *	hig, yig	pg_handover_ignores, pg_yield_ignores (decide.c)
 *	settle03	the rule of a 0.3 node (round 2), model only
 *
 * Each peer's answer is a Seen: the abstract input. Time is in ticks of
 * W = settle/4 (README.md, "Time"). A verdict is one of V_*.
 *
 * Mutants (make model-mutants) and ablations (tests/model/run -a) are
 * compiled in with -DMUT_<name>; see README.md.
 */

#define W	1		/* settle/4 */
#define D	4		/* settle: pg_settle_old_ns, settle <= 3.1 s */

/* Kinds of answer: enum pg_answer_kind */
#define K_ELAPSED	0
#define K_NEVER		1
#define K_UNREACH	2
#define K_INVALID	3

/* Verdicts */
#define V_GO		0	/* round 1: go; settle: keep */
#define V_SKIP		1	/* PG_SKIP_ACTIVE: skip, or withdraw */
#define V_SKIPU		3	/* PG_SKIP_UNREACHABLE */
#define V_REFUSE	76	/* PG_REFUSE_INVALID */
#define V_WAIT		9	/* settle: PG_GO with PG_WAIT, pending peers */

typedef Seen {
	byte	k;		/* K_* */
	bit	act;		/* K_ELAPSED and elapsed < wait */
	bit	hs;		/* a status answer (0.4, announces deciding) */
	bit	hold;		/* its status shows a hold */
	bit	going;		/* running */
	bit	clm;		/* a claim reported (within its horizon) */
	bit	fail;		/* failures > 0 */
	bit	last;		/* a run ended (last_*) */
	bit	since;		/* activity after that end, beyond the slack */
	bit	cool;		/* that end less than cooldown ago */
	bit	el;		/* that end after ours (hand_over's "last") */
	bit	yme;		/* it yields to us, decided no later than
				   slack after our previous check */
	bit	yend;		/* its last recorded run ended after the yield */
	bit	ybeg;		/* ... and began after it */
	bit	dec;		/* deciding: a check there holds the claim lock */
	bit	ans1;		/* round 2: it answered round 1 */
	bit	first;		/* our name sorts before its name */
	short	lo;		/* round 2: the earliest its claim (or latest
				   activity) can lie, relative to our claim */
};

/* pg_status_failed */
#define FAILED(s)	(s.fail && s.last && !s.going)

/* pg_handover_ignores, on_failure = handover */
#ifdef MUT_no_handover_since
#define HIG(s)	(s.hs && s.k == K_ELAPSED && FAILED(s) && !s.clm)
#else
#define HIG(s)	(s.hs && s.k == K_ELAPSED && FAILED(s) && !s.clm && \
		 !s.since)
#endif

/*
 * pg_yield_ignores. The rule of issue 26: only S's own record of a run
 * that began and ended after the yield, with nothing recorded since,
 * no run going and no claim, lets P not count S. MUT_yield_old: the old
 * rule, "no run going and no claim".
 */
#if defined(MUT_yield_old)
#define YIG(s)	(s.hs && s.k == K_ELAPSED && s.yme && !s.going && \
		 !s.clm)
#elif defined(MUT_yield_no_since)
#define YIG(s)	(s.hs && s.k == K_ELAPSED && s.yme && !s.going && \
		 !s.clm && s.last && s.yend && s.ybeg)
#elif defined(MUT_yield_no_begin)
#define YIG(s)	(s.hs && s.k == K_ELAPSED && s.yme && !s.going && \
		 !s.clm && s.last && s.yend && !s.since)
#else
#define YIG(s)	(s.hs && s.k == K_ELAPSED && s.yme && !s.going && \
		 !s.clm && s.last && s.yend && s.ybeg && !s.since)
#endif

/* later = max(W, visible - claim) */
#define LATER(vc)	((vc) > W -> (vc) : W)

/*
 * The margin against a peer that shows no status: D, for a real 0.3.0
 * check held up to D between writing its question and stamping it
 * (doc/SAFETY.md, section 4). MUT_old03: none, as 0.4.0.
 */
#ifdef MUT_old03
#define OLD(s)		0
#else
#define OLD(s)		(s.hs -> 0 : D)
#endif

#define ANSWERED(s)	(s.k == K_ELAPSED || s.k == K_NEVER)
/* Active as round 2 and the polls count it */
#define COUNTS(s)	(s.k == K_ELAPSED && s.act && !HIG(s) && !YIG(s))
/* pg_status_cooldown */
#define COOLING(s)	(FAILED(s) && s.cool)

/*
 * pg_decide: round 1, one peer at a time (its verdict does not depend
 * on the order of the peers). decide_add adds peer s to the tally A;
 * decide_end gives the verdict v from A and this node's own status
 * (ownhold; owncool: its last run failed less than cooldown ago).
 * policy_skip: unreachable = skip.
 */
typedef Tally {
	bit	hold;		/* a peer that answered shows a hold */
	bit	act;		/* a peer counts as active */
	bit	unr;		/* a peer unreachable */
	bit	inv;		/* a peer answered nonsense */
	bit	heard;		/* hand_over: a peer answered */
	bit	nocool;		/* ... one not in cooldown (or no status) */
	bit	el;		/* ... one in cooldown whose run ended after
				   ours */
};

inline decide_add(s, A)
{
	if
	:: ANSWERED(s) ->
		A.heard = 1;
		if
		:: s.hs && s.hold -> A.hold = 1
		:: else
		fi;
		if
		:: COUNTS(s) -> A.act = 1
		:: else
		fi;
		if
		:: !s.hs || !COOLING(s) -> A.nocool = 1
		:: else ->
			if
			:: s.el -> A.el = 1
			:: else
			fi
		fi
	:: s.k == K_UNREACH -> A.unr = 1
	:: s.k == K_INVALID -> A.inv = 1
	fi
}

inline decide_end(A, ownhold, owncool, policy_skip, v)
{
	if
	:: ownhold || A.hold || A.act -> v = V_SKIP
	/* hand_over, with this node in cooldown */
	:: !(ownhold || A.hold || A.act) && owncool &&
	    (A.nocool || (A.heard && !A.el)) -> v = V_SKIP
	:: else ->
		if
		:: A.inv -> v = V_REFUSE
		:: !A.inv && A.unr && policy_skip -> v = V_SKIPU
		:: else -> v = V_GO
		fi
	fi
}

/*
 * One peer of pg_settle. s: its round-2 answer; slept; vc: visible -
 * claim (ticks). Sets r: 0 go on (not counted, ignored, or unreachable
 * as never), 1 withdraw, 2 pending, 3 unreachable (policy), 4 invalid,
 * 5 (MUT_gateway only) go on, an active peer of the settle rule.
 */
inline settle_peer(s, slept, vc, r)
{
	if
#ifndef MUT_no_hold2
	:: ANSWERED(s) && s.hs && s.hold -> r = 1
#endif
	:: s.k == K_UNREACH && s.ans1 ->
#ifdef MUT_no_vanished
		r = 3
#else
		r = 1
#endif
	:: s.k == K_UNREACH && !s.ans1 -> r = 3
	:: s.k == K_INVALID -> r = 4
	:: else ->
		if
		:: !COUNTS(s) -> r = 0
#if defined(MUT_unseen_claim)
		/* the rule before (README.md, "Findings", F1): a peer not
		   reached in round 1 ordered by the claim it reports */
		:: COUNTS(s) && !s.ans1 && !(s.hs && s.clm) -> r = 1
		:: COUNTS(s) && (s.ans1 || (s.hs && s.clm)) ->
#elif !defined(MUT_no_unseen)
		/* a peer not reached in round 1, active now: withdraw */
		:: COUNTS(s) && !s.ans1 -> r = 1
		:: COUNTS(s) && s.ans1 ->
#else
		:: COUNTS(s) ->
#endif
#ifdef MUT_gateway
			/*
			 * The old rule (before 6f58c49), chosen per peer by
			 * what this node sees of it: the fast rule toward a
			 * peer announcing deciding, the settle rule toward
			 * one without status.
			 */
			if
			:: s.hs && s.lo > vc -> r = 0
			:: s.hs && !(s.lo > vc) && s.first -> r = 2
			:: s.hs && !(s.lo > vc) && !s.first -> r = 1
			:: !s.hs && !slept -> r = 1
			:: !s.hs && slept && (s.lo > W ||
			    (s.lo >= -W && s.first)) -> r = 5
			:: else -> r = 1
			fi
#else
			if
#ifndef MUT_no_rule_sleep
			:: !slept && !s.hs -> r = 1
#endif
			:: else ->
				if
#if defined(MUT_later_vc)
				:: s.lo > vc + OLD(s) -> r = 0
#elif defined(MUT_later_w)
				:: s.lo > W + OLD(s) -> r = 0
#else
				:: s.lo > LATER(vc) + OLD(s) -> r = 0
#endif
				:: else ->
					if
#ifndef MUT_no_pending
					:: s.hs && s.first -> r = 2
#endif
					:: else -> r = 1
					fi
				fi
			fi
#endif
		fi
	fi
}

/*
 * pg_settle, one peer at a time: settle_peer (above) gives each peer's
 * r; the caller notes 1 (withdraw: v = V_SKIP) at once, 2 (pending) in
 * its pending set and in wt, 3 and 4 in un and inv. settle_end: the
 * verdict v. tooslow: the rounds took longer than the horizon allows
 * (too_slow). wt: 1 some peer pending; 2 (MUT_gateway) an active peer
 * of the old settle rule.
 */
inline settle_end(tooslow, vc, un, inv, wt, policy_skip, v)
{
	if
	:: v == V_SKIP
#ifndef MUT_no_too_slow
	:: v != V_SKIP && tooslow -> v = V_SKIP
#endif
#ifdef MUT_gateway
	/* the old rule's slow write, toward a peer of the settle rule */
	:: v != V_SKIP && !tooslow && (wt & 2) && vc > W -> v = V_SKIP
#endif
	:: else ->
		if
		:: inv -> v = V_REFUSE
		:: !inv && un && policy_skip -> v = V_SKIPU
		:: !inv && !(un && policy_skip) && (wt & 1) -> v = V_WAIT
		:: else -> v = V_GO
		fi
	fi
}

/*
 * pg_settle_poll, one pending peer at a time: s its answer to the
 * poll. r: 1 withdraw, 2 still deciding, 0 it withdrew (no longer
 * pending). poll_end: v from tooslow and whether some r was 1 (the
 * caller set v = V_SKIP) or 2 (wt).
 */
inline poll_peer(s, r)
{
	if
	:: !ANSWERED(s) || !s.hs -> r = 1
	:: ANSWERED(s) && s.hs && s.hold -> r = 1
	:: ANSWERED(s) && s.hs && !s.hold && s.dec -> r = 2
	:: ANSWERED(s) && s.hs && !s.hold && !s.dec && COUNTS(s) -> r = 1
	:: ANSWERED(s) && s.hs && !s.hold && !s.dec && !COUNTS(s) -> r = 0
	fi
}

inline poll_end(tooslow, wt, v)
{
	if
	:: tooslow || v == V_SKIP -> v = V_SKIP
	:: else ->
		if
		:: wt -> v = V_WAIT
		:: else -> v = V_GO
		fi
	fi
}

/*
 * A 0.3 node's round 2 (model only), as 0.3.0 (1b51b3c) decides, one
 * peer at a time: r 1 withdraw, 0 go on. An active peer: its claim more
 * than W later, or within W and our name first: go on; else withdraw. A
 * peer that answered round 1 and not round 2: withdraw. It also
 * withdraws when its claim took more than W to become visible, or the
 * rounds too long (the caller). It always slept; it publishes no status
 * and knows no hold, handover or deciding; its bound on a claim has no
 * drift, and its send is stamped after the write (pollguard.pml,
 * SENTMAX). A peer active in round 2 that it could not reach in round 1
 * is ordered like any other (O3_FIXED: 0.4.0's fix, withdraw).
 */
inline settle03_peer(s, r)
{
	if
	:: s.k == K_UNREACH && s.ans1 -> r = 1
	:: s.k == K_ELAPSED && s.act ->
		if
#ifdef O3_FIXED
		:: !s.ans1 -> r = 1
		:: s.ans1 && (s.lo > W || (s.lo >= -W && s.first)) -> r = 0
#else
		:: s.lo > W || (s.lo >= -W && s.first) -> r = 0
#endif
		:: else -> r = 1
		fi
	:: else -> r = 0
	fi
}
