/* SPDX-License-Identifier: ISC */
/*
 * clockrec: a test helper, never installed. The soak's job
 * (tests/soak.sh): it appends to a log shared by every node one line
 * with the process's three clocks, read back to back (between two reads
 * of the wall clock less than 1 ms apart, their middle given), so that
 * the soak can tell whether two nodes held a round at once. date(1) reads only
 * the wall clock, and a fork between two reads would blur them.
 *
 *	clockrec [-h hold_ms] file word...
 *
 * Without -h: one line "WORD... BOOT MONO REAL", the clocks
 * CLOCK_BOOTTIME, CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds.
 * With -h: "WORD... start BOOT MONO REAL", a sleep of hold_ms on
 * CLOCK_MONOTONIC, then "WORD... end BOOT MONO REAL". Each line is one
 * write(2) to a file opened with O_APPEND, so that lines of concurrent
 * writers never interleave. Exit 0, or 1 with a message.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t
ns(clockid_t id)
{
	struct timespec	 ts;

	if (clock_gettime(id, &ts) == -1)
		err(1, "clock_gettime");
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
record(int fd, const char *words, const char *what)
{
	char	 line[1024];
	int64_t	 b, m, r, r0;
	int	 n, tries;

	/*
	 * Read between two reads of the wall clock, again while those are
	 * more than 1 ms apart (a preemption between them, or a clock shim
	 * setting itself up: 32b compares the shim's rate with REAL's).
	 */
	for (tries = 0;; tries++) {
		r0 = ns(CLOCK_REALTIME);
		b = ns(CLOCK_BOOTTIME);
		m = ns(CLOCK_MONOTONIC);
		r = ns(CLOCK_REALTIME);
		if (r - r0 <= 1000000 || tries == 100)
			break;
	}
	r = r0 + (r - r0) / 2;
	n = snprintf(line, sizeof(line), "%s%s %lld %lld %lld\n", words, what,
	    (long long)b, (long long)m, (long long)r);
	if (n < 0 || (size_t)n >= sizeof(line))
		errx(1, "line too long");
	if (write(fd, line, n) != n)
		err(1, "write");
}

int
main(int argc, char *argv[])
{
	struct timespec	 hold;
	char		 words[768] = "";
	char		*end;
	long		 ms = -1;
	int		 ch, fd, i;

	while ((ch = getopt(argc, argv, "+h:")) != -1) {
		switch (ch) {
		case 'h':
			errno = 0;
			ms = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || ms < 0 ||
			    ms > 3600000)
				errx(1, "-h %s: want 0..3600000 ms", optarg);
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		goto usage;
	for (i = 1; i < argc; i++)
		if (strlcat(words, argv[i], sizeof(words)) >= sizeof(words) ||
		    (i < argc - 1 && strlcat(words, " ", sizeof(words)) >=
		    sizeof(words)))
			errx(1, "words too long");
	if ((fd = open(argv[0], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		err(1, "%s", argv[0]);
	if (ms < 0) {
		record(fd, words, "");
		return 0;
	}
	record(fd, words, " start");
	hold.tv_sec = ms / 1000;
	hold.tv_nsec = (ms % 1000) * 1000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &hold, &hold) == EINTR)
		;
	record(fd, words, " end");
	return 0;
usage:
	fprintf(stderr, "usage: clockrec [-h hold_ms] file word...\n");
	return 1;
}
