/*
 * pollguard-check: may this node poll now? Exit 0 (and claim the round)
 * or skip. This version decides for standalone clusters only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tool.h"

static __dead void
usage(void)
{
	fprintf(stderr, "usage: pollguard-check [-nqv] [-c file] cluster\n");
	exit(EX_USAGE);
}

/*
 * Read this node's own record: a damaged one is reported, not silently
 * replaced. With -v, say how long ago this node was last active.
 */
static void
read_own(struct tool *t)
{
	struct pg_stamp	 rec, now;
	char		 ago[32];
	int		 r;

	if ((r = pg_state_read(&t->state, t->cluster->id, &rec)) == -1) {
		if (errno == EBADMSG)
			tool_die(EX_DATAERR, "%s/%s: not a valid state record;"
			    " 'pollguard-touch %s' replaces it", t->state.path,
			    t->cluster->id, t->cluster->id);
		tool_die_errno(EX_IOERR, "%s/%s", t->state.path,
		    t->cluster->id);
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

int
main(int argc, char *argv[])
{
	struct tool		 t = { 0 };
	struct pg_decision	 d;
	const char		*conf = NULL, *id;
	int			 ch, held, claim = 1;

	while ((ch = getopt(argc, argv, "c:nqv")) != -1) {
		switch (ch) {
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
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();

	tool_init();
	tool_setup(&t, conf, argv[0]);
	id = t.cluster->id;
	read_own(&t);

	if ((held = pg_lock_held(&t.state, id)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t.state.path, id);
	if (!held && t.cluster->npeers > 0)
		tool_die(EX_UNAVAILABLE, "cluster %s has peers; peer queries "
		    "are not supported by this version", id);

	pg_decide(t.cluster->wait_ms, t.cluster->unreachable, held, NULL, 0,
	    &d);
	if (d.standalone)
		tool_warn(&t, "cluster %s has no peers: standalone, always "
		    "polling", id);
	if (d.verdict == PG_SKIP_LOCAL) {
		tool_explain(&t, "%s: skip: a run on this node is still going",
		    id);
		return d.verdict;
	}
	if (claim && pg_state_touch(&t.state, id) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot record activity in %s/%s",
		    t.state.path, id);
	tool_explain(&t, "%s: go%s", id, claim ? ", claimed" :
	    " (not claimed: -n)");
	return PG_GO;
}
