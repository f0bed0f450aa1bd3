# SPDX-License-Identifier: ISC
# bench/b-serve.sh: pollguard-serve standalone against nginx: requests per
# second, CPU time and system calls per request, resident memory idle and
# with 1000 open connections (sourced by bench/run, after
# bench/fixtures.sh: the 64 peers' memory is read again here). Writes
# $T/serve.conf and sets BODY_S (serve's answer) and mkng (an nginx
# config), which bench/b-inetd.sh and bench/b-callgrind.sh use.

section serve "pollguard-serve standalone against nginx"
# The 64 peers again, idle after answering the checks above.
peer_rss "$DATA/peer-rss-used.txt"
read -r _ _ URSS_MED URSS_MIN URSS_MAX _ < <(stats "$DATA/peer-rss-used.txt" 1 0 |
    awk '$1 == 0')
read -r _ _ UPSS_MED _ < <(stats "$DATA/peer-rss-used.txt" 1 0 | awk '$1 == 1')
mkdir -p "$T/servestate"
cat >"$T/serve.conf" <<EOF
[pollguard]
node = bench
state = $T/servestate
[cluster mail]
wait = 10m
EOF
chmod 600 "$T/serve.conf"
# A record 100 s old (when the machine has been up long enough): its age
# in ms has 6 digits for the next 15 minutes, so the answer keeps its size.
if [ "$(awk '{ print int($1) }' /proc/uptime)" -gt 200 ]; then
	"$PGSTATE" -c "$T/serve.conf" write mail 100000
else
	"$TOUCH" -c "$T/serve.conf" mail
fi
BODY_S=$(printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' |
    "$SERVE" -i -c "$T/serve.conf" 2>/dev/null | tail -n 1)
[ -n "$BODY_S" ] || die "pollguard-serve -i gave no answer"
launch_serve()
{
	bg serve "$SERVE" -c "$T/serve.conf" -l "127.0.0.1:$1"
}
start_on_port serve launch_serve || die "serve did not start"
SVPORT=$SPORT SVPID=$SPID
read -r RSS_FRESH PSS_FRESH _ < <(rss "$SVPID")
# nginx serves the same bytes as serve's answer, from a static file.
mkdir -p "$T/www" "$T/nginx/logs" "$T/nginx/tmp"
chmod 755 "$T/www" "$T/nginx"
printf '%s\n' "$BODY_S" >"$T/www/mail"
chmod 644 "$T/www/mail"
NGUSER=""
[ "$(id -u)" -eq 0 ] && NGUSER="user nobody nogroup;"
mkng()
{
	cat >"$T/nginx/nginx.conf" <<EOF
# pollguard bench: one worker, loopback only, no access log (serve logs
# nothing for a 200 either).
worker_processes 1;
$1
daemon off;
$NGUSER
pid $T/nginx/nginx.pid;
error_log $T/nginx/logs/error.log;
events { worker_connections 2048; }
http {
	access_log off;
	default_type text/plain;
	client_body_temp_path $T/nginx/tmp;
	proxy_temp_path $T/nginx/tmp;
	fastcgi_temp_path $T/nginx/tmp;
	uwsgi_temp_path $T/nginx/tmp;
	scgi_temp_path $T/nginx/tmp;
	server {
		listen 127.0.0.1:$2;
		root $T/www;
		location / { }
	}
}
EOF
}
launch_nginx()
{
	mkng "master_process on;" "$1"
	bg nginx nginx -p "$T/nginx" -e "$T/nginx/logs/error.log" -c "$T/nginx/nginx.conf"
}
start_on_port nginx launch_nginx || die "nginx did not start"
NPORT=$SPORT NPID=$SPID
sleep 0.3
read -r NRSS_FRESH NPSS_FRESH < <(rss_tree "$NPID")
SURL=http://127.0.0.1:$SVPORT/v1/elapsed/mail
NURL=http://127.0.0.1:$NPORT/mail
N=$(rounds 8)
[ "$N" -lt 2 ] && N=2
DUR=3
F=$DATA/rps.txt
FC=$DATA/rps-cpu.txt
: >"$F"
: >"$FC"
WRK=(wrk -t1 -c16 -d"${DUR}s" -H "Connection: close")
TICK_US=$((1000000 / $(getconf CLK_TCK)))
NWPID=$(_pg_descendants "$NPID" | head -n 1)
for ((r = 0; r < N; r++)); do
	wrk_cpu "$r" 0 "$SVPID" "$F" "$FC" "${WRK[@]}" "$SURL"
	wrk_cpu "$r" 1 "$NWPID" "$F" "$FC" "${WRK[@]}" "$NURL"
done
R_CPU=$(get "$FC" 1 1 0 6)
R_RPS=$(get "$F" 1 1 0 6)
M_RPS_S=$(get "$F" 1 1 0 3)
M_RPS_N=$(get "$F" 1 1 1 3)
# System calls per request: strace -c on the server while pgbench req
# sends requests one after another, one connection each.
syscalls()
{
	local pid=$1 url=$2 path=$3 n=200 sp i
	strace -c -o "$T/strace.$pid" -p "$pid" 2>/dev/null &
	sp=$!
	sleep 0.5
	"$PGB" req -n $n -w 0 -p "$path" "$url" >/dev/null
	sleep 0.2
	kill -INT "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	awk -v n=$n '$NF == "total" { printf "%.1f", $4 / n }' \
	    "$T/strace.$pid"
}
SYS_S=$(syscalls "$SVPID" "127.0.0.1:$SVPORT" /v1/elapsed/mail)
SYS_N=$(syscalls "$NWPID" "127.0.0.1:$NPORT" /mail)
read -r RSS_IDLE PSS_IDLE _ ANON_IDLE < <(rss "$SVPID")
read -r NRSS_IDLE NPSS_IDLE < <(rss_tree "$NPID")
# 1000 connections that send nothing: serve (max_connections 1024 by
# default) and nginx hold them all.
flood()
{
	local port=$1 name=$2
	bg "$name" "$FLOOD" -f -n 1000 -t 20 127.0.0.1 "$port"
	FPID=$BGPID
	wait_for 10 grep -q '^connected' "$T/$name.out"
	sleep 0.2
}
flood "$SVPORT" flood-serve
read -r RSS_FLOOD PSS_FLOOD _ < <(rss "$SVPID")
SFD=$(ls "/proc/$SVPID/fd" | wc -l)
FLOODLINE_S=$(cat "$T/flood-serve.out")
stop_pids "$FPID"
flood "$NPORT" flood-nginx
read -r NRSS_FLOOD NPSS_FLOOD < <(rss_tree "$NPID")
stop_pids "$FPID"
read -r _ _ HWM _ < <(rss "$SVPID")
LABELS=("pollguard-serve (standalone)" "nginx (1 worker, static file)")
md <<EOF
## pollguard-serve standalone against nginx

Requests per second, a new connection for every request (\`Connection:
close\`), 16 connections at a time from one wrk thread, $DUR s per run,
alternating serve and nginx. serve answers GET /v1/elapsed/mail from a
real record (it answered "$BODY_S"); nginx serves a static file with
the same bytes, with one worker process and no access log, from a
config the harness writes in \$T (\`nginx -p \$T/nginx -e ... -c ...\`: nothing
of the system's nginx configuration or logs is used). Both are
single-threaded; wrk takes the other core.

    $(show "${WRK[@]}") URL   # $N rounds, serve then nginx

$(table "$F" 1 "req/s" 1 nginx "${LABELS[@]}")

The CPU time the server process used in those runs (user and system,
from /proc/PID/stat, in clock ticks of $TICK_US µs), per request answered;
most of it is the kernel's work for the connection:

$(table "$FC" 1 "µs" 1 nginx "${LABELS[@]}")

System calls per request, with \`strace -c\` on the server while
\`pgbench req\` sends 200 requests one after another: serve $SYS_S, nginx
$SYS_N.

Resident memory (VmRSS; PSS, the proportional set size, counts shared
library pages once for all the processes that map them):

| state | pollguard-serve RSS | serve PSS | nginx RSS (master + worker) | nginx PSS |
| --- | ---: | ---: | ---: | ---: |
| idle, just started | $(printf '%.2f' "$(mib "$RSS_FRESH")") MiB | $(printf '%.2f' "$(mib "$PSS_FRESH")") MiB | $(printf '%.2f' "$(mib "$NRSS_FRESH")") MiB | $(printf '%.2f' "$(mib "$NPSS_FRESH")") MiB |
| idle, after the runs above | $(printf '%.2f' "$(mib "$RSS_IDLE")") MiB | $(printf '%.2f' "$(mib "$PSS_IDLE")") MiB | $(printf '%.2f' "$(mib "$NRSS_IDLE")") MiB | $(printf '%.2f' "$(mib "$NPSS_IDLE")") MiB |
| 1000 connections open | $(printf '%.2f' "$(mib "$RSS_FLOOD")") MiB | $(printf '%.2f' "$(mib "$PSS_FLOOD")") MiB | $(printf '%.2f' "$(mib "$NRSS_FLOOD")") MiB | $(printf '%.2f' "$(mib "$NPSS_FLOOD")") MiB |

serve's peak (VmHWM) over the whole run: $(printf '%.2f' "$(mib "$HWM")") MiB.
The RSS of one process is a draw: where the loader places each shared
library (address space layout randomisation) decides how many of its
cached pages the kernel maps around each page touched. The 64 serves
started as peers, idle and not yet asked: median $(printf '%.2f' "$(mib "$PRSS_MED")") MiB, from
$(printf '%.2f' "$(mib "$PRSS_MIN")") to $(printf '%.2f' "$(mib "$PRSS_MAX")") MiB; the same 64, idle after answering the checks above:
median $(printf '%.2f' "$(mib "$URSS_MED")") MiB, from $(printf '%.2f' "$(mib "$URSS_MIN")") to $(printf '%.2f' "$(mib "$URSS_MAX")") MiB (PSS median $(printf '%.2f' "$(mib "$UPSS_MED")") MiB).
The 1000 connections come from \`tests/connflood -f -n 1000\` and send
nothing. serve holds up to \`max_connections\` (1024 by default) and
would answer more 503 at once ($SFD descriptors open at the sample;
connflood: \`$FLOODLINE_S\`); nginx holds all of them.

EOF
target "serve standalone, requests/s, new connection per request" "nginx, 1 worker, static file of the same size" "≥ 1.0×" \
    "$(printf '%.2f×' "$R_RPS") ($(printf '%.0f' "$M_RPS_S") vs $(printf '%.0f' "$M_RPS_N") req/s); server CPU time per request: $(printf '%.2f×' "$R_CPU") nginx's" \
    "$(verdict le 1.0 "$R_RPS")"
target "serve standalone resident memory, idle" "—" "≤ 2 MiB" \
    "RSS, median of 64 serves: $(printf '%.2f' "$(mib "$PRSS_MED")") MiB just started, $(printf '%.2f' "$(mib "$URSS_MED")") MiB after answering (from $(printf '%.2f' "$(mib "$URSS_MIN")") to $(printf '%.2f' "$(mib "$URSS_MAX")"); PSS $(printf '%.2f' "$(mib "$UPSS_MED")") MiB); the serve against nginx: $(printf '%.2f' "$(mib "$RSS_IDLE")") MiB after load" \
    "$(verdict le "$(mib "$URSS_MED")" 2)"
target "serve standalone resident memory, 1000 open connections" "—" "≤ 8 MiB" \
    "RSS $(printf '%.2f' "$(mib "$RSS_FLOOD")") MiB, peak $(printf '%.2f' "$(mib "$HWM")") MiB" \
    "$(verdict le "$(mib "$HWM")" 8)"
stop_pids "$NPID"
section_done
