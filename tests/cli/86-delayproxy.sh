#!/bin/bash
# SPDX-License-Identifier: ISC
# tests/delayproxy, the delaying proxy the soak puts between nodes: data
# passes intact both ways (more than its buffers hold); a delay holds
# each direction back at least its lower bound (only lower bounds are
# asserted: an upper bound would measure the machine, not the proxy);
# -w delays one direction only; a dropped connection is closed, reset or
# blackholed; the control file switches delay and drop at the next
# accept, SIGUSR1 rereads it, a malformed one is reported and ignored;
# one seed gives one sequence of delays; a refused target is a reset.
. "${PG_TOP:-.}/tests/lib.sh"

PROXY=${PG_BUILD:-$PG_TOP}/tests/delayproxy
[ -x "$PROXY" ] || bail "$PROXY is not built (make tests/delayproxy)"
command -v socat >/dev/null 2>&1 || bail "socat is not installed (make deps)"

# An echo server: what a client sends comes back, then the end of stream.
bg echo socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork EXEC:cat
listen_port echo EPORT || bail "the echo server did not start"

# proxy NAME ARGS...: a delayproxy -v in front of the echo server; PPORT.
proxy()
{
	local name=$1
	shift
	bg "$name" "$PROXY" -v "$@" -l 127.0.0.1:0 "127.0.0.1:$EPORT"
	PROXY_PID=$BGPID
	listen_port "$name" PPORT || bail "delayproxy $name did not start"
}

# send PORT FILE: FILE through the port, the answer in $T/got; MS is how
# long it took, RC socat's status.
send()
{
	local t0=$(now_ms)
	timeout -k 2 20 socat -T 3 -t 10 - "TCP:127.0.0.1:$1" <"$2" \
	    >"$T/got" 2>"$T/send.err"
	RC=$?
	MS=$(($(now_ms) - t0))
}

# ctl FILE LINE...: replace the control file at once (rename).
ctl()
{
	local f=$1
	shift
	printf '%s\n' "$@" >"$f.new" && mv "$f.new" "$f"
}

head -c 200000 /dev/urandom >"$T/big"
printf 'x\n' >"$T/small"

# --- data, both ways -------------------------------------------------------

proxy p0
send "$PPORT" "$T/big"
is "$RC" 0 "no delay: the exchange ends normally"
assert "200,000 bytes there and back intact" cmp -s "$T/big" "$T/got"

proxy p1 -d 150:50
send "$PPORT" "$T/big"
assert "with a delay of 150±50ms too" cmp -s "$T/big" "$T/got"
send "$PPORT" "$T/small"
num_between "$MS" 200 100000 "-d 150:50: a round trip takes 2 × 100ms at least"
grep -q 'delay up 1[0-9][0-9]ms, down 1[0-9][0-9]ms\|delay up 200ms' \
    "$T/p1.err" && ok "-v names the delays drawn" || {
	not_ok "-v names the delays drawn"; diag_file "$T/p1.err"; }
bad=$(grep -o 'delay up [0-9]*ms, down [0-9]*ms' "$T/p1.err" |
    awk '{ u = $3 + 0; d = $5 + 0 } u < 100 || u > 200 || d < 100 ||
    d > 200' | wc -l)
is "$bad" 0 "every delay drawn is within 100..200ms"

proxy p2 -d 300 -w up
send "$PPORT" "$T/small"
num_between "$MS" 300 100000 "-w up: the request is held 300ms"
assert "-w up: the answer is not delayed (down 0ms)" \
    grep -q 'delay up 300ms, down 0ms' "$T/p2.err"

# --- drops -----------------------------------------------------------------

# curl tells the drops apart: 52 an empty reply (closed), 56 a reset, 28
# its own time limit.
# fetch PORT [SECONDS]: curl's exit status in RC, the time taken in MS.
fetch()
{
	local t0=$(now_ms)
	curl -s -m "${2:-10}" -o /dev/null "http://127.0.0.1:$1/"
	RC=$?
	MS=$(($(now_ms) - t0))
}

# rc_in WANT DESC: RC is one of WANT ("7|56").
rc_in()
{
	case "|$1|" in
	*"|$RC|"*) ok "$2" ;;
	*) not_ok "$2"; diag "curl exited $RC, want $1" ;;
	esac
}

proxy p3 -x 1
fetch "$PPORT"
is "$RC" 52 "-x 1: closed at once, an empty reply"
assert "-x 1: the drop is logged" grep -q 'dropped (close)' "$T/p3.err"

proxy p4 -x 1:blackhole
fetch "$PPORT" 2
is "$RC" 28 "-x 1:blackhole: no answer"
num_between "$MS" 2000 100000 "-x 1:blackhole: held until the client gives up (2s)"

proxy p5 -x 1:reset
fetch "$PPORT"
rc_in "7|55|56" "-x 1:reset: the client sees a reset (on connect, send or read)"

proxy p4b -x 1:blackhole
send "$PPORT" "$T/small"
num_between "$MS" 3000 100000 \
    "-x 1:blackhole: a client that half-closes waits for nothing (3s)"
# --- the control file -------------------------------------------------------

CTL=$T/ctl
proxy p6 -f "$CTL"
send "$PPORT" "$T/small"
is "$(cat "$T/got")" x "no control file: the options (no delay, no drop)"
ctl "$CTL" "drop 1 close"
send "$PPORT" "$T/small"
file_empty "$T/got" "control file 'drop 1 close': dropped"
ctl "$CTL" "# a nemesis" "delay 250 0" "dir down"
send "$PPORT" "$T/small"
is "$(cat "$T/got")" x "control file 'delay 250 0': passes again"
num_between "$MS" 250 100000 "control file 'delay 250 0', 'dir down': 250ms"
assert "and only down is delayed" grep -q 'delay up 0ms, down 250ms' \
    "$T/p6.err"
ctl "$CTL" "delay fast"
send "$PPORT" "$T/small"
assert "a malformed control file is reported" \
    grep -q 'ctl:1: malformed, ignored' "$T/p6.err"
is "$(grep 'delay up' "$T/p6.err" | tail -n 1 | grep -c 'up 0ms, down 0ms')" \
    1 "and ignored: the options apply"
is "$(cat "$T/got")" x "and the data passes"
n=$(grep -c 'malformed' "$T/p6.err")
kill -USR1 "$PROXY_PID"
# (counted anew at each try: wait_for's arguments are expanded once)
assert "SIGUSR1 rereads the control file" wait_for 5 \
    eval '[ "$(grep -c malformed "$T/p6.err")" -gt "$n" ]'
ctl "$CTL" "drop 1 blackhole"
fetch "$PPORT" 1
is "$RC" 28 "control file 'drop 1 blackhole': blackholed"

# --- seeds and refused targets ---------------------------------------------

for k in 1 2; do
	bg "seed$k" "$PROXY" -v -s 42 -d 100:100 -l 127.0.0.1:0 \
	    "127.0.0.1:$EPORT"
	listen_port "seed$k" SPORT || bail "seeded delayproxy did not start"
	for i in 1 2 3 4; do
		send "$SPORT" "$T/small"
	done
	grep -o 'delay up.*' "$T/seed$k.err" >"$T/seq$k"
done
assert "one seed, one sequence of delays" cmp -s "$T/seq1" "$T/seq2"
is "$(wc -l <"$T/seq1")" 4 "four connections, four draws"

bg dead socat -d -d TCP-LISTEN:0,bind=127.0.0.1 -
listen_port dead DPORT || bail "socat did not start"
kill -TERM "$BGPID"; wait_exit "$BGPID" 5
bg p7 "$PROXY" -v -l 127.0.0.1:0 "127.0.0.1:$DPORT"
listen_port p7 PPORT || bail "delayproxy p7 did not start"
fetch "$PPORT"
rc_in "7|56" "a refused target: the client sees a reset, not a hang"

exit_is 64 "usage error: no -l" "$PROXY" "127.0.0.1:$EPORT"
exit_is 64 "usage error: -x 2" "$PROXY" -x 2 -l 127.0.0.1:0 "127.0.0.1:1"
finish
