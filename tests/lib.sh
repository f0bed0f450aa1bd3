# SPDX-License-Identifier: ISC
# tests/lib.sh: TAP helpers shared by the command-line tests in tests/cli.
#
# Source it from a bash script that tests/run starts in the top directory
# with PG_TOP, PG_BIN and PG_PGSTATE set (bench/run sources it too, with
# the tools of build/bench). It gives the script:
#
#	$T		one temporary directory, removed on exit
#	$STATE		the state directory mkconf writes ($T/state)
#	$CHECK $TOUCH $SERVE $PGSTATE	the programs under test and the helper
#	ok, not_ok, is, assert, exit_is, exit_err, err_has, ... TAP helpers
#	bg		start a background process, stopped by its PID on exit
#	stop_pids	stop processes and their descendants by PID
#	finish		print the plan and exit 1 when anything failed
#
# Nothing here reads /etc/pollguard.conf: POLLGUARD_CONF is unset and every
# command is given -c, or POLLGUARD_CONF explicitly.

set -u
umask 022
export LC_ALL=C
unset POLLGUARD_CONF

: "${PG_TOP:?PG_TOP is not set (run the tests through tests/run)}"
: "${PG_BIN:=$PG_TOP/bin}"
: "${PG_PGSTATE:=$PG_TOP/tests/pgstate}"
CHECK=$PG_BIN/pollguard-check
TOUCH=$PG_BIN/pollguard-touch
SERVE=$PG_BIN/pollguard-serve
PGSTATE=$PG_PGSTATE
# PG_SLOW: how much longer a bound on a time may be for this build: 4
# under ASan (make check-sanitize), or memcheck (check-valgrind's
# wrappers), 1 otherwise. For the few bounds that say how soon something
# happens; an order of events needs none.
if [ -z "${PG_SLOW:-}" ]; then
	PG_SLOW=1
	if grep -q '^exec valgrind' "$TOUCH" 2>/dev/null ||
	    nm "$TOUCH" 2>/dev/null | grep -q __asan_init; then
		PG_SLOW=4
	fi
fi

# Longest a single command may run before it counts as hung.
PG_CMD_TIMEOUT=${PG_CMD_TIMEOUT:-60}
# Tenths of a second stop_pids gives a process to end after SIGTERM.
PG_STOP_WAIT=${PG_STOP_WAIT:-10}

_pg_n=0
_pg_failed=0
_pg_planned=
BGPIDS=()

# A test never reads the terminal by accident.
exec </dev/null

T=$(mktemp -d "${TMPDIR:-/tmp}/${PG_TMP_NAME:-pollguard-test}.XXXXXX") || {
	echo "Bail out! mktemp -d failed"
	exit 1
}
STATE=$T/state

# An age for "an old record": a minute, or half the uptime on a machine
# booted less than two minutes ago (a record of this boot cannot be older
# than the boot: pgstate write would make a malformed one).
# uptime_ms: CLOCK_BOOTTIME in milliseconds, from /proc/uptime (10ms steps).
uptime_ms()
{
	local u f
	read -r u f </proc/uptime
	f=${u#*.}000
	echo $((${u%.*} * 1000 + 10#${f:0:3}))
}
UPTIME_MS=$(uptime_ms)
OLD_MS=$((UPTIME_MS < 120000 ? UPTIME_MS / 2 : 60000))
OLD_MAX=$((OLD_MS + 10000))

# The PIDs of the processes a process started, and theirs, by PID.
_pg_descendants()
{
	local c
	command -v ps >/dev/null 2>&1 || return 0
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		_pg_descendants "$c"
	done
}

# The state letter of a process (R, S, Z...), empty when it is gone.
_pg_pstate()
{
	sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$1/stat" 2>/dev/null
}

_pg_alive()
{
	local s
	s=$(_pg_pstate "$1")
	[ -n "$s" ] && [ "$s" != Z ]
}

# stop_pids PID...: SIGTERM to each process and its descendants, SIGKILL
# to those still running PG_STOP_WAIT tenths of a second later; then reap
# them.
stop_pids()
{
	local p i all=()
	for p in "$@"; do
		all+=($(_pg_descendants "$p") "$p")
	done
	for p in "${all[@]}"; do
		_pg_alive "$p" && kill -TERM "$p" 2>/dev/null
	done
	for p in "${all[@]}"; do
		for ((i = 0; i < PG_STOP_WAIT; i++)); do
			_pg_alive "$p" || break
			sleep 0.1
		done
		_pg_alive "$p" && kill -KILL "$p" 2>/dev/null
	done
	for p in "$@"; do
		wait "$p" 2>/dev/null
	done
	return 0
}

_pg_cleanup()
{
	stop_pids "${BGPIDS[@]}"
	wait 2>/dev/null
	_pg_ports_release
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap _pg_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# --- TAP ------------------------------------------------------------------

# plan N: print the plan first (optional: finish prints it otherwise).
plan()
{
	_pg_planned=$1
	echo "1..$1"
}

diag()
{
	local l
	printf '%s\n' "$*" | while IFS= read -r l; do
		printf '# %s\n' "$l"
	done
}

# diag_file FILE [LABEL]: show (the first 20 lines of) a file as diagnostics.
diag_file()
{
	[ -s "$1" ] || { diag "${2:-$1}: (empty)"; return 0; }
	diag "${2:-$1}:"
	head -n 20 "$1" | cat -v | sed 's/^/#   /'
}

ok()
{
	_pg_n=$((_pg_n + 1))
	echo "ok $_pg_n - $*"
}

not_ok()
{
	_pg_n=$((_pg_n + 1))
	_pg_failed=$((_pg_failed + 1))
	echo "not ok $_pg_n - $*"
}

# skip REASON [COUNT]
skip()
{
	local i
	for ((i = 0; i < ${2:-1}; i++)); do
		_pg_n=$((_pg_n + 1))
		echo "ok $_pg_n # SKIP $1"
	done
}

bail()
{
	echo "Bail out! $*"
	exit 1
}

# is GOT WANT DESC
is()
{
	if [ "$1" = "$2" ]; then
		ok "$3"
	else
		not_ok "$3"
		diag "got:  '$(printf %s "$1" | cat -v)'"
		diag "want: '$(printf %s "$2" | cat -v)'"
	fi
}

# assert DESC COMMAND...: ok when the command succeeds.
assert()
{
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "failed: $*"
	fi
}

# num_between GOT LOW HIGH DESC: GOT is an integer in LOW..HIGH.
num_between()
{
	if [[ $1 =~ ^-?[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; then
		ok "$4"
	else
		not_ok "$4"
		diag "got '$1', want an integer in $2..$3"
	fi
}

# exit_is WANT DESC COMMAND...: run the command (bounded by a timeout),
# stdout to $T/out, stderr to $T/err, status in $RC; WANT may list
# alternatives: "73|74".
exit_is()
{
	local want=$1 desc=$2
	shift 2
	timeout -k 5 "$PG_CMD_TIMEOUT" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	case "|$want|" in
	*"|$RC|"*)
		ok "$desc"
		;;
	*)
		not_ok "$desc"
		diag "command: $*"
		diag "exit status $RC, want $want"
		diag_file "$T/out" stdout
		diag_file "$T/err" stderr
		;;
	esac
}

# exit_err DESC COMMAND...: like exit_is, but any error status will do:
# not a verdict (0..3), not a signal or a timeout (>= 124).
exit_err()
{
	local desc=$1
	shift
	timeout -k 5 "$PG_CMD_TIMEOUT" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	if [ "$RC" -ge 4 ] && [ "$RC" -lt 124 ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "command: $*"
		diag "exit status $RC, want an error status (4..123)"
		diag_file "$T/err" stderr
	fi
}

# err_has STRING DESC: stderr of the last exit_is holds STRING.
err_has()
{
	if grep -qF -- "$1" "$T/err"; then
		ok "$2"
	else
		not_ok "$2"
		diag "stderr lacks: $1"
		diag_file "$T/err" stderr
	fi
}

# err_like ERE DESC
err_like()
{
	if grep -qE -- "$1" "$T/err"; then
		ok "$2"
	else
		not_ok "$2"
		diag "stderr does not match: $1"
		diag_file "$T/err" stderr
	fi
}

# err_lacks STRING DESC
err_lacks()
{
	if grep -qF -- "$1" "$T/err"; then
		not_ok "$2"
		diag "stderr holds: $1"
		diag_file "$T/err" stderr
	else
		ok "$2"
	fi
}

# file_empty FILE DESC
file_empty()
{
	if [ -e "$1" ] && [ ! -s "$1" ]; then
		ok "$2"
	else
		not_ok "$2"
		diag_file "$1"
	fi
}

err_empty()
{
	file_empty "$T/err" "$1"
}

out_empty()
{
	file_empty "$T/out" "$1"
}

# finish: print the plan unless plan did, and exit 1 when a test failed or
# the count does not match the plan.
finish()
{
	if [ -z "$_pg_planned" ]; then
		echo "1..$_pg_n"
	elif [ "$_pg_planned" -ne "$_pg_n" ]; then
		diag "planned $_pg_planned tests, ran $_pg_n"
		exit 1
	fi
	[ "$_pg_failed" -eq 0 ] || diag "$_pg_failed of $_pg_n failed"
	[ "$_pg_failed" -eq 0 ]
	exit
}

# --- fixtures -------------------------------------------------------------

# mkconf [FILE] < BODY: write a config: a [pollguard] section naming the
# node "testnode" and the state directory $STATE, then BODY, which starts
# on line 4. Mode 600. CONF names the file.
mkconf()
{
	CONF=${1:-$T/pollguard.conf}
	{
		printf '[pollguard]\nnode = testnode\nstate = %s\n' "$STATE"
		cat
	} >"$CONF"
	chmod 600 "$CONF"
}

# state_ls [DIR]: the entries of a state directory, hidden ones included.
state_ls()
{
	ls -A "${1:-$STATE}" 2>/dev/null
}

# record CLUSTER: what pgstate read says (elapsed ms, "never" or "error").
record()
{
	"$PGSTATE" -c "$CONF" read "$1" 2>/dev/null || echo error
}

# faked_init: $LIBFT, libfaketime's preload library, and $FAKED, a
# program that runs "$FAKED SPEC COMMAND..." with it preloaded and
# FAKETIME=SPEC ("+2d", "-365d"); 1 when libfaketime is not installed.
# Not faketime(1): that wrapper names a semaphore and shared memory in
# /dev/shm after its PID, leaves both behind when it is killed, and a
# later wrapper given the same PID fails ("sem_open: File exists").
# libfaketime alone may leave the same pair, named after the command's
# PID (pollguard-check does): $FAKED removes it, faked_clean PID too.
faked_init()
{
	local f
	LIBFT=
	for f in /usr/lib/*/faketime/libfaketime.so.1 \
	    /usr/lib/faketime/libfaketime.so.1; do
		[ -f "$f" ] && LIBFT=$f && break
	done
	[ -n "$LIBFT" ] || return 1
	FAKED=$T/faked
	cat >"$FAKED" <<EOF
#!/bin/bash
spec=\$1
shift
LD_PRELOAD=$LIBFT FAKETIME=\$spec "\$@" <&0 &
pid=\$!
wait "\$pid"
rc=\$?
rm -f "/dev/shm/faketime_shm_\$pid" "/dev/shm/sem.faketime_sem_\$pid"
exit "\$rc"
EOF
	chmod 755 "$FAKED"
}

faked_clean()
{
	rm -f "/dev/shm/faketime_shm_$1" "/dev/shm/sem.faketime_sem_$1"
}

# private_run_ok: 0 when this user can give a process a /run of its own
# (root, and unshare(1) can make a mount namespace), and the test's
# directory is not under /run, which that would hide; the answer is kept.
private_run_ok()
{
	if [ -z "${_pg_privrun:-}" ]; then
		_pg_privrun=1
		case $T/ in /run/*) return 1 ;; esac
		[ "$(id -u)" = 0 ] && unshare -m --propagation private \
		    sh -c 'mount -t tmpfs -o size=1m pgrun /run' 2>/dev/null &&
		    _pg_privrun=0
	fi
	return "$_pg_privrun"
}

# private_run COMMAND...: exec COMMAND with a /run of its own, an empty
# tmpfs in a mount namespace of its own, where private_run_ok; else as it
# is. A daemon with a fixed pidfile there (openbsd-inetd's
# /run/inetd.pid) then neither takes nor meets the host's. The PID stays
# COMMAND's: unshare and sh exec it. Its syslog(3) lines are lost where
# /dev/log leads into /run (systemd's journal); no test reads them.
private_run()
{
	private_run_ok && exec unshare -m --propagation private sh -c \
	    'mount -t tmpfs -o size=1m,mode=755 pgrun /run && exec "$@"' \
	    sh "$@"
	exec "$@"
}

# cached_rounds WORD: ROUNDS rounds in which a asks b through the
# caching proxy of $T/cache (a's peer b), whose copy of b's answer (its
# path has WORD in it) was taken by a dry run of a while b was idle, and
# b then goes and runs a job. Counts in WENT the rounds a went beside
# b's job, in REFUSED those it refused (exit 76) naming the cache.
cached_rounds()
{
	local r rc job
	WENT=0 REFUSED=0
	for ((r = 1; r <= ROUNDS; r++)); do
		rm -f "$T/cache"/*
		"$PGSTATE" -c "$T/a.conf" write mail 600000 ||
		    bail "pgstate write a mail failed"
		"$PGSTATE" -c "$T/b.conf" write mail 600000 ||
		    bail "pgstate write b mail failed"
		# The copy: b idle, taken by a's earlier dry run.
		"$CHECK" -n -c "$T/a.conf" mail >/dev/null 2>&1
		[ -n "$(proxy_kept "$T/cache" "$1")" ] ||
		    bail "round $r: the proxy kept no copy of b's $1"
		"$CHECK" -c "$T/b.conf" mail >"$T/b.out" 2>&1 ||
		    bail "round $r: b did not go ($(cat "$T/b.out"))"
		"$TOUCH" -c "$T/b.conf" mail -- sleep 3 &
		job=$!
		wait_for 5 sh -c "curl -s http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail | grep -q '^running 1'" ||
		    bail "round $r: b's job did not start"
		"$CHECK" -c "$T/a.conf" mail >"$T/a.out" 2>&1
		rc=$?
		[ "$rc" = 0 ] && WENT=$((WENT + 1))
		[ "$rc" = 76 ] && grep -q 'peer b .*from a cache' "$T/a.out" &&
		    REFUSED=$((REFUSED + 1))
		[ "$rc" = 0 ] || [ "$rc" = 76 ] ||
		    diag_file "$T/a.out" "round $r: a exited $rc"
		wait "$job"
	done
}

# proxy_kept DIR WORD: the first copy a caching tests/pathproxy -c DIR
# kept of a path with WORD in it, once stored whole (empty after 5 s
# without one). The proxy relays an answer before it renames NAME.tmp to
# NAME: its client may be done before the copy is.
proxy_kept()
{
	local e= dir=$1 word=$2
	wait_for 5 eval 'e=$(ls "$dir"/*"$word"* 2>/dev/null |
	    grep -v "\.tmp$" | head -n 1); [ -n "$e" ]'
	echo "$e"
}

# wait_for SECONDS COMMAND...: poll until the command succeeds; 1 on timeout.
wait_for()
{
	local secs=$1 end
	shift
	end=$(($(now_ms) + secs * 1000))
	until "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# now_ms: wall-clock milliseconds, without a fork.
now_ms()
{
	local t=${EPOCHREALTIME/[.,]/}
	echo $((t / 1000))
}

# lock_held CLUSTER [STATEDIR]: a process holds the cluster's run lock, a
# write lock on STATE/.CLUSTER.lock (an open file description lock, as
# lslocks(8) shows it; flock(1) does not see those).
lock_held()
{
	local f=${2:-$STATE}/.$1.lock ino
	[ -e "$f" ] || return 1
	ino=$(stat -c %i "$f") || return 1
	grep -qE "WRITE .*:$ino [0-9]+ " /proc/locks 2>/dev/null
}

lock_taken()
{
	lock_held "$@"
}

# bg NAME COMMAND...: start the command in the background, stdin from
# /dev/null, output to $T/NAME.out and $T/NAME.err; BGPID is its PID. It is
# stopped, by PID, on exit if it is still running.
bg()
{
	local name=$1
	shift
	# Emptied here, not only in the child: a check of them right after
	# (listen_port) must not find what a process of that name said
	# before.
	: >"$T/$name.out"
	: >"$T/$name.err"
	"$@" </dev/null >"$T/$name.out" 2>"$T/$name.err" &
	BGPID=$!
	BGPIDS+=("$BGPID")
}

# wait_exit PID [SECONDS]: wait for a background process to end and return
# its exit status; past the deadline kill it (and its children) and
# return 255.
wait_exit()
{
	local pid=$1 secs=${2:-10} end c
	end=$(($(now_ms) + secs * 1000))
	while _pg_alive "$pid"; do
		if [ "$(now_ms)" -ge "$end" ]; then
			diag "PID $pid still running after ${secs}s: killed"
			for c in $(_pg_descendants "$pid"); do
				kill -KILL "$c" 2>/dev/null
			done
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 255
		fi
		sleep 0.05
	done
	wait "$pid" 2>/dev/null
}

# --- ports ----------------------------------------------------------------

# port_listening PORT: something listens on 127.0.0.1:PORT or *:PORT.
port_listening()
{
	local hex
	hex=$(printf '%04X' "$1")
	grep -qE "^ *[0-9]+: (0100007F|00000000):$hex [0-9A-F]{8}:0000 0A " \
	    /proc/net/tcp 2>/dev/null ||
	    grep -qE "^ *[0-9]+: [0-9A-F]{32}:$hex [0-9A-F]{32}:0000 0A " \
	    /proc/net/tcp6 2>/dev/null
}

# The ports free_port gives: from 10000 up to the range the kernel hands
# out for outgoing connections and for servers on port 0
# (net.ipv4.ip_local_port_range), and above it; the whole of 1024-65535
# when that range leaves no room.
read -r _pg_eph_lo _pg_eph_hi </proc/sys/net/ipv4/ip_local_port_range \
    2>/dev/null
: "${_pg_eph_lo:=32768}" "${_pg_eph_hi:=60999}"
_pg_port_lo=10000 _pg_port_n1=$((_pg_eph_lo - 10000))
_pg_port_n2=$((_pg_eph_hi < 65535 ? 65535 - _pg_eph_hi : 0))
if [ "$_pg_port_n1" -lt 1000 ]; then
	_pg_port_n1=0
	[ "$_pg_port_n2" -ge 1000 ] || _pg_port_lo=1024 _pg_port_n1=64512 \
	    _pg_port_n2=0
fi
# Reserved ports, by port: the descriptor that holds the lock.
PG_PORT_LOCKS=/tmp/pollguard-test.ports
declare -A _pg_portfd=()

# free_port: set FREE_PORT to a port of 127.0.0.1 that nothing listens
# on, for this test alone until it ends. It lies outside the kernel's
# range for outgoing connections and for servers on port 0, so that no
# other process is given it while a server of the test restarts on it
# or while it stands for a peer that is down; and it is reserved under
# a lock that every test of this host honours (a file in
# $PG_PORT_LOCKS, locked until the test ends, then removed), so that no
# test that runs beside it (tests/run -j) picks it. 1 when none was
# found.
free_port()
{
	local p f fd i
	mkdir -p -m 1777 "$PG_PORT_LOCKS" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		p=$(((RANDOM * 32768 + RANDOM) % (_pg_port_n1 + _pg_port_n2)))
		if [ "$p" -lt "$_pg_port_n1" ]; then
			p=$((_pg_port_lo + p))
		else
			p=$((_pg_eph_hi + 1 + p - _pg_port_n1))
		fi
		[ -z "${_pg_portfd[$p]:-}" ] || continue
		f=$PG_PORT_LOCKS/$p
		# In braces: exec's own redirection of stderr would last.
		{ exec {fd}>>"$f"; } 2>/dev/null || continue
		# Locked, and still the file of that name: one that was
		# removed after another test's lock was released does not
		# count.
		if ! flock -n "$fd" ||
		    [ "$(stat -c %d:%i "$f" 2>/dev/null)" != \
		    "$(stat -L -c %d:%i "/dev/fd/$fd" 2>/dev/null)" ] ||
		    port_listening "$p"; then
			exec {fd}>&-
			continue
		fi
		_pg_portfd[$p]=$fd
		FREE_PORT=$p
		return 0
	done
	return 1
}

# _pg_ports_release: give back the ports free_port reserved.
_pg_ports_release()
{
	local p fd
	for p in "${!_pg_portfd[@]}"; do
		fd=${_pg_portfd[$p]}
		rm -f "$PG_PORT_LOCKS/$p"
		exec {fd}>&-
	done
	_pg_portfd=()
}

# serve_start NAME CONF [ARGS...]: start a standalone pollguard-serve -v on
# 127.0.0.1 and a port the kernel picks, wait until it listens, and set
# PORT to that port and SERVE_PID to its PID (also in BGPIDS). Its output
# is $T/NAME.out and $T/NAME.err. ARGS go before -l (say, -p FILE), or
# give "-l ADDR:0" in ARGS to listen elsewhere. 1 when it did not start.
# SERVE_BIN runs another program (an older serve) instead of $SERVE.
serve_start()
{
	local name=$1 conf=$2
	shift 2
	case " $* " in
	*" -l "*) bg "$name" "${SERVE_BIN:-$SERVE}" -v -c "$conf" "$@" ;;
	*) bg "$name" "${SERVE_BIN:-$SERVE}" -v -c "$conf" "$@" -l 127.0.0.1:0 ;;
	esac
	SERVE_PID=$BGPID
	listen_port "$name" PORT "$SERVE_PID"
}

# serve_again NAME CONF PORT [ARGS...]: serve_start NAME CONF ARGS... on
# 127.0.0.1:PORT, a port that a serve of this test had (fleet_start's,
# which free_port reserved, so that no other process is given it in the
# meantime). Should the address still be in use, it is tried again, for
# PG_CMD_TIMEOUT seconds at most.
serve_again()
{
	local name=$1 conf=$2 port=$3 end
	shift 3
	end=$(($(now_ms) + PG_CMD_TIMEOUT * 1000))
	while ! serve_start "$name" "$conf" "$@" -l "127.0.0.1:$port"; do
		wait_exit "$SERVE_PID" 5 >/dev/null
		grep -q 'in use' "$T/$name.err" &&
		    [ "$(now_ms)" -lt "$end" ] || return 1
		diag "127.0.0.1:$port still in use: started again"
		sleep 0.2
	done
}

# listen_port NAME VAR [PID]: wait for the "listening on ...:PORT" line
# that a server started with "bg NAME" writes to its stderr
# (pollguard-serve, socat -d -d, the tests' fake peers) and set VAR to
# the port; 1, VAR empty and the stderr shown, when none comes. With the
# server's PID: as long as it runs, PG_CMD_TIMEOUT seconds at most (a
# loaded machine, valgrind); without, 10 s. The line counts once its
# port is there: a writer may write it in pieces (perl's print of a list
# to STDERR writes each item).
listen_port()
{
	local l pid=${3:-} err=$T/$1.err re='listening on .*:[0-9]+$'
	printf -v "$2" '%s' ""
	if if [ -n "$pid" ]; then
		wait_for "$PG_CMD_TIMEOUT" eval \
		    'grep -qsE "$re" "$err" || ! _pg_alive $pid'
		grep -qsE "$re" "$err"
	else
		wait_for 10 grep -qsE "$re" "$err"
	fi; then
		l=$(grep -m1 -E "$re" "$err")
		if [[ ${l##*:} =~ ^[0-9]+$ ]]; then
			printf -v "$2" '%s' "${l##*:}"
			return 0
		fi
	fi
	diag_file "$T/$1.err" "$1 stderr"
	return 1
}

# serve_stop PID: SIGTERM, and its exit status (255: had to be killed).
serve_stop()
{
	kill -TERM "$1" 2>/dev/null
	wait_exit "$1" 10
}

# peer_start NAME WAIT ACTIVE [IDLE...]: a peer node called NAME, served by
# serve_start NAME (PORT, SERVE_PID): its own config $T/NAME.conf and
# state directory $T/NAME-state, standalone clusters ACTIVE and IDLE... of
# the given wait, and a record of ACTIVE written just now. CONF stays.
peer_start()
{
	local name=$1 wait=$2 active=$3 c
	shift 2
	for c in "$@"; do
		printf '[cluster %s]\nwait = %s\npeers =\n' "$c" "$wait"
	done | STATE=$T/$name-state mkconf "$T/$name.conf"
	sed -i "s/^node = testnode\$/node = $name/" "$T/$name.conf"
	"$TOUCH" -c "$T/$name.conf" "$active" || return 1
	serve_start "$name" "$T/$name.conf"
}

# host_lock NAME: take the lock NAME that every test on this host shares
# (flock on /tmp/pollguard-test.NAME.lock), waiting 5 minutes at most,
# for what there is one of per host, such as openbsd-inetd's pidfile
# /run/inetd.pid: tests run side by side (tests/run -j). host_unlock NAME
# releases it; so does the script's end. 1 when it was not had.
declare -A _pg_lockfd=()
host_lock()
{
	local fd
	exec {fd}>>"/tmp/pollguard-test.$1.lock" || return 1
	_pg_lockfd[$1]=$fd
	flock -w 300 "$fd"
}
host_unlock()
{
	local fd=${_pg_lockfd[$1]:-}
	[ -n "$fd" ] || return 0
	exec {fd}>&-
	unset "_pg_lockfd[$1]"
}

# need_bin: bail out when the programs are not built.
need_bin()
{
	local b
	for b in "$CHECK" "$TOUCH" "$SERVE" "$PGSTATE"; do
		[ -x "$b" ] || bail "$b is not built (run make)"
	done
}
need_bin

# need_built FILE...: bail out when a test program is not built.
need_built()
{
	local b
	for b; do
		[ -e "$b" ] || bail "$b is not built (make ${b#"$PG_BUILD"/})"
	done
}

# --- a fleet on loopback, and checks started at one instant ----------------
# (tests/cli/91-race.sh, 96-preempt.sh, 98b-handover-real.sh, tests/race-load.sh)

FLEET=()
FLEET_PEERS=
declare -A FLEET_SPID=() FLEET_PORT=()
RACER=()
RACE_RC=()

# stall_start: a tests/stallproxy stalled from the start: a server that
# accepts and never answers (a ping that hangs). STALL_URL is its
# http:// URL; BGPID its PID.
stall_start()
{
	bg stall "$PG_BUILD/tests/stallproxy" 9
	wait_for 10 grep -q 'listening on' "$T/stall.err" ||
	    bail "stallproxy did not start"
	kill -USR2 "$BGPID"
	wait_for 10 grep -q 'stalled at' "$T/stall.err" ||
	    bail "stallproxy did not stall"
	STALL_URL=$(sed -n 's/^stallproxy: listening on /http:\/\//p' \
	    "$T/stall.err")
}

# fleet_conf NODE FILE [LINE]: node NODE's config: state $T/NODE.state,
# LINE (say, "settle = 0") in [pollguard], cluster mail (wait 60s) with
# the nodes of the fleet as peers once their ports are known
# ($FLEET_PEERS).
fleet_conf()
{
	local n=$1 f=$2 list=
	if [ -n "$FLEET_PEERS" ]; then
		printf -v list '%s, ' "${FLEET[@]}"
		list=${list%, }
	fi
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$n" "$T/$n.state"
		[ -z "${3:-}" ] || printf '%s\n' "$3"
		printf '[cluster mail]\nwait = 60s\npeers = %s\n' "$list"
		[ -z "$FLEET_PEERS" ] || printf '%s\n' "$FLEET_PEERS"
	} >"$f"
	chmod 600 "$f"
}

# fleet_start LINE NODE...: for each node a state directory, a config
# $T/NODE.conf (fleet_conf with LINE) and a pollguard-serve on a port of
# its own (FLEET_SPID[NODE], FLEET_PORT[NODE]), which free_port reserved:
# a test may stop a serve and start it again on its port (serve_again);
# then every config names every node as a peer, and the serves reread
# theirs.
fleet_start()
{
	local line=$1 n try
	shift
	FLEET=("$@")
	FLEET_PEERS=
	for n; do
		mkdir -m 755 "$T/$n.state"
		fleet_conf "$n" "$T/$n.conf" "$line"
		# A port that another program of this host listens on by
		# now: another.
		for ((try = 0; try < 5; try++)); do
			free_port || bail "no free port for node $n"
			serve_start "s$n" "$T/$n.conf" -l "127.0.0.1:$FREE_PORT" &&
			    break
			wait_exit "$SERVE_PID" 5 >/dev/null
			grep -q 'in use' "$T/s$n.err" ||
			    bail "pollguard-serve for node $n did not start"
		done
		[ "$try" -lt 5 ] ||
		    bail "pollguard-serve for node $n did not start: no port"
		FLEET_SPID[$n]=$SERVE_PID FLEET_PORT[$n]=$PORT
	done
	FLEET_PEERS=$(for n; do
		printf '[peer %s]\nurl = http://127.0.0.1:%s/\n' "$n" \
		    "${FLEET_PORT[$n]}"
	done)
	for n; do
		fleet_conf "$n" "$T/$n.conf" "$line"
		kill -HUP "${FLEET_SPID[$n]}"
	done
	# Each serve says that it reread its config (or why not).
	for n; do
		wait_for "$PG_CMD_TIMEOUT" grep -q reload "$T/s$n.err" ||
		    bail "pollguard-serve for node $n did not reread its config"
	done
}

# race_arm: begin a start at one instant. racer starts each command,
# held; race_go releases them all with one write to a FIFO; race_wait
# waits for them. No step polls: a racer says it is ready with a byte
# on another FIFO, and bash's wait collects them (a long run starts
# thousands).
race_arm()
{
	RACER=()
	rm -f "$T/go" "$T/ready"
	mkfifo "$T/go" "$T/ready" || bail "mkfifo $T/go $T/ready"
	exec 7<>"$T/go" 8<>"$T/ready"
	[ -p "$T/pause" ] || mkfifo "$T/pause" || bail "mkfifo $T/pause"
}

# racer DELAY_MS COMMAND...: start the command held until race_go and
# DELAY_MS (a read timeout, no fork) after it. Racers count from 1: the
# K-th's output is $T/rK.out and $T/rK.err, its PID RACER[K] (the
# command's: the subshell that holds it execs it).
racer()
{
	local k=$((${#RACER[@]} + 1)) d
	d=$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))
	shift
	(
		exec 7>&-
		printf . >&8
		exec 8>&-
		IFS= read -r -n 1 _ <"$T/go"
		[ "$d" = 0.000 ] || read -r -t "$d" _ <>"$T/pause"
		exec "$@"
	) </dev/null >"$T/r$k.out" 2>"$T/r$k.err" &
	RACER[$k]=$!
	BGPIDS+=("$!")
}

# race_go: release the racers once all are ready (10s at most).
race_go()
{
	local got=
	[ "${#RACER[@]}" -eq 0 ] ||
	    IFS= read -r -N "${#RACER[@]}" -t 10 got <&8
	[ "${#got}" -eq "${#RACER[@]}" ] ||
	    diag "only ${#got} of ${#RACER[@]} racers got ready in 10s"
	exec 8>&-
	printf "%${#RACER[@]}s" "" >&7
}

# race_wait: wait for the racers, set RACE_RC[K] to their exit statuses
# and forget their PIDs. A watchdog kills the racers (and what they
# started) still running 30 s from now: their status is 255, as
# wait_exit says.
race_wait()
{
	local k p keep=() wd
	RACE_RC=()
	rm -f "$T/race.hung"
	(
		read -r -t 30 _ <>"$T/pause"
		for p in "${RACER[@]}"; do
			_pg_alive "$p" || continue
			echo "$p" >>"$T/race.hung"
			kill -KILL $(_pg_descendants "$p") "$p" 2>/dev/null
		done
	) &
	wd=$!
	for ((k = 1; k <= ${#RACER[@]}; k++)); do
		wait "${RACER[$k]}"
		RACE_RC[$k]=$?
	done
	kill -KILL "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	if [ -e "$T/race.hung" ]; then
		for ((k = 1; k <= ${#RACER[@]}; k++)); do
			grep -qx "${RACER[$k]}" "$T/race.hung" || continue
			diag "PID ${RACER[$k]} still running after 30s: killed"
			RACE_RC[$k]=255
		done
	fi
	exec 7>&-
	rm -f "$T/go"
	for p in "${BGPIDS[@]}"; do
		[[ " ${RACER[*]} " == *" $p "* ]] || keep+=("$p")
	done
	BGPIDS=("${keep[@]}")
}

# race_count: race_wait, then what the checks did: WENT (exit 0),
# CLAIMED (claimed the round, whatever they then decided), SLOW (exit 1,
# a claim withdrawn as too slow to order: a busy machine) and ODD (any
# other status, shown with the check's stderr). RACES, SLOWS and ODDS
# add up the races, SLOW and ODD.
RACES=0 SLOWS=0 ODDS=0
race_count()
{
	local k
	race_wait
	WENT=0 CLAIMED=0 SLOW=0 ODD=0
	for ((k = 1; k <= ${#RACER[@]}; k++)); do
		grep -q 'go, claimed' "$T/r$k.err" && CLAIMED=$((CLAIMED + 1))
		case ${RACE_RC[$k]} in
		0)
			WENT=$((WENT + 1))
			;;
		1)
			grep -qE 'too (long|slow)' "$T/r$k.err" &&
			    SLOW=$((SLOW + 1))
			;;
		*)
			ODD=$((ODD + 1))
			diag "check $k exited ${RACE_RC[$k]}"
			diag_file "$T/r$k.err" "check $k stderr"
			;;
		esac
	done
	RACES=$((RACES + 1)) SLOWS=$((SLOWS + SLOW)) ODDS=$((ODDS + ODD))
}

# race_checks NODE...: the checks "pollguard-check -v -c $T/NODE.conf
# mail" of a fleet, one per NODE (a node may be named twice), started at
# one instant: racer K is the K-th NODE. Then race_wait or race_count.
race_checks()
{
	local n
	race_arm
	for n; do
		racer 0 "$CHECK" -v -c "$T/$n.conf" mail
	done
	race_go
}

# race_round NODE...: a round of cron on these nodes: race_checks, then
# race_count. A round where nobody went because a claim was withdrawn as
# too slow to order (a busy machine: safe) is run again, twice at most.
# RACE_NODES: the nodes, in the order of their racers.
race_round()
{
	local try
	RACE_NODES=("$@")
	for ((try = 0; try < 3; try++)); do
		race_checks "$@"
		race_count
		[ "$WENT" -eq 0 ] && [ "$SLOW" -gt 0 ] || break
		diag "a claim withdrawn as too slow: the round is run again"
	done
}

# job_overlaps LOG: how many pairs of jobs of different nodes overlap in
# time, from a log of tests/clockrec lines "job NODE ROUND start|end BOOT
# MONO REAL" (clockrec -h MS LOG job NODE ROUND), on CLOCK_MONOTONIC; a
# job without an end lasts for ever. Each pair also goes to stderr.
job_overlaps()
{
	awk '$1 == "job" && NF == 7 {
		k = $2 " " $3
		if ($4 == "start") s[k] = $6; else if ($4 == "end") e[k] = $6
	}
	END {
		n = 0
		for (k in s) {
			if (!(k in e)) e[k] = 9e18
			job[++n] = k
		}
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++) {
				split(job[i], x, " "); split(job[j], y, " ")
				if (x[1] != y[1] && s[job[i]] < e[job[j]] &&
				    s[job[j]] < e[job[i]]) {
					c++
					print "job " job[i] " overlaps job " \
					    job[j] >"/dev/stderr"
				}
			}
		print c + 0
	}' "$1"
}

# fake_peer NAME FILE: a tiny peer on 127.0.0.1 (perl) that answers every
# request with the bytes of FILE, read anew each time, "@NONCE@" replaced
# by the request's Pollguard-Nonce (so that a block can pass for a 0.5
# serve's); started with bg NAME, its port in PORT. 1 when it did not
# start or perl is missing. fake_status FILE NODE BLOCK writes a 200
# with Pollguard-Node NODE and the status block BLOCK into FILE.
fake_peer()
{
	command -v perl >/dev/null 2>&1 || return 1
	cat >"$T/fakepeer.pl" <<'PL'
use strict;
use warnings;
use IO::Socket::INET;
my $resp = shift @ARGV;
$SIG{CHLD} = 'IGNORE';
my $l = IO::Socket::INET->new(Proto => 'tcp', LocalAddr => '127.0.0.1',
    LocalPort => 0, Listen => 16, ReuseAddr => 1) or die "listen: $!\n";
print STDERR "listening on 127.0.0.1:" . $l->sockport . "\n";
for (;;) {
	my $c = $l->accept or next;
	if (fork) { close $c; next; }
	my $nonce = '';
	while (defined(my $line = <$c>)) {
		last if $line =~ /^\r?\n$/;
		$nonce = $1 if $line =~ /^Pollguard-Nonce:\s*([0-9a-f]+)/i;
	}
	open(my $f, '<', $resp) or exit 0;
	local $/;
	my $d = <$f>;
	$d =~ s/\@NONCE\@/$nonce/g;
	print $c $d;
	close $c;
	exit 0;
}
PL
	bg "$1" perl "$T/fakepeer.pl" "$2"
	listen_port "$1" PORT "$BGPID"
}
fake_status()
{
	local body
	body=$(printf '%s\n' "$3" | sed "s/@NONCE@/$(printf '%032d' 0)/")
	printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nPollguard-Node: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n' \
	    "$2" $((${#body} + 1)) "$3" >"$1"
}
