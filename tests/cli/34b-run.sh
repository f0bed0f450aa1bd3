#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-run (issue 34): "pollguard-check cluster && pollguard-touch
# cluster -- command" in one process, on real serves on loopback (nodes a
# and b, settle 200ms, wait 60s).
#
# (1) -n says what it would do, and claims and runs nothing.
# (2) A go runs the job; the job's run start is recorded at the go: the
#     job's first command, asking b, already finds a running (and no
#     longer deciding: the claim lock is let go once the start is
#     recorded).
# (3) While a's job runs, b skips (exit 1) without running its job; -n
#     says it would not run; pollguard-touch -- job on b, at a terminal,
#     warns that a is running and names pollguard-run (not under cron).
# (4) -w 1s gives up (exit 1) after a second while a is active.
# (5) -w goes once a's activity ages out (a's record made 59 s old): not
#     before, and after at least one more try.
# (6) The job's exit status, a runtime limit (-t: 124), and the outcome
#     recorded, on a standalone cluster; with a start ping that hangs,
#     the run shows going before the job starts.
# (7) Ten rounds of a and b racing with pollguard-run: never both run.
. "${PG_TOP:-.}/tests/lib.sh"

RUN=$PG_BIN/pollguard-run
need_built "$RUN" "$PG_BUILD/tests/stallproxy"

fleet_start "settle = 200ms" a b
AGED=59000	# a's record, a second short of the wait

# --- (1) -n ------------------------------------------------------------------

before=$(state_ls "$T/a.state")
exit_is 0 "-n, nobody active: exit 0 (a go)" \
    "$RUN" -n -c "$T/a.conf" mail -- touch "$T/n1"
err_has "would run touch; nothing claimed, nothing run" "... says so"
assert "... runs nothing" test ! -e "$T/n1"
is "$("$PGSTATE" -c "$T/a.conf" read mail)" never \
    "... claims nothing: a's record is still never"
is "$(state_ls "$T/a.state")" "$before" "... and writes nothing"

# --- (2) a go: the job runs, its start recorded at the go --------------------

# The job's first command asks b's view of a, then waits for the file go.
bg arun "$RUN" -v -c "$T/a.conf" mail -- sh -c \
    "$PG_BIN/pollguard-status -j -c $T/b.conf mail >$T/seen.json;
    touch $T/a.started; i=0; while [ ! -e $T/go ] && [ \$i -lt 200 ];
    do sleep 0.05; i=\$((i + 1)); done; exit 0"
APID=$BGPID
wait_for 20 test -e "$T/a.started" || bail "a's job did not start"
A=$(grep -o '{"name":"a"[^}]*' "$T/seen.json")
case $A in
*'"running":true'*'"deciding":false'* | *'"deciding":false'*'"running":true'*)
	ok "the job's first command finds a running, no longer deciding" ;;
*)
	not_ok "the job's first command finds a running, no longer deciding"
	diag "b saw a as: $A" ;;
esac

# --- (3) b skips while a runs ---------------------------------------------

exit_is 1 "b while a's job runs: exit 1 (skip)" \
    "$RUN" -c "$T/b.conf" mail -- touch "$T/b3"
assert "... b's job did not run" test ! -e "$T/b3"
exit_is 1 "b -n: exit 1" "$RUN" -n -c "$T/b.conf" mail -- touch "$T/b3"
err_has "would not run touch" "... says it would not run"

# pollguard-touch -- job ignores the peers by design; at a terminal it
# says so when one is active, and names pollguard-run; under cron not.
if ! timeout 10 script -qec 'test -t 2' /dev/null >/dev/null 2>&1; then
	skip "script(1) cannot give a terminal here" 2
else
	timeout -k 5 20 script -qec "$TOUCH -c $T/b.conf mail -- touch $T/t3" \
	    /dev/null </dev/null 2>&1 | tr -d '\r' >"$T/tty"
	assert "touch -- job at a terminal, a running: warns, names pollguard-run" \
	    grep -q "peer a is running a job.*pollguard-run mail -- touch" "$T/tty"
	assert "... and runs the job all the same" test -e "$T/t3"
fi
exit_is 0 "touch -- job, not at a terminal: runs the job" \
    "$TOUCH" -c "$T/b.conf" mail -- true
err_empty "... and says nothing"

# --- (4) -w gives up ---------------------------------------------------------

t0=$(now_ms)
exit_is 1 "b -w 1s while a is active: exit 1" \
    "$RUN" -v -w 1s -c "$T/b.conf" mail -- touch "$T/b4"
t=$(($(now_ms) - t0))
assert "... after waiting a second (${t} ms)" test "$t" -ge 1000
err_has "waited 1s for the round, in vain" "... says it gave up"
assert "... b's job did not run" test ! -e "$T/b4"

touch "$T/go"
wait_exit "$APID" 20
is "$?" 0 "a's run: exit 0, the job's"

# --- (5) -w goes once a's activity ages out --------------------------------

"$PGSTATE" -c "$T/a.conf" write mail "$AGED" || bail "pgstate write"
bg bwait "$RUN" -v -w 20s -c "$T/b.conf" mail -- sh -c \
    "$PGSTATE -c $T/a.conf read mail >$T/b5.age"
wait_exit "$BGPID" 30
is "$?" 0 "b -w 20s: exit 0 once a's activity aged out"
age=$(cat "$T/b5.age" 2>/dev/null)
assert "... b's job ran only once a was idle (a's age then: ${age:-none} ms)" \
    test "${age:-0}" -ge 60000
assert "... after trying again" grep -q 'waiting for the round' \
    "$T/bwait.err"

# --- (6) the job's status, -t, the outcome -----------------------------------

mkconf <<EOF
[cluster solo]
wait = 10s
EOF
exit_is 7 "standalone: the job's exit status, 7" \
    "$RUN" -q -c "$CONF" solo -- sh -c 'exit 7'
is "$("$PGSTATE" -c "$CONF" outcome solo | grep -E '^(run|exit) ')" "run done
exit 7" "... recorded as its outcome"
exit_is 124 "-t 300ms: the job ended at its limit, exit 124" \
    "$RUN" -q -t 300ms -c "$CONF" solo -- sleep 10
# pollguard-run ignores SIGPIPE while it decides; its job does not.
exit_is 0 "the job's signal mask read" "$RUN" -q -c "$CONF" solo -- \
    grep '^SigIgn:' /proc/self/status
ign=$(awk '{ print $2 }' "$T/out")
is "$(( 0x${ign:-0} >> 12 & 1 ))" 0 "... SIGPIPE is not ignored in the job"

# The start ping that hangs (a stallproxy stalled from the start) comes
# after the run's start is recorded: the node shows a run going while the
# job waits for the ping, and the run lasts from the go. The ping's
# timeout, 2 s (5, its maximum, in a sanitizer build), is the window to
# see it in.
PT=2
[ "$PG_SLOW" -eq 1 ] || PT=5
stall_start
mkconf <<EOF
[cluster solo]
wait = 10s
ping = $STALL_URL/ping
ping_timeout = ${PT}s
EOF
bg pinged "$RUN" -q -c "$CONF" solo -- touch "$T/p6"
running() { "$PGSTATE" -c "$CONF" outcome solo | grep -q '^run running'; }
wait_for 10 running
assert "a hung start ping: the run shows going before the job starts" \
    test "$?" -eq 0 -a ! -e "$T/p6"
wait_exit "$BGPID" 20
is "$?" 0 "... then the job runs, after the ping's timeout"
d=$("$PGSTATE" -c "$CONF" outcome solo | sed -n 's/^duration_ms //p')
assert "... and the run lasts from the go, the ping included (${d} ms)" \
    test "${d:-0}" -ge $((PT * 1000))

# --- (7) a race of ten rounds ------------------------------------------------

both=0 one=0
for ((round = 1; round <= 10; round++)); do
	# Both nodes idle, no claim left: every round is contested.
	"$PGSTATE" -c "$T/a.conf" write mail "$OLD_MS" &&
	    "$PGSTATE" -c "$T/b.conf" write mail "$OLD_MS" ||
	    bail "pgstate write"
	rm -f "$T/ran.a" "$T/ran.b"
	race_arm
	for n in a b; do
		racer 0 "$RUN" -v -c "$T/$n.conf" mail -- sh -c \
		    "touch $T/ran.$n; sleep 0.05"
	done
	race_go
	race_wait
	ran=0
	for n in a b; do
		[ -e "$T/ran.$n" ] && ran=$((ran + 1))
	done
	[ "$ran" -eq 2 ] && both=$((both + 1)) &&
	    diag "round $round: both ran" && diag_file "$T/r1.err" a &&
	    diag_file "$T/r2.err" b
	[ "$ran" -eq 1 ] && one=$((one + 1))
	for k in 1 2; do
		case ${RACE_RC[$k]} in
		0|1|2) ;;
		*) diag "round $round: racer $k exited ${RACE_RC[$k]}"
		   diag_file "$T/r$k.err" ;;
		esac
	done
done
is "$both" 0 "ten rounds raced: never both ran"
assert "... and in $one of them one node ran" test "$one" -ge 1

finish
