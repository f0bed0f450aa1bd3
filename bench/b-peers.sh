# bench/b-peers.sh: pollguard-check with 1, 4, 16 and 64 peers, against
# the floor of plain sockets (pgbench fan) and curl -Z, and the plot
# bench/check-peers.png (sourced by bench/run). Sets R64, R64ONE, M1, M64
# and CURLZR for bench/why.sh.

section peers "pollguard-check with 1, 4, 16 and 64 peers"
N=$(rounds 40)
F=$DATA/peers.txt
ALT=("$PGB" alt -n "$N" -w 2 -e "$T/log/peers.err")
for n in 1 4 16 64; do
	[ "$n" = 1 ] || ALT+=(:::)
	ALT+=("$CHECK" -c "$T/c$n.conf" mail)
done
ALT+=(::: "$CHECK" -c "$T/c64one.conf" mail)
for n in 1 4 16 64; do
	ALT+=(::: "$PGB" fan "${PEERPORTS[@]:0:$n}")
done
# libcurl's own tool, for scale: curl fetching 64 URLs at once (-Z).
URLS64=()
for ((i = 0; i < 64; i++)); do
	URLS64+=("http://127.0.0.1:${PEERPORTS[$i]}/v1/elapsed/mail")
done
ALT+=(::: "${CMD_CURL[@]}" ::: curl -s -Z --parallel-max 64 "${URLS64[@]}")
"${ALT[@]}" >"$F"
R64=$(get "$F" 1e6 0 3 6)
R64ONE=$(get "$F" 1e6 0 4 6)
CURLZR=$(get "$F" 1e6 9 10 6)
M1=$(get "$F" 1e6 0 0 3)
M64=$(get "$F" 1e6 0 3 3)
: >"$DATA/peers.dat"
for i in 0 1 2 3; do
	n=$((4 ** i))
	read -r _ _ cm _ _ _ _ cq1 cq3 < <(stats "$F" 1e6 0 | awk -v c=$i '$1 == c')
	read -r _ _ fm _ _ _ _ fq1 fq3 < <(stats "$F" 1e6 0 | awk -v c=$((i + 5)) '$1 == c')
	echo "$n $cm $cq1 $cq3 $fm $fq1 $fq3" >>"$DATA/peers.dat"
done
read -r _ _ om _ _ _ _ oq1 oq3 < <(stats "$F" 1e6 0 | awk '$1 == 4')
echo "64 $om $oq1 $oq3" >"$DATA/peers-one.dat"
read -r _ _ um _ _ _ _ uq1 uq3 < <(stats "$F" 1e6 0 | awk '$1 == 9')
read -r _ _ zm _ _ _ _ zq1 zq3 < <(stats "$F" 1e6 0 | awk '$1 == 10')
printf '1 %s %s %s\n64 %s %s %s\n' "$um" "$uq1" "$uq3" "$zm" "$zq1" "$zq3" \
    >"$DATA/peers-curl.dat"
gnuplot <<EOF 2>"$T/log/gnuplot.err" || say "gnuplot failed: $(head -n 3 "$T/log/gnuplot.err")"
set terminal pngcairo size 800,500 font "sans,10"
set output "$PNG"
set title "pollguard-check latency against the number of peers (median and quartiles; settle = 0)"
set xlabel "peers (each a standalone pollguard-serve on 127.0.0.1)"
set ylabel "milliseconds, whole process"
set logscale x 2
set xrange [0.8:80]
set xtics ("1" 1, "4" 4, "16" 16, "64" 64)
set yrange [0:*]
set grid ytics
set key top left
set offsets 0, 0, graph 0.3, 0
plot "$DATA/peers.dat" using 1:2:3:4 with yerrorlines lw 2 pt 7 title "pollguard-check", \
     "$DATA/peers.dat" using 1:5:6:7 with yerrorlines lw 2 pt 5 title "plain sockets, same requests (pgbench fan): the floor", \
     "$DATA/peers-one.dat" using 1:2:3:4 with yerrorbars pt 9 ps 1.5 title "pollguard-check, 64 peer names on one serve", \
     "$DATA/peers-curl.dat" using 1:2:3:4 with yerrorbars pt 6 ps 1.5 title "curl: 1 URL; 64 URLs at once (-Z)"
EOF
LABELS=("pollguard-check, 1 peer" "pollguard-check, 4 peers"
    "pollguard-check, 16 peers" "pollguard-check, 64 peers"
    "pollguard-check, 64 peer names, all on one serve"
    "pgbench fan, 1 port" "pgbench fan, 4 ports" "pgbench fan, 16 ports"
    "pgbench fan, 64 ports" "curl -s URL (1 URL)"
    "curl -s -Z --parallel-max 64 (64 URLs, one per serve)")
md <<EOF
## pollguard-check with 4, 16 and 64 peers

The peers are 64 real, separate \`pollguard-serve\` processes, one per
port on 127.0.0.1; the check with N peers asks the first N, all at once
(libcurl's multi interface). One more row lists 64 peer names that all
point at one serve, to separate the cost of 64 processes being woken from
the cost of 64 connections. For a floor, \`pgbench fan\` sends the same
requests to the same serves over plain non-blocking sockets, with no
libcurl, config or state: what the kernel and the serves alone take.
The last two rows are libcurl's own tool, curl, fetching one URL and
the 64 serves' URLs at once (\`-Z\`): 64 URLs take
$(printf '%.2f' "$CURLZR")× one there.
\`settle = 0\`.

    $(show "${ALT[@]:0:12}") ... (11 commands in all: the rows below)

$(table "$F" 1e6 ms 0 "1 peer" "${LABELS[@]}")

![pollguard-check latency against the number of peers](bench/check-peers.png)

The plot shows the medians and the quartiles (the middle half of the
runs); the table above gives the whole spread.

EOF
target "\`pollguard-check\`, 4, 16, 64 peers" "the same check with 1 peer" "64 peers ≤ 1.5×" \
    "64 peers: $(printf '%.2f×' "$R64") ($(printf '%.1f' "$M64") ms vs $(printf '%.1f' "$M1") ms); 16: $(printf '%.2f×' "$(get "$F" 1e6 0 2 6)"); 4: $(printf '%.2f×' "$(get "$F" 1e6 0 1 6)")" \
    "$(verdict le "$R64" 1.5)"
section_done
