/* SPDX-License-Identifier: ISC */
/*
 * etcd.pml: strict mode's lease (bin/etcd.c, keepalive() and
 * etcd_hold_refresh(); pollguard(7), STRICT MODE ON ETCD), for SPIN.
 *
 * A job runs on node a under a lease of etcd's; pollguard-touch keeps it
 * alive, each keepalive an attempt that takes up to K ticks, answered or
 * not (a lost request, a lost answer). etcd renews the lease for TTL from
 * the moment it takes a keepalive, if the lease has not expired then.
 * Node b acquires the key as soon as the lease has expired. The job must
 * have been told, and stopped (it stops within STOPT of being told),
 * before b can acquire: the property.
 *
 * Time runs only when every process waits (timeout): a process is never
 * held up here, since a pollguard-touch held up past its deadline is
 * the pause no lease without fencing can rule out (pollguard(7), WHAT IT
 * IS NOT); the fencing token is for that. What is checked is the
 * deadline: told by it, the job is stopped before the lease can expire.
 *
 * Mutants: MUT_etcd_answer_time (the deadline from the moment the
 * answer came, not from the clock read before the keepalive was sent);
 * MUT_etcd_stale_clock (the code before: after a failed attempt that
 * took longer than the time left, the time left judged by the clock
 * read before it; an attempt not cut at the deadline);
 * MUT_etcd_unbounded (only the attempt not cut); MUT_etcd_stale_only
 * (only the clock read before: harmless while the attempt is cut);
 * MUT_etcd_no_margin (told at the moment the lease can expire).
 */
#ifdef MUT_etcd_stale_clock
#define MUT_etcd_stale_only
#define MUT_etcd_unbounded
#endif

#define TTL	6	/* the lease's TTL */
#define M	2	/* STOP_MARGIN_MS: a second to stop, and the drift */
#define STOPT	1	/* the job stops within this of being told */
#define STEP	2	/* the next keepalive: TTL / 3 later */
#define MINK	1	/* KEEPALIVE_MIN_MS: a retry */
#define K	4	/* an attempt takes up to K ticks */
#define TMAX	20

#ifdef MUT_etcd_no_margin
#define MARGIN	0
#else
#define MARGIN	M
#endif

short	now;
short	E = TTL;		/* etcd: the lease expires then */
bit	job1 = 1;		/* a's job runs */
bit	told;			/* a's touch told it to stop */
bit	job2;			/* b acquired the key, its job runs */
short	deadline = TTL - MARGIN;	/* a's: tell the job then */
short	due = STEP;		/* a's next keepalive */

/* time passes when nothing else can happen */
active proctype Clock()
{
end:	do
	:: timeout && now < TMAX -> now++
	od
}

#define NOREQ	-1

short	req = NOREQ;		/* etcd takes the keepalive then */
byte	res;			/* and answers 1 renewed, 2 expired */

/* etcd: renews the lease from the moment it takes a keepalive */
active proctype Etcd()
{
end:	do
	:: req != NOREQ && now >= req ->
		atomic {
			if
			:: now < E -> E = now + TTL; res = 1
			:: else -> res = 2
			fi;
			req = NOREQ
		}
	od
}

/* pollguard-touch on a: the lease's part of its main loop */
active proctype Touch()
{
	short	s, r, a, fin, t;
	bit	answered, ok, gone;

end:	do
	:: told -> break
	:: !told && (now >= due || now >= deadline) ->
		/* etcd_hold_refresh(now) */
		s = now;
		if
		:: s >= deadline -> told = 1; break
		:: else
		fi;
		/*
		 * keepalive(s): etcd takes it at s + r (or never: r < 0), its
		 * answer comes at a, from then to s + K (or never)
		 */
		if
		:: r = 0
		:: r = 1
		:: r = 2
		:: r = 3
		:: r = K
		:: r = -1
		fi;
		res = 0;
		req = (r >= 0 -> s + r : NOREQ);
		a = (r >= 0 -> s + r : s + K);
		do
		:: a < s + K -> a++
		:: break
		od;
		if
		:: r >= 0 -> answered = 1
		:: answered = 0
		fi;
		fin = a;
#ifndef MUT_etcd_unbounded
		/* the attempt is over by the deadline (c->until) */
		if
		:: fin > deadline -> fin = deadline
		:: else
		fi;
#endif
end2:		(now >= fin && (req == NOREQ || fin < a));
		ok = (answered && fin == a && res == 1);
		gone = (answered && fin == a && res == 2);
		if
		:: ok ->
#ifdef MUT_etcd_answer_time
			deadline = a + TTL - MARGIN;
#else
			deadline = s + TTL - MARGIN;
#endif
			due = (s + STEP < deadline -> s + STEP : deadline)
		:: else ->
			/* the try may have taken the time left: the clock */
#ifdef MUT_etcd_stale_only
			t = s;
#else
			t = now;
#endif
			if
			:: !gone && t < deadline ->
				due = (t + MINK < deadline -> t + MINK : deadline)
			:: else -> told = 1; break
			fi
		fi
	od
}

/* a's job: stops within STOPT of being told (SIGTERM) */
active proctype Job()
{
	short	at;

end:	told;
	if
	:: at = now
	:: at = now + STOPT
	fi;
	(now >= at);
	job1 = 0
}

/* b: pollguard-check, create-if-absent: the key is free once the lease
   has expired */
active proctype Other()
{
end:	(now >= E);
	atomic {
		assert(!job1);
		job2 = 1
	}
}
