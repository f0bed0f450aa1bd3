/* SPDX-License-Identifier: ISC */
/*
 * pollguard-run: "pollguard-check cluster && pollguard-touch cluster --
 * command" in one process (pollguard-run(1)): check's decision
 * (bin/check-decide.c) with the run lock taken before the go, then
 * touch's run (bin/touch-run.c), its start recorded at the go.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decide.h"
#include "check.h"
#include "touch.h"

/* '+': options end at the cluster, so the command keeps its own. */
#define OPTS	"+c:nqt:vw:"
#define USAGE	"usage: pollguard-run [-nqv] [-c file] [-t duration] " \
	"[-w duration] cluster -- command [argument ...]\n"

/*
 * -w: the pause before the next try, while another node holds the round:
 * timeout + settle (a round's length), from half to one and a half of it
 * at random so that waiting nodes do not ask in step, and never past the
 * deadline (at which one last try is made).
 */
static int64_t
pause_ms(const struct tool *t, int64_t now, int64_t deadline)
{
	int64_t	 round = t->cfg->timeout_ms + t->cfg->settle_ms, ms;

	ms = round / 2 + arc4random_uniform((uint32_t)round + 1);
	return ms < deadline - now ? ms : deadline - now;
}

static void
nap(int64_t ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	while (nanosleep(&ts, &ts) == -1)
		;
}

/*
 * Decide as pollguard-check does, again and again under -w while the
 * round is another's (a skip of 1 or 2) until wait_ms has passed. On a
 * go, *claimfd and *runfd hold the claim and run locks.
 */
static int
decide(struct tool *t, int claim, int64_t wait_ms, int *claimfd, int *runfd)
{
	char	 left[PG_DURATION_MAX];
	int64_t	 started, now, deadline = 0;
	int	 v;

	for (;;) {
		if (pg_clock(CLOCK_BOOTTIME, &started) == -1)
			started = INT64_MAX;	/* never "after it started" */
		v = check_decide(t, claim, started, claimfd, runfd);
		if (v == PG_GO || !claim || wait_ms == 0 ||
		    (v != PG_SKIP_ACTIVE && v != PG_SKIP_LOCAL))
			return v;
		now = tool_clock_ms(CLOCK_BOOTTIME);
		if (deadline == 0)
			deadline = now + wait_ms;
		if (now >= deadline) {
			tool_decided(t, "%s: skip: waited %s for the round, "
			    "in vain (-w)", t->cluster->id,
			    pg_duration_text(wait_ms, left));
			return v;
		}
		pg_duration_format(deadline - now, left, sizeof(left));
		tool_explain(t, "%s: waiting for the round, %s more (-w)",
		    t->cluster->id, left);
		/* Nothing claimed, nothing held: a signal simply ends it. */
		tool_catch(SIG_DFL, 0);
		nap(pause_ms(t, now, deadline));
	}
}

int
main(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	const char		*conf = NULL, *errstr;
	char			 left[PG_DURATION_MAX];
	int64_t			 limit_ms = -1, wait_ms = 0;
	int			 ch, claim = 1, v, claimfd, runfd;
	void			(*onpipe)(int);

	argv[0] = (char *)getprogname();
	tool_options(argc, argv, OPTS, USAGE);
	while ((ch = getopt(argc, argv, OPTS)) != -1) {
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
		case 't':
			limit_ms = touch_limit(optarg);
			break;
		case 'v':
			t.verbose = 1;
			break;
		case 'w':
			if (pg_duration_parse(optarg, 1000, PG_WAIT_MAX_MS,
			    &wait_ms, &errstr) == -1)
				tool_die(EX_USAGE, "-w %s: %s (a duration from "
				    "1s to 30d)", optarg, errstr);
			break;
		default:
			tool_usage(USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || strcmp(argv[1], "--") != 0)
		tool_usage(USAGE);

	openlog(getprogname(), LOG_PID, LOG_USER);
	/* A reader gone (run -v | head) must not kill a claim's check. */
	onpipe = signal(SIGPIPE, SIG_IGN);
	if (!claim)
		t.verbose = 1;		/* -n says what it would do */
	tool_setup(&t, conf, argv[0]);
	v = decide(&t, claim, wait_ms, &claimfd, &runfd);
	if (!claim) {
		tool_explain(&t, "%s: -n: %s %s; nothing claimed, nothing "
		    "run", t.cluster->id, v == PG_GO ? "would run" :
		    "would not run", argv[2]);
		if ((v == PG_SKIP_ACTIVE || v == PG_SKIP_LOCAL) && wait_ms > 0)
			tool_explain(&t, "%s: -n: would wait up to %s for the "
			    "round (-w)", t.cluster->id,
			    pg_duration_text(wait_ms, left));
	}
	if (v != PG_GO || !claim) {
		fflush(NULL);
		_exit(tool_status(v));
	}
	/* On etcd: keep the lease that the go took alive. */
	touch_lease_start(&t, NULL, 0, 0);
	/* The job gets SIGPIPE as it would have without pollguard-run. */
	signal(SIGPIPE, onpipe);
	tool_explain(&t, "%s: running %s", t.cluster->id, argv[2]);
	touch_run(&t, argv + 2, limit_ms >= 0 ? limit_ms :
	    t.cluster->max_runtime_ms, runfd, claimfd);
}
