# SPDX-License-Identifier: ISC
# bench/b-inetd.sh: pollguard-serve -i against cat of a canned answer,
# both under one openbsd-inetd (sourced by bench/run, after
# bench/b-serve.sh: $T/serve.conf, BODY_S). Sets R_INETD.

section inetd "pollguard-serve -i against cat, under openbsd-inetd"
INETD=/usr/sbin/inetd
ipid=$(cat /run/inetd.pid 2>/dev/null)
R_INETD=""
if [ ! -x "$INETD" ] || ! installed openbsd-inetd; then
	WHY="openbsd-inetd is not installed (scripts/deps installs it)"
elif [ -n "$ipid" ] && _pg_alive "$ipid"; then
	WHY="an inetd runs already (/run/inetd.pid: $ipid); a second would take its pidfile"
else
	WHY=""
	ME=$(id -un)
	printf 'HTTP/1.0 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n%s\n' $((${#BODY_S} + 1)) "$BODY_S" >"$T/answer"
	chmod 644 "$T/answer"
	launch_inetd()
	{
		local p2
		free_port || return 1
		p2=$FREE_PORT
		IPORT2=$p2
		{
			printf '127.0.0.1:%s stream tcp nowait %s %s pollguard-serve -i -c %s\n' \
			    "$1" "$ME" "$SERVE" "$T/serve.conf"
			printf '127.0.0.1:%s stream tcp nowait %s /bin/cat cat %s\n' \
			    "$p2" "$ME" "$T/answer"
		} >"$T/inetd.conf"
		# -R: inetd's default of 256 starts a minute would stop the run.
		bg inetd "$INETD" -d -R 100000 "$T/inetd.conf"
	}
	if start_on_port inetd launch_inetd && wait_listen "$IPORT2" "$SPID"; then
		IPID=$SPID IPORT1=$SPORT
		N=$(rounds 300)
		F=$DATA/inetd.txt
		ALT=("$PGB" req -n "$N" -w 5 "127.0.0.1:$IPORT2" "127.0.0.1:$IPORT1")
		"${ALT[@]}" >"$F"
		R_INETD=$(get "$F" 1e6 0 1 6)
		LABELS=("inetd: cat FILE (a canned 200 answer of the same size)"
		    "inetd: pollguard-serve -i")
		md <<EOF
## pollguard-serve -i under inetd against cat

One openbsd-inetd (\`-d\`, in the foreground, with its own config file in
\$T) runs, for each connection, either \`pollguard-serve -i\` or \`cat\` of
a file that holds a canned HTTP answer of the same size. The client opens
a connection, sends a GET, reads until the server closes; requests
alternate between the two. Each request costs inetd a fork and an exec.

    $(show "${ALT[@]}")
    inetd.conf:
$(sed "s|$T|\$T|g; s|$BIN/||g; s|^|    |" "$T/inetd.conf")

$(table "$F" 1e6 ms 0 cat "${LABELS[@]}")

EOF
		stop_pids "$IPID"
	else
		WHY="inetd did not start: $(head -n 1 "$T/inetd.err")"
	fi
fi
if [ -n "$R_INETD" ]; then
	target "serve inetd mode, per request" "the same inetd running \`cat\` of a small file" "≤ 1.5×" \
	    "$(printf '%.2f×' "$R_INETD")" "$(verdict le "$R_INETD" 1.5)"
else
	md <<EOF
## pollguard-serve -i under inetd against cat

Not measured: $WHY.

EOF
	target "serve inetd mode, per request" "\`cat\` under the same inetd" "≤ 1.5×" "not measured: $WHY" "**not measured**"
fi
section_done
