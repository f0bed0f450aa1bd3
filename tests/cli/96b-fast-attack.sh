#!/bin/bash
# SPDX-License-Identifier: ISC
# The fast rule attacked, on loopback with three real nodes (default
# settings: every peer announces the fast rule, so no check sleeps). The
# serves run under tests/preempt.so, held up between testing the claim
# lock and reading the record and holding back their answers; in every
# round one check is held up right after its claim's rename(2), before
# round 2 (the moment the fast rule's argument turns on). Never two
# pollers in a round. Then a check stopped (SIGSTOP) while it waits for a
# peer to decide: it withdraws when it runs again, past its deadline,
# and never goes.
#
# PG_ATTACK_ROUNDS: simultaneous rounds (15).
. "${PG_TOP:-.}/tests/lib.sh"

ROUNDS=${PG_ATTACK_ROUNDS:-15}
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "PG_ATTACK_ROUNDS must be a number"
SHIM=$PG_BUILD/tests/preempt.so
if [ ! -f "$SHIM" ]; then
	skip "tests/preempt.so is not built (make tests/preempt.so)" 1
	finish
fi
NODES=(a b c)

# Exported to the serves only: 5ms between lock and record, answers held
# back 0 to 10ms.
LD_PRELOAD=$SHIM PG_PREEMPT_GETLK_MS=5 PG_PREEMPT_ANSWER_MS=0 \
    PG_PREEMPT_JITTER_MS=10 fleet_start "" "${NODES[@]}"
if tr '\0' '\n' <"/proc/${FLEET_SPID[a]}/environ" 2>/dev/null |
    grep -q '^PG_PREEMPT_GETLK_MS=5$'; then
	ok "three serves under the shim"
else
	not_ok "three serves under the shim"
fi
curl -s "http://127.0.0.1:${FLEET_PORT[a]}/v1/status/mail" >"$T/status" ||
    bail "no status from a's serve"
assert "a's status announces the fast rule: deciding no" \
    grep -qx 'deciding no' "$T/status"
assert "... its settle, 500ms" grep -qx 'settle 500' "$T/status"
assert "... and its timeout, 2s" grep -qx 'timeout 2000' "$T/status"

# --- simultaneous rounds, one check held up after its rename ---
double=0 empty=0 waited=0 slept=0
for ((i = 0; i < ROUNDS; i++)); do
	for n in "${NODES[@]}"; do
		rm -f "$T/$n.state/mail"
	done
	race_arm
	for n in "${NODES[@]}"; do
		if [ "$n" = "${NODES[$((i % 3))]}" ]; then
			racer 0 env LD_PRELOAD="$SHIM" \
			    PG_PREEMPT_RENAME_MS=$((i * 7 % 40)) \
			    "$CHECK" -v -c "$T/$n.conf" mail
		else
			racer 0 "$CHECK" -v -c "$T/$n.conf" mail
		fi
	done
	race_go
	race_count
	[ "$WENT" -gt 1 ] && double=$((double + 1))
	[ "$WENT" -eq 0 ] && empty=$((empty + 1))
	cat "$T"/r[123].err >"$T/round.err"
	grep -q 'waiting for' "$T/round.err" && waited=$((waited + 1))
	grep -q 'settling [0-9]' "$T/round.err" && slept=$((slept + 1))
	[ "$WENT" -gt 1 ] && diag_file "$T/round.err" "round $i: $WENT went"
done
diag "$ROUNDS rounds: two or more pollers: $double, none: $empty," \
    "a check waited for a peer to decide: $waited"
is "$double" 0 "held up after the rename: no round with two pollers"
is "$ODDS" 0 "every check exited 0 or 1"
is "$slept" 0 "every peer fast: no check slept"
num_between "$empty" 0 $((ROUNDS / 3)) "rounds with no poller: few (stalls of up to 40ms and late answers)"

# --- a check stopped while it waits for a peer ---
# b is held up 3s after its claim's rename: it holds its claim lock, so
# a, whose name sorts first, waits for b to decide. a is stopped there
# for longer than the horizon (5.75s); when it runs again its next
# question ends past its deadline: it withdraws, and puts back "no
# record". b, deciding at last, sees a's claim and withdraws too.
stopped=0
for try in 1 2 3; do
	rm -rf "$T"/[abc].state/mail "$T/barrier"
	mkdir "$T/barrier" || bail "mkdir $T/barrier"
	# Staged, not timed: both checks reach their claim before either
	# claims (a barrier before the rename), so each went through round
	# 1 seeing no claim; then a is held after its rename until b's
	# claim is there, so that its round 2 sees it.
	race_arm
	racer 0 env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=3000 \
	    PG_PREEMPT_RENAME_BARRIER="$T/barrier" PG_PREEMPT_RENAME_PARTIES=2 \
	    "$CHECK" -v -c "$T/b.conf" mail
	racer 0 env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=20 \
	    PG_PREEMPT_RENAME_BARRIER="$T/barrier" PG_PREEMPT_RENAME_PARTIES=2 \
	    PG_PREEMPT_RENAME_UNTIL="$T/b.state/mail" \
	    "$CHECK" -v -c "$T/a.conf" mail
	race_go
	APID=${RACER[2]}
	if wait_for 10 grep -q 'waiting for b' "$T/r2.err"; then
		kill -STOP "$APID"
		stopped=1
		sleep 7
		kill -CONT "$APID"
		race_wait
		is "${RACE_RC[2]}" 1 "stopped while waiting for b: a withdraws"
		if grep -q 'too long' "$T/r2.err"; then
			ok "... as too slow to order (its deadline)"
		else
			not_ok "... as too slow to order (its deadline)"
			diag_file "$T/r2.err" "a stderr"
		fi
		is "${RACE_RC[1]}" 1 "b, seeing a's claim, withdraws too"
		assert "a's claim is gone" test ! -e "$T/a.state/mail"
		assert "b's claim is gone" test ! -e "$T/b.state/mail"
		break
	fi
	race_wait
	diag "try $try: a did not wait for b"
	diag_file "$T/r1.err" "b stderr"
	diag_file "$T/r2.err" "a stderr"
done
[ "$stopped" = 1 ] || not_ok "a waited for b to decide (3 tries)"

for n in "${NODES[@]}"; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done
finish
