#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-serve standalone under load. A thousand connections at once,
# half of them silent, half trickling a byte every 200 ms: serve with
# max_connections = 256 holds at most 256, answers the others 503 at
# once, answers every held one 408 at its deadline (trickling does not
# extend it), logs the first refusal of each kind (the rest counted), and
# a pollguard-check asking it meanwhile ends within its own bounds. Below the
# limit, slow clients do not keep a check from its answer. Under a low
# soft open file limit the limit of 256 still holds. A listen queue of
# backlog = 4, full while serve is stopped: the kernel holds 5, and every
# client gets in once serve runs again. Then 100,000 requests
# one after another, good and bad ones mixed: no growth in open
# descriptors or resident memory.
#
# The check times are printed, not asserted (timing is for benchmarks):
# "median N ms".
#
# PG_LOAD_REQUESTS: the sequential requests (100000); PG_LOAD_SECONDS:
# their time budget (120 s), after which the count done is reported.
#
# pg-test: serial (it loads the machine, and asserts deadlines)
. "${PG_TOP:-.}/tests/lib.sh"

FLOOD=${PG_BUILD:-$PG_TOP}/tests/connflood
[ -x "$FLOOD" ] || bail "$FLOOD is not built (make tests/connflood, or make check)"
REQUESTS=${PG_LOAD_REQUESTS:-100000}
BUDGET=${PG_LOAD_SECONDS:-120}
[[ $REQUESTS =~ ^[0-9]+$ ]] && [ "$REQUESTS" -gt 0 ] ||
    bail "PG_LOAD_REQUESTS must be a positive number"
[[ $BUDGET =~ ^[0-9]+$ ]] && [ "$BUDGET" -gt 0 ] ||
    bail "PG_LOAD_SECONDS must be a positive number"

CONN_MAX=256
TIMEOUT_MS=5000		# serve's deadline in the flood phases

# --- helpers --------------------------------------------------------------

# nfds PID: the number of descriptors the process has open.
nfds()
{
	local f n=0
	for f in /proc/"$1"/fd/*; do
		[ -e "$f" ] || [ -L "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# rss PID: its resident memory in kB.
rss()
{
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$1/status"
}

# field NAME FILE: the number after NAME in connflood's last line.
field()
{
	tail -n 1 "$2" | sed -n "s/.*\<$1 \(-\{0,1\}[0-9]*\).*/\1/p"
}

# median N...: the middle value.
median()
{
	printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"
}

# checks COUNT: run the check COUNT times, one after another; RCS holds
# the exit statuses (sorted, counted: "9x1"), MEDIAN the median time in ms.
checks()
{
	local i s e ms=()
	RCS_LIST=()
	for ((i = 0; i < $1; i++)); do
		s=$(now_ms)
		timeout -k 5 "$PG_CMD_TIMEOUT" "$CHECK" -n -c "$CC" mail \
		    >"$T/chk.out" 2>"$T/chk.err"
		RCS_LIST+=("$?")
		e=$(now_ms)
		ms+=($((e - s)))
		[ "${RCS_LIST[-1]}" -le 3 ] || diag_file "$T/chk.err" "check stderr"
	done
	RCS=$(printf '%s\n' "${RCS_LIST[@]}" | sort -n | uniq -c |
	    awk '{ printf "%s%dx%s", (NR > 1 ? " " : ""), $1, $2 }')
	MEDIAN=$(median "${ms[@]}")
	TIMES="${ms[*]}"
}

# flood_wait PID SERVEPID: wait for a connflood to end, sampling the
# serve's descriptors meanwhile; MAXFDS is the most seen.
flood_wait()
{
	local n
	MAXFDS=0
	while _pg_alive "$1"; do
		n=$(nfds "$2")
		[ "$n" -gt "$MAXFDS" ] && MAXFDS=$n
		sleep 0.02
	done
	wait_exit "$1" 5
}

# --- fixtures -------------------------------------------------------------

mkconf <<EOF
timeout = ${TIMEOUT_MS}ms
[cluster mail]
wait = 10m
[serve]
max_connections = $CONN_MAX
EOF
SCONF=$CONF
"$PGSTATE" -c "$SCONF" write mail 5000 || bail "pgstate write failed"
serve_start s "$SCONF" || bail "pollguard-serve did not start"
SPID=$SERVE_PID SPORT=$PORT

# The asking node: one peer, the serve; a skip when it cannot be reached,
# so that every exit status tells what the check saw: 1 the peer's answer
# (active 5 s ago), 3 unreachable (no connection in time, or 503).
mkdir -m 755 "$T/c.state"
cat >"$T/c.conf" <<EOF
[pollguard]
node = c
state = $T/c.state
[peer s]
url = http://127.0.0.1:$SPORT/
[cluster mail]
wait = 10m
unreachable = skip
EOF
chmod 600 "$T/c.conf"
CC=$T/c.conf

BASE=$(nfds "$SPID")
diag "serve PID $SPID on 127.0.0.1:$SPORT, $BASE descriptors open at rest"

# --- no load --------------------------------------------------------------

checks 9
is "$RCS" "9x1" "no load: 9 checks read the peer's answer (exit 1)"
diag "check without load: median $MEDIAN ms ($TIMES)"

# --- below the limit: 250 slow clients ------------------------------------

bg flood1 "$FLOOD" -f -n 250 -k 125 -t 60 127.0.0.1 "$SPORT"
FPID=$BGPID
if wait_for 30 grep -q '^connected' "$T/flood1.out" &&
    wait_for 10 eval '[ "$(nfds "$SPID")" -ge $((BASE + 250)) ]'; then
	ok "250 slow connections open in serve ($(nfds "$SPID") descriptors)"
	checks 9
	held=$(nfds "$SPID")
	if [ "$held" -ge $((BASE + 250)) ]; then
		is "$RCS" "9x1" "250 slow clients held: 9 checks still read the answer (exit 1)"
		diag "check beside 250 slow clients: median $MEDIAN ms ($TIMES)"
	else
		skip "the slow connections timed out before the checks ended (slow machine)"
	fi
else
	not_ok "250 slow connections open in serve"
	diag_file "$T/flood1.out" connflood
	diag "serve has $(nfds "$SPID") descriptors"
	skip "no load" 1
fi
flood_wait "$FPID" "$SPID"
diag "connflood: $(tail -n 1 "$T/flood1.out")"
is "$(field s408 "$T/flood1.out")" 250 "below the limit: all 250 answered 408 at the deadline"
is "$(field s408trickle "$T/flood1.out")" 125 "the 125 trickling ones too: a byte every 200 ms does not extend it"
t=$(field t408min "$T/flood1.out")
num_between "$t" $((TIMEOUT_MS - 5)) $((TIMEOUT_MS + 60000)) \
    "no 408 before the deadline (${t} ms after connect, timeout ${TIMEOUT_MS} ms)"
t=$(field t408max "$T/flood1.out")
num_between "$t" $((TIMEOUT_MS - 5)) $((TIMEOUT_MS + 10000)) \
    "the last 408 soon after the deadline (${t} ms after connect)"
wait_for 10 eval '[ "$(nfds "$SPID")" -eq "$BASE" ]'
is "$(nfds "$SPID")" "$BASE" "afterwards: serve's descriptors back to $BASE"

# --- a thousand: the limit ------------------------------------------------

LOG0=$(wc -l <"$T/s.err")
bg flood2 "$FLOOD" -f -n 1000 -k 500 -t 60 127.0.0.1 "$SPORT"
FPID=$BGPID
if wait_for 30 grep -q '^connected' "$T/flood2.out"; then
	checks 9
	diag "checks during the flood: exit statuses $RCS; median $MEDIAN ms ($TIMES)"
	bad=$(printf '%s\n' "${RCS_LIST[@]}" | grep -cvxE '1|3')
	is "$bad" 0 "during the flood: every check ends with the answer (1) or 503, unreachable (3)"
else
	not_ok "connflood established its connections"
	diag_file "$T/flood2.out" connflood
fi
flood_wait "$FPID" "$SPID"
F=$T/flood2.out
diag "connflood: $(tail -n 1 "$F")"
diag "serve: at most $MAXFDS descriptors open, $BASE at rest"
num_between "$MAXFDS" "$BASE" $((BASE + CONN_MAX + 1)) \
    "serve never held more than $CONN_MAX connections ($((MAXFDS - BASE)))"
s408=$(field s408 "$F") s503=$(field s503 "$F")
is "$(field connected "$F")" 1000 "1000 connections established"
is "$((s408 + s503))" 1000 "every one answered: 408 at the deadline or 503 ($s408 + $s503)"
num_between "$s408" "$CONN_MAX" 1000 "at least $CONN_MAX held until the deadline, then 408 ($s408)"
num_between "$s503" 1 1000 "the others answered 503 ($s503)"
num_between "$(field s408trickle "$F")" 1 1000 "trickling connections held to the deadline too"
t=$(field t408min "$F")
num_between "$t" $((TIMEOUT_MS - 5)) $((TIMEOUT_MS + 60000)) "no 408 before the deadline ($t ms)"
t=$(field t408max "$F")
num_between "$t" $((TIMEOUT_MS - 5)) $((TIMEOUT_MS + 10000)) "the last 408 soon after it ($t ms)"
diag "the slowest 503 came $(field t503max "$F") ms after its connect"
tail -n +$((LOG0 + 1)) "$T/s.err" >"$T/s.log2"
# The first of each kind from 127.0.0.1 in a minute is logged, the others
# counted and summed up after it (33b-log-flood.sh): a line or two, not
# one a connection (the flood and the one before may span two minutes).
num_between "$(grep -c ': 408 Request Timeout' "$T/s.log2")" 0 2 \
    "$s408 408s: at most one line a minute"
num_between "$(grep -c ': 503 Service Unavailable' "$T/s.log2")" 0 2 \
    "$s503 503s: at most one line a minute"
wait_for 10 eval '[ "$(nfds "$SPID")" -eq "$BASE" ]'
is "$(nfds "$SPID")" "$BASE" "afterwards: serve's descriptors back to $BASE"
checks 3
is "$RCS" "3x1" "after the flood: checks read the answer again"

# --- a low soft open file limit -------------------------------------------

# A soft limit of 64 (the hard one higher): serve raises it, so the 257th
# connection is answered 503 rather than left in the listen queue.
mkconf "$T/low.conf" <<EOF
timeout = 2s
[cluster mail]
wait = 10m
[serve]
max_connections = $CONN_MAX
EOF
HARD=$(ulimit -Hn)
if [ "$HARD" != unlimited ] && [ "$HARD" -lt 400 ]; then
	skip "hard open file limit $HARD: too low for this part" 6
else
	bg low bash -c 'ulimit -Sn 64 && exec "$@"' lowserve \
	    "$SERVE" -v -c "$T/low.conf" -l 127.0.0.1:0
	LPID=$BGPID
	if listen_port low LPORT; then
		lim=$(awk '/^Max open files/ { print $4 }' "/proc/$LPID/limits")
		num_between "$lim" $((CONN_MAX + 1)) 1048576 \
		    "ulimit -Sn 64: serve raised its soft limit ($lim)"
		LBASE=$(nfds "$LPID")
		bg flood3 "$FLOOD" -f -n 300 -t 60 127.0.0.1 "$LPORT"
		flood_wait "$BGPID" "$LPID"
		diag "connflood: $(tail -n 1 "$T/flood3.out")"
		s408=$(field s408 "$T/flood3.out") s503=$(field s503 "$T/flood3.out")
		is "$((s408 + s503))" 300 "soft limit 64: all 300 answered ($s408 x 408, $s503 x 503)"
		num_between "$s503" 1 300 "soft limit 64: beyond $CONN_MAX, 503"
		num_between "$MAXFDS" "$LBASE" $((LBASE + CONN_MAX + 1)) \
		    "soft limit 64: at most $CONN_MAX held ($((MAXFDS - LBASE)))"
		if grep -q 'Too many open files' "$T/low.err"; then
			not_ok "soft limit 64: no 'Too many open files'"
			diag_file "$T/low.err" "serve stderr"
		else
			ok "soft limit 64: no 'Too many open files'"
		fi
	else
		not_ok "serve under ulimit -Sn 64 started"
		skip "no server" 4
	fi
	serve_stop "$LPID" >/dev/null
	# A hard limit too low to raise: said once, at start.
	bg low2 bash -c 'ulimit -n 64 && exec "$@"' lowserve \
	    "$SERVE" -v -c "$T/low.conf" -l 127.0.0.1:0
	wait_for 10 grep -q "open file limit" "$T/low2.err"
	if grep -qx 'pollguard-serve: open file limit 64: fewer than 256 connections fit; raise it (ulimit -n)' \
	    "$T/low2.err"; then
		ok "hard limit 64: serve warns that fewer than 256 connections fit"
	else
		not_ok "hard limit 64: serve warns that fewer than 256 connections fit"
		diag_file "$T/low2.err" "serve stderr"
	fi
	serve_stop "$BGPID" >/dev/null
fi

# --- a full listen queue: backlog -----------------------------------------

# serve stopped (SIGSTOP), with backlog = 4, while 40 clients connect at
# once, each sending a byte every 200 ms: the kernel queues backlog + 1
# of them and drops the others' handshakes, which their packets retry;
# once serve runs again, every one is accepted and answered 408 at its
# deadline. (A client that sends nothing while the queue is full can stay
# half-connected: what it sends completes the handshake.)
mkconf "$T/bl.conf" <<EOF
timeout = 1s
[cluster mail]
wait = 10m
[serve]
backlog = 4
EOF
# queued PORT: the connections waiting in the listen queue of PORT (ss's
# Recv-Q).
queued()
{
	ss -Hltn "sport = :$1" 2>/dev/null | awk 'NR == 1 { print $2 }'
}
if ! command -v ss >/dev/null; then
	skip "no ss(8) to read the listen queue" 3
elif serve_start bl "$T/bl.conf"; then
	BPID=$SERVE_PID BPORT=$PORT
	kill -STOP "$BPID"
	bg flood4 "$FLOOD" -f -n 40 -k 40 -t 40 127.0.0.1 "$BPORT"
	FPID=$BGPID
	wait_for 10 eval '[ "$(queued "$BPORT")" -ge 5 ]'
	sleep 0.5
	is "$(queued "$BPORT")" 5 "backlog = 4, serve stopped, 40 clients at once: the kernel queues 5"
	kill -CONT "$BPID"
	flood_wait "$FPID" "$BPID"
	diag "connflood: $(tail -n 1 "$T/flood4.out")"
	is "$(field s408 "$T/flood4.out")" 40 "serve running again: all 40 accepted, in time, and answered 408"
	serve_stop "$BPID"
	is "$?" 0 "serve: SIGTERM, exit 0"
else
	not_ok "serve with backlog = 4 started"
	skip "no server" 2
fi

# --- 100,000 requests, one after another ----------------------------------

"$FLOOD" -s 2000 -t 60 127.0.0.1 "$SPORT" >"$T/warm.out" 2>"$T/warm.err"
diag "warm-up: $(cat "$T/warm.out")"
F0=$(nfds "$SPID") R0=$(rss "$SPID")
"$FLOOD" -s "$REQUESTS" -t "$BUDGET" 127.0.0.1 "$SPORT" >"$T/seq.out" 2>"$T/seq.err"
F1=$(nfds "$SPID") R1=$(rss "$SPID")
done_=$(field done "$T/seq.out")
diag "sequential: $(cat "$T/seq.out")"
diag "serve: $F0 descriptors and $R0 kB resident after the warm-up, $F1 and $R1 kB after $done_ requests"
[ "${done_:-0}" -lt "$REQUESTS" ] &&
    diag "stopped after ${BUDGET}s: $done_ of $REQUESTS requests done"
num_between "${done_:-0}" 1000 "$REQUESTS" "sequential requests done ($done_)"
is "$(field bad "$T/seq.out")" 0 "every request got the status it must"
[ -s "$T/seq.err" ] && diag_file "$T/seq.err" "connflood stderr"
is "$F1" "$F0" "open descriptors: $F0 before, $F1 after"
# AddressSanitizer keeps freed memory in quarantine and grows its
# shadow: resident memory says nothing there (make check measures it).
if nm "$SERVE" 2>/dev/null | grep -q __asan_init; then
	skip "serve is built with AddressSanitizer: its quarantine holds freed memory ($R0 -> $R1 kB)"
else
	num_between "$((R1 - R0))" -100000 512 "resident memory grew by at most 512 kB ($R0 -> $R1 kB)"
fi
assert "serve still running" _pg_alive "$SPID"
serve_stop "$SPID"
is "$?" 0 "serve: SIGTERM, exit 0"

finish
