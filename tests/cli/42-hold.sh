#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-touch -H: a hold on the cluster, published by this node's
# pollguard-serve in /v1/status and /metrics, lifted by -H 0 or ending by
# itself; bad durations and messages refused; untouched by runs.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

mkconf <<EOF
[cluster c1]
wait = 10m
peers =
EOF

# status: GET /v1/status/c1 from the serve started below, into BODY.
status()
{
	tcp_ask 127.0.0.1 "$PORT" $'GET /v1/status/c1 HTTP/1.0\r\nHost: t\r\n\r\n'
}

# key K: the value of key K in the last status answer ("" when absent).
key()
{
	sed -n "s/^$1 //p" "$T/body"
}

# held_metric: pollguard_held_seconds_remaining of c1, whole seconds (the
# metric has milliseconds: "3599.807").
held_metric()
{
	tcp_ask 127.0.0.1 "$PORT" $'GET /metrics HTTP/1.0\r\nHost: t\r\n\r\n'
	sed -n 's/^pollguard_held_seconds_remaining{cluster="c1"} \([0-9]*\)\.[0-9]*$/\1/p' \
	    "$T/body"
}

# not_held: the status answer shows no hold.
not_held()
{
	status
	[ "$CODE" = 200 ] && [ -z "$(key hold)" ]
}

serve_start serve "$CONF" || bail "pollguard-serve did not start"

status
is "$CODE" 200 "status: 200 before any hold"
is "$(key hold)" "" "status: no hold key before a hold"
is "$(held_metric)" 0 "metrics: held 0 before a hold"

exit_is 0 "-H 1h -m 'disk swap': exit 0" "$TOUCH" -c "$CONF" -H 1h -m "disk swap" c1
out_empty "-H: nothing on stdout"
assert "-H writes .c1.side" test -f "$STATE/.c1.side"
is "$(record c1)" never "-H records no activity"
status
num_between "$(key hold)" 3590000 3600000 "status: hold is the time left (ms)"
is "$(key hold_by)" "$(id -un)@testnode" "status: hold_by is user@node"
is "$(key hold_why)" "disk swap" "status: hold_why is the message"
num_between "$(held_metric)" 3589 3600 "metrics: pollguard_held_seconds_remaining > 0"

# Runs, touches and releases leave the hold alone.
exit_is 0 "a run while held: exit 0" "$TOUCH" -c "$CONF" c1 -- true
exit_is 0 "a touch while held: exit 0" "$TOUCH" -c "$CONF" c1
exit_is 0 "a release while held: exit 0" "$TOUCH" -c "$CONF" -r c1
status
num_between "$(key hold)" 3500000 3600000 "the hold survives runs, touches and -r"
is "$(key hold_why)" "disk swap" "its message too"

# -H takes no run lock: it works while a run is going.
bg run "$TOUCH" -c "$CONF" c1 -- sleep 30
RUN_PID=$BGPID
wait_for 10 lock_held c1 || diag "the run did not take the lock"
exit_is 0 "-H 2h while a run is going: exit 0" "$TOUCH" -c "$CONF" -H 2h c1
status
num_between "$(key hold)" 7190000 7200000 "a new -H replaces the hold"
is "$(key hold_why)" "" "without -m: no hold_why"
stop_pids "$RUN_PID"

exit_is 0 "-H 0: exit 0" "$TOUCH" -c "$CONF" -H 0 c1
assert "-H 0 removes the hold from .c1.side" \
    eval '! grep -q "^pollguard-hold" "$STATE/.c1.side"'
status
is "$(key hold)" "" "status: no hold after -H 0"
is "$(held_metric)" 0 "metrics: held 0 after -H 0"
exit_is 0 "-H 0 without a hold: exit 0" "$TOUCH" -c "$CONF" -H 0 c1

# A short hold ends by itself; the file stays (readers never write).
exit_is 0 "-H 700ms: exit 0" "$TOUCH" -c "$CONF" -H 700ms -m short c1
status
num_between "$(key hold)" 1 700 "a short hold shows"
if wait_for 5 not_held; then
	ok "a short hold ends by itself"
else
	not_ok "a short hold ends by itself"
	diag_file "$T/body" status
fi
is "$(held_metric)" 0 "metrics: held 0 once it ended"
assert "the ended hold's part is left to writers" \
    grep -q "^pollguard-hold 1$" "$STATE/.c1.side"

# A damaged hold file reads as no hold; the status still answers.
printf 'pollguard-hold 1\nuntil' >"$STATE/.c1.side"
status
is "$CODE" 200 "a damaged hold: status still 200"
is "$(key hold)" "" "a damaged hold reads as no hold"
exit_is 0 "-H 0 removes a damaged hold" "$TOUCH" -c "$CONF" -H 0 c1

# Bad durations and messages: 64, nothing written.
for d in 8d 7d1ms 1x -1s '' 1h30m; do
	exit_is 64 "-H '$d': exit 64" "$TOUCH" -c "$CONF" -H "$d" c1
done
exit_is 0 "-H 7d, the maximum: exit 0" "$TOUCH" -c "$CONF" -H 7d c1
exit_is 0 "and -H 0 again" "$TOUCH" -c "$CONF" -H 0 c1
exit_is 64 "-H 8d: exit 64" "$TOUCH" -c "$CONF" -H 8d c1
err_has "up to 7d" "-H 8d: the message names the maximum"
LONG127=$(printf 'x%.0s' $(seq 127))
exit_is 0 "-m of 127 bytes: exit 0" "$TOUCH" -c "$CONF" -H 1m -m "$LONG127" c1
status
is "$(key hold_why)" "$LONG127" "a 127-byte message is shown whole"
exit_is 64 "-m of 128 bytes: exit 64" "$TOUCH" -c "$CONF" -H 1m -m "${LONG127}y" c1
err_has "too long" "-m of 128 bytes: says too long"
for m in $'a\tb' $'a\nb' $'esc\e[31m' ' lead' 'trail ' $'caf\xc3\xa9'; do
	exit_is 64 "-m $(printf %q "$m"): exit 64" "$TOUCH" -c "$CONF" -H 1m -m "$m" c1
done
status
is "$(key hold_why)" "$LONG127" "refused messages leave the hold as it was"

serve_stop "$SERVE_PID" >/dev/null
finish
