# SPDX-License-Identifier: ISC
# bench/b-callgrind.sh: instruction counts with valgrind --tool=callgrind,
# whole processes and serve and nginx per request (sourced by bench/run,
# last: it runs the commands of the benchmarks before it again).

section callgrind "instruction counts (valgrind --tool=callgrind)"
# ir LOG: the total Ir callgrind collected.
ir()
{
	awk '/Collected :/ { v = $NF } END { print v + 0 }' "$1"
}
# irrun NAME [-i FILE] COMMAND...: the Ir of one run; the profile is kept
# in $DATA/cg-NAME.out.
irrun()
{
	local name=$1 in=/dev/null
	shift
	if [ "$1" = -i ]; then
		in=$2
		shift 2
	fi
	valgrind --tool=callgrind --callgrind-out-file="$DATA/cg-$name.out" \
	    --log-file="$T/log/cg-$name.log" "$@" <"$in" >/dev/null 2>&1
	ir "$T/log/cg-$name.log"
}
# share NAME FUNCTION: the percentage of a run's Ir spent in FUNCTION and
# what it calls (callgrind_annotate --inclusive).
share()
{
	callgrind_annotate --inclusive=yes --threshold=100 "$DATA/cg-$1.out" 2>/dev/null |
	    awk -v f="$2" 'index($0, ":" f " [") && match($0, /\( *[0-9.]+%\)/) {
		s = substr($0, RSTART, RLENGTH); gsub(/[ (%)]/, "", s)
		print s; exit }'
}
IR_CHECK=$(irrun check "${CMD_CHECK[@]}")
IR_CHECKN=$(irrun checkn "${CMD_CHECKN[@]}")
IR_CHECK64=$(irrun check64 "$CHECK" -c "$T/c64.conf" mail)
IR_CURL=$(irrun curl "${CMD_CURL[@]}")
IR_PTOUCH=$(irrun ptouch "$TOUCH" -c "$T/t.conf" mail)
IR_TOUCH=$(irrun touch touch "$T/touched")
IR_FILTER=$(irrun filter -i "$T/lines" "$TOUCH" -f -c "$T/t.conf" mail)
IR_CAT=$(irrun cat -i "$T/lines" cat)
SH_LOADER=$(share check _dl_start)
SH_INIT=$(share check curl_global_init)
SH_ASK=$(share check peers_ask)
SH_ASK64=$(share check64 peers_ask)
SH_STATE=$(share check pg_state_touch)
SH_CURLLOADER=$(share curl _dl_start)
SH_PTLOADER=$(share ptouch _dl_start)
# Per request: a server under callgrind, answering REQ requests, against
# the same server answering none; the difference divided by REQ.
REQ=$(rounds 200)
# perreq VAR NAME LAUNCH PATH: set VAR to that, 0 when the server did not
# start. (Not in a subshell: the servers must be started by this shell.)
perreq()
{
	local var=$1 name=$2 launch=$3 path=$4 a=0 b=0 n
	printf -v "$var" 0
	for n in 0 "$REQ"; do
		start_on_port "cg-$name" "$launch" 60 || return 0
		[ "$n" -gt 0 ] && "$PGB" req -n "$n" -w 0 -p "$path" \
		    "127.0.0.1:$SPORT" >"$DATA/cg-$name-req.txt"
		stop_pids "$SPID"
		if [ "$n" = 0 ]; then
			a=$(ir "$T/log/cg-$name.vg")
		else
			b=$(ir "$T/log/cg-$name.vg")
		fi
	done
	printf -v "$var" %s "$(calc "($b - $a) / $REQ")"
}
launch_cg_serve()
{
	bg cg-serve valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    --log-file="$T/log/cg-serve.vg" \
	    "$SERVE" -c "$T/serve.conf" -l "127.0.0.1:$1"
}
launch_cg_nginx()
{
	mkng "master_process off;" "$1"
	bg cg-nginx valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    --log-file="$T/log/cg-nginx.vg" \
	    nginx -p "$T/nginx" -e "$T/nginx/logs/error.log" -c "$T/nginx/nginx.conf"
}
perreq IR_SREQ serve launch_cg_serve /v1/elapsed/mail
perreq IR_NREQ nginx launch_cg_nginx /mail
# commas N: 1234567 as 1,234,567.
commas()
{
	awk -v n="$1" 'BEGIN { s = sprintf("%.0f", n); r = ""
		while (length(s) > 3) {
			r = "," substr(s, length(s) - 2) r
			s = substr(s, 1, length(s) - 3)
		}
		print s r }'
}
irratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b;
	    else printf "-" }'
}
irrow()
{
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$(commas "$2")" \
	    "$(irratio "$2" "$4")" "$3" "$(commas "$4")"
}
md <<EOF
## Instruction counts

Total instructions executed (Ir), from \`valgrind --tool=callgrind\`, one
run each: stable where the wall-clock times above are noisy. The whole
process is counted, the dynamic loader included. Per request: a server
under callgrind answering $REQ requests (one connection each, \`pgbench
req\`), less the same server answering none, divided by $REQ.

| pollguard | Ir | ratio | compared with | Ir |
| --- | ---: | ---: | --- | ---: |
$(irrow "pollguard-check mail, 1 peer (claims)" "$IR_CHECK" "curl -s URL" "$IR_CURL")
$(irrow "pollguard-check -n mail, 1 peer" "$IR_CHECKN" "curl -s URL" "$IR_CURL")
$(irrow "pollguard-check mail, 64 peers" "$IR_CHECK64" "pollguard-check mail, 1 peer" "$IR_CHECK")
$(irrow "pollguard-touch mail" "$IR_PTOUCH" "touch FILE" "$IR_TOUCH")
$(irrow "pollguard-touch -f mail, 1,000,000 lines" "$IR_FILTER" "cat" "$IR_CAT")
$(irrow "pollguard-serve, per request" "$IR_SREQ" "nginx (one process, \`master_process off\`), per request" "$IR_NREQ")

Where pollguard-check's instructions go (\`callgrind_annotate
--inclusive=yes build/bench/data/cg-check.out\`): ${SH_LOADER:-?}% in the
dynamic loader (\`_dl_start\`: mapping and relocating libcurl and the
libraries it pulls in: OpenSSL, GnuTLS's dependencies, Kerberos, LDAP,
...; ${SH_CURLLOADER:-?}% of curl's run), ${SH_INIT:-?}% in
\`curl_global_init\` (OpenSSL's initialisation, which reads openssl.cnf),
${SH_ASK:-?}% asking the peer (\`peers_ask\`), ${SH_STATE:-?}% writing the
record (\`pg_state_touch\`). With 64 peers, \`peers_ask\` is ${SH_ASK64:-?}%.

EOF
section_done
