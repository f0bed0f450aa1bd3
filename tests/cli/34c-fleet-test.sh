#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-status -t, the fleet check (issue 34), on loopback: three real
# nodes a, b and c that agree (exit 0, one "ok" line); a peer's url with
# a typo, to a closed port (unreachable, naming the node); a url that
# reaches another node (naming both); b with another settle (one line,
# naming the key); and a fake peer for what real 0.5 nodes cannot show
# cheaply: a 0.4 serve (cannot compare, exit 0), a version that cannot
# share a cluster, a fresh node without a state directory, a clock too
# fast for the bound.
. "${PG_TOP:-.}/tests/lib.sh"

STATUS=$PG_BIN/pollguard-status
[ -x "$STATUS" ] || bail "$STATUS is not built (run make)"

fleet_start "settle = 200ms" a b c
CA=$T/a.conf

exit_is 0 "every node agrees: exit 0" "$STATUS" -t -c "$CA"
is "$(wc -l <"$T/out")" 1 "... one line"
assert "... an ok line for 1 cluster and 2 peers" \
    grep -qx 'ok: 1 cluster, 2 peers agree with this node' "$T/out"
err_empty "... nothing on stderr"
exit_is 0 "the cluster named: exit 0" "$STATUS" -t -c "$CA" mail

# conf_with FILE SED: a copy of a's config, changed by SED.
conf_with()
{
	sed "$2" "$CA" >"$1"
	chmod 600 "$1"
}

# A typo in b's url: a port nothing listens on.
free_port || bail "no free port"
conf_with "$T/typo.conf" "s|:${FLEET_PORT[b]}/|:$FREE_PORT/|"
exit_is 1 "b's url to a closed port: exit 1" "$STATUS" -t -c "$T/typo.conf"
assert "... a line: mail: b: unreachable at its url" \
    grep -q "^mail: b: unreachable at http://127.0.0.1:$FREE_PORT/" "$T/out"
assert "... no ok line" eval '! grep -q "^ok" "$T/out"'

# b's url reaches c.
conf_with "$T/swap.conf" "s|:${FLEET_PORT[b]}/|:${FLEET_PORT[c]}/|"
exit_is 1 "b's url reaches node c: exit 1" "$STATUS" -t -c "$T/swap.conf"
assert "... a line naming b, its url and c" grep -q \
    "^mail: b: http://127.0.0.1:${FLEET_PORT[c]}/ answers as node c" "$T/out"

# b settles otherwise: its serve rereads its config.
sed -i 's/^settle = 200ms$/settle = 500ms/' "$T/b.conf"
kill -HUP "${FLEET_SPID[b]}"
says_500()
{
	curl -s "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail" |
	    grep -qx 'settle 500'
}
wait_for "$PG_CMD_TIMEOUT" says_500 || diag "b's serve did not reread its config"
exit_is 1 "b has settle 500ms: exit 1" "$STATUS" -t -c "$CA"
is "$(cat "$T/out")" "mail: b: settle is 200ms here, 500ms on b" \
    "... one line, naming the cluster, the node and the key"
sed -i 's/^settle = 500ms$/settle = 200ms/' "$T/b.conf"
kill -HUP "${FLEET_SPID[b]}"

# A fake b: a 0.4 serve, a fresh 0.5 node, a clock beyond the bound.
fake_peer fb "$T/b.resp" || {
	skip "perl is not installed: no fake peer" 10
	finish
}
conf_with "$T/fake.conf" "s|:${FLEET_PORT[b]}/|:$PORT/|"
OLD="cluster mail
node b
version 0.4.0
elapsed never
running 0
last_success never
failures 0
deciding no
settle 200
timeout 2000"
fake_status "$T/b.resp" b "$OLD"
exit_is 0 "a 0.4 peer that agrees where it can say: exit 0" \
    "$STATUS" -t -c "$T/fake.conf"
assert "... cannot compare the 0.5 keys: b is 0.4.0" grep -qx \
    'mail: b: cannot compare wait, on_failure and backend: b is 0.4.0' \
    "$T/out"
assert "... and an ok line that says so" \
    grep -q '^ok: .*where they could be compared' "$T/out"
fake_status "$T/b.resp" b "$(sed 's/^settle 200/settle 300/' <<<"$OLD")"
exit_is 1 "a 0.4 peer with another settle: exit 1" \
    "$STATUS" -t -c "$T/fake.conf"
assert "... the settle line" grep -qx \
    'mail: b: settle is 200ms here, 300ms on b' "$T/out"
fake_status "$T/b.resp" b "$(sed 's/^version 0.4.0/version 1.0.0\nnonce @NONCE@/' <<<"$OLD")"
exit_is 1 "a peer of version 1.0.0: exit 1" "$STATUS" -t -c "$T/fake.conf"
assert "... its version cannot share a cluster" grep -q \
    '^mail: b: version 1.0.0 cannot share a cluster with this node' "$T/out"

NEW="cluster mail
node b
version 0.5.0
nonce @NONCE@
elapsed never
running 0
last_success never
failures 0
wait 60000
on_failure handover
backend peers"
fake_status "$T/b.resp" b "$NEW"
exit_is 0 "a fresh 0.5 node, no state directory: exit 0" \
    "$STATUS" -t -c "$T/fake.conf"
assert "... cannot compare settle and timeout, says why" grep -qx \
    'mail: b: cannot compare settle and timeout: b has no state directory yet (it has never checked)' \
    "$T/out"
fake_status "$T/b.resp" b "$(sed 's/^on_failure handover/on_failure stay/' <<<"$NEW")"
exit_is 1 "on_failure stay on b: exit 1" "$STATUS" -t -c "$T/fake.conf"
assert "... the on_failure line" grep -qx \
    'mail: b: on_failure is handover here, stay on b' "$T/out"
fake_status "$T/b.resp" b "$NEW
deciding no
settle 200
timeout 2000
rate 400000"
exit_is 1 "b's clock at up to 400000 ppm: exit 1" \
    "$STATUS" -t -c "$T/fake.conf"
assert "... a clocks line naming its rate" \
    grep -q '^mail: b: clocks at up to 400000 ppm there' "$T/out"

finish
