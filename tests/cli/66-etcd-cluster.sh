#!/bin/bash
# SPDX-License-Identifier: ISC
# The etcd backend on a three-member etcd cluster on loopback
# (tests/etcd.sh), with three pollguard nodes x, y and z sharing it.
#
# 1. The race: in each round the three checks start at one instant on a
#    cluster whose key is absent; exactly one goes, the others skip, and
#    the test revokes the lease of every node that went (as its
#    pollguard-touch -r would; -r itself is tested before) for the next
#    round. No round may have two goes, none may be empty, and no check
#    may exit other than 0 or 1.
# 2. The leader is killed (SIGKILL) while a job runs under
#    pollguard-touch CLUSTER -- (the node's first endpoint is the
#    leader): the job runs on to its end and its lease is still attached
#    to the key afterwards, or, as pollguard(7) allows, the job is told
#    that the lease was lost.
# 3. Two of three members stopped: no quorum, every check exits 3 (never
#    a go), bounded by the timeout. Both restarted: the work resumes.
#
# PG_ETCD_ROUNDS rounds of the race (default 60, what make check runs);
# no new round is begun after PG_ETCD_SECONDS seconds (default 20).
# .ci/run runs 1000 rounds with a budget of 240 s (about 0.045 s a round
# on a loaded 2-core machine, three checks and one revoke: 45 s).
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/etcd.sh"

ROUNDS=${PG_ETCD_ROUNDS:-60}
BUDGET=${PG_ETCD_SECONDS:-20}
[[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -gt 0 ] ||
    bail "PG_ETCD_ROUNDS must be a positive number"
[[ $BUDGET =~ ^[0-9]+$ ]] || bail "PG_ETCD_SECONDS must be a number"
NODES=(x y z)
etcd_need 27

etcd_cluster a b c || bail "a three-member etcd cluster did not start"
ok "etcd members a, b and c: $(etcd_endpoints)"

# conf NODE: node NODE's config on the current cluster: cluster race
# (wait 60s), cluster job (wait 10s, the shortest: the lease must be kept
# alive while the job runs) and cluster quorum.
ETCD_PG_TIMEOUT=2s
conf()
{
	etcd_mkconf "$1" "$T/$1.conf" <<EOF
[cluster race]
backend = etcd
wait = 60s
[cluster job]
backend = etcd
wait = 10s
[cluster quorum]
backend = etcd
wait = 60s
EOF
}
for n in "${NODES[@]}"; do
	conf "$n"
done

# --- 1. the race --------------------------------------------------------------

exit_is 0 "x: a check on an absent key goes" "$CHECK" -c "$T/x.conf" race
exit_is 1 "y: the key is x's, a skip" "$CHECK" -v -c "$T/y.conf" race
err_has x "-v names the holder, x"
exit_is 0 "y: -r when y does not hold the key is not an error" \
    "$TOUCH" -c "$T/y.conf" -r race
exit_is 1 "y's -r left x's key alone: z skips" "$CHECK" -c "$T/z.conf" race
exit_is 0 "x: -r releases" "$TOUCH" -c "$T/x.conf" -r race
if etcd_ctl get "$(etcd_key race)" -w fields 2>/dev/null |
    grep -q '^"Count" : 0$'; then
	ok "the key is gone after x's -r"
else
	not_ok "the key is gone after x's -r"
	etcd_ctl get "$(etcd_key race)" >"$T/get.out" 2>&1
	diag_file "$T/get.out" "etcdctl get"
fi

# round_race: one round's three checks, started at one instant; their
# exit statuses in RACE_RC[1..3], stderr in $T/rK.err. Not racer and
# race_go: those start a bash per check and poll files every 50 ms, which
# costs three times the checks themselves, and a thousand rounds would
# take a quarter of an hour. Here each check is a forked subshell held on
# a pipe that one write releases, and bash's own wait collects them;
# timeout(1) bounds a check that hangs.
round_race()
{
	local k p=()
	[ -p "$T/go" ] || mkfifo "$T/go" || bail "mkfifo $T/go"
	exec 7<>"$T/go"
	for k in 1 2 3; do
		(exec 7>&-; IFS= read -r -n 1 _ <"$T/go"
		    exec timeout -k 5 30 "$CHECK" -c "$T/${NODES[$((k - 1))]}.conf" race) \
		    </dev/null >"$T/r$k.out" 2>"$T/r$k.err" &
		p[k]=$!
	done
	printf '   ' >&7
	RACE_RC=()
	for k in 1 2 3; do
		wait "${p[k]}"
		RACE_RC[k]=$?
	done
	exec 7>&-
}

start=$(now_ms)
went=(0 0 0 0) odd=0 unreleased=0 done_rounds=0
for ((i = 1; i <= ROUNDS; i++)); do
	if [ $(($(now_ms) - start)) -ge $((BUDGET * 1000)) ]; then
		diag "time budget of $BUDGET s used up"
		break
	fi
	round_race
	g=0 winner=
	for k in 1 2 3; do
		case ${RACE_RC[$k]} in
		0) g=$((g + 1)) winner=${NODES[$((k - 1))]} ;;
		1) ;;
		*)
			odd=$((odd + 1))
			diag "round $i: check on ${NODES[$((k - 1))]} exited ${RACE_RC[$k]}"
			diag_file "$T/r$k.err" "its stderr"
			;;
		esac
	done
	went[$g]=$((went[g] + 1))
	[ "$g" -eq 1 ] || diag "round $i: $g checks went"
	done_rounds=$i
	# Every node that went is released, so that a double go cannot
	# hide behind a key still held in the next round. Its lease record
	# stays: its next check finds the key gone from its lease and claims
	# anew, as after a lease revoked elsewhere.
	for k in 1 2 3; do
		[ "${RACE_RC[$k]}" = 0 ] || continue
		l=
		while read -r f v; do
			[ "$f" != lease ] || l=$v
		done <"$T/${NODES[$((k - 1))]}.state/.race.lease"
		etcd_revoke "${l:-0}" ||
		    { unreleased=$((unreleased + 1)); diag "round $i: lease ${l:-none} not revoked"; }
	done
	[ -n "$winner" ] || [ "$odd" -eq 0 ] || break
done
secs=$(( ($(now_ms) - start) / 1000 ))
diag "$done_rounds rounds in $secs s: 0 goes ${went[0]}, 1 go ${went[1]}," \
    "2 goes ${went[2]}, 3 goes ${went[3]}"
is "$((went[2] + went[3]))" 0 "no round had two or more goes"
is "${went[0]}" 0 "no round was empty"
is "$odd" 0 "every check exited 0 or 1"
is "$unreleased" 0 "every winner's lease was revoked"
num_between "$done_rounds" $((ROUNDS < 10 ? ROUNDS : 10)) "$ROUNDS" \
    "$done_rounds of $ROUNDS rounds ran within the budget"

# --- 2. the leader killed while a job runs ------------------------------------

leader=$(etcd_leader)
others=()
for n in a b c; do
	[ "$n" = "$leader" ] || others+=("$n")
done
[ -n "$leader" ] || bail "no etcd member says it leads"
# Node w talks to the leader first, so that the kill takes its endpoint.
cur=("${ETCD_CUR[@]}")
ETCD_CUR=("$leader" "${others[@]}")
conf w
ETCD_CUR=("${cur[@]}")
exit_is 0 "w: the check on cluster job goes (first endpoint: the leader, $leader)" \
    "$CHECK" -c "$T/w.conf" job
# The job runs 12 s, longer than the lease's TTL (10 s): only keep-alives
# across the kill keep it.
bg job "$TOUCH" -c "$T/w.conf" job -- sh -c \
    'echo "$POLLGUARD_FENCING_TOKEN" >"$1/job.token"; sleep 12
    echo finished >"$1/job.done"' job "$T"
JOB=$BGPID
wait_for 10 test -s "$T/job.token" || diag "the job did not start"
lease0=$(etcd_lease job)
num_between "${lease0:-x}" 1 9223372036854775807 \
    "the key of cluster job is attached to a lease ($lease0)"
sleep 2
etcd_kill "$leader"
diag "killed the leader, $leader, $(( ($(now_ms) - start) / 1000 )) s in"
etcd_healthy 30 "${others[@]}" ||
    bail "the two members left did not elect a leader"
diag "new leader: $(etcd_leader)"
wait_exit "$JOB" 40
jrc=$?
lease1=$(etcd_lease job)
ttl=$(etcd_lease_ttl "${lease1:-0}")
if [ -f "$T/job.done" ] && [ "$jrc" = 0 ] && [ -n "$lease0" ] &&
    [ "$lease1" = "$lease0" ] && [ "${ttl:--1}" -gt 0 ]; then
	ok "the job ran to its end and its lease survived the kill (TTL ${ttl}s left)"
	if grep -qi lease "$T/job.err"; then
		not_ok "touch said nothing about a lost lease"
		diag_file "$T/job.err" "touch stderr"
	else
		ok "touch said nothing about a lost lease"
	fi
elif grep -qi 'lease.*lost\|lost.*lease' "$T/job.err"; then
	ok "the job was told that its lease was lost (exit $jrc)"
	if [ "$lease1" != "$lease0" ]; then
		ok "the lost lease is no longer the key's"
	else
		not_ok "the lost lease is no longer the key's"
	fi
else
	not_ok "the job ran to its end with its lease, or was told it was lost"
	diag "job exit $jrc, finished: $(cat "$T/job.done" 2>/dev/null)," \
	    "lease before $lease0, after $lease1 (TTL $ttl)"
	diag_file "$T/job.err" "touch stderr"
	not_ok "touch said nothing about a lost lease, or the key lost it"
fi
etcd_restart "$leader"
etcd_healthy 30 || bail "$leader did not rejoin"
ok "$leader rejoined the cluster"

# --- 3. no quorum, then back ----------------------------------------------------

# Configs with a timeout of 1s: each check below waits for it.
ETCD_PG_TIMEOUT=1s
for n in x y z; do
	conf "$n"
done
etcd_stop "${others[0]}"
etcd_stop "${others[1]}"
diag "stopped ${others[*]}: only $leader runs"
for n in x y z; do
	t0=$(now_ms)
	exit_is 3 "$n: no quorum, the check exits 3" "$CHECK" -c "$T/$n.conf" quorum
	t=$(($(now_ms) - t0))
	num_between "$t" 0 5000 "$n: ... within 5 s, 5 x the timeout (${t} ms)"
done
exit_is 3 "x: no quorum, check -n exits 3 too" "$CHECK" -n -c "$T/x.conf" quorum
etcd_restart "${others[0]}"
etcd_restart "${others[1]}"
etcd_healthy 30 || bail "the cluster did not come back"
exit_is 0 "restarted: x's check goes" "$CHECK" -c "$T/x.conf" quorum
exit_is 1 "restarted: y's check skips (x holds the key)" \
    "$CHECK" -c "$T/y.conf" quorum
finish
