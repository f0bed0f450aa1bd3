# SPDX-License-Identifier: ISC
# bench/b-callgrind.sh: instruction counts with valgrind --tool=callgrind,
# whole processes and serve and nginx per request (sourced by bench/run,
# last: it runs the commands of the benchmarks before it again).

section callgrind "instruction counts (valgrind --tool=callgrind)"
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
launch_cg_serve()
{
	bg_cg serve "$SERVE" -c "$T/serve.conf" -l "127.0.0.1:$1"
}
launch_cg_nginx()
{
	mkng "master_process off;" "$1"
	bg_cg nginx nginx -p "$T/nginx" -e "$T/nginx/logs/error.log" \
	    -c "$T/nginx/nginx.conf"
}
perreq IR_SREQ serve launch_cg_serve /v1/elapsed/mail
perreq IR_NREQ nginx launch_cg_nginx /mail
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
