#!/bin/bash
# SPDX-License-Identifier: ISC
# A peer that accepts connections and never answers (a hung host, a
# stopped process behind a live socket) at each moment of a round (issue
# 35). Nodes a, b and c, timeout 2s, settle 200ms; a reaches b through a
# tests/delayproxy whose behaviour is read at each accept: "drop 1
# blackhole" accepts, reads and never answers; "drop 0" forwards. a's
# check is held after its claim became visible, before it connects for
# round 2 (tests/preempt.so), where b's proxy changes. Each case asserts
# the decision by the rules of doc/SAFETY.md, section 2, with b active
# (its record refreshed just now, so a must not go beside it) or idle:
#
#   b answering: a goes; how long that takes, REF, is this machine's
#   cost of a check without a timeout (start, settle sleep, writes);
#   b hung in both rounds: counted as never under unreachable = run (a
#   goes, as before), a skip under unreachable = skip; the go takes about
#   one timeout, not two and the settle sleep (loosely, on a busy machine
#   too: under REF + 1.5 x timeout; 0.4.0 and 0.5 before this took REF +
#   2 x timeout at least);
#   b hung in round 1 only: active, a withdraws; idle, a goes;
#   b hung in round 2 only: a withdraws (b answered round 1);
#   b's round-1 answer late, arriving after round 2 was sent (the request
#   delayed 1.2 s): active, a withdraws its claim; idle, a goes;
#   b and c hung: no early claim (one silent peer at most), a goes;
#   pollguard-run beside b hung in both rounds, b idle: the job runs
#   after about one timeout too (pollguard-run decides as the check does).
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/preempt.so
PROXY=$PG_BUILD/tests/delayproxy
need_built "$SHIM" "$PROXY"

TO=2000
fleet_start "settle = 200ms
timeout = 2s" a b c

HUNG='drop 1 blackhole'
FWD='drop 0'
LATE='delay 1200
dir up
drop 0'
ctl()
{
	printf '%s\n' "$1" >"$T/ctl.new" && mv "$T/ctl.new" "$T/ctl"
}
ctl "$FWD"
bg pb "$PROXY" -f "$T/ctl" -l 127.0.0.1:0 "127.0.0.1:${FLEET_PORT[b]}"
listen_port pb PB || bail "delayproxy for b did not start"
sed -i "/^\[peer b\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PB/|" \
    "$T/a.conf"
sed '/^peers = /a unreachable = skip' "$T/a.conf" >"$T/askip.conf"
chmod 600 "$T/askip.conf"
grep -q "127.0.0.1:$PB/" "$T/a.conf" &&
    grep -q '^unreachable = skip' "$T/askip.conf" ||
    bail "a's configs do not name the proxy"

# b active: its record refreshed now; idle: none.
b_active()
{
	"$TOUCH" -c "$T/b.conf" mail || bail "pollguard-touch on b failed"
}
b_idle()
{
	rm -f "$T/b.state/mail"
}

# check NAME CONF BEFORE AFTER: a's check, its record gone first, with
# b's proxy at BEFORE; held before round 2 while the proxy changes to
# AFTER. RC, its exit status; MS, how long it took; its stderr in
# $T/NAME.err.
check()
{
	local t0
	rm -f "$T/a.state/mail" "$T/go" "$T/go.held"
	ctl "$3"
	t0=$(now_ms)
	bg "$1" env LD_PRELOAD="$SHIM" PG_PREEMPT_ROUND2_UNTIL="$T/go" \
	    "$CHECK" -v -c "$2" mail
	local pid=$BGPID
	if wait_for 20 eval 'test -e "$T/go.held" || ! kill -0 $pid 2>/dev/null' &&
	    [ -e "$T/go.held" ]; then
		ctl "$4"
		: >"$T/go"
	fi
	wait_exit "$pid" 30
	RC=$?
	MS=$(($(now_ms) - t0))
}

# bounded NAME: the check took less than REF and one and a half timeouts.
bounded()
{
	if [ "$MS" -lt $((REF + 3 * TO / 2)) ]; then
		ok "$1: within REF + 1.5 x timeout (${MS}ms, REF ${REF}ms)"
	else
		not_ok "$1: within REF + 1.5 x timeout"
		diag "took ${MS}ms, want under $((REF + 3 * TO / 2))ms"
		diag_file "$T/$1.err" "$1 stderr"
	fi
}

# decided NAME WANT DESC: the exit status, and stderr when it differs.
decided()
{
	is "$RC" "$2" "$3"
	[ "$RC" = "$2" ] || diag_file "$T/$1.err" "$1 stderr"
}

# --- b answering ---------------------------------------------------------

b_idle
check ref "$T/a.conf" "$FWD" "$FWD"
decided ref 0 "b answering, idle: a goes"
REF=$MS

# --- b hung in both rounds ------------------------------------------------

b_idle
check both-idle "$T/a.conf" "$HUNG" "$HUNG"
decided both-idle 0 "hung in both, b idle, unreachable = run: a goes"
bounded both-idle
assert "... claiming while b's question stays open" \
    grep -q 'b has not answered in 500ms, and no other peer is waited for' \
    "$T/both-idle.err"
assert "... b reported unreachable in both rounds" eval \
    'grep -q "peer b .* unreachable: .*counts as never" "$T/both-idle.err" &&
    grep -q "again: peer b .* unreachable" "$T/both-idle.err"'

b_active
check both-run "$T/a.conf" "$HUNG" "$HUNG"
decided both-run 0 "hung in both, b active, unreachable = run: counted as never, a goes (fail open, as before)"
bounded both-run

b_active
check both-skip "$T/askip.conf" "$HUNG" "$HUNG"
decided both-skip 3 "hung in both, b active, unreachable = skip: a skips (exit 3)"
bounded both-skip
assert "... and claims nothing" test ! -s "$T/a.state/mail"

# --- b hung in round 1 only -----------------------------------------------

b_active
check r1-active "$T/a.conf" "$HUNG" "$FWD"
decided r1-active 1 "hung in round 1 only, b active: a withdraws (exit 1)"
assert "... as b could not be reached in round 1 and is active" \
    grep -q 'b could not be reached in round 1 and is active' \
    "$T/r1-active.err"

b_idle
check r1-idle "$T/a.conf" "$HUNG" "$FWD"
decided r1-idle 0 "hung in round 1 only, b idle: a goes"

# --- b hung in round 2 only -----------------------------------------------

b_idle
check r2-idle "$T/a.conf" "$FWD" "$HUNG"
decided r2-idle 1 "hung in round 2 only, b idle: a withdraws (b answered round 1)"

# --- b's round-1 answer arrives after round 2 was sent --------------------

b_active
check late-active "$T/a.conf" "$LATE" "$LATE"
decided late-active 1 "round-1 answer late, b active: a does not go (exit 1)"
if grep -q 'has not answered in 500ms' "$T/late-active.err"; then
	assert "... its claim withdrawn for b's late answer" \
	    grep -q 'skip: b was active .*; claim withdrawn' \
	    "$T/late-active.err"
else
	skip "a busy machine: b answered round 1 within 500ms" 1
fi

b_idle
check late-idle "$T/a.conf" "$LATE" "$LATE"
decided late-idle 0 "round-1 answer late, b idle: a goes"

# --- b and c hung: two silent peers ---------------------------------------

# Only one peer may be silent (doc/SAFETY.md, 4): with two still open at
# a quarter of the timeout, round 1 waits for both, as before.
printf '%s\n' "$HUNG" >"$T/ctlc"
bg pc "$PROXY" -f "$T/ctlc" -l 127.0.0.1:0 "127.0.0.1:${FLEET_PORT[c]}"
listen_port pc PC || bail "delayproxy for c did not start"
sed "/^\[peer c\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PC/|" \
    "$T/a.conf" >"$T/a2.conf"
chmod 600 "$T/a2.conf"
grep -q "127.0.0.1:$PC/" "$T/a2.conf" || bail "a2.conf does not name c's proxy"
b_idle
rm -f "$T/c.state/mail"
check two "$T/a2.conf" "$HUNG" "$HUNG"
decided two 0 "b and c hung, both idle, unreachable = run: a goes"
assert "... without claiming early: two peers are never silent" \
    eval '! grep -q "has not answered in" "$T/two.err"'
assert "... both reported unreachable in round 1" eval \
    'grep -q "peer b .* unreachable: .*counts as never" "$T/two.err" &&
    grep -q "peer c .* unreachable: .*counts as never" "$T/two.err"'

# --- pollguard-run, b hung -------------------------------------------------

b_idle
rm -f "$T/a.state/mail" "$T/ran"
ctl "$HUNG"
t0=$(now_ms)
exit_is 0 "pollguard-run beside b hung, b idle: the job runs, exit 0" \
    "$PG_BIN/pollguard-run" -v -c "$T/a.conf" mail -- touch "$T/ran"
MS=$(($(now_ms) - t0))
cp "$T/err" "$T/run.err"
assert "... it ran" test -e "$T/ran"
assert "... claiming while b's question stays open" \
    grep -q 'b has not answered in 500ms, and no other peer is waited for' \
    "$T/run.err"
bounded run

finish
