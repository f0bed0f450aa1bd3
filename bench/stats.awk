# SPDX-License-Identifier: ISC
# bench/stats.awk: summarise alternating runs, the lines of pgbench alt
# and req (and of the shell's wrk rounds):
#
#	run ROUND CMD VALUE STATUS
#
# For each CMD, one line:
#
#	CMD N MEDIAN MIN MAX RATIO BAD P25 P75
#
# VALUE divided by -v scale (1: as is; 1e6: ns to ms); RATIO is the median
# over the rounds of VALUE(CMD) / VALUE(ref) in the same round (-v ref, 0
# by default); BAD counts the runs whose STATUS is not -v want (0); P25
# and P75 are the quartiles (the nearest rank).
# Plain awk (mawk): no asort.

function median(a, n,	i, j, t, b) {
	# insertion sort of a copy: a few hundred values at most
	for (i = 1; i <= n; i++)
		b[i] = a[i]
	for (i = 2; i <= n; i++) {
		t = b[i]
		for (j = i - 1; j >= 1 && b[j] > t; j--)
			b[j + 1] = b[j]
		b[j + 1] = t
	}
	lo = b[1]
	hi = b[n]
	q1 = b[int((n + 3) / 4)]
	q3 = b[n + 1 - int((n + 3) / 4)]
	if (n % 2)
		return b[(n + 1) / 2]
	return (b[n / 2] + b[n / 2 + 1]) / 2
}

BEGIN {
	if (scale == "")
		scale = 1
	if (ref == "")
		ref = 0
	if (want == "")
		want = 0
}

$1 == "run" {
	r = $2; c = $3
	v[r, c] = $4 / scale
	seen[r, c] = 1
	if (!(c in ncmd)) {
		ncmd[c] = 0
		order[++ncmds] = c
	}
	if ($5 != want)
		bad[c]++
	if (!(r in isround)) {
		isround[r] = 1
		rounds[++nrounds] = r
	}
}

END {
	for (k = 1; k <= ncmds; k++) {
		c = order[k]
		n = 0; m = 0
		for (i = 1; i <= nrounds; i++) {
			r = rounds[i]
			if (!((r, c) in seen))
				continue
			x[++n] = v[r, c]
			if (((r, ref) in seen) && v[r, ref] > 0)
				q[++m] = v[r, c] / v[r, ref]
		}
		if (n == 0)
			continue
		med = median(x, n)
		mlo = lo; mhi = hi; mq1 = q1; mq3 = q3
		rat = m > 0 ? median(q, m) : 0
		printf "%s %d %.6g %.6g %.6g %.4f %d %.6g %.6g\n", c, n, med, \
		    mlo, mhi, rat, bad[c] + 0, mq1, mq3
	}
}
