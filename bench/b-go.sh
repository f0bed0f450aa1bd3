# SPDX-License-Identifier: ISC
# bench/b-go.sh: the headline: how long a race-free go takes with the
# default settings, against etcdctl lock on a local etcd, uncontested and
# contested, on loopback and with 20 ± 10 ms of delay on every question
# (sourced by bench/run, after bench/b-locks.sh, whose launch_etcd it
# uses). Sets GO_* for the targets and the report's lead.
#
# Three nodes a, b and c, each with a standalone serve and a config with
# the defaults (settle 500ms) naming the other two. Every round starts on
# a cluster that no node has a record of, so each check may go:
# uncontested, a's check alone; contested, the three checks released at
# the same instant (pgbench race). After each round, etcdctl lock NAME
# true runs alone against a one-member etcd on 127.0.0.1 (pgbench race
# -r), so the ratio of each round is taken against a reference of the
# same moment. The time to a go is that of the check that exited 0.

section go "the race-free go against etcdctl lock"
GN=$(rounds 200)
mkdir -p "$T/go" "$T/etcd-go"
GO_PORTS=() GO_PIDS=() GO_PROXY=()
for node in a b c; do
	mkdir -p "$T/go/$node"
	free_port || die "no free port"
	GO_PORTS+=("$FREE_PORT")
done
# go_conf NODE FILE PORT_a PORT_b PORT_c: node's config naming the others
# at those ports.
go_conf()
{
	local node=$1 f=$2 i=0 p
	shift 2
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$node" "$T/go/$node"
		for p in a b c; do
			[ "$p" != "$node" ] &&
			    printf '[peer %s]\nurl = http://127.0.0.1:%s\n' "$p" "$1"
			shift
		done
		for ((i = 0; i < 100; i++)); do
			printf '[cluster r%d]\nwait = 10m\n' "$i"
		done
	} >"$f"
	chmod 600 "$f"
}
i=0
for node in a b c; do
	go_conf "$node" "$T/go/$node.conf" "${GO_PORTS[@]}"
	bg "go-$node" "$SERVE" -c "$T/go/$node.conf" -l "127.0.0.1:${GO_PORTS[$i]}"
	GO_PIDS+=("$BGPID")
	wait_listen "${GO_PORTS[$i]}" "$BGPID" || die "a serve of the go bench did not start"
	i=$((i + 1))
done
# The delayed configs: every question goes through a delaying proxy
# (tests/delayproxy.c) in front of each serve, 20 ± 10 ms before the
# request reaches it.
DP=()
i=0
for node in a b c; do
	free_port || die "no free port"
	bg "dp-$node" "$BB/tests/delayproxy" -d 20:10 -w up \
	    -l "127.0.0.1:$FREE_PORT" "127.0.0.1:${GO_PORTS[$i]}"
	GO_PROXY+=("$BGPID")
	wait_listen "$FREE_PORT" "$BGPID" || die "a delaying proxy did not start"
	DP+=("$FREE_PORT")
	i=$((i + 1))
done
for node in a b c; do
	go_conf "$node" "$T/go/$node-delay.conf" "${DP[@]}"
done
GO_ETCD_PORT="" GO_ETCD_PID=""
ETCD_NAME=go ETCD_DIR=$T/etcd-go
command -v etcd >/dev/null && start_on_port etcd-go launch_etcd 30 ||
    die "etcd did not start (the go benchmark compares with etcdctl lock)"
GO_ETCD_PORT=$SPORT GO_ETCD_PID=$SPID
unset ETCD_NAME ETCD_DIR
wait_for 10 etcdctl --endpoints="127.0.0.1:$GO_ETCD_PORT" endpoint health \
    >/dev/null 2>&1
LOCK=(etcdctl --endpoints="127.0.0.1:$GO_ETCD_PORT" lock pollguard-go /bin/true)
DIRS=(-d "$T/go/a" -d "$T/go/b" -d "$T/go/c")

# go_run NAME SUFFIX RACERS: GN rounds, the first RACERS of a, b, c
# racing, etcdctl lock after each; raw lines in $DATA/go-NAME.txt.
go_run()
{
	local name=$1 sfx=$2 n=$3 cmd=() k=0 node
	for node in a b c; do
		[ "$k" -ge "$n" ] && break
		[ "$k" -gt 0 ] && cmd+=(:::)
		cmd+=("$CHECK" -c "$T/go/$node$sfx.conf" "{}")
		k=$((k + 1))
	done
	GO_CMD=("$PGB" race -m -n "$GN" -t 300 -r 1 "${DIRS[@]}" "${cmd[@]}" ::: "${LOCK[@]}")
	"${GO_CMD[@]}" >"$DATA/go-$name.txt"
}
# go_stats FILE: "rounds zero one more go_median_ms ref_median_ms
# ratio_median": the time to a go of the rounds with exactly one go, and
# its ratio to the reference run after it.
go_stats()
{
	awk '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		if (n == 0) return "nan"
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == "round" {
		w = 0; t = 0; bar = 0; k = 0
		for (i = 5; i <= NF; i++) {
			if ($i == "|") { bar = i; continue }
			if (!bar && $i == 0) { w++; idx = i - 5 }
		}
		rounds++
		if (w == 0) zero++; else if (w == 1) one++; else more++
		cur = $2; got = 0
		if (w == 1) { got = $(bar + 1 + idx) / 1e6 }
		next
	}
	$1 == "run" && $2 == cur {
		ref = $4 / 1e6
		nr++; r[nr] = ref
		if (got > 0) { ng++; g[ng] = got; nq++; q[nq] = got / ref }
	}
	END {
		printf "%d %d %d %d %s %s %s\n", rounds, zero, one, more,
		    med(g, ng), med(r, nr), med(q, nq)
	}' "$1"
}
go_run alone "" 1
GO_CMD_ALONE=$(show "${GO_CMD[@]}")
go_run race "" 3
GO_CMD_RACE=$(show "${GO_CMD[@]}")
go_run alone-delay -delay 1
go_run race-delay -delay 3
GO_CMD_RACE_DELAY=$(show "${GO_CMD[@]}")
stop_pids "${GO_PROXY[@]}" "${GO_PIDS[@]}" "$GO_ETCD_PID"
read -r GA_N GA_Z GA_O GA_M GA_MS GA_REF GA_R < <(go_stats "$DATA/go-alone.txt")
read -r GR_N GR_Z GR_O GR_M GR_MS GR_REF GR_R < <(go_stats "$DATA/go-race.txt")
read -r GAD_N GAD_Z GAD_O GAD_M GAD_MS GAD_REF GAD_R < <(go_stats "$DATA/go-alone-delay.txt")
read -r GRD_N GRD_Z GRD_O GRD_M GRD_MS GRD_REF GRD_R < <(go_stats "$DATA/go-race-delay.txt")
fmt()
{
	awk -v v="$1" 'BEGIN { if (v == "nan") print "–"; else printf "%.1f", v }'
}
rat()
{
	awk -v v="$1" 'BEGIN { if (v == "nan") print "–"; else printf "%.2f×", v }'
}
md <<EOF
## The race-free go

The figure that matters: how long \`pollguard-check\` takes to a go
with the defaults (\`settle = 500ms\`, the race closure on), three nodes
a, b and c on 127.0.0.1, each with its own serve and state directory,
against \`etcdctl lock NAME /bin/true\` on a one-member etcd on
127.0.0.1, the lock a cron script would take instead. Every round
starts on a cluster that no node has a record of, so each check may go:
*uncontested*, node a checks alone; *contested*, the three checks are
released at the same instant. After each round \`etcdctl lock\` runs
alone (\`pgbench race -r 1\`); the ratio is the median of each round's
time to a go (the check that exited 0) divided by that round's etcdctl
run. *Delayed*: every question to a serve passes a delaying proxy
(tests/delayproxy.c) that holds the request 20 ± 10 ms, drawn per
connection; etcd is not delayed.

    $GO_CMD_ALONE
    $GO_CMD_RACE
    $GO_CMD_RACE_DELAY

| | rounds | 0 pollers | 1 poller | ≥ 2 pollers | time to a go (median) | etcdctl lock (median) | ÷ etcdctl (median of per-round ratios) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| uncontested | $GA_N | $GA_Z | $GA_O | $GA_M | $(fmt "$GA_MS") ms | $(fmt "$GA_REF") ms | $(rat "$GA_R") |
| contested (3 at once) | $GR_N | $GR_Z | $GR_O | $GR_M | $(fmt "$GR_MS") ms | $(fmt "$GR_REF") ms | $(rat "$GR_R") |
| uncontested, 20 ± 10 ms delay | $GAD_N | $GAD_Z | $GAD_O | $GAD_M | $(fmt "$GAD_MS") ms | $(fmt "$GAD_REF") ms | $(rat "$GAD_R") |
| contested, 20 ± 10 ms delay | $GRD_N | $GRD_Z | $GRD_O | $GRD_M | $(fmt "$GRD_MS") ms | $(fmt "$GRD_REF") ms | $(rat "$GRD_R") |

A go asks every peer twice (before and after the claim) and writes the
claim durably; a contested go also waits until the nodes whose names
sort after its own have withdrawn. With a delay, each question costs
the delay: the go pays it at least twice, etcdctl not at all.

EOF
GO_HEADLINE=$(cat <<EOF
## Headline: a race-free go

With the defaults (\`settle = 500ms\`, the race closure on), three nodes
on 127.0.0.1, against \`etcdctl lock NAME /bin/true\` on a one-member
etcd timed in the same rounds ([details](#the-race-free-go)):

| | time to a go | ÷ etcdctl lock | rounds | ≥ 2 pollers | 0 pollers |
| --- | ---: | ---: | ---: | ---: | ---: |
| uncontested | $(fmt "$GA_MS") ms | $(rat "$GA_R") | $GA_N | $GA_M | $GA_Z |
| contested, 3 nodes at once | $(fmt "$GR_MS") ms | $(rat "$GR_R") | $GR_N | $GR_M | $GR_Z |
| uncontested, questions delayed 20 ± 10 ms | $(fmt "$GAD_MS") ms | $(rat "$GAD_R") | $GAD_N | $GAD_M | $GAD_Z |
| contested, questions delayed 20 ± 10 ms | $(fmt "$GRD_MS") ms | $(rat "$GRD_R") | $GRD_N | $GRD_M | $GRD_Z |

\`settle = 0\` (no race closure) appears below only as a labelled
ablation.
EOF
)
target "race-free go, defaults, uncontested" "\`etcdctl lock\`, same run" "≤ 0.5×" \
    "$(rat "$GA_R") ($(fmt "$GA_MS") ms vs $(fmt "$GA_REF") ms); 0 pollers in $GA_Z, ≥ 2 in $GA_M of $GA_N rounds" \
    "$(verdict le "$GA_R" 0.5)"
target "race-free go, defaults, contested (3 at once)" "\`etcdctl lock\`, same run" "≤ 1.0×" \
    "$(rat "$GR_R") ($(fmt "$GR_MS") ms vs $(fmt "$GR_REF") ms); 0 pollers in $GR_Z, ≥ 2 in $GR_M of $GR_N rounds" \
    "$(verdict le "$GR_R" 1.0)"
target "race-free go with 20 ± 10 ms delay, uncontested; contested" "\`etcdctl lock\` (not delayed)" "report; ≥ 2 pollers: 0" \
    "$(rat "$GAD_R"); $(rat "$GRD_R"); ≥ 2 pollers: $((GAD_M + GRD_M)), 0 pollers: $((GAD_Z + GRD_Z)) of $((GAD_N + GRD_N)) rounds" \
    "$(verdict [ $((GAD_M + GRD_M)) -eq 0 ])"
section_done
