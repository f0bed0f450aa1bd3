#!/bin/bash
# SPDX-License-Identifier: ISC
# A node's safety rests on its state directory (issue 32, items 7 and 8).
#
# Item 7: a job runs under pollguard-touch on node a; its state directory
# is removed and made again by hand, or only removed. Within a refresh
# (at once, where inotify tells) pollguard-touch makes it again, takes the
# run lock there, writes the record back with its claim and the running
# outcome with the run's original start: a's serve answers active again,
# and b's check skips. A directory that cannot be made again (its parent
# moved away, a file in its place) gets the job SIGTERM, with a log line
# that names the directory and why; a pipeline (-f) logs and keeps
# trying, and records again once it can.
#
# Item 8: node a withdraws its claim while its state directory, a small
# tmpfs (as root, in a mount namespace of its own), is full: the claim's
# link to the record it replaced is renamed back, needing no new blocks,
# and the next round on peer b goes. With the link gone too, the restore
# fails, and the claim, over a record that was idle, is removed: b goes
# all the same. A link that a crash left is swept once stale.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

# ask PORT: GET /v1/elapsed/mail there: CODE and BODY.
ask()
{
	tcp_ask 127.0.0.1 "$1" "GET /v1/elapsed/mail HTTP/1.0${CR}"$'\n'"${CR}"$'\n'
}

# answers_active PORT WAIT_MS: the serve at PORT answers a time below it.
answers_active()
{
	ask "$1"
	[ "$CODE" = 200 ] && [[ $BODY =~ ^[0-9]+$ ]] && [ "$BODY" -lt "$2" ]
}

# from FILE: err_has and its kin read FILE (a background process's stderr).
from()
{
	cp "$1" "$T/err"
}

# outcome CONF KEY: one field of what pgstate outcome prints.
outcome()
{
	"$PGSTATE" -c "$1" outcome mail 2>&1 | sed -n "s/^$2 //p"
}

# --- item 7: the directory removed, and made again --------------------------

# Nodes a and b, wait 60s: a refresh every 20 s.
fleet_start "" a b
AP=${FLEET_PORT[a]}

# a's check goes (b has never polled) and claims; its job starts.
bg job bash -c '"$1" -c "$2" mail && exec "$3" -c "$2" mail -- sleep 120' \
    sh "$CHECK" "$T/a.conf" "$TOUCH"
JOB=$BGPID
running()
{
	[ "$(outcome "$T/a.conf" running)" = 1 ]
}
if wait_for 20 running; then
	ok "a's check went and its job runs"
else
	not_ok "a's check went and its job runs"
	diag_file "$T/job.err" "a's check and touch"
fi
PID=$(outcome "$T/a.conf" pid)
read -r _ _ _ _ _ CLAIM HORIZON <"$T/a.state/mail"
diag "a's record: claim $CLAIM, horizon ${HORIZON}ms"

# Removed and made again by hand (mkdir -p: pollguard-touch may be first).
t0=$(now_ms)
rm -rf "$T/a.state" && mkdir -p -m 755 "$T/a.state"
if wait_for 22 answers_active "$AP" 60000; then
	ok "removed and made again: a's serve answers active again, $(($(now_ms) - t0)) ms later (a refresh: 20 s)"
else
	not_ok "removed and made again: a's serve answers active again within a refresh"
	diag "a's serve: $CODE $BODY"
	diag_file "$T/job.err" "a's pollguard-touch"
fi
took=$(($(now_ms) - t0))
read -r _ _ _ mono _ claim horizon <"$T/a.state/mail" 2>/dev/null
if [ -n "${CLAIM:-}" ] && [ -n "${mono:-}" ] &&
    [ $(( (mono - CLAIM) / 1000000 )) -lt "${HORIZON:-0}" ]; then
	is "${claim:-} ${horizon:-}" "$CLAIM $HORIZON" \
	    "the record written back keeps the claim, within its horizon"
else
	skip "the record was written back after the claim's horizon" 1
fi
assert "the run lock is held in the new directory" lock_held mail "$T/a.state"
is "$(outcome "$T/a.conf" running) $(outcome "$T/a.conf" pid)" "1 $PID" \
    "the outcome says running, the same job"
sa=$(outcome "$T/a.conf" start_ago)
assert "... with the run's original start (${sa:-none} ms ago; removed $took ms ago)" \
    test -n "$sa" -a "${sa:-0}" -gt "$took"
exit_is 1 "b's check skips: a is active" "$CHECK" -v -c "$T/b.conf" mail
err_has "a: " "b's check names a"

# Only removed: pollguard-touch makes it.
t0=$(now_ms)
rm -rf "$T/a.state"
if wait_for 22 answers_active "$AP" 60000; then
	ok "removed: a's serve answers active again, $(($(now_ms) - t0)) ms later"
else
	not_ok "removed: a's serve answers active again within a refresh"
	diag "a's serve: $CODE $BODY"
fi
assert "removed: the directory is there again, mode 755" \
    test "$(stat -c %a "$T/a.state" 2>/dev/null)" = 755
assert "removed: the run lock is held there" lock_held mail "$T/a.state"
exit_is 1 "removed: b's check skips" "$CHECK" -c "$T/b.conf" mail
from "$T/job.err"
err_has "removed or replaced" "pollguard-touch logged it"
kill -TERM "$JOB"
wait_exit "$JOB" 20
is "$?" 143 "a's job, SIGTERM: pollguard-touch exits 143"

# --- item 7: a directory that cannot be made again ---------------------------

mkdir -m 755 "$T/cp"
STATE=$T/cp/state mkconf "$T/c.conf" <<EOF
[cluster mail]
wait = 30s
kill_after = 2s
EOF
bg told "$TOUCH" -c "$T/c.conf" mail -- sh -c \
    'trap "echo told >\"$1\"; exit 0" TERM; sleep 60 & wait' sh "$T/told"
TOLD=$BGPID
crunning()
{
	[ "$(outcome "$T/c.conf" running)" = 1 ]
}
wait_for 20 crunning || diag_file "$T/told.err" "pollguard-touch"
t0=$(now_ms)
mv "$T/cp" "$T/cp.old" && : >"$T/cp"
if wait_for 12 test -s "$T/told"; then
	ok "cannot be made again: the job is told (SIGTERM), $(($(now_ms) - t0)) ms later (a refresh: 10 s)"
else
	not_ok "cannot be made again: the job is told (SIGTERM) within a refresh"
fi
wait_exit "$TOLD" 20
from "$T/told.err"
err_has "$T/cp/state" "the log names the directory"
err_like "(No such file or directory|Not a directory)" "... and why"
err_has "SIGTERM" "... and that the job was sent SIGTERM"
rm -f "$T/cp"
mv "$T/cp.old" "$T/cp"

# A pipeline: logs loudly, tries again at each refresh, records once it can.
mkdir -m 755 "$T/fp"
STATE=$T/fp/state mkconf "$T/f.conf" <<EOF
[cluster mail]
wait = 30s
EOF
bg filt bash -c 'for ((i = 0; i < 120; i++)); do echo "$i"; sleep 0.1; done |
    "$1" -f -c "$2" mail' sh "$TOUCH" "$T/f.conf"
FILT=$BGPID
wait_for 10 test -s "$T/fp/state/mail" || diag_file "$T/filt.err" "touch -f"
mv "$T/fp" "$T/fp.old" && : >"$T/fp"
if wait_for 10 grep -q "cannot see" "$T/filt.err"; then
	ok "-f: says that the peers cannot see this node"
else
	not_ok "-f: says that the peers cannot see this node"
	diag_file "$T/filt.err" "touch -f"
fi
from "$T/filt.err"
err_has "$T/fp/state" "-f: names the directory"
rm -f "$T/fp"
mkdir -m 755 "$T/fp"
assert "-f: records again once the directory can be made" \
    wait_for 10 test -s "$T/fp/state/mail"
assert "-f: still running" _pg_alive "$FILT"
wait_exit "$FILT" 60
is "$?" 0 "-f: exit 0 at the end of the data"

# --- item 8: a withdrawal on a full file system ------------------------------

# As root, a mount namespace that a holder keeps: a's state directory is a
# tmpfs of 64 kB there. a's serve and check run in it; b's outside.
N8=18
ns_why=
if [ "$(id -u)" -ne 0 ]; then
	ns_why="not root: cannot mount a file system in a mount namespace"
elif ! command -v unshare >/dev/null 2>&1 || ! command -v nsenter >/dev/null 2>&1; then
	ns_why="unshare(1) or nsenter(1) not installed (util-linux)"
else
	mkdir "$T/am"
	bg nsholder unshare -m --propagation private sh -c \
	    'mount -t tmpfs -o size=64k,mode=755 pgfull "$1" &&
	    echo mounted >&2 && exec sleep 600' sh "$T/am"
	NSPID=$BGPID
	wait_for 10 grep -qs mounted "$T/nsholder.err" ||
	    ns_why="cannot mount a tmpfs in a mount namespace: $(head -n 1 "$T/nsholder.err")"
fi
NS=(nsenter -t "${NSPID:-0}" -m --)

SHIM=$PG_BUILD/tests/preempt.so
[ -f "$SHIM" ] || ns_why="tests/preempt.so is not built (make tests/preempt.so)"
if [ -n "$ns_why" ]; then
	skip "$ns_why" "$N8"
else
	mkdir -m 755 "$T/b8"
	# nodeconf NODE STATE [LINES]: $T/NODE8.conf, settle 1s, timeout
	# 500ms (a claim's horizon: 3.5 s; a check held longer withdraws
	# as too slow, which is a withdrawal too), then LINES.
	nodeconf()
	{
		printf '[pollguard]\nnode = %s\nstate = %s\nsettle = 1s\ntimeout = 500ms\n%s\n' \
		    "$1" "$2" "${3:-}" >"$T/${1}8.conf"
		chmod 600 "$T/${1}8.conf"
	}
	nodeconf b "$T/b8" $'[cluster mail]\nwait = 20s'
	serve_start sb8 "$T/b8.conf" || bail "b's serve did not start"
	BP=$PORT
	nodeconf a "$T/am" "[peer b]
url = http://127.0.0.1:$BP/
[cluster mail]
wait = 20s
peers = b"
	printf '#!/bin/sh\nexec nsenter -t %s -m -- "$@"\n' "$NSPID" >"$T/ns"
	chmod 755 "$T/ns"
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$T/ns" "$SERVE" >"$T/nsserve"
	chmod 755 "$T/nsserve"
	SERVE_BIN=$T/nsserve serve_start sa8 "$T/a8.conf" ||
	    bail "a's serve (in the namespace) did not start"
	AP=$PORT
	nodeconf b "$T/b8" "[peer a]
url = http://127.0.0.1:$AP/
[cluster mail]
wait = 20s
peers = a"

	# round LABEL [rm-link [AGE]]: a's record AGE ms old (60 s: idle;
	# written at W0, now_ms), b's 60 s old; a's check claims and is held
	# after its claim (tests/preempt.so) while the tmpfs is filled (with
	# rm-link, the claim's link removed first) and b made active; then
	# it withdraws. With AGE, not waited for.
	round()
	{
		local l=$1
		rm -f "$T/go8" "$T/go8.held"
		"${NS[@]}" rm -f "$T/am/fill"
		W0=$(now_ms)
		"${NS[@]}" "$PGSTATE" -c "$T/a8.conf" write mail "${3:-60000}"
		"$PGSTATE" -c "$T/b8.conf" write mail 60000
		"${NS[@]}" cat "$T/am/mail" >"$T/saved"
		bg chk8 "${NS[@]}" env LD_PRELOAD="$SHIM" \
		    PG_PREEMPT_ROUND2_UNTIL="$T/go8" \
		    "$CHECK" -v -c "$T/a8.conf" mail
		wait_for 10 test -e "$T/go8.held" ||
		    diag_file "$T/chk8.err" "a's check did not claim"
		[ -z "${2:-}" ] || "${NS[@]}" rm -f "$T/am/.mail.undo"
		"${NS[@]}" sh -c 'cat /dev/zero >"$1"' sh "$T/am/fill" \
		    2>"$T/fill.err"
		"$PGSTATE" -c "$T/b8.conf" write mail 3000
		: >"$T/go8"
		[ -z "${3:-}" ] || return 0
		wait_exit "$BGPID" 30
		is "$?" 1 "$l: a's check withdraws (exit 1)"
		if ! grep -q withdraw "$T/chk8.err"; then
			diag_file "$T/chk8.err" "a's check"
		fi
		assert "$l: the file system was full" \
		    grep -q "No space left" "$T/fill.err"
	}

	round "full"
	from "$T/chk8.err"
	err_lacks "cannot withdraw" "full: the claim is withdrawn"
	assert "full: a's record is the one before, byte for byte" \
	    "${NS[@]}" cmp -s "$T/saved" "$T/am/mail"
	ask "$AP"
	num_between "$BODY" 60000 120000 "full: a's serve answers the old record's age"
	exit_is 0 "full: the next round on b goes" "$CHECK" -c "$T/b8.conf" mail

	round "full, the link removed" rm-link
	from "$T/chk8.err"
	err_has "cannot withdraw" "the restore fails: said"
	err_has "removed instead" "the claim is removed instead"
	ask "$AP"
	is "$CODE $BODY" "200 never" "a's serve answers never: the record before was idle"
	exit_is 0 "the restore failed: the next round on b goes all the same" \
	    "$CHECK" -c "$T/b8.conf" mail

	# The record before was active (5 s of 20): the claim stands for
	# it until it would be idle, 15 s after it was written, then goes.
	# Unless staging the round took that long (a sanitizer build at
	# load): then there is nothing left to see.
	round "active before" rm-link 5000
	staged=$(($(now_ms) - W0))
	if [ "$staged" -ge 13000 ]; then
		wait_exit "$BGPID" 30
		skip "active before: staging the round took ${staged} ms of the record's 15 s" 6
	else
		exit_is 1 "active before: meanwhile b's check skips, as it would for that record" \
		    "$CHECK" -c "$T/b8.conf" mail
		wait_exit "$BGPID" 30
		is "$?" 1 "... a's check withdraws (exit 1)"
		took=$(($(now_ms) - W0))
		assert "... once that record would be idle: ${took} ms after it was written 5 s old (wait 20 s)" \
		    test "$took" -ge 14900
		from "$T/chk8.err"
		err_has "stands for the record it replaced" \
		    "... the claim stood for it, said"
		ask "$AP"
		is "$CODE $BODY" "200 never" "... then a's serve answers never"
		exit_is 0 "... and the next round on b goes" \
		    "$CHECK" -c "$T/b8.conf" mail
	fi
	kill -TERM "$NSPID" 2>/dev/null
fi

# --- a claim's link that a crash left -----------------------------------------

mkdir -m 755 "$T/sw"
STATE=$T/sw mkconf "$T/sw.conf" <<EOF
[cluster mail]
wait = 30s
EOF
"$TOUCH" -c "$T/sw.conf" mail
ln "$T/sw/mail" "$T/sw/.mail.undo"
"$TOUCH" -c "$T/sw.conf" mail
assert "a young .mail.undo stays (a check may be using it)" test -e "$T/sw/.mail.undo"
if faked_init; then
	# Ten minutes and more later, by the clock the sweep reads.
	FAKETIME_DONT_FAKE_MONOTONIC=1 "$FAKED" "+1h" "$TOUCH" -c "$T/sw.conf" mail
	assert "a stale .mail.undo is swept" test ! -e "$T/sw/.mail.undo"
	assert "... and the record stays" test -s "$T/sw/mail"
else
	skip "libfaketime is not installed" 2
fi

finish
