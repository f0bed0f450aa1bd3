#!/bin/bash
# A check held up after it kept its claim, on a node whose last run
# failed (pollguard(7), HANDOVER, "Why it is still safe"). Its peers
# stop counting such a node once its claim's horizon has passed, unless
# it has been active since the run's end; so a check held up past the
# horizon after deciding to keep must not go, since a peer may have gone
# meanwhile. Real processes on loopback: nodes a and b with their
# serves. b's job has just failed and b cannot reach a (the unreachable
# policy, run, lets b claim in its cooldown); tests/preempt.so holds b's
# check up after its last write, the lengthened claim, for longer than
# the horizon. While it is held, b's serve no longer reports the claim,
# and a, which reaches b, goes. b must then withdraw: before the fix,
# both went.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

SHIM=$PG_BUILD/tests/preempt.so
[ -f "$SHIM" ] || {
	skip "tests/preempt.so is not built (make tests/preempt.so)" 1
	finish
}

# Horizon: 2 * 200ms + 1.5 * 100ms + 1s = 1550ms, lengthened by the
# claim's late write (300ms, less settle / 4): about 1825ms. b is held
# 8s after its last write: a's check runs well inside that.
fleet_start "settle = 100ms
timeout = 200ms" a b
free_port || bail "no free port"
sed -i "/^\[peer a\]/,/^url/s|^url = .*|url = http://127.0.0.1:$FREE_PORT/|" \
    "$T/b.conf"
grep -q "127.0.0.1:$FREE_PORT/" "$T/b.conf" || bail "b's config names a"

exit_is 1 "b's job fails" "$TOUCH" -c "$T/b.conf" mail -- false

# b_status: b's status, as its serve tells a.
b_status()
{
	curl -sf "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail"
}
b_claims()
{
	b_status | grep -q '^claim '
}
# held: b's check holds its claim lock, past its claim's horizon.
held()
{
	local s
	s=$(b_status) || return 1
	grep -qx 'deciding yes' <<<"$s" && ! grep -q '^claim ' <<<"$s" &&
	    grep -qx 'failures 1' <<<"$s"
}

bg checkb env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=300 \
    PG_PREEMPT_RENAME2_MS=8000 "$CHECK" -v -c "$T/b.conf" mail
B=$BGPID
wait_for 10 b_claims || bail "b's check did not claim"
ok "b claims in its cooldown, a unreachable from b"
if wait_for 6 held; then
	ok "b's check is held up past its horizon; its serve no longer reports the claim"
else
	not_ok "b's check is held up past its horizon"
	diag "$(b_status)"
fi

exit_is 0 "a reaches b, does not count b (failed, no claim): a goes" \
    "$CHECK" -v -c "$T/a.conf" mail
err_like "b: .*its last run failed: not counted" "-v: a ignores b"

wait_exit "$B" 30
is "$?" 1 "b's check, no longer counted, withdraws: exit 1, not 0"
cp "$T/checkb.err" "$T/err"
err_has "claim withdrawn: this node's last run failed and the claim's horizon passed" \
    "b says why, as a warning"
e=$("$PGSTATE" -c "$T/b.conf" read mail) || bail "pgstate read b"
assert "b's record is back: the failed run's last refresh ($e ms ago)" \
    eval '[[ $e =~ ^[0-9]+$ ]] && [ "$e" -ge 1000 ]'

finish
