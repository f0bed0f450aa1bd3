/* SPDX-License-Identifier: ISC */
/*
 * pollguard.pml: the peer protocol of pollguard 0.4 (pollguard(7), CLAIM
 * AND SETTLE, HANDOVER, PREFERRED NODE), for SPIN. README.md says how
 * it maps to the code; tests/model/run runs every configuration (-DCFG_*)
 * and every mutant (-DMUT_*).
 *
 * Time is a tick counter (one tick = W = settle/4) that the Clock
 * process advances; every other process may be held up between any two
 * of its steps while time runs. A step is one atomic block: what one
 * system call, or one answer of a serve, does at one moment.
 *
 * The property: never two nodes' jobs running at once while each of
 * the two checks that started them heard the other's serve (a check
 * that reached a peer in neither round went by "unreachable = run",
 * which admits it), unless one of the jobs went the wait time without
 * refreshing its activity (pollguard(7) admits that too). Per
 * configuration also: a check that read a hold, its own or a peer's,
 * never goes (CFG_hold); a lone healthy node goes (CFG_lone).
 */
#include "rule.pml"

/* Time, in ticks of W (README.md, "Time") */
#define SLEEP	3	/* settle/2, and the 1% as one tick more */
#define TO	1	/* timeout: an answer later than this after its
			   round began is "unreachable" */
#define HZ	9	/* claim horizon: 2 timeout + 1.5 settle + 1 s */
#define SLOW	7	/* too_slow: rounds longer than HZ - W - 50 ms */
#define MARG	2	/* still_counted: W and 50 ms of horizon left */

#define NOREC	-100	/* no record: "never" */
#define NOCLM	-100	/* no claim in the record */
#define NOCHK	-100	/* no previous check */

/* ---------------------------------------------------------------- */
/* Configurations (README.md says what each covers) */

#if defined(CFG_race3)
#define SIMPLE
#define SHIFTFREE
#define SIMSTART
#define NOLOSS
#define ONEREAD
#define NCHECKS	3
#define N	3
#define TMAX	5
#define WAIT	12
#elif defined(CFG_race2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	10
#define WAIT	12
#elif defined(CFG_mixed3)
#define SIMPLE
#define SHIFTFREE
#define SIMSTART
#define NOLOSS
#define ONEREAD
#define NCHECKS	3
#define N	3
#define TMAX	7
#define WAIT	12
#define V03_0
#elif defined(CFG_mixed2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	12
#define WAIT	14
#define V03_1
#elif defined(CFG_gateway2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	10
#define WAIT	12
#define GATEWAY
#elif defined(CFG_gateway3)
#define SIMPLE
#define SHIFTFREE
#define SIMSTART
#define NOLOSS
#define ONEREAD
#define NCHECKS	3
#define N	3
#define TMAX	6
#define WAIT	12
#define GATEWAY
#elif defined(CFG_twochecks)
#define SHIFTFREE
#define N	2
#define TMAX	4
#define WAIT	12
#define KINDS(n)	(id == 2)
#elif defined(CFG_restore)
#define N	2
#define TMAX	6
#define WAIT	12
#define STALENESS
#define NOLOSS
#elif defined(CFG_lockless)
#define N	2
#define TMAX	6
#define WAIT	12
#define STALENESS
#elif defined(CFG_handover)
#define SIMPLE
#define N	2
#define TMAX	11
#define WAIT	14
#define A_START	8	/* a checks late: b's claim may be over */
#elif defined(CFG_hold)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	6
#define WAIT	12
#define HOLD
#elif defined(CFG_yield)
#define ONECHECK
#define N	2
#define TMAX	8
#define WAIT	14
#define STALENESS
#elif defined(CFG_lone)
#define SIMPLE
#define SHIFTFREE
#define N	3
#define TMAX	10
#define WAIT	12
#define LONE
#else
#error "no configuration: -DCFG_<name>"
#endif

/*
 * SIMPLE: one check per node and nothing else on it: its first steps
 * (run lock, claim lock, own status) are one, and its job, once
 * started, runs to the end of time (the record stays fresh: TMAX <
 * WAIT).
 */
#ifdef SIMPLE
#define ONECHECK
#endif

/* too_slow can happen only in runs longer than SLOW */
#if TMAX > SLOW
#define TOOSLOW		(now - start1 > SLOW)
#define STARTED		start1
#define START1		start1 = now
#else
#define TOOSLOW		false
#define STARTED		start1
#define START1		start1 = 0
#endif

#define SLACKY	(HZ < WAIT / 4 -> HZ : WAIT / 4)	/* prefer slack */
#define ALL(n)	((((1 << N) - 1)) & ~(1 << (n)))

/* ---------------------------------------------------------------- */
/* Shared state, per node */

short	now;
byte	ver[N];			/* 3 or 4 */
bit	view[N * N];		/* view[q*N+p]: q reads p's status */

short	r_act[N];		/* the record's stamp (latest write) */
short	r_clm[N];		/* its claim moment */
byte	r_hz[N];		/* its horizon */
byte	r_own[N];		/* the check whose claim it is; 0: none */
bit	r_lock[N];		/* the record lock (.ID.rec) */
byte	claimlk[N];		/* the claim lock: the check holding it */
bit	runlk[N];		/* the run lock */
bit	o_run[N];		/* outcome: a run started, not ended */
bit	o_end[N];		/* outcome: a run ended */
short	o_endt[N];		/* its end */
short	o_begt[N];		/* its start */
byte	o_fail[N];		/* failures in a row */
bit	hold[N];
byte	yieldto[N];		/* checked: yields to node - 1; 0: no */
short	yieldt[N];		/* and since when */
short	prevchk[N];		/* checked: its previous check began */

/* the monitor */
byte	jobs[N];		/* jobs running */
bit	heard[N * N];		/* heard[n*N+m]: the check that started n's
				   job had an answer from m */
bit	gopend[N];		/* went; the job not started yet */
short	pend_dl[N];		/* ... and its claim's horizon ends then */
#ifdef STALENESS
short	jref[N];		/* a job's latest refresh */
bit	jstale[N];		/* a job went the wait without a refresh */
#define JREF(n)		jref[n] = now
#define FRESH(m)	!jstale[m]
#else
#define JREF(n)		skip
#define FRESH(m)	true
#endif

/* A claim within its horizon, or the stamp: what a serve reports */
#define INHZ(p)		(r_clm[p] != NOCLM && now < r_clm[p] + r_hz[p])
#define MOMENT(p)	(INHZ(p) -> r_clm[p] : r_act[p])
#define RUNNING(p)	(o_run[p] && runlk[p])
#define DIED(p)		(o_run[p] && !runlk[p])
#define OWNFAILED(p)	((o_fail[p] > 0 || DIED(p)) && o_end[p] && \
			 !RUNNING(p))

/*
 * The clock may not pass a go's horizon before its job has started;
 * NOLOSS: nor the timeout of a round whose answers are not all in
 * (every answer comes within the timeout).
 */
#define URGENT(p)	(gopend[p] && now + 1 >= pend_dl[p])
#ifdef NOLOSS
#define NOROUND		127
short	rdl[4];			/* per check: its round's deadline */
#define RSTART		rdl[id] = now + TO
#define REND		rdl[id] = NOROUND
#define LATE(i)		(now + 1 > rdl[i])
#define NOLATE		(!LATE(1) && !LATE(2) && !LATE(3))
#else
#define RSTART		skip
#define REND		skip
#define NOLATE		true
#endif
#if N > 2
#define NOURGENT	(!URGENT(0) && !URGENT(1) && !URGENT(2) && NOLATE)
#else
#define NOURGENT	(!URGENT(0) && !URGENT(1) && NOLATE)
#endif

/*
 * Time passes before any step of any process: TICK, at the start of
 * each atomic step, lets it pass by any number of ticks first (the same
 * timed runs as a clock process of its own, with fewer states).
 */
#ifdef STALENESS
#define STALE1(p) \
	if \
	:: jobs[p] > 0 && now - jref[p] >= WAIT -> jstale[p] = 1 \
	:: else \
	fi
#define STALEUPD	STALE1(0); STALE1(1)
#else
#define STALEUPD	skip
#endif
#if defined(SIMSTART)
/* cron started every check at the same moment, 0 */
#define BEGUN	(begun == NCHECKS)
byte	begun;
#define BEGIN	begun++
#elif defined(SHIFTFREE)
/* nothing happened before the first check began: it begins at 0 */
#define BEGUN	begun
bit	begun;
#define BEGIN	begun = 1
#else
#define BEGUN	true
#define BEGIN	skip
#endif
#define TICK \
	do \
	:: BEGUN && now < TMAX && NOURGENT -> now++; STALEUPD \
	:: break \
	od

/* ---------------------------------------------------------------- */
/* The serve of p, answering q, now (pg_status_serve, pg_status_local) */

inline serve(p, q, S, m)
{
	m = MOMENT(p);
	S.first = (q < p);
	if
	:: m == NOREC -> S.k = K_NEVER; S.act = 0
	:: else -> S.k = K_ELAPSED; S.act = (now - m < WAIT)
	fi;
	if
	:: view[q * N + p] ->
		S.hs = 1;
		S.dec = (claimlk[p] != 0);
		S.clm = INHZ(p);
		S.hold = hold[p];
		S.going = RUNNING(p);
		S.fail = (o_fail[p] > 0 || DIED(p));
		S.last = o_end[p];
		S.since = (o_end[p] && m != NOREC && m > o_endt[p]);
		S.cool = (o_end[p] && now - o_endt[p] < WAIT);
		S.el = (o_end[p] && (o_endt[p] > o_endt[q] ||
		    (o_endt[p] == o_endt[q] && p < q)));
		S.yme = (yieldto[p] == q + 1 && prevchk[q] != NOCHK &&
		    yieldt[p] <= prevchk[q] + SLACKY);
		S.yend = (o_end[p] && o_endt[p] > yieldt[p]);
		S.ybeg = (o_end[p] && o_begt[p] > yieldt[p])
	:: else
	fi
}

/*
 * One answer of a round that began at rst: unreachable when later than
 * the timeout (or, with FAULTS, lost). In round 2 (c != NOCLM) also the
 * lower bound of the moment it reports, relative to our claim c: sent
 * lies anywhere from rst to now (the stamp before the send), and 1 tick
 * more covers the 1 ms and the drift. MUT_sent_after: sent stamped
 * after the send, up to the round's deadline.
 */
inline ask(p, q, S, rst, c, m, x)
{
	if
	:: now - rst > TO -> S.k = K_UNREACH
#ifdef FAULTS
	:: now - rst <= TO -> S.k = K_UNREACH
#endif
	:: now - rst <= TO ->
		serve(p, q, S, m);
		if
		:: c != NOCLM && S.k == K_ELAPSED ->
#ifdef MUT_sent_after
			x = now - rst - TO;
#else
			x = 0;
#endif
			do
			:: x < now - rst + 1 -> x++
			:: break
			od;
			S.lo = m - c - x
		:: else
		fi
	fi
}

#define CLEAR(S) \
	S.k = 0; S.act = 0; S.hs = 0; S.hold = 0; S.going = 0; S.clm = 0; \
	S.fail = 0; S.last = 0; S.since = 0; S.cool = 0; S.el = 0; \
	S.yme = 0; S.yend = 0; S.ybeg = 0; S.dec = 0; S.ans1 = 0; \
	S.first = 0; S.lo = 0
#define CLEARTALLY(A) \
	A.hold = 0; A.act = 0; A.unr = 0; A.inv = 0; A.heard = 0; \
	A.nocool = 0; A.el = 0

/*
 * ONEREAD: the answers of one round are read at one moment, in one
 * step (the three-node configurations); otherwise each at its own.
 */
#ifdef ONEREAD
#define ROUNDLOOP	do :: mask == ALL(n) -> break :: else ->
#define ROUNDEND	; od
#else
#define ROUNDLOOP
#define ROUNDEND
#endif

/* what a check read, on replay (spin -t); rd: 1, 2 the rounds, 3 a wait */
#define SAY3(n, rd, p, S) \
	if \
	:: S.k == K_UNREACH -> \
		printf("@%d %c: round %d: %c unreachable\n", now, 'a' + n, \
		    rd, 'a' + p) \
	:: S.k == K_NEVER -> \
		printf("@%d %c: round %d: %c never active\n", now, 'a' + n, \
		    rd, 'a' + p) \
	:: S.k == K_ELAPSED -> \
		printf("@%d %c: round %d: %c elapsed %d (status %d claim %d deciding %d running %d hold %d)\n", \
		    now, 'a' + n, rd, 'a' + p, now - m, S.hs, S.clm, S.dec, \
		    S.going, S.hold) \
	:: else \
	fi
/* pick a peer of n not in mask */
#if N > 2
#define PICK(n, mask, p) \
	if \
	:: 0 != n && !(mask & 1) -> p = 0 \
	:: 1 != n && !(mask & 2) -> p = 1 \
	:: 2 != n && !(mask & 4) -> p = 2 \
	fi
#else
#define PICK(n, mask, p)	p = 1 - n
#endif

/* pg_state_touch: a refresh of the record, the claim kept in horizon */
#define REFRESH(n) \
	r_act[n] = now; r_own[n] = 0; \
	if \
	:: !INHZ(n) -> r_clm[n] = NOCLM; r_hz[n] = 0 \
	:: else \
	fi

/* the monitor: a job starts on n */
#define OVERLAP(n, m) (m != n && jobs[m] > 0 && FRESH(m) && \
		heard[n * N + m] && heard[m * N + n])
#if N > 2
#define JOBON(n) \
	printf("@%d %c: its job starts\n", now, 'a' + n); \
	assert(!OVERLAP(n, 0) && !OVERLAP(n, 1) && !OVERLAP(n, 2)); \
	jobs[n]++; JREF(n)
#else
#define JOBON(n) \
	printf("@%d %c: its job starts\n", now, 'a' + n); \
	assert(!OVERLAP(n, 0) && !OVERLAP(n, 1)); \
	jobs[n]++; JREF(n)
#endif

#ifdef FAILS
#define OUTCOME(n) \
	if \
	:: o_fail[n] = 0 \
	:: o_fail[n]++ \
	fi
#else
#define OUTCOME(n)	o_fail[n] = 0
#endif

/*
 * A run after a go (pollguard-touch), of kind K: 0 a job that starts
 * and runs to the end of time (where its kind cannot matter: the record
 * stays fresh, TMAX < WAIT); 1 "touch -- job" (run lock, refresh, fork,
 * outcome start, refreshes, refresh, outcome finish); 2 "touch -f" in a
 * pipeline (no lock, no outcome; the job runs from the check's exit and
 * refreshes as data comes); 3 a run whose start could not be recorded;
 * 4 a touch that dies while its job lives (the lock goes with it, the
 * outcome says running).
 */
#ifdef STALENESS
#define REFRESHES(n) \
	do \
	:: atomic { TICK; !r_lock[n] -> REFRESH(n); JREF(n) } \
	:: break \
	od
#define JOBTICK	TICK
#else
/* without staleness only the latest refresh can matter: at most one */
#define REFRESHES(n) \
	if \
	:: atomic { TICK; !r_lock[n] -> REFRESH(n) } \
	:: skip \
	fi
#define JOBTICK	skip
#endif

inline job(n, K, st)
{
	if
	:: K == 0 ->
		atomic {
			TICK;
			if
			:: runlk[n] -> gopend[n] = 0	/* exit 75 */
			:: else ->
				runlk[n] = 1; REFRESH(n); JOBON(n); o_run[n] = 1;
				gopend[n] = 0
			fi
		}
	:: K == 2 ->
		atomic { JOBTICK; JOBON(n); gopend[n] = 0 };
		REFRESHES(n);
		atomic { TICK; !r_lock[n] -> REFRESH(n); jobs[n]-- }
	:: else ->
		atomic {
			if
			:: runlk[n] -> gopend[n] = 0; goto jobdone
			:: else -> runlk[n] = 1
			fi
		};
		atomic { TICK; !r_lock[n] -> REFRESH(n); gopend[n] = 0 };
		atomic { JOBTICK; JOBON(n); st = now };
		if
		:: K != 3 ->
			atomic {
				o_fail[n] = o_fail[n] + o_run[n];
				o_run[n] = 1
			}
		:: else
		fi;
		if
		:: K == 4 ->
			runlk[n] = 0;
			jobs[n]--;	/* the orphan ends, some time */
			goto jobdone
		:: else
		fi;
		REFRESHES(n);
		jobs[n]--;
		atomic { TICK; !r_lock[n] -> REFRESH(n) };
		atomic {
			TICK;
			o_run[n] = 0; o_end[n] = 1; o_endt[n] = now;
			o_begt[n] = st; st = 0;
			OUTCOME(n)
		};
		runlk[n] = 0
	fi;
jobdone:
	st = 0
}

/*
 * The kinds of run a node may start: KINDS(n) all four, for the
 * configurations where they matter; else 0, or 1 when FULLJOB(n) (id:
 * the check's, in the caller).
 */
#ifndef KINDS
#define KINDS(n)	false
#endif
#ifndef FULLJOB
#define FULLJOB(n)	false
#endif
inline pickkind(n, K)
{
	if
	:: KINDS(n) -> K = 1
	:: KINDS(n) -> K = 2
	:: KINDS(n) -> K = 3
	:: KINDS(n) -> K = 4
	:: !KINDS(n) && FULLJOB(n) -> K = 1
	:: !KINDS(n) && !FULLJOB(n) -> K = 0
	fi
}

/*
 * What a check notes of an answer: whom it heard (the monitor), a hold
 * it read (CFG_hold), an answer lost to a timeout (CFG_lone).
 */
#ifdef HOLD
#define NOTEHOLD(p) \
	if \
	:: view[n * N + p] && hold[p] -> rdhold = rdhold | (1 << p) \
	:: else \
	fi
#else
#define NOTEHOLD(p)	skip
#endif
#ifdef LONE
#define NOTETMO		tmo = 1
#else
#define NOTETMO		skip
#endif
#define NOTE(p) \
	if \
	:: t.k != K_UNREACH -> hrd = hrd | (1 << p); NOTEHOLD(p) \
	:: else -> NOTETMO \
	fi

/*
 * still_counted (pg_still_counted, lib/local.c): this node's claim must
 * still be reported with MARG of its horizon left, or withdraw. The
 * rule before (MUT_still_failed, README.md, "Findings", F2): withdraw
 * only when this node's last run failed and nothing came since its end.
 */
#if !defined(MUT_still_failed) && !defined(MUT_no_self_test)
#define STILL_COUNTED(n, c, h) \
	m = MOMENT(n); \
	x = (INHZ(n) && c + h - now >= MARG); \
	if \
	:: !x -> late = 1; goto withdraw \
	:: else \
	fi
#elif defined(MUT_no_self_test)
#define STILL_COUNTED(n, c, h) \
	skip
#else
#define STILL_COUNTED(n, c, h) \
	m = MOMENT(n); \
	x = (INHZ(n) && c + h - now >= MARG); \
	if \
	:: OWNFAILED(n) && !x && \
	    !(o_end[n] && m != NOREC && m > o_endt[n]) -> goto withdraw \
	:: else \
	fi
#endif

/* ---------------------------------------------------------------- */
/*
 * A 0.4 check: pollguard-check (bin/pollguard-check.c, check() and
 * claim_and_settle()). id: which check (1..3), for the claim lock and
 * the record's owner. A peer's answer is read into t, weighed at once
 * by the rule (rule.pml) and forgotten: what the check keeps between
 * steps is the rule's tally.
 */

/* round 1: one answer */
inline r1_answer()
{
	PICK(n, mask, p);
	ask(p, n, t, rst, NOCLM, m, x);
	SAY3(n, 1, p, t);
	mask = mask | (1 << p);
	NOTE(p);
	decide_add(t, A);
	/* the sleep: a peer that may decide by 0.3's rule */
	if
#ifndef MUT_no_sleep
	:: !t.hs -> slept = 1
#endif
	:: else
	fi;
	CLEAR(t); m = 0; x = 0; p = 0
}

/* round 1: the verdict */
inline r1_end()
{
	decide_end(A, ownhold, owncool, 0, v);
	printf("@%d %c: round 1 says %d (0 go, 1 skip)\n", now, 'a' + n, v);
	CLEARTALLY(A); ownhold = 0; owncool = 0;
	a1 = hrd; rst = 0; REND;
	if
	:: v != V_GO -> claimlk[n] = 0
	:: else
	fi
}

/* round 2: one answer */
inline r2_answer()
{
	PICK(n, mask, p);
	ask(p, n, t, rst, c, m, x);
	t.ans1 = (a1 >> p) & 1;
	SAY3(n, 2, p, t);
	mask = mask | (1 << p);
	NOTE(p);
	if
	:: v != V_SKIP ->
		settle_peer(t, slept, vc, r);
		printf("@%d %c:   %c's claim no earlier than %d from ours (later %d, slept %d): %d (0 go on, 1 withdraw, 2 wait for it)\n",
		    now, 'a' + n, 'a' + p, t.lo, LATER(vc), slept, r);
		if
		:: r == 1 -> v = V_SKIP
		:: r == 2 -> pnd[p] = 1; wt = wt | 1
		:: r == 3 -> un = 1
		:: r == 4 -> inv = 1
		:: r == 5 -> wt = wt | 2
		:: else
		fi
	:: else
	fi;
	CLEAR(t); m = 0; x = 0; p = 0; r = 0
}

/* round 2: the verdict */
inline r2_end()
{
	tooslow = TOOSLOW;
	settle_end(tooslow, vc, un, inv, wt, 0, v);
	printf("@%d %c: round 2 says %d (0 keep, 1 withdraw, 9 wait)\n", now,
	    'a' + n, v);
	un = 0; inv = 0; wt = 0; rst = 0; REND
}

/* ONECHECK: the first steps are one */
#ifdef ONECHECK
#define CUT1	;
#else
#define CUT1	}; atomic { TICK;
#endif

proctype Check(byte n; byte id)
{
	Seen	t;
	Tally	A;
	short	start1, rst, c, oact, oclm, m, x;
	byte	vc, ohz, mask, hrd, a1, p, i, v, r, un, inv, wt, h, K, dxs;
	bit	slept, ownhold, owncool, tooslow, late, pnd[N];
#ifdef HOLD
	byte	rdhold;
#endif
#ifdef LONE
	bit	tmo;
#endif

	/* the run lock */
	atomic {
		TICK;
#ifdef A_START
		(n != 0 || now >= A_START);
#endif
		BEGIN;
		start1 = now;		/* when this check started */
		if
		:: runlk[n] -> goto done
		:: else
		fi;
		CUT1
		/* the claim lock, taken before round 1, held until exit */
		if
		:: claimlk[n] != 0 -> goto done
		:: else -> claimlk[n] = id
		fi;
		CUT1
		/* this node's status: a hold, a failure; its own record */
		ownhold = hold[n];
#ifdef HOLD
		if :: hold[n] -> rdhold = rdhold | (1 << n) :: else fi;
#endif
		owncool = (OWNFAILED(n) && now - o_endt[n] < WAIT);
		m = MOMENT(n);
		if
#ifndef MUT_no_after_start
		/* activity after this check started */
		:: m != NOREC && m > start1 -> claimlk[n] = 0; goto done
#endif
#if !defined(MUT_second_check) && !defined(MUT_claim_skip)
		/* a claim of another check, within its horizon */
		:: !(m != NOREC && m > start1) && INHZ(n) ->
			claimlk[n] = 0; goto done
#endif
		:: else
		fi;
		/* round 1 begins */
		m = 0; START1; rst = now; RSTART; mask = 0; hrd = 0
#ifdef ONEREAD
		; TICK;
		do
		:: mask == ALL(n) -> break
		:: else -> r1_answer()
		od;
		r1_end()
#endif
	};
#ifndef ONEREAD
	do
	:: mask == ALL(n) -> break
	:: mask != ALL(n) && (A.act || A.hold) ->
		/* a peer active or holding: the rest cannot matter */
		atomic { r1_end(); hrd = 0 };
		break
	:: else ->
		atomic {
			TICK;
			r1_answer();
			if
			:: mask == ALL(n) -> r1_end()
			:: else
			fi
		}
	od;
#endif
	if
	:: v != V_GO -> goto done
	:: else
	fi;

	/* the claim (pg_state_claim): clock, rename, clock */
	atomic {
		TICK;
		!r_lock[n] -> r_lock[n] = 1;
		c = now; oact = r_act[n]; oclm = r_clm[n]; ohz = r_hz[n];
		printf("@%d %c: claims (check %d)\n", now, 'a' + n, id)
	};
	atomic {
		r_act[n] = c; r_clm[n] = c; r_hz[n] = HZ; r_own[n] = id;
		printf("@%d %c: its claim is visible\n", now, 'a' + n);
#ifndef SIMPLE
	};
	atomic {
		TICK;
#endif
		vc = now - c; r_lock[n] = 0
	};

	/* the sleep, when a peer may decide by 0.3's rule; round 2 */
	atomic {
		TICK;
		(!slept || now >= c + vc + SLEEP) -> rst = now; RSTART; mask = 0
#ifdef ONEREAD
		; TICK;
		do
		:: mask == ALL(n) -> break
		:: else -> r2_answer()
		od;
		r2_end()
#endif
	};
#ifndef ONEREAD
	do
	:: mask == ALL(n) -> break
	:: mask != ALL(n) && v == V_SKIP ->
		/* withdraw: the rest cannot matter */
		atomic { r2_end() };
		break
	:: else ->
		atomic {
			TICK;
			r2_answer();
			if
			:: mask == ALL(n) -> r2_end()
			:: else
			fi
		}
	od;
#endif

	/*
	 * pg_settle_poll: ask the pending peers, all at once, until each
	 * has decided. A serve reads deciding before the record.
	 */
	do
	:: v != V_WAIT -> break
	:: v == V_WAIT ->
		atomic {
			TICK;
			rst = now; RSTART; v = V_GO;
			i = 0;
			do
			:: i >= N -> break
			:: i < N && pnd[i] ->
				dxs = dxs | ((claimlk[i] != 0) << i); i++
			:: else -> i++
			od;
			i = 0
		};
		atomic {
			TICK;
			i = 0;
			do
			:: i >= N -> break
			:: i < N && pnd[i] ->
				ask(i, n, t, rst, NOCLM, m, x);
				t.dec = (dxs >> i) & 1;
				SAY3(n, 3, i, t);
				NOTE(i);
				poll_peer(t, r);
				if
				:: r == 1 -> v = V_SKIP
				:: r == 2 -> wt = 1
				:: else -> pnd[i] = 0
				fi;
				CLEAR(t); m = 0; x = 0; r = 0; i++
			:: else -> i++
			od;
			i = 0; dxs = 0;
			tooslow = TOOSLOW;
			poll_end(tooslow, wt, v);
			printf("@%d %c: the wait says %d (0 keep, 1 withdraw, 9 wait)\n",
			    now, 'a' + n, v);
			wt = 0; rst = 0; REND
		}
	od;
	if
	:: v != V_GO -> goto withdraw
	:: else
	fi;

	/* keep: lengthen the horizon after a slow write (keep()) */
#ifndef MUT_no_lengthen
	h = HZ + (vc > W -> vc - W : 0);
#else
	h = HZ;
#endif
	if
	:: h >= WAIT -> goto withdraw
	:: h > HZ ->
		atomic {
			!r_lock[n] ->
			if
#ifndef MUT_lengthen_late
			/* only while its first horizon lasts: a peer that read
			   the record after it saw no claim (README.md,
			   "Findings", F3) */
			:: r_own[n] == id && INHZ(n) -> r_hz[n] = h
			:: r_own[n] == id && !INHZ(n) -> late = 1;
				goto withdraw
#else
			:: r_own[n] == id -> r_hz[n] = h
#endif
			:: else -> goto withdraw
			fi
		}
	:: else
	fi;

	/* still_counted: this node's own status, as its serve reports it */
	atomic {
		TICK;
#ifdef HOLD
		if :: hold[n] -> rdhold = rdhold | (1 << n) :: else fi;
#endif
		if
#ifndef MUT_no_own_hold
		:: hold[n] -> goto withdraw
#endif
		:: else ->
			STILL_COUNTED(n, c, h)
		fi;
		/* go */
#ifdef HOLD
		assert(rdhold == 0);
#endif
		i = 0;
		do
		:: i >= N -> break
		:: else -> heard[n * N + i] = (hrd >> i) & 1; i++
		od;
		gopend[n] = 1; pend_dl[n] = c + h;
		printf("@%d %c: check %d goes (exit 0)\n", now, 'a' + n, id);
#ifndef SIMPLE
	};
	atomic {
#endif
		claimlk[n] = 0;		/* exit 0 */
		start1 = 0; c = 0; oact = 0; oclm = 0; m = 0; x = 0; vc = 0;
		ohz = 0; mask = 0; hrd = 0; a1 = 0; p = 0; i = 0; v = 0; h = 0;
		slept = 0; tooslow = 0
	};
	pickkind(n, K);
	job(n, K, c);
	goto done;

withdraw:
	atomic {
		!r_lock[n] ->
		printf("@%d %c: check %d withdraws (the record is its claim: %d)\n",
		    now, 'a' + n, id, r_own[n] == id);
		if
#ifdef MUT_restore_always
		:: true ->
#else
		:: r_own[n] == id ->
#endif
			r_act[n] = oact; r_clm[n] = oclm; r_hz[n] = ohz;
			r_own[n] = 0
		:: else
		fi
	};
	claimlk[n] = 0;
#ifdef LONE
	/* a lone healthy node goes, unless held up past a limit: its
	   rounds too slow, its claim's horizon (nearly) over at the last
	   step, or an answer lost to a timeout */
	assert(tooslow || h >= WAIT || tmo || late);
#endif
done:
	skip;
	d_step {
		CLEARTALLY(A);
		start1 = 0; rst = 0; c = 0; oact = 0; oclm = 0; m = 0; x = 0;
		vc = 0; ohz = 0; mask = 0; hrd = 0; a1 = 0; p = 0; i = 0;
		v = 0; h = 0; K = 0; slept = 0; ownhold = 0; owncool = 0;
		tooslow = 0; late = 0; pnd[0] = 0; pnd[1] = 0; REND;
#if N > 2
		pnd[2] = 0;
#endif
#ifdef HOLD
		rdhold = 0;
#endif
#ifdef LONE
		tmo = 0;
#endif
		skip
	}
}

/* ---------------------------------------------------------------- */
/* A 0.3 check (1b51b3c): elapsed only, always the sleep, 0.3's rule */

inline o3_r1_answer()
{
	PICK(n, mask, p);
	ask(p, n, t, rst, NOCLM, m, x);
	mask = mask | (1 << p);
	if
	:: t.k != K_UNREACH -> hrd = hrd | (1 << p)
	:: else
	fi;
	if
	:: t.k == K_ELAPSED && t.act -> v = V_SKIP
	:: else
	fi;
	CLEAR(t); m = 0; x = 0; p = 0;
	if
	:: mask == ALL(n) -> a1 = hrd; rst = 0; REND
	:: else
	fi
}

inline o3_r2_answer()
{
	PICK(n, mask, p);
	ask(p, n, t, rst, c, m, x);
	t.ans1 = (a1 >> p) & 1;
	mask = mask | (1 << p);
	if
	:: t.k != K_UNREACH -> hrd = hrd | (1 << p)
	:: else
	fi;
	settle03_peer(t, r);
	if
	:: r == 1 -> v = V_SKIP
	:: else
	fi;
	CLEAR(t); m = 0; x = 0; p = 0; r = 0;
	if
	:: mask == ALL(n) ->
		if
		:: TOOSLOW || vc > W -> v = V_SKIP
		:: else
		fi;
		rst = 0; REND
	:: else
	fi
}

proctype Check03(byte n; byte id)
{
	Seen	t;
	short	start1, rst, c, oact, oclm, m, x;
	byte	vc, ohz, mask, hrd, a1, p, v, r, K;

	atomic {
		TICK;
		BEGIN;
		if
		:: runlk[n] -> goto done
		:: else
		fi;
		start1 = now; START1; rst = now; RSTART; mask = 0; hrd = 0
#ifdef ONEREAD
		; TICK;
		do
		:: mask == ALL(n) -> break
		:: else -> o3_r1_answer()
		od
#endif
	};
#ifndef ONEREAD
	do
	:: mask == ALL(n) -> break
	:: else -> atomic { TICK; o3_r1_answer() }
	od;
#endif
	if
	:: v != V_GO -> goto done
	:: else
	fi;
	atomic {
		TICK;
		!r_lock[n] -> r_lock[n] = 1;
		c = now; oact = r_act[n]; oclm = r_clm[n]; ohz = r_hz[n];
		printf("@%d %c: claims (check %d)\n", now, 'a' + n, id)
	};
	atomic {
		r_act[n] = c; r_clm[n] = c; r_hz[n] = HZ; r_own[n] = id;
		printf("@%d %c: its claim is visible\n", now, 'a' + n);
#ifndef SIMPLE
	};
	atomic {
		TICK;
#endif
		vc = now - c; r_lock[n] = 0
	};
	atomic {
		TICK;
		now >= c + vc + SLEEP -> rst = now; RSTART; mask = 0
#ifdef ONEREAD
		; TICK;
		do
		:: mask == ALL(n) -> break
		:: else -> o3_r2_answer()
		od
#endif
	};
#ifndef ONEREAD
	do
	:: mask == ALL(n) -> break
	:: else -> atomic { TICK; o3_r2_answer() }
	od;
#endif
	if
	:: v != V_GO -> goto withdraw
	:: else
	fi;
	atomic {
		p = 0;
		do
		:: p >= N -> break
		:: else -> heard[n * N + p] = (hrd >> p) & 1; p++
		od;
		gopend[n] = 1; pend_dl[n] = c + HZ;
		printf("@%d %c: the 0.3 check goes\n", now, 'a' + n);
		start1 = 0; c = 0; oact = 0; oclm = 0; vc = 0; ohz = 0;
		mask = 0; hrd = 0; a1 = 0; v = 0; p = 0
	};
	K = 0;
	job(n, K, c);
	goto done;
withdraw:
	atomic {
		!r_lock[n] ->
		printf("@%d %c: the 0.3 check withdraws\n", now, 'a' + n);
		if
		:: r_own[n] == id ->
			r_act[n] = oact; r_clm[n] = oclm; r_hz[n] = ohz;
			r_own[n] = 0
		:: else
		fi
	};
done:
	skip;
	d_step {
		start1 = 0; rst = 0; c = 0; oact = 0; oclm = 0; vc = 0;
		ohz = 0; mask = 0; hrd = 0; a1 = 0; v = 0; K = 0; REND
	}
}

/* A run that was going when the model begins, of kind K (job()) */
proctype Running(byte n; byte K)
{
	if
	:: K == 2 ->
		do
		:: atomic { TICK; !r_lock[n] -> REFRESH(n); JREF(n) }
		:: break
		od;
		atomic { TICK; !r_lock[n] -> REFRESH(n); jobs[n]-- }
	:: K == 4 ->
		jobs[n]--
	:: else ->
		do
		:: atomic { TICK; !r_lock[n] -> REFRESH(n); JREF(n) }
		:: break
		od;
		jobs[n]--;
		atomic { TICK; !r_lock[n] -> REFRESH(n) };
		atomic {
			TICK;
			o_run[n] = 0; o_end[n] = 1; o_endt[n] = now;
			o_begt[n] = -9;
			OUTCOME(n)
		};
		runlk[n] = 0
	fi
}

/*
 * A check that kept its claim (c, horizon h), held up since before its
 * last step: still_counted, then the go, at any moment.
 */
proctype Held(byte n; byte id; short c)
{
	byte	K, h;
	short	m, x;
	bit	late;

	h = HZ;
	atomic {
		TICK;
		STILL_COUNTED(n, c, h);
		printf("@%d %c: its held check %d goes (exit 0)\n", now,
		    'a' + n, id);
		heard[n * N + 0] = 1; heard[n * N + 1] = 1;
		gopend[n] = 1; pend_dl[n] = c + h;
		claimlk[n] = 0
	};
	K = 1;
	job(n, K, c);
	goto done;
withdraw:
	atomic {
		printf("@%d %c: its held check %d withdraws\n", now, 'a' + n,
		    id);
		/* its claim is long over: nothing to restore */
		claimlk[n] = 0
	};
done:
	skip
}

/*
 * A run on n started by hand (pollguard-touch -- job, no check), at any
 * moment, that fails: n's status says its last run failed. Its job is
 * not one the protocol orders (no check began it): not counted.
 */
proctype Manual(byte n)
{
	atomic {
		TICK;
		!runlk[n] && !r_lock[n] ->
		runlk[n] = 1; REFRESH(n);
		o_fail[n] = o_fail[n] + o_run[n]; o_run[n] = 1
	};
	atomic {
		TICK;
		!r_lock[n] ->
		REFRESH(n);
		o_run[n] = 0; o_end[n] = 1; o_endt[n] = now; o_fail[n]++;
		runlk[n] = 0;
		printf("@%d %c: a run by hand fails\n", now, 'a' + n)
	}
}

/* An operator puts a hold on one node, at any moment */
proctype Holder()
{
	if
	:: hold[0] = 1
	:: hold[1] = 1
	fi
}

/* ---------------------------------------------------------------- */

init
{
	byte	i, q, kind;

	atomic {
#ifdef NOLOSS
		rdl[0] = NOROUND; rdl[1] = NOROUND; rdl[2] = NOROUND;
		rdl[3] = NOROUND;
#endif
		i = 0;
		do
		:: i < N ->
			ver[i] = 4; r_act[i] = -WAIT; r_clm[i] = NOCLM;
			o_endt[i] = NOREC; o_begt[i] = NOREC;
			yieldt[i] = NOCHK; prevchk[i] = NOCHK; i++
		:: else -> break
		od;
#ifdef V03_0
		ver[0] = 3;
#endif
#ifdef V03_1
		ver[1] = 3;
#endif
		i = 0;
		do
		:: i < N ->
			q = 0;
			do
			:: q < N ->
				view[q * N + i] = (ver[i] == 4 && ver[q] == 4 &&
				    q != i);
				q++
			:: else -> break
			od;
			i++
		:: else -> break
		od;
#ifdef GATEWAY
		view[0 * N + 1] = 0;	/* a sees b through the gateway */
#endif

#if defined(CFG_race3) || defined(CFG_gateway3)
		run Check(0, 1); run Check(1, 2); run Check(2, 3)
#elif defined(CFG_race2) || defined(CFG_gateway2)
		run Check(0, 1); run Check(1, 2)
#elif defined(CFG_mixed3)
		run Check03(0, 1); run Check(1, 2); run Check(2, 3)
#elif defined(CFG_mixed2)
		run Check(0, 1); run Check03(1, 2)
#elif defined(CFG_twochecks)
		run Check(0, 1); run Check(1, 2); run Check(1, 3)
#elif defined(CFG_restore)
		/* b's pipeline: its last refresh 4 ticks short of the wait */
		r_act[1] = 4 - WAIT; jobs[1] = 1; jref[1] = 4 - WAIT;
		heard[1 * N + 0] = 1;
		run Running(1, 2); run Check(1, 2); run Check(0, 1)
#elif defined(CFG_lockless)
		/*
		 * b runs a job without the run lock: a pipeline, or a job
		 * whose pollguard-touch died; its last refresh 4 ticks short
		 * of the wait
		 */
		r_act[1] = 4 - WAIT; jobs[1] = 1; jref[1] = 4 - WAIT;
		heard[1 * N + 0] = 1;
		if
		:: run Running(1, 2)
		:: o_run[1] = 1; run Running(1, 4)
		fi;
		run Check(1, 2); run Check(0, 1)
#elif defined(CFG_handover)
		/* a run on b, by hand, that fails: b's status says failed */
		run Manual(1); run Check(0, 1); run Check(1, 2)
#elif defined(CFG_hold)
		run Holder(); run Check(0, 1); run Check(1, 2)
#elif defined(CFG_yield)
		/*
		 * S (b) decided at -10 to yield to P (a), at the check that
		 * claimed its last run (that claim's horizon is over); P's
		 * previous check began at -11. S's run before ended at -14.
		 */
		yieldto[1] = 1; yieldt[1] = -10; prevchk[0] = -11;
		r_act[1] = -1; o_end[1] = 1; o_endt[1] = -14; o_begt[1] = -16;
		heard[1 * N + 0] = 1;
		if
		:: kind = 1; runlk[1] = 1; o_run[1] = 1	/* touch -- job */
		:: kind = 2				/* touch -f */
		:: kind = 3; runlk[1] = 1		/* start not recorded */
		:: kind = 4; o_run[1] = 1; r_act[1] = -9	/* touch died */
		:: kind = 5; claimlk[1] = 9; r_act[1] = -10	/* held check */
		:: kind = 6; o_endt[1] = -3; o_begt[1] = -9;	/* run over */
			r_act[1] = -3
		:: kind = 7; o_endt[1] = -3; o_begt[1] = -9;	/* run over, */
			r_act[1] = -1	/* then a touch -f pipeline */
		:: kind = 8; claimlk[1] = 9; r_act[1] = -9;	/* held */
			o_begt[1] = -10; o_endt[1] = -9	/* check, a run by */
			/* hand in its window: begun at the yield, over */
		fi;
		if
		:: kind <= 4 ->
			jobs[1] = 1; jref[1] = r_act[1]; run Running(1, kind)
		:: kind == 7 ->
			jobs[1] = 1; jref[1] = r_act[1]; run Running(1, 2)
		:: kind == 5 || kind == 8 -> run Held(1, 9, -10)
		:: else
		fi;
		run Check(0, 1)
#elif defined(CFG_lone)
		run Check(0, 1)
#endif
	}
}
