#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-check -E, for systemd's ExecCondition=: the verdicts 0 to 3
# stay, every error (usage, config, state, a peer's nonsense) becomes 255
# with the same message as without -E. The peer is a real pollguard-serve
# on loopback. Under a real systemd: 74-systemd-timer.sh.
. "${PG_TOP:-.}/tests/lib.sh"

# The peer p: a real serve, and a fresh record of its cluster "act".
peer_start p 10s act idle || bail "the peer p did not start"

mkconf <<EOF
[peer p]
url = http://127.0.0.1:$PORT
[peer gone]
url = http://127.0.0.1:9
[cluster act]
wait = 10s
peers = p
[cluster idle]
wait = 10s
peers = p
[cluster lk]
wait = 10s
peers =
[cluster unreach]
wait = 10s
peers = gone
unreachable = skip
[cluster unknown]
wait = 10s
peers = p
[cluster damaged]
wait = 10s
peers =
EOF
MAINCONF=$CONF

# --- the verdicts are unchanged ---

exit_is 0 "-E, an idle peer: go, exit 0" "$CHECK" -E -c "$CONF" idle
err_empty "-E, go: nothing on stderr"
exit_is 1 "-E, the peer was active: exit 1" "$CHECK" -E -c "$CONF" act
err_empty "-E, skip: nothing on stderr"
bg run "$TOUCH" -c "$CONF" lk -- sleep 30
RUNPID=$BGPID
if wait_for 10 lock_held lk; then
	exit_is 2 "-E, a run on this node still going: exit 2" \
	    "$CHECK" -E -c "$CONF" lk
else
	not_ok "-E, a run on this node still going: the run lock is not held"
fi
kill -TERM "$RUNPID"
wait_exit "$RUNPID" 10 >/dev/null
exit_is 3 "-E, unreachable peer, unreachable = skip: exit 3" \
    "$CHECK" -E -c "$CONF" unreach

# --- every error is 255, with its message unchanged ---

# same_error DESC STATUS ARGS...: without -E the status is STATUS; with -E
# it is 255 and stderr is the same, byte for byte.
same_error()
{
	local desc=$1 status=$2
	shift 2
	exit_is "$status" "$desc: exit $status without -E" "$CHECK" "$@"
	cp "$T/err" "$T/err.plain"
	exit_is 255 "$desc: exit 255 with -E" "$CHECK" -E "$@"
	if [ -s "$T/err" ] && cmp -s "$T/err" "$T/err.plain"; then
		ok "$desc: the same message with -E"
	else
		not_ok "$desc: the same message with -E"
		diag_file "$T/err.plain" "without -E"
		diag_file "$T/err" "with -E"
	fi
}

same_error "no such cluster in the config" 78 -c "$CONF" nosuch
same_error "an invalid cluster ID" 64 -c "$CONF" -bad-
same_error "a missing config file" 78 -c "$T/nonexistent.conf" idle
mkdir -p "$T/ro"
printf 'x\n' >"$T/ro/notadir"
STATE=$T/ro/notadir mkconf "$T/badstate.conf" <<EOF
[cluster idle]
wait = 10s
peers =
EOF
same_error "a state directory that is a file" 73 -c "$T/badstate.conf" idle
mkdir -p "$STATE"
printf 'garbage\n' >"$STATE/damaged"
same_error "a damaged record" 65 -c "$MAINCONF" damaged
same_error "a peer answering 404 (it has no such cluster)" 76 \
    -c "$MAINCONF" unknown
err_has "answered 404" "the 404 is named on stderr"

# A usage error is 255 too, whatever the order of the options.
exit_is 255 "-E and an unknown option after it: exit 255" "$CHECK" -E -x idle
err_has "usage: pollguard-check [-Enqv] [-c file] cluster" \
    "usage on stderr"
exit_is 255 "an unknown option before -E: exit 255" "$CHECK" -x -E idle
exit_is 255 "-E and no cluster: exit 255" "$CHECK" -E
exit_is 64 "no -E, no cluster: exit 64" "$CHECK"

serve_stop "$SERVE_PID" >/dev/null
finish
