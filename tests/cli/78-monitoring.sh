#!/bin/bash
# SPDX-License-Identifier: ISC
# Monitoring where cron users look. Pings: a cluster with ping = URL,
# against HTTP servers on loopback (socat): one that records what it
# hears, one that accepts and never answers, one that refuses; start and
# end with one run ID, 124 for the runtime limit, 128+N for a signal,
# nothing from a node that skips or a run that does not start, a bounded
# delay, a warning for a failed ping and the job's own exit status, a
# round of the crontab line on two nodes with one start and end; and
# pollguard-touch without a ping linking no libcurl. The plugin:
# pollguard-status -p against three nodes on loopback in each of its
# states, its line in the form of the Monitoring Plugins guidelines, and
# under a real Icinga 2 (etc/icinga2/pollguard.conf) when it is installed.
. "${PG_TOP:-.}/tests/lib.sh"

STATUS=$PG_BIN/pollguard-status
CTOUCH=$PG_BIN/pollguard-touch-curl
for b in "$STATUS" "$CTOUCH"; do
	[ -x "$b" ] || bail "$b is not built (run make)"
done
command -v socat >/dev/null 2>&1 || bail "socat is not installed (scripts/deps installs it)"

NL=$'\n'
PINGS=$T/pings
: >"$PINGS"

# The recording server: for each request, "MS REQUEST-LINE" in $PINGS;
# 200, or 404 for a path under /missing.
cat >"$T/sink.sh" <<EOF
#!/bin/bash
IFS= read -r -t 5 line || exit 0
while IFS= read -r -t 5 l && [ -n "\${l%\$'\r'}" ]; do :; done
line=\${line%\$'\r'}
printf '%s %s\n' "\$(date +%s%3N)" "\$line" >>"$PINGS"
case \$line in
"GET /missing"*) printf 'HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\nConnection: close\r\n\r\nnot found\n' ;;
*) printf 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK' ;;
esac
EOF
chmod 755 "$T/sink.sh"
bg sink socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork EXEC:"$T/sink.sh"
listen_port sink SINK || bail "the recording server (socat) did not start"
# The hung one accepts and reads, and never answers; its reader ends
# when the client hangs up.
bg hung socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork \
    SYSTEM:'exec cat >/dev/null'
listen_port hung HUNG || bail "the hung server (socat) did not start"
# The refusing one: a port that was just free, and is again.
bg gone socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr OPEN:/dev/null
listen_port gone GONE || bail "socat did not start"
stop_pids "$BGPID"

mkconf <<EOF
[cluster mail]
wait = 10s
ping = http://127.0.0.1:$SINK/ping/abc/
[cluster hung]
wait = 10s
ping = http://127.0.0.1:$HUNG/ping/h
ping_timeout = 1s
[cluster hung5]
wait = 10s
ping = http://127.0.0.1:$HUNG/ping/h5
[cluster refused]
wait = 10s
ping = http://127.0.0.1:$GONE/ping/r
[cluster missing]
wait = 10s
ping = http://127.0.0.1:$SINK/missing/m
[cluster quiet]
wait = 10s
EOF

# The default bound, 5s for each ping, in the background meanwhile: the
# job starts 5s late, and pollguard-touch ends 5s after it.
T5=$(now_ms)
bg hung5 "$TOUCH" -c "$CONF" hung5 -- sh -c "date +%s%3N >$T/hung5.start"
HUNG5=$BGPID

# pings PATTERN: the request lines heard whose path matches, in order.
pings()
{
	cut -d ' ' -f 3 "$PINGS" | grep -E -- "$1"
}

RID='[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'

# --- pings ---

exit_is 0 "a run: the job's status" "$TOUCH" -c "$CONF" mail -- \
    sh -c "echo \"\$(date +%s%3N) GET /job\" >>$PINGS"
err_empty "a run: nothing on stderr"
is "$(cut -d ' ' -f 3 "$PINGS" | sed -E "s/$RID/RID/")" \
    "/ping/abc/start?rid=RID
/job
/ping/abc/0?rid=RID" "a run: URL/start, then the job, then URL/0"
is "$(grep -v ' /job$' "$PINGS" | cut -d ' ' -f 2,4 | sort -u)" "GET HTTP/1.1" \
    "a run: GETs of HTTP/1.1"
r1=$(pings '^/ping/abc/' | sed 's/.*rid=//' | sort -u)
is "$(printf '%s\n' "$r1" | wc -l)" 1 "a run: one run ID for start and end"

: >"$PINGS"
exit_is 3 "exit 3: the job's status" "$TOUCH" -c "$CONF" mail -- sh -c 'exit 3'
is "$(pings '^/ping/abc/' | sed -E "s/$RID/RID/" | tr '\n' ' ')" \
    "/ping/abc/start?rid=RID /ping/abc/3?rid=RID " "exit 3: URL/3"
r2=$(pings '^/ping/abc/' | sed 's/.*rid=//' | sort -u)
[ "$r1" != "$r2" ] && [ -n "$r2" ]
is "$?" 0 "another run, another run ID"

: >"$PINGS"
exit_is 124 "the runtime limit: 124" "$TOUCH" -c "$CONF" -t 500ms mail -- sleep 10
is "$(pings '^/ping/abc/[0-9]')" "$(pings '^/ping/abc/124\?rid=')" \
    "the runtime limit: URL/124"
is "$(pings '^/ping/abc/' | wc -l)" 2 "the runtime limit: start and end"

: >"$PINGS"
exit_is 143 "killed by SIGTERM: 143" "$TOUCH" -c "$CONF" mail -- sh -c 'kill -TERM $$'
is "$(pings '^/ping/abc/[0-9]' | sed 's/?.*//')" "/ping/abc/143" \
    "killed by SIGTERM: URL/143"
: >"$PINGS"
exit_is 137 "killed by SIGKILL: 137" "$TOUCH" -c "$CONF" mail -- sh -c 'kill -KILL $$'
is "$(pings '^/ping/abc/[0-9]' | sed 's/?.*//')" "/ping/abc/137" \
    "killed by SIGKILL: URL/137"
: >"$PINGS"
exit_is 127 "a command not found: 127" "$TOUCH" -c "$CONF" mail -- /nonexistent/job
is "$(pings '^/ping/abc/[0-9]' | sed 's/?.*//')" "/ping/abc/127" \
    "a command not found: URL/127"

# No run, no ping: a run still going (75), a record, a filter, a hold.
: >"$PINGS"
"$PGSTATE" -c "$CONF" lock mail 1 >/dev/null &
LOCKER=$!
if wait_for 5 lock_held mail; then
	exit_is 75 "a run still going: 75" "$TOUCH" -c "$CONF" mail -- true
else
	not_ok "pgstate holds the run lock"
fi
wait "$LOCKER"
exit_is 0 "a record" "$TOUCH" -c "$CONF" mail
exit_is 0 "a filter" sh -c "echo data | '$TOUCH' -f -c '$CONF' mail"
exit_is 0 "a hold" "$TOUCH" -c "$CONF" -H 1m mail
exit_is 0 "a hold lifted" "$TOUCH" -c "$CONF" -H 0 mail
is "$(wc -l <"$PINGS")" 0 "no run started: nothing pinged"

# A ping that fails is a warning, whatever stderr is; the job's status
# stays its own.
exit_is 1 "refused: the job's status" "$TOUCH" -c "$CONF" refused -- false
err_like "^pollguard-touch: refused: the ping of the run's start to 127\.0\.0\.1:$GONE failed: .*onnect" \
    "refused: a warning for the start"
err_like "^pollguard-touch: refused: the ping of the run's end \(1\) to 127\.0\.0\.1:$GONE failed" \
    "refused: a warning for the end"
exit_is 0 "404: the job's status" "$TOUCH" -c "$CONF" missing -- true
err_has "missing: the ping of the run's start to 127.0.0.1:$SINK failed: HTTP status 404" \
    "404: a warning, naming the status"
err_lacks "/missing/m" "the warning names the host, not the path"

t0=$(now_ms)
exit_is 0 "hung, ping_timeout = 1s: the job's status" "$TOUCH" -c "$CONF" hung -- \
    sh -c "date +%s%3N >$T/hung.start"
t1=$(now_ms)
# Slack for what is not the pings: 1.5 s; 10 s in a slow build (ASan or
# memcheck at load took 8.3 s to the job's start once).
slack=1500
[ "$PG_SLOW" -gt 1 ] && slack=10000
num_between "$(($(cat "$T/hung.start" 2>/dev/null || echo 0) - t0))" 900 $((1000 + slack)) \
    "hung: the job starts after the start ping's 1s"
num_between "$((t1 - t0))" 1800 $((2500 + 2 * slack)) "hung: two pings of 1s each, no more"
is "$(grep -c 'timed out' "$T/err")" 2 "hung: two warnings"

# pollguard-touch itself links no libcurl, and hands a cluster with a
# ping to pollguard-touch-curl: a copy without one beside it, built to
# look in a libexec directory that does not have it, runs a cluster
# without a ping and refuses one with (69).
if ldd "$TOUCH" 2>/dev/null | grep -q libcurl; then
	not_ok "pollguard-touch links no libcurl"
else
	ok "pollguard-touch links no libcurl"
fi
mkdir "$T/lone"
cp "$TOUCH" "$T/lone/pollguard-touch"
lx=$(strings "$TOUCH" | grep -m1 '/pollguard-touch-curl$')
if [ -n "$lx" ] && [ ! -e "$lx" ]; then
	exit_is 0 "no ping: runs without pollguard-touch-curl" \
	    "$T/lone/pollguard-touch" -c "$CONF" quiet -- true
	exit_is 69 "a ping, no pollguard-touch-curl: 69" \
	    "$T/lone/pollguard-touch" -c "$CONF" mail -- true
	err_has "the cluster has a ping, but $lx" "69: says why"
else
	skip "$lx exists (pollguard is installed): cannot test its absence" 3
fi

# The ping's own keys.
conf_err()
{
	printf '[cluster x]\nwait = 10s\n%s\n' "$1" | mkconf "$T/bad.conf"
	exit_is 78 "$2: exit 78" "$TOUCH" -c "$T/bad.conf" x -- true
	err_has "$3" "$2: the message"
}
conf_err "ping = ftp://h/x" "ping ftp://" "bad.conf:6: ping: 'ftp://h/x': does not start with http:// or https://"
conf_err "ping = https://h/x?y=1" "ping with a query" "bad.conf:6: ping: 'https://h/x?y=1': a query or fragment"
conf_err "ping = https://u:s3cret@h/x" "ping with user information" \
    "bad.conf:6: ping: 'https://...@h/x': user information (user@), not shown; a ping sends no credentials"
# Neither the password nor keys that [cluster] does not have (issue 33).
if grep -q 's3cret' "$T/err" || grep -q 'user and password' "$T/err"; then
	not_ok "ping with user information: the message shows no password, names no user or password key"
	diag_file "$T/err" stderr
else
	ok "ping with user information: the message shows no password, names no user or password key"
fi
conf_err "ping = ftp://u:s3cret@h/x" "ping ftp:// with user information" \
    "bad.conf:6: ping: 'ftp://...@h/x': does not start with http:// or https://"
conf_err "ping_timeout = 6s" "ping_timeout 6s" "bad.conf:6: ping_timeout: 6s is too large (maximum 5s)"
conf_err "ping_timeout = 50ms" "ping_timeout 50ms" "bad.conf:6: ping_timeout: 50ms is too small (minimum 100ms)"
conf_err "ping = http://a/$NL""ping = http://b/" "ping twice" "bad.conf:7: 'ping' set twice"

# --- the plugin ---

# The guidelines' line: "POLLGUARD STATE - text | perfdata", one line,
# no '|' in the text, each perfdata item 'label'=value[UOM];w;c;min;max.
plugin_line()
{
	local l item
	[ "$(wc -l <"$T/out")" = 1 ] || return 1
	l=$(cat "$T/out")
	[[ $l =~ ^POLLGUARD\ (OK|WARNING|CRITICAL|UNKNOWN)\ -\ [^|]+(\ \|\ (.*))?$ ]] ||
	    return 1
	[ "${BASH_REMATCH[1]}" = "$1" ] || return 1
	for item in ${BASH_REMATCH[3]}; do
		[[ $item =~ ^\'[a-z_]+\'=(U|[0-9]+(\.[0-9]+)?s?)(\;[0-9.]*){0,4}$ ]] ||
		    return 1
	done
}

# plugin WANT STATE DESC ARGS...: exit WANT and a well-formed line.
plugin()
{
	local want=$1 state=$2 desc=$3
	shift 3
	exit_is "$want" "$desc: exit $want" "$STATUS" -p "$@"
	if plugin_line "$state"; then
		ok "$desc: POLLGUARD $state, one well-formed line"
	else
		not_ok "$desc: POLLGUARD $state, one well-formed line"
		diag_file "$T/out" stdout
	fi
}

out_has()
{
	if grep -qE -- "$1" "$T/out"; then
		ok "$2"
	else
		not_ok "$2"
		diag "no match: $1"
		diag_file "$T/out" stdout
	fi
}

fleet_start "timeout = 2s" a b c
CA=$T/a.conf

plugin 0 OK "nobody ever ran, just configured" -c "$CA" mail
out_has "^POLLGUARD OK - mail: no success yet, in the [0-9.]+m?s known; 3 of 3 nodes answer \| 'since_success'=U;120;180;0 'failures'=0;2;;0 'reachable'=3;;;0;3 'running'=0;;1;0;3$" \
    "the whole line: U, thresholds 2 and 3 x wait, 3 of 3"

"$TOUCH" -c "$T/b.conf" mail -- true
plugin 0 OK "b succeeded" -c "$CA" mail
out_has "^POLLGUARD OK - mail: last success [0-9.]+m?s ago on b; 3 of 3 nodes answer \| 'since_success'=[0-9]+(\.[0-9]+)?s;120;180;0 " \
    "the last success, on b"

# A hold on c.
"$TOUCH" -c "$T/c.conf" -H 1h -m "disk swap | soon" mail
plugin 1 WARNING "a hold on c" -c "$CA" mail
out_has "^POLLGUARD WARNING - mail: held on c, (59m[0-9.]*s|1h) left; last success" "the hold"

# Under Icinga 2, as the example defines the check: it runs the plugin
# and reads the state, the text and the perfdata (Debian's icinga2-bin;
# a daemon of the test's own, with its own directories).
icinga()
{
	local d=$T/icinga s
	mkdir -p "$d/cache" "$d/lib" "$d/run" "$d/log" "$d/spool"
	sed "s|/usr/local/bin/pollguard-|$PG_BIN/pollguard-|g" \
	    "$PG_TOP/etc/icinga2/pollguard.conf" >"$d/pollguard.conf"
	cat >"$d/main.conf" <<EOF
include "$d/pollguard.conf"
object CheckCommand "none" { command = [ "/bin/true" ] }
object Host "a" {
	check_command = "none"
	enable_active_checks = false
	vars.pollguard_clusters = [ "mail" ]
	vars.pollguard_config = "$CA"
}
object Service "now" {
	host_name = "a"
	check_command = "pollguard"
	vars.pollguard_cluster = "mail"
	check_interval = 1s
}
object CheckerComponent "checker" { }
object PerfdataWriter "perfdata" {
	service_perfdata_path = "$d/spool/perf"
	service_temp_path = "$d/spool/perf.tmp"
	host_perfdata_path = "$d/spool/host"
	host_temp_path = "$d/spool/host.tmp"
	rotation_interval = 1s
	service_format_template = "\$service.name\$|\$service.state\$|\$service.state_id\$|\$service.output\$|\$service.perfdata\$"
}
EOF
	ICINGA_D=(-DRunAsUser="$(id -un)" -DRunAsGroup="$(id -gn)"
	    -DDataDir="$d/lib" -DCacheDir="$d/cache" -DInitRunDir="$d/run"
	    -DLogDir="$d/log" -DSpoolDir="$d/spool")
	exit_is 0 "icinga2 daemon -C accepts the example" \
	    icinga2 daemon -C -c "$d/main.conf" "${ICINGA_D[@]}"
	out_has "Instantiated 2 Services" \
	    "icinga2: the example's apply rule makes a service of vars.pollguard_clusters"
	bg icinga icinga2 daemon -c "$d/main.conf" "${ICINGA_D[@]}"
	ICINGA=$BGPID
	if wait_for 30 sh -c "cat '$d'/spool/perf* 2>/dev/null | grep -q '^now|'"; then
		s=$(cat "$d"/spool/perf* | grep -m1 '^now|')
		ok "icinga2 ran the check"
		is "$(echo "$s" | cut -d '|' -f 2,3)" "WARNING|1" \
		    "icinga2: WARNING, state 1"
		is "$(echo "$s" | cut -d '|' -f 4 | numbers)" \
		    "$(sed 's/ |.*//' "$T/icinga.want" | numbers)" \
		    "icinga2: the text (its times as N)"
		is "$(echo "$s" | cut -d '|' -f 5 | grep -o "reachable=[^ ]*")" \
		    "reachable=3;;;0;3" "icinga2: the perfdata"
	else
		not_ok "icinga2 ran the check"
		diag_file "$T/icinga.err" "icinga2"
		skip "no check result" 3
	fi
	# Its workers are its children: each gets SIGTERM.
	stop_pids "$ICINGA"
}
# numbers: times move on between two runs of the plugin; Icinga keeps
# the blank before the '|'.
numbers()
{
	sed -E 's/[0-9][0-9hms.]*/N/g; s/ *$//'
}
if command -v icinga2 >/dev/null 2>&1; then
	"$STATUS" -p -c "$CA" mail >"$T/icinga.want"
	icinga
else
	skip "icinga2 is not installed (scripts/deps installs icinga2-bin)" 6
fi
"$TOUCH" -c "$T/c.conf" -H 0 mail

# Older than -w, older than -C; and a cluster of a alone that nobody
# ever runs, configured now.
printf '[cluster never]\nwait = 10s\npeers =\n' >>"$CA"
NEVER_AT=$(now_ms)
"$TOUCH" -c "$T/b.conf" mail -- true

# since FROM_MS: a regex of the seconds since FROM_MS (a now_ms), as
# pollguard-status writes them ("2.2s", "3s"; "2.204s" in the perfdata),
# 2 s at least: 2.2 s were waited for, and a loaded machine takes longer
# over the checks in between (half a second spare: FROM_MS is taken
# around the moment that counts). NEVER_AT is before the success too.
since()
{
	local n=$((($(now_ms) - $1 + 500) / 1000)) i re=2
	for ((i = 3; i <= n; i++)); do
		re+="|$i"
	done
	echo "($re)(\.[0-9]+)?s"
}
sleep 2.2
plugin 1 WARNING "a success 2.2s ago, -w 1s" -w 1s -c "$CA" mail
out_has "last success $(since "$NEVER_AT") ago on b \(warning: 1s\); 3 of 3 nodes answer \| 'since_success'=$(since "$NEVER_AT");1;180;0 " \
    "older than -w: the text and the thresholds"
plugin 2 CRITICAL "a success 2.2s ago, -C 2s" -w 1s -C 2s -c "$CA" mail
out_has "last success $(since "$NEVER_AT") ago on b \(critical: 2s\)" "older than -C"
plugin 2 CRITICAL "-C alone, below the default -w" -C 2s -c "$CA" mail
out_has "'since_success'=$(since "$NEVER_AT");2;2;0 " "-C alone: -w is at most -C"
plugin 0 OK "-w alone, above the default -C" -w 200s -c "$CA" mail
out_has "'since_success'=$(since "$NEVER_AT");200;200;0 " "-w alone: -C is at least -w"

# Never a success, older than -C by this node's configuration.
while [ $(($(now_ms) - NEVER_AT)) -lt 2200 ]; do sleep 0.1; done
plugin 2 CRITICAL "never a success, configured 2s ago, -C 2s" -w 1s -C 2s -c "$CA" never
out_has "^POLLGUARD CRITICAL - never: no success in the $(since "$NEVER_AT") known \(critical: 2s\); 1 of 1 nodes answer \| 'since_success'=U;1;2;0 " \
    "never: the age known, U"
plugin 0 OK "never a success, 10s thresholds" -c "$CA" never

# Failed 3 runs in a row on c.
for i in 1 2 3; do
	"$TOUCH" -c "$T/c.conf" mail -- false
done
plugin 1 WARNING "c failed 3 runs in a row" -c "$CA" mail
out_has "WARNING - mail: c failed 3 runs in a row; last success .* 'failures'=3;2;;0 " \
    "who failed, and the perfdata"
"$TOUCH" -c "$T/c.conf" mail -- true

# Two nodes run the job at once (pollguard-touch asks nobody).
bg runa "$TOUCH" -c "$CA" mail -- sleep 2
RUNA=$BGPID
bg runb "$TOUCH" -c "$T/b.conf" mail -- sleep 2
RUNB=$BGPID
if wait_for 5 lock_held mail "$T/a.state" && wait_for 5 lock_held mail "$T/b.state"; then
	plugin 2 CRITICAL "a and b run at once" -c "$CA" mail
	out_has "^POLLGUARD CRITICAL - mail: runs on 2 nodes at once: a, b; " "who runs"
	out_has "'running'=2;;1;0;3$" "running: 2"
else
	not_ok "a and b run at once"
fi
wait_exit "$RUNA" 10
wait_exit "$RUNB" 10

# A round as the crontab line runs it, on a and then on b: a goes and
# pings, b's check skips and nothing runs there, so nothing is pinged.
for n in a b c; do
	printf '[cluster round]\nwait = 60s\npeers = a, b, c\nping = http://127.0.0.1:%s/round\n' \
	    "$SINK" >>"$T/$n.conf"
	kill -HUP "${FLEET_SPID[$n]}"
done
knows_round()
{
	local n
	for n in a b c; do
		curl -sf -o /dev/null "http://127.0.0.1:${FLEET_PORT[$n]}/v1/elapsed/round" ||
		    return 1
	done
}
wait_for 10 knows_round || diag "the serves did not reread their configs"
: >"$PINGS"
for n in a b; do
	sh -c "'$CHECK' -c '$T/$n.conf' round && '$TOUCH' -c '$T/$n.conf' round -- true"
	echo "$n $?" >>"$T/round"
done
is "$(cat "$T/round" | tr '\n' ' ')" "a 0 b 1 " "a round: a runs the job, b skips"
is "$(pings '^/round/' | sed 's/?.*//' | tr '\n' ' ')" "/round/start /round/0 " \
    "a round: one start and one end, from a; nothing from b"

# A node stopped, then this node's serve.
serve_stop "${FLEET_SPID[c]}"
plugin 1 WARNING "c stopped" -c "$CA" mail
out_has "WARNING - mail: c does not answer \(.*\); last success .* 2 of 3 nodes answer \|" \
    "c does not answer"
out_has "'reachable'=2;;;0;3" "reachable: 2 of 3"
serve_stop "${FLEET_SPID[a]}"
plugin 1 WARNING "this node's serve stopped" -c "$CA" mail
out_has "the serve of a \(this node\) does not answer \(.*\); .* 1 of 3 nodes answer" \
    "this node's serve does not answer"

# UNKNOWN: it cannot tell.
plugin 3 UNKNOWN "no such file" -c "$T/nosuch.conf" mail
plugin 3 UNKNOWN "no such cluster" -c "$CA" nosuch
out_has "no \[cluster nosuch\]" "no such cluster: says so"
plugin 3 UNKNOWN "an invalid cluster ID" -c "$CA" ../x
plugin 3 UNKNOWN "-w above -C" -w 10m -C 5m -c "$CA" mail
plugin 3 UNKNOWN "-w 0" -w 0 -c "$CA" mail
plugin 3 UNKNOWN "-C 100d" -C 100d -c "$CA" mail
plugin 3 UNKNOWN "no cluster" -c "$CA"
err_has "usage: pollguard-status [-j]" "no cluster: the usage on stderr"
plugin 3 UNKNOWN "an unknown option" -x -c "$CA" mail
plugin 3 UNKNOWN "-j with -p" -j -c "$CA" mail
exit_is 64 "-w without -p: a usage error" "$STATUS" -w 1m -c "$CA" mail
echo junk >"$T/a.state/mail"
plugin 3 UNKNOWN "this node's record damaged" -c "$CA" mail
out_has "a \(this node\): its state record $T/a.state/mail is not valid" "says which"

# The default bound: the job started 5s late at most, and ran.
wait_exit "$HUNG5" 20
is "$?" 0 "hung, the default ping_timeout: the job's status"
num_between "$(($(cat "$T/hung5.start" 2>/dev/null || echo 0) - T5))" 4500 $((5000 + 1500 * PG_SLOW)) \
    "hung, the default: the job starts after the start ping's 5s"
finish
