#!/bin/bash
# SPDX-License-Identifier: ISC
# Handover and hold, as pollguard-check sees them through the protocol:
# node b checks against peers a and c that answer /v1/status. a is a
# tiny fake peer, so that each rule can be tried on an exact status: a's
# last run failed and it has been idle since, a claim since, a hold,
# on_failure = stay, a peer that still runs. A real 0.4 serve stands in
# for c. tests/cli/98b-handover-real.sh runs the same rules end to end on
# three real nodes.
. "${PG_TOP:-.}/tests/lib.sh"

command -v perl >/dev/null 2>&1 || {
	skip "perl is not installed: no fake peer" 1
	finish
}

# The fake peer a: every request gets the file $T/a.resp as the answer.
fake_peer fa "$T/a.resp" || bail "the fake peer did not start"
PA=$PORT

# status BODY: a's answer, a 0.4 serve's 200 with that status block.
status()
{
	fake_status "$T/a.resp" a "$1"
}

mkdir -m 755 "$T/b.state" "$T/c.state"
conf()	# conf NODE [LINE]: node NODE, peers a (fake), b, c
{
	{
		printf '[pollguard]\nnode = %s\nstate = %s\nsettle = 200ms\n' \
		    "$1" "$T/$1.state"
		printf '[cluster mail]\nwait = 60s\npeers = a, b, c\n%s\n' \
		    "${2:-}"
		printf '[peer a]\nurl = http://127.0.0.1:%s/\n' "$PA"
		printf '[peer b]\nurl = http://127.0.0.1:%s/\n' "${PB:-9}"
		printf '[peer c]\nurl = http://127.0.0.1:%s/\n' "${PC:-9}"
	} >"$T/$1.conf"
	chmod 600 "$T/$1.conf"
}
conf c
serve_start sc "$T/c.conf" || bail "serve c did not start"
PC=$PORT
conf b
conf c
kill -HUP "$SERVE_PID"
"$PGSTATE" -c "$T/c.conf" write mail 600000 || bail "pgstate write c"

FAILED="cluster mail
node a
version 0.4.0
elapsed 20000
running 0
last_exit 1
last_duration 100
last_end 20000
last_success never
failures 1"

status "$FAILED"
exit_is 0 "a's last run failed, idle since: not counted, b goes" \
    "$CHECK" -v -c "$T/b.conf" mail
err_like 'a: .*its last run failed: not counted' "-v: a's failure noted"
err_like 'go: handover \(a.s last run failed: exit 1\)' "-v: says handover"
err_like 'keep the claim: go' "round 2 does not count a either: kept"
"$PGSTATE" -c "$T/b.conf" write mail 600000

conf b "on_failure = stay"
exit_is 1 "on_failure = stay: a's failed activity counts, skip" \
    "$CHECK" -n -v -c "$T/b.conf" mail
err_like 'skip: a was active 20s ago' "-v: skip because of a"
conf b

status "$(printf '%s\nclaim 1000' "$(sed 's/^elapsed .*/elapsed 1000/' <<<"$FAILED")")"
exit_is 1 "a failed, then claimed: counts, skip" \
    "$CHECK" -n -v -c "$T/b.conf" mail
status "$(sed 's/^running 0/running 1/' <<<"$FAILED")"
exit_is 1 "a failed before, runs again: counts, skip" \
    "$CHECK" -n -v -c "$T/b.conf" mail

status "cluster mail
node a
elapsed never
running 0
failures 0
hold 600000
hold_by ops
hold_why disk swap"
exit_is 1 "a shows a hold: skip, exit 1" "$CHECK" -n -v -c "$T/b.conf" mail
err_like 'skip: held by ops for 10m more \(shown by a\): disk swap' \
    "-v: who holds it, for how long, why"
conf b "on_failure = stay"
exit_is 1 "a hold skips under on_failure = stay too" \
    "$CHECK" -n -c "$T/b.conf" mail
conf b

status "cluster mail
elapsed 1
failures x"
exit_is 76 "a status that does not parse: invalid, exit 76" \
    "$CHECK" -n -c "$T/b.conf" mail
err_like 'failures: invalid value' "the parser's reason is named"

printf 'HTTP/1.1 404 Not Found\r\nPollguard-Node: a\r\nContent-Length: 10\r\nConnection: close\r\n\r\nNot Found\n' >"$T/a.resp"
exit_is 76 "404 with Pollguard-Node: no such cluster there, exit 76" \
    "$CHECK" -n -c "$T/b.conf" mail
err_like 'no \[cluster\] of that ID there' "the hint says so"

# Decisions go to syslog, and to stderr only with -v: cron stays silent.
status "$FAILED"
exit_is 0 "without -v: go" "$CHECK" -n -c "$T/b.conf" mail
err_empty "without -v: nothing on stderr"
out_empty "without -v: nothing on stdout"

finish
