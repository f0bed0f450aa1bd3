#!/bin/bash
# SPDX-License-Identifier: ISC
# A provisional go withdrawn for a late round-1 answer records the check
# as a skip for the prefer order (doc/SAFETY.md, 4, "A peer that does
# not answer"; bin/check-side.c, check_unchecked). Nodes a, b and c,
# timeout 2s, settle 200ms, prefer = c and failback_after = 0 on every
# node: a polls (its record within wait) and c, preferred and healthy
# (its checks recorded), answers at once, so a's go is "the last run
# before yielding to c" and writes yield c into its side record
# (doc/STATE.md, "The checks") before it claims. a reaches b through a
# tests/delayproxy that delays each question by 1.2 s, as
# 35a-hung-peer.sh's late case: b is silent at a quarter of the timeout,
# so a claims early; b's late answer says b was active, and round 1,
# decided again, withdraws the claim. a's check is held after its claim,
# before it connects for round 2 (tests/preempt.so): the side record
# there is the provisional go's. After the withdrawal it must be a
# skip's: the same last and since, and the yield of the record before
# this check, not the go's:
#
#   no yield before: the record ends without yield and yielded;
#   a yield to c decided two waits ago (stale: a goes and yields again,
#   stamping yielded now): that old yield and its stamp, not the new.
#
# On a machine too slow for the staging (c not answering within 500ms,
# or b's answer later than round 1's timeout), the cases skip.
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/preempt.so
PROXY=$PG_BUILD/tests/delayproxy
need_built "$SHIM" "$PROXY"

SIDE=$T/a.state/.mail.side
ZERO_BOOT=00000000-0000-0000-0000-000000000000

fleet_start "settle = 200ms
timeout = 2s" a b c

# Every node: prefer = c, failback_after = 0; the serves reread.
for n in a b c; do
	sed -i 's/^wait = 60s$/&\nprefer = c\nfailback_after = 0/' "$T/$n.conf"
	grep -q '^prefer = c$' "$T/$n.conf" || bail "no prefer in $n.conf"
	k=$(grep -c reloaded "$T/s$n.err")
	kill -HUP "${FLEET_SPID[$n]}"
	wait_for "$PG_CMD_TIMEOUT" eval \
	    '[ "$(grep -c reloaded "$T/s$n.err")" -gt "$k" ]' ||
	    bail "serve $n did not reload its config"
done

printf 'delay 1200\ndir up\ndrop 0\n' >"$T/ctl"
bg pb "$PROXY" -f "$T/ctl" -l 127.0.0.1:0 "127.0.0.1:${FLEET_PORT[b]}"
listen_port pb PB || bail "delayproxy for b did not start"
sed -i "/^\[peer b\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PB/|" \
    "$T/a.conf"
grep -q "127.0.0.1:$PB/" "$T/a.conf" || bail "a.conf does not name the proxy"

# c's checks recorded: c is eligible and healthy (failback_after 0). a is
# active, so c's check skips.
"$TOUCH" -c "$T/a.conf" mail || bail "pollguard-touch on a failed"
exit_is 1 "c's check skips (a is active) and records c's checks" \
    "$CHECK" -v -c "$T/c.conf" mail
assert "... in c's side record" grep -q '^pollguard-checked 1$' \
    "$T/c.state/.mail.side"

# part FILE KEY: the value of KEY in the checked part of a side record.
part()
{
	awk -v k="$2" '/^pollguard-/ { p = $1 }
	    p == "pollguard-checked" && $1 == k { sub(/^[^ ]* /, ""); print }' \
	    "$1"
}

# late NAME: a's check, b active, a the poller; held before round 2 while
# the side record is copied to $T/NAME.held. RC, its exit status; MS, how
# long it took; STAGED, empty when the machine was too slow to stage it
# (SLOW says why).
late()
{
	local t0 pid
	"$TOUCH" -c "$T/b.conf" mail || bail "pollguard-touch on b failed"
	# A record of 1ms ago, without the claim a check may have left.
	"$PGSTATE" -c "$T/a.conf" write mail 1 || bail "pgstate write a"
	rm -f "$T/go" "$T/go.held" "$T/$1.held"
	t0=$(now_ms)
	bg "$1" env LD_PRELOAD="$SHIM" PG_PREEMPT_ROUND2_UNTIL="$T/go" \
	    "$CHECK" -v -c "$T/a.conf" mail
	pid=$BGPID
	if wait_for 20 eval 'test -e "$T/go.held" || ! kill -0 $pid 2>/dev/null' &&
	    [ -e "$T/go.held" ]; then
		cp "$SIDE" "$T/$1.held" 2>/dev/null
		: >"$T/go"
	fi
	wait_exit "$pid" 30
	RC=$?
	MS=$(($(now_ms) - t0))
	STAGED= SLOW=
	if ! grep -q 'b has not answered in 500ms, and no other peer' \
	    "$T/$1.err"; then
		SLOW="no early claim: c had not answered either at 500ms"
	elif ! grep -q 'skip: b was active .*; claim withdrawn' "$T/$1.err" &&
	    grep -q 'peer b (.*) unreachable: timed out' "$T/$1.err"; then
		# Only then: a check that went beside b's answer is a failure.
		SLOW="b's round-1 answer came after round 1's timeout"
	elif [ ! -s "$T/$1.held" ]; then
		SLOW="the check was not held before round 2"
	else
		STAGED=1
		return
	fi
	SLOW="a busy machine: $SLOW (the check took ${MS}ms)"
}

# --- no yield before this check -------------------------------------------

rm -f "$SIDE"
late first
if [ -n "$STAGED" ]; then
	diag "first: the check took ${MS}ms"
	is "$RC" 1 "b's late answer, b active: a does not go (exit 1)"
	[ "$RC" = 1 ] || diag_file "$T/first.err" "a's stderr"
	assert "... the provisional go was the last run before yielding to c" \
	    grep -q 'go: the last run before yielding to c' "$T/first.err"
	is "$(part "$T/first.held" yield)" c \
	    "... held before round 2: the side record yields to c"
	want=$(grep -Ev '^(yield|yielded) ' "$T/first.held")
	is "$(cat "$SIDE")" "$want" \
	    "... after: a skip's record (last and since), no yield"
	[ "$(cat "$SIDE")" = "$want" ] || diag_file "$T/first.err" "a's stderr"
else
	skip "$SLOW" 4
fi

# --- a stale yield to c before this check ---------------------------------

# The last and since of the check above, whatever it left of a yield,
# and a yield to c decided 200 s ago: more than two waits, so a goes and
# yields again, stamped now.
LAST=$(part "$SIDE" last) SINCE=$(part "$SIDE" since)
read -r bt m w <<<"$LAST"
[ -n "$w" ] && [ -n "$SINCE" ] || bail "no last or since in a's side record"
m=$((m - 200000000000)) w=$((w - 200000000000))
[ "$m" -gt 0 ] || bt=$ZERO_BOOT m=1
OLD="yielded $bt $m $w"
printf 'pollguard-checked 1\nlast %s\nsince %s\nyield c\n%s\n' "$LAST" \
    "$SINCE" "$OLD" >"$SIDE.new" && mv "$SIDE.new" "$SIDE" ||
    bail "cannot write $SIDE"
late stale
if [ -n "$STAGED" ]; then
	diag "stale: the check took ${MS}ms"
	is "$RC" 1 "stale yield, b's late answer, b active: a does not go (exit 1)"
	[ "$RC" = 1 ] || diag_file "$T/stale.err" "a's stderr"
	assert "... the provisional go yields to c again" eval \
	    '[ "$(part "$T/stale.held" yield)" = c ] &&
	    [ "yielded $(part "$T/stale.held" yielded)" != "$OLD" ]'
	want=$(grep -Ev '^(yield|yielded) ' "$T/stale.held"
	    printf 'yield c\n%s' "$OLD")
	is "$(cat "$SIDE")" "$want" \
	    "... after: a skip's record, the yield from before this check"
	[ "$(cat "$SIDE")" = "$want" ] || diag_file "$T/stale.err" "a's stderr"
	is "$(part "$SIDE" since)" "$SINCE" "... since as before the check"
else
	skip "$SLOW" 4
fi

finish
