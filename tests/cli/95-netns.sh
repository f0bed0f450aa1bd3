#!/bin/bash
# SPDX-License-Identifier: ISC
# Three hosts, a, b and c, in network namespaces of their own, joined by
# veth pairs to a bridge in a fourth. Each host has its own host name (a
# UTS namespace) and its own state directory (bind-mounted on one path in
# a mount namespace of its own), so all three read one and the same
# config file: peers by IP, the node name from the host name. Each runs
# pollguard-serve on its 10.77.0.x address and a cron-like loop that
# starts, at the same instant on all three every 2 s,
#
#	pollguard-check mail && pollguard-touch mail -- job
#
# where the job appends "HOST ROUND" to a shared log and sleeps 0.7 s.
#
# 1. 20 rounds: exactly one host polls in each, always the same one.
# 2. The polling host dies mid-job (its loop, job and serve killed by PID,
#    its link down): another takes over within wait + one interval, and
#    never two poll.
# 3. It comes back: it stays quiet, one host polls per round.
# 4. One idle host is cut off (its link down), unreachable = run: it polls
#    alone while the others go on, each side on its own phase (the
#    documented duplicate window: two at once, or in turns). After the link is back, never two; both sides were active,
#    so everyone skips until the wait has passed, and one polls again
#    within wait + two intervals of the link coming back.
# 5. The same with unreachable = skip: the cut-off host skips with exit 3,
#    and so does every host that cannot reach it: nobody polls. Healed,
#    polling resumes.
#
# Two pollers in one round fail the test, except while a host is cut off
# with unreachable = run. In the steady phases (1 and 3) a round without
# a poller fails too, unless a check in it withdrew for being too slow,
# or skipped because the job of the round before still ran (exit 2):
# that is safe, and such rounds are counted and shown.
#
# Needs root, ip(8) with netns support, unshare(1) and mount(8); skipped
# with the reason otherwise. The namespaces are named pgPID... and
# removed on exit.
#
# pg-test: long (two and a half minutes of cron rounds)
. "${PG_TOP:-.}/tests/lib.sh"

IV=2000			# the cron interval, ms
WAIT_MS=10000		# the cluster's wait (10s, the least allowed)
HOSTS=(a b c)
declare -A IP=([a]=10.77.0.1 [b]=10.77.0.2 [c]=10.77.0.3)

# --- can we? ----------------------------------------------------------------

why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root: network namespaces need root"
elif ! command -v ip >/dev/null 2>&1; then
	why="ip (iproute2) is not installed (scripts/deps installs it)"
elif ! command -v unshare >/dev/null 2>&1 || ! command -v ps >/dev/null 2>&1; then
	why="unshare (util-linux) or ps (procps) is not installed"
fi
NSP=pg$$
while [ -z "$why" ] && ip netns list 2>/dev/null | grep -q "^$NSP"; do
	NSP=pg$$x$RANDOM
done
NETNS=()
netns_cleanup()
{
	local n
	for n in "${NETNS[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
}
trap '_pg_cleanup; netns_cleanup' EXIT

if [ -z "$why" ]; then
	if ! ip netns add "${NSP}probe" 2>"$T/probe.err"; then
		why="ip netns add failed: $(head -n 1 "$T/probe.err")"
	else
		NETNS+=("${NSP}probe")
		mkdir -p "$T/probe.a" "$T/probe.b"
		if ! ip netns exec "${NSP}probe" unshare --uts sh -c \
		    'hostname probe && mount --bind "$0" "$1"' \
		    "$T/probe.a" "$T/probe.b" 2>"$T/probe.err"; then
			why="no UTS namespace or bind mount in a network namespace: $(head -n 1 "$T/probe.err")"
		fi
		ip netns del "${NSP}probe"
		NETNS=()
	fi
fi
if [ -n "$why" ]; then
	skip "$why"
	finish
fi

# --- the network --------------------------------------------------------------

SW=${NSP}sw
setup_net()
{
	local h
	ip netns add "$SW" || return 1
	NETNS+=("$SW")
	ip -n "$SW" link add br0 type bridge || return 1
	ip -n "$SW" link set br0 up || return 1
	for h in "${HOSTS[@]}"; do
		ip netns add "$NSP$h" || return 1
		NETNS+=("$NSP$h")
		ip -n "$NSP$h" link add eth0 type veth peer name "v$h" \
		    netns "$SW" || return 1
		ip -n "$SW" link set "v$h" master br0 up || return 1
		ip -n "$NSP$h" addr add "${IP[$h]}/24" dev eth0 || return 1
		ip -n "$NSP$h" link set eth0 up || return 1
		ip -n "$NSP$h" link set lo up || return 1
	done
}
if setup_net 2>"$T/net.err"; then
	ok "namespaces ${NSP}a, ${NSP}b, ${NSP}c and a bridge in $SW"
else
	not_ok "namespaces and a bridge"
	diag_file "$T/net.err" "ip"
	finish
fi

# link HOST up|down: the host's side of its veth.
link()
{
	ip -n "$NSP$1" link set eth0 "$2"
}

# --- one config for all -------------------------------------------------------

mkdir -m 755 "$T/state" "$T/res"
for h in "${HOSTS[@]}"; do
	mkdir -m 755 "$T/$h.state"
done
# conf POLICY: the shared config, replaced in one rename.
conf()
{
	{
		printf '[pollguard]\nstate = %s\n' "$T/state"
		printf 'timeout = 500ms\nconnect_timeout = 300ms\nsettle = 500ms\n'
		for h in "${HOSTS[@]}"; do
			printf '[peer %s]\nurl = http://%s:7709/\n' "$h" "${IP[$h]}"
		done
		printf '[cluster mail]\nwait = %dms\nunreachable = %s\n' "$WAIT_MS" "$1"
		# For the probe below: no cron loop runs it.
		printf '[cluster probe]\nwait = %dms\n' "$WAIT_MS"
	} >"$T/pollguard.conf.new"
	chmod 644 "$T/pollguard.conf.new"
	mv "$T/pollguard.conf.new" "$T/pollguard.conf"
}
conf run
export CHECK TOUCH SERVE CONF=$T/pollguard.conf RES=$T/res LOG=$T/polls.log \
    JOB=$T/job.sh
: >"$LOG"

# hx HOST COMMAND...: run COMMAND as HOST: in its network namespace, with
# its host name and its state directory on $T/state. Every step execs,
# so the PID is COMMAND's.
cat >"$T/hx" <<'EOF'
#!/bin/sh
h=$1
shift
exec ip netns exec "$NSP$h" unshare --uts sh -c \
    'hostname "$0" && mount --bind "$1" "$2" && shift 2 && exec "$@"' \
    "$h" "$T/$h.state" "$T/state" "$@"
EOF
chmod 755 "$T/hx"
export NSP T

# The job: "HOST ROUND" to $LOG, the moment it began (ms) to $LOG.at.
cat >"$JOB" <<'EOF'
#!/bin/sh
printf '%s %s %s\n' "$1" "$2" "$(date +%s%3N)" >>"$LOG.at"
printf '%s %s\n' "$1" "$2" >>"$LOG"
sleep 0.7
EOF
chmod 755 "$JOB"

# loop.sh HOST T0 IV FIRST LAST: the host's cron. At T0 + r x IV (ms),
# for r from FIRST to LAST, it starts the round in the background; the
# check's exit status goes to $RES/r.HOST, its -v output to
# $RES/r.HOST.err. A round more than 500 ms late is not started.
cat >"$T/loop.sh" <<'EOF'
h=$1 t0=$2 iv=$3 first=$4 last=$5
for ((r = first; r <= last; r++)); do
	t=${EPOCHREALTIME/[.,]/}
	d=$((t0 + r * iv - t / 1000))
	[ "$d" -lt -500 ] && continue
	[ "$d" -gt 0 ] && sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
	(
		"$CHECK" -v -c "$CONF" mail 2>"$RES/$r.$h.err"
		rc=$?
		echo "$rc" >"$RES/$r.$h.tmp" && mv "$RES/$r.$h.tmp" "$RES/$r.$h"
		[ "$rc" -eq 0 ] && exec "$TOUCH" -c "$CONF" mail -- "$JOB" "$h" "$r"
	) &
done
wait
EOF

# --- hosts ----------------------------------------------------------------------

declare -A SPID LPID
LIVE=()
T0=
RMAX=200	# no loop runs past round 200 (400 s)

# start HOST: its serve, and its loop from the next round on.
start()
{
	local h=$1 r port p
	bg "serve.$h" "$T/hx" "$h" "$SERVE" -v -c "$CONF" -l "${IP[$h]}:7709"
	SPID[$h]=$BGPID
	listen_port "serve.$h" port || return 1
	r=$(( $(now_ms) - T0 ))
	[ "$r" -lt 0 ] && r=0 || r=$(( r / IV + 1 ))
	# A process group of its own (setsid execs: same PID), for kill_host.
	bg "loop.$h" setsid "$T/hx" "$h" bash "$T/loop.sh" "$h" "$T0" "$IV" \
	    "$r" "$RMAX"
	LPID[$h]=$BGPID
	for p in $(seq 100); do	# until setsid has run, at most 2 s
		[ "$(ps -o pgid= -p "$BGPID" | tr -d ' ')" = "$BGPID" ] &&
		    break
		[ "$p" -lt 100 ] || bail "the loop of $h leads no process group"
		sleep 0.02
	done
	LIVE+=("$h")
}

# kill_host HOST: SIGKILL its loop, everything the loop started, and its
# serve, by PID; take its link down. The loop's process group is stopped
# first: a round it starts after its descendants were listed would
# survive (the jobs run in groups of their own, so they are listed).
# KILLED_AT: the moment of the kill (now_ms), not of the return: the rest
# takes a while on a loaded machine, and a round may begin meanwhile.
kill_host()
{
	local h=$1 p pids l=()
	kill -STOP -- "-${LPID[$h]}" 2>/dev/null
	pids=$(_pg_descendants "${LPID[$h]}")
	kill -KILL -- "-${LPID[$h]}" $pids "${SPID[$h]}" 2>/dev/null
	KILLED_AT=$(now_ms)
	# Reaped here, so that bash does not report them as killed.
	{ wait "${LPID[$h]}" "${SPID[$h]}"; } 2>/dev/null
	link "$h" down
	for p in "${LIVE[@]}"; do
		[ "$p" = "$h" ] || l+=("$p")
	done
	LIVE=("${l[@]}")
}

# round_now: the round whose start is the latest past.
round_now()
{
	echo $(( ($(now_ms) - T0) / IV ))
}

# until_round R [MS]: sleep until MS (0) after the start of round R.
until_round()
{
	local d=$((T0 + $1 * IV + ${2:-0} - $(now_ms)))
	[ "$d" -gt 0 ] && sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
	return 0
}

# settle_round R: wait until every live host has its exit status for
# round R, and the job of each that went has written its line.
settle_round()
{
	local r=$1 h
	for h in "${LIVE[@]}"; do
		wait_for 10 test -e "$T/res/$r.$h" || diag "round $r: no exit status from $h"
	done
	for h in "${LIVE[@]}"; do
		[ "$(cat "$T/res/$r.$h" 2>/dev/null)" = 0 ] || continue
		wait_for 5 grep -qx "$h $r" "$LOG" || diag "round $r: $h went, but its job wrote nothing"
	done
}

# look R: POLLERS (the hosts whose job ran in round R, "a c"), NPOLL,
# SLOW (1 when a check of the round withdrew as too slow, or skipped for
# the job of the round before: exit 2), and a line for the log.
look()
{
	local r=$1 h rc st=""
	POLLERS=$(awk -v r="$r" '$2 == r { print $1 }' "$LOG" | sort -u | tr '\n' ' ')
	POLLERS=${POLLERS% }
	NPOLL=$(awk -v r="$r" '$2 == r' "$LOG" | wc -l)
	SLOW=0
	for h in "${HOSTS[@]}"; do
		rc=$(cat "$T/res/$r.$h" 2>/dev/null || echo -)
		st="$st $h=$rc"
		[ "$rc" = 2 ] && SLOW=1
		grep -q 'too long' "$T/res/$r.$h.err" 2>/dev/null && SLOW=1
	done
	LINE="round $r:$st; polled: ${POLLERS:-nobody}"
	[ "$SLOW" = 1 ] && LINE="$LINE (a check was too slow)"
	echo "$LINE" >>"$T/rounds.log"
}

# phase FIRST LAST: look at the rounds; ONE (exactly one poller), NONE
# (nobody, explained by slowness), BADNONE (nobody, unexplained; their
# lines in $T/badnone), TWO (two or more), WHO (the pollers, one word per
# round: "a", "[a c]", "-" for none).
phase()
{
	local r
	ONE=0 NONE=0 BADNONE=0 TWO=0 WHO=
	: >"$T/badnone"
	for ((r = $1; r <= $2; r++)); do
		look "$r"
		case $NPOLL in
		0)	if [ "$SLOW" = 1 ]; then
				NONE=$((NONE + 1))
			else
				BADNONE=$((BADNONE + 1))
				echo "$LINE" >>"$T/badnone"
			fi
			WHO="$WHO -" ;;
		1)	ONE=$((ONE + 1)); WHO="$WHO $POLLERS" ;;
		*)	TWO=$((TWO + 1)); WHO="$WHO [$POLLERS]" ;;
		esac
	done
	WHO=${WHO# }
}

# no_badnone DESC: no round of the last phase went without a poller
# unexplained.
no_badnone()
{
	is "$BADNONE" 0 "$1"
	[ "$BADNONE" -eq 0 ] || diag_file "$T/badnone" "rounds without a poller"
}

# --- 1. steady ------------------------------------------------------------------

T0=$(( $(now_ms) + 3000 ))
for h in "${HOSTS[@]}"; do
	start "$h" || bail "host $h did not start"
done
ok "serve and the cron loop running on a, b and c"
# The hosts answer each other across the bridge.
# Another cluster: a's cron loop may already hold mail's run lock.
if "$T/hx" a "$CHECK" -nv -c "$CONF" probe >/dev/null 2>"$T/probe.err" &&
    grep -q ' b: never: idle' "$T/probe.err" && grep -q ' c: never: idle' "$T/probe.err"; then
	ok "a asks b and c across the bridge: both never active"
else
	not_ok "a asks b and c across the bridge: both never active"
	diag_file "$T/probe.err" "check -nv on a"
fi

R1=0 R2=19
until_round $((R2 + 1)) 0
settle_round "$R2"
phase "$R1" "$R2"
diag "rounds $R1-$R2: $WHO"
for h in "${HOSTS[@]}"; do
	diag "round 0, $h: $(tail -n 1 "$T/res/0.$h.err" 2>/dev/null)"
done
is "$TWO" 0 "20 rounds: never two hosts polled in one round"
no_badnone "20 rounds: no round without a poller, except for slowness ($NONE)"
num_between "$ONE" 1 20 "20 rounds: exactly one host polled in $ONE, a slow one in $NONE"
ACTIVE=$(printf '%s\n' $WHO | grep -v -- - | sort -u)
is "$(printf '%s\n' "$ACTIVE" | wc -l)" 1 "no ping-pong: always the same host polled (${ACTIVE//$'\n'/ })"
ACTIVE=$(printf '%s\n' "$ACTIVE" | head -n 1)

# --- 2. the polling host dies mid-job ----------------------------------------------

# Its next job: kill it while that runs.
r=$(( $(round_now) + 1 ))
if wait_for 20 grep -qx "$ACTIVE $((r))" "$LOG" ||
    wait_for 5 grep -qx "$ACTIVE $((r + 1))" "$LOG"; then
	KR=$(awk -v h="$ACTIVE" '$1 == h { r = $2 } END { print r }' "$LOG")
	kill_host "$ACTIVE"
	KT=$KILLED_AT
	ok "$ACTIVE killed while its job of round $KR ran (loop, job, serve; link down)"
else
	not_ok "the polling host ($ACTIVE) started another job"
	KR=$(round_now)
	kill_host "$ACTIVE"
	KT=$KILLED_AT
fi
sleep 0.2
if [ -e "$T/$ACTIVE.state/.mail.lock" ] && lock_held mail "$T/$ACTIVE.state"; then
	not_ok "$ACTIVE's run lock released with its job"
else
	ok "$ACTIVE's run lock released with its job"
fi
# Takeover: within wait + one interval after the kill.
LASTR=$(( KR + (WAIT_MS + IV) / IV + 1 ))
until_round $((LASTR + 1)) 0
settle_round "$LASTR"
phase $((KR + 1)) "$LASTR"
diag "after the kill, rounds $((KR + 1))-$LASTR: $WHO"
TAKER= TR=
for ((r = KR + 1; r <= LASTR; r++)); do
	look "$r"
	if [ "$NPOLL" -ge 1 ]; then
		TAKER=${POLLERS%% *} TR=$r
		break
	fi
done
# Its round begins within wait + one interval of the kill; its job after
# the kill. (The round itself may begin a little before the kill, when
# the killed job began late in its round on a loaded machine: the check
# that went found its peer gone.)
if [ -n "$TR" ]; then
	took=$((T0 + TR * IV - KT))
	began=$(awk -v h="$TAKER" -v r="$TR" '$1 == h && $2 == r { print $3; exit }' \
	    "$LOG.at")
	began=$((${began:-0} - KT))
	if [ "$began" -ge 0 ] && [ "$took" -le $((WAIT_MS + IV)) ]; then
		ok "$TAKER took over in round $TR, $took ms after the kill, its job $began ms after (wait + interval: $((WAIT_MS + IV)) ms)"
	else
		not_ok "$TAKER took over in round $TR, $took ms after the kill, its job $began ms after (wait + interval: $((WAIT_MS + IV)) ms)"
		diag "want: its round within $((WAIT_MS + IV)) ms of the kill, its job after it"
	fi
else
	not_ok "another host took over within wait + one interval"
fi
is "$TWO" 0 "after the kill: never two hosts in one round"
assert "the dead host polled no more" \
    test -z "$(awk -v h="$ACTIVE" -v r="$KR" '$1 == h && $2 > r' "$LOG")"

# --- 3. it comes back --------------------------------------------------------------

# Back more than wait after its last activity, so that its own record no
# longer holds the others back.
DEAD=$ACTIVE
until_round $(( (KT + WAIT_MS + 1000 - T0) / IV + 1 )) 200
link "$DEAD" up
start "$DEAD" || bail "host $DEAD did not start again"
BR=$(( $(round_now) + 1 ))
R2=$((BR + 4))
until_round $((R2 + 1)) 0
settle_round "$R2"
phase "$BR" "$R2"
diag "$DEAD back, rounds $BR-$R2: $WHO"
is "$TWO" 0 "$DEAD back: never two hosts in one round"
no_badnone "$DEAD back: no round without a poller, except for slowness ($NONE)"
assert "$DEAD back: it did not poll" \
    test -z "$(awk -v h="$DEAD" -v r="$BR" '$1 == h && $2 >= r' "$LOG")"
rcs=$(for ((r = BR; r <= R2; r++)); do cat "$T/res/$r.$DEAD" 2>/dev/null; echo; done |
    sort -u | tr -d '\n')
is "$rcs" 1 "$DEAD back: it skipped every round, exit 1 (a peer active)"
ACTIVE=$(printf '%s\n' $WHO | grep -v -- - | tail -n 1)

# --- 4. a host cut off, unreachable = run -----------------------------------------------

# cut_link: cut ISO's link a second before a round PR begins (at least
# 1.5 s from now). Where a loaded machine cut it later than 100 ms
# before, PR is the next round: its checks began while the link was up.
cut_link()
{
	PR=$(( ($(now_ms) + 1500 - T0) / IV + 1 ))
	until_round "$PR" -1000
	link "$ISO" down
	while [ "$(now_ms)" -gt $((T0 + PR * IV - 100)) ]; do
		PR=$((PR + 1))
	done
}

# cut_off: an idle host, not the one polling.
cut_off()
{
	local h
	for h in c a b; do
		[ "$h" != "$ACTIVE" ] && { echo "$h"; return; }
	done
}
ISO=$(cut_off)
cut_link
R2=$((PR + 3))
until_round $((R2 + 1)) 0
settle_round "$R2"
phase "$PR" "$R2"
diag "$ISO cut off, unreachable = run, rounds $PR-$R2: $WHO"
iso_polls=$(awk -v h="$ISO" -v a="$PR" -v b="$R2" '$1 == h && $2 >= a && $2 <= b' "$LOG" | wc -l)
num_between "$iso_polls" 1 4 "run: the cut-off host $ISO polls alone ($iso_polls of 4 rounds)"
# The others poll on their own phase (every other round, as the wait
# allows): in the same rounds as the cut-off host or in the rounds
# between, as the phases fall. Either way both sides poll.
others=$(awk -v h="$ISO" -v a="$PR" -v b="$R2" '$1 != h && $2 >= a && $2 <= b' "$LOG" | wc -l)
num_between "$others" 1 4 "run: meanwhile the others go on ($others polls in 4 rounds, $TWO with two at once)"
assert "run: $ISO warned that its peers are unreachable" \
    grep -qs "unreachable.*counts as never" "$T/res/$PR.$ISO.err" "$T/res/$((PR + 1)).$ISO.err"
# Healed: never two once the link is back, and one polls again within
# wait + interval after the last activity, which may be a job's length
# after the link came back: within wait + two intervals of it.
HR=$(( $(round_now) + 1 ))
until_round "$HR" -1000
link "$ISO" up
R2=$(( HR + (WAIT_MS + 2 * IV) / IV ))
until_round $((R2 + 1)) 0
settle_round "$R2"
phase "$HR" "$R2"
diag "healed, rounds $HR-$R2: $WHO"
is "$TWO" 0 "run, healed: never two hosts in one round"
first=
for ((r = HR; r <= R2; r++)); do
	look "$r"
	[ "$NPOLL" -eq 1 ] && { first=$r; break; }
done
if [ -n "$first" ]; then
	num_between $(( (first - HR) * IV + 1000 )) 0 $((WAIT_MS + 2 * IV)) \
	    "run, healed: one host polls again $(( (first - HR) * IV + 1000 )) ms after (wait + two intervals at most)"
else
	not_ok "run, healed: one host polls again within wait + two intervals"
fi
ACTIVE=$(printf '%s\n' $WHO | grep -v -- - | tail -n 1)

# --- 5. a host cut off, unreachable = skip ----------------------------------------------

conf skip
ISO=$(cut_off)
cut_link
R2=$((PR + 3))
until_round $((R2 + 1)) 0
settle_round "$R2"
phase "$PR" "$R2"
diag "$ISO cut off, unreachable = skip, rounds $PR-$R2: $WHO"
np=$(awk -v a="$PR" -v b="$R2" '$2 >= a && $2 <= b' "$LOG" | wc -l)
is "$np" 0 "skip: nobody polls while $ISO is cut off"
rcs=$(for ((r = PR; r <= R2; r++)); do cat "$T/res/$r.$ISO" 2>/dev/null; echo; done |
    sort -u | tr -d '\n')
is "$rcs" 3 "skip: the cut-off host $ISO skips every round, exit 3"
# The last poller's first check may still find the claim it kept in the
# round before within its horizon, longer than a round: it skips (2), as
# it does every other round while it polls.
rcs=$(for h in "${HOSTS[@]}"; do
	[ "$h" = "$ISO" ] && continue
	for ((r = PR; r <= R2; r++)); do
		rc=$(cat "$T/res/$r.$h" 2>/dev/null)
		[ "$h $r $rc" != "$ACTIVE $PR 2" ] || rc=1
		echo "$rc"
	done
done | sort -u | tr -d '\n')
case $rcs in
*3*) ;;
*) rcs="$rcs (no 3)" ;;
esac
is "${rcs//[13]/}" "" "skip: the others skip too, exit 3 (or 1 while the last poller counts as active): $rcs"
HR=$(( $(round_now) + 1 ))
until_round "$HR" -1000
link "$ISO" up
R2=$(( HR + (WAIT_MS + 2 * IV) / IV ))
until_round $((R2 + 1)) 0
settle_round "$R2"
phase "$HR" "$R2"
diag "healed, rounds $HR-$R2: $WHO"
is "$TWO" 0 "skip, healed: never two hosts in one round"
num_between "$ONE" 1 100 "skip, healed: polling resumes ($ONE rounds with one poller)"

# --- the serves -----------------------------------------------------------------------

for h in "${HOSTS[@]}"; do
	if grep -qE 'client [0-9.]+: [45][0-9][0-9] ' "$T/serve.$h.err"; then
		not_ok "serve $h refused no question"
		grep -E 'client [0-9.]+: [45][0-9][0-9] ' "$T/serve.$h.err" | head -n 5 |
		    sed 's/^/# /'
	else
		ok "serve $h refused no question"
	fi
done
diag "$(sort -u "$T/rounds.log" | wc -l) rounds looked at; $(wc -l <"$LOG") jobs ran"

finish
