#!/bin/bash
# SPDX-License-Identifier: ISC
# Every run counts at the hand-back (pollguard(7), PREFERRED NODE; issue
# 26): the preferred node a must not go while the last run of b, the
# substitute that yields to it, still goes, however that run was made.
# Real processes on loopback: nodes a and b with their serves, three
# clusters (wait 10s, prefer = a, b, failback_after = 0), one for each
# kind of run that records no end:
#
# pipe    b's job is a pipeline through pollguard-touch -f, which takes no
#         run lock and records no outcome;
# full    b's state directory is full when pollguard-touch records the
#         start of the run: it warns and runs the job anyway. b's state
#         directory is a tmpfs of 256 KiB; the test fills it and removes
#         b's record of the cluster just before the job, so that the
#         first refresh, which writes the record again, takes the last
#         free page and the start finds none; the space is freed as soon
#         as pollguard-touch has warned, so its end is recorded;
# killed  b's pollguard-touch is killed by SIGKILL, as the OOM killer
#         would, while its job goes on.
#
# The schedule is cron's: b's checks fire every 4 s, a's 1 s later. a
# checks once (t=-4) so that it is healthy; at t=0 b makes its last run
# before yielding (6 s), in each cluster. Its claim's horizon is 3.3 s
# (timeout 1s, settle 200ms), so at t=5 a sees neither b's claim nor a
# run going. Before the fix a went then, beside b's run, in all three.
# Now a goes when b's records show the run over: at t=9 in full (its end
# was recorded), and where none is, once b has been idle for the wait:
# t=13 in killed (b's last refresh came at t=0), t=17 in pipe (its data
# ran until t=6). Each cluster's rounds are shown as a table.
#
# The tmpfs is mounted in a mount namespace of the test's own (unshare
# -m): it goes with the test. Without root or unshare, full is skipped.
if [ -z "${PG_98E_NS:-}" ] && [ "$(id -u)" = 0 ] &&
    unshare -m --propagation private true 2>/dev/null; then
	PG_98E_NS=unshared exec unshare -m --propagation private bash "$0" "$@"
fi
. "${PG_TOP:-.}/tests/lib.sh"

CLUSTERS=(pipe full killed)
TMPFS= ORPHAN=$T/orphan

# The job that outlives its killed pollguard-touch is in a process group
# of its own; the tmpfs goes before the directory it covers.
cleanup()
{
	local p
	stop_pids "${BGPIDS[@]}"
	if [ -s "$ORPHAN" ]; then
		p=$(cat "$ORPHAN")
		kill -TERM -- "-$p" 2>/dev/null
	fi
	[ -z "$TMPFS" ] || umount -l "$T/b.state" 2>/dev/null
	_pg_cleanup
}
trap cleanup EXIT

fleet_start "settle = 200ms
timeout = 1s" a b
for n in a b; do
	for cl in "${CLUSTERS[@]}"; do
		printf '[cluster %s]\nwait = 10s\npeers = a, b\n' "$cl"
		printf 'prefer = a, b\nfailback_after = 0\n'
	done >>"$T/$n.conf"
	serve_stop "${FLEET_SPID[$n]}" || bail "serve $n did not stop"
done
if [ "${PG_98E_NS:-}" = unshared ] && mount -t tmpfs -o size=256k,mode=755 \
    pg98e "$T/b.state" 2>"$T/mount.err"; then
	TMPFS=1
else
	diag_file "$T/mount.err" "mount -t tmpfs"
fi
for n in a b; do
	serve_again "s$n" "$T/$n.conf" "${FLEET_PORT[$n]}" ||
	    bail "pollguard-serve for node $n did not start again"
	FLEET_SPID[$n]=$SERVE_PID
done

declare -A LOG=() AWENT=() BWENT=() OVERLAP=()
T0= SLIP=0	# the latest any check fired after its time, in ms

# until_ms MS: sleep until MS after T0.
until_ms()
{
	local d=$((T0 + $1 - $(now_ms)))
	[ "$d" -le 0 ] ||
	    sleep "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))"
}

# verdict FILE RC: a check's decision in a word, from its -v stderr.
verdict()
{
	local l
	if [ "$2" = 0 ]; then
		grep -q 'the last run before yielding' "$1" &&
		    echo "GO(last,yield)" || echo GO
		return
	fi
	l=$(grep -E '^pollguard-check: [a-z]+: (skip|withdraw)' "$1" |
	    tail -n 1)
	case $l in
	*yielding*)		echo "skip(yield)" ;;
	*"still going"*)	echo "skip(running)" ;;
	*"was active"*)		echo "skip(active)" ;;
	*preferred*)		echo "skip(preferred)" ;;
	*withdraw*)		echo "skip(withdrew)" ;;
	*)			echo "exit $2" ;;
	esac
}

# fire NODE MS: the node's cron fires at MS: its checks of the three
# clusters start at once. Where a goes, b's run of that cluster must be
# over (its marker $T/run.CLUSTER gone), and a's own job runs.
fire()
{
	local n=$1 t=$2 cl k rc pids=() late
	until_ms "$t"
	late=$(($(now_ms) - T0 - t))
	[ "$late" -le "$SLIP" ] || SLIP=$late
	for cl in "${CLUSTERS[@]}"; do
		"$CHECK" -v -c "$T/$n.conf" "$cl" >/dev/null \
		    2>"$T/$n.$cl.err" &
		pids+=($!)
	done
	k=0
	for cl in "${CLUSTERS[@]}"; do
		wait "${pids[$k]}"
		rc=$?
		k=$((k + 1))
		LOG[$cl]+=$(printf '\n%s t=%3d %s %s' "$cl" $((t / 1000)) "$n" \
		    "$(verdict "$T/$n.$cl.err" "$rc")")
		[ "$rc" = 0 ] || continue
		if [ "$n" = b ]; then
			BWENT[$cl]+=" $((t / 1000))"
			continue
		fi
		[ -n "${AWENT[$cl]:-}" ] || AWENT[$cl]=$((t / 1000))
		if [ -e "$T/run.$cl" ]; then
			OVERLAP[$cl]+=" t=$((t / 1000))"
			LOG[$cl]+=" while b's last run goes"
		fi
		bg "a.$cl.$t" "$TOUCH" -c "$T/a.conf" "$cl" -- sleep 0.5
	done
}

# b's last runs, one of each kind, started as its checks at t=0 went.
start_full()
{
	local d=$T/b.state
	dd if=/dev/zero of="$d/.fill" bs=4096 2>/dev/null
	rm -f "$d/full"
	bg full "$TOUCH" -c "$T/b.conf" full -- \
	    sh -c ': >"$1"; sleep 6; rm -f "$1"' job "$T/run.full"
	wait_for 5 grep -qs 'cannot record the start' "$T/full.err"
	FULL_WARNED=$?
	rm -f "$d/.fill"
}
start_pipe()
{
	bg pipe sh -c ': >"$1"; i=0
	    while [ $i -lt 12 ]; do echo "$i"; sleep 0.5; i=$((i + 1)); done |
	    "$2" -f -c "$3" pipe | cat >/dev/null; rm -f "$1"' \
	    job "$T/run.pipe" "$TOUCH" "$T/b.conf"
}
start_killed()
{
	bg killed "$TOUCH" -c "$T/b.conf" killed -- \
	    sh -c 'echo "$$" >"$2"; : >"$1"; sleep 6; rm -f "$1"' job \
	    "$T/run.killed" "$ORPHAN"
	KILLED_PID=$BGPID
	wait_for 5 grep -qsx 'running 1' "$T/b.state/.killed.side" ||
	    diag "the start of the run on b was not recorded"
	kill -KILL "$KILLED_PID"
	wait "$KILLED_PID" 2>/dev/null
	KILLED_RC=$?
	wait_for 2 test -e "$T/run.killed" && [ -s "$ORPHAN" ] &&
	    kill -0 "$(cat "$ORPHAN")" 2>/dev/null
	KILLED_ON=$?
}

# --- the rounds ---

T0=$(($(now_ms) + 5000))
for cl in "${CLUSTERS[@]}"; do
	"$TOUCH" -c "$T/b.conf" "$cl" || bail "touch $cl on b"
done
fire a -4000
fire b 0
if [ -n "$TMPFS" ]; then
	start_full
fi
start_pipe
start_killed
fire a 1000
for ((t = 4000; t <= 20000; t += 4000)); do
	fire b "$t"
	fire a $((t + 1000))
done
for cl in "${CLUSTERS[@]}"; do
	wait_for 10 test ! -e "$T/run.$cl" || diag "b's $cl job still runs"
done

# --- what happened ---

for cl in "${CLUSTERS[@]}"; do
	if [ "$cl" = full ] && [ -z "$TMPFS" ]; then
		skip "full: no tmpfs (needs root and unshare -m)" 4
		continue
	fi
	diag "${LOG[$cl]#$'\n'}"
	assert "$cl: b's check at t=0 went, its last run before yielding" \
	    grep -q "^$cl t=  0 b GO(last,yield)" <<<"${LOG[$cl]}"
	is "${BWENT[$cl]:-}" " 0" "$cl: b went at t=0 only"
	is "${OVERLAP[$cl]:-}" "" "$cl: a never went while b's last run went"
	# When a will go follows from b's runs on the schedule above; a
	# loaded machine that fires late moves b's runs and a's checks.
	if [ "$SLIP" -gt 1000 ]; then
		skip "$cl: when a went: a check fired ${SLIP} ms late" 1
		continue
	fi
	case $cl in
	full)
		is "${AWENT[$cl]:-}" 9 "full: a went at t=9, after b's end"
		;;
	killed)
		is "${AWENT[$cl]:-}" 13 "killed: a went at t=13, b idle 10s"
		;;
	pipe)
		num_between "${AWENT[$cl]:-}" 17 21 \
		    "pipe: a went at t=17 or 21, b idle 10s"
		;;
	esac
done
if [ -n "$TMPFS" ]; then
	is "$FULL_WARNED" 0 "full: touch warned that it cannot record the start"
	assert "full: ... and ran the job, its end recorded" \
	    grep -q '^end ' "$T/b.state/.full.side"
fi
is "$KILLED_RC" 137 "killed: b's pollguard-touch died of SIGKILL"
is "$KILLED_ON" 0 "killed: ... and its job went on"

finish
