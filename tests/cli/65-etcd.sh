#!/bin/bash
# SPDX-License-Identifier: ISC
# The etcd backend against one etcd member on loopback (tests/etcd.sh),
# nodes a and b sharing it: a go claims the key, a skip names the holder
# and its TTL, the holder goes again with the same fencing token, touch --
# keeps the key past its TTL, a skip writes nothing (a read only), the key expires a wait after the last
# activity and another node goes with a greater token, -r releases, a
# lease revoked under a running job stops it (on_lease_lost = kill:
# SIGKILL kill_after later to what ignores SIGTERM, however far off the
# runtime limit) or only warns (warn), a hold on the node stops its
# checks, a wrong password is refused (76), and a stopped etcd is a skip
# with exit 3, never a go.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/etcd.sh"

etcd_need 60

CLUSTERS='[cluster mail]
backend = etcd
wait = 10s

[cluster soft]
backend = etcd
wait = 10s
on_lease_lost = warn

[cluster hung]
backend = etcd
wait = 10s
max_runtime = 60s
kill_after = 1s

[cluster orphan]
backend = etcd
wait = 10s
max_runtime = 8s
kill_after = 10s'

etcd_cluster e || bail "etcd did not start"
ok "etcd e on $(etcd_endpoints)"
etcd_mkconf a "$T/a.conf" <<<"$CLUSTERS"
etcd_mkconf b "$T/b.conf" <<<"$CLUSTERS"

# token FILE: the fencing token a job printed.
token()
{
	sed -n 's/^token=//p' "$1"
}

exit_is 0 "-n on a free key: go, not claimed" "$CHECK" -n -c "$T/a.conf" mail
etcd_lease mail >/dev/null && not_ok "-n created the key" ||
    ok "-n created no key"

exit_is 0 "a: go" "$CHECK" -v -c "$T/a.conf" mail
err_has "claimed (fencing token" "-v says claimed and the token"
assert "a: its lease is recorded" test -f "$T/a.state/.mail.lease"
LEASE_A=$(etcd_lease mail)
is "$(sed -n 's/^lease //p' "$T/a.state/.mail.lease")" "$LEASE_A" \
    "the recorded lease is the key's"

RAFT=$(etcd_raft_index)
exit_is 1 "b: skip, a holds the key" "$CHECK" -v -c "$T/b.conf" mail
err_like 'held by a \(revision [0-9]+, lease [0-9]+; [0-9]+s left\)' \
    "-v names the holder a and its time left"
is "$(etcd_raft_index)" "${RAFT:-unreadable}" "the skip wrote nothing to etcd (raft index $RAFT)"
exit_is 1 "b -n: skip too" "$CHECK" -n -c "$T/b.conf" mail
exit_is 1 "b: touch refuses, b does not hold the key" \
    "$TOUCH" -c "$T/b.conf" mail -- true
err_has "does not hold" "... and says so"

exit_is 0 "a again: go, it still holds the key" "$CHECK" -v -c "$T/a.conf" mail
err_has "this node holds the key" "-v says so"
is "$(etcd_lease mail)" "$LEASE_A" "the same lease"

exit_is 0 "a: touch -- gets the fencing token" "$TOUCH" -c "$T/a.conf" mail \
    -- sh -c 'echo token=$POLLGUARD_FENCING_TOKEN'
TOKEN_A=$(token "$T/out")
num_between "$TOKEN_A" 1 1000000000 "the token is a revision"

# A run longer than the TTL (10s): the key stays a's throughout.
bg run "$TOUCH" -c "$T/a.conf" mail -- sleep 13
RUN=$BGPID
sleep 11.5
exit_is 1 "b at 11.5s into a's 13s run: skip (the lease is kept alive)" \
    "$CHECK" -c "$T/b.conf" mail
wait_exit "$RUN" 10
is "$?" 0 "a's run ended well"
t_end=$(now_ms)
exit_is 1 "b just after a's run: skip (the key lasts a wait after it)" \
    "$CHECK" -c "$T/b.conf" mail
TTL=$(etcd_lease_ttl "$(etcd_lease mail)")
# Renewed at the end: 10s less the (whole) seconds since. Without it the
# last keepalive (every 3.3s) could be up to 3.3s older: on a machine so
# slow that asking took 2s or more, the two cannot be told apart.
el=$((($(now_ms) - t_end + 999) / 1000))
if [ "$el" -lt 2 ]; then
	num_between "${TTL:-0}" $((9 - el)) 10 "the key's TTL was renewed at the run's end"
else
	skip "the key's TTL renewed at the run's end: asking it took ${el}s"
fi

# Expiry: the lease runs out a wait after the last keepalive; the skip
# just after the run shows it did not before. A bound, not a timing.
deadline=$(($(now_ms) + 30000))
until "$CHECK" -c "$T/b.conf" mail 2>/dev/null; do
	[ "$(now_ms)" -lt "$deadline" ] || break
	sleep 0.5
done
[ "$(now_ms)" -lt "$deadline" ] && ok "b goes once a's lease has expired" ||
    not_ok "b did not go within 30s of a's run's end"
exit_is 1 "a: skip now, b holds the key" "$CHECK" -c "$T/a.conf" mail
assert "a's stale lease record is gone" test ! -f "$T/a.state/.mail.lease"
exit_is 0 "b: touch -- gets its token" "$TOUCH" -c "$T/b.conf" mail \
    -- sh -c 'echo token=$POLLGUARD_FENCING_TOKEN'
TOKEN_B=$(token "$T/out")
assert "b's token $TOKEN_B is greater than a's $TOKEN_A" \
    test "${TOKEN_B:-0}" -gt "$TOKEN_A"

exit_is 0 "b: -r releases" "$TOUCH" -c "$T/b.conf" -r mail
etcd_lease mail >/dev/null && not_ok "-r left the key" ||
    ok "-r deleted the key"
assert "-r removed b's lease record" test ! -f "$T/b.state/.mail.lease"
exit_is 0 "b: -r again: nothing held, still 0" "$TOUCH" -c "$T/b.conf" -r mail
# A hold on a stops a's checks in strict mode too; the key stays free.
exit_is 0 "a: -H 1h holds a" "$TOUCH" -c "$T/a.conf" -H 1h -m maintenance mail
exit_is 1 "a, held: skip, without asking etcd" "$CHECK" -v -c "$T/a.conf" mail
err_like "skip: held by .* \(shown by this node\): maintenance" \
    "a says who holds it and why"
etcd_lease mail >/dev/null && not_ok "a held took the key" ||
    ok "a held left the key free"
exit_is 0 "a: -H 0 lifts the hold" "$TOUCH" -c "$T/a.conf" -H 0 mail
exit_is 0 "a: go at once after the release" "$CHECK" -v -c "$T/a.conf" mail
TOKEN_A2=$(sed -n 's/.*fencing token \([0-9]*\).*/\1/p' "$T/err")
assert "a's new token $TOKEN_A2 is greater than b's $TOKEN_B" \
    test "${TOKEN_A2:-0}" -gt "$TOKEN_B"

# The lease revoked under a running job: on_lease_lost = kill stops it.
bg lost "$TOUCH" -c "$T/a.conf" mail -- sleep 30
LOST=$BGPID
sleep 0.5
etcd_ctl lease revoke "$(printf '%x' "$(etcd_lease mail)")" >/dev/null
wait_exit "$LOST" 15
is "$?" 143 "lease revoked: the job is stopped by SIGTERM (kill)"
grep -q "lease .* is lost" "$T/lost.err" && ok "... and stderr says the lease is lost" ||
    { not_ok "stderr does not say the lease is lost"; diag_file "$T/lost.err" stderr; }

exit_is 0 "a: go on soft (on_lease_lost = warn)" "$CHECK" -c "$T/a.conf" soft
bg soft "$TOUCH" -c "$T/a.conf" soft -- sleep 6
SOFT=$BGPID
sleep 0.5
etcd_ctl lease revoke "$(printf '%x' "$(etcd_lease soft)")" >/dev/null
wait_exit "$SOFT" 15
is "$?" 0 "warn: the job runs to its end"
grep -q "is lost" "$T/soft.err" && ok "... with the loss said on stderr" ||
    not_ok "warn: the loss was not said"

# outcome CLUSTER KEY: a value of node a's outcome record.
outcome()
{
	"$PGSTATE" -c "$T/a.conf" outcome "$1" 2>&1 | sed -n "s/^$2 //p"
}

# The lease lost under a job that ignores SIGTERM, its runtime limit far
# off: SIGKILL comes kill_after (1s) after the loss, not at the limit,
# and the run is not recorded as timed out.
exit_is 0 "a: go on hung" "$CHECK" -c "$T/a.conf" hung
t0=$(now_ms)
bg hung "$TOUCH" -c "$T/a.conf" hung -- sh -c 'trap "" TERM; sleep 50'
HUNG=$BGPID
sleep 0.5
etcd_ctl lease revoke "$(printf '%x' "$(etcd_lease hung)")" >/dev/null
wait_exit "$HUNG" 40
is "$?" 137 "lease lost, SIGTERM ignored: SIGKILL (137)"
num_between "$(($(now_ms) - t0))" 0 30000 \
    "... long before the 60s runtime limit"
is "$(outcome hung timed_out) $(outcome hung signal)" "0 9" \
    "outcome: killed by SIGKILL, not timed out"
grep -q "limit" "$T/hung.err" &&
    { not_ok "the runtime limit was invoked"; diag_file "$T/hung.err" stderr; } ||
    ok "... and stderr says nothing of the runtime limit"

# The lease lost: the job ends at SIGTERM, a grandchild that ignores it
# lives on past the runtime limit (8s) until SIGKILL, kill_after (10s)
# after the loss; touch sees the loss at its next keepalive (wait/3).
exit_is 0 "a: go on orphan" "$CHECK" -c "$T/a.conf" orphan
bg orphan "$TOUCH" -c "$T/a.conf" orphan -- \
    sh -c '(trap "" TERM; exec sleep 50) & echo $! >"$1"; sleep 50' \
    sh "$T/orphan.pid"
ORPHAN=$BGPID
sleep 0.5
etcd_ctl lease revoke "$(printf '%x' "$(etcd_lease orphan)")" >/dev/null
wait_exit "$ORPHAN" 40
is "$?" 143 "lease lost, a grandchild outlives the job: the job's SIGTERM (143)"
GRAND=$(cat "$T/orphan.pid")
_pg_alive "$GRAND" && { not_ok "grandchild $GRAND still runs"; kill -KILL "$GRAND"; } ||
    ok "... and the grandchild $GRAND was killed"
is "$(outcome orphan running) $(outcome orphan timed_out)" "0 0" \
    "outcome: ended, not timed out"
grep -q "sigtimedwait" "$T/orphan.err" &&
    { not_ok "touch failed in its wait"; diag_file "$T/orphan.err" stderr; } ||
    ok "... and touch's wait did not fail"

# A broken answer is never a go: an endpoint that is not etcd.
free_port
PORT_X=$FREE_PORT
sed "s|^endpoints = .*|endpoints = http://127.0.0.1:$PORT_X|" "$T/b.conf" \
    >"$T/x.conf"
exit_is 3 "nothing listening: exit 3" "$CHECK" -c "$T/x.conf" mail

# Failover: a dead endpoint first, then the live one.
exit_is 0 "a claims mail again (its lease was revoked)" \
    "$CHECK" -c "$T/a.conf" mail
sed "s|^endpoints = |endpoints = http://127.0.0.1:$PORT_X, |" "$T/b.conf" \
    >"$T/f.conf"
exit_is 1 "a dead endpoint first: failed over, a's key seen: skip" \
    "$CHECK" -c "$T/f.conf" mail

# etcd's authentication: a wrong password is refused (76).
etcd_auth || bail "etcd auth could not be enabled"
etcd_mkconf w "$T/w.conf" "user = $ETCD_USER" "password = wrong" \
    <<<"$CLUSTERS"
etcd_mkconf p "$T/p.conf" "user = $ETCD_USER" "password = $ETCD_PASSWORD" \
    <<<"$CLUSTERS"
exit_is 76 "wrong password: refused (76)" "$CHECK" -c "$T/w.conf" soft
err_has "authentication failed" "... with etcd's reason"
exit_is 76 "no credentials with auth on: refused (76)" \
    "$CHECK" -c "$T/b.conf" soft
exit_is 0 "the right password: go" "$CHECK" -c "$T/p.conf" soft
exit_is 0 "... and touch keeps it with the token" "$TOUCH" -c "$T/p.conf" soft

# etcd stopped: never a go.
etcd_stop e
exit_is 3 "etcd stopped: check exits 3" "$CHECK" -c "$T/p.conf" soft
err_has "unreachable" "... and says etcd is unreachable"
exit_is 3 "etcd stopped: -n exits 3" "$CHECK" -n -c "$T/p.conf" soft
exit_is 3 "etcd stopped: touch of the holder exits 3" \
    "$TOUCH" -c "$T/p.conf" soft
finish
