#!/bin/bash
# SPDX-License-Identifier: ISC
# The go-to-start gap (issue 32, items 1 to 3; doc/SAFETY.md, section 7,
# "From the go to the job"). A node whose check went is counted by its
# peers until its job's start is recorded or the wait has passed, however
# long the start takes: a slow start, a start ping that hangs, a pipeline
# that stays silent. Before, a peer stopped counting it once the claim's
# horizon had passed, when its last run had failed and nothing had
# happened since (the handover rule), and went beside its job.
#
# Real processes on loopback: nodes a and b with their serves; settle
# 400ms and wait 60s. Timeout 1s in (1) and (2), so a claim's horizon is
# 3.6 s (a round longer than 3.45 s withdraws: room for a run by hand
# while b's check is held, on a loaded machine); 500ms from (3) on, a
# horizon of 2.6 s, well short of the longest ping, 5 s.
# In each case b's last run fails less than a second before b's go, and
# a checks once b's horizon has passed but before b's job has started:
# a must skip, counting b (its claim still shown).
#
# (1) the go-to-start gap: b's check is held before round 1 while a run
#     by hand begins on b, and before round 2 while that run fails; b
#     goes, and its job (pollguard-touch -- job) starts only after b's
#     horizon.
# (2) the same run by hand begun after b's claim (b's check held before
#     its round 2): b's go withdraws, since a failed run since its claim
#     would end its claim's pending and let a hand over beside the job.
# (3) the start ping: b's job runs under pollguard-touch with a ping URL
#     that accepts and never answers (tests/stallproxy); the check held
#     before round 1 while a run by hand fails (cooldown as default).
# (4) the same with cooldown = 0 and no check held.
#     In (3) and (4), since 0.5, the run's start is recorded before the
#     start ping: b shows its run going while the ping hangs.
# (5) a quiet pipeline: check && producer | pollguard-touch -f, the
#     producer silent for longer than the horizon after a failed run.
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/preempt.so
PROXY=$PG_BUILD/tests/stallproxy
need_built "$SHIM" "$PROXY"

fleet_start "settle = 400ms
timeout = 1s" a b

# The ping that never answers: a stallproxy stalled from the start.
stall_start
PING=$STALL_URL

# b_status: b's status, as its serve tells a.
b_status()
{
	curl -sf "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail"
}
# b_claimed: b's serve shows a claim.
b_claimed()
{
	b_status | grep -q '^claim '
}
# b_past_horizon: b's claim is older than its horizon (HORIZON ms), or
# not shown at all: what a check of a reads after b's horizon.
b_past_horizon()
{
	local s c
	s=$(b_status) || return 1
	c=$(sed -n 's/^claim \([0-9]*\)$/\1/p' <<<"$s")
	grep -qx 'failures 1' <<<"$s" && grep -qx 'running 0' <<<"$s" &&
	    { [ -z "$c" ] || [ "$c" -ge $((HORIZON + 150)) ]; }
}
# timeout_is DURATION MS: every node's timeout, and the claim horizon in
# ms it makes; the serves reread their configs.
timeout_is()
{
	local n k
	for n in a b; do
		k=$(grep -c reloaded "$T/s$n.err")
		sed -i "s/^timeout = .*/timeout = $1/" "$T/$n.conf"
		kill -HUP "${FLEET_SPID[$n]}"
		wait_for 10 eval '[ "$(grep -c reloaded "$T/s$n.err")" -gt "$k" ]' ||
		    bail "serve $n did not reread its config"
	done
	HORIZON=$2
}
# fresh: no records, no outcomes, cooldown as default.
fresh()
{
	rm -f "$T/a.state/mail" "$T/b.state/mail" "$T"/[ab].state/.mail.*
	sed -i '/^cooldown = /d' "$T/b.conf"
}
# ping_conf: $T/bping.conf, b's config with the ping that never answers,
# for b's job alone (a run by hand with it would wait for its pings too).
ping_conf()
{
	sed "s|^wait = 60s\$|&\\nping = $PING/ping\\nping_timeout = 5s|" \
	    "$T/b.conf" >"$T/bping.conf"
	chmod 600 "$T/bping.conf"
	grep -q '^ping = ' "$T/bping.conf" || bail "no ping in bping.conf"
}
# a_counts_b CASE: b's horizon has passed and its job has not started; a
# checks and must skip, counting b. The handover rule needs b's last
# activity within a second of its run's end: on a machine so slow that it
# was not, a rightly counts b, and there is nothing to attack.
a_counts_b()
{
	local s gap e l
	if wait_for 10 b_past_horizon; then
		ok "($1) b's horizon has passed, its last run failed, its job not begun"
	else
		not_ok "($1) b's horizon has passed, its last run failed"
		diag "$(b_status)"
	fi
	s=$(b_status)
	l=$(sed -n 's/^last_end \([0-9]*\)$/\1/p' <<<"$s")
	e=$(sed -n 's/^elapsed \([0-9]*\)$/\1/p' <<<"$s")
	gap=$((${l:-0} - ${e:-0}))
	if [ "$gap" -gt 990 ]; then
		skip "($1) b's last activity came $gap ms after its run's end (> 990)" 3
		return
	fi
	assert "($1) b's serve still shows its claim" b_claimed
	exit_is 1 "($1) a counts b, whose go has not started its job: a skips, not 0" \
	    "$CHECK" -v -c "$T/a.conf" mail
	err_lacks "its last run failed: not counted" \
	    "($1) -v: a does not hand over beside b's job"
}

# b_ping_run: b's claim is past its horizon (or not shown), and b shows
# its job's run going while the start ping hangs.
b_ping_run()
{
	local s c
	s=$(b_status) || return 1
	c=$(sed -n 's/^claim \([0-9]*\)$/\1/p' <<<"$s")
	grep -qx 'running 1' <<<"$s" &&
	    { [ -z "$c" ] || [ "$c" -ge $((HORIZON + 150)) ]; }
}
# a_counts_b_run CASE: b's start ping hangs past b's horizon; since 0.5
# the run's start is recorded before the ping, so b shows its run going,
# its failed run by hand no longer its last word: a must skip, counting
# b (before, b showed "failed, not running" and a handed over).
a_counts_b_run()
{
	if wait_for 10 b_ping_run; then
		ok "($1) b's horizon has passed and its start ping hangs: b shows its run going"
	else
		not_ok "($1) b's horizon has passed and its start ping hangs: b shows its run going"
		diag "$(b_status)"
	fi
	exit_is 1 "($1) a counts b, whose job waits for its ping: a skips, not 0" \
	    "$CHECK" -v -c "$T/a.conf" mail
	err_lacks "its last run failed: not counted" \
	    "($1) -v: a does not hand over beside b's job"
}

# too_slow CASE STATUS N: b's check, held while the test staged a run
# by hand, ended with STATUS; when it withdrew as too slow to order the
# claims (a loaded machine), the N checks left of the case are skipped:
# there is no go to attack. So too when a's serve gave up waiting for
# b's question (408, exit 76): b's check is held after it connected, and
# staging the run took longer than the timeout (a sanitizer build, a
# loaded machine). 1 otherwise.
too_slow()
{
	if [ "$2" = 1 ] && grep -q 'took too long' "$T/checkb.err"; then
		skip "($1) b's check was too slow to order the claims, on a loaded machine" "$3"
	elif [ "$2" = 76 ] && grep -q '408' "$T/checkb.err"; then
		skip "($1) a's serve timed out b's held question (408), on a slow machine" "$3"
	else
		return 1
	fi
}

# (1) The go-to-start gap.
timeout_is 1s 3600
fresh
exit_is 0 "(1) b's earlier job succeeds" "$TOUCH" -c "$T/b.conf" mail -- true
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b"
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_SEND_UNTIL="$T/go1" \
    PG_PREEMPT_ROUND2_UNTIL="$T/r1" "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 test -e "$T/go1.held" || bail "(1) b's check did not begin"
bg hand1 "$TOUCH" -c "$T/b.conf" mail -- sh -c \
    "while [ ! -e '$T/fail1' ]; do sleep 0.02; done; exit 1"
H=$BGPID
# Begun: its start recorded (the lock is taken a moment before).
b_running() { "$PGSTATE" -c "$T/b.conf" outcome mail | grep -qx 'run running'; }
wait_for 10 b_running || bail "(1) the run by hand did not begin"
: >"$T/go1"
wait_for 10 eval 'test -e "$T/r1.held" || ! _pg_alive "$B"'
: >"$T/fail1"
wait_exit "$H" 10
is "$?" 1 "(1) the run by hand on b, begun before b's claim, fails"
: >"$T/r1"
wait_exit "$B" 30
rc=$?
if ! too_slow 1 "$rc" 6; then
	is "$rc" 0 "(1) b's check goes"
	a_counts_b 1
	exit_is 0 "(1) b's job starts, late" "$TOUCH" -c "$T/b.conf" mail -- true
fi

# (2) A run by hand begun after b's claim, failed before b's go.
fresh
exit_is 0 "(2) b's earlier job succeeds" "$TOUCH" -c "$T/b.conf" mail -- true
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b"
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_ROUND2_UNTIL="$T/r2" \
    "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 test -e "$T/r2.held" || bail "(2) b's check did not claim"
exit_is 1 "(2) a run by hand on b, begun after b's claim, fails" \
    "$TOUCH" -c "$T/b.conf" mail -- false
: >"$T/r2"
wait_exit "$B" 30
is "$?" 1 "(2) b's check withdraws: exit 1, not 0"
cp "$T/checkb.err" "$T/err"
# A claim slow to become visible (over settle/4: a slow fsync) is
# lengthened first, which the run's refresh refuses: withdrawn before
# the last step.
if grep -q 'the record was written over' "$T/err"; then
	skip "(2) b's claim was slow to be visible: withdrawn before its last step" 1
elif grep -q 'answered before the claim but not after it (timed out)' "$T/err"; then
	# Held before round 2 while the run was staged, past the round's
	# timeout (a sanitizer build): withdrawn for that first.
	skip "(2) b's round 2 timed out while the run was staged, on a slow machine" 1
else
	err_has "claim withdrawn: a run began on this node after the claim" \
	    "(2) b says why, as a warning"
fi

# (3) The start ping, b's check held before round 1 while a run fails.
timeout_is 500ms 2600
fresh
ping_conf
exit_is 0 "(3) b's earlier job succeeds" "$TOUCH" -c "$T/b.conf" mail -- true
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b"
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_SEND_UNTIL="$T/go3" \
    "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 test -e "$T/go3.held" || bail "(3) b's check did not begin"
exit_is 1 "(3) a run by hand on b fails" "$TOUCH" -c "$T/b.conf" mail -- false
: >"$T/go3"
wait_exit "$B" 30
rc=$?
if ! too_slow 3 "$rc" 7; then
	is "$rc" 0 "(3) b's check goes"
	bg job3 "$TOUCH" -c "$T/bping.conf" mail -- true
	J=$BGPID
	a_counts_b_run 3
	wait_exit "$J" 30
	is "$?" 0 "(3) b's job runs after its ping timed out"
	assert "(3) pollguard-touch says the start ping failed" \
	    grep -q "ping of the run's start .* failed" "$T/job3.err"
fi

# (4) The start ping, cooldown = 0, no check held.
fresh
sed -i 's/^wait = 60s$/&\ncooldown = 0/' "$T/b.conf"
ping_conf
exit_is 1 "(4) a run on b fails" "$TOUCH" -c "$T/b.conf" mail -- false
exit_is 0 "(4) b's check goes at once (cooldown 0)" \
    "$CHECK" -c "$T/b.conf" mail
bg job4 "$TOUCH" -c "$T/bping.conf" mail -- true
J=$BGPID
a_counts_b_run 4
wait_exit "$J" 30
is "$?" 0 "(4) b's job runs after its ping timed out"

# (5) A quiet pipeline.
fresh
sed -i 's/^wait = 60s$/&\ncooldown = 0/' "$T/b.conf"
exit_is 1 "(5) a run on b fails" "$TOUCH" -c "$T/b.conf" mail -- false
exit_is 0 "(5) b's check goes at once (cooldown 0)" \
    "$CHECK" -c "$T/b.conf" mail
bg pipe5 sh -c "{ while [ ! -e '$T/data5' ]; do sleep 0.02; done; echo data;
    } | '$TOUCH' -f -c '$T/b.conf' mail"
P=$BGPID
a_counts_b 5
: >"$T/data5"
wait_exit "$P" 10
is "$?" 0 "(5) b's pipeline ends"
is "$(cat "$T/pipe5.out")" data "(5) its data went through"

finish
