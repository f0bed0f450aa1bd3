#!/bin/bash
# The race on a busy machine (make race; not part of make check): nodes
# a, b and c with their serves on loopback, settle 100ms; in each round
# the three checks start at the same instant on a cluster nobody polled,
# while a busy loop per core competes with them for the CPU, so that
# the scheduler preempts them at random moments. Prints how many rounds
# had 0, 1, 2 and 3 pollers and fails when any had two or more, or when
# a check exited with an error.
#
# RACE_ROUNDS: rounds (1000); no new round is begun after RACE_SECONDS
# (900) seconds. RACE_PREEMPT_MS: also run the checks under
# tests/preempt.so with that delay after each send (0..RACE_PREEMPT_MS
# more at random).
: "${PG_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$PG_TOP/tests/lib.sh"

ROUNDS=${RACE_ROUNDS:-1000}
SECONDS_MAX=${RACE_SECONDS:-900}
PREEMPT=${RACE_PREEMPT_MS:-}
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "RACE_ROUNDS must be a number"
[[ $SECONDS_MAX =~ ^[0-9]+$ ]] || bail "RACE_SECONDS must be a number"
[[ $PREEMPT =~ ^[0-9]*$ ]] || bail "RACE_PREEMPT_MS must be a number"
SHIM=${PG_BUILD:-$PG_TOP}/tests/preempt.so
run=()
if [ -n "$PREEMPT" ]; then
	[ -f "$SHIM" ] || bail "$SHIM is not built (make tests/preempt.so)"
	run=(env PG_PREEMPT_MS="$PREEMPT" PG_PREEMPT_JITTER_MS="$PREEMPT"
	    LD_PRELOAD="$SHIM")
fi

fleet_start "settle = 100ms" a b c
ok "three serves on 127.0.0.1:${FLEET_PORT[a]}, :${FLEET_PORT[b]}," \
    ":${FLEET_PORT[c]}"

# One busy loop per core, each bounded by timeout(1) should this script
# be killed before it stops them.
cores=$(nproc 2>/dev/null || echo 2)
burners=()
for ((k = 1; k <= cores; k++)); do
	bg "burn$k" timeout $((SECONDS_MAX + 120)) sh -c 'while :; do :; done'
	burners+=("$BGPID")
done

start=$(now_ms)
claimed=0
went=(0 0 0 0)
for ((i = 1; i <= ROUNDS; i++)); do
	if [ $(($(now_ms) - start)) -ge $((SECONDS_MAX * 1000)) ]; then
		diag "time budget of $SECONDS_MAX s used up"
		break
	fi
	rm -f "$T"/[abc].state/mail
	race_arm
	for n in a b c; do
		racer 0 "${run[@]}" "$CHECK" -v -c "$T/$n.conf" mail
	done
	race_go
	race_count
	[ "$CLAIMED" -ge 2 ] && claimed=$((claimed + 1))
	went[$WENT]=$((${went[$WENT]} + 1))
	if [ "$WENT" -ge 2 ] && [ "$((${went[2]} + ${went[3]}))" -le 3 ]; then
		diag "round $i: $WENT nodes went"
		for k in 1 2 3; do
			diag_file "$T/r$k.err" "check $k stderr"
		done
	fi
done
secs=$(( ($(now_ms) - start) / 1000 ))

for p in "${burners[@]}"; do
	kill -TERM "$p" 2>/dev/null
	wait_exit "$p" 10
done

diag "$RACES of $ROUNDS rounds in ${secs}s; settle 100ms; $cores busy loops${PREEMPT:+; ${PREEMPT}..$((2 * PREEMPT))ms after each send}"
diag "rounds where two or more checks claimed: $claimed"
diag "rounds with 0 pollers: ${went[0]} ($SLOWS claims withdrawn as too slow); 1: ${went[1]}; 2: ${went[2]}; 3: ${went[3]}"
num_between "$RACES" 1 "$ROUNDS" "rounds ran"
is "$((${went[2]} + ${went[3]}))" 0 "no round with two or more pollers"
is "$ODDS" 0 "every check exited 0 or 1"
for n in a b c; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done
finish
