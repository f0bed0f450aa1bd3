/* SPDX-License-Identifier: ISC */
/*
 * tests/clockshim.so: an LD_PRELOAD shim that stands for an NTP daemon
 * slewing one node's clock: it scales what clock_gettime(2) reads of
 * CLOCK_BOOTTIME and CLOCK_MONOTONIC (and their _COARSE and _ALARM
 * kinds) by a rate, and makes adjtimex(2), ntp_adjtime(3) and
 * clock_adjtime(2), asked to read, show that slew in tick and freq, as
 * chrony slewing at that rate would (tick in whole steps of 1e6/USER_HZ
 * ppm, the rest in freq). tests/cli/32b-clock-rate.sh runs one node's
 * processes under it.
 *
 * PG_CLOCK_RATE_PPM=R		the clocks run at 1 + R/1e6 of the real
 *				ones (-40000: 4 % slow), from -500000 to
 *				500000
 * PG_CLOCK_ORIGIN=PATH		the moment they agree: read from PATH
 *				("BOOTTIME MONOTONIC", in ns); the first
 *				process to read a clock writes its reading
 *				there, so that all the processes of a node
 *				share one clock (default: each process's
 *				own first reading)
 *
 * Without PG_CLOCK_RATE_PPM, every call is passed through untouched;
 * sleeps and poll(2) timeouts always run in real time, and so does
 * CLOCK_REALTIME.
 */
#include <sys/timex.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int	(*real_gettime)(clockid_t, struct timespec *);
static int	(*real_adjtimex)(struct timex *);
static int	(*real_clock_adjtime)(clockid_t, struct timex *);

static long	 rate_ppm;		/* 0: pass through */
static int	 have_origin;
static int64_t	 origin_boot, origin_mono;

static void
resolve(void)
{
	const char	*s;
	char		*end;
	long		 v;

	real_gettime = (int (*)(clockid_t, struct timespec *))
	    dlsym(RTLD_NEXT, "clock_gettime");
	real_adjtimex = (int (*)(struct timex *))dlsym(RTLD_NEXT, "adjtimex");
	real_clock_adjtime = (int (*)(clockid_t, struct timex *))
	    dlsym(RTLD_NEXT, "clock_adjtime");
	if ((s = getenv("PG_CLOCK_RATE_PPM")) == NULL || *s == '\0')
		return;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == 0 && *end == '\0' && v >= -500000 && v <= 500000)
		rate_ppm = v;
}

__attribute__((constructor)) static void
clockshim_init(void)
{
	if (real_gettime == NULL)
		resolve();
}

static int64_t
ns_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int
raw(clockid_t id, int64_t *ns)
{
	struct timespec	 ts;

	if (real_gettime(id, &ts) == -1)
		return -1;
	*ns = ns_of(&ts);
	return 0;
}

/* The shared origin from path, or 0 when it holds none yet. */
static int
read_origin(const char *path)
{
	char		 buf[64];
	ssize_t		 n;
	int		 fd;
	long long	 b, m;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (strchr(buf, '\n') == NULL || sscanf(buf, "%lld %lld", &b, &m) != 2)
		return 0;
	origin_boot = b;
	origin_mono = m;
	return 1;
}

/* The origin: the shared one, or this process's first reading. */
static void
origin(void)
{
	const char	*path = getenv("PG_CLOCK_ORIGIN");
	char		 tmp[4096], line[64];
	struct timespec	 nap = { 0, 1000000 };
	int		 fd, i, len;

	if (have_origin)
		return;
	if (raw(CLOCK_BOOTTIME, &origin_boot) == -1 ||
	    raw(CLOCK_MONOTONIC, &origin_mono) == -1)
		return;
	have_origin = 1;
	if (path == NULL || *path == '\0')
		return;
	/* Written whole (a rename), or read: one origin for the node. */
	for (i = 0; i < 1000; i++) {
		if (read_origin(path))
			return;
		snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
		if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644)) == -1)
			return;
		len = snprintf(line, sizeof(line), "%lld %lld\n",
		    (long long)origin_boot, (long long)origin_mono);
		if (write(fd, line, len) != len) {
			close(fd);
			unlink(tmp);
			return;
		}
		close(fd);
		/* link(2) fails when another process was first. */
		if (link(tmp, path) == 0) {
			unlink(tmp);
			return;
		}
		unlink(tmp);
		nanosleep(&nap, NULL);
	}
}

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	int64_t		 ns, o;

	if (real_gettime == NULL)
		resolve();
	if (real_gettime(id, ts) == -1)
		return -1;
	if (rate_ppm == 0)
		return 0;
	switch (id) {
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		origin();
		o = origin_boot;
		break;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_COARSE:
		origin();
		o = origin_mono;
		break;
	default:
		return 0;
	}
	if (!have_origin)
		return 0;
	ns = ns_of(ts);
	ns = o + (ns - o) + (int64_t)((long double)(ns - o) * rate_ppm / 1e6L);
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}

/* A read (no mode that sets): show the slew as tick and freq. */
static void
show(struct timex *tx)
{
	long	 hz = sysconf(_SC_CLK_TCK), nominal, steps;

	if (rate_ppm == 0 || hz <= 0 || hz > 1000000)
		return;
	nominal = 1000000 / hz;
	/* Whole ticks' worth of ppm: 1e6 / nominal each (100 at 100 Hz). */
	steps = rate_ppm / (1000000 / nominal);
	tx->tick = nominal + steps;
	tx->freq = (rate_ppm - steps * (1000000 / nominal)) * 65536;
}

static int
reads(const struct timex *tx)
{
	return tx->modes == 0 || tx->modes == ADJ_OFFSET_SS_READ;
}

int
adjtimex(struct timex *tx)
{
	int	 r, rd = reads(tx);

	if (real_adjtimex == NULL)
		resolve();
	if ((r = real_adjtimex(tx)) != -1 && rd)
		show(tx);
	return r;
}

int
ntp_adjtime(struct timex *tx)
{
	return adjtimex(tx);
}

int
clock_adjtime(clockid_t id, struct timex *tx)
{
	int	 r, rd = reads(tx);

	if (real_clock_adjtime == NULL)
		resolve();
	if ((r = real_clock_adjtime(id, tx)) != -1 && id == CLOCK_REALTIME &&
	    rd)
		show(tx);
	return r;
}
