#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-serve -i under real super-servers, on loopback ports picked at
# random: openbsd-inetd, xinetd (unpacked by scripts/deps into
# tests/.cache/xinetd: Debian's package conflicts with openbsd-inetd),
# socat, and systemd-socket-activate when installed. The client's address
# comes from getpeername (inetd, xinetd, systemd) or $SOCAT_PEERADDR
# (socat); under inetd and xinetd stderr is the socket, so -v must not
# write there. Under openbsd-inetd, with the wait field of
# etc/inetd.conf (nowait.10000), a burst of 300 connections at once from
# one client leaves it answering; with the default limit, 256 a minute
# (the control), it answers nothing after the same burst. Every
# super-server is stopped by its PID (bg).
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

unset SOCAT_PEERADDR
command -v curl >/dev/null 2>&1 || bail "curl is not installed (scripts/deps installs it)"
NL=$'\n'
ME=$(id -un)

# --- helpers --------------------------------------------------------------

# srvconf [ALLOW]: the config pollguard-serve reads, $SRV, replaced in one
# step (each connection reads it anew).
SRV=$T/srv.conf
srvconf()
{
	{
		printf '[pollguard]\nnode = testnode\nstate = %s\n' "$STATE"
		printf '[cluster mail]\nwait = 10m\n[cluster zeta]\nwait = 10m\n'
		[ -n "${1:-}" ] && printf '[serve]\nallow = %s\n' "$1"
	} >"$SRV.new"
	chmod 600 "$SRV.new"
	mv -f "$SRV.new" "$SRV"
}

# checks LABEL HOST PORT ALLOWED EXCLUDED: the answers through a
# super-server: 200 with the record's age, the whole byte stream exactly
# one answer (nothing from stderr mixed in), never, 404; then an allow
# list naming the client (ALLOWED) and one that does not (EXCLUDED).
NCHECKS=11
checks()
{
	local label=$1 host=$2 port=$3 allowed=$4 excluded=$5 url
	url=http://$host:$port
	[[ $host == *:* ]] && url="http://[$host]:$port"
	srvconf
	CODE=$(curl -s -g --max-time 10 -o "$T/body" -w '%{http_code}' \
	    "$url/v1/elapsed/mail" 2>/dev/null)
	is "$CODE" 200 "$label: curl: 200"
	age_ok "$(cat "$T/body")" 5000 "$T0" "$label: curl: the record's age"
	tcp_ask "$host" "$port" "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}${CR}${NL}"
	is "$CODE" 200 "$label: raw GET: 200"
	if [[ $BODY =~ ^[0-9]+$ ]] &&
	    [ "$(hdr Content-Length)" = "$(wc -c <"$T/body")" ] &&
	    [ "$(wc -l <"$T/body")" -eq 1 ]; then
		ok "$label: the stream is one answer, nothing else (serve -v wrote no log into it)"
	else
		not_ok "$label: the stream is one answer, nothing else (serve -v wrote no log into it)"
		diag_file "$T/ans" "bytes received"
	fi
	tcp_ask "$host" "$port" "GET /v1/elapsed/zeta HTTP/1.1${CR}${NL}Host: x${CR}${NL}${CR}${NL}"
	is "$CODE/$BODY" 200/never "$label: never"
	tcp_ask "$host" "$port" "GET /v1/elapsed/nosuch HTTP/1.0${CR}${NL}${CR}${NL}"
	is "$CODE" 404 "$label: unknown cluster: 404"
	tcp_ask "$host" "$port" "POST /v1/elapsed/mail HTTP/1.0${CR}${NL}${CR}${NL}"
	is "$CODE" 405 "$label: POST: 405"
	srvconf "$allowed"
	CODE=$(curl -s -g --max-time 10 -o "$T/body" -w '%{http_code}' \
	    "$url/v1/elapsed/mail" 2>/dev/null)
	is "$CODE" 200 "$label: allow $allowed (the client): 200"
	srvconf "$excluded"
	CODE=$(curl -s -g --max-time 10 -o "$T/body" -w '%{http_code}' \
	    "$url/v1/elapsed/mail" 2>/dev/null)
	is "$CODE" 403 "$label: allow $excluded (not the client): 403"
	tcp_ask "$host" "$port" "garbage${CR}${NL}${CR}${NL}"
	is "$CODE" 403 "$label: excluded client, malformed request: 403"
	srvconf
	CODE=$(curl -s -g --max-time 10 -o "$T/body" -w '%{http_code}' \
	    "$url/v1/elapsed/mail" 2>/dev/null)
	is "$CODE" 200 "$label: allow removed: 200 again"
}

# --- fixtures -------------------------------------------------------------

mkconf <<EOF
[cluster mail]
wait = 10m
EOF
T0=$(now_ms)
"$PGSTATE" -c "$CONF" write mail 5000
srvconf
case $SERVE$SRV in
*[[:space:]]*) bail "paths with white space ($SERVE, $SRV): super-server configs split on it" ;;
esac

# --- openbsd-inetd ---

INETD=/usr/sbin/inetd
FLOOD=${PG_BUILD:-$PG_TOP}/tests/connflood
# The wait field of the example, "nowait.10000".
WAIT=$(awk '!/^#/ && NF { print $4 }' "$PG_TOP/etc/inetd.conf")
launch_inetd()
{
	printf '127.0.0.1:%s stream tcp %s %s %s pollguard-serve -v -i -c %s\n' \
	    "$1" "${IWAIT:-$WAIT}" "$ME" "$SERVE" "$SRV" >"$T/inetd.conf"
	bg inetd private_run "$INETD" -d "$T/inetd.conf"
}
# inetd_burst: 300 connections at once to $SPORT (connflood), each held
# until answered (408 at serve's timeout); then 1 when a request gets no
# answer for 10 seconds.
inetd_burst()
{
	timeout -k 5 100 "$FLOOD" -f -n 300 -t 60 127.0.0.1 "$SPORT" \
	    >"$T/burst.out" 2>&1
	diag "burst: $(tail -n 1 "$T/burst.out")"
	answers()
	{
		[ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' \
		    "http://127.0.0.1:$SPORT/v1/elapsed/mail" 2>/dev/null)" = 200 ]
	}
	wait_for 10 answers
}
NBURST=2
# inetd's pidfile is /run/inetd.pid: where a /run of its own cannot be
# had (private_run), one inetd at a time on this host, and none beside
# the host's.
host_lock inetd || diag "no lock on the inetd pidfile: another test may hold it"
inetd_pid=
private_run_ok || inetd_pid=$(cat /run/inetd.pid 2>/dev/null)
if [ ! -x "$INETD" ] || ! dpkg-query -W -f '${Status}' openbsd-inetd 2>/dev/null |
    grep -q ' installed$'; then
	skip "openbsd-inetd not installed (scripts/deps installs it)" $((NCHECKS + 1 + NBURST))
elif [ -n "$inetd_pid" ] && _pg_alive "$inetd_pid"; then
	skip "an inetd runs already (/run/inetd.pid: $inetd_pid): a second would take its pidfile" \
	    $((NCHECKS + 1 + NBURST))
elif start_on_port inetd launch_inetd; then
	ok "openbsd-inetd -d listens on 127.0.0.1:$SPORT ($WAIT, as etc/inetd.conf)"
	checks inetd 127.0.0.1 "$SPORT" "127.0.0.1, 10.0.0.0/8" "10.0.0.0/8, ::1"
	# The burst is inetd's limit against 300 serves at once: under
	# memcheck (check-valgrind's wrapper scripts) 300 valgrinds on two
	# cores answer neither the burst within its minute nor a question
	# after it; a sanitizer build's serves are too slow for the burst
	# to reach inetd's limit within inetd's minute (the control).
	slow=
	grep -q '^exec valgrind' "$SERVE" 2>/dev/null && slow=memcheck
	if [ "$slow" = memcheck ]; then
		skip "under memcheck: 300 valgrinds at once on $(nproc) cores answer too slowly for the burst"
	elif inetd_burst; then
		ok "$WAIT: after a burst of 300 connections at once, inetd still answers"
	else
		not_ok "$WAIT: after a burst of 300 connections at once, inetd still answers"
	fi
	kill -TERM "$SPID"
	wait_exit "$SPID" 10 >/dev/null
	# The control: inetd's default limit.
	nm "$SERVE" 2>/dev/null | grep -q __asan_init && slow=ASan
	if [ -n "$slow" ]; then
		skip "control: a $slow build serves the burst too slowly to reach inetd's limit"
	elif IWAIT=nowait start_on_port inetd launch_inetd; then
		if inetd_burst; then
			not_ok "control: nowait (256 a minute): after the same burst, inetd answers nothing"
		else
			ok "control: nowait (256 a minute): after the same burst, inetd answers nothing"
		fi
		kill -TERM "$SPID"
		wait_exit "$SPID" 10 >/dev/null
	else
		skip "control: inetd did not start"
	fi
else
	not_ok "openbsd-inetd -d listens on a loopback port"
	skip "inetd did not start" $((NCHECKS + NBURST))
fi
host_unlock inetd

# --- xinetd ---

XCACHE=$PG_TOP/tests/.cache
XINETD=$XCACHE/xinetd/usr/sbin/xinetd
[ -x "$XINETD" ] || XINETD=$(command -v xinetd 2>/dev/null || echo /usr/sbin/xinetd)
launch_xinetd()
{
	cat >"$T/xinetd.conf" <<EOF
service pollguard-test
{
	type		= UNLISTED
	port		= $1
	bind		= 127.0.0.1
	socket_type	= stream
	protocol	= tcp
	wait		= no
	user		= $ME
	server		= $SERVE
	server_args	= -v -i -c $SRV
	log_type	= FILE $T/xinetd.log
}
EOF
	bg xinetd "$XINETD" -dontfork -f "$T/xinetd.conf" -pidfile "$T/xinetd.pid"
}
if [ ! -x "$XINETD" ]; then
	why="xinetd not in tests/.cache/xinetd (scripts/deps fetches it with apt-get download)"
	[ -s "$XCACHE/xinetd.why" ] && why="$why: $(head -n 1 "$XCACHE/xinetd.why")"
	skip "skipped: $why" $((NCHECKS + 1))
elif ! "$XINETD" -version >/dev/null 2>"$T/xv.err"; then
	skip "skipped: $XINETD does not run here: $(ldd "$XINETD" 2>&1 |
	    grep 'not found' | tr -s ' \t\n' ' ')$(head -c 200 "$T/xv.err")" $((NCHECKS + 1))
elif start_on_port xinetd launch_xinetd; then
	ok "xinetd -dontfork listens on 127.0.0.1:$SPORT"
	checks xinetd 127.0.0.1 "$SPORT" "127.0.0.0/8" "192.0.2.0/24"
	kill -TERM "$SPID"
	wait_exit "$SPID" 10 >/dev/null
else
	not_ok "xinetd -dontfork listens on a loopback port"
	skip "xinetd did not start" "$NCHECKS"
fi

# --- socat ---

launch_socat()
{
	bg socat socat "TCP-LISTEN:$1,bind=127.0.0.1,reuseaddr,fork" \
	    EXEC:"$SERVE -v -i -c $SRV"
}
launch_socat6()
{
	bg socat6 socat "TCP6-LISTEN:$1,bind=[::1],reuseaddr,fork" \
	    EXEC:"$SERVE -v -i -c $SRV"
}
# An IPv6 socket bound to the IPv4-mapped loopback address: the client
# 127.0.0.1 arrives as ::ffff:127.0.0.1, as on a dual-stack [::] socket.
launch_socatm()
{
	bg socatm socat "TCP6-LISTEN:$1,bind=[::ffff:127.0.0.1],reuseaddr,fork" \
	    EXEC:"$SERVE -v -i -c $SRV"
}
if ! command -v socat >/dev/null 2>&1; then
	skip "socat not installed (scripts/deps installs it)" $((3 * NCHECKS + 5))
else
	if start_on_port socat launch_socat; then
		ok "socat TCP-LISTEN listens on 127.0.0.1:$SPORT"
		checks socat 127.0.0.1 "$SPORT" "127.0.0.1" "10.0.0.0/8"
		# socat's EXEC gives a socket pair: the address is $SOCAT_PEERADDR,
		# and serve's stderr is socat's.
		if grep -q 'pollguard-serve' "$T/socat.err"; then
			not_ok "socat: serve -v -i wrote nothing to stderr"
			diag_file "$T/socat.err" "socat stderr"
		else
			ok "socat: serve -v -i wrote nothing to stderr"
		fi
		kill -TERM "$SPID"
		wait_exit "$SPID" 10 >/dev/null
	else
		not_ok "socat TCP-LISTEN listens on a loopback port"
		skip "socat did not start" $((NCHECKS + 1))
	fi
	if ! grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
		skip "no IPv6 loopback address ::1" $((2 * NCHECKS + 2))
	else
		if start_on_port socat6 launch_socat6; then
			ok "socat TCP6-LISTEN listens on [::1]:$SPORT"
			# SOCAT_PEERADDR=[0000:0000:0000:0000:0000:0000:0000:0001]
			checks "socat IPv6" ::1 "$SPORT" "::1" "127.0.0.0/8, 2001:db8::/32"
			kill -TERM "$SPID"
			wait_exit "$SPID" 10 >/dev/null
		else
			not_ok "socat TCP6-LISTEN listens on [::1]"
			skip "socat did not start" "$NCHECKS"
		fi
		if start_on_port socatm launch_socatm; then
			ok "socat TCP6-LISTEN listens on [::ffff:127.0.0.1]:$SPORT"
			# SOCAT_PEERADDR=[0000:0000:0000:0000:0000:ffff:7f00:0001]
			checks "socat IPv4-mapped" 127.0.0.1 "$SPORT" "127.0.0.0/8" "10.0.0.0/8"
			kill -TERM "$SPID"
			wait_exit "$SPID" 10 >/dev/null
		else
			not_ok "socat TCP6-LISTEN listens on [::ffff:127.0.0.1]"
			skip "socat did not start" "$NCHECKS"
		fi
	fi
fi

# --- systemd socket activation (Accept=yes) ---

SSA=$(command -v systemd-socket-activate 2>/dev/null)
# With a false $SOCAT_PEERADDR in the environment: the socket's peer
# address wins (the client is 127.0.0.1, not 10.1.2.3).
launch_ssa()
{
	bg ssa "$SSA" -l "127.0.0.1:$1" -E SOCAT_PEERADDR=10.1.2.3 --inetd -a \
	    "$SERVE" -v -i -c "$SRV"
}
# An IPv6 socket on the IPv4-mapped loopback: getpeername gives
# ::ffff:127.0.0.1, matched as IPv4.
launch_ssam()
{
	bg ssam "$SSA" -l "[::ffff:127.0.0.1]:$1" --inetd -a "$SERVE" -v -i -c "$SRV"
}
if [ -z "$SSA" ]; then
	skip "systemd-socket-activate not installed (no systemd here)" $((2 * NCHECKS + 3))
elif start_on_port ssa launch_ssa; then
	ok "systemd-socket-activate --inetd -a listens on 127.0.0.1:$SPORT"
	checks systemd 127.0.0.1 "$SPORT" "127.0.0.1" "10.0.0.0/8, ::1"
	if grep -q 'pollguard-serve: ' "$T/ssa.err"; then
		not_ok "systemd-socket-activate: serve -v -i wrote nothing to stderr"
		diag_file "$T/ssa.err" stderr
	else
		ok "systemd-socket-activate: serve -v -i wrote nothing to stderr"
	fi
	kill -TERM "$SPID"
	wait_exit "$SPID" 10 >/dev/null
else
	not_ok "systemd-socket-activate listens on a loopback port"
	skip "systemd-socket-activate did not start" $((NCHECKS + 1))
fi
if [ -z "$SSA" ]; then
	:
elif start_on_port ssam launch_ssam; then
	ok "systemd-socket-activate listens on [::ffff:127.0.0.1]:$SPORT"
	checks "systemd IPv4-mapped" 127.0.0.1 "$SPORT" "127.0.0.0/8" "10.0.0.0/8, ::1"
	kill -TERM "$SPID"
	wait_exit "$SPID" 10 >/dev/null
else
	not_ok "systemd-socket-activate listens on [::ffff:127.0.0.1]"
	skip "systemd-socket-activate did not start" "$NCHECKS"
fi

finish
