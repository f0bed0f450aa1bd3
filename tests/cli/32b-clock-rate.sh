#!/bin/bash
# SPDX-License-Identifier: ISC
# Clock rates (issue 32, item 4). Node b's processes (its serve, its
# checks, its pollguard-touch) run under tests/clockshim.so, which makes
# their CLOCK_BOOTTIME and CLOCK_MONOTONIC run R ppm off the real ones
# and shows that slew in adjtimex(2), as chrony slewing at that rate
# would. Node a's check runs under tests/preempt.so: held after its
# round-1 question left until b has claimed and kept, then held HOLD ms
# between its claim (visible) and round 2, inside its horizon and its
# round-2 deadline (below, "held rounds"). Each node that goes runs a
# job (tests/clockrec) that logs its start and end on the real
# CLOCK_MONOTONIC; b's outlasts a's go.
#
# a's round 2 then reads b's claim, some 10ms before a's, as elapsed on
# b's slow clock: 4 % of 5.2s is 208ms, more than settle/4 and 0.4's
# 0.1 %, so a took b's claim for one made after its own and went beside
# b's job (0.4.0: 6 of 6 rounds). A 0.5 node reads b's rate in b's status
# and widens its bounds by it: it never keeps beside b, and says why.
#
#   1. default settle and timeout, b 4 % slow, a held 5.2s: 3 rounds
#   2. timeout = 10s, b 1 % slow, a held 21.2s: 2 rounds
#   3. b at chrony's maxslewrate (83,333 ppm), a held 4.9s: 2 rounds;
#      a may withdraw by the bound or as too slow at that rate (the
#      widened deadline), and says which clock, at what rate
#
# No round may have both nodes' jobs at once; in most rounds both nodes
# claimed (the race was staged, not missed). PG_RATE_DEBUG=1 shows a's
# stderr of every round.
# pg-test: long (about a minute and a half of held rounds)
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/clockshim.so
PREEMPT=$PG_BUILD/tests/preempt.so
CLOCKREC=$PG_BUILD/tests/clockrec
need_built "$SHIM" "$PREEMPT" "$CLOCKREC"
command -v curl >/dev/null 2>&1 || bail "curl is not installed"
STATUS=$PG_BIN/pollguard-status

# --- the shim itself ------------------------------------------------------
rm -f "$T/o.test"
exit_is 0 "clockrec under the shim at -40000 ppm, a 1s hold" env \
    LD_PRELOAD="$SHIM" PG_CLOCK_RATE_PPM=-40000 PG_CLOCK_ORIGIN="$T/o.test" \
    "$CLOCKREC" -h 1000 "$T/shim.log" shim
# "shim start BOOT MONO REAL", "shim end BOOT MONO REAL": the hold sleeps
# in real time; the clocks of the shim count 4 % less of it.
ratio=$(awk '$2 == "start" { b = $3; m = $4; r = $5 }
    $2 == "end" { printf "%d %d", ($3 - b) * 1000 / ($5 - r),
    ($4 - m) * 1000 / ($5 - r) }' "$T/shim.log")
num_between "${ratio% *}" 955 965 "... CLOCK_BOOTTIME ran at 0.96 of the real one"
num_between "${ratio#* }" 955 965 "... and CLOCK_MONOTONIC too"
assert "... the origin shared in PG_CLOCK_ORIGIN" \
    grep -qE '^[0-9]+ [0-9]+$' "$T/o.test"

# --- the fleet, and what the tools show of b's clock -------------------------
fleet_start "" a b

# b_serve RATE: b's serve again, under the shim at RATE ppm, its clock
# from a new origin; every record of a and b removed.
ncase=0
b_serve()
{
	ncase=$((ncase + 1))
	ORIGIN=$T/origin.$ncase
	printf '#!/bin/sh\nexec env LD_PRELOAD=%s PG_CLOCK_RATE_PPM=%s PG_CLOCK_ORIGIN=%s %s "$@"\n' \
	    "$SHIM" "$1" "$ORIGIN" "$SERVE" >"$T/shimserve"
	chmod 755 "$T/shimserve"
	serve_stop "${FLEET_SPID[b]}" >/dev/null
	rm -f "$T"/[ab].state/mail "$T"/[ab].state/.mail.side
	SERVE_BIN=$T/shimserve serve_again sb "$T/b.conf" "${FLEET_PORT[b]}" ||
	    bail "b's serve under the shim did not start"
	FLEET_SPID[b]=$SERVE_PID
}

b_serve -40000
curl -s "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail" >"$T/status.b"
assert "b's status says its clock's bound: rate 40500 (4 % and 500)" \
    grep -qx 'rate 40500' "$T/status.b"
curl -s "http://127.0.0.1:${FLEET_PORT[a]}/v1/status/mail" >"$T/status.a"
assert "a's status says its own" grep -qE '^rate [0-9]+$' "$T/status.a"
exit_is 0 "pollguard-status on a" "$STATUS" -c "$T/a.conf" mail
assert "... a RATE column" grep -qE '^CLUSTER .* FAILS +RATE +HOLD$' \
    "$T/out"
assert "... b's clock at 40500ppm" grep -qE '^mail +b .* 40500ppm +-$' \
    "$T/out"
exit_is 0 "pollguard-status -j on a" "$STATUS" -j -c "$T/a.conf" mail
assert "... b's rate_ppm 40500" grep -q '"name":"b",.*"rate_ppm":40500' \
    "$T/out"
exit_is 0 "pollguard-check -n -v on a" "$CHECK" -n -v -c "$T/a.conf" mail
err_like "b: .*; its clock's rate up to 40500 ppm widens the bounds" \
    "... says that b's clock widens the bounds"

# --- held rounds ------------------------------------------------------------
# A round: a's check asks round 1 (b idle) and is held right after its
# question left (PG_PREEMPT_SENT_UNTIL=GO), until b's check, started
# then, has claimed and kept (b's racer creates GO when its check is
# done); then a claims, some 10ms after b, and is held HOLD ms after its
# claim became visible, before round 2 (PG_PREEMPT_CLAIMED_MS: a hold in
# the rename, PG_PREEMPT_RENAME_MS, comes before a reads the clock for
# the claim's visibility, a slow write, which keeps against no claim
# made before). Each check that goes runs its job under pollguard-touch:
# the job (tests/clockrec) outside any shim, a's touch outside
# preempt.so (it would hold up its renames), b's under b's clock.
#
# racer_a ROUND HOLD_MS GO, racer_b ROUND JOB_MS GO RATE: the racers.
racer_a()
{
	racer 0 env LD_PRELOAD="$PREEMPT" PG_PREEMPT_SENT_UNTIL="$3" \
	    PG_PREEMPT_CLAIMED_MS="$2" bash -c '"$1" -v -c "$2" mail; rc=$?
	    [ "$rc" != 0 ] || env -u LD_PRELOAD "$3" -c "$2" mail -- \
	    env -u LD_PRELOAD "$4" -h 300 "$5" job a "$6"
	    exit "$rc"' racer_a "$CHECK" "$T/a.conf" "$TOUCH" "$CLOCKREC" \
	    "$LOG" "$1"
}
racer_b()
{
	racer 0 env LD_PRELOAD="$SHIM" PG_CLOCK_RATE_PPM="$4" \
	    PG_CLOCK_ORIGIN="$ORIGIN" bash -c 'for i in $(seq 1000); do
		[ -e "$8.held" ] && break
		sleep 0.01
	    done
	    "$1" -v -c "$2" mail; rc=$?
	    : >"$8"
	    [ "$rc" != 0 ] || "$3" -c "$2" mail -- \
	    env -u LD_PRELOAD "$4" -h "$5" "$6" job b "$7"
	    exit "$rc"' racer_b "$CHECK" "$T/b.conf" "$TOUCH" "$CLOCKREC" \
	    "$2" "$LOG" "$1" "$3"
}

# rounds NAME N RATE HOLD_MS: N rounds, b at RATE ppm, a held HOLD_MS;
# sets BOTH (both claimed), TWO (both went), OVER (jobs overlapping),
# NAMED (a named b's clock's rate in its round 2).
rounds()
{
	local name=$1 n=$2 rate=$3 hold=$4 i go
	LOG=$T/jobs.$name.log
	: >"$LOG"
	BOTH=0 TWO=0 NAMED=0
	for ((i = 1; i <= n; i++)); do
		rm -f "$T"/[ab].state/mail
		go=$T/go.$name.$i
		race_arm
		racer_a "$i" "$hold" "$go"
		racer_b "$i" $((hold + 1500)) "$go" "$rate"
		race_go
		race_count
		[ "$CLAIMED" -eq 2 ] && BOTH=$((BOTH + 1))
		grep -qE "again: b: .*; its clock's rate up to [0-9]+ ppm widens" \
		    "$T/r1.err" && NAMED=$((NAMED + 1))
		if [ "$WENT" -eq 2 ]; then
			TWO=$((TWO + 1))
			[ "$TWO" -gt 2 ] && continue
			diag "$name, round $i: both went"
			diag_file "$T/r1.err" "a stderr"
			diag_file "$T/r2.err" "b stderr"
		elif [ "$i" -eq 1 ] || [ -n "${PG_RATE_DEBUG:-}" ]; then
			diag_file "$T/r1.err" "$name, round $i: a stderr"
		fi
	done
	OVER=$(job_overlaps "$LOG" 2>"$T/overlaps")
	[ -s "$T/overlaps" ] && diag_file "$T/overlaps" "$name: overlaps"
	diag "$name: $n rounds: both claimed $BOTH, both went $TWO, a named b's rate $NAMED"
}

# 1. The case.
rounds 4pc 3 -40000 5200
num_between "$BOTH" 2 3 "4 %, held 5.2s: in 2 of 3 rounds at least, both claimed"
is "$TWO" 0 "... no round where both went"
is "$OVER" 0 "... no two jobs overlap"
num_between "$NAMED" "$BOTH" 3 "... a said that b's clock widened its bounds"

# 2. timeout = 10s: the horizon is 21.75s, and 1 % is enough.
for n in a b; do
	fleet_conf "$n" "$T/$n.conf" "timeout = 10s"
done
serve_stop "${FLEET_SPID[a]}" >/dev/null
serve_again sa "$T/a.conf" "${FLEET_PORT[a]}" || bail "a's serve did not start"
FLEET_SPID[a]=$SERVE_PID
b_serve -10000
rounds 1pc 2 -10000 21200
num_between "$BOTH" 1 2 "timeout 10s, 1 %, held 21.2s: in 1 of 2 rounds at least, both claimed"
is "$TWO" 0 "... no round where both went"
is "$OVER" 0 "... no two jobs overlap"

# 3. chrony's maxslewrate: safe, or refused with the reason.
for n in a b; do
	fleet_conf "$n" "$T/$n.conf" ""
done
serve_stop "${FLEET_SPID[a]}" >/dev/null
serve_again sa "$T/a.conf" "${FLEET_PORT[a]}" || bail "a's serve did not start"
FLEET_SPID[a]=$SERVE_PID
b_serve -83333
rounds slew 2 -83333 4900
num_between "$BOTH" 1 2 "83,333 ppm, held 4.9s: in 1 of 2 rounds at least, both claimed"
is "$TWO" 0 "... no round where both went"
is "$OVER" 0 "... no two jobs overlap"
num_between "$NAMED" "$BOTH" 2 "... a said that b's clock widened its bounds"
assert "... at 83833 ppm" grep -q "b: .*; its clock's rate up to 83833 ppm" \
    "$T/r1.err"
is "$ODDS" 0 "every check exited 0 or 1"

for n in a b; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done

finish
