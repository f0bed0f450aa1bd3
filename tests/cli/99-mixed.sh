#!/bin/bash
# SPDX-License-Identifier: ISC
# A mixed fleet: the 0.3 release, built from git in the test, beside the
# tools under test, on loopback. A new check against a 0.3 serve (which
# answers 404 for /v1/status: the check asks /v1/elapsed in the same
# round), a 0.3 check against a new serve (/v1/elapsed unchanged), and
# the simultaneous-start race between a 0.3 node and a new one: never two
# pollers in a round.
. "${PG_TOP:-.}/tests/lib.sh"

OLDREV=1b51b3c		# the 0.3 release
ROUNDS=${PG_MIXED_ROUNDS:-40}

if ! command -v git >/dev/null 2>&1 ||
    ! git -C "$PG_TOP" cat-file -e "$OLDREV^{commit}" 2>/dev/null; then
	skip "git or commit $OLDREV (0.3) not available: not a git checkout" 1
	finish
fi
OLD=$T/old
mkdir "$OLD"
if ! git -C "$PG_TOP" archive "$OLDREV" | tar -x -C "$OLD" ||
    ! make -C "$OLD" all >"$T/old-build.log" 2>&1; then
	diag_file "$T/old-build.log" "0.3 build"
	bail "0.3 ($OLDREV) does not build here"
fi
OCHECK=$OLD/bin/pollguard-check OSERVE=$OLD/bin/pollguard-serve
ok "0.3 built from git ($OLDREV)"

# Nodes n (new) and o (0.3); both start as new serves, then o's serve is
# replaced by the 0.3 one on the same port.
fleet_start "settle = 200ms" n o
serve_stop "${FLEET_SPID[o]}"
SERVE_BIN=$OSERVE serve_again so03 "$T/o.conf" "${FLEET_PORT[o]}" ||
    bail "the 0.3 serve did not start"
FLEET_SPID[o]=$SERVE_PID
is "$PORT" "${FLEET_PORT[o]}" "the 0.3 serve listens on o's port"

age()
{
	"$PGSTATE" -c "$T/$1.conf" write mail "$2" ||
	    bail "pgstate write $1 mail $2 failed"
}

# --- a new check against a 0.3 serve ---
command -v curl >/dev/null 2>&1 || bail "curl is not installed"
code=$(curl -s -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:${FLEET_PORT[o]}/v1/status/mail")
is "$code" 404 "the 0.3 serve answers 404 for /v1/status/mail"
curl -s -D "$T/h" -o /dev/null "http://127.0.0.1:${FLEET_PORT[o]}/v1/status/mail"
if grep -qi '^Pollguard-Node:' "$T/h"; then
	not_ok "the 0.3 serve's 404 has no Pollguard-Node field"
else
	ok "the 0.3 serve's 404 has no Pollguard-Node field"
fi
age o 5000
exit_is 1 "new check, 0.3 peer active 5s ago: skip" \
    "$CHECK" -n -v -c "$T/n.conf" mail
err_like 'o: 5[0-9]* ms: active .*before 0\.4' "-v: o answered /v1/elapsed, a peer before 0.4"
err_like 'skip: o was active' "-v: skip because of o"
age o 120000
exit_is 0 "new check, 0.3 peer idle: go" "$CHECK" -n -v -c "$T/n.conf" mail
rm -f "$T/o.state/mail"
exit_is 0 "new check, 0.3 peer never active: go" \
    "$CHECK" -n -v -c "$T/n.conf" mail
err_like 'o: never: idle \(before 0\.4\)' "-v: never, from /v1/elapsed"
grep -c 'GET /v1/elapsed/mail' "$T/so03.err" >"$T/n03"
num_between "$(cat "$T/n03")" 3 1000 "the 0.3 serve was asked /v1/elapsed/mail (log)"

# A claimed round against a 0.3 peer: round 2 asks /v1/elapsed at once.
before=$(grep -c 'GET /v1/status/mail' "$T/so03.err")
exit_is 0 "new check claims against an idle 0.3 peer: go" \
    "$CHECK" -v -c "$T/n.conf" mail
after=$(grep -c 'GET /v1/status/mail' "$T/so03.err")
is "$((after - before))" 1 "round 1 asked /v1/status once, round 2 not again"

# --- a 0.3 check against a new serve ---
age n 5000
exit_is 1 "0.3 check, new peer active 5s ago: skip" \
    "$OCHECK" -n -v -c "$T/o.conf" mail
age n 120000
exit_is 0 "0.3 check, new peer idle: go" "$OCHECK" -n -v -c "$T/o.conf" mail
body=$(curl -s "http://127.0.0.1:${FLEET_PORT[n]}/v1/elapsed/mail")
if [[ $body =~ ^[0-9]+$ ]]; then
	ok "the new serve's /v1/elapsed/mail is a bare number, as in 0.3"
else
	not_ok "the new serve's /v1/elapsed/mail is a bare number, as in 0.3"
	diag "got '$body'"
fi

# --- the race between a 0.3 node and a new one ---
# Both idle, started at one instant, over ROUNDS rounds: never two
# pollers; a round with none is a withdrawal both ways, allowed but rare.
doubles=0 nones=0
for ((i = 1; i <= ROUNDS; i++)); do
	age n 120000
	age o 120000
	race_arm
	racer 0 "$CHECK" -v -c "$T/n.conf" mail
	racer 0 "$OCHECK" -v -c "$T/o.conf" mail
	race_go
	race_count
	[ "$WENT" -gt 1 ] && doubles=$((doubles + 1))
	[ "$WENT" -eq 0 ] && [ "$SLOW" -eq 0 ] && nones=$((nones + 1))
done
is "$doubles" 0 "$ROUNDS simultaneous rounds of a 0.3 and a new node: never two pollers"
is "$ODDS" 0 "no check exited other than 0 or 1"
num_between "$nones" 0 $((ROUNDS / 4)) "rounds with no poller: at most a quarter ($nones)"

finish
