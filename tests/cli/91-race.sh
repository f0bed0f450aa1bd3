#!/bin/bash
# SPDX-License-Identifier: ISC
# The race: three nodes a, b and c with their serves; in each round every
# node's pollguard-check, and a second one on one node, start at the same
# instant on a cluster nobody polled for long. With the settle round
# (default 500ms) exactly one node must go in every round. Then the same
# with settle = 0, only reported: without the settle round nothing orders
# claims made at the same moment.
#
# PG_RACE_ROUNDS: rounds with the settle round (30); no new round is begun
# after PG_RACE_SECONDS (90) seconds. PG_RACE_ROUNDS0: rounds with
# settle = 0 (10).
. "${PG_TOP:-.}/tests/lib.sh"

ROUNDS=${PG_RACE_ROUNDS:-30}
BUDGET_MS=$((${PG_RACE_SECONDS:-90} * 1000))
ROUNDS0=${PG_RACE_ROUNDS0:-10}
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "PG_RACE_ROUNDS must be a number"
[[ $ROUNDS0 =~ ^[0-9]+$ ]] || bail "PG_RACE_ROUNDS0 must be a number"
NODES=(a b c)

fleet_start "" "${NODES[@]}"			# the default settle, 500ms
for n in "${NODES[@]}"; do
	fleet_conf "$n" "$T/$n.s0.conf" "settle = 0"
done
ok "three serves on 127.0.0.1:${FLEET_PORT[a]}, :${FLEET_PORT[b]}," \
    ":${FLEET_PORT[c]}"

# round SUFFIX I: one round with the configs $T/NODE$SUFFIX.conf: no
# records; checks on a, b, c and a second one on node I % 3, released
# together. Sets WON (exit-0 checks), NODES_WON (nodes with one), SLOW
# (checks that withdrew as too slow to order: a busy machine),
# DOUBLE (1 when both checks of one node went, both started before the
# node's claim), AFTER (1 when the second of them started after the
# first had kept its claim: a later check, as a cron run a moment later
# would be, which the fast rule's quick rounds make possible even from a
# simultaneous start), ODD (other statuses) and
# LEFT (nodes that did not go but have a record: a withdrawal that did not
# put back "no record").
round()
{
	local sfx=$1 i=$2 dup n k rc
	local -a who=()
	local -A went=() wentk=()
	dup=${NODES[$((i % 3))]}
	for n in "${NODES[@]}"; do
		rm -f "$T/$n.state/mail"
	done
	who=("${NODES[@]}" "$dup")
	race_checks "${who[@]/%/$sfx}"
	race_wait
	WON=0 NODES_WON=0 DOUBLE=0 AFTER=0 ODD=0 SLOW=0
	for ((k = 0; k < ${#who[@]}; k++)); do
		n=${who[$k]}
		rc=${RACE_RC[$((k + 1))]}
		case $rc in
		0)
			WON=$((WON + 1))
			if [ -n "${went[$n]:-}" ]; then
				# Each says what it found in its own record
				# as it started: "never" for both, and both
				# ran at once.
				if grep -q 'on this node: never' \
				    "$T/r${wentk[$n]}.err" &&
				    grep -q 'on this node: never' \
				    "$T/r$((k + 1)).err"; then
					DOUBLE=1
				else
					AFTER=1
					WON=$((WON - 1))
				fi
			else
				went[$n]=1
				wentk[$n]=$((k + 1))
				NODES_WON=$((NODES_WON + 1))
			fi
			;;
		1)
			grep -qE 'too (long|slow)' "$T/r$((k + 1)).err" &&
			    SLOW=$((SLOW + 1))
			;;
		2)
			# Of two checks on one node, the one that comes
			# second finds the other deciding (it holds
			# the cluster's claim lock) and skips with 2.
			[ "$n" = "$dup" ] || {
				ODD=$((ODD + 1))
				diag "round $sfx$i: check on $n exited 2"
			}
			;;
		*)
			ODD=$((ODD + 1))
			diag "round $sfx$i: check on $n exited $rc"
			diag_file "$T/r$((k + 1)).err" "$n stderr"
			;;
		esac
	done
	LEFT=0
	for n in "${NODES[@]}"; do
		if [ -z "${went[$n]:-}" ] && [ -e "$T/$n.state/mail" ]; then
			LEFT=$((LEFT + 1))
			diag "round $sfx$i: $n did not go, yet has a record:"
			diag_file "$T/$n.state/mail" "$n record"
		fi
	done
	if [ -n "$sfx" ]; then
		return 0
	fi
	if [ "$NODES_WON" -ne 1 ]; then
		diag "round $i: $NODES_WON nodes went (checks: ${who[*]}; $SLOW withdrew as too slow)"
		[ "$NODES_WON" -eq 0 ] && [ "$SLOW" -gt 0 ] && return 0
		for ((k = 1; k <= ${#who[@]}; k++)); do
			diag_file "$T/r$k.err" "${who[$((k - 1))]} stderr"
		done
	fi
}

# --- with the settle round ---

start=$(now_ms)
ran=0 zero=0 one=0 many=0 double=0 odd=0 exits=0 left=0 slowzero=0 slow=0
after=0
for ((i = 1; i <= ROUNDS; i++)); do
	if [ $(($(now_ms) - start)) -ge "$BUDGET_MS" ]; then
		diag "time budget of $((BUDGET_MS / 1000)) s used up"
		break
	fi
	round "" "$i"
	ran=$((ran + 1))
	exits=$((exits + WON))
	odd=$((odd + ODD))
	left=$((left + LEFT))
	slow=$((slow + SLOW))
	double=$((double + DOUBLE))
	after=$((after + AFTER))
	case $NODES_WON in
	0)
		# A claim too slow to order is withdrawn: safe, and allowed.
		if [ "$SLOW" -gt 0 ]; then
			slowzero=$((slowzero + 1))
		else
			zero=$((zero + 1))
		fi
		;;
	1) one=$((one + 1)) ;;
	*) many=$((many + 1)) ;;
	esac
done
secs=$(( ($(now_ms) - start) / 1000 ))
diag "settle 500ms: $ran of $ROUNDS rounds in ${secs}s, 4 checks each (a, b, c and a second on one node)"
diag "settle 500ms: rounds with 0 nodes going: $zero (and $slowzero more where a claim was withdrawn as too slow); 1: $one; 2 or more: $many"
diag "settle 500ms: checks that withdrew as too slow to order: $slow"
diag "settle 500ms: exit-0 checks: $exits; rounds where both checks of one node went: $double (and $after where the second started after the first had kept its claim)"
if [ "$ran" -gt 0 ]; then
	ok "$ran rounds ran"
else
	not_ok "no round ran"
fi
is "$zero" 0 "settle 500ms: no round where no node went"
is "$many" 0 "settle 500ms: no round where two nodes went"
is "$odd" 0 "settle 500ms: every check exited 0 or 1 (or 2, the second on a node)"
is "$left" 0 "settle 500ms: nodes that did not go have no record (none before)"
# Two checks on one node at the same moment: the claim lock lets one
# decide, the other skips (2). So one exit-0 check per round, not just
# one node.
is "$double" 0 "settle 500ms: never both checks of one node went"
is "$exits" "$one" "settle 500ms: one exit-0 check in each round with a winner"

# --- without it: reported, not asserted ---

start=$(now_ms)
ran0=0 zero0=0 one0=0 many0=0 odd0=0
for ((i = 1; i <= ROUNDS0; i++)); do
	[ $(($(now_ms) - start)) -lt 30000 ] || break
	round .s0 "$i"
	ran0=$((ran0 + 1))
	odd0=$((odd0 + ODD))
	case $NODES_WON in
	0) zero0=$((zero0 + 1)) ;;
	1) one0=$((one0 + 1)) ;;
	*) many0=$((many0 + 1)) ;;
	esac
done
diag "settle 0: $ran0 rounds: 0 nodes going: $zero0; 1: $one0; 2 or more: $many0 (not a failure: the race is open without the settle round)"
is "$odd0" 0 "settle 0: every check exited 0 or 1 (or 2, the second on a node)"

for n in "${NODES[@]}"; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done

finish
