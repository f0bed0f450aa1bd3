#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-status against three nodes a, b and c on loopback, each with
# its own config, state directory and standalone pollguard-serve: the
# table when every node answers (exit 0, quiet), a cluster argument, the
# JSON (parsed by python3), a cluster a peer does not know (unknown, exit
# 1), a node stopped (unreachable, exit 1), and a peer before 0.4 that
# answers /v1/elapsed but 404 to /v1/status ("elapsed only", exit 0).
. "${PG_TOP:-.}/tests/lib.sh"

STATUS=$PG_BIN/pollguard-status
[ -x "$STATUS" ] || bail "$STATUS is not built (run make)"

# Cluster mail (wait 60s) comes from fleet_start; fkb (wait 12s) is
# added to every node's config, and the serves reread theirs.
fleet_start "timeout = 3s" a b c
for n in a b c; do
	printf '[cluster fkb]\nwait = 12s\npeers = a, b, c\n' >>"$T/$n.conf"
	kill -HUP "${FLEET_SPID[$n]}"
done
CA=$T/a.conf

# Activity: a just now, b 30 s ago, c never; nobody in fkb.
"$TOUCH" -c "$CA" mail || bail "pollguard-touch on a failed"
"$PGSTATE" -c "$T/b.conf" write mail 30000 || bail "pgstate write on b failed"

# The serves reread their configs on SIGHUP: wait until all know fkb.
knows_fkb()
{
	local n
	for n in a b c; do
		curl -sf -o /dev/null "http://127.0.0.1:${FLEET_PORT[$n]}/v1/elapsed/fkb" ||
		    return 1
	done
}
wait_for 10 knows_fkb || diag "the serves did not reread their configs"

# has ERE DESC: a line of the last output matches.
has()
{
	if grep -qE -- "$1" "$T/out"; then
		ok "$2"
	else
		not_ok "$2"
		diag "no line matches: $1"
		diag_file "$T/out" stdout
	fi
}

# lacks ERE DESC: no line of the last output matches.
lacks()
{
	if grep -qE -- "$1" "$T/out"; then
		not_ok "$2"
		diag "a line matches: $1"
		diag_file "$T/out" stdout
	else
		ok "$2"
	fi
}

# json PYTHON DESC: the expression holds of the last output, parsed as
# JSON into j.
json()
{
	if python3 -c 'import json, sys
j = json.load(open(sys.argv[2]))
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" "$T/out" 2>"$T/py.err"; then
		ok "$2"
	else
		not_ok "$2"
		diag "does not hold: $1"
		diag_file "$T/py.err" python3
		diag_file "$T/out" stdout
	fi
}

# --- every node answers ---

exit_is 0 "all nodes answer: exit 0" "$STATUS" -c "$CA"
err_empty "all nodes answer: nothing on stderr"
is "$(head -n 1 "$T/out" | tr -s ' ')" \
    "CLUSTER NODE REACH ACTIVE RUNNING LAST FAILS RATE HOLD" "the header"
# RATE: each clock's bound in ppm, as adjtimex(2) shows this host's.
has '^mail  +a \(self\)  +yes  +[0-9.]+m?s ago  +no  +-  +0  +[0-9]+ppm  +-$' \
    "mail: a, this node, active just now"
has '^mail  +b  +yes  +3[0-9](\.[0-9])?s ago  +no  +-  +0  +[0-9]+ppm  +-$' \
    "mail: b active 30s ago"
has '^mail  +c  +yes  +never  +no  +-  +0  +[0-9]+ppm  +-$' \
    "mail: c never active"
# a and b both active within wait: the check of each counts the other's
# activity, so no check goes until b's ages past the wait.
has '^mail  +next  +nobody goes now: a: b was active 3[0-9](\.[0-9])?s ago; b, c: a was active [0-9.]+m?s ago$' \
    "mail: no check goes, and why"
has '^fkb  +next  +nobody active within wait 12s: the first check to run goes$' \
    "fkb: the first check to run goes"
is "$(grep -c '^fkb  ' "$T/out")" 4 "fkb: three nodes and next"
is "$(grep -c '' "$T/out")" 9 "a header and four lines per cluster"
# The columns line up: in every node line, each column of the header
# starts after two blanks, with something that is not one.
cols()
{
	awk 'NR == 1 { for (p = 1; p <= length($0); p++)
		    if (substr($0, p, 1) != " " && substr($0, p - 1, 1) == " ")
			    at[++n] = p
		    next }
	    $2 == "next" { next }
	    { for (i = 1; i <= n; i++)
		    if (substr($0, at[i] - 2, 2) != "  " ||
			substr($0, at[i], 1) == " ") {
			    print NR ": column " i + 1; bad = 1 } }
	    END { exit bad }' "$T/out"
}
assert "the columns are aligned" cols

exit_is 0 "status fkb: exit 0" "$STATUS" -c "$CA" fkb
lacks '^mail ' "status fkb: no line of mail"
is "$(grep -c '^fkb  ' "$T/out")" 4 "status fkb: the lines of fkb"

# --- JSON ---

if command -v python3 >/dev/null 2>&1; then
	exit_is 0 "-j: exit 0" "$STATUS" -j -c "$CA"
	err_empty "-j: nothing on stderr"
	if python3 -m json.tool "$T/out" >/dev/null 2>"$T/py.err"; then
		ok "-j: python3 -m json.tool parses it"
	else
		not_ok "-j: python3 -m json.tool parses it"
		diag_file "$T/py.err" python3
	fi
	json 'j["node"] == "a" and j["version"]' "-j: this node and the version"
	json '[c["id"] for c in j["clusters"]] == ["mail", "fkb"]' \
	    "-j: the clusters in the order of the config"
	json '[n["name"] for n in j["clusters"][0]["nodes"]] == ["a", "b", "c"]' \
	    "-j: this node first, then the peers"
	json '[n["self"] for n in j["clusters"][0]["nodes"]] == [True, False, False]' \
	    "-j: self"
	json 'all(n["reachable"] and n["error"] is None for c in j["clusters"] for n in c["nodes"])' \
	    "-j: every node reachable, no error"
	json 'j["clusters"][0]["wait_ms"] == 60000 and j["clusters"][1]["wait_ms"] == 12000' \
	    "-j: wait_ms"
	json '30000 <= j["clusters"][0]["nodes"][1]["elapsed_ms"] < 50000' \
	    "-j: b's elapsed_ms"
	json 'j["clusters"][0]["nodes"][2]["elapsed_ms"] is None' \
	    "-j: never is null"
	json 'j["clusters"][0]["next"]["reason"] == "none" and j["clusters"][0]["next"]["node"] is None' \
	    "-j: mail's next is nobody"
	json 'j["clusters"][1]["next"]["reason"] == "any" and j["clusters"][1]["next"]["node"] is None' \
	    "-j: fkb's next is anyone"
	json 'all(set(n) >= {"name", "self", "reachable", "error", "elapsed_ms", "claim_ms", "deciding", "running", "pid", "last", "failures", "rate_ppm", "hold"} for c in j["clusters"] for n in c["nodes"])' \
	    "-j: every node has the fields of the schema"
	json 'all(n["rate_ppm"] >= 500 for c in j["clusters"] for n in c["nodes"] if n["answer"] == "status")' \
	    "-j: each node's clock's rate bound, 500 ppm at least"
else
	skip "python3 is not installed" 15
fi

# --- a check deciding ---

# b's check of fkb is held up 3 s right after its claim became visible
# (tests/preempt.so): b's serve says deciding yes and shows the claim.
SHIM=$PG_BUILD/tests/preempt.so
held0=$(now_ms)
env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_MS=3000 \
    "$CHECK" -c "$T/b.conf" fkb >"$T/held.out" 2>"$T/held.err" &
HELD=$!
if wait_for 10 test -e "$T/b.state/fkb"; then
	exit_is 0 "b deciding: exit 0" "$STATUS" -c "$CA" fkb
	has '^fkb  +b  +yes  +[0-9.]+m?s ago \(claim, deciding\)  ' \
	    "b's claim, while its check decides"
	has '^fkb  +c  +yes  +never  ' "c neither active nor deciding"
	if command -v python3 >/dev/null 2>&1; then
		exit_is 0 "-j, b deciding: exit 0" "$STATUS" -j -c "$CA" fkb
		json '[n["deciding"] for n in j["clusters"][0]["nodes"]] == [False, True, False]' \
		    "-j: deciding, b only"
	else
		skip "python3 is not installed" 2
	fi
else
	not_ok "b's check of fkb claimed"
	skip "no claim to show" 4
fi
wait "$HELD"
is "$?" 0 "b's check, held up, kept its claim"
# The claim shows as one while it is younger than the wait (12 s); a
# loaded machine can hold the check and the statuses above that long.
if [ $(($(now_ms) - held0)) -lt 9000 ]; then
	exit_is 0 "b decided: exit 0" "$STATUS" -c "$CA" fkb
	has '^fkb  +b  +yes  +[0-9.]+m?s ago \(claim\)  ' \
	    "b's claim, no longer deciding"
else
	skip "staging took 9 s or more of b's 12 s claim" 2
fi

# --- a cluster a peer does not know ---

cp "$CA" "$T/a2.conf"
printf '[cluster solo]\nwait = 12s\npeers = a, b\n' >>"$T/a2.conf"
exit_is 1 "a peer without the cluster: exit 1" "$STATUS" -c "$T/a2.conf" solo
has '^solo  +b  +unknown  +-' "the peer shows as unknown"
err_has "cluster solo: node b: 404" "stderr says why"

# --- a node stopped ---

serve_stop "${FLEET_SPID[c]}"
exit_is 1 "node c stopped: exit 1" "$STATUS" -c "$CA" mail
has '^mail  +c  +unreachable  +-  +-  +-  +-  +-  +-$' \
    "c shows as unreachable"
has '^mail  +b  +yes ' "b still answers"
err_like "^pollguard-status: cluster mail: node c: .*(onnect|refused)" \
    "stderr: why c did not answer"
is "$(grep -c '' "$T/err")" 1 "stderr: one line, for c"
if command -v python3 >/dev/null 2>&1; then
	exit_is 1 "-j, node c stopped: exit 1" "$STATUS" -j -c "$CA" mail
	json 'not j["clusters"][0]["nodes"][2]["reachable"] and j["clusters"][0]["nodes"][2]["error"] and j["clusters"][0]["nodes"][2]["answer"] == "unreachable"' \
	    "-j: c unreachable, with the error"
else
	skip "python3 is not installed"
fi

# --- a peer before 0.4: /v1/elapsed only ---

if ! command -v socat >/dev/null 2>&1; then
	skip "socat is not installed: no old peer" 4
	finish
fi
# It answers /v1/elapsed/legacy with 5000 and every other path with a
# 404 without Pollguard-Node, as a 0.3 serve answers /v1/status.
cat >"$T/old.sh" <<'EOF'
#!/bin/bash
IFS= read -r -t 5 line || exit 0
while IFS= read -r -t 5 l && [ -n "${l%$'\r'}" ]; do :; done
case $line in
"GET /v1/elapsed/legacy "*)
	printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\nConnection: close\r\n\r\n5000\n' ;;
*)
	printf 'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nConnection: close\r\n\r\nNot Found\n' ;;
esac
EOF
chmod 755 "$T/old.sh"
bg old socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork EXEC:"$T/old.sh"
listen_port old OP || bail "the old peer (socat) did not start"
cp "$CA" "$T/a3.conf"
printf '[cluster legacy]\nwait = 12s\npeers = a, old\n[peer old]\nurl = http://127.0.0.1:%s/\n' \
    "$OP" >>"$T/a3.conf"
exit_is 0 "a peer before 0.4: exit 0" "$STATUS" -c "$T/a3.conf" legacy
has '^legacy  +old  +elapsed only  +5(\.[0-9])?s ago  +-  +-  +-  +-  +-$' \
    "the old peer: elapsed only, its activity"
has '^legacy  +next  +old: active 5(\.[0-9])?s ago \(wait 12s\), keeps polling$' \
    "the old peer's activity counts for next"
err_empty "a peer before 0.4: nothing on stderr"

# This node's own record damaged: the message names the file.
echo junk >"$T/a.state/fkb"
exit_is 1 "a's record damaged: exit 1" "$STATUS" -c "$CA" fkb
err_has "node a: its state record $T/a.state/fkb is not valid; 'pollguard-touch fkb' replaces it" \
    "a's record damaged: stderr names the file and the fix"
rm -f "$T/a.state/fkb"

# What one status request opens in the state directory: the record and
# the side record (outcome and hold in one), and the claim lock to test
# it; the run lock only while the outcome says a run is going.
if command -v strace >/dev/null 2>&1; then
	"$TOUCH" -c "$CA" mail -- true &&
	    "$TOUCH" -c "$CA" -H 1h -m opens mail ||
	    bail "pollguard-touch on a failed"
	printf 'GET /v1/status/mail HTTP/1.0\r\n\r\n' |
	    strace -f -qq -e trace=open,openat -o "$T/opens" \
	    "$PG_BIN/pollguard-serve" -c "$CA" -i >"$T/out" 2>/dev/null
	has '^last_exit 0' "the status answer has the outcome"
	has '^hold_why opens' "and the hold"
	# The trust walk opens each directory of the paths on the way
	# (and the configuration): left out here, as is ".".
	printf '%s\n' . $(printf '%s/%s' "$T/a.state" "$CA" | tr '/' ' ') \
	    >"$T/walked"
	is "$(sed -n 's/^.*openat([0-9][0-9]*, "\([^"]*\)".*$/\1/p' \
	    "$T/opens" | grep -vxF -f "$T/walked" | sort | tr '\n' ' ')" \
	    ".mail.claim .mail.side mail " \
	    "a status request opens the record and the side record, and tests the claim lock"
	"$TOUCH" -c "$CA" -H 0 mail || bail "pollguard-touch -H 0 on a failed"
else
	skip "strace is not installed" 3
fi
finish
