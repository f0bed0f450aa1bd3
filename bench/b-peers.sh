# SPDX-License-Identifier: ISC
# bench/b-peers.sh: pollguard-check with 1, 4, 16, 64 and 256 peers,
# against the floor of plain sockets (pgbench fan) and curl --parallel on
# the same URLs, the reference of 256 peers, and the
# plot bench/check-peers.png (sourced by bench/run, after
# bench/fixtures.sh: its 64 serves are the first peers; this file starts
# the other 192 and stops them at its end). Sets R64, R256, R256ONE, M1,
# M64, M256, CURLZR, R256CURL, MZ256, FAN256 and IR_* for bench/why.sh.

section peers "pollguard-check with 1, 4, 16, 64 and 256 peers"
# Peers 65 to 256: launched all at once (free_port never gives a port
# twice), then each waited for; one that does not listen is started
# again on another port.
MOREPIDS=()
declare -A MOREPORT
for ((NPEER = 65; NPEER <= 256; NPEER++)); do
	free_port || die "no free port for peer $NPEER"
	MOREPORT[$NPEER]=$FREE_PORT
	launch_peer "$FREE_PORT"
	MOREPIDS+=("$BGPID")
done
for ((NPEER = 65; NPEER <= 256; NPEER++)); do
	p=${MOREPORT[$NPEER]}
	if ! wait_listen "$p" "${MOREPIDS[$((NPEER - 65))]}" 20; then
		start_on_port "peer$NPEER" launch_peer || die "a peer did not start"
		p=$SPORT
		MOREPIDS+=("$SPID")
	fi
	PEERPORTS[$((NPEER - 1))]=$p
done
mkcheck "$T/c256.conf" "$T/state" 0 "${PEERPORTS[@]:0:256}"
ONE=()
for ((i = 0; i < 256; i++)); do
	ONE+=("$P1")
done
mkcheck "$T/c256one.conf" "$T/state" 0 "${ONE[@]}"
"$CHECK" -c "$T/c256.conf" mail || die "pollguard-check with 256 peers failed"
N=$(rounds 40)
F=$DATA/peers.txt
ALT=("$PGB" alt -n "$N" -w 2 -e "$T/log/peers.err")
for n in 1 4 16 64 256; do
	[ "$n" = 1 ] || ALT+=(:::)
	ALT+=("$CHECK" -c "$T/c$n.conf" mail)
done
ALT+=(::: "$CHECK" -c "$T/c256one.conf" mail)
for n in 1 4 16 64 256; do
	ALT+=(::: "$PGB" fan -p /v1/status/mail "${PEERPORTS[@]:0:$n}")
done
# The reference of the 256 peers: libcurl's own tool, curl, fetching the
# same 256 URLs at once (--parallel, libcurl's multi interface too).
# The check asks each peer /v1/status/mail with a Pollguard-Nonce field
# (a 0.5 serve then answers its status with the nonce): curl asks the same.
URLS=()
for ((i = 0; i < 256; i++)); do
	URLS+=("http://127.0.0.1:${PEERPORTS[$i]}/v1/status/mail")
done
NONCE="Pollguard-Nonce: 0123456789abcdef0123456789abcdef"
# -s alone leaves the progress meter of --parallel on (curl 7.88).
CURLZ=(curl -s --no-progress-meter -H "$NONCE" --parallel --parallel-max 256
    "${URLS[@]}")
ALT+=(::: curl -s -H "$NONCE" "${URLS[0]}" ::: "${CURLZ[@]}")
"${ALT[@]}" >"$F"
R64=$(get "$F" 1e6 0 3 6)
R256=$(get "$F" 1e6 0 4 6)
R256ONE=$(get "$F" 1e6 0 5 6)
CURLZR=$(get "$F" 1e6 11 12 6)
R256CURL=$(get "$F" 1e6 12 4 6)
MZ256=$(get "$F" 1e6 0 12 3)
FAN256=$(get "$F" 1e6 0 10 3)
# Where the instructions go, the 256 peers still up: the check and curl
# under callgrind, once each.
IR_CHECK256=$(irrun check256 "$CHECK" -c "$T/c256.conf" mail)
IR_CURLZ=$(irrun curlz "${CURLZ[@]}")
SH_MULTI256=$(share check256 curl_multi_perform)
SH_CURLMULTI=$(share curlz curl_multi_perform)
SH_LOADER256=$(share check256 _dl_start)
M1=$(get "$F" 1e6 0 0 3)
M64=$(get "$F" 1e6 0 3 3)
M256=$(get "$F" 1e6 0 4 3)
: >"$DATA/peers.dat"
for i in 0 1 2 3 4; do
	n=$((4 ** i))
	read -r _ _ cm _ _ _ _ cq1 cq3 < <(stats "$F" 1e6 0 | awk -v c=$i '$1 == c')
	read -r _ _ fm _ _ _ _ fq1 fq3 < <(stats "$F" 1e6 0 | awk -v c=$((i + 6)) '$1 == c')
	echo "$n $cm $cq1 $cq3 $fm $fq1 $fq3" >>"$DATA/peers.dat"
done
read -r _ _ om _ _ _ _ oq1 oq3 < <(stats "$F" 1e6 0 | awk '$1 == 5')
echo "256 $om $oq1 $oq3" >"$DATA/peers-one.dat"
read -r _ _ um _ _ _ _ uq1 uq3 < <(stats "$F" 1e6 0 | awk '$1 == 11')
read -r _ _ zm _ _ _ _ zq1 zq3 < <(stats "$F" 1e6 0 | awk '$1 == 12')
printf '1 %s %s %s\n256 %s %s %s\n' "$um" "$uq1" "$uq3" "$zm" "$zq1" "$zq3" \
    >"$DATA/peers-curl.dat"
gnuplot <<EOF 2>"$T/log/gnuplot.err" || say "gnuplot failed: $(head -n 3 "$T/log/gnuplot.err")"
set terminal pngcairo size 800,500 font "sans,10"
set output "$PNG"
set title "pollguard-check latency against the number of peers (median and quartiles; settle = 0)"
set xlabel "peers (each a standalone pollguard-serve on 127.0.0.1)"
set ylabel "milliseconds, whole process"
set logscale x 2
set xrange [0.8:320]
set xtics ("1" 1, "4" 4, "16" 16, "64" 64, "256" 256)
set yrange [0:*]
set grid ytics
set key top left
set offsets 0, 0, graph 0.3, 0
plot "$DATA/peers.dat" using 1:2:3:4 with yerrorlines lw 2 pt 7 title "pollguard-check", \
     "$DATA/peers.dat" using 1:5:6:7 with yerrorlines lw 2 pt 5 title "plain sockets, same requests (pgbench fan): the floor", \
     "$DATA/peers-one.dat" using 1:2:3:4 with yerrorbars pt 9 ps 1.5 title "pollguard-check, 256 peer names on one serve", \
     "$DATA/peers-curl.dat" using 1:2:3:4 with yerrorbars pt 6 ps 1.5 title "curl: 1 URL; 256 URLs at once (--parallel)"
EOF
LABELS=("pollguard-check, 1 peer" "pollguard-check, 4 peers"
    "pollguard-check, 16 peers" "pollguard-check, 64 peers"
    "pollguard-check, 256 peers"
    "pollguard-check, 256 peer names, all on one serve"
    "pgbench fan, 1 port" "pgbench fan, 4 ports" "pgbench fan, 16 ports"
    "pgbench fan, 64 ports" "pgbench fan, 256 ports" "curl -s -H NONCE URL (the first of the URLs)"
    "curl -s -H NONCE --parallel --parallel-max 256 (the check's 256 URLs, one per serve)")
md <<EOF
## pollguard-check with 4, 16, 64 and 256 peers

The peers are 256 real, separate \`pollguard-serve\` processes, one per
port on 127.0.0.1, with the default \`[serve]\` limits (\`backlog\` and
\`max_connections\` 1024); the check with N peers asks the first N, all
at once (libcurl's multi interface). One more row lists 256 peer names
that all point at one serve, to separate the cost of 256 processes being
woken from the cost of 256 connections. For a floor, \`pgbench fan\` sends the same
requests to the same serves over plain non-blocking sockets, with no
libcurl, config or state: what the kernel and the serves alone take.
The last two rows are libcurl's own tool, curl, fetching one URL and
the 256 serves' URLs at once (\`--parallel --parallel-max 256\`), the
reference of the 256 peers: it asks the same serves the same question
with the same library and its multi interface, as a plain client would.
256 URLs take $(printf '%.2f' "$CURLZR")× one there; the check with 256 peers
takes $(printf '%.2f' "$R256CURL")× curl's time for them (median of per-round
ratios). By instructions (callgrind, the whole process, once each) the
check with 256 peers runs $(commas "$IR_CHECK256"), curl $(commas "$IR_CURLZ")
($(irratio "$IR_CHECK256" "$IR_CURLZ")); libcurl's transfers
(\`curl_multi_perform\`) are ${SH_MULTI256:-?}% of the check's and
${SH_CURLMULTI:-?}% of curl's, the dynamic loader ${SH_LOADER256:-?}% of the
check's.
\`settle = 0\`.

    $(show "${ALT[@]:0:12}") ... (13 commands in all: the rows below)

$(table "$F" 1e6 ms 0 "1 peer" "${LABELS[@]}")

![pollguard-check latency against the number of peers](bench/check-peers.png)

The plot shows the medians and the quartiles (the middle half of the
runs); the table above gives the whole spread.

EOF
target "\`pollguard-check\`, 256 peers" "\`curl --parallel --parallel-max 256\` on the same 256 URLs, same run" "≤ 1.5×" \
    "$(printf '%.2f×' "$R256CURL") ($(printf '%.1f' "$M256") ms vs $(printf '%.1f' "$MZ256") ms); by instructions $(irratio "$IR_CHECK256" "$IR_CURLZ")" \
    "$(verdict le "$R256CURL" 1.5)"
target "\`pollguard-check\`, 4, 16, 64, 256 peers" "the same check with 1 peer" "report" \
    "256 peers: $(printf '%.2f×' "$R256") ($(printf '%.1f' "$M256") ms vs $(printf '%.1f' "$M1") ms); 64: $(printf '%.2f×' "$R64"); 16: $(printf '%.2f×' "$(get "$F" 1e6 0 2 6)"); 4: $(printf '%.2f×' "$(get "$F" 1e6 0 1 6)")" \
    "reported"
stop_pids "${MOREPIDS[@]}"
PEERPORTS=("${PEERPORTS[@]:0:64}")
section_done
