#!/bin/bash
# SPDX-License-Identifier: ISC
# The settle round against a preempted checker. Nodes a and b, settle
# 100ms (so claims within settle/4 = 25ms of each other are ordered by
# name, a first), each check run under tests/preempt.so, which sleeps
# D = 100ms (plus 0..20ms) after every request it sends: the scheduler
# taking the CPU away between the send and any time stamp the checker
# takes after it.
#
# The worst case is staged, not hoped for: in three rounds of four b's
# check starts first and a's 50 or 75ms later (settle/4 + D/4, + D/2).
# Both ask before the other claimed (the other is still asleep after its
# send), so both claim, a more than settle/4 after b: b may keep its
# claim, a must withdraw. A checker that takes its lower bound on when a
# peer claimed from a stamp after the send (0.3's pretransfer time) puts
# b's claim up to D too late, inside its window, where a's name sorts
# first: both keep. In the fourth round both start at once; with a
# delay longer than settle/4 such a checker sees even a claim made at the
# same moment as ours more than settle/4 later, on both nodes.
#
# Whatever the timing, at most one node may go in a round. Rounds where
# none goes (each withdrew for the other) are allowed, counted and shown.
# PG_PREEMPT_ROUNDS: rounds (40); no new round is begun after
# PG_PREEMPT_SECONDS (45) seconds.
. "${PG_TOP:-.}/tests/lib.sh"

ROUNDS=${PG_PREEMPT_ROUNDS:-40}
BUDGET_MS=$((${PG_PREEMPT_SECONDS:-45} * 1000))
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "PG_PREEMPT_ROUNDS must be a number"
SHIM=${PG_BUILD:-$PG_TOP}/tests/preempt.so
[ -f "$SHIM" ] || bail "$SHIM is not built (run make check)"
SETTLE=100 D=100 JITTER=20
W=$((SETTLE / 4))
# Offsets of a's start after b's, round by round; b claims about when
# its first answer is in, D after its send, so a must start within D.
OFFSETS=($((W + D / 2)) $((W + D / 4)) $((W + D / 2)) 0)

# The shim itself: a delay after a send on a TCP socket, none on files.
t0=$(now_ms)
exit_is 0 "under the shim, a pipe and a file" env PG_PREEMPT_MS=2000 \
    LD_PRELOAD="$SHIM" sh -c 'echo x | cat >"$1"' sh "$T/shim.txt"
num_between $(($(now_ms) - t0)) 0 1500 "... are written without a delay"
is "$(cat "$T/shim.txt" 2>/dev/null)" x "... and written"

fleet_start "settle = ${SETTLE}ms" a b
ok "two serves on 127.0.0.1:${FLEET_PORT[a]}, :${FLEET_PORT[b]}"

t0=$(now_ms)
exit_is 0 "a check under the shim goes (no records)" env \
    PG_PREEMPT_MS=300 LD_PRELOAD="$SHIM" "$CHECK" -c "$T/a.conf" mail
num_between $(($(now_ms) - t0)) 600 "$PG_CMD_TIMEOUT"000 \
    "... and took 2 x 300ms longer at least (one peer, two rounds)"

# A check of node NODE under the shim, seeded by the round and the node.
preempted()
{
	racer "$1" env PG_PREEMPT_MS=$D PG_PREEMPT_JITTER_MS=$JITTER \
	    PG_PREEMPT_SEED="$2" LD_PRELOAD="$SHIM" \
	    "$CHECK" -v -c "$T/$3.conf" mail
}

start=$(now_ms)
none=0 one=0 two=0 contested=0 staged=0 staged2=0
for ((i = 1; i <= ROUNDS; i++)); do
	if [ $(($(now_ms) - start)) -ge "$BUDGET_MS" ]; then
		diag "time budget of $((BUDGET_MS / 1000)) s used up"
		break
	fi
	off=${OFFSETS[$((i % ${#OFFSETS[@]}))]}
	rm -f "$T/a.state/mail" "$T/b.state/mail"
	race_arm
	preempted 0 $((2 * i)) b
	preempted "$off" $((2 * i + 1)) a
	race_go
	race_count
	[ "$CLAIMED" -eq 2 ] && contested=$((contested + 1))
	if [ "$off" -gt "$W" ]; then
		staged=$((staged + 1))
		[ "$CLAIMED" -eq 2 ] && staged2=$((staged2 + 1))
	fi
	case $WENT in
	0) none=$((none + 1)) ;;
	1) one=$((one + 1)) ;;
	*)
		two=$((two + 1))
		[ "$two" -gt 2 ] && continue
		diag "round $i (a ${off}ms after b): both went"
		diag_file "$T/r1.err" "b stderr"
		diag_file "$T/r2.err" "a stderr"
		;;
	esac
done
secs=$(( ($(now_ms) - start) / 1000 ))
diag "settle ${SETTLE}ms, ${D}..$((D + JITTER))ms after each send: $RACES rounds in ${secs}s"
diag "rounds where both claimed: $contested ($staged2 of the $staged staged ones)"
diag "rounds with 0 nodes going: $none ($SLOWS claims withdrawn as too slow); 1: $one; 2: $two"
num_between "$RACES" 1 "$ROUNDS" "rounds ran"
# Without claims on both sides the rounds prove nothing.
num_between "$staged2" $(((staged + 1) / 2)) "$staged" \
    "in half the staged rounds at least, both nodes claimed"
is "$two" 0 "no round where both nodes went"
is "$ODDS" 0 "every check exited 0 or 1"

for n in a b; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done

finish
