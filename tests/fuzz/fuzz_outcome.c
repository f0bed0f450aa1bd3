/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the side record (".CLUSTER.side"). pg_outcome_parse, the
 * reader of its outcome part, on an exact-size copy of the input: what
 * it accepts must keep the promises of pollguard.h and pollguard(7) (a
 * version 1 part, values in range, exactly one of exit and signal once a
 * run ended), format, and parse back to the same outcome; what it
 * refuses must be EBADMSG with nothing left in the structure. The same
 * input is read as a hold part (pg_hold_parse) too: what that accepts is
 * in range and formats and parses back the same; and as a whole side
 * record (pg_side_parse), which must read an outcome or a hold alone as
 * that part, and refuse only with EBADMSG, every part damaged.
 */
#include <errno.h>
#include <limits.h>

#include "pollguard.h"
#include "fuzz.h"

static int
stamp_eq(const struct pg_stamp *a, const struct pg_stamp *b)
{
	return strcmp(a->boot_id, b->boot_id) == 0 &&
	    a->mono_ns == b->mono_ns && a->wall_ns == b->wall_ns &&
	    a->claim_ns == 0 && b->claim_ns == 0;
}

/* The input as a hold file. */
static void
hold(const char *buf, size_t size)
{
	struct pg_hold	 h, back;
	char		 out[1024];
	int		 n;

	if (pg_hold_parse(buf, size, &h) == -1) {
		check(errno == EBADMSG, "hold: errno %d", errno);
		return;
	}
	check(h.ms > 0 && h.ms <= PG_HOLD_MAX_MS, "hold of %lld ms",
	    (long long)h.ms);
	check(terminated(h.by, sizeof(h.by)) && terminated(h.why,
	    sizeof(h.why)) && printable(h.by) && printable(h.why),
	    "hold: by or why");
	n = pg_hold_format(&h, out, sizeof(out));
	check(n > 0 && (size_t)n < sizeof(out), "hold: cannot format: %d", n);
	check(pg_hold_parse(out, n, &back) == 0, "hold: does not parse back: "
	    "%s", out);
	check(back.ms == h.ms && stamp_eq(&back.until, &h.until) &&
	    strcmp(back.by, h.by) == 0 && strcmp(back.why, h.why) == 0,
	    "hold: parses back different: %s", out);
}

/* The input as a side record, and as the outcome or hold alone in one. */
static void
side(const char *buf, size_t size)
{
	struct pg_side		 sd;
	struct pg_outcome	 o;
	struct pg_hold		 h;
	int			 r;

	r = pg_side_parse(buf, size, &sd);
	check(r == 0 || (errno == EBADMSG && sd.outcome == -1 &&
	    sd.hold == -1 && sd.checked == -1), "side: refused, but how");
	check(sd.outcome >= -1 && sd.outcome <= 1 && sd.hold >= -1 &&
	    sd.hold <= 1 && sd.checked >= -1 && sd.checked <= 1, "side: parts");
	if (pg_outcome_parse(buf, size, &o) == 0)
		check(r == 0 && sd.outcome == 1 && sd.hold == 0 &&
		    sd.checked == 0 && sd.o.failures == o.failures &&
		    sd.o.running == o.running, "side: an outcome alone");
	if (pg_hold_parse(buf, size, &h) == 0)
		check(r == 0 && sd.hold == 1 && sd.outcome == 0 &&
		    sd.h.ms == h.ms, "side: a hold alone");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_outcome	 o, back;
	char			*buf, out[PG_OUTCOME_MAX + 1];
	int			 n;

	buf = fuzz_copy(data, size);
	hold(buf, size);
	side(buf, size);
	memset(&o, 0x5a, sizeof(o));
	if (pg_outcome_parse(buf, size, &o) == -1) {
		check(errno == EBADMSG, "errno %d", errno);
		check(o.running == 0 && o.ended == 0 && o.failures == 0 &&
		    o.start.boot_id[0] == '\0', "a failed parse left data");
		free(buf);
		return 0;
	}
	check(size <= PG_OUTCOME_MAX, "outcome of %zu bytes", size);
	check(memcmp(buf, "pollguard-outcome 1\n", 20) == 0, "version line");
	check(o.running == 0 || o.running == 1, "running %d", o.running);
	check(o.running || o.ended, "neither running nor ended");
	check(o.pid >= 0 && o.failures >= 0, "negative pid or failures");
	check(terminated(o.start.boot_id, sizeof(o.start.boot_id)) &&
	    terminated(o.end.boot_id, sizeof(o.end.boot_id)), "boot id");
	check(o.start.mono_ns >= 0 && o.start.wall_ns >= 0, "start");
	check(terminated(o.success.boot_id, sizeof(o.success.boot_id)) &&
	    (o.succeeded || (o.success.mono_ns == 0 &&
	    o.success.boot_id[0] == '\0')), "success");
	if (o.ended) {
		check(o.end.mono_ns >= 0 && o.end.wall_ns >= 0 &&
		    o.duration_ms >= 0, "end");
		check((o.exit_status == -1) != (o.signal == 0),
		    "exit %d and signal %d", o.exit_status, o.signal);
		check(o.exit_status <= 255 && o.signal >= 0 &&
		    o.signal <= 127, "exit or signal out of range");
		check(o.timed_out == 0 || o.timed_out == 1, "timed_out");
	} else
		check(o.exit_status == -1 && o.signal == 0 &&
		    o.timed_out == 0 && o.duration_ms == 0,
		    "a result without an end");
	n = pg_outcome_format(&o, out, sizeof(out));
	check(n > 0 && (size_t)n < sizeof(out), "cannot format: %d", n);
	check(pg_outcome_parse(out, n, &back) == 0, "does not parse back: %s",
	    out);
	check(back.running == o.running && back.pid == o.pid &&
	    stamp_eq(&back.start, &o.start) && back.ended == o.ended &&
	    stamp_eq(&back.end, &o.end) && back.duration_ms == o.duration_ms &&
	    back.exit_status == o.exit_status && back.signal == o.signal &&
	    back.timed_out == o.timed_out && back.failures == o.failures &&
	    back.succeeded == o.succeeded &&
	    stamp_eq(&back.success, &o.success),
	    "parses back different: %s", out);
	free(buf);
	return 0;
}
