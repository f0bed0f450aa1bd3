#!/bin/bash
# SPDX-License-Identifier: ISC
# etc/systemd/pollguard-job@.{service,timer} under a real systemd, PID 1
# of a private PID, mount, UTS, IPC and cgroup namespace made here (the
# host's init is not touched; the network is the host's, so the peer is a
# real pollguard-serve on 127.0.0.1). The units are used as shipped, with
# only their paths replaced (tools, config, jobs directory) and a timer
# drop-in that fires 1s after the timer starts, without the random delay:
#
#	a peer active within wait: the service's Result is exec-condition,
#				it is not failed, and the job did not run
#	the peer idle:		the job ran, and this node's record was touched
#	a job past max_runtime:	pollguard-touch ends it and exits 124: the
#				unit is failed (not a skip), and the record
#				says timed out
#	a broken config:	pollguard-check -E exits 255: the unit is failed
#
# Skipped, with the reason, when not root or when namespaces, cgroup2 or
# systemd are not there.
. "${PG_TOP:-.}/tests/lib.sh"

NTESTS=15
SYSTEMD=/lib/systemd/systemd
CG2=
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -e "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] &&
	    { CG2=$d; break; }
done
why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root (systemd as PID 1 in a namespace needs root)"
elif ! [ -x "$SYSTEMD" ] || ! command -v nsenter >/dev/null 2>&1; then
	why="systemd or nsenter not installed"
elif [ -z "$CG2" ]; then
	why="no cgroup2 hierarchy mounted"
elif ! unshare --pid --fork --mount --propagation private --uts --ipc \
    --cgroup --mount-proc true 2>/dev/null; then
	why="unshare of PID, mount, UTS, IPC and cgroup namespaces is not allowed here"
fi
if [ -n "$why" ]; then
	skip "$why" "$NTESTS"
	finish
fi
case $T$PG_BIN in
*[[:space:]\|\&]*) bail "paths with white space or | & ($T, $PG_BIN): the units are rewritten with sed" ;;
esac

# --- the peer: a real serve whose cluster "act" was just active ------------

peer_start p 10m act idle || bail "the peer p did not start"
PEER_PID=$SERVE_PID

# This node: the config the units read, and the jobs, which say they ran.
mkconf <<EOF
[peer p]
url = http://127.0.0.1:$PORT
[cluster act]
wait = 10m
peers = p
[cluster idle]
wait = 10m
peers = p
[cluster slow]
wait = 10m
peers =
max_runtime = 1s
kill_after = 1s
EOF
mkdir -p "$T/jobs"
for c in act idle; do
	printf '#!/bin/sh\necho ran >>%s/ran.%s\n' "$T" "$c" >"$T/jobs/$c"
	chmod 755 "$T/jobs/$c"
done
printf '#!/bin/sh\nexec sleep 30\n' >"$T/jobs/slow"
chmod 755 "$T/jobs/slow"

# --- the units: as shipped, paths replaced; stand-ins for the targets --------

U=$T/units
mkdir -p "$U/pollguard-job@.timer.d" "$T/empty"
for f in pollguard-job@.service pollguard-job@.timer; do
	sed -e "s|/usr/local/bin/pollguard-|$PG_BIN/pollguard-|g" \
	    -e "s|/etc/pollguard\.conf|$CONF|g" \
	    -e "s|/etc/pollguard/jobs/|$T/jobs/|g" \
	    "$PG_TOP/etc/systemd/$f" >"$U/$f"
done
cat >"$U/pollguard-job@.timer.d/test.conf" <<EOF
[Timer]
OnCalendar=
OnActiveSec=1s
RandomizedDelaySec=0
EOF
for t in pg-test sysinit basic sockets timers paths slices network \
    network-online local-fs time-set time-sync shutdown; do
	printf '[Unit]\nDescription=%s (stand-in)\n' "$t" >"$U/$t.target"
done

# --- systemd as PID 1 -----------------------------------------------------

CG=$CG2/pollguard-test.$$
mkdir "$CG" || bail "cannot create the cgroup $CG"
: >"$T/console"
cat >"$T/init.sh" <<'EOF'
# Runs in the new namespaces: a private /run and cgroup2, a console file,
# then systemd with only the test's units.
set -e
mount -t tmpfs tmpfs /run
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
mount --bind "$1/console" /dev/console
exec env -i container=pollguard-test SYSTEMD_UNIT_PATH="$1/units" \
    SYSTEMD_GENERATOR_PATH="$1/empty" \
    SYSTEMD_ENVIRONMENT_GENERATOR_PATH="$1/empty" \
    /lib/systemd/systemd --system --unit=pg-test.target --log-target=console
EOF
# The subshell moves itself into the cgroup before it becomes unshare.
bg init sh -c 'echo $$ >"$1/cgroup.procs" && exec unshare --pid --fork \
    --mount --propagation private --uts --ipc --cgroup --mount-proc \
    sh "$2/init.sh" "$2"' sh "$CG" "$T"
UNSHARE_PID=$BGPID
SD_PID=

# stop_systemd: SIGKILL to PID 1 of the namespace ends all in it; then the
# cgroups systemd made go, deepest first.
stop_systemd()
{
	[ -n "$SD_PID" ] && kill -KILL "$SD_PID" 2>/dev/null
	wait_exit "$UNSHARE_PID" 10 >/dev/null
	[ -d "$CG" ] && find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null
}
trap 'stop_systemd; _pg_cleanup' EXIT

sd_pid()
{
	SD_PID=$(ps -o pid= --ppid "$UNSHARE_PID" 2>/dev/null | tr -d ' ')
	[ -n "$SD_PID" ]
}
# sd COMMAND...: run a command in systemd's namespaces.
sd()
{
	timeout -k 5 30 nsenter -t "$SD_PID" -m -p -u -i -C "$@"
}
sd_running()
{
	case $(sd systemctl is-system-running 2>/dev/null) in
	running|degraded) return 0 ;;
	esac
	return 1
}
if wait_for 10 sd_pid && wait_for 20 sd_running; then
	ok "systemd runs as PID 1 of a private namespace ($(sd systemctl is-system-running))"
else
	not_ok "systemd runs as PID 1 of a private namespace"
	diag_file "$T/console" "systemd's console"
	diag_file "$T/init.err" "stderr"
	bail "no systemd to test with"
fi

# prop UNIT PROPERTY: one property's value.
prop()
{
	sd systemctl show -P "$2" "$1" 2>/dev/null
}
# fire CLUSTER: start the cluster's timer and wait until it has started the
# service and the service has settled (not activating); 1 on timeout.
fire()
{
	sd systemctl start "pollguard-job@$1.timer" || return 1
	settled()
	{
		[ "$(prop "pollguard-job@$1.timer" LastTriggerUSecMonotonic)" != 0 ] &&
		    case $(prop "pollguard-job@$1.service" ActiveState) in
		    inactive|failed) true ;;
		    *) false ;;
		    esac
	}
	wait_for 20 settled "$1"
}
# show CLUSTER: the service's state, for diagnostics.
show()
{
	diag "$(sd systemctl status --no-pager "pollguard-job@$1.service" 2>&1 | head -n 15)"
	diag_file "$T/console" "systemd's console"
}

# --- a peer active within wait: skipped, not failed ------------------------

before=$(record act)
if fire act; then
	is "$(prop pollguard-job@act.service Result)/$(prop pollguard-job@act.service ActiveState)" \
	    "exec-condition/inactive" "peer active: Result=exec-condition, inactive (not failed)"
else
	not_ok "peer active: the timer started the service, which settled"
	show act
fi
assert "peer active: the job did not run" test ! -e "$T/ran.act"
is "$(record act)" "$before" "peer active: this node's record untouched (no claim)"

# --- the peer idle: the job ran, the record touched -------------------------

if fire idle; then
	is "$(prop pollguard-job@idle.service Result)/$(prop pollguard-job@idle.service ActiveState)" \
	    "success/inactive" "peer idle: Result=success"
else
	not_ok "peer idle: the timer started the service, which settled"
	show idle
fi
is "$(cat "$T/ran.idle" 2>/dev/null)" ran "peer idle: the job ran, once"
num_between "$(record idle)" 0 20000 "peer idle: this node's record touched"
is "$(prop pollguard-job@idle.service ExecMainStatus)" 0 \
    "peer idle: the job's status is the service's (pollguard-touch passes it)"

# --- a job past max_runtime: the unit fails, the record says timed out -------

if fire slow; then
	is "$(prop pollguard-job@slow.service Result)/$(prop pollguard-job@slow.service ActiveState)" \
	    "exit-code/failed" "max_runtime: the unit is failed, Result=exit-code (not a skip)"
else
	not_ok "max_runtime: the timer started the service, which settled"
	show slow
fi
is "$(prop pollguard-job@slow.service ExecMainStatus)" 124 \
    "max_runtime: the service's status is pollguard-touch's 124"
is "$("$PGSTATE" -c "$CONF" outcome slow 2>&1 | grep -E '^(timed_out|failures) ' | tr '\n' ' ')" \
    "timed_out 1 failures 1 " "max_runtime: the record says timed out, one failure"

# --- a broken config: the unit fails -----------------------------------------

sd systemctl stop pollguard-job@idle.timer
sd systemctl reset-failed 2>/dev/null
rm -f "$T/ran.idle"
printf 'this is = not [valid\n' >>"$CONF"
if fire idle; then
	is "$(prop pollguard-job@idle.service ActiveState)" failed \
	    "broken config: the unit is failed"
else
	not_ok "broken config: the timer started the service, which settled"
	show idle
fi
is "$(prop pollguard-job@idle.service Result)" exit-code \
    "broken config: Result=exit-code (pollguard-check -E exited 255)"
assert "broken config: the job did not run" test ! -e "$T/ran.idle"

# The control: without -E the same config is a silent skip.
sed -i 's/ -E / /' "$U/pollguard-job@.service"
sd systemctl daemon-reload
sd systemctl stop pollguard-job@idle.timer
sd systemctl reset-failed 2>/dev/null
if fire idle; then
	is "$(prop pollguard-job@idle.service Result)" exec-condition \
	    "control: without -E a broken config is only a skip (why -E)"
else
	not_ok "control: the timer started the service, which settled"
	show idle
fi

serve_stop "$PEER_PID" >/dev/null
finish
