# SPDX-License-Identifier: ISC
# bench/b-race.sh: the race: three nodes, each with its serve, start their
# checks at the same instant, with settle = 0 and the default; how many
# pollers each round had, and what the checks said (sourced by bench/run).

section race "the race: 3 nodes, simultaneous start"
RN=$(rounds 1000)
RJ=${BENCH_RACE_PARALLEL:-5}
NCL=100
# race_nodes: three ports, the configs that name them, and a serve on each;
# 1 when one of the serves did not start (they are stopped then).
race_nodes()
{
	local node s i
	RP=()
	RPIDS=()
	for node in a b c; do
		mkdir -p "$T/race/$node"
		free_port || return 1
		RP+=("$FREE_PORT")
	done
	for node in a b c; do
		for s in 0 500ms; do
			{
				printf '[pollguard]\nnode = %s\nstate = %s\n' \
				    "$node" "$T/race/$node"
				printf 'settle = %s\n' "$s"
				printf '[peer a]\nurl = http://127.0.0.1:%s\n' "${RP[0]}"
				printf '[peer b]\nurl = http://127.0.0.1:%s\n' "${RP[1]}"
				printf '[peer c]\nurl = http://127.0.0.1:%s\n' "${RP[2]}"
				for ((i = 0; i < NCL; i++)); do
					printf '[cluster r%d]\nwait = 10m\n' "$i"
				done
			} >"$T/race/$node-$s.conf"
			chmod 600 "$T/race/$node-$s.conf"
		done
	done
	i=0
	for node in a b c; do
		bg "race-$node" "$SERVE" -c "$T/race/$node-500ms.conf" \
		    -l "127.0.0.1:${RP[$i]}"
		RPIDS+=("$BGPID")
		if ! wait_listen "${RP[$i]}" "$BGPID"; then
			stop_pids "${RPIDS[@]}"
			return 1
		fi
		i=$((i + 1))
	done
}
for try in 1 2 3 4 5; do
	race_nodes && break
	[ "$try" = 5 ] && die "the race's serves did not start: $(head -n 1 "$T/race-a.err")"
done
race_arm()
{
	local s=$1 out=$2
	rm -rf "$T/race/err-$s"
	mkdir -p "$T/race/err-$s"
	RACE=("$PGB" race -n "$RN" -j "$RJ" -C "$NCL" -t 500 \
	    -e "$T/race/err-$s" -d "$T/race/a" -d "$T/race/b" -d "$T/race/c" \
	    "$CHECK" -v -c "$T/race/a-$s.conf" {} ::: \
	    "$CHECK" -v -c "$T/race/b-$s.conf" {} ::: \
	    "$CHECK" -v -c "$T/race/c-$s.conf" {})
	"${RACE[@]}" >"$out"
}
# count FILE: "rounds zero one two three other_statuses"
count()
{
	awk '{ w = 0; o = 0
		for (i = 5; i <= NF; i++) {
			if ($i == 0) w++
			else if ($i != 1) o++
		}
		n++; c[w]++; bad += o
	} END { printf "%d %d %d %d %d %d\n", n, c[0], c[1], c[2], c[3], bad }' "$1"
}
# norm: the -v lines of checks, without the cluster, the node names and
# the numbers, so that lines of one kind are equal.
norm()
{
	sed -n 's/^pollguard-check: //p' | sed \
	    -e 's/^r[0-9]*: //' -e 's/^cluster r[0-9]*: //' \
	    -e 's/last activity on this node: .*/last activity on this node: .../' \
	    -e 's/^[a-c]: [0-9]* ms: active .*/a peer: active/' \
	    -e 's/^again: [a-c]: [0-9]* ms: active .*/again: a peer: active/' \
	    -e 's/^[a-c]: never: idle/a peer: never: idle/' \
	    -e 's/^again: [a-c]: never: idle/again: a peer: never: idle/' \
	    -e 's/settling [0-9]*ms/settling .../' \
	    -e 's/\([: ]\)[a-c] \(claimed\|was active\|answered\)/\1X \2/' \
	    -e 's/peer [a-c] /peer X /' -e 's/active [0-9a-z.]* ago/active ... ago/'
}
# tally: "- N × `line`" for each kind of line, most frequent first.
tally()
{
	sort | uniq -c | sort -rn |
	    awk '{ n = $1; $1 = ""; printf "- %d × `%s`\n", n, substr($0, 2) }'
}
# why FILE SETTLE: for the rounds without exactly one poller, what each
# check said (-v), by kind: a markdown list, or nothing.
why()
{
	local f=$1 s=$2 r
	awk '{ w = 0; for (i = 5; i <= NF; i++) if ($i == 0) w++
		if (w != 1) print $2 }' "$f" | while read -r r; do
		cat "$T/race/err-$s/$r".* 2>/dev/null
	done | norm | tally
}
# decisions SETTLE: how every check of every round decided, by kind.
decisions()
{
	find "$T/race/err-$1" -type f -exec cat {} + | norm |
	    grep -E '^(keep the claim|withdraw|skip|claim withdrawn|go, claimed$|go \()' |
	    tally
}
t0=$SECONDS
race_arm 0 "$DATA/race-settle0.txt"
RT0=$((SECONDS - t0))
RACE0=$(show "${RACE[@]}")
t0=$SECONDS
race_arm 500ms "$DATA/race-default.txt"
RT5=$((SECONDS - t0))
RACE5=$(show "${RACE[@]}")
read -r n0 z0 o0 tw0 th0 x0 < <(count "$DATA/race-settle0.txt")
read -r n5 z5 o5 tw5 th5 x5 < <(count "$DATA/race-default.txt")
WHY5=$(why "$DATA/race-default.txt" 500ms)
DEC0=$(decisions 0)
DEC5=$(decisions 500ms)
# Keep the logs of the rounds that went wrong with the default.
awk '{ w = 0; for (i = 5; i <= NF; i++) if ($i == 0) w++
	if (w != 1) print $2 }' "$DATA/race-default.txt" | while read -r r; do
	for f in "$T/race/err-500ms/$r".*; do
		[ -f "$f" ] && cp "$f" "$DATA/race-default-round-${f##*/}.err"
	done
done
stop_pids "${RPIDS[@]}"
md <<EOF
## The race

Three nodes, a, b and c, each with its own state directory, its own
standalone serve on 127.0.0.1 and its own config listing the other two.
Before every round the round's cluster has no record on any node, so
each may go: every round is a real contest. \`pgbench race\` then starts
the three checks blocked on one pipe and closes it, so that they start
at the same instant. $RJ rounds run at once, each on its own cluster
(r0 ... r$((NCL - 1)), used in turn), so $((RJ * 3)) checks start
together on this $(nproc)-core machine, with the three serves. Exit
status 0 is a poller. The checks run with \`-v\`, their explanations kept
per round.

    $RACE0
    $RACE5

| settle | rounds | 0 pollers | 1 poller | 2 pollers | 3 pollers | other exit statuses | time |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 0 | $n0 | $z0 | $o0 | $tw0 | $th0 | $x0 | $RT0 s |
| 500ms (the default) | $n5 | $z5 | $o5 | $tw5 | $th5 | $x5 | $RT5 s |

With \`settle = 0\` the nodes that check at the same moment all see the
others as idle and poll together. The settle round leaves one poller
$( [ $((z5 + tw5 + th5)) -eq 0 ] && echo "in every round." || echo "in all but $((z5 + tw5 + th5)) rounds.")

How the $((3 * n5)) checks with the default settle decided (the line
of each check's \`-v\` output that gives its decision):

$DEC5

and the $((3 * n0)) with \`settle = 0\`:

$DEC0

EOF
if [ -n "$WHY5" ]; then
	md <<EOF
In the rounds with the default settle that did not end with exactly one
poller, the checks said (\`-v\`; the logs are kept in
build/bench/data/race-default-round-*.err):

$WHY5

EOF
fi
echo | md
bad5=$((z5 + tw5 + th5))
target "race: 3 nodes, simultaneous start, $n5 rounds" "\`settle = 0\` vs default" "0 or ≥ 2 pollers: report; default 0" \
    "settle 0: $z0 rounds with 0, $((tw0 + th0)) with ≥ 2; default: $z5 with 0, $((tw5 + th5)) with ≥ 2" \
    "$(verdict [ "$bad5" -eq 0 -a "$n5" -ge 1 ])"
section_done
