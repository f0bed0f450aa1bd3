#!/bin/bash
# SPDX-License-Identifier: ISC
# A withdrawal never undoes a touch. Node a's pollguard-check claims and
# then withdraws in every round: its peer b was idle in round 1, and is
# made active 3s before a's claim during a's settle sleep (as 90-peers'
# fake does with "seq:idle:active", but with b's real serve and record).
# Meanwhile "pollguard-touch mail" runs in a tight loop on node a, and
# "pgstate touch" (pg_state_touch, as fast as the disk allows: a touch
# every millisecond or two hits the restore's few hundred microseconds
# where a process start every 20ms rarely does). After each touch returns,
# a's record must be at least as new as the moment the touch began, until
# the next touch: a restore that put the record of before the claim back
# over it loses that touch. Both loops pause while a's check starts (a
# check that finds activity in its record after it started skips, as for
# a sibling check on the node) and resume once it has claimed, well
# before its restore.
#
# PG_RESTORE_ROUNDS: withdrawals (40); no new one is begun after
# PG_RESTORE_SECONDS (30) seconds.
. "${PG_TOP:-.}/tests/lib.sh"

ROUNDS=${PG_RESTORE_ROUNDS:-40}
BUDGET_MS=$((${PG_RESTORE_SECONDS:-30} * 1000))
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "PG_RESTORE_ROUNDS must be a number"

mkdir -m 755 "$T/a.state" "$T/b.state"
# nodeconf NODE [LINES]: node NODE's config, $T/NODE.conf: state
# $T/NODE.state, then LINES.
nodeconf()
{
	printf '[pollguard]\nnode = %s\nstate = %s\n%s\n' "$1" "$T/$1.state" \
	    "${2:-}" >"$T/$1.conf"
	chmod 600 "$T/$1.conf"
}
nodeconf b $'settle = 1s\ntimeout = 500ms\n[cluster mail]\nwait = 20s'
serve_start sb "$T/b.conf" || bail "pollguard-serve for node b did not start"
SBPID=$SERVE_PID
# settle 1s (on b too: the settings must agree): a sleeps 505ms between
# its claim and round 2, time enough to make b active. It sleeps because
# of the peer nobody listens for: with b alone, of the fast rule, it
# would ask again at once. Timeout 500ms: the claim's horizon (below) is
# 3.5 s, not 6.5 s.
nodeconf a "settle = 1s
timeout = 500ms
[peer b]
url = http://127.0.0.1:$PORT/
[peer dead]
url = http://127.0.0.1:1/
[cluster mail]
wait = 20s
peers = b, dead"
ok "node b's serve on 127.0.0.1:$PORT"

# The touch loop: before each touch, the CLOCK_BOOTTIME moment (/proc/uptime
# rounds down: never later than the touch began); after it, and again
# after a pause, a's record must be no older. Each record older than the
# last finished touch is a line in $T/lost; the loop ends when $T/stop
# appears.
toucher()
{
	local t0 u f boot mono rest n=0 lost=0
	while [ ! -e "$T/stop" ]; do
		if [ -e "$T/pause" ]; then
			sleep 0.002
			continue
		fi
		read -r u f </proc/uptime
		f=${u#*.}000
		t0=$((${u%.*} * 1000 + 10#${f:0:3}))
		"$TOUCH" -c "$T/a.conf" mail || echo "touch failed" >>"$T/lost"
		n=$((n + 1))
		for f in 1 2; do
			mono=
			read -r _ _ boot mono rest <"$T/a.state/mail"
			if ! [[ $mono =~ ^[0-9]+$ ]] ||
			    [ $((mono / 1000000)) -lt "$t0" ]; then
				lost=$((lost + 1))
				echo "touch $n began at ${t0}ms, then the record was: $boot $mono $rest" >>"$T/lost"
				break
			fi
			[ "$f" = 2 ] || sleep 0.005
		done
	done
	echo "$n touches, $lost lost"
}

# claimed_settling: a's check has claimed and is in its settle sleep.
claimed_settling()
{
	grep -q 'settling' "$T/chk.err"
}

: >"$T/lost"
bg touches toucher
TPID=$BGPID
bg hammer "$PGSTATE" -c "$T/a.conf" touch mail $((BUDGET_MS / 1000 + 60)) \
    "$T/pause"
HPID=$BGPID
start=$(now_ms)
ran=0 withdrawn=0 other=0
for ((i = 1; i <= ROUNDS; i++)); do
	if [ $(($(now_ms) - start)) -ge "$BUDGET_MS" ]; then
		diag "time budget of $((BUDGET_MS / 1000)) s used up"
		break
	fi
	rm -f "$T/b.state/mail"
	: >"$T/chk.err"		# not last round's "settling"
	: >"$T/pause"
	sleep 0.05		# the touches under way end
	bg chk "$CHECK" -v -c "$T/a.conf" mail
	wait_for 10 eval 'claimed_settling || ! _pg_alive $BGPID'
	rm -f "$T/pause"
	if ! claimed_settling; then
		wait_exit "$BGPID" 30
		rc=$?
		# A touch made while the claim was out keeps the claim in
		# the record (pg_state_touch) after the withdrawal, to the
		# end of its horizon; until then a's checks skip (exit 2).
		# Not a round: try again in a moment.
		if [ "$rc" = 2 ] && grep -q 'kept its claim' "$T/chk.err"; then
			i=$((i - 1))
			sleep 0.2
			continue
		fi
		other=$((other + 1))
		diag "round $i: no claim (exit $rc)"
		diag_file "$T/chk.err" "check stderr"
		continue
	fi
	"$PGSTATE" -c "$T/b.conf" write mail 3000
	wait_exit "$BGPID" 30
	rc=$?
	ran=$((ran + 1))
	if [ "$rc" = 1 ] && grep -q 'withdraw' "$T/chk.err"; then
		withdrawn=$((withdrawn + 1))
	else
		other=$((other + 1))
		diag "round $i: exit $rc, not a withdrawal"
		diag_file "$T/chk.err" "check stderr"
	fi
done
touch "$T/stop"
wait_exit "$TPID" 30
is "$?" 0 "the touch loop ended"
diag "pollguard-touch: $(cat "$T/touches.out")"
kill -TERM "$HPID"
wait_exit "$HPID" 30
is "$?" 0 "pgstate touch: no touch undone"
diag "pgstate touch: $(cat "$T/hammer.out")"
[ -s "$T/hammer.err" ] && diag_file "$T/hammer.err" "pgstate touch stderr"
diag "$ran rounds in $(( ($(now_ms) - start) / 1000 ))s: $withdrawn withdrawals"

if [ "$withdrawn" -ge $((ran / 2)) ] && [ "$withdrawn" -gt 0 ]; then
	ok "node a's check withdrew ($withdrawn of $ran rounds)"
else
	not_ok "node a's check withdrew ($withdrawn of $ran rounds)"
fi
nlost=$(grep -c . "$T/lost")
is "$nlost" 0 "pollguard-touch: no touch undone"
[ "$nlost" = 0 ] || diag_file "$T/lost" "lost touches"
is "$(grep -c 'touch failed' "$T/lost")" 0 "every touch succeeded"

serve_stop "$SBPID"
is "$?" 0 "serve b: SIGTERM, exit 0"

finish
