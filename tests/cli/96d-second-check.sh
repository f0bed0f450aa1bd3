#!/bin/bash
# SPDX-License-Identifier: ISC
# A second check on the winning node (issue 22, break 2). Nodes a and b
# announce the fast rule to each other. b's first check keeps its claim
# and its job starts; a second check of the same cluster on b (a second
# cron line, a timer, an operator), started after that claim but before
# the job took the run lock, would claim later than a and then
# withdraw; a's round 2 would read only that later claim ("it saw
# ours"), not count b, ignore "running 1", and keep: both jobs run. Now
# the second check skips at once (exit 2, saying why): b's record holds
# the first check's claim, within its horizon.
#
# Staged with tests/preempt.so, each step waiting for the one before
# but for two holds far below the claim's horizon (6.5s): a also lists
# a peer that is down, so it sleeps settle/2 (510ms, settle 1s on both
# nodes) between its claim and round 2; b's second check is held
# PREEMPT_MS after each question it sends, as if preempted.
#  1. a's check asks round 1 (b: never), then waits before its claim (a
#     barrier of two parties; the test makes the second entry);
#  2. b's first check: a is idle, b claims and keeps: go;
#  3. b's second check starts, passes the run-lock test, and waits
#     before its round 1 (PG_PREEMPT_SEND_UNTIL);
#  4. b's job starts (pollguard-touch -- tests/clockrec), in stage 1;
#  5. b's second check asks a (idle) and is held after the send; 50ms
#     later a claims and sleeps;
#  6. b's second check claims, after a's claim, before a's round 2, and
#     is held after its claim;
#  7. a asks round 2 and decides (its job runs if it goes);
#  8. b's second check asks round 2 and decides; b's job starts here in
#     stage 2.
# Stage 3 has no second check: the staging alone, where a withdraws.
# With the fix, the second check ends at step 3. Each job logs its start
# and end on one CLOCK_MONOTONIC log: no two may overlap. Before the
# fix, a went in stages 1 and 2, its job overlapping b's.
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/preempt.so
CLOCKREC=$PG_BUILD/tests/clockrec
need_built "$SHIM" "$CLOCKREC"
LOG=$T/jobs.log
BHOLD=1500		# ms b's job runs
AHOLD=500		# ms a's job runs, if a goes
PREEMPT_MS=250		# b's second check, held after each send

fleet_start "settle = 1s" a b
sed -i 's/^peers = a, b$/peers = a, b, dead/' "$T/a.conf"
printf '[peer dead]\nurl = http://127.0.0.1:1/\n' >>"$T/a.conf"
grep -qx 'peers = a, b, dead' "$T/a.conf" || bail "a's config lacks peer dead"
ok "serves a, b on :${FLEET_PORT[a]}, :${FLEET_PORT[b]}; a also lists a peer that is down"
exit_is 0 "a goes alone (b idle, dead unreachable)" "$CHECK" -v -c "$T/a.conf" mail
err_like "settling [0-9]+ms" "... sleeping between its claim and round 2"

# claim_of NODE: the claim field of NODE's record (empty: none).
claim_of()
{
	local m v b mono wall claim rest
	read -r m v b mono wall claim rest <"$T/$1.state/mail" 2>/dev/null
	echo "${claim:-}"
}
# claim_changed NODE OLD: NODE's record holds a claim other than OLD.
claim_changed()
{
	local c
	c=$(claim_of "$1")
	[ -n "$c" ] && [ "$c" != "$2" ]
}
has_entry()
{
	local f
	for f in "$1"/*; do
		[ -e "$f" ] && return 0
	done
	return 1
}
# gone_or PID FILE: the process ended, or FILE exists.
gone_or()
{
	! _pg_alive "$1" || [ -e "$2" ]
}
log_has()
{
	grep -q "$1" "$LOG" 2>/dev/null
}
# give_up MESSAGE FILE...: show the files, and bail out.
give_up()
{
	local m=$1 f
	shift
	for f; do
		diag_file "$T/$f" "$f"
	done
	bail "$m"
}
# bjob N: start b's job, as "check && pollguard-touch -- job" runs it;
# JPID. bjob_started N: wait until it logged its start.
bjob()
{
	bg "jb$1" "$TOUCH" -c "$T/b.conf" mail -- "$CLOCKREC" -h "$BHOLD" \
	    "$LOG" job b "$1"
	JPID=$BGPID
}
bjob_started()
{
	wait_for 10 log_has "^job b $1 start" ||
	    give_up "($1) b's job did not start" "jb$1.err" "b2-$1.err"
}

# stage N MODE: MODE "running" (stage 1), "late" (2) or "alone" (3).
stage()
{
	local n=$1 mode=$2 apid b2pid=0 ajpid=0 c1 arc b2rc=2
	JPID=0
	rm -f "$T/a.state/mail" "$T/b.state/mail" "$T"/go.* "$T"/send.*
	rm -rf "$T/gate.a"
	mkdir "$T/gate.a" || bail "mkdir $T/gate.a"

	# 1.
	bg "a$n" env LD_PRELOAD="$SHIM" PG_PREEMPT_RENAME_BARRIER="$T/gate.a" \
	    PG_PREEMPT_RENAME_PARTIES=2 "$CHECK" -v -c "$T/a.conf" mail
	apid=$BGPID
	wait_for 10 has_entry "$T/gate.a" ||
	    give_up "($n) a's check did not reach its claim" "a$n.err"
	# 2.
	exit_is 0 "($n) b's first check keeps its claim: go" \
	    "$CHECK" -v -c "$T/b.conf" mail
	cp "$T/err" "$T/b1-$n.err"
	c1=$(claim_of b)
	assert "($n) b's record holds its claim" test -n "$c1"
	# 3.
	if [ "$mode" != alone ]; then
		bg "b2-$n" env LD_PRELOAD="$SHIM" \
		    PG_PREEMPT_SEND_UNTIL="$T/send.b" \
		    PG_PREEMPT_MS="$PREEMPT_MS" PG_PREEMPT_RENAME_UNTIL="$T/go.b" \
		    "$CHECK" -v -c "$T/b.conf" mail
		b2pid=$BGPID
		wait_for 10 gone_or "$b2pid" "$T/send.b.held" ||
		    give_up "($n) b's second check neither ended nor came to round 1" \
		    "b2-$n.err"
	fi
	# 4.
	if [ "$mode" != late ]; then
		bjob "$n"
		bjob_started "$n"
	fi
	# 5.
	if [ "$b2pid" != 0 ] && _pg_alive "$b2pid"; then
		: >"$T/send.b"
		sleep 0.05
	fi
	touch "$T/gate.a/open"
	wait_for 10 test -e "$T/a.state/mail" ||
	    give_up "($n) a did not claim" "a$n.err"
	# 6.
	if [ "$b2pid" != 0 ] && _pg_alive "$b2pid"; then
		wait_for 10 claim_changed b "$c1" ||
		    diag "($n) b's second check did not claim"
	fi
	# 7.
	wait_exit "$apid" 30
	arc=$?
	cp "$T/a$n.err" "$T/err"
	if [ "$mode" = alone ]; then
		is "$arc" 1 "($n) no second check: a withdraws"
	else
		is "$arc" 1 "($n) a, with a second check on b, withdraws: exit 1, not 0"
	fi
	# At load (a sanitizer build) a's round may outlast what orders
	# claims: it withdraws for that, safely, before b's claim is weighed.
	if grep -q "took too long to order claims" "$T/err"; then
		skip "($n) ... since b kept its claim: a's round took too long to order claims"
	else
		err_like 'withdraw: b (kept its claim|claimed earlier)' \
		    "($n) ... since b kept its claim"
	fi
	if [ "$arc" = 0 ]; then
		bg "ja$n" "$TOUCH" -c "$T/a.conf" mail -- "$CLOCKREC" \
		    -h "$AHOLD" "$LOG" job a "$n"
		ajpid=$BGPID
		wait_for 10 log_has "^job a $n start"
	fi
	# 8. (A second check held after its claim holds b's record lock: in
	# stage 2 the job's first touch waits for it to go on.)
	[ "$mode" != late ] || bjob "$n"
	: >"$T/go.b"
	if [ "$b2pid" != 0 ]; then
		wait_exit "$b2pid" 30
		b2rc=$?
		cp "$T/b2-$n.err" "$T/err"
		is "$b2rc" 2 "($n) b's second check skips: exit 2"
		err_like "skip: another check on this node kept its claim [0-9]+ms ago" \
		    "($n) ... saying another check on b kept its claim"
		err_lacks "go, claimed" "($n) ... without claiming"
	fi
	[ "$mode" != late ] || bjob_started "$n"
	wait_exit "$JPID" 30
	is "$?" 0 "($n) b's job ran and ended"
	[ "$ajpid" = 0 ] || wait_exit "$ajpid" 30
	if [ "$arc" != 1 ] || [ "$b2rc" != 2 ]; then
		diag_file "$T/a$n.err" "($n) a's check"
		diag_file "$T/b1-$n.err" "($n) b's first check"
		[ "$b2pid" = 0 ] || diag_file "$T/b2-$n.err" "($n) b's second check"
	fi
}

: >"$LOG"
t0=$(now_ms)
stage 1 running
stage 2 late
stage 3 alone

overlaps=$(job_overlaps "$LOG" 2>"$T/overlaps")
diag "3 stages in $(( ($(now_ms) - t0) / 1000 ))s"
is "$overlaps" 0 "no two jobs overlap"
is "$(grep -c '^job a .* start ' "$LOG")" 0 "a's job never ran"
is "$(grep -c '^job b .* start ' "$LOG")" 3 "b's job ran in each stage"
[ "$overlaps" = 0 ] || { diag_file "$T/overlaps" overlaps; diag_file "$LOG" jobs; }

for n in a b; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done
finish
