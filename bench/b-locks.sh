# SPDX-License-Identifier: ISC
# bench/b-locks.sh: pollguard-check against the mechanisms of cron lock
# scripts: etcdctl lock, redis-cli SET NX EX, flock -n (sourced by
# bench/run, after bench/b-check.sh). Starts and stops its own etcd and
# Redis. Sets R_ETCD for bench/why.sh.

section locks "pollguard-check against etcdctl lock, redis-cli SET NX, flock"
mkdir -p "$T/etcd" "$T/redis"
# launch_etcd PORT: a one-member etcd named $ETCD_NAME (bench) with its
# data in $ETCD_DIR ($T/etcd); bench/b-go.sh starts its own with it.
launch_etcd()
{
	local peer
	free_port || return 1
	peer=$FREE_PORT
	bg "etcd${ETCD_NAME:+-$ETCD_NAME}" etcd --name "${ETCD_NAME:-bench}" \
	    --data-dir "${ETCD_DIR:-$T/etcd}/data" \
	    --listen-client-urls "http://127.0.0.1:$1" \
	    --advertise-client-urls "http://127.0.0.1:$1" \
	    --listen-peer-urls "http://127.0.0.1:$peer" \
	    --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
	    --initial-cluster "${ETCD_NAME:-bench}=http://127.0.0.1:$peer" \
	    --log-level error --logger zap
}
launch_redis()
{
	bg redis redis-server --bind 127.0.0.1 --port "$1" --save '' \
	    --appendonly no --dir "$T/redis" --daemonize no
}
ETCD_PORT="" ETCD_PID=""
REDIS_PORT="" REDIS_PID=""
if command -v etcd >/dev/null && start_on_port etcd launch_etcd 30; then
	ETCD_PORT=$SPORT ETCD_PID=$SPID
	# Ready when it answers.
	wait_for 10 etcdctl --endpoints="127.0.0.1:$ETCD_PORT" endpoint health \
	    >/dev/null 2>&1
fi
if command -v redis-server >/dev/null && start_on_port redis launch_redis; then
	REDIS_PORT=$SPORT REDIS_PID=$SPID
fi
N=$(rounds 100)
F=$DATA/locks.txt
ALT=("$PGB" alt -n "$N" -w 2 "${CMD_CHECK[@]}")
LABELS=("pollguard-check mail (1 peer, settle = 0)")
I_ETCD="" I_REDIS=""
if [ -n "$ETCD_PORT" ]; then
	ALT+=(::: etcdctl --endpoints="127.0.0.1:$ETCD_PORT" lock pollguard-bench /bin/true)
	LABELS+=("etcdctl lock NAME /bin/true (local etcd, one member)")
	I_ETCD=$((${#LABELS[@]} - 1))
fi
if [ -n "$REDIS_PORT" ]; then
	ALT+=(::: redis-cli -h 127.0.0.1 -p "$REDIS_PORT" SET pollguard-bench v NX EX 600)
	LABELS+=("redis-cli SET KEY v NX EX 600 (local Redis, no persistence)")
	I_REDIS=$((${#LABELS[@]} - 1))
fi
ALT+=(::: flock -n "$T/flock.lock" /bin/true)
LABELS+=("flock -n FILE /bin/true (this host only)")
I_FLOCK=$((${#LABELS[@]} - 1))
"${ALT[@]}" >"$F"
R_ETCD="" R_REDIS=""
[ -n "$I_ETCD" ] && R_ETCD=$(get "$F" 1e6 "$I_ETCD" 0 6)
[ -n "$I_REDIS" ] && R_REDIS=$(get "$F" 1e6 "$I_REDIS" 0 6)
R_FLOCK=$(get "$F" 1e6 "$I_FLOCK" 0 6)
md <<EOF
## pollguard-check against the mechanisms of cron lock scripts

Each tool takes the lock the way a crontab line would, as one process: an
etcd lock around a command (etcdctl grants a lease, waits for the key,
runs the command, releases), Redis \`SET NX EX\` (the key stays until it
expires; every run after the first answers nil, which costs the same),
and \`flock -n\` on a local file, which coordinates one host only. etcd is
one member with its data in \$T on the $FS file system (it fsyncs its
log on every write); Redis keeps nothing on disk. The ratios in the
table are to pollguard-check: below 1 means faster than the check.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 pollguard-check "${LABELS[@]}")

EOF
if [ -n "$R_ETCD" ]; then
	res="$(printf '%.2f×' "$R_ETCD") of etcdctl"
	met=$(verdict le "$R_ETCD" 0.5)
else
	res="etcd not measured (not installed or did not start)"
	met="**not measured**"
fi
[ -n "$R_REDIS" ] && res="$res; $(printf '%.2f×' "$R_REDIS") of redis-cli"
res="$res; $(printf '%.2f×' "$R_FLOCK") of flock -n"
target "\`pollguard-check\`, 1 peer" "\`etcdctl lock\`; \`redis-cli SET NX EX\`; \`flock -n\`" "report; ≤ 0.5× etcdctl" "$res" "$met"
[ -n "$ETCD_PID" ] && stop_pids "$ETCD_PID"
[ -n "$REDIS_PID" ] && stop_pids "$REDIS_PID"
section_done
