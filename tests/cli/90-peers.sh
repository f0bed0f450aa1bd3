#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-check with peers: three nodes a, b and c on loopback, each with
# its own config, state directory and standalone pollguard-serve. The wait
# rule with aged records, -n, -v, unreachable and hanging peers, nonsense
# answers from a fake peer, credentials and allow lists on a real serve, and
# the settle round: the claim, its horizon, keeping and withdrawing it.
. "${PG_TOP:-.}/tests/lib.sh"

# Upper bounds only: a slow machine may take longer than the values set in
# the configs, but not this long.
SLOW_MS=${PG_SLOW_MS:-5000}

# --- the three nodes ------------------------------------------------------

PEERS=		# the [peer] sections, once the ports are known

# nodeconf NODE [SETTLE [TIMEOUT [CONNECT_TIMEOUT [FILE]]]]: write FILE
# ($T/NODE.conf by default), the config of node NODE for its check and its
# serve: state $T/NODE.state; clusters mail and fkb (peers a, b, c), down
# and downskip (a, b, c and "dead", the peer nobody listens for), wait 12s.
# Before the ports are known the clusters have no peers.
nodeconf()
{
	local n=$1 settle=${2:-200ms} to=${3:-3s} ct=${4:-1s} f=${5:-$T/$1.conf}
	local abc= dead=
	[ -n "$PEERS" ] && abc="a b c" dead="a, b, c, dead"
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$n" "$T/$n.state"
		printf 'timeout = %s\nconnect_timeout = %s\nsettle = %s\n' \
		    "$to" "$ct" "$settle"
		printf '[cluster mail]\nwait = 12s\npeers = %s\n' "$abc"
		printf '[cluster fkb]\nwait = 12s\npeers = %s\n' "$abc"
		printf '[cluster down]\nwait = 12s\npeers = %s\n' "$dead"
		printf '[cluster downskip]\nwait = 12s\npeers = %s\n' "$dead"
		printf 'unreachable = skip\n'
		[ -z "$PEERS" ] || printf '%s\n' "$PEERS"
	} >"$f"
	chmod 600 "$f"
}

for n in a b c; do
	mkdir -m 755 "$T/$n.state"
	nodeconf "$n"
done
serve_start sa "$T/a.conf" || bail "pollguard-serve for node a did not start"
PA=$PORT SA=$SERVE_PID
serve_start sb "$T/b.conf" || bail "pollguard-serve for node b did not start"
PB=$PORT SB=$SERVE_PID
serve_start sc "$T/c.conf" || bail "pollguard-serve for node c did not start"
PC=$PORT SC=$SERVE_PID
ok "three serves listen on 127.0.0.1:$PA, :$PB, :$PC"

# A port nobody listens on: one a serve had, reserved for this test
# (free_port), so that no other program is given it meanwhile.
nodeconf d
free_port || bail "no free port"
serve_start sd "$T/d.conf" -l "127.0.0.1:$FREE_PORT" ||
    bail "pollguard-serve for the closed port did not start"
DEAD=$PORT
serve_stop "$SERVE_PID"
is "$?" 0 "a serve stopped by SIGTERM exits 0 (port $DEAD now closed)"

PEERS="[peer a]
url = http://127.0.0.1:$PA/
[peer b]
url = http://127.0.0.1:$PB
[peer c]
url = http://127.0.0.1:$PC/
[peer dead]
url = http://127.0.0.1:$DEAD/"
for n in a b c; do
	nodeconf "$n"
done
kill -HUP "$SA" "$SB" "$SC"

CA=$T/a.conf CB=$T/b.conf CC=$T/c.conf

# age NODE MS [CLUSTER]: NODE was last active MS ms ago.
age()
{
	"$PGSTATE" -c "$T/$1.conf" write "${3:-mail}" "$2" ||
	    bail "pgstate write $1 ${3:-mail} $2 failed"
}

# norec NODE... : no record of mail on these nodes.
norec()
{
	local n
	for n; do
		rm -f "$T/$n.state/mail"
	done
}

# rec NODE: what pgstate read says of NODE's mail record.
rec()
{
	"$PGSTATE" -c "$T/$1.conf" read mail 2>/dev/null || echo error
}

# timed WANT DESC COMMAND...: exit_is, and the time it took in $MS.
timed()
{
	local t0
	t0=$(now_ms)
	exit_is "$@"
	MS=$(($(now_ms) - t0))
}

# settled WANT DESC CHECK ARGS...: exit_is for a check that claims and
# settles, $MS the time the last try took. A claim that took longer than
# settle/4 to write (a busy disk: fsync) is withdrawn, exit 1, as the spec
# wants: then try again, up to 4 times, running $RETRY_RESET first (the
# withdrawal has put the record back). When the tries keep being withdrawn
# as too slow (a last try with -v says so), skip. Returns 0 when the status
# was WANT (then $T/out and $T/err are that try's).
settled()
{
	local want=$1 desc=$2 i t0
	shift 2
	for i in 1 2 3 4; do
		[ "$i" -eq 1 ] || eval "${RETRY_RESET:-:}"
		t0=$(now_ms)
		timeout -k 5 "$PG_CMD_TIMEOUT" "$@" >"$T/out" 2>"$T/err"
		RC=$?
		MS=$(($(now_ms) - t0))
		case "|$want|" in
		*"|$RC|"*)
			[ "$i" -eq 1 ] || diag "$desc: exit $want on try $i"
			ok "$desc"
			return 0
			;;
		esac
		[ "$RC" -eq 1 ] || break
	done
	if [ "$RC" -eq 1 ]; then
		eval "${RETRY_RESET:-:}"
		timeout -k 5 "$PG_CMD_TIMEOUT" "$1" -v "${@:2}" >"$T/vout" 2>"$T/verr"
		if grep -qE 'too (long|slow)' "$T/verr"; then
			skip "$desc: claims withdrawn as too slow to order (busy machine)"
			diag_file "$T/verr" "stderr with -v"
			return 1
		fi
	fi
	not_ok "$desc"
	diag "command: $*"
	diag "exit status $RC, want $want"
	diag_file "$T/err" stderr
	[ -e "$T/verr" ] && diag_file "$T/verr" "stderr of a try with -v"
	rm -f "$T/verr"
	return 1
}

# nfields FILE: the number of fields of a record.
nfields()
{
	local -a f
	read -r -a f <"$1" 2>/dev/null
	echo "${#f[@]}"
}

# has_claim FILE: the record has the claim fields.
has_claim()
{
	[ "$(nfields "$1")" -eq 7 ]
}

# --- the wait rule, with aged records (wait 12s) ---

norec a b c
age b 0
exit_is 1 "peer b active just now: a skips (exit 1)" "$CHECK" -c "$CA" mail
out_empty "skip: nothing on stdout"
err_empty "skip: nothing on stderr"
is "$(rec a)" never "skip: a claimed nothing"

age b 5000
exit_is 1 "peer b active 5s ago: a skips" "$CHECK" -c "$CA" mail

age b 13000
if settled 0 "peer b active 13s ago: a goes" "$CHECK" -c "$CA" mail; then
err_empty "go: nothing on stderr"
num_between "$(rec a)" 0 "$SLOW_MS" "go: a's record now fresh"
BOOT=$(cat /proc/sys/kernel/random/boot_id)
if grep -qE "^pollguard-state 1 $BOOT [0-9]+ [0-9]+ [0-9]+ [0-9]+\$" "$T/a.state/mail"; then
	ok "a claim's record: pollguard-state 1 BOOT MONO WALL CLAIM_NS HORIZON_MS"
else
	not_ok "a claim's record: pollguard-state 1 BOOT MONO WALL CLAIM_NS HORIZON_MS"
	diag_file "$T/a.state/mail" record
fi
read -r _ _ _ mono _ claim horizon <"$T/a.state/mail"
# A claim that took longer than settle/4 to write (a busy machine) is
# kept with its horizon lengthened by the excess.
num_between "${horizon:-0}" 7300 $((7300 + SLOW_MS)) \
    "claim horizon: 2 x timeout 3s + 1.5 x settle 200ms + 1s = 7300, or a slow write's more"
num_between "$(( (${claim:-0} - ${mono:-0}) / 1000000 ))" 0 "$SLOW_MS" \
    "claim moment no later than the record's moment"

# Peers see a's claim; first c -nv, while the horizon lasts. Had the
# check ended after the horizon (valgrind, a loaded machine), a idle is
# right.
timeout -k 5 "$PG_CMD_TIMEOUT" "$CHECK" -nv -c "$CC" mail >"$T/out" 2>"$T/err"
RC=$?
late=$(($(uptime_ms) - ${claim:-0} / 1000000))
if [ "$RC" != 1 ] && [ "$late" -ge "${horizon:-0}" ]; then
	skip "a busy machine: c's check ended ${late} ms after a's claim, past its horizon" 2
else
	is "$RC" 1 "c -nv, a's claim within its horizon: skips"
	err_like ': a: [0-9]+ ms: claimed [0-9.]+m?s ago \(wait 12s\)$' \
	    "-v says a claimed, not that it was active"
fi
exit_is 1 "b, right after a's claim: skips" "$CHECK" -c "$CB" mail
exit_is 1 "c, right after a's claim: skips" "$CHECK" -c "$CC" mail
num_between "$(rec b)" 13000 $((13000 + 10 * SLOW_MS)) "b's skip left its record alone"
else
	skip "no claim to look at" 10
fi
norec a

norec b c
settled 0 "no peer ever polled: a goes" "$CHECK" -c "$CA" mail &&
num_between "$(rec a)" 0 "$SLOW_MS" "never-polled peers: a claimed" ||
skip "no claim" 1
norec a

age b 12000
settled 0 "peer b active exactly wait (12000 ms) ago: a goes" "$CHECK" -c "$CA" mail
norec a

# 100 ms before the wait ends: skip, unless the check itself took longer
# than that to ask (then b really was idle by then).
t0=$(now_ms)
age b 11900
timeout -k 5 "$PG_CMD_TIMEOUT" "$CHECK" -c "$CA" mail >"$T/out" 2>"$T/err"
RC=$? t1=$(now_ms)
if [ "$RC" -eq 1 ]; then
	ok "peer b active 11900 ms ago (wait 12s): a skips"
elif [ "$RC" -eq 0 ] && [ $((t1 - t0)) -ge 100 ]; then
	skip "11900 ms: the check took $((t1 - t0)) ms, b was idle by the time it asked"
else
	not_ok "peer b active 11900 ms ago (wait 12s): a skips"
	diag "exit $RC after $((t1 - t0)) ms, want 1"
	diag_file "$T/err" stderr
fi
norec a

age b 60000
age c 1000
exit_is 1 "b idle, c active 1s ago: a skips (any active peer)" "$CHECK" -c "$CA" mail
age a 2000
norec c
exit_is 1 "the other way round: a active 2s ago, b skips" "$CHECK" -c "$CB" mail
exit_is 1 "and c skips" "$CHECK" -c "$CC" mail
norec a b c

# --- -n ---

age b 60000
exit_is 0 "-n, peers idle: exit 0" "$CHECK" -n -c "$CA" mail
err_empty "-n: stderr empty"
assert "-n, no record before: still none" test ! -e "$T/a.state/mail"
age a 30000
cp "$T/a.state/mail" "$T/a.saved"
exit_is 0 "-nv, old record: exit 0" "$CHECK" -nv -c "$CA" mail
assert "-n: record unchanged, byte for byte" cmp -s "$T/a.saved" "$T/a.state/mail"
err_lacks "settl" "-nv: no settle round"
is "$(grep -cE '(^|[ :])b: ' "$T/err")" 1 "-nv: one line about b (one round)"
is "$(grep -cE '(^|[ :])c: ' "$T/err")" 1 "-nv: one line about c"
err_like '\<go\>' "-nv: says go"
err_lacks "claimed;" "-nv: does not claim"
age b 5000
exit_is 1 "-n, b active: exit 1" "$CHECK" -n -c "$CA" mail
norec a b c

# --- -v ---

age b 5000
exit_is 1 "-v, b active 5s ago: exit 1" "$CHECK" -v -c "$CA" mail
err_like '(^|[ :])b: .*\<active\>' "-v: b's line says active"
err_like '(^|[ :])b: .*\<[0-9]+ ?ms\>' "-v: b's line gives its elapsed ms"
err_like '(^|[ :])c: .*\<never\>' "-v: c's line says never"
err_like 'mail: .*\<skip\>.*\<b\>' "-v: the decision: skip, because of b"
is "$(grep -cE '(^|[ :])b: ' "$T/err")" 1 "-v, skip: one line about b"
is "$(grep -cE '(^|[ :])c: ' "$T/err")" 1 "-v, skip: one line about c"
is "$(rec a)" never "-v skip: nothing claimed"

age b 60000
if settled 0 "-v, b idle: exit 0" "$CHECK" -v -c "$CA" mail; then
err_like '(^|[ :])b: .*\<idle\>' "-v: b's line says idle"
err_like '(^|[ :])c: .*\<never\>' "-v: c's line says never"
err_like 'mail: .*\<go\>' "-v: says go"
err_like 'mail: .*settling' "-v: says it settles"
settle=$(sed -nE 's/.*settling ([0-9]+) ?ms.*/\1/p' "$T/err" | head -n 1)
if [ -n "$settle" ]; then
	num_between "$settle" 100 200 "-v: settle sleep in [settle/2, settle] = [100, 200] ms"
else
	skip "-v does not say how long it settles"
fi
is "$(grep -cE '(^|[ :])b: ' "$T/err")" 2 "-v, go: two lines about b (two rounds)"
err_like 'mail: .*\<keep' "-v: keeps the claim"
err_lacks "withdraw" "-v: no withdrawal"
else
	skip "no go" 8
fi
norec a b c

# --- the claim's horizon ---

if settled 0 "a claims (no peer ever active)" "$CHECK" -c "$CA" mail; then
read -r _ _ _ _ _ claim1 horizon1 <"$T/a.state/mail"
sleep 0.4
exit_is 0 "pollguard-touch refreshes a's record within the horizon" "$TOUCH" -c "$CA" mail
read -r _ _ _ mono2 _ claim2 horizon2 <"$T/a.state/mail"
is "${claim2:-}/${horizon2:-}" "${claim1:-x}/${horizon1:-x}" \
    "the refresh keeps the claim and its horizon"
if command -v curl >/dev/null 2>&1; then
	e=$(curl -s --noproxy '*' -m 10 "http://127.0.0.1:$PA/v1/elapsed/mail")
	if [[ $e =~ ^[0-9]+$ ]] && [ "$e" -ge 400 ]; then
		ok "within the horizon serve reports the time since the claim (${e} ms >= 400)"
	else
		not_ok "within the horizon serve reports the time since the claim"
		diag "got '$e', want >= 400 (the claim was 400 ms before the refresh)"
	fi
else
	skip "curl not installed"
fi
else
	skip "no claim" 3
fi
norec a b c

# --- settle and its timing ---

A0=$T/a0.conf
nodeconf a 0 3s 1s "$A0"
timed 0 "settle = 0: go" "$CHECK" -v -c "$A0" mail
num_between "$MS" 0 "$SLOW_MS" "settle = 0: done within ${SLOW_MS} ms"
err_lacks "settl" "settle = 0: -v does not mention settling"
is "$(grep -cE '(^|[ :])b: ' "$T/err")" 1 "settle = 0: one round"
num_between "$(rec a)" 0 "$SLOW_MS" "settle = 0: claimed"
norec a
if settled 0 "settle = 200ms: go" "$CHECK" -v -c "$CA" mail; then
	num_between "$MS" 0 "$SLOW_MS" "settle = 200ms: done within ${SLOW_MS} ms"
	err_like 'settling' "settle = 200ms: -v says it settled"
else
	skip "no go" 2
fi
norec a b c

# --- unreachable peers ---

exit_is 0 "unreachable peer, policy run: go" "$CHECK" -n -c "$CA" down
err_like '\<dead\>.*unreachable.*said once an hour' \
    "unreachable, no -v, stderr not a terminal: said once (cron mails it)"
exit_is 0 "unreachable again: go" "$CHECK" -n -c "$CA" down
err_empty "... within the hour: stderr empty"
exit_is 0 "unreachable, -v: go" "$CHECK" -nv -c "$CA" down
err_like '\<dead\>.*\<unreachable\>' "-v: warns that dead is unreachable"
err_like '\<dead\>.*\<never\>' "-v: dead counts as never"
settled 0 "unreachable, claim: go" "$CHECK" -c "$CA" down
is "$(test -e "$T/a.state/down" && echo claimed)" claimed "unreachable, run: claimed"
rm -f "$T/a.state/down"
exit_is 3 "unreachable peer, policy skip: exit 3" "$CHECK" -c "$CA" downskip
assert "unreachable, skip: nothing claimed" test ! -e "$T/a.state/downskip"
exit_is 3 "unreachable, policy skip, -v: exit 3" "$CHECK" -v -c "$CA" downskip
err_like '\<dead\>.*\<unreachable\>' "-v: names the unreachable peer"
err_like 'skip' "-v: says skip"
age b 1000 downskip
exit_is 1 "an active peer wins over an unreachable one: exit 1" "$CHECK" -c "$CA" downskip
rm -f "$T/b.state/downskip"

# --- credentials, allow lists and unknown clusters on real serves ---

AUTH="[pollguard]
state = $T/b.state
[cluster authok]
wait = 12s
[cluster wrongpw]
wait = 12s
[cluster nocreds]
wait = 12s
[cluster mail]
wait = 12s"
printf '%s\n[serve]\nuser = pguser\npassword = pg:pass word\n' "$AUTH" >"$T/sauth.conf"
printf '%s\n[serve]\nallow = 10.0.0.0/8\nallow = 192.0.2.0/24\n' "$AUTH" >"$T/sdeny.conf"
printf '%s\n[serve]\nallow = 10.0.0.0/8\nallow = 127.0.0.1\n' "$AUTH" >"$T/sallow.conf"
chmod 600 "$T/sauth.conf" "$T/sdeny.conf" "$T/sallow.conf"
if serve_start sauth "$T/sauth.conf"; then PAUTH=$PORT; else PAUTH=$DEAD; fi
if serve_start sdeny "$T/sdeny.conf"; then PDENY=$PORT; else PDENY=$DEAD; fi
if serve_start sallow "$T/sallow.conf"; then PALLOW=$PORT; else PALLOW=$DEAD; fi

cat >"$T/aauth.conf" <<EOF
[pollguard]
node = a
state = $T/a.state
timeout = 3s
connect_timeout = 1s
settle = 0
[peer good]
url = http://127.0.0.1:$PAUTH/
user = pguser
password = pg:pass word
[peer wrong]
url = http://127.0.0.1:$PAUTH/
user = pguser
password = pg:pass
[peer nocreds]
url = http://127.0.0.1:$PAUTH/
[peer denied]
url = http://127.0.0.1:$PDENY/
[peer allowed]
url = http://127.0.0.1:$PALLOW/
[peer b]
url = http://127.0.0.1:$PB/
[cluster authok]
wait = 12s
peers = good
[cluster wrongpw]
wait = 12s
peers = wrong
[cluster nocreds]
wait = 12s
peers = nocreds
[cluster mail]
wait = 12s
peers = denied
[cluster other]
wait = 12s
peers = b
EOF
chmod 600 "$T/aauth.conf"
# a second config for the allow list that admits 127.0.0.1
sed 's/^peers = denied$/peers = allowed/' "$T/aauth.conf" >"$T/aallow.conf"
chmod 600 "$T/aallow.conf"
AA=$T/aauth.conf

exit_is 0 "serve with user and password, right credentials: go" "$CHECK" -n -c "$AA" authok
exit_is 76 "wrong password: exit 76" "$CHECK" -n -c "$AA" wrongpw
err_has "wrong" "wrong password: names the peer"
err_has "401" "wrong password: says 401"
exit_is 76 "no credentials: exit 76" "$CHECK" -n -c "$AA" nocreds
err_has "nocreds" "no credentials: names the peer"
err_has "401" "no credentials: says 401"
exit_is 76 "no credentials, -q: still exit 76" "$CHECK" -q -c "$AA" nocreds
err_has "nocreds" "no credentials, -q: the error is still printed"
assert "no credentials: nothing claimed" test ! -e "$T/a.state/nocreds"
exit_is 76 "allow = 10.0.0.0/8 and 192.0.2.0/24 (not 127.0.0.1): exit 76" "$CHECK" -n -c "$AA" mail
err_has "denied" "allow list: names the peer"
err_has "403" "allow list: says 403"
exit_is 0 "allow on two lines, the second 127.0.0.1: go" "$CHECK" -n -c "$T/aallow.conf" mail
exit_is 76 "a cluster the peer does not serve: exit 76" "$CHECK" -n -c "$AA" other
err_like '(^|[ :])b\>' "unknown cluster: names the peer"
err_has "404" "unknown cluster: says 404"
err_has "no [cluster] of that ID there" "unknown cluster: says what a 404 means"

# A node whose name matches no [peer] section asks its own serve, sees
# its own claim in round 2 and would withdraw every round, silently. The
# serve names its node, and check refuses to take itself for a peer.
mkdir -p "$T/self.state"
cat >"$T/self.conf" <<EOF
[pollguard]
node = vm
state = $T/self.state
settle = 0
[peer a.example]
url = http://127.0.0.1:9/
[cluster mail]
wait = 12s
EOF
if serve_start self "$T/self.conf"; then
	sed -i "s|^url = http://127.0.0.1:9/\$|url = http://127.0.0.1:$PORT/|" "$T/self.conf"
	curl -s -D "$T/self.head" -o /dev/null "http://127.0.0.1:$PORT/v1/elapsed/mail"
	assert "serve names its node in the answer (Pollguard-Node: vm)" \
	    grep -q '^Pollguard-Node: vm' "$T/self.head"
	exit_is 76 "a [peer] that is this node itself: exit 76, not a silent withdrawal" \
	    "$CHECK" -c "$T/self.conf" mail
	err_has "is this node" "this node itself: the error says so"
	err_has "set node = a.example" "this node itself: the error says how to fix it"
	assert "this node itself: nothing claimed" test ! -e "$T/self.state/mail"
	serve_stop "$SERVE_PID"
else
	not_ok "serve for the self test started"
	skip "no serve" 4
fi
grep -q 'client 127\.0\.0\.1: 401 ' "$T/sauth.err"
is "$?" 0 "the serve logged the 401"
grep -q 'client 127\.0\.0\.1: 403 ' "$T/sdeny.err"
is "$?" 0 "the serve logged the 403"

# --- a fake peer: hanging, and answering nonsense ---

if ! command -v socat >/dev/null 2>&1; then
	skip "socat not installed: no fake peer" 1
	HAVE_SOCAT=0
else
	HAVE_SOCAT=1
fi

if [ "$HAVE_SOCAT" = 1 ]; then
	mkdir "$T/resp"
	# The fake peer's answer to each connection: read the request head
	# (at most 100 lines, 5 s), log its request line and Authorization,
	# then answer as $T/fake.mode says: a file of $T/resp, "hang",
	# "stream" (an endless body), "seq:R1:R2" (R1 to the first request
	# logged, R2 to later ones) or "tie" (the time since a's claim).
	cat >"$T/fake.sh" <<EOF
#!/bin/bash
D=$T
EOF
	cat >>"$T/fake.sh" <<'EOF'
line= i l mode n cl claim up f auth=
for ((i = 0; i < 100; i++)); do
	IFS= read -r -t 5 l || break
	l=${l%$'\r'}
	[ "$i" -eq 0 ] && line=$l
	[ -n "$l" ] || break
	case $l in [Aa]uthorization:*) auth=$l ;; esac
done
# a connection closed without a request (a TLS handshake refused): no answer
[ -n "$line" ] || exit 0
# a 0.3 serve: /v1/status is unknown, a 404 without Pollguard-Node; check
# then asks /v1/elapsed, which this fake answers (and logs) as below
case $line in *' '*/v1/status/*)
	printf 'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\nNot Found\n'
	exit 0 ;;
esac
[ -z "$auth" ] || printf '%s\n' "$auth" >>"$D/fake.auth"
printf '%s\n' "$line" >>"$D/fake.req"
n=$(wc -l <"$D/fake.req")
read -r mode <"$D/fake.mode"
case $mode in
hang)
	exec sleep 30 ;;
stream)
	printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n'
	exec head -c 1073741824 /dev/zero ;;
seq:*)
	IFS=: read -r _ r1 r2 <<<"$mode"
	[ "$n" -le 1 ] && exec cat "$D/resp/$r1"
	exec cat "$D/resp/$r2" ;;
tie)
	cl=${line#* }
	cl=${cl%% *}
	cl=${cl##*/}
	claim=
	read -r _ _ _ _ _ claim _ <"$D/a.state/$cl" 2>/dev/null
	if [ -z "$claim" ]; then
		b='never'
	else
		read -r up _ </proc/uptime
		f=${up#*.}000
		b=$(( (${up%.*} * 1000 + 10#${f:0:3}) - claim / 1000000 ))
		[ "$b" -ge 0 ] || b=0
	fi
	printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n' $((${#b} + 1)) "$b"
	;;
*)
	exec cat "$D/resp/$mode" ;;
esac
EOF
	chmod 755 "$T/fake.sh"
	echo hang >"$T/fake.mode"
	bg fake socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,backlog=64 \
	    EXEC:"$T/fake.sh"
	FAKEPID=$BGPID
	if listen_port fake FP; then
		ok "fake peer (socat) listens on 127.0.0.1:$FP"
	else
		not_ok "fake peer (socat) listens"
		HAVE_SOCAT=0
	fi
fi

# resp NAME STATUS HEADERS BODY: a raw HTTP answer, $T/resp/NAME; a
# Content-Length is added unless HEADERS has one or says "-".
resp()
{
	local h=$3
	case $h in
	-) h= ;;
	*Content-Length*) ;;
	*) h="${h}Content-Length: ${#4}\r\n" ;;
	esac
	printf "HTTP/1.1 %s\r\n${h}Connection: close\r\n\r\n%s" "$2" "$4" >"$T/resp/$1"
}

# fakeconf FILE [SETTLE [TIMEOUT [CONNECT]]]: node a's config with fake peers.
fakeconf()
{
	cat >"$1" <<EOF
[pollguard]
node = a
state = $T/a.state
timeout = ${3:-3s}
connect_timeout = ${4:-1s}
settle = ${2:-200ms}
[peer fake]
url = http://127.0.0.1:$FP/
[peer fakep]
url = http://127.0.0.1:$FP/pg/
[peer fakeauth]
url = http://127.0.0.1:$FP
user = pg-user
password = se:cret
[peer b]
url = http://127.0.0.1:$PB/
[peer A0]
url = http://127.0.0.1:$FP/
[peer 0p]
url = http://127.0.0.1:$FP/
[peer zz]
url = http://127.0.0.1:$FP/
[cluster fk]
wait = 12s
peers = fake
[cluster fkskip]
wait = 12s
peers = fake
unreachable = skip
[cluster fkp]
wait = 12s
peers = fakep
[cluster fka]
wait = 12s
peers = fakeauth
[cluster fkb]
wait = 12s
peers = b fake
[cluster tie0]
wait = 12s
peers = A0
[cluster tie1]
wait = 12s
peers = 0p
[cluster tiez]
wait = 12s
peers = zz
EOF
	chmod 600 "$1"
}

# fake MODE: how the fake peer answers from now on; forget its log.
fake()
{
	echo "$1" >"$T/fake.mode"
	: >"$T/fake.req"
	: >"$T/fake.auth"
}

nreq()
{
	wc -l <"$T/fake.req" | tr -d ' '
}

if [ "$HAVE_SOCAT" = 1 ]; then
	FK=$T/afake.conf
	fakeconf "$FK"
	fakeconf "$T/ahang.conf" 200ms 1s 500ms
	fakeconf "$T/afake0.conf" 0
	TP='text/plain'

	resp idle '200 OK' "Content-Type: $TP\r\n" $'60000\n'
	resp idlecrlf '200 OK' "Content-Type: $TP\r\n" $'60000\r\n'
	resp idlebare '200 OK' "Content-Type: $TP\r\n" '60000'
	resp charset '200 OK' "Content-Type: $TP; charset=utf-8\r\n" $'60000\n'
	resp noct '200 OK' '' $'60000\n'
	resp never '200 OK' "Content-Type: $TP\r\n" $'never\n'
	resp active '200 OK' "Content-Type: $TP\r\n" $'5000\n'
	resp zero '200 OK' "Content-Type: $TP\r\n" $'0\n'
	resp max '200 OK' "Content-Type: $TP\r\n" $'9223372036854775806\n'
	printf 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n60000\n' >"$T/resp/noclen"

	# --- request, path prefix, credentials, proxies ---

	fake idle
	exit_is 0 "fake peer idle: go" "$CHECK" -n -c "$FK" fk
	is "$(nreq)" 1 "-n: one request"
	if grep -qE '^GET /v1/elapsed/fk HTTP/1\.[01]$' "$T/fake.req"; then
		ok "request: GET /v1/elapsed/fk (no double slash)"
	else
		not_ok "request: GET /v1/elapsed/fk (no double slash)"
		diag_file "$T/fake.req" requests
	fi
	is "$(wc -c <"$T/fake.auth" | tr -d ' ')" 0 "no credentials: no Authorization sent"
	fake idle
	exit_is 0 "url with a path: go" "$CHECK" -n -c "$FK" fkp
	if grep -qE '^GET /pg/v1/elapsed/fkp HTTP/1\.[01]$' "$T/fake.req"; then
		ok "url http://HOST/pg/: request GET /pg/v1/elapsed/fkp"
	else
		not_ok "url http://HOST/pg/: request GET /pg/v1/elapsed/fkp"
		diag_file "$T/fake.req" requests
	fi
	fake idle
	exit_is 0 "peer with credentials, url without a slash: go" "$CHECK" -n -c "$FK" fka
	is "$(tr -d '\r' <"$T/fake.auth")" "Authorization: Basic $(printf 'pg-user:se:cret' | base64)" \
	    "peer user and password: Basic credentials sent"
	grep -qE '^GET /v1/elapsed/fka HTTP/1\.[01]$' "$T/fake.req"
	is "$?" 0 "url without a trailing slash: GET /v1/elapsed/fka"
	fake idle
	exit_is 0 "proxy variables set: ignored, the peer asked directly" \
	    env http_proxy="http://127.0.0.1:$DEAD/" HTTP_PROXY="http://127.0.0.1:$DEAD/" \
	    all_proxy="http://127.0.0.1:$DEAD/" ALL_PROXY="http://127.0.0.1:$DEAD/" \
	    "$CHECK" -n -c "$FK" fkskip
	is "$(nreq)" 1 "proxy variables: the fake peer got the request"

	# --- valid answers ---

	for r in idle idlecrlf idlebare charset noct never max noclen; do
		fake "$r"
		exit_is 0 "answer '$r': valid, idle: go" "$CHECK" -n -c "$FK" fk
		err_empty "answer '$r': stderr empty"
	done
	for r in active zero; do
		fake "$r"
		exit_is 1 "answer '$r': valid, active: skip" "$CHECK" -n -c "$FK" fk
	done

	# --- invalid answers: exit 76, naming the peer, quickly ---

	resp hello '200 OK' "Content-Type: $TP\r\n" $'hello\n'
	resp neg '200 OK' "Content-Type: $TP\r\n" $'-5\n'
	resp plus '200 OK' "Content-Type: $TP\r\n" $'+5\n'
	resp overflow '200 OK' "Content-Type: $TP\r\n" $'99999999999999999999\n'
	resp max1 '200 OK' "Content-Type: $TP\r\n" $'9223372036854775807\n'
	resp empty '200 OK' "Content-Type: $TP\r\n" ''
	resp junk '200 OK' "Content-Type: $TP\r\n" $'60000 seconds\n'
	resp twolines '200 OK' "Content-Type: $TP\r\n" $'60000\n60000\n'
	resp spaced '200 OK' "Content-Type: $TP\r\n" $' 60000\n'
	resp nevermore '200 OK' "Content-Type: $TP\r\n" $'nevermore\n'
	resp html '200 OK' 'Content-Type: text/html\r\n' $'60000\n'
	resp json '200 OK' 'Content-Type: application/json\r\n' $'60000\n'
	resp truncated '200 OK' "Content-Type: $TP\r\nContent-Length: 20\r\n" $'60000'
	resp s401 '401 Unauthorized' "Content-Type: $TP\r\n" $'Unauthorized\n'
	resp s403 '403 Forbidden' "Content-Type: $TP\r\n" $'Forbidden\n'
	resp s404 '404 Not Found' "Content-Type: $TP\r\n" $'Not Found\n'
	resp s302 '302 Found' "Location: http://127.0.0.1:$PB/v1/elapsed/fk\r\nContent-Type: $TP\r\n" $'Found\n'
	resp s204 '204 No Content' '-' ''
	{
		printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n'
		printf 'Content-Length: 10485760\r\nConnection: close\r\n\r\n'
		head -c 10485760 /dev/zero | tr '\0' 7
	} >"$T/resp/big"

	for r in hello neg plus overflow max1 empty junk twolines spaced nevermore \
	    html json truncated s401 s403 s404 s302 s204 big; do
		fake "$r"
		timed 76 "answer '$r': invalid, exit 76" "$CHECK" -n -c "$FK" fk
		err_like '(^|[^a-z])fake([^a-z]|$)' "answer '$r': the error names the peer"
		num_between "$MS" 0 "$SLOW_MS" "answer '$r': done within ${SLOW_MS} ms"
	done
	fake big
	exit_is 76 "10 MB body: exit 76" "$CHECK" -n -c "$FK" fk
	err_like 'longer than 64' "10 MB body: says the answer is longer than 64 bytes"
	fake s401
	exit_is 76 "401: exit 76" "$CHECK" -n -c "$FK" fk
	err_has "401" "401: the error says 401"
	fake s302
	exit_is 76 "302: exit 76, redirect not followed" "$CHECK" -n -c "$FK" fk
	is "$(nreq)" 1 "302: only the fake peer asked"
	is "$(grep -c 'elapsed/fk ' "$T/sb.err")" 0 "302: the redirect to b not followed"
	fake hello
	age a 30000 fk
	cp "$T/a.state/fk" "$T/fk.saved"
	exit_is 76 "invalid answer, claim wanted: exit 76" "$CHECK" -c "$FK" fk
	assert "invalid answer: record unchanged" cmp -s "$T/fk.saved" "$T/a.state/fk"
	rm -f "$T/a.state/fk"

	# An endless body: bounded time and memory.
	fake stream
	if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
		timed 76 "endless body: exit 76" /usr/bin/time -o "$T/time" -f %M \
		    "$CHECK" -n -c "$FK" fk
		rss=$(tail -n 1 "$T/time")
		num_between "$rss" 1 102400 "endless body: at most 100 MB resident (${rss} kB)"
	else
		timed 76 "endless body: exit 76" "$CHECK" -n -c "$FK" fk
		skip "no GNU time(1) to measure memory"
	fi
	num_between "$MS" 0 "$SLOW_MS" "endless body: done within ${SLOW_MS} ms"

	# The active answer wins over the invalid one; invalid over unreachable.
	age b 1000 fkb
	fake hello
	exit_is 1 "b active, fake invalid: skip (exit 1)" "$CHECK" -n -c "$FK" fkb
	rm -f "$T/b.state/fkb"
	exit_is 76 "b never, fake invalid: exit 76" "$CHECK" -n -c "$FK" fkb

	# --- 5xx: unreachable ---

	resp s500 '500 Internal Server Error' "Content-Type: $TP\r\n" $'Internal Server Error\n'
	resp s503 '503 Service Unavailable' "Content-Type: $TP\r\n" $'Service Unavailable\n'
	for r in s500 s503; do
		fake "$r"
		exit_is 0 "answer '$r': unreachable, policy run: go" "$CHECK" -n -c "$FK" fk
		exit_is 0 "answer '$r', -v: go" "$CHECK" -nv -c "$FK" fk
		err_like '\<fake\>.*\<unreachable\>' "answer '$r', -v: fake unreachable"
		exit_is 3 "answer '$r': unreachable, policy skip: exit 3" "$CHECK" -n -c "$FK" fkskip
	done

	# --- a peer that accepts and never answers ---

	fake hang
	timed 0 "hanging peer, policy run, -n (timeout 1s): go" "$CHECK" -nv -c "$T/ahang.conf" fk
	num_between "$MS" 0 5000 "hanging peer, -n: done within 5 s"
	err_like '\<fake\>.*\<unreachable\>' "hanging peer: unreachable"
	timed 3 "hanging peer, policy skip: exit 3" "$CHECK" -n -c "$T/ahang.conf" fkskip
	num_between "$MS" 0 5000 "hanging peer, policy skip: done within 5 s"
	fake hang
	RETRY_RESET="fake hang"
	if settled 0 "hanging peer, claim and settle: go" "$CHECK" -c "$T/ahang.conf" fk; then
		num_between "$MS" 0 8000 "hanging peer, two rounds: done within 8 s"
		is "$(nreq)" 2 "hanging peer, settle: asked twice"
	else
		skip "no go" 2
	fi
	rm -f "$T/a.state/fk"

	# --- how many rounds ---

	fake idle
	RETRY_RESET="fake idle"
	settled 0 "settle = 200ms: go" "$CHECK" -c "$FK" fk &&
	    is "$(nreq)" 2 "settle = 200ms: two rounds, two requests" ||
	    skip "no go" 1
	rm -f "$T/a.state/fk"
	fake idle
	exit_is 0 "settle = 0: go" "$CHECK" -c "$T/afake0.conf" fk
	is "$(nreq)" 1 "settle = 0: one round, one request"
	rm -f "$T/a.state/fk"

	# --- round 2 ---

	age a 30000 fk
	cp "$T/a.state/fk" "$T/fk.saved"
	fake seq:idle:active
	exit_is 1 "round 2: peer active 5s ago (before our claim): withdraw, exit 1" \
	    "$CHECK" -v -c "$FK" fk
	err_like 'withdraw' "round 2 active: -v says withdraw"
	assert "withdrawn: the old record is back, byte for byte" \
	    cmp -s "$T/fk.saved" "$T/a.state/fk"
	rm -f "$T/a.state/fk"
	fake seq:idle:active
	exit_is 1 "round 2 active, no record before: exit 1" "$CHECK" -c "$FK" fk
	assert "withdrawn: no record, as before" test ! -e "$T/a.state/fk"
	fake seq:idle:zero
	RETRY_RESET="fake seq:idle:zero"
	settled 0 "round 2: peer active after our claim, sorting after a: keep" \
	    "$CHECK" -v -c "$FK" fk &&
	    err_like 'keep' "-v says keep" || skip "no go" 1
	rm -f "$T/a.state/fk"

	age a 30000 fk
	cp "$T/a.state/fk" "$T/fk.saved"
	fake seq:idle:hello
	RETRY_RESET="fake seq:idle:hello"
	settled 76 "round 2 invalid: withdraw, exit 76" "$CHECK" -c "$FK" fk
	err_like '(^|[^a-z])fake([^a-z]|$)' "round 2 invalid: names the peer"
	assert "round 2 invalid: the old record is back" cmp -s "$T/fk.saved" "$T/a.state/fk"
	# A peer that answered round 1 and not round 2 may have claimed in
	# between, unseen: the claim is withdrawn (exit 1), whatever the
	# policy, and what was there before is back.
	fake seq:idle:s500
	RETRY_RESET="fake seq:idle:s500"
	settled 1 "round 2 unreachable, policy skip: withdraw, exit 1" "$CHECK" -v -c "$FK" fkskip
	# Exit 1 is also a withdrawal as too slow (a busy machine, valgrind):
	# then the reason is that, and not the peer.
	if grep -qE 'too (long|slow)' "$T/err"; then
		skip "round 2 unreachable: withdrawn as too slow to order instead (busy machine)"
	else
		err_like 'withdrawn.*fake|fake.*withdrawn' "round 2 unreachable: the warning names the peer"
	fi
	assert "round 2 unreachable: no record, as before" test ! -e "$T/a.state/fkskip"
	fake seq:idle:s500
	RETRY_RESET="fake seq:idle:s500"
	settled 1 "round 2 unreachable, policy run: withdraw, exit 1" "$CHECK" -c "$FK" fk
	assert "round 2 unreachable, run: the old record is back" cmp -s "$T/fk.saved" "$T/a.state/fk"
	rm -f "$T/a.state/fk"

	# A claim at the same moment as ours by a peer that shows no status
	# (0.3, or a proxy): it may decide by 0.3's rule, and it cannot be
	# waited for, so this node withdraws whichever name sorts first
	# (doc/SAFETY.md). The fake answers the time since a's own claim;
	# settle 2s leaves 500ms for the order.
	fakeconf "$T/atie.conf" 2s
	for pc in 0p:tie1 A0:tie0 zz:tiez; do
		p=${pc%:*} c=${pc#*:}
		fake tie
		exit_is 1 "claim at the same moment by $p (no status): withdraw" \
		    "$CHECK" -v -c "$T/atie.conf" "$c"
		err_like 'withdraw' "tie, $p: -v says withdraw"
		err_like "\\<$p\\>" "tie, $p: -v names $p"
		assert "tie, $p: no record left" test ! -e "$T/a.state/$c"
	done

	# --- HTTPS: the certificate and host are verified ---

	TLS_OK=0
	if command -v openssl >/dev/null 2>&1 &&
	    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	    -addext subjectAltName=IP:127.0.0.1 -keyout "$T/tls.key" \
	    -out "$T/tls.crt" >/dev/null 2>&1; then
		cat "$T/tls.key" "$T/tls.crt" >"$T/tls.pem"
		bg tls socat -d -d \
		    OPENSSL-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,cert="$T/tls.pem",verify=0 \
		    EXEC:"$T/fake.sh"
		listen_port tls TP_ && TLS_OK=1
	fi
	if [ "$TLS_OK" = 1 ]; then
		cat >"$T/atls.conf" <<EOF
[pollguard]
node = a
state = $T/a.state
settle = 0
# generous: a TLS handshake under valgrind (make check-valgrind) is slow
timeout = 20s
connect_timeout = 10s
[peer good]
url = https://127.0.0.1:$TP_/
cafile = $T/tls.crt
[peer noca]
url = https://127.0.0.1:$TP_/
[peer wronghost]
url = https://localhost:$TP_/
cafile = $T/tls.crt
[cluster tlsok]
wait = 12s
peers = good
[cluster tlsnoca]
wait = 12s
peers = noca
unreachable = skip
[cluster tlshost]
wait = 12s
peers = wronghost
unreachable = skip
EOF
		chmod 600 "$T/atls.conf"
		fake active
		exit_is 1 "https, cafile with the peer's certificate: answer read (active: exit 1)" \
		    "$CHECK" -n -c "$T/atls.conf" tlsok
		fake active
		exit_is "3|76" "https, certificate not trusted: not used (exit 3 or 76, not 1)" \
		    "$CHECK" -nv -c "$T/atls.conf" tlsnoca
		err_like '\<noca\>' "https, certificate not trusted: names the peer"
		is "$(nreq)" 0 "https, certificate not trusted: no request sent"
		fake active
		exit_is "3|76" "https, host not in the certificate: not used (exit 3 or 76, not 1)" \
		    "$CHECK" -nv -c "$T/atls.conf" tlshost
		err_like '\<wronghost\>' "https, wrong host: names the peer"
		is "$(nreq)" 0 "https, wrong host: no request sent"
	else
		skip "openssl or socat's OPENSSL-LISTEN not usable" 7
	fi
fi

# --- too slow to order: stopped during the settle sleep ---

# horizon = 2 x 100ms + 1.5 x 2s + 1s = 4200 ms; stopped for 5 s during
# the settle sleep (1 to 2 s) it is past it when round 2 ends: withdraw.
# Its only peer is the dead one: live peers announce the fast rule (no
# sleep) and other settings (exit 76).
nodeconf a 2s 100ms 100ms "$T/aslow.conf"
sed -i '/^\[cluster mail\]/,/^peers/s/^peers = .*/peers = dead/' "$T/aslow.conf"
norec a b c
age a 30000
cp "$T/a.state/mail" "$T/a.saved"
bg slow "$CHECK" -v -c "$T/aslow.conf" mail
SLOWPID=$BGPID
if wait_for 10 has_claim "$T/a.state/mail"; then
	kill -STOP "$SLOWPID"
	sleep 5
	kill -CONT "$SLOWPID"
	wait_exit "$SLOWPID" 20
	is "$?" 1 "stopped past the horizon during the settle: withdraw, exit 1"
	if grep -q withdraw "$T/slow.err"; then
		ok "too slow: -v says withdraw"
	else
		not_ok "too slow: -v says withdraw"
		diag_file "$T/slow.err" stderr
	fi
	assert "too slow: the old record is back" cmp -s "$T/a.saved" "$T/a.state/mail"
else
	kill -CONT "$SLOWPID" 2>/dev/null
	wait_exit "$SLOWPID" 20 >/dev/null
	not_ok "the claim (7 fields) appeared while settling"
	diag_file "$T/slow.err" stderr
	skip "no claim seen" 2
fi
norec a b c

# --- two nodes at the same instant: the loser restores its record ---

# a and b, released together through a FIFO each one reads one byte from
# (the test holds it open for writing, so none of them sees its end).
withdrawals=0 winners_two=0 bad_restore=0 attempts=0
for i in 1 2 3 4 5 6 7 8; do
	attempts=$i
	if [ $((i % 2)) -eq 1 ]; then
		age a 20000
		age b 20000
		cp "$T/a.state/mail" "$T/a.before"
		cp "$T/b.state/mail" "$T/b.before"
	else
		norec a b
		rm -f "$T/a.before" "$T/b.before"
	fi
	fifo=$T/go.$i
	mkfifo "$fifo"
	exec 7<>"$fifo"
	rm -f "$T"/race.*.ready
	pids=()
	for n in a b; do
		bg "race$n" bash -c 'exec 7>&-; : >"$1"; IFS= read -r -n 1 _ <"$2"; shift 2; exec "$@"' \
		    racer "$T/race.$n.ready" "$fifo" "$CHECK" -v -c "$T/$n.conf" mail
		pids+=("$BGPID")
	done
	wait_for 10 test -e "$T/race.a.ready" -a -e "$T/race.b.ready"
	printf xx >&7
	rcs=()
	for p in "${pids[@]}"; do
		wait_exit "$p" 30
		rcs+=("$?")
	done
	exec 7>&-
	rm -f "$fifo"
	won=0
	for j in 0 1; do
		n=$([ "$j" -eq 0 ] && echo a || echo b)
		rc=${rcs[$j]}
		[ "$rc" -eq 0 ] && won=$((won + 1))
		if [ "$rc" -eq 1 ]; then
			grep -q withdraw "$T/race$n.err" && withdrawals=$((withdrawals + 1))
			if [ -e "$T/$n.before" ]; then
				cmp -s "$T/$n.before" "$T/$n.state/mail" || {
					bad_restore=$((bad_restore + 1))
					diag "attempt $i: $n lost, its record is not what it was"
					diag_file "$T/$n.state/mail" "$n record"
					diag_file "$T/$n.before" "$n before"
				}
			elif [ -e "$T/$n.state/mail" ]; then
				bad_restore=$((bad_restore + 1))
				diag "attempt $i: $n lost, had no record, now has one"
				diag_file "$T/race$n.err" "$n stderr"
			fi
		elif [ "$rc" -ne 0 ]; then
			diag "attempt $i: $n exit $rc"
			diag_file "$T/race$n.err" "$n stderr"
		fi
	done
	[ "$won" -ge 2 ] && winners_two=$((winners_two + 1))
	[ "$won" -ge 2 ] && { diag_file "$T/racea.err" "a"; diag_file "$T/raceb.err" "b"; }
	norec a b
	[ "$withdrawals" -ge 3 ] && break
done
diag "a and b at the same instant: $attempts attempts, $withdrawals withdrawals"
is "$bad_restore" 0 "every withdrawal put the loser's record back as it was (or none)"
is "$winners_two" 0 "never both a and b went"
if [ "$withdrawals" -gt 0 ]; then
	ok "a withdrawal happened ($withdrawals)"
else
	skip "no withdrawal in $attempts attempts: one always saw the other's claim first"
fi

# --- the serves ---

for s in sa sb sc; do
	if grep -q 'reload failed' "$T/$s.err"; then
		not_ok "serve $s: SIGHUP reloaded the config"
		diag_file "$T/$s.err"
	else
		ok "serve $s: no failed reload"
	fi
done
for p in "$SA" "$SB" "$SC"; do
	serve_stop "$p"
	is "$?" 0 "serve $p: SIGTERM, exit 0"
done

finish
