#!/bin/bash
# SPDX-License-Identifier: ISC
# A peer not reached in round 1 whose claim hides a job it runs without
# the run lock (found by the model: doc/model, the lockless
# configuration). Node b runs a job that records its activity with plain
# pollguard-touch mail, refreshing its record without the run lock (a
# pipeline through pollguard-touch -f holds it since 0.5: b's check would
# skip). A short partition: a and b each reach the other through a
# tests/delayproxy that resets every connection. a's check finds b
# unreachable (unreachable = run: counts as never) and claims; b's check,
# its own job aside, finds a unreachable and claims later. Both are held
# after their claim, before round 2 (tests/preempt.so), while the
# partition heals. a's round 2 then reads b's claim, later than its own:
# by the order of claims a would keep, and go beside b's job, whose
# refresh the claim hides.
# A peer not reached in round 1 and active in round 2 makes a withdraw,
# claim or not. Before the fix a went (exit 0).
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/preempt.so
PROXY=$PG_BUILD/tests/delayproxy
need_built "$SHIM" "$PROXY"

# Timeout 5s: round 1 fails at once (the proxies reset), and round 2
# must reach the peer, also on a loaded machine (500ms was missed there:
# a unreachable b again counts as never, and a went).
fleet_start "settle = 100ms
timeout = 5s" a b

# proxy NODE CTL: a delayproxy in front of NODE's serve, its behaviour
# read from CTL at each accept; PPORT.
proxy()
{
	bg "p$1" "$PROXY" -f "$2" -l 127.0.0.1:0 "127.0.0.1:${FLEET_PORT[$1]}"
	listen_port "p$1" PPORT || bail "delayproxy for $1 did not start"
}
printf 'drop 1 reset\n' >"$T/ctl"
proxy a "$T/ctl"
PA=$PPORT
proxy b "$T/ctl"
PB=$PPORT
sed -i "/^\[peer b\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PB/|" \
    "$T/a.conf"
sed -i "/^\[peer a\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PA/|" \
    "$T/b.conf"
grep -q "127.0.0.1:$PB/" "$T/a.conf" && grep -q "127.0.0.1:$PA/" "$T/b.conf" ||
    bail "the configs do not name the proxies"

# claims NODE: NODE's serve, asked directly, reports a claim.
claims()
{
	curl -sf "http://127.0.0.1:${FLEET_PORT[$1]}/v1/status/mail" |
	    grep -q '^claim '
}

# b's job: a refresh of b's record every second (as a pipeline's), for 2
# minutes at most.
bg job bash -c "for ((i = 0; i < 120; i++)); do
    '$TOUCH' -c '$T/b.conf' mail; sleep 1; done"
JOB=$BGPID
refreshed()
{
	local e
	e=$("$PGSTATE" -c "$T/b.conf" read mail 2>/dev/null) &&
	    [[ $e =~ ^[0-9]+$ ]] && [ "$e" -lt 1000 ]
}
assert "b's job refreshes b's record" wait_for 10 refreshed

bg checka env LD_PRELOAD="$SHIM" PG_PREEMPT_ROUND2_UNTIL="$T/go_a" \
    "$CHECK" -v -c "$T/a.conf" mail
A=$BGPID
wait_for 10 test -e "$T/go_a.held" || bail "a's check did not claim"
sleep 0.2		# b's claim comes clearly later than a's
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_ROUND2_UNTIL="$T/go_b" \
    "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 test -e "$T/go_b.held" || bail "b's check did not claim"
assert "a and b claimed, each not reaching the other" eval 'claims a && claims b'

# the partition heals: the proxies forward
printf 'drop 0\n' >"$T/ctl.new" && mv "$T/ctl.new" "$T/ctl"
: >"$T/go_a"
wait_exit "$A" 30
RC=$?
cp "$T/checka.err" "$T/err"
if [ "$RC" = 0 ] && grep -q 'again: peer b .* unreachable' "$T/err"; then
	diag_file "$T/err" "a's check"
	skip "a busy machine: a's round 2 did not reach b within 5 s either" 2
else
	is "$RC" 1 "a withdraws: b, not reached in round 1, is active (exit 1, not 0)"
	err_has "claim withdrawn: b could not be reached in round 1 and is active" \
	    "a says why"
fi
err_like "peer b .* unreachable: .*counts as never" \
    "a did not reach b in round 1"
: >"$T/go_b"
wait_exit "$B" 30
assert "b's job still runs" kill -0 "$JOB"

finish
