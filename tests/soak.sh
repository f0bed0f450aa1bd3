#!/bin/bash
# SPDX-License-Identifier: ISC
# The soak (make soak; not part of make check): three nodes a, b and c on
# loopback, for SOAK_MINUTES, under a nemesis that tries to break them.
#
# Each node has its pollguard-serve, its own state directory, and reaches
# each peer through a tests/delayproxy of its own (six proxies, one per
# link a->b, a->c, ...), so that the nemesis can delay or drop one link.
# Cluster "soak": the default timeout and settle (SOAK_CONF adds a line
# to [pollguard], say "settle = 100ms"), wait 60s, unreachable = skip.
# Fail closed, because with fail open (the default) a node that cannot
# ask a peer polls beside it by design, and the nemesis cuts links.
#
# Simulated cron: in each round the nodes taking part (each with
# probability 0.85, at least one) start at the same instant (the
# racer/race_go helpers of tests/lib.sh, as in make race)
#	pollguard-check -v soak && pollguard-touch soak -- JOB
# where JOB (tests/clockrec -h SOAK_HOLD_MS) appends to one log shared by
# all nodes "job NODE ROUND start BOOT MONO REAL", holds the round for
# SOAK_HOLD_MS (300), and appends the same with "end": the node's
# CLOCK_BOOTTIME, CLOCK_MONOTONIC and CLOCK_REALTIME in ns. A check that
# the nemesis killed is started once more at once. A round ends when
# every node's check and job ended. In most rounds ("aged", 3 of 4) the
# records are first removed, as if the wait had passed since the last
# run, so that the nodes race for the round; in the others ("kept") the
# last poller's record stays fresh, and only it may go. On a busy
# machine the checks' start-up spreads them by tens of ms, so fewer
# rounds are contested than begin at once: "contested" counts the rounds
# where two or more checks claimed (make race is the race in bulk).
#
# The nemesis, from a seeded random generator (SOAK_SEED, printed first;
# the same seed replays the same choices, not the same timings), in each
# round at random:
#	kill-serve	SIGKILL a node's serve at a random moment of the
#			round, restart it (same port) 0..1.5 s later
#	kill-check	SIGKILL a node's check at a random moment of its
#			first 200 ms or of its settle round (claim out); the
#			node starts its check once more at once
#	stop-check	SIGSTOP a check that printed "settling" (during its
#			settle round), SIGCONT 0.1..3 s later
#	delay		20±10 ms (mild) or 200±100 ms (heavy) on one link,
#			or 20±10 ms on all six, for some rounds
#	drop		all or half of one link's connections closed,
#			reset or blackholed, for some rounds
#	fill-disk	fill a node's state file system (bytes or inodes)
#			for some rounds: each state directory is a small
#			tmpfs mounted in a private mount namespace (as root;
#			skipped, with the reason printed, where that fails)
#	step-clock	step a node's wall clock: CLOCK_REALTIME (and time,
#			gettimeofday) of every process of that node (serve,
#			check, touch, job) moves by -3d..+3d, through
#			libfaketime with FAKETIME_DONT_FAKE_MONOTONIC=1, so
#			CLOCK_MONOTONIC and CLOCK_BOOTTIME stay the host's;
#			the host's clock is never touched (skipped, with the
#			reason printed, without libfaketime)
# A round is "touched" when a kill, a stop, a heavy delay, a drop or a
# full disk was in force or taken during it. A mild delay and a wall
# clock step leave it untouched: pollguard must not mind them.
#
# At the end it checks, and fails on any breach, printing the seed:
#  (a) never two pollers holding a round at once: no two job intervals
#      [start, end] from different nodes overlap (start < other's end and
#      other's start < end), compared on CLOCK_MONOTONIC, which all nodes
#      share: they run on this host, under one kernel, and libfaketime is
#      told not to touch it. A job without an end line ends with its
#      round.
#  (b) no round lost by a lone healthy node: an aged, untouched round in
#      which one node alone ran its check has a poller.
#  (c) every state record readable: after each round, pgstate read of
#      each node's record says an elapsed time or "never".
#  (d) every check exit status is one documented in pollguard-check(1)
#      (0 1 2 3 64 65 70 71 73 74 76 78), 137 only for a check the
#      nemesis killed; and no error status (4 and up) in an untouched
#      round.
# and prints rounds, goes, doubles (rounds with two or more goes, overlap
# or not), empties (aged rounds with no go), check statuses, and
# nemesis actions by kind.
#
# SOAK_MINUTES (10): no round is begun after that; SOAK_ROUNDS (0: no
# limit) stops sooner. .ci/run runs SOAK_MINUTES=1. The logs (the shared
# log soak.log, rc.log, rounds.log, each check's stderr in out/) are
# copied to SOAK_KEEP, or after a failure to build/soak.SEED.
: "${PG_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"

# The state file systems are mounted in a private mount namespace, gone
# with this script: enter one when root.
if [ -z "${SOAK_NS:-}" ]; then
	if [ "$(id -u)" = 0 ] &&
	    unshare -m --propagation private true 2>/dev/null; then
		SOAK_NS=private exec unshare -m --propagation private \
		    bash "$0" "$@"
	fi
	SOAK_NS="none: $( [ "$(id -u)" = 0 ] && echo "unshare -m failed" ||
	    echo "not root")"
fi
PG_TMP_NAME=pollguard-soak
. "$PG_TOP/tests/lib.sh"

BUILD=${PG_BUILD:-$PG_TOP}
PROXY=$BUILD/tests/delayproxy
CLOCKREC=$BUILD/tests/clockrec
for p in "$PROXY" "$CLOCKREC"; do
	[ -x "$p" ] || bail "$p is not built (make soak builds it)"
done
MINUTES=${SOAK_MINUTES:-10}
ROUNDS=${SOAK_ROUNDS:-0}
HOLD=${SOAK_HOLD_MS:-300}
SEED=${SOAK_SEED:-$((SRANDOM % 1000000))}
[[ $MINUTES =~ ^[0-9]+$ ]] || bail "SOAK_MINUTES must be a number"
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "SOAK_ROUNDS must be a number"
[[ $HOLD =~ ^[0-9]+$ ]] || bail "SOAK_HOLD_MS must be a number"
[[ $SEED =~ ^[0-9]+$ ]] || bail "SOAK_SEED must be a number"
echo "# soak seed $SEED (SOAK_SEED=$SEED replays its choices)"
RANDOM=$SEED
NODES=(a b c)
LOG=$T/soak.log
mkdir "$T/out"

# rnd N: a number 0..N-1 in R, from the seeded generator (no subshell,
# which would not advance it).
rnd()
{
	R=$(((RANDOM << 15 | RANDOM) % $1))
}

# --- what the nemesis can use ------------------------------------------------

FT_LIB=
faked_init && FT_LIB=$LIBFT
CLOCK_SKIP=
[ -n "$FT_LIB" ] || CLOCK_SKIP="libfaketime not installed (make deps)"
DISK_SKIP=
[ "$SOAK_NS" = private ] || DISK_SKIP="no private mount namespace ($SOAK_NS)"
# libfaketime leaves a semaphore and shared memory in /dev/shm for some
# PIDs (pollguard-check's): in a namespace of our own, they go with it.
[ "$SOAK_NS" != private ] || mount -t tmpfs -o mode=1777 soak-shm /dev/shm
for n in "${NODES[@]}"; do
	mkdir -m 755 "$T/$n.state"
	echo "+0" >"$T/$n.faketime"
	[ -z "$DISK_SKIP" ] || continue
	mount -t tmpfs -o size=256k,nr_inodes=64,mode=755 "soak-$n" \
	    "$T/$n.state" 2>"$T/mount.err" ||
	    DISK_SKIP="mount -t tmpfs: $(head -n 1 "$T/mount.err")"
done
[ -z "$DISK_SKIP" ] || echo "# fill-disk skipped: $DISK_SKIP"
[ -z "$CLOCK_SKIP" ] || echo "# step-clock skipped: $CLOCK_SKIP"


# $T/N.run COMMAND...: run the command as a process of node N, on the
# node's wall clock. It execs, so the PID is the command's.
for n in "${NODES[@]}"; do
	{
		echo '#!/bin/sh'
		if [ -n "$FT_LIB" ]; then
			printf 'exec env LD_PRELOAD=%q FAKETIME_TIMESTAMP_FILE=%q' \
			    "$FT_LIB" "$T/$n.faketime"
			printf ' FAKETIME_CACHE_DURATION=1'
			printf ' FAKETIME_DONT_FAKE_MONOTONIC=1 "$@"\n'
		else
			echo 'exec "$@"'
		fi
	} >"$T/$n.run"
	printf '#!/bin/sh\nexec %q %q "$@"\n' "$T/$n.run" "$SERVE" >"$T/$n.serve"
	chmod 755 "$T/$n.run" "$T/$n.serve"
done

# One node's round, as the racer starts it: node.sh NODE ROUND. The
# check's PID is in $T/cpid.NODE while it runs; each check's status is a
# line "check NODE ROUND STATUS" in $T/rc.log, the job's "touch ...".
cat >"$T/node.sh" <<'NODE'
n=$1 r=$2 run=$T/$1.run err=$T/out/$2.$1.err
for try in 1 2; do
	"$run" "$CHECK" -v -c "$T/$n.conf" soak 2>>"$err" &
	echo "$!" >"$T/cpid.$n"
	wait "$!"
	rc=$?
	echo "check $n $r $rc" >>"$T/rc.log"
	: >"$T/cdone.$n.$r"
	[ "$rc" -eq 137 ] || break
done
rm -f "$T/cpid.$n"
[ "$rc" -eq 0 ] || exit 0
"$run" "$TOUCH" -c "$T/$n.conf" soak -- \
    "$CLOCKREC" -h "$HOLD" "$LOG" job "$n" "$r" 2>>"$err"
echo "touch $n $r $?" >>"$T/rc.log"
NODE
export T CHECK TOUCH CLOCKREC HOLD LOG
: >"$T/rc.log"

# --- the fleet ---------------------------------------------------------------

declare -A SPORT=() SPID=() LPORT=()
LINKS=(ab ac ba bc ca cb)

# conf N: node N's config; its peers through its proxies, once known.
conf()
{
	local n=$1 x
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$n" "$T/$n.state"
		[ -z "${SOAK_CONF:-}" ] || printf '%s\n' "$SOAK_CONF"
		printf '[cluster soak]\nwait = 60s\nunreachable = skip\n'
		for x in "${NODES[@]}"; do
			[ -n "${LPORT[$n$x]:-}" ] || continue
			printf '[peer %s]\nurl = http://127.0.0.1:%s/\n' "$x" \
			    "${LPORT[$n$x]}"
		done
	} >"$T/$n.conf"
	chmod 600 "$T/$n.conf"
}

# serve_up N [PORT]: start node N's serve, on PORT when given (a restart
# keeps the port its proxies forward to).
SERVE_STARTS=0
serve_up()
{
	local n=$1 args=()
	SERVE_STARTS=$((SERVE_STARTS + 1))
	[ -z "${2:-}" ] || args=(-l "127.0.0.1:$2")
	SERVE=$T/$n.serve serve_start "s$n.$SERVE_STARTS" "$T/$n.conf" \
	    "${args[@]}" || return 1
	SPID[$n]=$SERVE_PID SPORT[$n]=$PORT
}

for n in "${NODES[@]}"; do
	conf "$n"
	serve_up "$n" || bail "pollguard-serve for node $n did not start"
done
k=0
for l in "${LINKS[@]}"; do
	k=$((k + 1))
	bg "p$l" "$PROXY" -s $((SEED * 10 + k)) -f "$T/ctl.$l" \
	    -l 127.0.0.1:0 "127.0.0.1:${SPORT[${l:1:1}]}"
	listen_port "p$l" P || bail "delayproxy $l did not start"
	LPORT[$l]=$P
done
for n in "${NODES[@]}"; do
	conf "$n"
	kill -HUP "${SPID[$n]}"
done
ok "three serves, six proxies; state on ${DISK_SKIP:+no }tmpfs," \
    "wall clocks ${CLOCK_SKIP:+not }steppable"

soak_cleanup()
{
	local n
	stop_pids "${BGPIDS[@]}"
	for n in "${NODES[@]}"; do
		umount -l "$T/$n.state" 2>/dev/null
	done
	_pg_cleanup
}
trap soak_cleanup EXIT

# --- the nemesis -------------------------------------------------------------

declare -A LINK_UNTIL=() LINK_BAD=() DISK_UNTIL=() SERVE_DOWN=()

# nemesis ROUND KIND WORDS...: log an action with the clocks (the
# verdict counts them there: some are taken in subshells).
nemesis()
{
	"$CLOCKREC" "$LOG" nemesis "$@"
}

# ms_sleep MS: sleep without a fork: a read that times out on the FIFO
# race_arm made, which nobody writes.
ms_sleep()
{
	local d
	[ "$1" -gt 0 ] || return 0
	printf -v d '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
	read -r -t "$d" _ <>"$T/pause"
	return 0
}

# now: NOW, wall-clock ms, without a fork.
now()
{
	local t=${EPOCHREALTIME/[.,]/}
	NOW=$((t / 1000))
}

# link_set LINK UNTIL BAD LINE...: the proxy of LINK, from the next
# connection, until round UNTIL; BAD (1) makes the rounds touched.
link_set()
{
	local l=$1
	LINK_UNTIL[$l]=$2 LINK_BAD[$l]=$3
	shift 3
	printf '%s\n' "$@" >"$T/ctl.$l.new" && mv "$T/ctl.$l.new" "$T/ctl.$l"
}

# disk_fill N: fill node N's state file system, bytes or inodes.
disk_fill()
{
	local i
	rnd 2
	if [ "$R" = 0 ]; then
		dd if=/dev/zero of="$T/$1.state/zz-fill" bs=4k \
		    status=none 2>/dev/null
		nemesis "$r" fill-disk "$1" bytes
	else
		for ((i = 0; i < 100; i++)); do
			: 2>/dev/null >"$T/$1.state/zz-fill.$i" || break
		done
		nemesis "$r" fill-disk "$1" inodes
	fi
}

# The nemesis must catch a check in a settle round of a few hundred ms on
# a busy machine, where a fork can take 20 ms: what it does during a
# round uses builtins only.

# check_pid N: CPID, node N's check once it runs (its wrappers have
# exec'd it), waiting for it up to 2 s; 1 when it ended or never came.
check_pid()
{
	local i c
	for ((i = 0; i < 400; i++)); do
		c=
		{ read -r CPID <"$T/cpid.$1" &&
		    read -r c <"/proc/$CPID/comm"; } 2>/dev/null
		[ "$c" = pollguard-check ] && return 0
		[ -e "$T/cdone.$1.$r" ] && return 1
		ms_sleep 5
	done
	return 1
}

# settling N: SETTLE, the ms that node N's check said it settles for
# (0: "settling at once", the fast rule).
settling()
{
	local l
	SETTLE=
	[ -e "$T/out/$r.$1.err" ] || return 1
	while IFS= read -r l; do
		# The fast rule asks again at once: its settle round is
		# its second round and the waits for peers.
		if [[ $l =~ settling\ at\ once ]]; then
			SETTLE=0
			return 0
		fi
		[[ $l =~ settling\ ([0-9]+) ]] || continue
		SETTLE=${BASH_REMATCH[1]}
		return 0
	done <"$T/out/$r.$1.err"
	return 1
}

# faults: at the start of round r, end the faults that expired and begin
# new ones; TOUCHED and WHY say whether any is in force.
faults()
{
	local l n x
	for l in "${!LINK_UNTIL[@]}"; do
		[ "${LINK_UNTIL[$l]}" -lt "$r" ] || continue
		rm -f "$T/ctl.$l"
		unset "LINK_UNTIL[$l]" "LINK_BAD[$l]"
	done
	for n in "${!DISK_UNTIL[@]}"; do
		[ "${DISK_UNTIL[$n]}" -lt "$r" ] || continue
		rm -f "$T/$n.state"/zz-fill*
		unset "DISK_UNTIL[$n]"
	done
	rnd 100
	if [ "$R" -lt 6 ]; then
		rnd 8
		for l in "${LINKS[@]}"; do
			link_set "$l" $((r + 2 + R)) 0 "delay 20 10"
		done
		nemesis "$r" delay-all 20±10ms $((3 + R)) rounds
	elif [ "$R" -lt 18 ]; then
		rnd 6; l=${LINKS[$R]}
		rnd 2; x=$R
		rnd 5
		if [ "$x" = 0 ]; then
			link_set "$l" $((r + R)) 0 "delay 20 10"
			nemesis "$r" delay "$l" 20±10ms $((R + 1)) rounds
		else
			link_set "$l" $((r + R)) 1 "delay 200 100"
			nemesis "$r" delay "$l" 200±100ms $((R + 1)) rounds
		fi
	elif [ "$R" -lt 26 ]; then
		rnd 6; l=${LINKS[$R]}
		rnd 3; x=(close reset blackhole); x=${x[$R]}
		rnd 2; n=(1 0.5); n=${n[$R]}
		rnd 3
		link_set "$l" $((r + R)) 1 "drop $n $x"
		nemesis "$r" drop "$l" "$n" "$x" $((R + 1)) rounds
	elif [ "$R" -lt 32 ] && [ -z "$DISK_SKIP" ]; then
		rnd 3; n=${NODES[$R]}
		if [ -z "${DISK_UNTIL[$n]:-}" ]; then
			rnd 3
			DISK_UNTIL[$n]=$((r + R))
			disk_fill "$n"
		fi
	fi
	TOUCHED=0 WHY=
	for l in "${!LINK_BAD[@]}"; do
		[ "${LINK_BAD[$l]}" = 1 ] && TOUCHED=1 WHY+=" link-$l"
	done
	for n in "${!DISK_UNTIL[@]}"; do
		TOUCHED=1 WHY+=" disk-$n"
	done
	for n in "${!SERVE_DOWN[@]}"; do
		TOUCHED=1 WHY+=" serve-$n-down"
	done
}

# plan: the actions to take during round r: "OFFSET_MS KIND NODE" lines
# in ACTS, in time order. A kill or stop touches the round.
plan()
{
	local lines=() n x
	rnd 100
	if [ "$R" -lt 10 ]; then
		rnd 3; n=${NODES[$R]}; rnd 800; x=$R
		rnd 1500
		lines+=("$x kill-serve $n" "$((x + R)) restart-serve $n")
	fi
	rnd 100
	if [ "$R" -lt 12 ]; then
		rnd ${#PART[@]}; n=${PART[$R]}
		lines+=("0 kill-check $n")
	fi
	rnd 100
	if [ "$R" -lt 12 ]; then
		rnd ${#PART[@]}; n=${PART[$R]}
		lines+=("0 stop-check $n")
	fi
	rnd 100
	if [ "$R" -lt 10 ] && [ -z "$CLOCK_SKIP" ]; then
		rnd 3; n=${NODES[$R]}; rnd 1000
		lines+=("$R step-clock $n")
	fi
	ACTS=()
	[ ${#lines[@]} -eq 0 ] ||
	    mapfile -t ACTS < <(printf '%s\n' "${lines[@]}" | sort -n)
	for n in "${lines[@]}"; do
		case $n in
		*step-clock* | *restart-serve*) ;;
		*) TOUCHED=1 WHY+=" ${n#* }" ;;
		esac
	done
}

# first_settling N: X, the first node of the round whose check says
# "settling N ms" (N if it does), and SETTLE; 1 after 3 s without one.
first_settling()
{
	local i
	for ((i = 0; i < 600; i++)); do
		for x in "$1" "${PART[@]}"; do
			settling "$x" && return 0
		done
		ms_sleep 5
	done
	return 1
}

# act OFFSET KIND NODE: take one action OFFSET ms after the round began.
# The parent shell takes those that change its own state (serves, whose
# PIDs it keeps) in time order; a kill or stop of a check waits for a
# moment in that check's life, and runs in a subshell of its own
# (act_bg), so that it does not hold the others back.
act()
{
	local off=$1 kind=$2 n=$3 w x steps
	now
	ms_sleep $((GO + off - NOW))
	case $kind in
	kill-serve)
		kill -KILL "${SPID[$n]}" 2>/dev/null
		wait "${SPID[$n]}" 2>/dev/null
		SERVE_DOWN[$n]=1
		nemesis "$r" kill-serve "$n"
		;;
	restart-serve)
		serve_up "$n" "${SPORT[$n]}" && unset "SERVE_DOWN[$n]"
		nemesis "$r" restart-serve "$n"
		;;
	kill-check)
		# This node's, at a random moment of its first 200 ms; or
		# the first to settle (this node's if it does), at a random
		# moment of its settle round: killed with its claim out.
		rnd 2
		if [ "$R" = 0 ]; then
			w=early x=$n
			check_pid "$x" && rnd 200 && ms_sleep "$R"
		else
			w=settling
			first_settling "$n" && { rnd $((SETTLE + 1)); ms_sleep "$R"; }
		fi
		if check_pid "$x" && kill -KILL "$CPID" 2>/dev/null; then
			echo "killed $x $r" >>"$T/rc.log"
			nemesis "$r" kill-check "$x" "$w" "$CPID"
		else
			nemesis "$r" kill-check-missed "$n" "$w"
		fi
		;;
	stop-check)
		# The first check to settle, this node's if it does: stopped
		# before half its settle time has passed.
		if first_settling "$n"; then
			rnd $((SETTLE / 2 + 1))
			ms_sleep "$R"
		fi
		if [ -n "$SETTLE" ] && check_pid "$x" &&
		    kill -STOP "$CPID" 2>/dev/null; then
			rnd 2900
			ms_sleep $((R + 100))
			kill -CONT "$CPID" 2>/dev/null	# it may be gone
			nemesis "$r" stop-check "$x" "$CPID" $((R + 100)) ms
		else
			nemesis "$r" stop-check-missed "$n"
		fi
		;;
	step-clock)
		steps=(+0 +1h -1h +1d -1d +3d -3d)
		rnd ${#steps[@]}
		echo "${steps[$R]}" >"$T/$n.faketime.new" &&
		    mv "$T/$n.faketime.new" "$T/$n.faketime"
		nemesis "$r" step-clock "$n" "${steps[$R]}"
		;;
	esac
}

# --- the rounds --------------------------------------------------------------

UNREADABLE=0 HUNG=0 LAST=
start=$(now_ms)
for ((r = 1; ; r++)); do
	[ $(($(now_ms) - start)) -lt $((MINUTES * 60000)) ] || break
	[ "$ROUNDS" -eq 0 ] || [ "$r" -le "$ROUNDS" ] || break
	for n in "${!SERVE_DOWN[@]}"; do
		serve_up "$n" "${SPORT[$n]}" && unset "SERVE_DOWN[$n]"
	done
	PART=()
	for n in "${NODES[@]}"; do
		rnd 100
		[ "$R" -ge 85 ] || PART+=("$n")
	done
	if [ ${#PART[@]} -eq 0 ]; then
		rnd 3
		PART=("${NODES[$R]}")
	fi
	rnd 4
	if [ "$R" -gt 0 ] || [ -z "$LAST" ]; then
		AGED=aged
		rm -f "$T"/[abc].state/soak
	else
		AGED=kept
	fi
	faults
	plan
	rm -f "$T"/cpid.* "$T"/cdone.*
	race_arm
	for n in "${PART[@]}"; do
		racer 0 bash "$T/node.sh" "$n" "$r"
	done
	"$CLOCKREC" "$LOG" round "$r" begin
	race_go
	now; GO=$NOW
	BGACT=()
	for a in "${ACTS[@]}"; do
		case $a in
		*-check*)
			act $a &
			BGACT+=($!)
			;;
		*)
			act $a
			;;
		esac
	done
	race_wait
	for a in "${BGACT[@]}"; do
		wait "$a"
	done
	for ((k = 1; k <= ${#PART[@]}; k++)); do
		[ "${RACE_RC[$k]}" != 255 ] && continue
		HUNG=$((HUNG + 1))
		diag "round $r: node ${PART[$k - 1]} did not end in 30 s"
	done
	"$CLOCKREC" "$LOG" round "$r" end
	printf -v v '%s' "${PART[@]}"
	echo "round $r $AGED $v $TOUCHED$WHY" >>"$T/rounds.log"
	for n in "${NODES[@]}"; do
		v=$("$T/$n.run" "$PGSTATE" -c "$T/$n.conf" read soak 2>&1)
		[[ $v =~ ^([0-9]+|never)$ ]] && continue
		UNREADABLE=$((UNREADABLE + 1))
		diag "round $r: node $n: record unreadable: $v"
	done
	grep -q "^check [abc] $r 0\$" "$T/rc.log" && LAST=yes
done
secs=$(( ($(now_ms) - start) / 1000 ))
for l in "${LINKS[@]}"; do
	rm -f "$T/ctl.$l"
done

# --- the verdict -------------------------------------------------------------

# From rc.log, rounds.log and the shared log: one line of counts per
# key, "key value...", in $T/verdict.
awk -v doc=" 0 1 2 3 64 65 70 71 73 74 76 78 " '
FILENAME ~ /rounds.log$/ {
	aged[$2] = $3 == "aged"; part[$2] = $4; touched[$2] = $5
	rounds++; naged += aged[$2]
	next
}
FILENAME ~ /rc.log$/ && $1 == "killed" { killed[$2 " " $3] = 1; next }
FILENAME ~ /rc.log$/ && $1 == "touch" { if ($4 != 0) touchfail++; next }
FILENAME ~ /rc.log$/ && $1 == "check" {
	n = $2; r = $3; rc = $4
	checks++; st[rc]++
	if (rc == 0 && !((n " " r) in went)) { went[n " " r] = 1; goes[r]++ }
	if (rc == 137 && (n " " r) in killed)
		;
	else if (index(doc, " " rc " ") == 0) {
		odd++
		print "diag round " r ": node " n ": check exited " rc
	} else if (rc >= 4 && touched[r] == 0) {
		erruntouched++
		print "diag round " r " (untouched): node " n ": check exited " rc
	}
	next
}
$1 == "job" { k = $2 " " $3; if ($4 == "start") { s[k] = $6; ws[k] = $7 }
	else { e[k] = $6; we[k] = $7 }; next }
$1 == "round" && $3 == "begin" { rb[$2] = $5; rbw[$2] = $6; next }
$1 == "round" && $3 == "end" { re[$2] = $5; next }
END {
	for (r in aged) {
		g = goes[r] + 0
		if (g >= 2) doubles++
		if (aged[r] && g == 0) { empties++; if (!touched[r]) emptyclean++ }
		if (aged[r] && length(part[r]) == 1 && touched[r] == 0) {
			lone++
			if (g == 0) {
				lost++
				print "diag round " r ": node " part[r] \
				    " alone and untouched, no poller"
			}
		}
	}
	nj = 0
	for (k in s) {
		split(k, a, " ")
		if (!(k in e)) { e[k] = re[a[2]]; open++ }
		job[++nj] = k
		# The wall clock the job saw, against the one the round began on.
		off = (ws[k] - rbw[a[2]]) - (s[k] - rb[a[2]])
		if (off > 60e9 || off < -60e9) stepped++
		if ((k in we) && ((we[k] - ws[k]) - (e[k] - s[k]) > 5e8 ||
		    (we[k] - ws[k]) - (e[k] - s[k]) < -5e8)) jumped++
	}
	for (i = 1; i <= nj; i++)
		for (j = i + 1; j <= nj; j++) {
			split(job[i], x, " "); split(job[j], y, " ")
			if (x[1] == y[1]) continue
			if (s[job[i]] < e[job[j]] && s[job[j]] < e[job[i]]) {
				overlaps++
				print "diag jobs overlap: node " x[1] " round " \
				    x[2] " and node " y[1] " round " y[2]
			}
		}
	for (rc in st) stl = stl " " rc ":" st[rc]
	printf "rounds %d %d\njobs %d %d %d %d\n", rounds, naged, nj, open,
	    stepped, jumped
	printf "goes %d\ndoubles %d\nempties %d %d\nlone %d %d\n",
	    length(went), doubles, empties, emptyclean, lone, lost
	printf "overlaps %d\nodd %d %d\nchecks %d%s\ntouchfail %d\n",
	    overlaps, odd, erruntouched, checks, stl, touchfail
}' "$T/rounds.log" "$T/rc.log" "$LOG" >"$T/verdict"
contested=$(grep -l 'go, claimed' "$T"/out/*.err 2>/dev/null |
    sed 's|.*/\([0-9]*\)\.[abc]\.err$|\1|' | sort | uniq -d | wc -l)
grep '^diag ' "$T/verdict" | head -n 40 | while read -r _ l; do diag "$l"; done
v()
{
	sed -n "s/^$1 //p" "$T/verdict"
}
read -r nrounds naged < <(v rounds)
read -r njobs nopen nstepped njumped < <(v jobs)
read -r nempty nemptyclean < <(v empties)
read -r nlone nlost < <(v lone)
read -r nodd nerrclean < <(v odd)
kinds=$(awk '$1 == "nemesis" { n[$3]++ }
    END { for (k in n) printf " %s %d,", k, n[k] }' "$LOG")
diag "seed $SEED; $nrounds rounds in ${secs}s ($naged aged," \
    "$((nrounds - naged)) kept); job hold ${HOLD}ms${SOAK_CONF:+; $SOAK_CONF}"
diag "goes $(v goes), doubles $(v doubles), empties $nempty" \
    "($nemptyclean untouched), lone untouched rounds $nlone ($nlost lost);" \
    "contested (two or more claimed) $contested"
diag "jobs $njobs ($nopen without an end), overlapping pairs $(v overlaps);" \
    "on a stepped wall clock $nstepped, saw a step while running $njumped"
diag "check statuses (status:count):$(v checks | cut -d' ' -f2-)" \
    "; failed jobs $(v touchfail)"
diag "nemesis:${kinds%,}"
diag "serve starts $SERVE_STARTS; records unreadable $UNREADABLE;" \
    "rounds not ended in 30s $HUNG"
[ -z "$DISK_SKIP" ] || diag "fill-disk skipped: $DISK_SKIP"
[ -z "$CLOCK_SKIP" ] || diag "step-clock skipped: $CLOCK_SKIP"

num_between "$nrounds" 1 1000000 "rounds ran"
is "$(v overlaps)" 0 "(a) no two nodes' jobs overlap in time"
is "$nlost" 0 "(b) no round lost by a lone healthy node"
is "$UNREADABLE" 0 "(c) every state record readable after every round"
is "$nodd" 0 "(d) every check status documented (137: killed by the nemesis)"
is "$nerrclean" 0 "(d) no check error in an untouched round"
is "$HUNG" 0 "every round ended within 30 s"
for n in "${NODES[@]}"; do
	serve_stop "${SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done
KEEP=${SOAK_KEEP:-}
[ "$_pg_failed" -eq 0 ] || KEEP=${KEEP:-$PG_TOP/build/soak.$SEED}
if [ -n "$KEEP" ] && mkdir -p "$KEEP"; then
	cp -r "$T/out" "$T"/*.log "$T"/*.conf "$T"/*.err "$T/verdict" "$KEEP" 2>/dev/null
	diag "logs kept in $KEEP"
fi
[ "$_pg_failed" -eq 0 ] || diag "FAILED: replay with SOAK_SEED=$SEED"
finish
