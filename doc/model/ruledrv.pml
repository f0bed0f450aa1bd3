/* SPDX-License-Identifier: ISC */
/*
 * ruledrv.pml: the model's rule (rule.pml) on every input of its
 * abstract domain, one line each, for tests/model/rulecmp.c, which puts
 * the same inputs to pg_decide, pg_settle and pg_settle_poll. Run in
 * simulation (spin ruledrv.pml): the loops are deterministic.
 *
 *	D ownhold owncool policy n  P...  = verdict
 *	S slept vc tooslow policy n  P...  = verdict pending
 *	W tooslow n  P...  = verdict pending	(pg_settle_poll; P's pend
 *						 first)
 *
 * P, one peer: k act hs hold going clm fail last since cool el yme yend
 * ybeg dec ans1 first lo (rule.pml, Seen). Verdicts are V_* (0 go or
 * keep, 1 skip or withdraw, 3 unreachable = skip, 76 invalid, 9 keep
 * once the pending peers have withdrawn).
 */
#include "rule.pml"

#define SAYP(s) \
	printf(" %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d", \
	    s.k, s.act, s.hs, s.hold, s.going, s.clm, s.fail, s.last, \
	    s.since, s.cool, s.el, s.yme, s.yend, s.ybeg, s.dec, s.ans1, \
	    s.first, s.lo)

/*
 * Inputs no answer can give: act without an elapsed answer, status bits
 * without a status, either with no answer; a run that began after the
 * yield and ended before it (ybeg without yend).
 */
#define NOSUCH(kk, a, h, b) \
	((kk != K_ELAPSED && a) || (!h && b != 0) || \
	 (kk >= K_UNREACH && (h || b != 0)) || \
	 (((b >> 8) & 1) && !((b >> 7) & 1)))

/* peer s from k, act, hs and status bits b (hold is bit 0, ...) */
inline mkpeer(s, kk, a, h, b)
{
	s.k = kk; s.act = a; s.hs = h;
	s.hold = (b >> 0) & 1; s.going = (b >> 1) & 1; s.clm = (b >> 2) & 1;
	s.fail = (b >> 3) & 1; s.last = (b >> 4) & 1; s.since = (b >> 5) & 1;
	s.yme = (b >> 6) & 1; s.yend = (b >> 7) & 1; s.ybeg = (b >> 8) & 1;
	s.cool = (b >> 9) & 1; s.el = (b >> 10) & 1; s.dec = (b >> 11) & 1;
	s.ans1 = 0; s.first = 0; s.lo = 0
}

Seen	s0, s1;
Tally	A;
byte	v, r, un, inv, wt;
bit	pnd0, pnd1;

/* round 1 */
inline do_decide(np, oh, oc, pol)
{
	A.hold = 0; A.act = 0; A.unr = 0; A.inv = 0; A.heard = 0;
	A.nocool = 0; A.el = 0;
	decide_add(s0, A);
	if
	:: np == 2 -> decide_add(s1, A)
	:: else
	fi;
	decide_end(A, oh, oc, pol, v);
	printf("D %d %d %d %d ", oh, oc, pol, np);
	SAYP(s0);
	if
	:: np == 2 -> SAYP(s1)
	:: else
	fi;
	printf(" = %d\n", v)
}

/* round 2 */
inline note(s, i, sl, vc)
{
	if
	:: v != V_SKIP ->
		settle_peer(s, sl, vc, r);
		if
		:: r == 1 -> v = V_SKIP
		:: r == 2 ->
			wt = wt | 1;
			if
			:: i == 0 -> pnd0 = 1
			:: else -> pnd1 = 1
			fi
		:: r == 3 -> un = 1
		:: r == 4 -> inv = 1
		:: r == 5 -> wt = wt | 2
		:: else
		fi
	:: else
	fi
}

inline do_settle(np, sl, vc, ts, pol)
{
	v = V_GO; un = 0; inv = 0; wt = 0; pnd0 = 0; pnd1 = 0;
	note(s0, 0, sl, vc);
	if
	:: np == 2 -> note(s1, 1, sl, vc)
	:: else
	fi;
	settle_end(ts, vc, un, inv, wt, pol, v);
	printf("S %d %d %d %d %d ", sl, vc, ts, pol, np);
	SAYP(s0);
	if
	:: np == 2 -> SAYP(s1)
	:: else
	fi;
	printf(" = %d %d %d\n", v, (v == V_WAIT -> pnd0 : 0),
	    (v == V_WAIT -> pnd1 : 0))
}

/* the waits: pnd0, pnd1 set by the caller */
inline pollone(s, i)
{
	if
	:: (i == 0 && pnd0) || (i == 1 && pnd1) ->
		poll_peer(s, r);
		if
		:: r == 1 -> v = V_SKIP
		:: r == 2 -> wt = 1
		:: else ->
			if
			:: i == 0 -> pnd0 = 0
			:: else -> pnd1 = 0
			fi
		fi
	:: else
	fi
}

inline do_poll(np, ts)
{
	printf("W %d %d %d %d ", ts, np, pnd0, pnd1);
	SAYP(s0);
	if
	:: np == 2 -> SAYP(s1)
	:: else
	fi;
	v = V_GO; wt = 0;
	pollone(s0, 0);
	if
	:: np == 2 -> pollone(s1, 1)
	:: else
	fi;
	poll_end(ts, wt, v);
	printf(" = %d %d %d\n", v, (v == V_WAIT -> pnd0 : 0),
	    (v == V_WAIT -> pnd1 : 0))
}

/* representative peers for the two-peer inputs: k act hs bits */
#define NREP	14
inline rep(s, j)
{
	if
	:: j == 0 -> mkpeer(s, K_NEVER, 0, 1, 0)
	:: j == 1 -> mkpeer(s, K_UNREACH, 0, 0, 0)
	:: j == 2 -> mkpeer(s, K_INVALID, 0, 0, 0)
	:: j == 3 -> mkpeer(s, K_ELAPSED, 0, 1, 0)		/* idle */
	:: j == 4 -> mkpeer(s, K_ELAPSED, 1, 1, 0)		/* active */
	:: j == 5 -> mkpeer(s, K_ELAPSED, 1, 0, 0)		/* 0.3 */
	:: j == 6 -> mkpeer(s, K_ELAPSED, 1, 1, 1)		/* hold */
	:: j == 7 -> mkpeer(s, K_ELAPSED, 1, 1, 24)		/* failed */
	:: j == 8 -> mkpeer(s, K_ELAPSED, 1, 1, 24 + 512)	/* cooling */
	:: j == 9 -> mkpeer(s, K_ELAPSED, 1, 1, 24 + 512 + 1024)
	:: j == 10 -> mkpeer(s, K_ELAPSED, 1, 1, 16 + 64 + 128 + 256)
	:: j == 11 -> mkpeer(s, K_ELAPSED, 1, 1, 2)		/* running */
	:: j == 12 -> mkpeer(s, K_ELAPSED, 1, 1, 4 + 2048)	/* claim */
	:: j == 13 -> mkpeer(s, K_ELAPSED, 0, 1, 24 + 512)	/* cool, idle */
	fi
}

init
{
	int	b, i, j, kk, a, h, oh, oc, pol, sl, vc, ts, lo, an, ff;

	/* round 1, one peer: every status */
	for (kk : 0 .. 3) {
		for (a : 0 .. 1) {
			for (h : 0 .. 1) {
				for (b : 0 .. 4095) {
					if
					:: NOSUCH(kk, a, h, b) -> skip
					:: else ->
						mkpeer(s0, kk, a, h, b);
						for (oh : 0 .. 1) {
							for (oc : 0 .. 1) {
								if
								/* its failed run ended after
								   ours, ours in cooldown, its
								   not: no such times */
								:: oc && FAILED(s0) && s0.el &&
								    !s0.cool -> goto nosuch
								:: else
								fi;
								for (pol : 0 .. 1) {
									do_decide(1, oh, oc, pol)
								}
nosuch:
								skip
							}
						}
					fi
				}
			}
		}
	}
	/* round 1, two peers */
	for (i : 0 .. NREP - 1) {
		for (j : 0 .. NREP - 1) {
			rep(s0, i);
			rep(s1, j);
			s1.first = 1;
			for (oh : 0 .. 1) {
				for (oc : 0 .. 1) {
					for (pol : 0 .. 1) {
						do_decide(2, oh, oc, pol)
					}
				}
			}
		}
	}
	/*
	 * round 2, one peer: every status that pg_settle reads (cool, el
	 * and dec it does not), each position of its claim's lower bound
	 * around the thresholds (lo, ticks of W) when it counts
	 */
	for (kk : 0 .. 3) {
		for (a : 0 .. 1) {
			for (h : 0 .. 1) {
				for (b : 0 .. 511) {
					if
					:: NOSUCH(kk, a, h, b) -> skip
					:: else ->
		for (an : 0 .. 1) {
			for (ff : 0 .. 1) {
				for (sl : 0 .. 1) {
					for (vc : 0 .. 3) {
						for (lo : -4 .. 9) {
							mkpeer(s0, kk, a, h, b);
							s0.ans1 = an;
							s0.first = ff;
							s0.lo = lo;
							if
							:: COUNTS(s0) || lo == 0 ->
								do_settle(1, sl, vc, 0, 0)
							:: else
							fi
						}
					}
				}
			}
		}
					fi
				}
			}
		}
	}
	/* round 2, two peers, the rounds' limits and the policy */
	for (i : 0 .. NREP - 1) {
		for (j : 0 .. NREP - 1) {
			for (ts : 0 .. 1) {
				for (pol : 0 .. 1) {
					for (lo : -2 .. 3) {
						rep(s0, i);
						rep(s1, j);
						s0.ans1 = 1; s1.ans1 = (lo != 0);
						s0.first = 1; s1.first = (lo > 0);
						s0.lo = lo; s1.lo = 1 - lo;
						sl = (lo & 1); vc = 1;
						do_settle(2, sl, vc, ts, pol)
					}
				}
			}
		}
	}
	/* the waits: one or two pending peers, every status they show */
	for (kk : 0 .. 3) {
		for (a : 0 .. 1) {
			for (h : 0 .. 1) {
				for (b : 0 .. 4095) {
					if
					:: NOSUCH(kk, a, h, b) ||
					    (b & (512 + 1024)) != 0 ->
						skip
					:: else ->
						for (ts : 0 .. 1) {
							mkpeer(s0, kk, a, h, b);
							pnd0 = 1; pnd1 = 0;
							do_poll(1, ts)
						}
					fi
				}
			}
		}
	}
	for (i : 0 .. NREP - 1) {
		for (j : 0 .. NREP - 1) {
			for (ts : 0 .. 1) {
				rep(s0, i);
				rep(s1, j);
				s0.dec = (i & 1); s1.dec = (j & 1);
				pnd0 = 1; pnd1 = (i + j) & 1;
				do_poll(2, ts)
			}
		}
	}
	printf("END\n")
}
