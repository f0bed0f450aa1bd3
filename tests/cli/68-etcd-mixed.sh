#!/bin/bash
# SPDX-License-Identifier: ISC
# A mixed config: the same three nodes a, b and c (each with its config,
# state directory and standalone pollguard-serve on loopback) run
# cluster mail on the peer protocol and cluster strict on a one-member
# etcd (tests/etcd.sh), side by side in one file. Each cluster goes on
# one node and skips on the others, independently of the other; a job
# of each runs at once under pollguard-touch; pollguard-status shows
# both clusters, as a table and as JSON, and pollguard-serve answers for
# both.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/etcd.sh"

STATUS=$PG_BIN/pollguard-status
[ -x "$STATUS" ] || bail "$STATUS is not built (run make)"
etcd_need 25

etcd_cluster e || bail "etcd did not start"
fleet_start "timeout = 3s" a b c
for n in a b c; do
	{
		etcd_section
		printf '[cluster strict]\nbackend = etcd\nwait = 60s\n'
	} >>"$T/$n.conf"
	kill -HUP "${FLEET_SPID[$n]}"
done
ok "nodes a, b, c: cluster mail on peers (:${FLEET_PORT[a]}, :${FLEET_PORT[b]}, :${FLEET_PORT[c]}), cluster strict on etcd $(etcd_endpoints)"
# The serves reread their configs on SIGHUP: wait until all know strict.
knows_strict()
{
	local n
	for n in a b c; do
		curl -sf -o /dev/null \
		    "http://127.0.0.1:${FLEET_PORT[$n]}/v1/status/strict" ||
		    return 1
	done
}
command -v curl >/dev/null 2>&1 || bail "curl is not installed"
assert "every serve answers /v1/status/strict after SIGHUP" \
    wait_for 10 knows_strict

exit_is 0 "strict: a goes" "$CHECK" -c "$T/a.conf" strict
exit_is 1 "strict: b skips (a holds the key)" "$CHECK" -v -c "$T/b.conf" strict
err_has a "-v names the holder, a"
exit_is 0 "mail: b goes (a's key in etcd is not mail's activity)" \
    "$CHECK" -c "$T/b.conf" mail
exit_is 1 "mail: a skips (b active)" "$CHECK" -c "$T/a.conf" mail
exit_is 1 "mail: c skips" "$CHECK" -c "$T/c.conf" mail
exit_is 1 "strict: c skips" "$CHECK" -c "$T/c.conf" strict
if CONF=$T/a.conf record mail | grep -qx never; then
	ok "a's state directory has no mail activity from its strict go"
else
	not_ok "a's state directory has no mail activity from its strict go"
	diag "pgstate read mail on a: $(CONF=$T/a.conf record mail)"
fi

# Both jobs at once, each under pollguard-touch on its own node.
bg jstrict "$TOUCH" -c "$T/a.conf" strict -- sh -c \
    'echo "$POLLGUARD_FENCING_TOKEN" >"$1"; sleep 2' j "$T/strict.token"
JS=$BGPID
bg jmail "$TOUCH" -c "$T/b.conf" mail -- sh -c 'sleep 2; echo done >"$1"' \
    j "$T/mail.done"
JM=$BGPID
wait_exit "$JS" 30
is "$?" 0 "the strict job ran under touch on a (exit 0)"
wait_exit "$JM" 30
is "$?" 0 "the mail job ran under touch on b, at the same time (exit 0)"
tok=$(cat "$T/strict.token" 2>/dev/null)
num_between "${tok:-x}" 1 9223372036854775807 \
    "the strict job had a fencing token ($tok)"
is "$(cat "$T/mail.done" 2>/dev/null)" done "the mail job ran to its end"

# --- the fleet view -------------------------------------------------------------

exit_is 0 "pollguard-status on c: exit 0" "$STATUS" -c "$T/c.conf"
cp "$T/out" "$T/status.out"
if grep -qw mail "$T/status.out" && grep -qw strict "$T/status.out"; then
	ok "the table shows both clusters"
else
	not_ok "the table shows both clusters"
	diag_file "$T/status.out" stdout
fi
if grep -w strict "$T/status.out" | grep -qw a; then
	ok "... strict's lines name its holder, a"
else
	not_ok "... strict's lines name its holder, a"
	diag_file "$T/status.out" stdout
fi
exit_is 0 "pollguard-status -j on c: exit 0" "$STATUS" -j -c "$T/c.conf"
if command -v python3 >/dev/null 2>&1; then
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ids = [c["id"] for c in d["clusters"]]
strict = [c for c in d["clusters"] if c["id"] == "strict"]
holder = "a" if strict and "\"a\"" in json.dumps(strict[0]) else "-"
print(" ".join(ids), holder)' "$T/out" 2>&1)
	is "$got" "mail strict a" "the JSON has mail and strict, in config order, strict naming a"
else
	skip "python3 is not installed" 1
fi
exit_is 0 "pollguard-status strict: exit 0" "$STATUS" -c "$T/b.conf" strict
if grep -qw mail "$T/out"; then
	not_ok "pollguard-status strict shows strict only"
	diag_file "$T/out" stdout
else
	ok "pollguard-status strict shows strict only"
fi

# pollguard-serve answers for both clusters.
code=$(curl -s -o "$T/body" -w '%{http_code}' \
    "http://127.0.0.1:${FLEET_PORT[c]}/v1/status/mail")
is "$code" 200 "c's serve answers /v1/status/mail"
code=$(curl -s -o "$T/body" -w '%{http_code}' \
    "http://127.0.0.1:${FLEET_PORT[c]}/v1/status/strict")
is "$code" 200 "c's serve answers /v1/status/strict"

# Releases, each on its backend.
exit_is 0 "strict: a releases (-r)" "$TOUCH" -c "$T/a.conf" -r strict
exit_is 0 "strict: c goes now" "$CHECK" -c "$T/c.conf" strict
finish
