/*
 * pgstate: a test helper, never installed. It makes state the tests need
 * without sleeping: records of a given age, records from another boot, a
 * run lock held for a while; and it reads a record's elapsed time.
 *
 *	pgstate [-c file] write CLUSTER AGE_MS
 *	pgstate [-c file] oldboot CLUSTER WALL_AGE_MS
 *	pgstate [-c file] read CLUSTER
 *	pgstate [-c file] lock CLUSTER SECONDS
 */
#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pollguard.h"

/* Static, so the configuration is still reachable at exit (LeakSanitizer). */
static struct pg_config	*cfg;

static __attribute__((__noreturn__)) void
usage(void)
{
	fprintf(stderr, "usage: pgstate [-c file] write|oldboot|read|lock "
	    "cluster [number]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct pg_state		 st;
	struct pg_stamp		 now, rec;
	const char		*conf = NULL, *errstr;
	char			 msg[PG_ERR_MAX];
	long long		 num = 0;
	int			 ch, r, fd;

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
	} else
		usage();
	if (pg_state_write(&st, argv[1], &rec) == -1)
		err(1, "%s/%s", st.path, argv[1]);
	return 0;
}
