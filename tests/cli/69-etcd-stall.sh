#!/bin/bash
# SPDX-License-Identifier: ISC
# Strict mode's worst case for a lost lease (issue 22): etcd that is
# there but hung, not refusing. Three etcd members on loopback; node a
# reaches each through tests/stallproxy, node b directly; wait 10 s (the
# lease's TTL), [etcd] timeout 2 s. a's job runs under pollguard-touch
# CLUSTER -- and logs its start, its SIGTERM and its end on
# CLOCK_BOOTTIME (/proc/uptime). Right after one of a's keepalives has
# been answered, every connection of a's to etcd, old and new, is
# accepted and never answered: each keepalive attempt could then take
# three endpoints x 2 s. b checks in a loop (every 50 ms, bounded in
# count and time) and goes as soon as etcd lets the lease expire.
#
# The job ends on SIGTERM, so it must have ended before b's go: before
# the start of b's check that went (the go comes later still). The lease
# cannot expire before the keepalive's send time + 10 s; a must tell its
# job a margin (1 s) before that, so the SIGTERM must not come much
# sooner either (a lower bound only: an upper one would measure the
# machine). Before the fix, a told its job some 21 s after the stall,
# 11 s after b's go.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/etcd.sh"

PROXY=${PG_BUILD:-$PG_TOP}/tests/stallproxy
[ -x "$PROXY" ] || bail "$PROXY is not built (make tests/stallproxy)"
etcd_need 11

etcd_cluster e1 e2 e3 || bail "a three-member etcd cluster did not start"
ok "etcd members e1, e2 and e3: $(etcd_endpoints)"

bg proxy "$PROXY" "${ETCD_URL[e1]##*:}" "${ETCD_URL[e2]##*:}" \
    "${ETCD_URL[e3]##*:}"
PROXY_PID=$BGPID
wait_for 10 eval '[ "$(grep -c "listening on " "$T/proxy.err")" -ge 3 ]' ||
    { diag_file "$T/proxy.err" "stallproxy stderr"; bail "stallproxy did not start"; }
EP=$(sed -n 's/^stallproxy: listening on /http:\/\//p' "$T/proxy.err" |
    paste -sd, -)
ok "a stallproxy in front of each member: $EP"

ETCD_PG_TIMEOUT=2s
CLUSTERS='[cluster job]
backend = etcd
wait = 10s'
ETCD_PG_ENDPOINTS=$EP etcd_mkconf a "$T/a.conf" <<<"$CLUSTERS"
etcd_mkconf b "$T/b.conf" <<<"$CLUSTERS"

exit_is 0 "a: go, through the proxies" "$CHECK" -c "$T/a.conf" job

# The job: its start, its SIGTERM and its end, each with /proc/uptime.
# The group's SIGTERM ends the sleep at once; the trap runs then.
bg a "$TOUCH" -c "$T/a.conf" job -- sh -c '
	log() { read u x </proc/uptime; echo "$1 $u" >>"$0"; }
	trap "log term; log end; exit 143" TERM
	log start
	while :; do sleep 0.1; done' "$T/job.log"
A_PID=$BGPID
if wait_for 10 grep -qs '^start ' "$T/job.log"; then
	ok "a's job started"
else
	not_ok "a's job started"
	diag_file "$T/a.err" "a's stderr"
fi

# Stall right after the next keepalive's answer (a third of the TTL on).
kill -USR1 "$PROXY_PID"
if wait_for 10 grep -qs '^stallproxy: stalled at .*after an answer' \
    "$T/proxy.err"; then
	ok "a's connections stalled right after a keepalive was answered"
else
	not_ok "a's connections stalled right after a keepalive was answered"
	diag_file "$T/proxy.err" "stallproxy stderr"
fi
STALL=$(sed -n 's/^stallproxy: stalled at \([0-9]*\).*/\1/p' "$T/proxy.err")
: "${STALL:=$(uptime_ms)}"

# b, as soon as etcd lets it: the start of each check on CLOCK_BOOTTIME.
# The TTL is 10 s; 25 s or 500 checks bound the loop.
b_go= tries=0
while [ "$tries" -lt 500 ] && [ $(($(uptime_ms) - STALL)) -lt 25000 ]; do
	tries=$((tries + 1))
	t0=$(uptime_ms)
	timeout -k 2 10 "$CHECK" -c "$T/b.conf" job >"$T/b.out" 2>"$T/b.err"
	rc=$?
	if [ "$rc" = 0 ]; then
		b_go=$t0
		break
	fi
	[ "$rc" = 1 ] || diag "b's check $tries exited $rc: $(head -c 300 "$T/b.err")"
	sleep 0.05
done
if [ -n "$b_go" ]; then
	ok "b went once the lease expired (check $tries, $((b_go - STALL)) ms after the stall)"
else
	not_ok "b went once the lease expired (no go in $tries checks)"
fi

# Before the fix, a's job runs on past b's go: wait for it, to say when
# it was told.
_pg_alive "$A_PID" && diag "a's job still runs at b's go"
wait_exit "$A_PID" 30
is "$?" 143 "a's touch ended with the job's status after SIGTERM (143)"

# up WORD: the job's log line WORD, in milliseconds.
up()
{
	local u
	u=$(sed -n "s/^$1 //p" "$T/job.log" | head -n 1)
	[ -n "$u" ] || return 0
	echo $((${u%.*} * 1000 + 10#${u#*.}0))
}
TERM_AT=$(up term) END_AT=$(up end)
diag "after the stall: SIGTERM +$((${TERM_AT:-0} - STALL)) ms," \
    "job ended +$((${END_AT:-0} - STALL)) ms, b's check that went started" \
    "+$((${b_go:-0} - STALL)) ms"
if [ -n "$TERM_AT" ]; then
	ok "a's job got SIGTERM"
else
	not_ok "a's job got SIGTERM"
	diag_file "$T/job.log" "the job's log"
fi
if [ -n "$END_AT" ] && [ -n "$b_go" ] && [ "$END_AT" -lt "$b_go" ]; then
	ok "a's job ended before b's go"
else
	not_ok "a's job ended before b's go"
	diag_file "$T/a.err" "a's stderr"
fi
num_between "$((${TERM_AT:-0} - STALL))" 7000 1000000 \
    "the job was not told before the lease could near its expiry (7 s on)"
if grep -q "lease .* is lost" "$T/a.err"; then
	ok "a's stderr says the lease is lost"
else
	not_ok "a's stderr says the lease is lost"
	diag_file "$T/a.err" "a's stderr"
fi
stop_pids "$PROXY_PID"
finish
