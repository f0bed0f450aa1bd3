#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-touch -- command: the runtime limit (max_runtime, kill_after,
# -t) ends the job's whole process group; signals reach the whole group;
# the outcome record (its part of .ID.side): success, failure, signal, timeout,
# died, the failure count, a damaged or missing file; the heartbeat still
# covers a job that runs past wait without a limit.
. "${PG_TOP:-.}/tests/lib.sh"

mkconf <<EOF
[cluster ok]
wait = 10s
[cluster to]
wait = 10s
max_runtime = 1s
kill_after = 1500ms
[cluster tt]
wait = 10s
max_runtime = 30s
kill_after = 500ms
[cluster sig]
wait = 10s
[cluster hup]
wait = 10s
[cluster died]
wait = 10s
[cluster dmg]
wait = 10s
[cluster long]
wait = 10s
[cluster orphan]
wait = 10s
max_runtime = 1s
kill_after = 20s
EOF

# outcome CLUSTER [KEY]: what pgstate outcome prints, or one field of it.
outcome()
{
	if [ $# -eq 1 ]; then
		"$PGSTATE" -c "$CONF" outcome "$1" 2>&1
	else
		"$PGSTATE" -c "$CONF" outcome "$1" 2>&1 | sed -n "s/^$2 //p"
	fi
}

# fields CLUSTER KEY...: "KEY=VALUE ..." for the keys given.
fields()
{
	local c=$1 k out=
	shift
	for k in "$@"; do
		out="$out $k=$(outcome "$c" "$k")"
	done
	echo "${out# }"
}

# none_alive FILE: no process whose PID is listed in FILE still runs (a
# zombie waiting for init to reap it does not).
none_alive()
{
	local p
	for p in $(cat "$1"); do
		_pg_alive "$p" && { diag "PID $p still runs"; return 1; }
	done
	return 0
}

# --- without a limit, a job running past wait stays covered (in the
# background while the rest runs: it takes 12 s) ---

bg long "$TOUCH" -c "$CONF" long -- sleep 12
LONG=$BGPID
bg ages bash -c 'while kill -0 "$1" 2>/dev/null; do
	"$2" -c "$3" read long; sleep 0.25; done' sh "$LONG" "$PGSTATE" "$CONF"
AGES=$BGPID

# --- the outcome of plain runs, and the failure count ---

is "$(outcome ok)" none "no run yet: no outcome"
exit_is 0 "touch without a command: exit 0" "$TOUCH" -c "$CONF" ok
is "$(outcome ok)" none "touch without a command records no outcome"
t1=$(now_ms)
exit_is 0 "-- true: exit 0" "$TOUCH" -c "$CONF" ok -- true
is "$(fields ok run running exit signal timed_out failures)" \
    "run=done running=0 exit=0 signal=0 timed_out=0 failures=0" \
    "-- true: outcome success"
num_between "$(outcome ok duration_ms)" 0 2000 "-- true: a short duration"
# Ended after t1: no longer ago than the time since (and a clock's tick).
ago=$(outcome ok end_ago)
num_between "$ago" 0 $(($(now_ms) - t1 + 100)) "-- true: ended just now"
ago=$(outcome ok success_ago)
num_between "$ago" 0 $(($(now_ms) - t1 + 100)) "-- true: the last success is now"
is "$(head -n 1 "$STATE/.ok.side")" "pollguard-outcome 1" "the file starts with its version"
is "$(stat -c %a "$STATE/.ok.side")" 644 "the outcome file is mode 0644"
assert "the outcome file is not the record of a cluster named ok.side" \
    test ! -e "$STATE/ok.side"

exit_is 3 "-- exit 3: exit 3" "$TOUCH" -c "$CONF" ok -- sh -c 'exit 3'
is "$(fields ok exit signal failures)" "exit=3 signal=0 failures=1" \
    "-- exit 3: outcome exit 3, one failure"
exit_is 1 "-- false: exit 1" "$TOUCH" -c "$CONF" ok -- false
is "$(outcome ok failures)" 2 "-- false: two failures in a row"
sa=$(outcome ok success_ago) ea=$(outcome ok end_ago)
assert "the last success ($sa ms ago) stays, older than the failed end ($ea ms ago)" \
    test -n "$sa" -a -n "$ea" -a "${sa:-0}" -gt "${ea:-0}"
exit_is 137 "-- killed by SIGKILL: exit 137" \
    "$TOUCH" -c "$CONF" ok -- sh -c 'kill -KILL $$'
is "$(fields ok exit signal timed_out failures)" \
    "exit=-1 signal=9 timed_out=0 failures=3" "killed: outcome signal 9, three failures"
exit_is 0 "-- true again: exit 0" "$TOUCH" -c "$CONF" ok -- true
is "$(outcome ok failures)" 0 "a success resets the failures"
exit_is 127 "-- a command not found: exit 127" \
    "$TOUCH" -c "$CONF" ok -- "$T/no-such-command"
is "$(fields ok exit failures)" "exit=127 failures=1" "not found: outcome exit 127, a failure"

# --- running, then died: pollguard-touch killed by SIGKILL ---

running_is()
{
	[ "$(outcome "$1" running)" = "$2" ]
}
bg died "$TOUCH" -c "$CONF" died -- sleep 30
DIED=$BGPID
if wait_for 5 running_is died 1; then
	ok "a run going: outcome running 1"
else
	not_ok "a run going: outcome running 1"
	diag "$(outcome died)"
fi
JOB=$(outcome died pid)
is "$(cat "/proc/$JOB/comm" 2>/dev/null)" sleep "the outcome's pid is the command's"
is "$(outcome died run)" running "run lock held: the run reads as running"
is "$(ps -o pgid= -p "$JOB" | tr -d ' ')" "$JOB" "the command leads a process group of its own"
kill -KILL "$DIED"
wait_exit "$DIED" 5 >/dev/null 2>&1
is "$(fields died running run)" "running=1 run=died" \
    "touch killed: still says running, and reads as died"
exit_is 0 "pollguard-status of the died run: exit 0" \
    "$PG_BIN/pollguard-status" -c "$CONF" died
grep -qE '^died +[^ ]+ \(self\) +yes +[0-9.]+m?s ago +no +- +1 +[0-9]+ppm +-$' "$T/out" &&
    ok "... not running, one failure (pollguard-touch(1))" ||
    { not_ok "... not running, one failure"; diag_file "$T/out" stdout; }
# A count edited by hand to the largest number: the died run adds none,
# and the status caps it (it wrapped to 0: a failing node read as fine).
sed -i 's/^failures 0$/failures 9223372036854775807/' "$STATE/.died.side"
"$PG_BIN/pollguard-status" -c "$CONF" died >"$T/out" 2>&1
grep -qE '^died +[^ ]+ \(self\) +yes +[0-9.]+m?s ago +no +- +2147483647 +[0-9]+ppm +-$' \
    "$T/out" && ok "a count at its largest reads capped, not wrapped" ||
    { not_ok "a count at its largest"; diag_file "$T/out" stdout; }
sed -i 's/^failures 9223372036854775807$/failures 0/' "$STATE/.died.side"
stop_pids "$JOB"
exit_is 1 "the next run: -- false" "$TOUCH" -c "$CONF" died -- false
is "$(outcome died failures)" 2 "the died run counts as a failure"

# --- the runtime limit ---

cat >"$T/job.sh" <<'EOF'
# A job whose grandchild ignores SIGTERM, and one that does not.
sh -c 'trap "" TERM; echo $$ >>"$1"; exec sleep 30' sh "$1" &
sleep 30 &
echo $! >>"$1"
echo $$ >>"$1"
wait
EOF
: >"$T/to.pids"
t0=$(now_ms)
exit_is 124 "max_runtime 1s, a grandchild ignores SIGTERM: exit 124" \
    "$TOUCH" -c "$CONF" to -- sh "$T/job.sh" "$T/to.pids"
took=$(($(now_ms) - t0))
num_between "$took" 2400 6000 "it took max_runtime + kill_after (2.5s): ${took}ms"
is "$(wc -l <"$T/to.pids" | tr -d ' ')" 3 "the job wrote its three PIDs"
assert "after max_runtime + kill_after nothing of the job survives" none_alive "$T/to.pids"
is "$(fields to running timed_out exit signal failures)" \
    "running=0 timed_out=1 exit=-1 signal=15 failures=1" \
    "outcome: timed out, the command ended by SIGTERM"
num_between "$(outcome to duration_ms)" 900 6000 "outcome: the duration is about the limit"
err_empty "a timeout is silent on a non-terminal stderr (syslog has it)"

t0=$(now_ms)
exit_is 124 "max_runtime 1s, a job that obeys SIGTERM: exit 124" \
    "$TOUCH" -c "$CONF" to -- sleep 30
took=$(($(now_ms) - t0))
num_between "$took" 900 2300 "no wait for kill_after when SIGTERM is enough: ${took}ms"
is "$(outcome to failures)" 2 "a second timeout: two failures"

exit_is 0 "-t 0 lifts max_runtime: a 1.5s job exits 0" \
    "$TOUCH" -c "$CONF" -t 0 to -- sleep 1.5
is "$(fields to timed_out failures)" "timed_out=0 failures=0" "-t 0: not timed out"

t0=$(now_ms)
exit_is 124 "-t 500ms overrides max_runtime 30s: exit 124" \
    "$TOUCH" -c "$CONF" -t 500ms tt -- sleep 30
took=$(($(now_ms) - t0))
num_between "$took" 400 4000 "-t 500ms: ended after about half a second: ${took}ms"
is "$(outcome tt timed_out)" 1 "-t 500ms: outcome timed out"
exit_is 0 "-t 2s, a job that ends in time: exit 0" \
    "$TOUCH" -c "$CONF" -t 2s tt -- sleep 0.2
is "$(outcome tt timed_out)" 0 "a job ending within -t: not timed out"

# --- signals to pollguard-touch reach the whole group ---

cat >"$T/sig.sh" <<'EOF'
F=$1
sh -c 'trap "echo child >>\"\$1\"; exit 0" TERM; : >"$1.child"
	while :; do sleep 0.1; done' sh "$F" &
trap 'echo leader >>"$F"; wait; exit 5' TERM
: >"$F.leader"
while :; do sleep 0.1; done
EOF
bg sig "$TOUCH" -c "$CONF" sig -- sh "$T/sig.sh" "$T/sig.got"
SIG=$BGPID
if wait_for 5 test -e "$T/sig.got.child" -a -e "$T/sig.got.leader"; then
	kill -TERM "$SIG"
	wait_exit "$SIG" 10
	is "$?" 5 "SIGTERM to touch: it waits for the command and exits with its status (5)"
	is "$(sort "$T/sig.got" 2>/dev/null | tr '\n' ' ')" "child leader " \
	    "SIGTERM reached the command and its child (the whole group)"
	is "$(fields sig running exit signal timed_out failures)" \
	    "running=0 exit=5 signal=0 timed_out=0 failures=1" \
	    "SIGTERM: the outcome is recorded"
else
	not_ok "the signal job started"
	skip "the signal job did not start" 2
fi

bg hup "$TOUCH" -c "$CONF" hup -- sh -c 'sleep 30 & echo $! >"$1"; wait' sh "$T/hup.pid"
HUP=$BGPID
if wait_for 5 test -s "$T/hup.pid"; then
	kill -HUP "$HUP"
	wait_exit "$HUP" 10
	is "$?" 129 "SIGHUP to touch: the command dies of it, exit 129"
	assert "SIGHUP reached the command's child too" none_alive "$T/hup.pid"
	is "$(fields hup signal failures)" "signal=1 failures=1" "SIGHUP: outcome signal 1"
else
	not_ok "the SIGHUP job started"
	skip "the SIGHUP job did not start" 2
fi

# --- a damaged outcome file breaks nothing; unknown keys are ignored ---

printf 'garbage\n' >"$STATE/.dmg.side"
"$PGSTATE" -c "$CONF" outcome dmg >"$T/out" 2>"$T/err"
is "$?" 1 "a damaged outcome file: reading it fails"
err_has "Bad message" "a damaged outcome file: EBADMSG"
exit_is 0 "a damaged outcome file: check still goes" "$CHECK" -c "$CONF" dmg
exit_is 0 "a damaged outcome file: touch -- true still runs" \
    "$TOUCH" -c "$CONF" dmg -- true
err_empty "a damaged outcome file: replaced without a word"
is "$(fields dmg exit failures)" "exit=0 failures=0" "the damaged file is replaced"
num_between "$(record dmg)" 0 5000 "the activity record is fresh"
echo "later_key some value" >>"$STATE/.dmg.side"
is "$(outcome dmg exit)" 0 "a key of a later version is ignored"

# --- the keys are validated like the other durations ---

# badconf LINES DESC [N]: a config whose cluster has LINES (from line 5)
# is refused, naming line N (5).
badconf()
{
	printf '[pollguard]\nstate = %s\n[cluster x]\nwait = 10s\n%s\n' \
	    "$STATE" "$1" >"$T/bad.conf"
	exit_is 78 "$2: exit 78" "$TOUCH" -c "$T/bad.conf" x -- true
	err_has "$T/bad.conf:${3:-5}: " "$2: the error names file and line"
}
badconf "max_runtime = 99ms" "max_runtime below 100ms"
err_has "max_runtime: 99ms is too small (minimum 100ms)" "max_runtime 99ms: says the minimum"
badconf "max_runtime = 31d" "max_runtime above 30d"
badconf "max_runtime = soon" "max_runtime not a duration"
err_has "max_runtime: invalid duration 'soon'" "max_runtime soon: says why"
badconf "kill_after = 0" "kill_after 0"
badconf "kill_after = 2h" "kill_after above 1h"
err_has "kill_after: 2h is too large (maximum 1h)" "kill_after 2h: says the maximum"
badconf "max_runtime = 1s
max_runtime = 2s" "max_runtime set twice" 6
printf '[pollguard]\nstate = %s\n[cluster x]\nwait = 10s\nmax_runtime = 500ms\nkill_after = 100ms\n' \
    "$STATE" >"$T/small.conf"
exit_is 124 "max_runtime 500ms, kill_after 100ms: small values work" \
    "$TOUCH" -c "$T/small.conf" x -- sleep 30

# --- under an init that never reaps (a container's shell) ---

# A grandchild orphaned in the job's group dies at the runtime limit's
# SIGTERM with the job. Its zombie would keep the group alive until the
# SIGKILL, kill_after (20s) later; touch reaps its job's orphans itself
# (PR_SET_CHILD_SUBREAPER) and ends at once. PID 1 of a PID namespace is
# a perl that waits for touch alone.
if [ "$(id -u)" -ne 0 ] || ! unshare -fp true 2>/dev/null; then
	skip "no PID namespace (needs root and unshare -p)" 2
else
	t0=$(now_ms)
	exit_is 124 "an init that never reaps, an orphan in the job's group: exit 124" \
	    unshare -fp --kill-child perl -e 'my $p = fork // exit 71;
		exec @ARGV or exit 127 if $p == 0;
		waitpid($p, 0); exit($? & 127 ? 128 + ($? & 127) : $? >> 8)' \
	    "$TOUCH" -c "$CONF" orphan -- sh -c '(sleep 30 &); sleep 30'
	num_between "$(($(now_ms) - t0))" 0 10000 \
	    "... at the limit, not at its SIGKILL 20s later"
fi

# --- the long job: never older than a refresh interval while it ran ---

wait_exit "$LONG" 20
is "$?" 0 "a 12s job with wait 10s and no limit: exit 0"
wait_exit "$AGES" 5 >/dev/null
max=$(sort -n "$T/ages.out" | tail -n 1)
diag "$(wc -l <"$T/ages.out") samples of the record's age, the oldest ${max}ms"
num_between "${max:-x}" 0 5000 "past wait, the record stayed fresh (refreshed every wait/3)"
num_between "$(outcome long duration_ms)" 11500 20000 "the long job's outcome: about 12s"
# Asked once nothing writes: the long job's refreshes make temporaries
# for a moment while it runs.
is "$(state_ls | grep '^\.tmp' | tr '\n' ' ')" "" "no temporary files left behind"

finish
