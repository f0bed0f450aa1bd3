#!/bin/bash
# SPDX-License-Identifier: ISC
# A pipeline holds the run lock (doc/SAFETY.md, section 7, "A pipeline";
# the hole the model found in the go-to-start fix, section 10). A pipeline
# that a check started (check && producer | pollguard-touch -f) records no
# run start, so its node's claim stays pending, counted by every peer,
# until the wait has passed. Before, it held no run lock: a run by hand on
# that node meanwhile recorded its start, which ended the pending claim,
# and when that run failed a peer read "last run failed, nothing since",
# handed over and went beside the pipeline. Now pollguard-touch -f holds
# the run lock for its whole life: the run by hand exits 75 without
# running.
#
# Real processes on loopback: nodes a and b with their serves; settle
# 400ms, timeout 500ms (a claim's horizon of 2.6 s), wait 60s.
#
# (1) a's check goes; its pipeline starts, quiet; a run by hand on a
#     exits 75 (before, it ran and failed); once a's horizon has passed,
#     b's check skips, counting a (before, it went); a's own check skips
#     while the pipeline runs; after it, a run by hand runs again.
# (2) A run holds the lock when a pipeline starts: the pipeline passes its
#     data on and says so once; it takes the lock as data flows once the
#     run has ended. A pipeline inside a run of the cluster (the job of
#     pollguard-touch -- command) says nothing.
# (3) The state directory removed and made again under a quiet pipeline
#     that a's check started: it notices at once (inotify), records
#     activity and takes the run lock in the new one; b's check skips.
. "${PG_TOP:-.}/tests/lib.sh"

fleet_start "settle = 400ms
timeout = 500ms" a b
HORIZON=2600

a_status()
{
	curl -sf "http://127.0.0.1:${FLEET_PORT[a]}/v1/status/mail"
}
# a_past_horizon: a's claim is older than its horizon, or not shown.
a_past_horizon()
{
	local s c
	s=$(a_status) || return 1
	c=$(sed -n 's/^claim \([0-9]*\)$/\1/p' <<<"$s")
	[ -z "$c" ] || [ "$c" -ge $((HORIZON + 150)) ]
}
# a_locked: the run lock of mail is held in a's state directory.
a_locked()
{
	lock_held mail "$T/a.state"
}
# fresh: no records, no outcomes.
fresh()
{
	rm -f "$T/a.state/mail" "$T/b.state/mail" "$T"/[ab].state/.mail.*
}
# hand DESC: a run by hand on a (false) exits 75: a run is still going.
hand()
{
	exit_is 75 "$1" "$TOUCH" -c "$T/a.conf" mail -- false
	err_has "still going" "... saying that a run is still going"
}
# quiet NAME GO: a pipeline on a whose producer is silent until the file
# GO exists (a minute at most), then writes "data" and ends.
quiet()
{
	bg "$1" bash -c '{ for ((i = 0; i < 3000; i++)); do [ -e "$1" ] &&
	    break; sleep 0.02; done; echo data; } | "$2" -f -c "$3" mail' sh \
	    "$2" "$TOUCH" "$T/a.conf"
}
# flow NAME STOP: a pipeline on a whose producer writes a line every
# 0.2 s (at most 300) until the file STOP exists.
flow()
{
	bg "$1" bash -c 'for ((i = 0; i < 300; i++)); do [ -e "$1" ] && break;
	    echo "$i"; sleep 0.2; done | "$2" -f -c "$3" mail' sh "$2" \
	    "$TOUCH" "$T/a.conf"
}

# (1) A quiet pipeline started by a's check; a run by hand on a.
fresh
exit_is 0 "(1) a's check goes" "$CHECK" -c "$T/a.conf" mail
if [ "$RC" -ne 0 ]; then
	skip "(1) a's check did not go (a loaded machine?): nothing to attack" 11
else
	quiet pipe1 "$T/data1"
	P=$BGPID
	assert "(1) a's quiet pipeline holds the run lock" wait_for 10 a_locked
	hand "(1) a run by hand on a exits 75, not 1: it does not run"
	wait_for 10 a_past_horizon || diag "a's horizon has not passed: $(a_status)"
	assert "(1) a's serve still shows its claim, pending" \
	    eval 'a_status | grep -q "^claim "'
	exit_is 1 "(1) b counts a, whose pipeline runs: b skips, not 0" \
	    "$CHECK" -v -c "$T/b.conf" mail
	err_lacks "its last run failed: not counted" \
	    "(1) -v: b does not hand over beside a's pipeline"
	exit_is 2 "(1) a's own check skips while the pipeline runs" \
	    "$CHECK" -v -c "$T/a.conf" mail
	err_has "a run on this node is still going" "... saying why"
	: >"$T/data1"
	wait_exit "$P" 10
	is "$?" 0 "(1) a's pipeline ends"
	is "$(cat "$T/pipe1.out")" data "(1) its data went through"
	exit_is 1 "(1) then a run by hand on a runs (and fails)" \
	    "$TOUCH" -c "$T/a.conf" mail -- false
fi

# (2) A run holds the lock when a pipeline starts.
fresh
bg run2 "$TOUCH" -c "$T/a.conf" mail -- bash -c \
    'for ((i = 0; i < 3000; i++)); do [ -e "$1" ] && break; sleep 0.02; done' \
    sh "$T/end2"
R=$BGPID
wait_for 10 a_locked || bail "(2) the run did not take the lock"
exit_is 0 "(2) a pipeline beside a run: its data goes through" \
    sh -c "echo data | '$TOUCH' -f -c '$T/a.conf' mail"
is "$(cat "$T/out")" data "(2) ... unchanged"
is "$(grep -c 'holds the run lock' "$T/err")" 1 \
    "(2) ... saying once that another run holds the lock"
flow flow2 "$T/stop2"
F=$BGPID
wait_for 10 test -s "$T/flow2.out" || diag "(2) no data from the pipeline"
: >"$T/end2"
wait_exit "$R" 10
is "$?" 0 "(2) the run ends"
assert "(2) the pipeline takes the lock as data flows" wait_for 10 a_locked
hand "(2) then a run by hand on a exits 75"
: >"$T/stop2"
wait_exit "$F" 10
is "$?" 0 "(2) the pipeline ends"
exit_is 0 "(2) a pipeline in the job of a run of the cluster" \
    "$TOUCH" -c "$T/a.conf" mail -- sh -c \
    "echo data | '$TOUCH' -f -c '$T/a.conf' mail"
is "$(cat "$T/out")" data "(2) ... passes its data on"
err_lacks "holds the run lock" "(2) ... and says nothing of the lock"

# (3) The state directory removed and made again under a quiet pipeline
# that a's check started. Without inotify (this user's instances all
# taken) the pipeline would notice only as data flows: nothing to test.
NOWATCH=
max=$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null) || max=
if [ -n "$max" ] && [ "$(find /proc/[0-9]*/fd -user "$(id -u)" \
    -lname 'anon_inode:inotify' 2>/dev/null | wc -l)" -ge "$max" ]; then
	NOWATCH="all $max inotify instances of this user are taken"
fi
fresh
exit_is 0 "(3) a's check goes" "$CHECK" -c "$T/a.conf" mail
quiet pipe3 "$T/data3"
P=$BGPID
assert "(3) a's quiet pipeline holds the run lock" wait_for 10 a_locked
if [ -n "$NOWATCH" ]; then
	skip "(3) $NOWATCH: the pipeline notices only as data flows" 6
else
	rm -rf "$T/a.state" && mkdir -p -m 755 "$T/a.state"
	assert "(3) removed and made again: the pipeline takes the lock there" \
	    wait_for 10 a_locked
	assert "(3) ... and records activity there" \
	    wait_for 10 test -s "$T/a.state/mail"
	hand "(3) a run by hand on a exits 75"
	exit_is 1 "(3) b counts a: b skips, not 0" "$CHECK" -c "$T/b.conf" mail
fi
: >"$T/data3"
wait_exit "$P" 10
is "$?" 0 "(3) the pipeline ends"
is "$(cat "$T/pipe3.out")" data "(3) its data went through"
cp "$T/pipe3.err" "$T/err"
err_lacks "holds the run lock" "(3) ... and it said nothing of the lock"

finish
