/* SPDX-License-Identifier: ISC */
/*
 * local.c: this node's status of a cluster, from its state directory, as
 * its serve answers it and its own tools read it: the same thing.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "decide.h"
#include "state-int.h"

/* The runs that pollguard-touch recorded; one whose touch died failed. */
static void
outcome(struct pg_state *st, const char *id, const struct pg_outcome *o,
    const struct pg_stamp *now, struct pg_status *s)
{
	enum pg_run	 run;
	int64_t		 failures;

	run = pg_outcome_run(st, id, o);
	s->running = run == PG_RUN_RUNNING;
	if (s->running)
		s->pid = o->pid;
	if (o->ended) {
		s->last = 1;
		s->last_exit = o->exit_status;
		s->last_signal = o->signal;
		s->last_timeout = o->timed_out;
		s->last_duration_ms = o->duration_ms;
		s->last_end_ms = pg_stamp_elapsed(&o->end, now);
	}
	if (o->succeeded)
		s->last_success_ms = pg_stamp_elapsed(&o->success, now);
	failures = o->failures + (run == PG_RUN_DIED &&
	    o->failures < INT64_MAX);
	s->failures = failures > INT32_MAX ? INT32_MAX : (int)failures;
}

/* A run began on this node, as o says, at or after rec's claim (now). */
static int
ran_since(const struct pg_outcome *o, const struct pg_stamp *rec,
    const struct pg_stamp *now)
{
	return o->start.mono_ns > 0 && pg_stamp_same_boot(&o->start, now) &&
	    o->start.mono_ns >= rec->claim_ns;
}

/*
 * The record's claim rec is pending at now: same boot, no run began at or
 * after it (o: the outcome, NULL when none can be read), and less than
 * the wait has passed since it (doc/SAFETY.md, section 7, "From the go
 * to the job").
 */
static int
pending(const struct pg_stamp *rec, const struct pg_outcome *o,
    const struct pg_stamp *now, int64_t wait_ms)
{
	if (rec->claim_ns <= 0 || !pg_stamp_same_boot(rec, now) ||
	    now->mono_ns < rec->claim_ns ||
	    (now->mono_ns - rec->claim_ns) / 1000000 >= wait_ms)
		return 0;
	return o == NULL || !ran_since(o, rec, now);
}

int
pg_status_local(struct pg_state *st, const struct pg_cluster *c,
    const char *node, struct pg_status *s)
{
	struct pg_side	 side;
	struct pg_stamp	 rec, now;
	int		 r;

	pg_status_init(s);
	strlcpy(s->cluster, c->id, sizeof(s->cluster));
	strlcpy(s->node, node, sizeof(s->node));
	strlcpy(s->version, PG_VERSION, sizeof(s->version));
	strlcpy(s->prefer, c->prefer, sizeof(s->prefer));
	/* What pollguard-status -t compares (doc/PROTOCOL.md). */
	s->wait_ms = c->wait_ms;
	strlcpy(s->on_failure, c->on_failure == PG_ON_FAILURE_STAY ? "stay" :
	    "handover", sizeof(s->on_failure));
	strlcpy(s->backend, c->backend == PG_BACKEND_ETCD ? "etcd" : "peers",
	    sizeof(s->backend));
	if (pg_stamp_now(&now) == -1)
		return -1;
	s->at_ns = now.mono_ns;
	/* Not known: not said, and peers take the oscillator's alone. */
	if (pg_clock_rate(&s->rate_ppm) == -1)
		s->rate_ppm = -1;
	if (st == NULL)
		return 0;
	if ((r = pg_state_read(st, c->id, &rec)) == -1)
		return -1;
	/*
	 * The side record, with one open. Each part is read on its own, and
	 * a damaged one reads as none: no run (it never hides the activity
	 * record, nor ends a claim's pending), no hold (a hold only ever
	 * stops polling), no check (the node only loses its preference,
	 * never makes another node skip).
	 */
	pg_side_read(st, c->id, &side);
	if (r == 1) {
		s->elapsed_ms = pg_record_elapsed(&rec, &now);
		s->horizon = pg_stamp_in_horizon(&rec, &now);
		if (s->horizon || pending(&rec, side.outcome == 1 ? &side.o :
		    NULL, &now, c->wait_ms))
			s->claim_ms = (now.mono_ns - rec.claim_ns) / 1000000;
	}
	if (side.outcome == 1)
		outcome(st, c->id, &side.o, &now, s);
	if (side.hold == 1 && (s->hold_ms = pg_hold_left(&side.h, &now)) != 0) {
		strlcpy(s->hold_by, side.h.by, sizeof(s->hold_by));
		strlcpy(s->hold_why, side.h.why, sizeof(s->hold_why));
	}
	/* Without prefer, a left-over yield must not make a peer go. */
	if (side.checked == 1 && c->prefer[0] != '\0') {
		s->checked_ms = pg_stamp_elapsed(&side.ck.last, &now);
		s->checking_ms = pg_stamp_elapsed(&side.ck.since, &now);
		if (side.ck.yield[0] != '\0') {
			strlcpy(s->yield, side.ck.yield, sizeof(s->yield));
			s->yielded_ms = pg_stamp_elapsed(&side.ck.yielded,
			    &now);
		}
	}
	return 0;
}

int
pg_status_serve(struct pg_state *st, const struct pg_config *cfg,
    const struct pg_cluster *c, struct pg_status *s)
{
	int	 deciding = -1;

	/* The claim lock first (doc/SAFETY.md, section 4, "Waiting"). */
	if (st != NULL && (deciding = pg_claim_held(st, c->id)) == -1)
		deciding = 1;
	if (pg_status_local(st, c, cfg->node, s) == -1)
		return -1;
	if (st != NULL) {
		s->deciding = deciding;
		s->settle_ms = cfg->settle_ms;
		s->timeout_ms = cfg->timeout_ms;
	}
	return 0;
}

/* doc/SAFETY.md, section 7, "The last step". */
int
pg_still_counted(struct pg_state *st, const struct pg_cluster *c,
    const char *node, int64_t settle_ms, const struct pg_stamp *rec,
    enum pg_settle_why *why, struct pg_seen *self)
{
	struct pg_outcome	 o;
	struct pg_stamp		 now;
	int64_t			 left_ms;
	int			 r;

	memset(self, 0, sizeof(*self));
	self->name = node;
	*why = PG_LOST_SELF;
	if (pg_status_local(st, c, node, &self->status) == -1)
		return 0;
	/* A hold put on this node while it settled: as on a peer. */
	*why = PG_LOST_HELD;
	if (self->status.hold_ms > 0)
		return 0;
	if (pg_stamp_now(&now) == -1)
		left_ms = 0;
	else
		left_ms = rec->horizon_ms - (now.mono_ns - rec->claim_ns) /
		    1000000;
	self->has_status = 1;
	self->answer.kind = PG_ANSWER_ELAPSED;
	self->answer.elapsed_ms = self->status.elapsed_ms;
	*why = PG_LOST_EXPIRED;
	if (left_ms < settle_ms / 4 + 50)
		return 0;
	/*
	 * A run begun since the claim ended its pending: failing, it would
	 * let peers hand over beside this go's job. A damaged outcome shows
	 * peers no failure, and no start that ends the pending.
	 */
	*why = PG_LOST_RAN;
	if ((r = pg_outcome_read(st, c->id, &o)) == 1 &&
	    ran_since(&o, rec, &now))
		return 0;
	*why = PG_LOST_SELF;
	return r != -1 || errno == EBADMSG;
}
