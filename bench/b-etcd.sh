# SPDX-License-Identifier: ISC
# bench/b-etcd.sh: strict mode, pollguard-check on a cluster backed by
# etcd, against etcdctl lock on the same one-member etcd (sourced by
# bench/run). Starts and stops its own etcd with tests/etcd.sh. Sets
# R_ETCDGO and R_ETCDSKIP (empty when etcd was not measured).

section etcd "strict mode (etcd backend) against etcdctl lock"
# etcd's data on the disk of $T, as in bench/b-locks.sh: etcd fsyncs.
ETCD_PREFIX=/pollguard-bench/ ETCD_DATA=$T/etcd-strict
. "$TOP/tests/etcd.sh"
R_ETCDGO="" R_ETCDSKIP=""
if command -v etcd >/dev/null && command -v etcdctl >/dev/null &&
    etcd_cluster bench-e; then
	# Node bench goes and releases; node other checks while bench holds
	# the key, and skips. The wait (the lease's TTL) outlasts a round.
	for n in bench other; do
		ETCD_PG_TIMEOUT=5s etcd_mkconf "$n" "$T/etcd-$n.conf" <<EOF
[cluster strict]
backend = etcd
wait = 10m
EOF
	done
	N=$(rounds 100)
	F=$DATA/etcd.txt
	# One round: etcdctl lock; the strict go (the key is absent: the
	# previous round released it); the skip (bench holds the key);
	# the release. The lock's key is etcdctl's own, apart from ours.
	ALT=("$PGB" alt -n "$N" -w 2
	    etcdctl --endpoints="$(etcd_endpoints)" lock pollguard-bench /bin/true
	    ::: "$CHECK" -c "$T/etcd-bench.conf" strict
	    ::: "$CHECK" -c "$T/etcd-other.conf" strict
	    ::: "$TOUCH" -c "$T/etcd-bench.conf" -r strict)
	LABELS=("etcdctl lock NAME /bin/true (local etcd, one member)"
	    "pollguard-check strict (go: the key was absent)"
	    "pollguard-check strict on another node (skip: exit 1 is its success)"
	    "pollguard-touch -r strict (release)")
	"${ALT[@]}" >"$F.raw"
	# The skip succeeds when it exits 1: stats.awk counts the runs that
	# do not exit 0 as failed, so its 1 becomes 0 and a go becomes 99.
	awk '$1 == "run" && $3 == 2 { $5 = $5 == 1 ? 0 : $5 == 0 ? 99 : $5 } 1' \
	    "$F.raw" >"$F"
	grep -q '^run ' "$F" || die "pgbench alt measured nothing: $F"
	R_ETCDGO=$(get "$F" 1e6 0 1 6)
	R_ETCDSKIP=$(get "$F" 1e6 0 2 6)
	M_ETCDGO=$(get "$F" 1e6 0 1 3)
	M_ETCDLOCK=$(get "$F" 1e6 0 0 3)
	BAD_ETCD=$(stats "$F" 1e6 0 | awk '{ s += $7 } END { print s + 0 }')
	md <<EOF
## Strict mode: pollguard-check on etcd, against etcdctl lock

A cluster with \`backend = etcd\` on a one-member etcd on 127.0.0.1, its
data in \$T on the $FS file system (etcd fsyncs its log for every
write). The strict go is one process that creates the cluster's key,
attached to a lease of the cluster's wait, in a transaction that
succeeds only when the key is absent; \`etcdctl lock\` is a Go program
that grants a lease, writes its lock key, waits for it, runs the
command, deletes the key and revokes the lease. In each round the go
comes after the previous round's release, so the key is absent every
time; the skip runs on another node while the key is held. Failed runs
are runs that did not do what their label says (for the skip: did not
exit 1); there were $BAD_ETCD.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 "etcdctl lock" "${LABELS[@]}")

EOF
	res="$(printf '%.2f×' "$R_ETCDGO") ($(printf '%.2f' "$M_ETCDGO") ms vs $(printf '%.2f' "$M_ETCDLOCK") ms); skip: $(printf '%.2f×' "$R_ETCDSKIP")"
	met=$(verdict le "$R_ETCDGO" 1.0)
	[ "$BAD_ETCD" -eq 0 ] || met="**not met** ($BAD_ETCD failed runs)"
	stop_pids "${ETCD_PID[bench-e]}"
else
	md <<EOF
## Strict mode: pollguard-check on etcd, against etcdctl lock

Not measured: etcd or etcdctl is not installed, or did not start.

EOF
	res="etcd not measured (not installed or did not start)"
	met="**not measured**"
fi
target "\`pollguard-check\` strict go (etcd backend)" "\`etcdctl lock NAME /bin/true\`, same etcd" "≤ 1.0×" "$res" "$met"
section_done
