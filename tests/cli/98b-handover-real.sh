#!/bin/bash
# SPDX-License-Identifier: ISC
# Handover end to end, with real processes only: three nodes a, b and c
# on loopback, each with its own state directory, config and
# pollguard-serve; the outcomes are the ones pollguard-touch records and
# the serves publish (tests/cli/98-handover.sh tries the rules one by one
# against a fake peer).
#
# A round is what cron does on every node at the same moment: the three
# checks start at one instant (the race helpers), and the job runs,
# under pollguard-touch, only where the check exited 0. Between rounds
# the records are aged by STEP (10s: longer than the claim horizon, 5.3s
# with timeout 2s and settle 200ms, shorter than wait, 60s), as if cron
# ran every 10 seconds: the poller's record stays fresh, its claim is
# over. Outcomes are not aged: cooldown runs in real time. Each case
# prints its rounds as a table, one line per round: who went (GO) and
# why the others skipped.
#
# (a) a job that always fails on a (cooldown 60s, the default): from the
#     next round on b or c polls and a skips, one poller in every round;
# (b) a job that fails once on a (cooldown 4s): the cluster moves on;
#     once cooldown is over, a is eligible again;
# (c) every node failing (cooldown 60s): they take turns, never two in a
#     round, never none.
. "${PG_TOP:-.}/tests/lib.sh"

NODES=(a b c)
STEP=10000
COOLDOWN=4

fleet_start "settle = 200ms" "${NODES[@]}"
ok "three serves on 127.0.0.1:${FLEET_PORT[a]}, :${FLEET_PORT[b]}," \
    ":${FLEET_PORT[c]}"

# cooldown [DURATION]: every node's cooldown (none given: the default,
# one wait). Only pollguard-check reads it.
cooldown()
{
	local n
	for n in "${NODES[@]}"; do
		sed -i '/^cooldown = /d' "$T/$n.conf"
		[ -z "${1:-}" ] ||
		    sed -i "s/^wait = 60s\$/&\\ncooldown = $1/" "$T/$n.conf"
	done
}

# later: STEP ms pass for the records: each is rewritten STEP older,
# without its claim (its horizon is shorter than STEP).
later()
{
	local n e
	for n in "${NODES[@]}"; do
		e=$("$PGSTATE" -c "$T/$n.conf" read mail) ||
		    bail "pgstate read $n"
		[ "$e" = never ] ||
		    "$PGSTATE" -c "$T/$n.conf" write mail $((e + STEP)) ||
		    bail "pgstate write $n"
	done
}

declare -A JOB=()
declare -a RSTART=()	# when each round began, ms
declare -A RUNEND=()	# when a node's job (ROUND NODE) ended, ms
WHO=	# the nodes that went in the last round
TABLE=	# the rounds so far, for diag
ROUND=0
BAD_ROUNDS=0	# rounds where other than one node went
BAD_JOBS=0	# job runs whose exit status was not the job's own

# fresh: forget every record and outcome: a cluster nobody polled yet.
fresh()
{
	local n
	for n in "${NODES[@]}"; do
		rm -f "$T/$n.state/mail" "$T/$n.state/.mail".*
	done
	TABLE= ROUND=0 RSTART=() RUNEND=()
}

# why FILE: a check's decision in a word or two, from its -v stderr;
# "GO(handover)" when it went because a peer's failure was not counted.
why()
{
	local l
	l=$(grep -E '^pollguard-check: (mail: )?(go|skip|keep|withdraw|claim)' \
	    "$1" | tail -n 1)
	case $l in
	*"handing over"*)	echo "skip(cooldown)" ;;
	*"was active"*)		echo "skip(${l##*skip: })" ;;
	*withdraw*)		echo "skip(withdrew)" ;;
	*go*)
		if grep -q 'go: handover' "$1"; then
			echo "GO(handover)"
		else
			echo "GO"
		fi
		;;
	*)			echo "?(${l:-no decision})" ;;
	esac
}

# round: one round on every node, at one instant (race_round: run again
# when a claim withdrawn as too slow left it without a poller); the job
# of a node that went runs under pollguard-touch. Sets WHO and adds a
# line to TABLE.
round()
{
	local n k line rc
	RSTART[$((ROUND + 1))]=$(now_ms)
	race_round "${NODES[@]}"
	ROUND=$((ROUND + 1))
	WHO= line=$(printf 'round %2d:' "$ROUND")
	for ((k = 1; k <= ${#NODES[@]}; k++)); do
		n=${NODES[$((k - 1))]}
		line+=" $n $(why "$T/r$k.err")"
		[ "${RACE_RC[$k]}" = 0 ] || continue
		WHO+=$n
		"$TOUCH" -c "$T/$n.conf" mail -- sh -c "${JOB[$n]}"
		rc=$?
		RUNEND[$ROUND$n]=$(now_ms)
		line+=" (job exit $rc)"
	done
	TABLE+="$line"$'\n'
	if [ "${#WHO}" -ne 1 ] || [ "$ODD" -ne 0 ]; then
		BAD_ROUNDS=$((BAD_ROUNDS + 1))
		diag "$line: ${#WHO} nodes went"
		for ((k = 1; k <= ${#NODES[@]}; k++)); do
			diag_file "$T/r$k.err" "${NODES[$((k - 1))]} stderr"
		done
	fi
}

# rounds N: N rounds; POLLERS is who went in each, one letter a round.
rounds()
{
	local i
	POLLERS=
	for ((i = 0; i < $1; i++)); do
		later
		round
		POLLERS+=${WHO:-_}
	done
}

# start_with NODE: make NODE the poller, as if it had polled a second
# ago: the next round leaves it alone in going.
start_with()
{
	"$PGSTATE" -c "$T/$1.conf" write mail 1000 || bail "pgstate write $1"
}

# --- (a) a job that always fails on a ---

fresh
cooldown
JOB=([a]="exit 1" [b]="exit 0" [c]="exit 0")
start_with a
BAD_ROUNDS=0
rounds 6
diag "(a) a's job always fails; who went: $POLLERS"
diag "$TABLE"
is "$BAD_ROUNDS" 0 "(a) exactly one poller in each of 6 rounds"
is "${POLLERS:0:1}" a "(a) round 1: a polls (it was the poller), its job fails"
if [[ ${POLLERS:1} =~ ^[bc]+$ ]]; then
	ok "(a) rounds 2-6: b or c polls, a skips (${POLLERS:1})"
else
	not_ok "(a) rounds 2-6: b or c polls, a skips"
	diag "who went: $POLLERS"
fi
if [[ ${POLLERS:1} =~ ^(b+|c+)$ ]]; then
	ok "(a) the node that took over stays the poller"
else
	not_ok "(a) the node that took over stays the poller"
	diag "who went: $POLLERS"
fi
# In round 2 a skips for its cooldown, or because the taker's claim came
# first (then the taker is active, as for any node); the taker went
# because a's failure was not counted against it.
assert "(a) round 2: the taker went by handover" \
    grep -qE "round  2: .*${POLLERS:1:1} GO\(handover\)" <<<"$TABLE"
"$PGSTATE" -c "$T/a.conf" outcome mail >"$T/a.outcome"
assert "(a) a's outcome: exit 1, one failure" \
    grep -qx 'failures 1' "$T/a.outcome"

# --- (b) a job that fails once on a ---

# end_ago: ms since a's run ended, as pgstate outcome says.
end_ago()
{
	"$PGSTATE" -c "$T/a.conf" outcome mail | sed -n 's/^end_ago //p'
}

fresh
cooldown ${COOLDOWN}s
rm -f "$T/flaky.failed"
JOB=([a]="test -e '$T/flaky.failed' || { : >'$T/flaky.failed'; exit 1; }"
    [b]="exit 0" [c]="exit 0")
start_with a
BAD_ROUNDS=0
rounds 3
diag "(b) a's job fails once; who went: $POLLERS"
diag "$TABLE"
is "$BAD_ROUNDS" 0 "(b) exactly one poller in each of 3 rounds"
# Round 2 must begin within a's cooldown, or a, active and eligible
# again, may poll on: a loaded machine can take that long.
# (RSTART is before the checks start: a's may read its cooldown up to a
# second or more later on such a machine.)
late2=$((RSTART[2] - ${RUNEND[1a]:-${RSTART[2]}}))
if [ "$late2" -gt $((COOLDOWN * 1000 - 1500)) ] &&
    [ "${POLLERS:0:2}" = aa ]; then
	skip "a busy machine: round 2 began $late2 ms after a's failed run (cooldown ${COOLDOWN}s)" 7
else
	if [[ $POLLERS =~ ^a(bb|cc)$ ]]; then
		ok "(b) a fails in round 1, the cluster moves on to ${POLLERS:1:1}"
	else
		not_ok "(b) a fails in round 1, the cluster moves on"
		diag "who went: $POLLERS"
	fi
	ago=$(end_ago)
	[[ $ago =~ ^[0-9]+$ ]] || bail "no end of a's run recorded (pgstate outcome)"
	ended=$(($(now_ms) - ago))
	taker=${POLLERS:1:1}
	# The node that took over goes quiet (its record ages past the wait):
	# now nobody is active, and only a's cooldown keeps a back.
	"$PGSTATE" -c "$T/$taker.conf" write mail 61000 ||
	    bail "pgstate write $taker"
	if [ $(($(now_ms) - ended)) -lt $((COOLDOWN * 1000 - 1000)) ]; then
		exit_is 1 "(b) within cooldown, the cluster idle: a still hands over" \
		    "$CHECK" -n -v -c "$T/a.conf" mail
		err_like "skip: handing over after a failed run \\(exit 1, .*cooldown ${COOLDOWN}s\\)" \
		    "(b) -v: a says why"
	else
		skip "a busy machine: the cooldown was nearly over after 3 rounds" 2
	fi
	# Wait out the cooldown (from the end of a's run, in round 1).
	while [ $(($(now_ms) - ended)) -lt $((COOLDOWN * 1000 + 200)) ]; do
		sleep 0.2
	done
	exit_is 0 "(b) after cooldown, the cluster idle: a is eligible again" \
	    "$CHECK" -n -v -c "$T/a.conf" mail
	err_lacks 'handing over' "(b) -v: no handover any more"
	# And in a round: a's peers do not count it (its last run failed, it has
	# been idle since), it does not hold back: all three claim, one goes.
	BAD_ROUNDS=0
	JOB[a]="exit 0"
	later
	round
	diag "${TABLE%$'\n'}" | tail -n 1
	is "$BAD_ROUNDS" 0 "(b) after cooldown: one poller in the round ($WHO)"
	# a claims like the others, or skips because a faster one's claim came
	# first: not for cooldown any more.
	assert "(b) after cooldown: a does not skip for cooldown in the round" \
	    grep -qE 'round  4: a (GO|skip\((withdrew|[bc] was active))' <<<"$TABLE"
fi

# --- (c) every node failing ---

fresh
cooldown
JOB=([a]="exit 1" [b]="exit 1" [c]="exit 1")
start_with a
BAD_ROUNDS=0
rounds 7
diag "(c) every node's job fails; who went: $POLLERS"
diag "$TABLE"
is "$BAD_ROUNDS" 0 "(c) exactly one poller in each of 7 rounds: never two, never none"
same=0
for ((i = 1; i < ${#POLLERS}; i++)); do
	[ "${POLLERS:i:1}" != "${POLLERS:i-1:1}" ] || same=$((same + 1))
done
is "$same" 0 "(c) no node polls two rounds in a row: they take turns"
if [[ ${POLLERS:0:3} =~ ^a[bc][bc]$ ]] && [ "${POLLERS:1:1}" != "${POLLERS:2:1}" ]; then
	ok "(c) rounds 1-3: each node once (${POLLERS:0:3})"
else
	not_ok "(c) rounds 1-3: each node once"
	diag "who went: $POLLERS"
fi

for n in "${NODES[@]}"; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done

finish
