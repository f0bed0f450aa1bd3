/* SPDX-License-Identifier: ISC */
/*
 * pgstate: a test helper, never installed. It makes state the tests need
 * without sleeping: records of a given age, records from another boot, a
 * run lock held for a while; it reads a record's elapsed time and the
 * outcome of the job's last run; and it touches a record as fast as it
 * can, checking that no touch is undone.
 *
 *	pgstate [-c file] write CLUSTER AGE_MS
 *	pgstate [-c file] oldboot CLUSTER WALL_AGE_MS
 *	pgstate [-c file] read CLUSTER
 *	pgstate [-c file] lock CLUSTER SECONDS
 *	pgstate [-c file] touch CLUSTER SECONDS [PAUSE]
 *	pgstate [-c file] outcome CLUSTER
 *
 * outcome prints "none", or the fields of the outcome one "key value"
 * a line, with times as elapsed milliseconds ("start_ago", "end_ago",
 * "success_ago")
 * and "run" the verdict of pg_outcome_run: done, running or died.
 */
#include <err.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pollguard.h"
#include "state-int.h"

/* Static, so the configuration is still reachable at exit (LeakSanitizer). */
static struct pg_config	*cfg;
static volatile sig_atomic_t	 stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * pg_state_touch in a loop for up to secs seconds or until SIGTERM. After
 * each touch returns, and again a millisecond later, the record must be
 * no older than the moment the touch began: a record older than that
 * means a writer (a withdrawing check) undid the touch. Each such record
 * is a line on stderr; the count is on stdout. Exit 1 when any was lost.
 * While the file pause exists (pause not NULL), no touch is begun.
 */
static int
hammer(struct pg_state *st, const char *cluster, long long secs,
    const char *pause_file)
{
	struct timespec	 pause = { 0, 1000000 };
	struct pg_stamp	 t0, rec, end;
	long long	 n = 0, lost = 0, failed = 0;
	int		 i, r;

	signal(SIGTERM, on_term);
	if (pg_stamp_now(&end) == -1)
		err(2, "clock");
	end.mono_ns += secs * 1000000000LL;
	while (!stop && pg_stamp_now(&t0) == 0 && t0.mono_ns < end.mono_ns) {
		if (pause_file != NULL && access(pause_file, F_OK) == 0) {
			nanosleep(&pause, NULL);
			continue;
		}
		if (pg_state_touch(st, cluster) == -1) {
			warn("touch %s", cluster);
			failed++;
			continue;
		}
		n++;
		for (i = 0; i < 2; i++) {
			if ((r = pg_state_read(st, cluster, &rec)) != 1 ||
			    rec.mono_ns < t0.mono_ns) {
				lost++;
				fprintf(stderr, "touch %lld began at %" PRId64
				    " ns; then the record %s %" PRId64 "\n", n,
				    t0.mono_ns, r == 1 ? "was of" : "was gone:",
				    r == 1 ? rec.mono_ns : (int64_t)r);
				break;
			}
			if (i == 0)
				nanosleep(&pause, NULL);
		}
	}
	printf("%lld touches, %lld undone, %lld failed\n", n, lost, failed);
	return lost > 0 || failed > 0;
}

static int
outcome(struct pg_state *st, const char *cluster, const struct pg_stamp *now)
{
	static const char *const runs[] = { "none", "done", "running",
	    "died" };
	struct pg_outcome	 o;
	int			 r;

	if ((r = pg_outcome_read(st, cluster, &o)) == -1)
		err(1, "%s/.%s.side", st->path, cluster);
	if (r == 0) {
		puts("none");
		return 0;
	}
	printf("run %s\nrunning %d\npid %ld\nstart_ago %" PRId64 "\n",
	    runs[pg_outcome_run(st, cluster, &o)], o.running, (long)o.pid,
	    pg_stamp_elapsed(&o.start, now));
	if (o.ended)
		printf("end_ago %" PRId64 "\nduration_ms %" PRId64 "\n"
		    "exit %d\nsignal %d\ntimed_out %d\n",
		    pg_stamp_elapsed(&o.end, now), o.duration_ms,
		    o.exit_status, o.signal, o.timed_out);
	if (o.succeeded)
		printf("success_ago %" PRId64 "\n",
		    pg_stamp_elapsed(&o.success, now));
	printf("failures %" PRId64 "\n", o.failures);
	return 0;
}

static __attribute__((__noreturn__)) void
usage(void)
{
	fprintf(stderr, "usage: pgstate [-c file] "
	    "write|oldboot|read|lock|touch|outcome "
	    "cluster [number [pause-file]]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct pg_state		 st;
	struct pg_stamp		 now, rec;
	const char		*conf = NULL, *errstr;
	char			 msg[PG_ERR_MAX], buf[PG_RECORD_MAX];
	long long		 num = 0;
	int			 ch, r, fd, len;

	while ((ch = getopt(argc, argv, "c:")) != -1) {
		if (ch != 'c')
			usage();
		conf = optarg;
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	if (argc > 2) {
		num = strtonum(argv[2], -LLONG_MAX / 4, LLONG_MAX / 4,
		    &errstr);
		if (errstr != NULL)
			errx(2, "number %s: %s", argv[2], errstr);
	}
	if (pg_config_load(pg_config_path(conf), &cfg, msg, sizeof(msg)) == -1)
		errx(2, "%s", msg);
	if (pg_state_open(&st, cfg->state, 1, msg, sizeof(msg)) == -1)
		errx(2, "%s", msg);
	if (pg_stamp_now(&now) == -1)
		err(2, "clock");

	if (strcmp(argv[0], "read") == 0) {
		if ((r = pg_state_read(&st, argv[1], &rec)) == -1)
			err(1, "%s/%s", st.path, argv[1]);
		if (r == 0)
			puts("never");
		else
			printf("%" PRId64 "\n", pg_stamp_elapsed(&rec, &now));
		return 0;
	}
	if (strcmp(argv[0], "outcome") == 0 && argc == 2)
		return outcome(&st, argv[1], &now);
	if (strcmp(argv[0], "write") == 0 && argc == 3) {
		rec = now;
		rec.mono_ns -= num * 1000000;
		rec.wall_ns -= num * 1000000;
		/* Older than this boot: then it was written in an earlier one. */
		if (rec.mono_ns < 0) {
			strlcpy(rec.boot_id, "00000000-0000-0000-0000-"
			    "000000000000", sizeof(rec.boot_id));
			rec.mono_ns = now.mono_ns + 1000000000LL;
		}
	} else if (strcmp(argv[0], "oldboot") == 0 && argc == 3) {
		/* Another boot: another ID, a clock reading from then. */
		rec = now;
		strlcpy(rec.boot_id, "00000000-0000-0000-0000-000000000000",
		    sizeof(rec.boot_id));
		rec.mono_ns = now.mono_ns + 1000000000LL;
		rec.wall_ns -= num * 1000000;
	} else if (strcmp(argv[0], "lock") == 0 && argc == 3) {
		if ((r = pg_lock_take(&st, argv[1], &fd)) != 1)
			errx(1, "lock %s: %s", argv[1], r == 0 ? "held" :
			    "failed");
		printf("locked\n");
		fflush(stdout);
		sleep(num);
		return 0;
	} else if (strcmp(argv[0], "touch") == 0 && (argc == 3 || argc == 4))
		return hammer(&st, argv[1], num, argc == 4 ? argv[3] : NULL);
	else
		usage();
	if ((len = pg_stamp_format(&rec, buf, sizeof(buf))) == -1 ||
	    pg_state_set(&st, argv[1], NULL, buf, len) == -1)
		err(1, "%s/%s", st.path, argv[1]);
	return 0;
}
