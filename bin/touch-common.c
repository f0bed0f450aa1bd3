/* SPDX-License-Identifier: ISC */
/*
 * touch-common.c: what pollguard-touch, its runs (bin/touch-run.c) and
 * pollguard-run share (touch.h): the runtime limit, recording activity.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdlib.h>

#include "touch.h"

int64_t
touch_limit(const char *arg)
{
	const char	*errstr;
	int64_t		 ms;

	if (pg_duration_parse(arg, 0, PG_WAIT_MAX_MS, &ms, &errstr) == 0 &&
	    ms > 0 && ms < PG_RUNTIME_MIN_MS)
		errstr = "too small";
	if (errstr != NULL)
		tool_die(EX_USAGE, "-t %s: %s (a duration from 100ms to 30d, "
		    "or 0 for no limit)", arg, errstr);
	return ms;
}

int
touch_refresh(struct tool *t, int fatal)
{
	static char	 last[PG_RECORD_MAX];	/* the record, as last read */
	static ssize_t	 lastlen;
	static int	 reported;	/* errno of the failure last reported */
	char		 err[PG_ERR_MAX];
	const char	*id = t->cluster->id;
	ssize_t		 n;
	int		 r = 0, moved;

	touch_lease_keep(t);
	/* Removed, renamed or replaced: made again, the record carried. */
	if ((moved = pg_state_moved(&t->state)) == 1) {
		if (t->state.dirfd != -1)
			tool_error("%s: the state directory %s was removed or "
			    "replaced: making it again", id, t->state.path);
		if (pg_state_reopen(&t->state, id, last, lastlen, err,
		    sizeof(err)) == -1) {
			if (errno != reported)
				tool_error("%s: %s: the peers cannot see this "
				    "node's activity; trying again", id, err);
			reported = errno;
			if (fatal)
				exit(EX_CANTCREAT);
			return -2;
		}
		r = 1;
	}
	if (pg_state_touch(&t->state, id) == 0) {
		if (r == 1)
			tool_warn(t, "%s: the state directory %s is back, "
			    "and activity recorded in it", id, t->state.path);
		reported = 0;
		if ((n = pg_state_read_raw(&t->state, id, last,
		    sizeof(last))) > 0)
			lastlen = n;
		return r;
	}
	if (errno != reported) {
		reported = errno;
		tool_error("cannot record activity in %s/%s: %s",
		    t->state.path, id, tool_strerror(errno));
	}
	if (fatal)
		exit(EX_CANTCREAT);
	return r == 1 ? -2 : -1;
}
