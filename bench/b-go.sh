# SPDX-License-Identifier: ISC
# bench/b-go.sh: the headline: how long a race-free go takes with the
# default settings, against etcdctl lock on a local etcd, uncontested and
# contested, on loopback and with 20 ± 10 ms of delay on every request,
# the go's and etcdctl's alike (sourced by bench/run, after
# bench/b-locks.sh, whose launch_etcd it uses). Sets GO_* for the targets
# and the report's lead; go_fleet, go_etcd, go_run and go_stats are
# bench/b-cost.sh's too.
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
# go_conf NODE FILE DIR PORT_a PORT_b PORT_c: node's config naming the
# others at those ports, its state in DIR/NODE.
go_conf()
{
	local node=$1 f=$2 dir=$3 i=0 p
	shift 3
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$node" "$dir/$node"
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
# go_fleet DIR SERVE: three nodes a, b and c, each with its state in
# DIR/NODE, a config DIR/NODE.conf and a standalone serve (the program
# SERVE); FLEET_PORTS and FLEET_PIDS are the serves'. Then a delaying
# proxy (tests/delayproxy.c) in front of each serve, 20 ± 10 ms on every
# question before it reaches the serve, and the configs
# DIR/NODE-delay.conf that ask through them; FLEET_PROXY are the
# proxies' PIDs.
go_fleet()
{
	local dir=$1 serve=$2 node i=0 dp=()
	FLEET_PORTS=() FLEET_PIDS=() FLEET_PROXY=()
	mkdir -p "$dir"
	for node in a b c; do
		mkdir -p "$dir/$node"
		free_port || die "no free port"
		FLEET_PORTS+=("$FREE_PORT")
	done
	for node in a b c; do
		go_conf "$node" "$dir/$node.conf" "$dir" "${FLEET_PORTS[@]}"
		bg "go-$node" "$serve" -c "$dir/$node.conf" \
		    -l "127.0.0.1:${FLEET_PORTS[$i]}"
		FLEET_PIDS+=("$BGPID")
		wait_listen "${FLEET_PORTS[$i]}" "$BGPID" ||
		    die "a serve of the go bench did not start"
		free_port || die "no free port"
		bg "dp-$node" "$BB/tests/delayproxy" -d 20:10 -w up \
		    -l "127.0.0.1:$FREE_PORT" "127.0.0.1:${FLEET_PORTS[$i]}"
		FLEET_PROXY+=("$BGPID")
		wait_listen "$FREE_PORT" "$BGPID" || die "a delaying proxy did not start"
		dp+=("$FREE_PORT")
		i=$((i + 1))
	done
	for node in a b c; do
		go_conf "$node" "$dir/$node-delay.conf" "$dir" "${dp[@]}"
	done
}
# go_etcd DIR: a one-member etcd with its data in DIR (b-locks.sh's
# launch_etcd), GO_ETCD_PORT and GO_ETCD_PID; and the same delaying
# proxy in front of its client port, GO_ETCD_DPORT and GO_ETCD_DPID.
# LOCK and LOCK_DELAY: etcdctl lock straight, and through the proxy.
go_etcd()
{
	local name=${1##*/}
	ETCD_NAME=$name ETCD_DIR=$1
	command -v etcd >/dev/null && start_on_port "etcd-$name" launch_etcd 30 ||
	    die "etcd did not start (the go benchmark compares with etcdctl lock)"
	GO_ETCD_PORT=$SPORT GO_ETCD_PID=$SPID
	unset ETCD_NAME ETCD_DIR
	wait_for 10 etcdctl --endpoints="127.0.0.1:$GO_ETCD_PORT" endpoint health \
	    >/dev/null 2>&1
	free_port || die "no free port"
	bg "dp-etcd-$name" "$BB/tests/delayproxy" -d 20:10 -w up \
	    -l "127.0.0.1:$FREE_PORT" "127.0.0.1:$GO_ETCD_PORT"
	GO_ETCD_DPID=$BGPID GO_ETCD_DPORT=$FREE_PORT
	wait_listen "$FREE_PORT" "$BGPID" || die "the etcd delaying proxy did not start"
	LOCK=(etcdctl --endpoints="127.0.0.1:$GO_ETCD_PORT" lock pollguard-go /bin/true)
	LOCK_DELAY=(etcdctl --endpoints="127.0.0.1:$GO_ETCD_DPORT" lock pollguard-go /bin/true)
}
go_fleet "$T/go" "$SERVE"
GO_PIDS=("${FLEET_PIDS[@]}") GO_PROXY=("${FLEET_PROXY[@]}")
go_etcd "$T/etcd-go"
# go_run FILE DIR SUFFIX RACERS CHECK ROUNDS LOCK...: ROUNDS rounds on
# the fleet in DIR, the first RACERS of a, b and c racing (each the
# program CHECK with its config DIR/NODE-SUFFIX.conf), the command LOCK...
# alone after each; raw lines appended to FILE, the command in GO_CMD.
go_run()
{
	local f=$1 dir=$2 sfx=$3 n=$4 check=$5 nr=$6 cmd=() k=0 node
	shift 6
	for node in a b c; do
		[ "$k" -ge "$n" ] && break
		[ "$k" -gt 0 ] && cmd+=(:::)
		cmd+=("$check" -c "$dir/$node$sfx.conf" "{}")
		k=$((k + 1))
	done
	GO_CMD=("$PGB" race -m -n "$nr" -t 300 -r 1 -d "$dir/a" -d "$dir/b"
	    -d "$dir/c" "${cmd[@]}" ::: "$@")
	"${GO_CMD[@]}" >>"$f"
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
for f in alone race alone-delay race-delay; do
	: >"$DATA/go-$f.txt"
done
go_run "$DATA/go-alone.txt" "$T/go" "" 1 "$CHECK" "$GN" "${LOCK[@]}"
GO_CMD_ALONE=$(show "${GO_CMD[@]}")
go_run "$DATA/go-race.txt" "$T/go" "" 3 "$CHECK" "$GN" "${LOCK[@]}"
GO_CMD_RACE=$(show "${GO_CMD[@]}")
go_run "$DATA/go-alone-delay.txt" "$T/go" -delay 1 "$CHECK" "$GN" "${LOCK_DELAY[@]}"
GO_CMD_ALONE_DELAY=$(show "${GO_CMD[@]}")
go_run "$DATA/go-race-delay.txt" "$T/go" -delay 3 "$CHECK" "$GN" "${LOCK_DELAY[@]}"
GO_CMD_RACE_DELAY=$(show "${GO_CMD[@]}")
stop_pids "${GO_PROXY[@]}" "${GO_PIDS[@]}" "$GO_ETCD_DPID" "$GO_ETCD_PID"
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
with the defaults (\`settle = 500ms\`, the race closure on, every safety
check of 0.5 on), three nodes a, b and c on 127.0.0.1, each with its
own serve and state directory, against \`etcdctl lock NAME /bin/true\`
on a one-member etcd on 127.0.0.1, the lock a cron script would take
instead. Every round starts on a cluster that no node has a record of,
so each check may go: *uncontested*, node a checks alone; *contested*,
the three checks are released at the same instant. After each round
\`etcdctl lock\` runs alone (\`pgbench race -r 1\`); the ratio is the
median of each round's time to a go (the check that exited 0) divided
by that round's etcdctl run.

*Delayed*: the same, with every request through a delaying proxy
(tests/delayproxy.c, \`-d 20:10 -w up\`) that holds what the client
sends 20 ± 10 ms, drawn per connection: one in front of each serve,
and one in front of etcd's client port, through which \`etcdctl lock\`
then runs. Both pay the same delay on every request they send: a go
asks each peer on a connection of its own, twice; etcdctl sends its
requests (grant a lease, put its key, wait for it, delete it, revoke
the lease) on one connection, each after the answer to the one before.

    $GO_CMD_ALONE
    $GO_CMD_RACE
    $GO_CMD_ALONE_DELAY
    $GO_CMD_RACE_DELAY

| | rounds | 0 pollers | 1 poller | ≥ 2 pollers | time to a go (median) | etcdctl lock (median) | ÷ etcdctl (median of per-round ratios) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| uncontested | $GA_N | $GA_Z | $GA_O | $GA_M | $(fmt "$GA_MS") ms | $(fmt "$GA_REF") ms | $(rat "$GA_R") |
| contested (3 at once) | $GR_N | $GR_Z | $GR_O | $GR_M | $(fmt "$GR_MS") ms | $(fmt "$GR_REF") ms | $(rat "$GR_R") |
| uncontested, both delayed 20 ± 10 ms | $GAD_N | $GAD_Z | $GAD_O | $GAD_M | $(fmt "$GAD_MS") ms | $(fmt "$GAD_REF") ms | $(rat "$GAD_R") |
| contested, both delayed 20 ± 10 ms | $GRD_N | $GRD_Z | $GRD_O | $GRD_M | $(fmt "$GRD_MS") ms | $(fmt "$GRD_REF") ms | $(rat "$GRD_R") |

A go asks every peer twice (before and after the claim) and writes the
claim durably; a contested go also waits until the nodes whose names
sort after its own have withdrawn. With a delay, each of the go's
rounds costs one delay (it asks the peers at once), and each of
etcdctl's round trips one.

EOF
GO_HEADLINE=$(cat <<EOF
## Headline: a race-free go

With the defaults (\`settle = 500ms\`, the race closure and every safety
check on), three nodes on 127.0.0.1, against \`etcdctl lock NAME
/bin/true\` on a one-member etcd timed in the same rounds
([details](#the-race-free-go)); delayed: both through the same delaying
proxy, 20 ± 10 ms on every request:

| | time to a go | ÷ etcdctl lock | rounds | ≥ 2 pollers | 0 pollers |
| --- | ---: | ---: | ---: | ---: | ---: |
| uncontested | $(fmt "$GA_MS") ms | $(rat "$GA_R") | $GA_N | $GA_M | $GA_Z |
| contested, 3 nodes at once | $(fmt "$GR_MS") ms | $(rat "$GR_R") | $GR_N | $GR_M | $GR_Z |
| uncontested, both delayed 20 ± 10 ms | $(fmt "$GAD_MS") ms | $(rat "$GAD_R") | $GAD_N | $GAD_M | $GAD_Z |
| contested, both delayed 20 ± 10 ms | $(fmt "$GRD_MS") ms | $(rat "$GRD_R") | $GRD_N | $GRD_M | $GRD_Z |

\`settle = 0\` (no race closure) appears below only as a labelled
ablation.
EOF
)
# go_met RATIO LIMIT MORE ZERO: the ratio within its limit, and every
# round had exactly one poller.
go_met()
{
	le "$1" "$2" && [ "$3" -eq 0 ] && [ "$4" -eq 0 ]
}
# go_target WHAT COMPARED LIMIT RATIO MS REF ROUNDS ZERO MORE
go_target()
{
	target "$1" "$2" "≤ $3×; 1 poller a round" \
	    "$(rat "$4") ($(fmt "$5") ms vs $(fmt "$6") ms); 0 pollers in $8, ≥ 2 in $9 of $7 rounds" \
	    "$(verdict go_met "$4" "$3" "$9" "$8")"
}
go_target "race-free go, defaults, uncontested" "\`etcdctl lock\`, same run" 0.5 \
    "$GA_R" "$GA_MS" "$GA_REF" "$GA_N" "$GA_Z" "$GA_M"
go_target "race-free go, defaults, contested (3 at once)" "\`etcdctl lock\`, same run" 1.0 \
    "$GR_R" "$GR_MS" "$GR_REF" "$GR_N" "$GR_Z" "$GR_M"
go_target "race-free go, 20 ± 10 ms delay, uncontested" "\`etcdctl lock\` through the same delay, same run" 0.5 \
    "$GAD_R" "$GAD_MS" "$GAD_REF" "$GAD_N" "$GAD_Z" "$GAD_M"
go_target "race-free go, 20 ± 10 ms delay, contested (3 at once)" "\`etcdctl lock\` through the same delay, same run" 0.5 \
    "$GRD_R" "$GRD_MS" "$GRD_REF" "$GRD_N" "$GRD_Z" "$GRD_M"
section_done
