#!/bin/bash
# SPDX-License-Identifier: ISC
# A check held up after it kept its claim, on a node whose last run
# failed (pollguard(7), HANDOVER, "Why it is still safe"). Its peers
# stop counting such a node once its claim's horizon has passed, unless
# its last activity came more than a second after the run's end; so a
# check held up past the horizon after deciding to keep must not go,
# since a peer may have gone meanwhile. Real processes on loopback:
# nodes a and b with their serves; tests/preempt.so holds b's check up
# after its last write, the lengthened claim, for longer than the
# horizon, and a checks while it is held. Since 0.5 b's serve still
# reports the claim, pending (its job has not begun: doc/SAFETY.md,
# section 7), and a skips; b must withdraw all the same, and then a
# goes. Before the fix of 0.4, b's serve no longer reported the claim,
# a went, and so did b.
#
# (1) b's last run was fine when its check began; a run on b fails
#     after the check read its own status, before it asks round 1 (held
#     there by preempt.so): the check must not rely on what it read at
#     its start.
# (2) b's job has just failed and b cannot reach a: the unreachable
#     policy, run, lets b claim in its cooldown.
# (3) a run on b refreshes the record while b's check settles, after its
#     claim: the claim is not lengthened over it, but withdrawn.
# (4) b's last run was fine; a run by hand on b begins while b's check is
#     held after its lengthened claim, and fails after that check has
#     resumed past its horizon. Had the check gone (it found no failure),
#     a, which rightly ignores b then, and b's job would both run: the
#     check withdraws whenever its claim is no longer reported, failed
#     or not (found by the model: doc/model, the handover configuration).
# (5) b's claim became visible late (so it lengthens it), and b's check
#     is held after round 2, before the lengthening, past the first
#     horizon: a peer may have read no claim meanwhile, so b withdraws
#     rather than lengthen a claim that has lapsed (found by the model).
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

SHIM=$PG_BUILD/tests/preempt.so
[ -f "$SHIM" ] || {
	skip "tests/preempt.so is not built (make tests/preempt.so)" 32
	finish
}

# Horizon: 2 * 500ms + 1.5 * 100ms + 1s = 2150ms, lengthened by the
# claim's late write (less settle / 4): about 2.2 to 2.5 s. A round that
# takes longer than the horizon less 75 ms withdraws (too slow): (1)'s
# two delayed questions take 1 s. b is held 8 s after the lengthened
# claim's write: a's check runs well inside that.
fleet_start "settle = 100ms
timeout = 500ms" a b

# b_status: b's status, as its serve tells a.
b_status()
{
	curl -sf "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail"
}
b_claims()
{
	b_status | grep -q '^claim '
}
# held: b's check holds its claim lock, past its claim's horizon (at
# most 2.5 s, lengthened), and its last run failed. Its claim, pending,
# is still shown.
held()
{
	local s c
	s=$(b_status) || return 1
	c=$(sed -n 's/^claim \([0-9]*\)$/\1/p' <<<"$s")
	grep -qx 'deciding yes' <<<"$s" && [ -n "$c" ] && [ "$c" -ge 3000 ] &&
	    grep -qx 'failures 1' <<<"$s"
}

# attack CASE: b's check is running in the background (PID B); once it is
# held up past its horizon, a checks and counts b, whose claim is
# pending; then b's check must not go, and a goes once b has withdrawn. The
# rule needs b's claim within a second of its run's end: on a machine so
# slow that it was not, a rightly counts b, and there is nothing to
# attack.
attack()
{
	local s gap e l
	if wait_for 8 held; then
		ok "($1) b's check is held up past its horizon, its claim pending"
	else
		not_ok "($1) b's check is held up past its horizon"
		diag "$(b_status)"
	fi
	s=$(b_status)
	l=$(sed -n 's/^last_end \([0-9]*\)$/\1/p' <<<"$s")
	e=$(sed -n 's/^elapsed \([0-9]*\)$/\1/p' <<<"$s")
	gap=$((${l:-0} - ${e:-0}))
	if [ "$gap" -gt 800 ]; then
		skip "($1) b claimed $gap ms after its run's end (> 800)" 6
		wait_exit "$B" 30
		return
	fi
	exit_is 1 "($1) a counts b, its claim pending: a skips" \
	    "$CHECK" -v -c "$T/a.conf" mail
	err_lacks "its last run failed: not counted" \
	    "($1) -v: a does not hand over"
	wait_exit "$B" 30
	is "$?" 1 "($1) b's check, resumed past its horizon, withdraws: exit 1, not 0"
	cp "$T/checkb.err" "$T/err"
	err_has "claim withdrawn: the claim's horizon passed, or nearly, before it could go" \
	    "($1) b says why, as a warning"
	exit_is 0 "($1) b withdrew (failed, no claim): a goes" \
	    "$CHECK" -v -c "$T/a.conf" mail
	err_like "b: .*its last run failed: not counted" "($1) -v: a ignores b"
}

# (1)
exit_is 0 "(1) b's earlier job succeeds" "$TOUCH" -c "$T/b.conf" mail -- true
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b"
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_SEND_UNTIL="$T/round1" \
    PG_PREEMPT_RENAME_MS=100 PG_PREEMPT_RENAME2_MS=8000 \
    "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 test -e "$T/round1.held" || bail "(1) b's check did not begin"
exit_is 1 "(1) a run on b fails before b's check asks round 1" \
    "$TOUCH" -c "$T/b.conf" mail -- false
: >"$T/round1"
assert "(1) b's check claims after the run" wait_for 10 b_claims
attack 1

# (2)
rm -f "$T/a.state/mail" "$T/b.state/mail" "$T"/[ab].state/.mail.side
free_port || bail "no free port"
sed -i "/^\[peer a\]/,/^url/s|^url = .*|url = http://127.0.0.1:$FREE_PORT/|" \
    "$T/b.conf"
grep -q "127.0.0.1:$FREE_PORT/" "$T/b.conf" || bail "b's config names a"
exit_is 1 "(2) b's job fails" "$TOUCH" -c "$T/b.conf" mail -- false
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=300 \
    PG_PREEMPT_RENAME2_MS=8000 "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 b_claims || bail "(2) b's check did not claim"
attack 2
e=$("$PGSTATE" -c "$T/b.conf" read mail) || bail "pgstate read b"
assert "(2) b's record is back: the failed run's last refresh ($e ms ago)" \
    eval '[[ $e =~ ^[0-9]+$ ]] && [ "$e" -ge 1000 ]'

# (3) b alone now (a unreachable); its check is held 1.5 s right after
# its claim became visible (so it lengthens it), and a run on b
# refreshes the record meanwhile.
rm -f "$T/b.state/mail" "$T/b.state/.mail.side"
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=1500 \
    "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 b_claims || bail "(3) b's check did not claim"
exit_is 0 "(3) a run on b refreshes the record after the claim" \
    "$TOUCH" -c "$T/b.conf" mail
wait_exit "$B" 30
is "$?" 1 "(3) b's check does not lengthen over it: withdraws, exit 1"
cp "$T/checkb.err" "$T/err"
err_has "claim withdrawn: the record was written over on this node while the claim was out" \
    "(3) b says why, as a warning"
e=$("$PGSTATE" -c "$T/b.conf" read mail) || bail "pgstate read b"
assert "(3) the run's refresh stays ($e ms ago)" \
    eval '[[ $e =~ ^[0-9]+$ ]] && [ "$e" -lt 5000 ]'

# (4) a reachable again from b; b's last run fine; b's check held 4 s
# after its lengthened claim (a horizon of about 2.3 s).
rm -f "$T/a.state/mail" "$T/b.state/mail" "$T"/[ab].state/.mail.side
sed -i "/^\[peer a\]/,/^url/s|^url = .*|url = http://127.0.0.1:${FLEET_PORT[a]}/|" \
    "$T/b.conf"
exit_is 0 "(4) b's earlier job succeeds" "$TOUCH" -c "$T/b.conf" mail -- true
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b"
bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=100 \
    PG_PREEMPT_RENAME2_MS=4000 "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 b_claims || bail "(4) b's check did not claim"
# the record's last field: the claim's horizon, 2150 ms until lengthened
lengthened()
{
	[ "$(awk '{ print $NF }' "$T/b.state/mail")" -gt 2150 ] 2>/dev/null
}
wait_for 10 lengthened || bail "(4) b's check did not lengthen its claim"
bg manual "$TOUCH" -c "$T/b.conf" mail -- sh -c \
    "while [ ! -e '$T/fail4' ]; do sleep 0.05; done; exit 1"
M=$BGPID
wait_exit "$B" 30
is "$?" 1 "(4) b's check, resumed past its horizon, withdraws: exit 1, not 0"
cp "$T/checkb.err" "$T/err"
err_has "claim withdrawn: the claim's horizon passed, or nearly, before it could go" \
    "(4) b says why, as a warning"
: >"$T/fail4"
wait_exit "$M" 30
is "$?" 1 "(4) the run by hand on b fails"
exit_is 0 "(4) a does not count b (failed, no claim since): a goes" \
    "$CHECK" -c "$T/a.conf" mail

# (5)
rm -f "$T/a.state/mail" "$T/b.state/mail" "$T"/[ab].state/.mail.side
exit_is 0 "(5) b's earlier job succeeds" "$TOUCH" -c "$T/b.conf" mail -- true
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b"
exit_is 1 "(5) b's check, held 3 s before it lengthens its claim, withdraws" \
    env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=100 \
    PG_PREEMPT_PRE_RENAME2_MS=3000 "$CHECK" -v -c "$T/b.conf" mail
err_has "claim withdrawn: the claim's horizon passed, or nearly, before it could go" \
    "(5) b says why, as a warning"
e=$("$PGSTATE" -c "$T/b.conf" read mail) || bail "pgstate read b"
assert "(5) b's record is back: the earlier job's ($e ms ago)" \
    eval '[[ $e =~ ^[0-9]+$ ]] && [ "$e" -ge 5000 ]'

finish
