/* SPDX-License-Identifier: ISC */
/*
 * rulecmp: the model's decision rule against the library's. Reads the
 * lines of doc/model/ruledrv.pml (the model's verdict on every input of
 * its abstract domain), builds for each a concrete struct pg_claim and
 * struct pg_seen that the abstract input stands for, asks pg_decide,
 * pg_settle or pg_settle_poll, and compares. Prints
 *
 *	model rule vs lib: N inputs, M differ
 *
 * with each input that differs above it; exit 1 when M > 0 (or when an
 * input cannot be built, or nothing was read).
 *
 * The concrete values are searched, not guessed: each candidate is
 * turned back into the abstract bits by the definitions in
 * doc/model/README.md ("The rule's inputs") and kept only when every
 * bit matches; the lower bound of a peer's claim is met to the
 * nanosecond (lo ticks of settle/4, at the thresholds exactly).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pollguard.h"

#define MS		1000000LL
#define SETTLE_MS	500LL
#define TIMEOUT_MS	2000LL
#define TICK		(SETTLE_MS * MS / 4)	/* the model's W */
#define WAIT_MS		600000LL
#define NOW		(5000LL * 1000 * MS)	/* round 2, and recv */
#define CLAIM		(NOW - 10LL * 1000 * MS)
#define SLACK_MS	1000LL			/* prefer slack */
#define NODE		"m"

/* The model's kinds and verdicts (doc/model/rule.pml) */
enum { K_ELAPSED, K_NEVER, K_UNREACH, K_INVALID };
#define V_WAIT		9

struct abs {
	int	 k, act, hs, hold, going, clm, fail, last, since, cool, el;
	int	 yme, yend, ybeg, dec, ans1, first, lo;
};

static const char *const names[2][2] = {
	{ "a0", "z0" },		/* peer 0: sorts before NODE, after */
	{ "a1", "z1" }
};

static int	 verbose;

static int
parse_peer(char **p, struct abs *a)
{
	int	*f[] = { &a->k, &a->act, &a->hs, &a->hold, &a->going, &a->clm,
	    &a->fail, &a->last, &a->since, &a->cool, &a->el, &a->yme,
	    &a->yend, &a->ybeg, &a->dec, &a->ans1, &a->first, &a->lo };
	char	*end;
	size_t	 i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		*f[i] = (int)strtol(*p, &end, 10);
		if (end == *p)
			return -1;
		*p = end;
	}
	return 0;
}

/*
 * lower_bound of lib/decide.c: the earliest moment of s's claim, at the
 * oscillators' rates (neither this node's nor a peer's rate said: 500
 * ppm each, R = 1000 ppm; doc/SAFETY.md, section 3)
 */
static int64_t
lower_bound(int64_t claim_ns, int64_t sent_ns, int64_t e_ms)
{
	int64_t	 e = e_ms * MS, x, drift;
	int64_t	 r = 2 * PG_RATE_BASE, d = 1000000 - PG_RATE_BASE;

	x = e + MS + llabs(sent_ns - claim_ns);
	drift = x / d * r + (x % d * r + d - 1) / d + 1;
	return sent_ns - e - MS - drift - claim_ns;
}

/* The sent_ns that puts the lower bound at target exactly, or -1. */
static int
meet_bound(int64_t e_ms, int64_t target, int64_t *sent)
{
	int64_t	 lo = -(1LL << 50), hi = 1LL << 50, mid;

	/* lower_bound is nondecreasing in sent: the least with >= target */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (lower_bound(CLAIM, CLAIM + mid, e_ms) >= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lower_bound(CLAIM, CLAIM + lo, e_ms) != target)
		return -1;
	*sent = CLAIM + lo;
	return 0;
}

/*
 * Build peer i (seen) from a, for cooldown C and this node's last end
 * OL; wait is WAIT_MS. round2: place its claim's bound at a->lo ticks.
 * 0, or -1 when no candidate gives every bit.
 */
static int
build_peer(const struct abs *a, int i, int64_t C, int64_t OL, int round2,
    struct pg_seen *s)
{
	static const int64_t	 act_e[] = { 1000, 50000, 300000, 599999 };
	static const int64_t	 idle_e[] = { 600000, 700000, 2000000 };
	static const int64_t	 dur[] = { 0, 100, 5000000 };
	const int64_t		*es;
	int64_t			 e, L, Y, D, ls[12], ys[6];
	size_t			 ne, ie, il, iy, id;
	const char		*name = names[i][a->first];
	struct pg_status	*st = &s->status;
	int			 since, cool, el, yend, ybeg;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->answered = a->ans1;
	s->recv_ns = NOW;
	s->sent_ns = NOW - 10 * MS;
	snprintf(s->why, sizeof(s->why), "model");
	pg_status_init(st);
	switch (a->k) {
	case K_UNREACH:
		s->answer.kind = PG_ANSWER_UNREACHABLE;
		return 0;
	case K_INVALID:
		s->answer.kind = PG_ANSWER_INVALID;
		return 0;
	case K_NEVER:
		s->answer.kind = PG_ANSWER_NEVER;
		s->answer.elapsed_ms = PG_NEVER;
		es = NULL;
		ne = 1;
		break;
	default:
		s->answer.kind = PG_ANSWER_ELAPSED;
		es = a->act ? act_e : idle_e;
		ne = a->act ? 4 : 3;
		break;
	}
	s->has_status = a->hs;
	if (!a->hs) {
		if (es != NULL) {
			s->answer.elapsed_ms = es[0];
			if (round2 && meet_bound(es[0], a->lo * TICK,
			    &s->sent_ns) == -1)
				return -1;
		}
		return 0;
	}
	for (ie = 0; ie < ne; ie++) {
		e = es != NULL ? es[ie] : PG_NEVER;
		/* the end of its last run, around e, C and OL */
		ls[0] = 10; ls[1] = 400000; ls[2] = 1000000; ls[3] = 3000000;
		ls[4] = C - 1; ls[5] = C; ls[6] = OL; ls[7] = OL + 1;
		ls[8] = es != NULL ? e : 5; ls[9] = es != NULL ? e + 1000 : 6;
		ls[10] = es != NULL ? e + 1001 : 7;
		ls[11] = es != NULL ? e + 50000 : 8;
		for (il = 0; il < 12; il++) {
			L = ls[il];
			if (L < 0)
				continue;
			/* as pg_handover_ignores and pg_yield_ignores read it */
			since = es != NULL && e + PG_HANDOVER_SLACK_MS < L;
			cool = L < C;
			el = L < OL || (L == OL && strcasecmp(NODE, name) > 0);
			if ((es != NULL && since != a->since) ||
			    (a->last && a->fail && !a->going && cool != a->cool) ||
			    el != a->el)
				continue;
			ys[0] = L + 1; ys[1] = L + 200; ys[2] = L + 6000000;
			ys[3] = L; ys[4] = L > 0 ? L - 1 : 0; ys[5] = 0;
			for (iy = 0; iy < 6; iy++)
				for (id = 0; id < 3; id++) {
					Y = ys[iy];
					D = dur[id];
					yend = L < Y;
					ybeg = D < Y - L;
					if (yend == a->yend && ybeg == a->ybeg)
						goto found;
				}
		}
	}
	return -1;
found:
	s->answer.elapsed_ms = e;
	st->elapsed_ms = e;
	st->claim_ms = a->clm ? (es != NULL ? e : 0) : -1;
	st->running = a->going;
	st->failures = a->fail;
	st->last = a->last;
	st->last_end_ms = L;
	st->last_duration_ms = D;
	st->hold_ms = a->hold ? 60000 : 0;
	st->deciding = a->dec;
	st->settle_ms = SETTLE_MS;
	st->timeout_ms = TIMEOUT_MS;
	if (a->yme)
		strlcpy(st->yield, NODE, sizeof(st->yield));
	else
		strlcpy(st->yield, "q", sizeof(st->yield));
	st->yielded_ms = Y;
	if (round2 && es != NULL &&
	    meet_bound(e, a->lo * TICK, &s->sent_ns) == -1)
		return -1;
	return 0;
}

static void
cluster(struct pg_cluster *c, int64_t C, int pol)
{
	memset(c, 0, sizeof(*c));
	strlcpy(c->id, "mail", sizeof(c->id));
	c->wait_ms = WAIT_MS;
	c->unreachable = pol ? PG_UNREACHABLE_SKIP : PG_UNREACHABLE_RUN;
	c->on_failure = PG_ON_FAILURE_HANDOVER;
	c->cooldown_ms = C;
	c->failback = 1;
	c->failback_after_ms = WAIT_MS;
	c->prefer_slack_ms = SLACK_MS;
}

static void
claim(struct pg_claim *cl, int slept, int vc, int tooslow)
{
	memset(cl, 0, sizeof(*cl));
	cl->node = NODE;
	cl->claim_ns = CLAIM;
	cl->visible_ns = CLAIM + vc * TICK;
	cl->settle_ms = SETTLE_MS;
	cl->timeout_ms = TIMEOUT_MS;
	cl->horizon_ms = pg_claim_horizon(TIMEOUT_MS, SETTLE_MS);
	cl->start_ns = CLAIM - 100 * MS;
	cl->end_ns = cl->start_ns + (tooslow ? cl->horizon_ms * MS : 1000 * MS);
	cl->on_failure = PG_ON_FAILURE_HANDOVER;
	cl->slept = slept;
	cl->prev_check_ns = NOW;	/* pg_prefer_prev_check of own, below */
	cl->yield_slack_ms = SLACK_MS;
}

static int
verdict_of(enum pg_verdict v, enum pg_settle_why why)
{
	if (v == PG_GO && why == PG_WAIT)
		return V_WAIT;
	return (int)v;
}

int
main(int argc, char *argv[])
{
	static const int64_t	 Cs[] = { 300000, 600500, 1000000, 2500000 };
	static const int64_t	 OLs[] = { 400000, 1000, 2000000, 600000 };
	char			 line[1024], *p;
	struct abs		 a[2];
	struct pg_cluster	 c;
	struct pg_claim		 cl;
	struct pg_seen		 seen[2];
	struct pg_status	 own;
	struct pg_decision	 d;
	enum pg_settle_why	 why;
	enum pg_verdict		 v;
	size_t			 peer, ic, io;
	long			 n = 0, differ = 0, unbuilt = 0;
	int			 x[5], np, i, want, got, wp[2], pend[3];
	int			 ok, round2;
	char			 kind;

	if (argc > 1 && strcmp(argv[1], "-v") == 0)
		verbose = 1;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		p = line + strspn(line, " \t");
		kind = *p;
		if (kind != 'D' && kind != 'S' && kind != 'W')
			continue;
		p++;
		/* D oh oc pol np | S slept vc tooslow pol np | W ts np p0 p1 */
		for (i = 0; i < (kind == 'S' ? 5 : 4); i++)
			x[i] = (int)strtol(p, &p, 10);
		np = kind == 'W' ? x[1] : x[kind == 'D' ? 3 : 4];
		if (np < 1 || np > 2 || parse_peer(&p, &a[0]) == -1 ||
		    (np == 2 && parse_peer(&p, &a[1]) == -1) ||
		    (p = strchr(p, '=')) == NULL) {
			fprintf(stderr, "rulecmp: cannot read: %s", line);
			return 1;
		}
		p++;
		want = (int)strtol(p, &p, 10);
		wp[0] = (int)strtol(p, &p, 10);
		wp[1] = (int)strtol(p, &p, 10);
		round2 = kind == 'S';

		/* a cooldown and an end of our own run that give every bit */
		ok = 0;
		for (ic = 0; ic < 4; ic++) {
			for (io = 0; io < 4; io++) {
				if (kind == 'D' && x[1] && OLs[io] >= Cs[ic])
					continue;
				ok = 1;
				for (i = 0; i < np && ok; i++)
					if (build_peer(&a[i], i, Cs[ic], OLs[io],
					    round2, &seen[i]) == -1)
						ok = 0;
				if (ok)
					break;
			}
			if (ok)
				break;
		}
		if (!ok) {
			unbuilt++;
			if (verbose)
				fprintf(stderr, "rulecmp: no concrete input "
				    "for: %s", line);
			continue;
		}
		n++;
		switch (kind) {
		case 'D':
			cluster(&c, Cs[ic], x[2]);
			pg_status_init(&own);
			own.at_ns = NOW;
			own.checked_ms = 0;
			own.elapsed_ms = 1000;
			own.hold_ms = x[0] ? 60000 : 0;
			if (x[1]) {
				own.failures = 1;
				own.last = 1;
				own.last_end_ms = OLs[io];
			} else
				own.last_end_ms = OLs[io];
			pg_decide(&c, NODE, &own, 0, seen, np, &d);
			got = (int)d.verdict;
			wp[0] = wp[1] = 0;
			pend[0] = pend[1] = 0;
			break;
		case 'S':
			claim(&cl, x[0], x[1], x[2]);
			v = pg_settle(&cl, WAIT_MS, x[3] ? PG_UNREACHABLE_SKIP :
			    PG_UNREACHABLE_RUN, seen, np, pend, &why, &peer);
			got = verdict_of(v, why);
			break;
		default:
			claim(&cl, 1, 0, x[0]);
			pend[0] = x[2];
			pend[1] = x[3];
			v = pg_settle_poll(&cl, WAIT_MS, seen, np, pend, &why,
			    &peer);
			got = verdict_of(v, why);
			break;
		}
		if (got != want || (want == V_WAIT && (pend[0] != wp[0] ||
		    (np == 2 && pend[1] != wp[1])))) {
			differ++;
			if (differ <= 50)
				printf("differ: %.*s -> lib %d%s\n",
				    (int)strcspn(line + strspn(line, " \t"),
				    "\n"), line + strspn(line, " \t"), got,
				    got == V_WAIT ? (pend[0] ? " pending 1" :
				    " pending 0") : "");
		}
	}
	if (differ > 50)
		printf("(%ld more differ)\n", differ - 50);
	if (unbuilt > 0)
		printf("model rule vs lib: %ld inputs of the model's domain "
		    "have no concrete form (their bits contradict)\n", unbuilt);
	printf("model rule vs lib: %ld inputs, %ld differ\n", n, differ);
	return n == 0 || differ > 0 || unbuilt > 0;
}
