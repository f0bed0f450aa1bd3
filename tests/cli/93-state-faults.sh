#!/bin/bash
# SPDX-License-Identifier: ISC
# The state directory when things go wrong: removed or replaced while a
# standalone serve runs, serve answers from the one at its path; on a
# read-only file system (EROFS, not just a mode: 30-check.sh has that) and
# on a full one, check and touch fail with their documented status, name
# the path, never exit 0 for a claim, and leave the record as it was, byte
# for byte, while serve still answers from it; writers killed (SIGKILL) at
# random moments never leave a record that the next check or serve cannot
# read; and the wall clock stepped a year forwards or backwards, on the
# checking node or on the serving one, even while serve runs, changes no
# decision.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

REQ="GET /v1/elapsed/%s HTTP/1.0${CR}"$'\n'"${CR}"$'\n'

# serve_i CONF CLUSTER [PREFIX...]: ask pollguard-serve -i (run after
# PREFIX, say nsenter) for the cluster's elapsed time: CODE and BODY.
serve_i()
{
	local conf=$1 cl=$2
	shift 2
	# shellcheck disable=SC2059
	printf "$REQ" "$cl" >"$T/req"
	timeout -k 5 20 "$@" "$SERVE" -c "$conf" -i <"$T/req" >"$T/ans" 2>"$T/ierr"
	split_answer "$T/ans"
}

# no_tmp DIR DESC [PREFIX...]: no temporary file left in DIR.
no_tmp()
{
	local dir=$1 desc=$2
	shift 2
	is "$("$@" ls -A "$dir" 2>/dev/null | grep '^\.tmp' | tr '\n' ' ')" "" "$desc"
}

# --- the state directory removed, or replaced -----------------------------

# While a standalone serve runs, the state directory goes away; check and
# touch make it again. The serve answers from the directory at its path,
# not from the one it opened first.
SD=$T/sd/state
mkdir "$T/sd"
STATE=$SD mkconf "$T/sd.conf" <<EOF
[cluster sd]
wait = 10s
EOF
"$TOUCH" -c "$T/sd.conf" sd
"$PGSTATE" -c "$T/sd.conf" write sd 30000
if serve_start sd "$T/sd.conf"; then
	SDP=$PORT SDPID=$SERVE_PID
	ask_sd()
	{
		tcp_ask 127.0.0.1 "$SDP" "GET /v1/elapsed/sd HTTP/1.0${CR}"$'\n'"${CR}"$'\n'
	}
	ask_sd
	num_between "$BODY" 30000 $((30000 + PG_CMD_TIMEOUT * 1000)) \
	    "serve: the record's age"
	rm -rf "$SD"
	ask_sd
	is "$CODE $BODY" "200 never" "state directory removed: serve answers never"
	exit_is 0 "state directory removed: check -n goes" "$CHECK" -n -c "$T/sd.conf" sd
	assert "check -n makes the state directory again" test -d "$SD"
	assert "check -n writes no record" test ! -e "$SD/sd"
	exit_is 0 "state directory removed: check claims (standalone)" \
	    "$CHECK" -c "$T/sd.conf" sd
	ask_sd
	num_between "$BODY" 0 5000 "serve answers the new directory's record, not never"
	mv "$SD" "$T/sd/old"
	mkdir -m 755 "$SD"
	ask_sd
	is "$CODE $BODY" "200 never" "state directory replaced by an empty one: serve answers never"
	exit_is 0 "replaced: touch exits 0" "$TOUCH" -c "$T/sd.conf" sd
	ask_sd
	num_between "$BODY" 0 5000 "replaced: serve answers the new record"
	# Replaced by one it must refuse (group-writable), the record
	# copied along: 500 and the reason in its log, not "never", which
	# would hide it from peers (they warn of a 500 and apply their
	# unreachable policy).
	mv "$SD" "$T/sd/old2"
	mkdir -m 775 "$SD"
	cp -p "$T/sd/old2/sd" "$SD/sd"
	ask_sd
	is "$CODE" 500 "replaced by a group-writable directory: 500, not never"
	assert "replaced by a group-writable directory: serve logs why" \
	    grep -q "writable by group or others" "$T/sd.err"
	tcp_ask 127.0.0.1 "$SDP" "GET /v1/status/nosuch HTTP/1.0${CR}"$'\n'"${CR}"$'\n'
	is "$CODE" 404 "... a cluster it does not know is still 404"
	chmod 755 "$SD"
	ask_sd
	num_between "$BODY" 0 5000 "made mode 755: serve answers the record again"
	mv "$SD" "$T/sd/old3"
	: >"$SD"
	ask_sd
	is "$CODE" 500 "replaced by a regular file: 500, not never"
	rm -f "$SD"
	mv "$T/sd/old3" "$SD"
	ask_sd
	num_between "$BODY" 0 5000 "moved back: serve answers the record"
	serve_stop "$SDPID"
	is "$?" 0 "serve: SIGTERM, exit 0"
else
	not_ok "serve for the state directory tests started"
	skip "no serve" 16
fi

# --- read-only and full file systems --------------------------------------

# As root, in a private mount namespace that a holder process keeps (and
# whose mounts nobody else sees): a tmpfs at $T/ro, remounted read-only
# later, and one of 64 kB at $T/full, filled up. Each command runs in it
# through nsenter.
NRO=19 NFULL=17
ns_why=
if [ "$(id -u)" -ne 0 ]; then
	ns_why="not root: cannot mount a file system in a mount namespace"
elif ! command -v unshare >/dev/null 2>&1 || ! command -v nsenter >/dev/null 2>&1; then
	ns_why="unshare(1) or nsenter(1) not installed (util-linux)"
else
	mkdir "$T/ro" "$T/full"
	bg nsholder unshare -m --propagation private sh -c \
	    'mount -t tmpfs -o size=1m,mode=755 pgro "$1" &&
	    mount -t tmpfs -o size=64k,mode=755 pgfull "$2" &&
	    echo mounted >&2 && exec sleep 600' sh "$T/ro" "$T/full"
	NSPID=$BGPID
	if ! wait_for 10 grep -qs mounted "$T/nsholder.err"; then
		ns_why="cannot mount a tmpfs in a mount namespace: $(head -n 1 "$T/nsholder.err")"
	fi
fi
NS=(nsenter -t "${NSPID:-0}" -m --)

# cannot_write LABEL DIR CONF CLUSTER: the record DIR/CLUSTER cannot be
# written (DIR is on a read-only or full file system); it holds a record
# 30 s old, saved as $T/saved. Check and touch fail, the record stays.
cannot_write()
{
	local l=$1 dir=$2 conf=$3 cl=$4
	exit_is 73 "$l: check exits 73" "${NS[@]}" "$CHECK" -c "$conf" "$cl"
	err_has "$dir" "$l: check names the state directory"
	exit_is 0 "$l: check -n, which writes nothing, still decides: go" \
	    "${NS[@]}" "$CHECK" -n -c "$conf" "$cl"
	exit_is 73 "$l: touch exits 73" "${NS[@]}" "$TOUCH" -c "$conf" "$cl"
	err_has "$dir/$cl" "$l: touch names the record"
	rm -f "$T/ran"
	exit_is "73|74" "$l: touch -- command: exits 73 or 74" \
	    "${NS[@]}" "$TOUCH" -c "$conf" "$cl" -- touch "$T/ran"
	err_has "$dir" "$l: touch -- command: names the state directory"
	assert "$l: touch -- command: the command is not run" test ! -e "$T/ran"
	printf 'line 1\nline 2\n' >"$T/in"
	exit_is 73 "$l: touch -f exits 73 at the end" \
	    "${NS[@]}" "$TOUCH" -f -c "$conf" "$cl" <"$T/in"
	assert "$l: touch -f: the data still passes through" cmp -s "$T/in" "$T/out"
	err_has "$dir/$cl" "$l: touch -f names the record"
	serve_i "$conf" "$cl" "${NS[@]}"
	is "$CODE" 200 "$l: serve -i still answers 200"
	num_between "$BODY" 30000 $((30000 + PG_CMD_TIMEOUT * 1000)) \
	    "$l: serve -i: the record's age"
	assert "$l: the record as it was, byte for byte" \
	    "${NS[@]}" cmp -s "$T/saved" "$dir/$cl"
	no_tmp "$dir" "$l: no temporary file left" "${NS[@]}"
}

if [ -n "$ns_why" ]; then
	skip "$ns_why" $((NRO + NFULL))
else
	# A read-only file system (EROFS, which root cannot write either).
	RODIR=$T/ro/state
	STATE=$RODIR mkconf "$T/ro.conf" <<EOF
[cluster ro]
wait = 10s
EOF
	# Used before: the lock files are there.
	"${NS[@]}" "$TOUCH" -c "$T/ro.conf" ro -- true
	"${NS[@]}" "$CHECK" -c "$T/ro.conf" ro
	"${NS[@]}" "$PGSTATE" -c "$T/ro.conf" write ro 30000
	"${NS[@]}" cat "$RODIR/ro" >"$T/saved"
	if ! "${NS[@]}" mount -o remount,ro "$T/ro" 2>"$T/mount.err"; then
		skip "cannot remount the tmpfs read-only: $(head -n 1 "$T/mount.err")" "$NRO"
	else
		cannot_write "read-only file system" "$RODIR" "$T/ro.conf" ro
		exit_is 73 "read-only file system: touch -r exits 73" \
		    "${NS[@]}" "$TOUCH" -r -c "$T/ro.conf" ro
		err_has "$RODIR/ro" "read-only file system: touch -r names the record"
		assert "read-only file system: touch -r left the record" \
		    "${NS[@]}" cmp -s "$T/saved" "$RODIR/ro"
		"${NS[@]}" mount -o remount,rw "$T/ro"
		exit_is 0 "writable again: touch exits 0" "${NS[@]}" "$TOUCH" -c "$T/ro.conf" ro
	fi

	# A full file system: 64 kB, filled up by a file.
	FULLDIR=$T/full/state
	STATE=$FULLDIR mkconf "$T/full.conf" <<EOF
[cluster full]
wait = 10s
EOF
	"${NS[@]}" "$TOUCH" -c "$T/full.conf" full -- true
	"${NS[@]}" "$CHECK" -c "$T/full.conf" full
	"${NS[@]}" "$PGSTATE" -c "$T/full.conf" write full 30000
	"${NS[@]}" cat "$FULLDIR/full" >"$T/saved"
	"${NS[@]}" dd if=/dev/zero of="$T/full/fill" bs=4096 2>/dev/null
	if "${NS[@]}" sh -c 'printf x >"$1"' sh "$T/full/probe" 2>/dev/null; then
		skip "the 64 kB tmpfs does not fill up" "$NFULL"
	else
		"${NS[@]}" rm -f "$T/full/probe"
		cannot_write "full file system" "$FULLDIR" "$T/full.conf" full
		"${NS[@]}" rm -f "$T/full/fill"
		exit_is 0 "space freed: touch exits 0" "${NS[@]}" "$TOUCH" -c "$T/full.conf" full
		num_between "$("${NS[@]}" "$PGSTATE" -c "$T/full.conf" read full 2>/dev/null)" \
		    0 5000 "space freed: the record is fresh"
	fi
	kill -TERM "$NSPID" 2>/dev/null
fi

# --- SIGKILL at random moments --------------------------------------------

# Writers killed at random moments: pollguard-touch, a touch running a
# command (two writes and the run lock), a claiming check. After each
# kill the next check and serve read a valid record: never exit 65 or a
# 500. At most 200 rounds and 60 s.
mkconf <<EOF
[cluster k]
wait = 10s
EOF
"$TOUCH" -c "$CONF" k
rounds=0 killed=0 bad=0 t0=$(now_ms)
while [ "$rounds" -lt 200 ] && [ $(($(now_ms) - t0)) -lt 60000 ]; do
	rounds=$((rounds + 1))
	case $((rounds % 3)) in
	0) "$TOUCH" -c "$CONF" k & ;;
	1) "$TOUCH" -c "$CONF" k -- true & ;;
	2) "$CHECK" -c "$CONF" k & ;;
	esac
	p=$!
	sleep "0.00$((RANDOM % 8))"
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	[ "$?" -eq 137 ] && killed=$((killed + 1))
	# A touch killed between its fork and the job's exec leaves the child
	# holding the run lock until it execs (close-on-exec): a check then
	# rightly skips (exit 2). Ask again for up to 2 s.
	tries=0
	while :; do
		timeout -k 5 20 "$CHECK" -n -c "$CONF" k >"$T/out" 2>"$T/err"
		rc=$?
		[ "$rc" -eq 2 ] && [ "$tries" -lt 20 ] || break
		tries=$((tries + 1))
		sleep 0.1
	done
	serve_i "$CONF" k
	if [ "$rc" -ne 0 ] || [ "$CODE" != 200 ] || ! [[ $BODY =~ ^[0-9]+$ ]]; then
		bad=$((bad + 1))
		if [ "$bad" -le 3 ]; then
			diag "round $rounds: check -n exit $rc, serve $CODE '$BODY'"
			diag_file "$T/err" "check stderr"
			diag_file "$STATE/k" record
		fi
	fi
done
ntmp=$(state_ls | grep -c '^\.tmp')
diag "$rounds rounds, $killed writers killed before they ended, $ntmp temporary files left by kills"
is "$bad" 0 "after each SIGKILL: check -n exits 0 and serve answers 200 with a number"
if [ "$killed" -gt 0 ]; then
	ok "some writers were killed while running ($killed of $rounds)"
else
	skip "no writer was still running when killed (a fast machine)"
fi
exit_is 0 "after the kills: touch exits 0" "$TOUCH" -c "$CONF" k
num_between "$(record k)" 0 5000 "after the kills: the record is fresh"
exit_is 0 "after the kills: check exits 0 (no run lock left held)" "$CHECK" -c "$CONF" k

# --- the wall clock stepped a year, with peers ----------------------------

# Nodes a and b, each with a standalone serve; records written at the real
# time, checks and serves run with the wall clock a year ahead or behind
# (libfaketime, CLOCK_REALTIME only: a step of the wall clock does not
# move CLOCK_BOOTTIME). A serve's offset is read from a file at every
# call, so the clock steps while it runs. 60-clock.sh covers one node.
NCLOCK=15
if ! faked_init; then
	skip "libfaketime not installed (Debian package libfaketime)" "$NCLOCK"
	finish
fi
export FAKETIME_DONT_FAKE_MONOTONIC=1
YEAR=365d

# A serve whose wall clock is offset by what $T/NODE.ft says ("+0",
# "+365d", "-365d"): a wrapper that execs it (same PID) with libfaketime.
for n in a b; do
	echo +0 >"$T/$n.ft"
	cat >"$T/serve-$n" <<EOF
#!/bin/sh
LD_PRELOAD=$LIBFT FAKETIME_TIMESTAMP_FILE=$T/$n.ft FAKETIME_NO_CACHE=1 \\
    exec "$SERVE" "\$@"
EOF
	chmod 755 "$T/serve-$n"
	mkdir -m 755 "$T/$n.state"
done
# clockconf NODE [PEER PORT]: node NODE's config, mail with peer PEER.
clockconf()
{
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$1" "$T/$1.state"
		printf 'timeout = 3s\nconnect_timeout = 1s\nsettle = 1s\n'
		printf '[cluster ob]\nwait = 30s\n[cluster mail]\nwait = 30s\n'
		if [ $# -gt 1 ]; then
			printf 'peers = %s\n[peer %s]\nurl = http://127.0.0.1:%s/\n' \
			    "$2" "$2" "$3"
		fi
	} >"$T/$1.conf"
	chmod 600 "$T/$1.conf"
}
clockconf a
clockconf b
REAL_SERVE=$SERVE
SERVE=$T/serve-a serve_start sfa "$T/a.conf" && PA=$PORT SA=$SERVE_PID
SERVE=$T/serve-b serve_start sfb "$T/b.conf" && PB=$PORT SB=$SERVE_PID
SERVE=$REAL_SERVE
if [ -z "${PA:-}" ] || [ -z "${PB:-}" ]; then
	skip "a serve under libfaketime did not start" "$NCLOCK"
	finish
fi
clockconf a b "$PB"
clockconf b a "$PA"

# ask_b [CLUSTER]: b's serve's answer for mail, in BODY.
ask_b()
{
	tcp_ask 127.0.0.1 "$PB" "GET /v1/elapsed/${1:-mail} HTTP/1.0${CR}"$'\n'"${CR}"$'\n'
}

# The serve's wall clock does move: a record of another boot reads as its
# wall-clock age (at least the uptime), a year more with the clock ahead.
DAY=86400000
"$PGSTATE" -c "$T/b.conf" oldboot ob $((2 * DAY))

# b active 1 s ago, by the real clock (wait 30s).
"$PGSTATE" -c "$T/b.conf" write mail 1000
T0=$(now_ms)
ask_b
age_ok "$BODY" 1000 "$T0" "b's serve, clock not stepped: b's age"
echo "+$YEAR" >"$T/b.ft"
ask_b
age_ok "$BODY" 1000 "$T0" "b's serve, its clock stepped a year ahead while it runs: the same age"
ask_b ob
num_between "$BODY" $((367 * DAY - 60000)) $((367 * DAY + 60000 + $(uptime_ms))) \
    "the step takes effect: a record of another boot 2 days old reads 367 days"
echo "-$YEAR" >"$T/b.ft"
ask_b
age_ok "$BODY" 1000 "$T0" "b's serve, its clock stepped a year back: the same age"

exit_is 1 "b active 1s ago (b's clock a year back), a's clock a year ahead: a skips" \
    "$FAKED" "+$YEAR" "$CHECK" -n -c "$T/a.conf" mail
exit_is 1 "a's clock a year back: a skips" \
    "$FAKED" "-$YEAR" "$CHECK" -n -c "$T/a.conf" mail
echo "+$YEAR" >"$T/b.ft"
exit_is 1 "b's clock a year ahead, a's a year back: a skips" \
    "$FAKED" "-$YEAR" "$CHECK" -n -c "$T/a.conf" mail

# b idle (60 s ago).
"$PGSTATE" -c "$T/b.conf" write mail 60000
exit_is 0 "b idle 60s ago (b's clock a year ahead), a's clock a year back: a goes (-n)" \
    "$FAKED" "-$YEAR" "$CHECK" -n -c "$T/a.conf" mail
echo "-$YEAR" >"$T/b.ft"
exit_is 0 "b's clock a year back, a's a year ahead: a goes (-n)" \
    "$FAKED" "+$YEAR" "$CHECK" -n -c "$T/a.conf" mail

# a claims with its clock a year ahead; b, its clock a year back, asks
# a's serve (its clock stepping too) and skips.
echo "-$YEAR" >"$T/a.ft"
timeout -k 5 "$PG_CMD_TIMEOUT" "$FAKED" "+$YEAR" "$CHECK" -v -c "$T/a.conf" mail \
    >"$T/out" 2>"$T/err"
RC=$?
if [ "$RC" -eq 0 ]; then
	ok "b idle, a's clock a year ahead: a claims (exit 0)"
	num_between "$("$PGSTATE" -c "$T/a.conf" read mail 2>/dev/null)" 0 10000 \
	    "a's claim: its record fresh"
	exit_is 1 "a just claimed, b's clock a year back: b skips" \
	    "$FAKED" "-$YEAR" "$CHECK" -n -c "$T/b.conf" mail
	echo "+$YEAR" >"$T/a.ft"
	exit_is 1 "a's serve's clock stepped two years ahead: b still skips" \
	    "$FAKED" "-$YEAR" "$CHECK" -n -c "$T/b.conf" mail
elif [ "$RC" -eq 1 ] && grep -qE 'too (long|slow)' "$T/err"; then
	skip "a's claim withdrawn as too slow to order (busy machine)" 4
else
	not_ok "b idle, a's clock a year ahead: a claims (exit 0)"
	diag "exit status $RC"
	diag_file "$T/err" stderr
	skip "no claim" 3
fi

# touch with the clock a year ahead, check at the real time, and back.
exit_is 0 "touch with the clock a year ahead: exit 0" \
    "$FAKED" "+$YEAR" "$TOUCH" -c "$T/b.conf" mail
exit_is 1 "b touched (its clock a year ahead), a at the real time: skip" \
    "$CHECK" -n -c "$T/a.conf" mail
serve_stop "$SA"; faked_clean "$SA"
serve_stop "$SB"; faked_clean "$SB"

finish
