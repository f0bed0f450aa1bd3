/* SPDX-License-Identifier: ISC */
/*
 * pollguard.pml: the peer protocol of pollguard 0.5 (pollguard(7), CLAIM
 * AND SETTLE, HANDOVER, PREFERRED NODE), for SPIN. README.md says how
 * it maps to the code; tests/model/run runs every configuration (-DCFG_*)
 * and every mutant (-DMUT_*).
 *
 * Time is a tick counter (one tick = W = settle/4) that any process may
 * advance before any of its steps: every process may be held up between
 * any two of its steps while time runs. A step is one atomic block: what
 * one system call, or one answer of a serve, does at one moment. Each
 * node reads its own clock (LNOW), which may run fast or slow (RATES).
 *
 * The property: never two nodes' jobs running at once while each of
 * the two checks that started them heard the other's serve (a check
 * that reached a peer in neither round went by "unreachable = run",
 * which admits it; a 0.3.0 check that did not reach it in round 1, by
 * 0.3.0's rule; an answer a cache kept of a 0.4 serve cannot be told
 * from a fresh one), unless one of the jobs went the wait time without
 * refreshing its activity (pollguard(7) admits that too). Per
 * configuration also: a check that read a hold, its own or a peer's,
 * never goes (CFG_hold); a lone healthy node goes (CFG_lone).
 */
#include "rule.pml"

/*
 * Time, in ticks of W (README.md, "Time"). The ratio of settle to
 * timeout: 4 to 1 (settle 2 s, timeout 500 ms: W = 500 ms), or with
 * RATIO_DEFAULT the defaults, 1 to 4 (500 ms, 2 s: W = 125 ms).
 */
#ifdef RATIO_DEFAULT
#define TO	16	/* timeout: an answer later than this after its
			   round began is "unreachable" */
#define HZ	46	/* claim horizon: 2 timeout + 1.5 settle + 1 s */
#define SLOWC	4455	/* too_slow, in hundredths of a tick: HZ - W -
			   50 ms - HZ * 1000 ppm */
#define SLK	8	/* PG_HANDOVER_SLACK_MS: 1 s */
#else
#define TO	1
#define HZ	10
#define SLOWC	889
#define SLK	2
#endif
#define MARG	2	/* still_counted: W and 50 ms of horizon left */
#define SLEEP3	3	/* a 0.3 check's sleep: settle/2, and the 1 % as
			   one tick more */
#define H03	D	/* a real 0.3.0 check held up between writing a
			   question and stamping it: up to D */

/* A clock rate, RATES: one tick in RK (README.md, "Rates") */
#ifndef RK
#define RK	4
#endif

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
#define WAIT	(HZ + 3)
#elif defined(CFG_race2)
#define SIMPLE
#define SHIFTFREE
#define SILENT
#define N	2
#define TMAX	10
#define WAIT	(HZ + 3)
#elif defined(CFG_mixed3)
#define SIMPLE
#define SHIFTFREE
#define SIMSTART
#define NOLOSS
#define ONEREAD
#define NCHECKS	3
#define N	3
#define TMAX	9
#define WAIT	(HZ + 3)
#define V03_0
#elif defined(CFG_mixed2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	14
#define WAIT	(HZ + 6)
#define V03_1
#define SILENT
#elif defined(CFG_gateway2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	12
#define WAIT	(HZ + 3)
#define GATEWAY
#define SILENT
#elif defined(CFG_gateway3)
#define SIMPLE
#define SHIFTFREE
#define SIMSTART
#define NOLOSS
#define ONEREAD
#define NCHECKS	3
#define N	3
#define TMAX	8
#define WAIT	(HZ + 3)
#define GATEWAY
#elif defined(CFG_cache2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	10
#define WAIT	(HZ + 3)
#define CACHE
#elif defined(CFG_rate2)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	10
#define WAIT	(HZ + 3)
#define RATES
#elif defined(CFG_twochecks)
#define SHIFTFREE
#define N	2
#define TMAX	4
#define WAIT	(HZ + 3)
#ifndef MUT_second_check
#define KINDS(n)	(id == 2)	/* the first go's job: any kind */
#endif
#define FAILS		/* a job started by a check may fail */
#elif defined(CFG_restore)
#define N	2
#define TMAX	6
#define WAIT	(HZ + 3)
#define STALENESS
#define NOLOSS
#elif defined(CFG_lockless)
#define N	2
#define TMAX	6
#define WAIT	(HZ + 3)
#define STALENESS
#elif defined(CFG_unseen)
/*
 * lockless where a and b do not reach each other in round 1: every
 * answer of round 1 lost at once (a refused connection), every answer
 * of round 2 in time (the sleep beside a peer not reached, SLEEPR, fits
 * in the window)
 */
#define N	2
#define TMAX	8
#define WAIT	(HZ + 3)
#define STALENESS
#define NOLOSS
#define LOST1
#elif defined(CFG_handover)
/*
 * A run by hand on b fails at any moment; b checks at 0, a at 9 or
 * later (b's claim may be over; a checking sooner is race2's). What a
 * go starts, any number of ticks after it: touch -- job whose steps
 * come at once (the go-to-start gap), touch -- job that takes the run
 * lock, refreshes and pings for any number of ticks before its start
 * is recorded, or a pipeline (touch -f). A job, once
 * started, runs quiet to the end of time (ENDLESS). The mutants gap,
 * ping and pipeline leave one kind each.
 */
#define SIMPLE
#define SHIFTFREE
#define ENDLESS
#define N	2
#define TMAX	12
#define WAIT	(HZ + 5)
#define A_START	9
#define PING
#define NOGAP
#if defined(MUT_gap)
#define GOK	1
#elif defined(MUT_ping)
#define GOK	2
#elif defined(MUT_pipeline) || defined(MUT_pipe_unlocked)
#define GOK	4
#else
#define GOK	7
#endif
#elif defined(CFG_hold)
#define SIMPLE
#define SHIFTFREE
#define N	2
#define TMAX	6
#define WAIT	(HZ + 3)
#define HOLD
#elif defined(CFG_yield)
#define ONECHECK
#define N	2
#define TMAX	8
#define WAIT	(HZ + 5)
#define STALENESS
#define SILENT
#elif defined(CFG_lone)
#define SIMPLE
#define SHIFTFREE
#define N	3
#define TMAX	11
#define WAIT	(HZ + 3)
#define LONE
#else
#error "no configuration: -DCFG_<name>"
#endif

/*
 * SILENT: a check of this version may claim beside a peer silent in
 * round 1 (r1_late, below), where one peer (N = 2) is asked in steps
 */
#if defined(SILENT) && (N != 2 || defined(ONEREAD) || defined(NOLOSS) || \
    defined(LOST1))
#error "SILENT: two nodes, a round read in steps, answers that may be late"
#endif

/*
 * SIMPLE: one check per node and nothing else on it: its first steps
 * (run lock, claim lock, own status) are one, and its job, once
 * started, runs to the end of time unless GOK lets it be another kind
 * (the record stays fresh: TMAX < WAIT).
 */
#ifdef SIMPLE
#define ONECHECK
#endif
#ifndef GOK
#define GOK	1	/* the kinds of run after a go: 1 << K */
#endif

/*
 * The sleep before round 2 when a peer showed no status, and too_slow,
 * at R = k / RK (k: this node's bound and its fastest peer's, in ticks
 * of 1 / RK): settle/2 + D and max(1 %, R) of settle, a tick more for
 * the fraction; HZ - W - 50 ms - HZ * R, rounded down. MUT_rate: the
 * rates not counted (0.4: 0.1 % in lower_bound alone). MUT_old03: no D.
 */
#if defined(MUT_rate)
#define RATEK(k)	0
#else
#define RATEK(k)	(k)
#endif
#ifdef MUT_old03
#define SLEEPR(k)	(3 + (4 * RATEK(k)) / RK)
#else
#define SLEEPR(k)	(7 + (4 * RATEK(k)) / RK)
#endif
#define SLOWR(k)	((SLOWC * RK - 100 * HZ * RATEK(k)) / (100 * RK))

/* too_slow can happen only in runs longer than SLOWR(k) */
#if defined(RATES) || TMAX * 100 > SLOWC
#define TOOSLOW(k)	(LNOW(n) - start1 > SLOWR(k))
#define START1		start1 = LNOW(n)
#else
#define TOOSLOW(k)	false
#define START1		start1 = 0
#endif

#define SLACKY	(HZ < WAIT / 4 -> HZ : WAIT / 4)	/* prefer slack */
#define ALL(n)	((((1 << N) - 1)) & ~(1 << (n)))

/* ---------------------------------------------------------------- */
/* Shared state, per node */

short	now;			/* true time */
byte	ver[N];			/* 3 (0.3.0), 5 (this version) */
bit	view[N * N];		/* view[q*N+p]: q reads p's status */

/* Each node's clock: RATES, one tick more or less every RK */
#ifdef RATES
short	rs[N];			/* -1 slow, 1 fast, 0 true */
bit	rb[N];			/* its bound, as it reports: 1 / RK */
#define LNOW(n)		(now + rs[n] * (now / RK))
#define RB(n)		rb[n]
#else
#define LNOW(n)		now
#define RB(n)		0
#endif

/* The record and the side record, stamped on the node's clock */
short	r_act[N];		/* the record's stamp (latest write) */
short	r_clm[N];		/* its claim moment */
byte	r_hz[N];		/* its horizon */
byte	r_own[N];		/* the check whose claim it is; 0: none */
bit	r_lock[N];		/* the record lock (.ID.rec) */
byte	claimlk[N];		/* the claim lock: the check holding it */
bit	runlk[N];		/* the run lock */
bit	o_run[N];		/* outcome: a run started, not ended */
short	o_st[N];		/* its (the latest run's) start */
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
#ifdef STALENESS
short	jref[N];		/* a job's latest refresh (its clock) */
bit	jstale[N];		/* a job went the wait without a refresh */
#define JREF(n)		jref[n] = LNOW(n)
#define FRESH(m)	!jstale[m]
#else
#define JREF(n)		skip
#define FRESH(m)	true
#endif

/*
 * What a serve reports (pg_status_local): the claim moment within its
 * horizon, else the latest write; a claim, within its horizon or
 * pending (F1: no run start recorded at or after it, and less than the
 * wait since it). OLD_F1 (the mutants gap, ping, pipeline): 0.4's, a
 * claim within its horizon only. MUT_pend_write: pending only until the
 * record is written again (the touch's first refresh).
 */
#if defined(MUT_gap) || defined(MUT_ping) || defined(MUT_pipeline)
#define OLD_F1
#endif
#define INHZ(p)		(r_clm[p] != NOCLM && LNOW(p) < r_clm[p] + r_hz[p])
#define MOMENT(p)	(INHZ(p) -> r_clm[p] : r_act[p])
#if defined(OLD_F1)
#define PENDING(p)	false
#elif defined(MUT_pend_write)
#define PENDING(p)	(r_clm[p] != NOCLM && o_st[p] < r_clm[p] && \
			 LNOW(p) - r_clm[p] < WAIT && r_act[p] == r_clm[p])
#else
#define PENDING(p)	(r_clm[p] != NOCLM && o_st[p] < r_clm[p] && \
			 LNOW(p) - r_clm[p] < WAIT)
#endif
#define CLAIMED(p)	(INHZ(p) || PENDING(p))
#define RUNNING(p)	(o_run[p] && runlk[p])
#define DIED(p)		(o_run[p] && !runlk[p])
#define OWNFAILED(p)	((o_fail[p] > 0 || DIED(p)) && o_end[p] && \
			 !RUNNING(p))
#ifdef COOL0
#define COOLS(p)	false
#else
#define COOLS(p)	(o_end[p] && LNOW(p) - o_endt[p] < WAIT)
#endif

/*
 * NOLOSS: the clock may not pass the timeout of a round whose answers
 * are not all in (every answer comes within the timeout).
 */
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

/*
 * Time passes before any step of any process: TICK, at the start of
 * each atomic step, lets it pass by any number of ticks first (the same
 * timed runs as a clock process of its own, with fewer states).
 */
#ifdef STALENESS
#define STALE1(p) \
	if \
	:: jobs[p] > 0 && LNOW(p) - jref[p] >= WAIT -> jstale[p] = 1 \
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
	:: BEGUN && now < TMAX && NOLATE -> now++; STALEUPD \
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
	:: else -> S.k = K_ELAPSED; S.act = (LNOW(p) - m < WAIT)
	fi;
	if
	:: view[q * N + p] ->
		S.hs = 1;
		S.dec = (claimlk[p] != 0);
		S.clm = CLAIMED(p);
		S.hold = hold[p];
		S.going = RUNNING(p);
		S.fail = (o_fail[p] > 0 || DIED(p));
		S.last = o_end[p];
		S.since = (o_end[p] && m != NOREC && m - o_endt[p] > SLK);
		S.cool = COOLS(p);
		S.el = (o_end[p] && (LNOW(p) - o_endt[p] <
		    LNOW(q) - o_endt[q] || (LNOW(p) - o_endt[p] ==
		    LNOW(q) - o_endt[q] && p < q)));
		S.yme = (yieldto[p] == q + 1 && prevchk[q] != NOCHK &&
		    yieldt[p] <= prevchk[q] + SLACKY);
		S.yend = (o_end[p] && o_endt[p] > yieldt[p]);
		S.ybeg = (o_end[p] && o_begt[p] > yieldt[p])
	:: else
	fi
}

/*
 * The widening of lower_bound for the rates (F2): (e + 1 ms + span) *
 * R / (1 - the peer's), R this node's bound and the peer's as it shows
 * it (none without status), rounded up; the 1 ms counts as a tick. A
 * 0.3 check has none.
 */
#ifdef RATES
#define PEERK(q, p)	(view[q * N + p] -> rb[p] : 0)
#define DRIFT(q, p, xx) \
	((ver[q] == 3 || RATEK(rb[q] + PEERK(q, p)) == 0) -> 0 : \
	 ((rb[q] + PEERK(q, p)) * (xx) + RK - PEERK(q, p) - 1) / \
	 (RK - PEERK(q, p)))
#else
#define DRIFT(q, p, xx)	0
#endif

/*
 * The latest q's stamp of its question's send can be: its clock now (the
 * serve answers after the question left); a real 0.3.0 check stamps it
 * after the write, held up to H03 in between; MUT_sent_after, this
 * version with 0.3.0's stamp, up to the round's deadline.
 */
#ifdef MUT_sent_after
#define SENTMAX(q, rst)	(ver[q] == 3 -> LNOW(q) + H03 : rst + TO)
#else
#define SENTMAX(q, rst)	(ver[q] == 3 -> LNOW(q) + H03 : LNOW(q))
#endif

/*
 * The lower bound of the moment an answer reports (e on p's clock),
 * relative to q's claim c: from the send at rst less the 1 ms as a tick
 * (the answer may have been stamped in the tick before) to the latest
 * send, each less the widening; any value in between.
 */
inline bound(p, q, S, rst, c, e, x)
{
	/* (e): an inline's arguments are substituted as text */
	S.lo = rst - (e) - c - 1 - DRIFT(q, p, (e) + 1 + rst - c);
	x = SENTMAX(q, rst) - (e) - c -
	    DRIFT(q, p, (e) + 1 + SENTMAX(q, rst) - c);
	do
	:: S.lo < x -> S.lo++
	:: break
	od
}

/*
 * CACHE: q = a asks p = b through a proxy that keeps answers. A copy
 * of an earlier answer is refused as invalid when its serve is of 0.5
 * (its nonce is another request's, F3); MUT_cache: taken as fresh, as
 * before 0.5. The copy is the last answer the proxy passed on (cs, its
 * moment cm, taken at ct on b's clock); at first one from before.
 */
#ifdef CACHE
#define VIACACHE(q, p)	(q == 0 && p == 1)
#ifdef MUT_cache
Seen	cs;
short	cm, ct;
#define KEEPCOPY(S, m) \
	cs.k = S.k; cs.act = S.act; cs.hs = S.hs; cs.hold = S.hold; \
	cs.going = S.going; cs.clm = S.clm; cs.fail = S.fail; \
	cs.last = S.last; cs.since = S.since; cs.cool = S.cool; \
	cs.el = S.el; cs.yme = S.yme; cs.yend = S.yend; cs.ybeg = S.ybeg; \
	cs.dec = S.dec; cm = m; ct = LNOW(1)
#define COPY(S) \
	S.k = cs.k; S.act = cs.act; S.hs = cs.hs; S.hold = cs.hold; \
	S.going = cs.going; S.clm = cs.clm; S.fail = cs.fail; \
	S.last = cs.last; S.since = cs.since; S.cool = cs.cool; \
	S.el = cs.el; S.yme = cs.yme; S.yend = cs.yend; S.ybeg = cs.ybeg; \
	S.dec = cs.dec; S.first = 1
#else
#define KEEPCOPY(S, m)	skip
#endif
#else
#define VIACACHE(q, p)	false
#define KEEPCOPY(S, m)	skip
#endif

/*
 * One answer of a round that began at rst (q's clock): unreachable when
 * later than the timeout (or, with FAULTS, lost). In round 2 (c !=
 * NOCLM) also the lower bound of the moment it reports (bound).
 */
inline ask(p, q, S, rst, c, m, x)
{
	if
	:: LNOW(q) - rst > TO -> S.k = K_UNREACH
#ifdef FAULTS
	:: LNOW(q) - rst <= TO -> S.k = K_UNREACH
#endif
#ifdef CACHE
	:: LNOW(q) - rst <= TO && VIACACHE(q, p) ->
		/* a copy the proxy kept */
#ifndef MUT_cache
		S.k = K_INVALID
#else
		COPY(S);
		if
		:: c != NOCLM && S.k == K_ELAPSED ->
			bound(p, q, S, rst, c, ct - cm, x)
		:: else
		fi;
		m = cm
#endif
#endif
	:: LNOW(q) - rst <= TO ->
		serve(p, q, S, m);
		if
		:: VIACACHE(q, p) -> KEEPCOPY(S, m)
		:: else
		fi;
		if
		:: c != NOCLM && S.k == K_ELAPSED ->
			bound(p, q, S, rst, c, LNOW(p) - m, x)
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
	:: S.k == K_INVALID -> \
		printf("@%d %c: round %d: %c invalid (a cache's copy)\n", \
		    now, 'a' + n, rd, 'a' + p) \
	:: S.k == K_NEVER -> \
		printf("@%d %c: round %d: %c never active\n", now, 'a' + n, \
		    rd, 'a' + p) \
	:: S.k == K_ELAPSED -> \
		printf("@%d %c: round %d: %c elapsed %d (status %d claim %d deciding %d running %d failed %d since %d hold %d)\n", \
		    now, 'a' + n, rd, 'a' + p, LNOW(p) - m, S.hs, S.clm, \
		    S.dec, S.going, FAILED(S), S.since, S.hold) \
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

/*
 * pg_state_touch: a refresh of the record; the claim kept (F1: for the
 * whole boot; OLD_F1: within its horizon only)
 */
#ifdef OLD_F1
#define REFRESH(n) \
	r_act[n] = LNOW(n); r_own[n] = 0; \
	if \
	:: !INHZ(n) -> r_clm[n] = NOCLM; r_hz[n] = 0 \
	:: else \
	fi
#else
#define REFRESH(n)	r_act[n] = LNOW(n); r_own[n] = 0
#endif

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

/* pg_outcome_start: a run starts (after the fork) */
#define OSTART(n) \
	o_fail[n] = o_fail[n] + o_run[n]; o_run[n] = 1; o_st[n] = LNOW(n)

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
 * stays fresh, TMAX < WAIT); 1 "touch -- job" (run lock, refresh, the
 * start ping, fork, outcome start, refreshes, refresh, outcome finish);
 * 2 "touch -f" in a pipeline (the run lock, no outcome; the job runs
 * from the pipeline's start and refreshes as data comes); 3 a run whose start
 * could not be recorded; 4 a touch that dies while its job lives (the
 * lock goes with it, the outcome says running). Each may start any
 * time after the go.
 */
#ifdef STALENESS
#define REFRESHES(n) \
	do \
	:: atomic { TICK; !r_lock[n] -> REFRESH(n); JREF(n) } \
	:: break \
	od
#else
/* without staleness only the latest refresh can matter: at most one */
#define REFRESHES(n) \
	if \
	:: atomic { TICK; !r_lock[n] -> REFRESH(n) } \
	:: skip \
	fi
#endif
/*
 * ENDLESS: a job, once started, runs quiet to the end of time. Where no
 * node has a second check, what comes after a job's start cannot make
 * two jobs overlap: its refreshes only make the node count, its end
 * ends it (and frees the run lock for a run by hand, whose failure then
 * lets a peer hand over beside no job).
 */
#ifdef ENDLESS
#define ENDNOW	goto jobdone
#else
#define ENDNOW	skip
#endif
/*
 * NOGAP: the first steps of touch -- job (the run lock, the refresh)
 * let no time pass of their own; the job's process may still be held
 * while others let time pass, as any process may
 */
#ifdef NOGAP
#define GAPTICK	skip
#else
#define GAPTICK	TICK
#endif
/* the start ping, between the first refresh and the fork */
#if defined(STALENESS) || defined(PING)
#define JOBTICK	TICK
#else
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
				runlk[n] = 1; REFRESH(n); JOBON(n); OSTART(n);
				gopend[n] = 0
			fi
		}
	:: K == 2 ->
		/*
		 * The producer starts with the pipeline. touch -f takes the
		 * run lock without blocking and holds it for its lifetime;
		 * when a run holds it, the pipeline passes its data on and
		 * tries again at each refresh: here it stays quiet and never
		 * takes it (the worst case). The pipeline records no run: its
		 * check's claim stays pending for the wait.
		 * MUT_pipe_unlocked: touch -f without the run lock (0.4.0;
		 * README.md, "Findings").
		 */
		atomic {
			TICK; JOBON(n);
#ifndef MUT_pipe_unlocked
			if
			:: runlk[n] -> gopend[n] = 0; goto jobdone
			:: else -> runlk[n] = 1
			fi;
#endif
			gopend[n] = 0
		};
		ENDNOW;
		REFRESHES(n);
		atomic {
			TICK; !r_lock[n] -> REFRESH(n);
#ifndef MUT_pipe_unlocked
			runlk[n] = 0;
#endif
			jobs[n]--
		}
	:: else ->
		atomic {
			GAPTICK;
			if
			:: runlk[n] -> gopend[n] = 0; goto jobdone
			:: else -> runlk[n] = 1
			fi
		};
		atomic { GAPTICK; !r_lock[n] -> REFRESH(n) };
		atomic { JOBTICK; JOBON(n); st = LNOW(n); gopend[n] = 0 };
		if
		:: K != 3 -> OSTART(n)
		:: else
		fi;
		ENDNOW;
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
			o_run[n] = 0; o_end[n] = 1; o_endt[n] = LNOW(n);
			o_begt[n] = st; st = 0;
			OUTCOME(n);
			printf("@%d %c: its job ends (failed %d)\n", now,
			    'a' + n, o_fail[n] > 0)
		};
		runlk[n] = 0
	fi;
jobdone:
	st = 0
}

/*
 * The kinds of run a node may start: KINDS(n) all four (id: the
 * check's, in the caller), for the configurations where they matter;
 * else those of GOK.
 */
#ifndef KINDS
#define KINDS(n)	false
#endif
inline pickkind(n, K)
{
	if
	:: KINDS(n) -> K = 1
	:: KINDS(n) -> K = 2
	:: KINDS(n) -> K = 3
	:: KINDS(n) -> K = 4
	:: !KINDS(n) && (GOK & 1) -> K = 0
	:: !KINDS(n) && (GOK & 2) -> K = 1
	:: !KINDS(n) && (GOK & 4) -> K = 2
	fi
}

/*
 * What a check notes of an answer: whom it heard (the monitor; not a
 * cache's copy of a 0.4 serve, ol), a hold it read (CFG_hold), an
 * answer lost to a timeout (CFG_lone).
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
 * still be reported with MARG of its horizon left, and no run may have
 * begun on this node since the claim (F1: such a run ends the pending
 * claim), or withdraw. The rules before: MUT_still_failed (README.md,
 * "Findings", F2 of 0.4), withdraw only when this node's last run
 * failed and nothing came since its end; OLD_F1 and MUT_still_run, no
 * test of a run begun since the claim.
 */
#if defined(OLD_F1) || defined(MUT_still_run)
#define RUNSINCE(n, c)	false
#else
#define RUNSINCE(n, c)	(o_st[n] >= c)
#endif
#if !defined(MUT_still_failed) && !defined(MUT_no_self_test)
#define STILL_COUNTED(n, c, h) \
	x = (INHZ(n) && c + h - LNOW(n) >= MARG && !RUNSINCE(n, c)); \
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
	x = (INHZ(n) && c + h - LNOW(n) >= MARG); \
	if \
	:: OWNFAILED(n) && !x && \
	    !(o_end[n] && m != NOREC && m - o_endt[n] > SLK) -> goto withdraw \
	:: else \
	fi
#endif

/* ---------------------------------------------------------------- */
/*
 * A check of this version: pollguard-check (bin/pollguard-check.c,
 * check() and claim_and_settle()). id: which check (1..3), for the
 * claim lock and the record's owner. A peer's answer is read into t,
 * weighed at once by the rule (rule.pml) and forgotten: what the check
 * keeps between steps is the rule's tally.
 */

/* RATES: kf, the highest bound of the peers that showed their status */
#ifdef RATES
#define FASTEST(p) \
	if \
	:: t.hs && rb[p] > kf -> kf = rb[p] \
	:: else \
	fi
#else
#define FASTEST(p)	skip
#endif

/* round 1: one answer */
inline r1_answer()
{
	PICK(n, mask, p);
#ifdef LOST1
	t.k = K_UNREACH;
#else
	ask(p, n, t, rst, NOCLM, m, x);
#endif
	SAY3(n, 1, p, t);
	mask = mask | (1 << p);
	NOTE(p);
	FASTEST(p);
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

/* round 2: what one peer's answer says (r), noted */
#define R2NOTE(r) \
	if \
	:: r == 1 -> v = V_SKIP \
	:: r == 2 -> pnd[p] = 1; wt = wt | 1 \
	:: r == 3 -> un = 1 \
	:: r == 4 -> inv = 1 \
	:: r == 5 -> wt = wt | 2 \
	:: else \
	fi

/* round 2: one answer */
inline r2_answer()
{
	PICK(n, mask, p);
	ask(p, n, t, rst, c, m, x);
	t.ans1 = (a1 >> p) & 1;
	SAY3(n, 2, p, t);
	mask = mask | (1 << p);
	NOTE(p);
	FASTEST(p);
	if
#ifdef SILENT
	:: v != V_SKIP && sil ->
		/*
		 * read before round 1 ended: weighed once round 1 is decided
		 * again (check_late), with what round 1 finally knew of p
		 * (answered); rr keeps both weighings, by that (r1_late)
		 */
		t.ans1 = 1; settle_peer(t, slept, vc, r); rr = 64 + r * 8;
		t.ans1 = 0; settle_peer(t, slept, vc, r); rr = rr + r;
		printf("@%d %c:   %c's claim no earlier than %d from ours (later %d, slept %d): %d if it answered round 1, else %d\n",
		    now, 'a' + n, 'a' + p, t.lo, LATER(vc), slept,
		    (rr / 8) % 8, rr % 8)
	:: v != V_SKIP && !sil ->
#else
	:: v != V_SKIP ->
#endif
		settle_peer(t, slept, vc, r);
		printf("@%d %c:   %c's claim no earlier than %d from ours (later %d, slept %d): %d (0 go on, 1 withdraw, 2 wait for it)\n",
		    now, 'a' + n, 'a' + p, t.lo, LATER(vc), slept, r);
		R2NOTE(r)
	:: else
	fi;
	CLEAR(t); m = 0; x = 0; p = 0; r = 0
}

/* round 2: the verdict */
inline r2_end()
{
	tooslow = TOOSLOW(RB(n) + kf);
	settle_end(tooslow, vc, un, inv, wt, 0, v);
	printf("@%d %c: round 2 says %d (0 keep, 1 withdraw, 9 wait)\n", now,
	    'a' + n, v);
	un = 0; inv = 0; wt = 0; rst = 0; kf = 0; REND
}

#ifdef SILENT
/*
 * SILENT (issue 35; check_round1, check_late in bin/check-round.c,
 * pg_asking in lib/peers.c): with one peer, still silent TO / 4 after
 * round 1 began, a check whose round 1 goes without it (it counts as
 * unreachable: never, under unreachable = run) claims at once, sleeps
 * as beside a peer without status, and asks round 2, the peer's
 * round-1 question still open. Its serve reads that question at any
 * step after the claim, before or after our round-2 question, within
 * round 1's timeout, or never (unreachable). Round 1 is then decided
 * again with its answer, before round 2's answer is weighed
 * (check_late): a verdict other than go withdraws. MUT_late_ignored:
 * not decided again, the provisional go kept. Round 2 takes "answered"
 * (ans1) from what round 1 finally knew.
 */
inline r1_late()
{
	p = 1 - n;
	ask(p, n, t, r1s, NOCLM, m, x);
	SAY3(n, 1, p, t);
	NOTE(p);
	decide_add(t, A);
	a1 = a1 | ((t.k != K_UNREACH) << p);
	CLEAR(t); m = 0; x = 0; sil = 0; r1s = 0;
#ifndef MUT_late_ignored
	decide_end(A, ownhold, owncool, 0, v);
#endif
	printf("@%d %c: round 1 ends late and says %d (0 go, 1 skip)\n",
	    now, 'a' + n, v);
	CLEARTALLY(A); ownhold = 0; owncool = 0;
	if
	:: v != V_GO -> p = 0; rr = 0; goto withdraw
	:: else
	fi;
	/* round 2's answer, if read before (rr >= 64): weighed now */
	if
	:: rr >= 64 ->
		r = ((a1 >> p) & 1 -> (rr / 8) % 8 : rr % 8);
		R2NOTE(r);
		r = 0; rr = 0;
		r2_end()
	:: else
	fi;
	p = 0
}
#endif

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
	byte	kf;			/* RATES; else 0 */
#ifdef HOLD
	byte	rdhold;
#endif
#ifdef LONE
	bit	tmo;
#endif
#ifdef SILENT
	bit	sil;			/* the peer's round-1 question open */
	short	r1s;			/* ... since round 1 began, then */
	byte	rr;			/* round 2's answer, weighed both ways */
#endif

	/* the run lock */
	atomic {
		TICK;
#ifdef A_START
		(n != 0 || now >= A_START);
#endif
		BEGIN;
		start1 = LNOW(n);	/* when this check started */
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
		owncool = (OWNFAILED(n) && COOLS(n));
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
		m = 0; START1; rst = LNOW(n); RSTART; mask = 0; hrd = 0
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
#ifdef SILENT
	:: mask == 0 && !ownhold ->
		/*
		 * the peer still silent TO / 4 after round 1 began, and
		 * pg_decide over no answer goes (this node not held):
		 * claim now, its question open (r1_late)
		 */
		atomic {
			TICK;
			LNOW(n) - rst >= TO / 4 ->
			sil = 1; r1s = rst; mask = ALL(n);
#ifndef MUT_no_sleep
			slept = 1;	/* it shows no status (yet) */
#endif
			decide_end(A, ownhold, owncool, 0, v);
			assert(v == V_GO);
			printf("@%d %c: round 1: %c silent; without it, round 1 says %d: claims now\n",
			    now, 'a' + n, 'a' + 1 - n, v);
			a1 = hrd; rst = 0
		};
		break
	:: mask != ALL(n) && !(A.act || A.hold) ->
#else
	:: else ->
#endif
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
		c = LNOW(n); oact = r_act[n]; oclm = r_clm[n]; ohz = r_hz[n];
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
		vc = LNOW(n) - c; r_lock[n] = 0
	};
#ifdef SILENT
	/*
	 * the silent peer's serve reads round 1's question: during the
	 * sleep, or later (below)
	 */
	if
	:: sil -> atomic { TICK; r1_late() }
	:: true
	fi;
#endif

	/* the sleep, when a peer may decide by 0.3's rule; round 2 */
	atomic {
		TICK;
		(!slept || LNOW(n) >= c + vc + SLEEPR(RB(n) + kf)) ->
		kf = 0; rst = LNOW(n); RSTART; mask = 0
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
#ifdef SILENT
	/* ... or after round 2 was asked, before its answer */
	:: mask != ALL(n) && sil -> atomic { TICK; r1_late() }
	:: mask != ALL(n) && v != V_SKIP ->
#else
	:: else ->
#endif
		atomic {
			TICK;
			r2_answer();
			if
#ifdef SILENT
			:: mask == ALL(n) && !sil -> r2_end()
#else
			:: mask == ALL(n) -> r2_end()
#endif
			:: else
			fi
		}
	od;
#endif
#ifdef SILENT
	/*
	 * ... or after round 2's answer was read; round 1 ends by its
	 * timeout (check_round2: run until deadline1), then check_late
	 */
	if
	:: sil -> atomic { TICK; r1_late() }
	:: else
	fi;
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
			rst = LNOW(n); RSTART; v = V_GO;
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
				FASTEST(i);
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
			tooslow = TOOSLOW(RB(n) + kf);
			poll_end(tooslow, wt, v);
			printf("@%d %c: the wait says %d (0 keep, 1 withdraw, 9 wait)\n",
			    now, 'a' + n, v);
			wt = 0; rst = 0; kf = 0; REND
		}
	od;
	if
	:: v != V_GO -> goto withdraw
	:: else
	fi;

#ifndef OLD_F1
	/*
	 * While the record is still this claim, nothing has written it
	 * since: every reader gets its moment c, and counts it within its
	 * horizon or pending until a run begins on this node or the wait
	 * is over (that part by PENDING's definition), so a horizon
	 * lengthened once it is over changes no decision (README.md, "The
	 * mutants", lengthen_late).
	 */
	assert(r_own[n] != id || (r_act[n] == c && r_clm[n] == c &&
	    (INHZ(n) || PENDING(n) || o_st[n] >= c || LNOW(n) - c >= WAIT)));
#endif

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
			   "Findings", F3 of 0.4) */
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
		gopend[n] = 1;
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
#ifdef SILENT
		sil = 0; r1s = 0; rr = 0;
#endif
#if N > 2
		pnd[2] = 0;
#endif
		kf = 0;
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
/*
 * A real 0.3.0 check (1b51b3c): elapsed only, always the sleep, 0.3's
 * rule, its send stamped after the write (SENTMAX), and a peer active
 * in round 2 that it could not reach in round 1 ordered like any other
 * (rule.pml, settle03_peer). What it heard, for the monitor: the peers
 * it reached in round 1 (not reaching one there, it goes by 0.3.0's
 * unreachable = run; doc/SAFETY.md, section 4).
 */

inline o3_r1_answer()
{
	PICK(n, mask, p);
	ask(p, n, t, rst, NOCLM, m, x);
	SAY3(n, 1, p, t);
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
	SAY3(n, 2, p, t);
	mask = mask | (1 << p);
	settle03_peer(t, r);
	printf("@%d %c:   %c's claim no earlier than %d from ours: %d (0 go on, 1 withdraw)\n",
	    now, 'a' + n, 'a' + p, t.lo, r);
	if
	:: r == 1 -> v = V_SKIP
	:: else
	fi;
	CLEAR(t); m = 0; x = 0; p = 0; r = 0;
	if
	:: mask == ALL(n) ->
		if
		:: TOOSLOW(0) || vc > W -> v = V_SKIP
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
		start1 = LNOW(n); START1; rst = LNOW(n); RSTART; mask = 0;
		hrd = 0
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
		c = LNOW(n); oact = r_act[n]; oclm = r_clm[n]; ohz = r_hz[n];
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
		vc = LNOW(n) - c; r_lock[n] = 0
	};
	atomic {
		TICK;
		LNOW(n) >= c + vc + SLEEP3 -> rst = LNOW(n); RSTART; mask = 0
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
		:: else -> heard[n * N + p] = (a1 >> p) & 1; p++
		od;
		gopend[n] = 1;
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
			o_run[n] = 0; o_end[n] = 1; o_endt[n] = LNOW(n);
			o_begt[n] = o_st[n];
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
		gopend[n] = 1;
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
 * not one the protocol orders (no check began it): not counted. It does
 * not start between a go and the start of that go's job: such a run is
 * taken for that job (F1, a stated assumption; README.md).
 */
proctype Manual(byte n)
{
	atomic {
		TICK;
		!runlk[n] && !r_lock[n] && !gopend[n] ->
		runlk[n] = 1; REFRESH(n); OSTART(n);
		printf("@%d %c: a run by hand starts\n", now, 'a' + n)
	};
	atomic {
		TICK;
		!r_lock[n] ->
		REFRESH(n);
		o_run[n] = 0; o_end[n] = 1; o_endt[n] = LNOW(n);
		o_begt[n] = o_st[n]; o_fail[n]++;
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
			ver[i] = 5; r_act[i] = -WAIT; r_clm[i] = NOCLM;
			o_st[i] = NOREC; o_endt[i] = NOREC; o_begt[i] = NOREC;
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
				view[q * N + i] = (ver[i] >= 4 && ver[q] >= 4 &&
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
#ifdef RATES
		/* b's clock runs fast or slow, and b says so */
		if
		:: rs[1] = 1
		:: rs[1] = -1
		fi;
		rb[1] = 1;
#endif
#if defined(CACHE) && defined(MUT_cache)
		/* the proxy's copy: an answer of b before the model */
		serve(1, 0, cs, cm); ct = 0;
#endif

#if defined(CFG_race3) || defined(CFG_gateway3)
		run Check(0, 1); run Check(1, 2); run Check(2, 3)
#elif defined(CFG_race2) || defined(CFG_gateway2) || \
    defined(CFG_cache2) || defined(CFG_rate2)
		run Check(0, 1); run Check(1, 2)
#elif defined(CFG_mixed3)
		run Check03(0, 1); run Check(1, 2); run Check(2, 3)
#elif defined(CFG_mixed2)
		run Check(0, 1); run Check03(1, 2)
#elif defined(CFG_twochecks)
		/*
		 * two checks on a, whose name sorts first: b never waits
		 * for a, and reads a's second claim in round 2
		 */
		run Check(1, 1); run Check(0, 2); run Check(0, 3)
#elif defined(CFG_restore)
		/* b's pipeline: its last refresh 4 ticks short of the wait */
		r_act[1] = 4 - WAIT; jobs[1] = 1; jref[1] = 4 - WAIT;
		heard[1 * N + 0] = 1;
		run Running(1, 2); run Check(1, 2); run Check(0, 1)
#elif defined(CFG_lockless) || defined(CFG_unseen)
		/*
		 * b runs a job without the run lock: a pipeline, or a job
		 * whose pollguard-touch died; its last refresh 4 ticks short
		 * of the wait
		 */
		r_act[1] = 4 - WAIT; jobs[1] = 1; jref[1] = 4 - WAIT;
		heard[1 * N + 0] = 1;
		if
		:: run Running(1, 2)
		:: o_run[1] = 1; o_st[1] = 3 - WAIT; run Running(1, 4)
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
		 * claimed its last run (that claim's horizon is over; the
		 * record keeps it); P's previous check began at -11. S's run
		 * before ended at -14.
		 */
		yieldto[1] = 1; yieldt[1] = -10; prevchk[0] = -11;
		r_clm[1] = -10; r_hz[1] = HZ;
		r_act[1] = -1; o_end[1] = 1; o_endt[1] = -14; o_begt[1] = -16;
		o_st[1] = -16;
		heard[1 * N + 0] = 1;
		if
		:: kind = 1; runlk[1] = 1; o_run[1] = 1;	/* touch -- job */
			o_st[1] = -9
		:: kind = 2				/* touch -f */
		:: kind = 3; runlk[1] = 1		/* start not recorded */
		:: kind = 4; o_run[1] = 1; r_act[1] = -9;	/* touch died */
			o_st[1] = -9
		:: kind = 5; claimlk[1] = 9; r_act[1] = -10	/* held check */
		:: kind = 6; o_endt[1] = -3; o_begt[1] = -9;	/* run over */
			o_st[1] = -9; r_act[1] = -3
		:: kind = 7; o_endt[1] = -4; o_begt[1] = -9;	/* run over, */
			o_st[1] = -9; r_act[1] = -1	/* then a touch -f */
			/* pipeline, its first refresh after the slack */
		:: kind = 8; claimlk[1] = 9; r_act[1] = -9;	/* held */
			o_begt[1] = -10; o_endt[1] = -9;	/* check, a run */
			o_st[1] = -10	/* by hand in its window: begun at */
			/* the yield, over */
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
