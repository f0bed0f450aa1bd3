#!/bin/bash
# SPDX-License-Identifier: ISC
# A hold set on a node during its own settle round (issue 22, break 4):
# "pollguard-touch -H 1m mail" on node a while a's check is between its
# claim and its decision. The check must withdraw (exit 1, the record
# put back as it was) and no job may run, as it does for a hold set on
# a peer at the same moment. Real processes on loopback: nodes a and b,
# each check run as cron would, "check && pollguard-touch -- job", the
# job (tests/clockrec) logging to one file.
#
# The hold comes while a's check is held up by tests/preempt.so outside
# the record lock (pollguard-touch -H takes it, so a check held inside
# its claim's rename would only delay the hold):
#  (1) default settings (the fast rule, no sleep): a is held HOLD_MS
#      after each question it sends; the hold is set once a has claimed,
#      while round 2 is under way;
#  (2) a also lists a peer that is down, so it sleeps settle/2 between
#      its claim and round 2 (1020ms: settle 2s on both nodes): the hold
#      is set during that sleep;
#  (3) as (2), the hold set on b instead: a's round 2 shows it, and a
#      withdraws, as it did before.
# Before the fix, a went in (1) and (2), its job running under the hold.
. "${PG_TOP:-.}/tests/lib.sh"

SHIM=$PG_BUILD/tests/preempt.so
CLOCKREC=$PG_BUILD/tests/clockrec
need_built "$SHIM" "$CLOCKREC"
command -v curl >/dev/null 2>&1 || bail "curl is not installed"
LOG=$T/jobs.log
HOLD_MS=1200		# a's check, held after each question it sends

fleet_start "" a b
ok "serves a, b on :${FLEET_PORT[a]}, :${FLEET_PORT[b]}"
: >"$LOG"

# cron N NODE [ENV...]: "check -v && pollguard-touch -- job" on NODE in the
# background (PID CRON), the check under the shim with ENV; its stderr
# is $T/cN.err, its status the exit status.
cron()
{
	local n=$1 node=$2
	shift 2
	bg "c$n" bash -c 'env LD_PRELOAD="$1" "${@:9}" "$2" -v -c "$3" mail
	    rc=$?
	    [ "$rc" != 0 ] || "$4" -c "$3" mail -- "$5" -h 300 "$6" job "$7" "$8"
	    exit "$rc"' cron "$SHIM" "$CHECK" "$T/$node.conf" "$TOUCH" \
	    "$CLOCKREC" "$LOG" "$node" "$n" "$@"
	CRON=$BGPID
}

# settling N: check N has claimed and is about to ask round 2, or to
# sleep before it.
settling()
{
	grep -qs 'go, claimed' "$T/c$1.err"
}

# attack N HELD WHAT [ENV...]: a's record written OLD_MS ago, then a's
# check, and a hold on node HELD once it has claimed. WHAT says where.
attack()
{
	local n=$1 held=$2 what=$3 rc e t0
	shift 3
	rm -f "$T/a.state/mail" "$T/b.state/mail"
	"$PGSTATE" -c "$T/a.conf" write mail "$OLD_MS" ||
	    bail "($n) pgstate write"
	t0=$(now_ms)
	cron "$n" a "$@"
	if ! wait_for 10 settling "$n"; then
		diag_file "$T/c$n.err" "($n) a's check"
		bail "($n) a's check did not claim"
	fi
	exit_is 0 "($n) $what: pollguard-touch -H 1m on $held, after a's claim" \
	    "$TOUCH" -c "$T/$held.conf" -H 1m -m "issue 22" mail
	diag "($n) the hold, $(($(now_ms) - t0))ms after a's check began"
	wait_exit "$CRON" 30
	rc=$?
	cp "$T/c$n.err" "$T/err"
	is "$rc" 1 "($n) a's check withdraws: exit 1, not 0"
	err_like "withdraw: $held shows a hold \\(by [^)]*@$held\\)" \
	    "($n) ... because $held shows a hold"
	e=$(CONF=$T/a.conf record mail)
	if [[ $e =~ ^[0-9]+$ ]] && [ "$e" -ge "$OLD_MS" ]; then
		ok "($n) a's record is back: ${e}ms ago"
	else
		not_ok "($n) a's record is back (written ${OLD_MS}ms ago)"
		diag "got '$e'"
	fi
	is "$(grep -c "^job a $n " "$LOG")" 0 "($n) no job ran"
	[ "$rc" = 1 ] || diag_file "$T/c$n.err" "($n) a's check"
	exit_is 0 "($n) -H 0 lifts the hold" "$TOUCH" -c "$T/$held.conf" -H 0 mail
}

attack 1 a "fast rule, a held ${HOLD_MS}ms after each send" \
    PG_PREEMPT_MS="$HOLD_MS"

# (2): a lists a peer that is down; settle 2s on both nodes.
for n in a b; do
	sed -i 's/^\[cluster mail\]$/settle = 2s\n&/' "$T/$n.conf"
	kill -HUP "${FLEET_SPID[$n]}"
done
sed -i 's/^peers = a, b$/peers = a, b, dead/' "$T/a.conf"
printf '[peer dead]\nurl = http://127.0.0.1:1/\n' >>"$T/a.conf"
grep -qx 'peers = a, b, dead' "$T/a.conf" || bail "a's config lacks peer dead"
grep -qx 'settle = 2s' "$T/b.conf" || bail "b's config lacks settle = 2s"
# The serves announce the settle they read: wait for b's.
b_settle()
{
	curl -s "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail" |
	    grep -qx 'settle 2000'
}
wait_for 10 b_settle || bail "b's serve does not announce settle 2000"
attack 2 a "a sleeping before round 2 (a peer down)"
assert "(2) a slept between its claim and round 2" \
    grep -qE 'settling [0-9]+ms' "$T/c2.err"

# (3) as (2), on the peer.
attack 3 b "a sleeping before round 2, the hold on its peer"

is "$(grep -c '^job ' "$LOG")" 0 "no job ran at all"
for n in a b; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done
finish
