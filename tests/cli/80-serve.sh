#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-serve on its own. Inetd mode with requests piped in: every
# answer, every error status, the allow list ($SOCAT_PEERADDR), Basic
# credentials, the deadline, config errors, usage, and that it never
# writes state nor stderr. Standalone over TCP with curl and raw sockets:
# IPv4 and IPv6, deadlines, size limits, the connection cap, the pidfile,
# SIGTERM and SIGHUP, logging, concurrency; run_as when root.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

unset SOCAT_PEERADDR
command -v curl >/dev/null 2>&1 || bail "curl is not installed (scripts/deps installs it)"
NL=$'\n'
VERSION=$(cat "$PG_TOP/VERSION")

# --- helpers --------------------------------------------------------------

# status_like ERE DESC: the last answer's status line matches.
status_like()
{
	if [[ $STATUS =~ $1 ]]; then
		ok "$2"
	else
		not_ok "$2"
		diag "status line: '$STATUS', want /$1/"
	fi
}

# ask REQUEST [ARGS...]: pipe REQUEST into pollguard-serve -c $CONF -i ARGS;
# RC is its exit status; the answer is split (split_answer). With PEER set,
# SOCAT_PEERADDR=$PEER is in its environment. Anything on stderr is noted
# in INETD_STDERR: inetd mode must never write there.
INETD_RUNS=0
INETD_STDERR=
ask()
{
	local req=$1 pre=()
	shift
	[ -n "${PEER:-}" ] && pre=(env "SOCAT_PEERADDR=$PEER")
	{ printf '%s' "$req" 2>/dev/null; } | "${pre[@]}" timeout -k 5 20 \
	    "$SERVE" -c "$CONF" -i "$@" >"$T/ans" 2>"$T/ierr"
	RC=${PIPESTATUS[1]}
	split_answer "$T/ans"
	INETD_RUNS=$((INETD_RUNS + 1))
	if [ -s "$T/ierr" ]; then
		INETD_STDERR="${INETD_STDERR}[$(head -c 200 "$T/ierr" | cat -v)]"
	fi
}

# GET PATH [VERSION]: REQ is a GET request (HTTP/1.1 ones carry a Host).
GET()
{
	case ${2:-1.0} in
	1.1) printf -v REQ 'GET %s HTTP/1.1\r\nHost: test\r\n\r\n' "$1" ;;
	*) printf -v REQ 'GET %s HTTP/%s\r\n\r\n' "$1" "${2:-1.0}" ;;
	esac
}

# code_is WANT DESC: the last answer's status code; shows the answer if not.
code_is()
{
	if [ "$CODE" = "$1" ]; then
		ok "$2"
	else
		not_ok "$2"
		diag "status $CODE, want $1 (exit status ${RC:-?})"
		diag_file "$T/ans" answer
		[ -s "$T/ierr" ] && diag_file "$T/ierr" stderr
	fi
}

# answer_ok WANT DESC: an error answer of the wanted status, well formed:
# the usual headers, a body that is the reason phrase on one line, exit 0.
answer_ok()
{
	local bad=
	[ "$CODE" = "$1" ] || bad="$bad status $CODE, want $1;"
	[[ $STATUS =~ ^HTTP/1\.[01]\ [0-9]{3}\ [^[:cntrl:]]+$ ]] ||
	    bad="$bad status line '$STATUS';"
	[ "$(hdr Content-Type)" = "text/plain; charset=utf-8" ] ||
	    bad="$bad Content-Type '$(hdr Content-Type)';"
	[ "$(hdr Content-Length)" = "$(wc -c <"$T/body")" ] ||
	    bad="$bad Content-Length '$(hdr Content-Length)' for $(wc -c <"$T/body") bytes;"
	[ "$(hdr Connection)" = close ] || bad="$bad Connection '$(hdr Connection)';"
	[ "$(hdr Cache-Control)" = no-store ] ||
	    bad="$bad Cache-Control '$(hdr Cache-Control)';"
	[ "$(wc -l <"$T/body")" -eq 1 ] && [ "$BODY" = "$REASON" ] ||
	    bad="$bad body is not the reason phrase '$REASON' on one line;"
	[ "${RC:-0}" -eq 0 ] || bad="$bad exit status $RC, want 0;"
	if [ -z "$bad" ]; then
		ok "$2"
	else
		not_ok "$2"
		diag "$bad"
		diag_file "$T/ans" answer
	fi
}

# answer_ok_rc WANT DESC: answer_ok, whatever the exit status (checked apart).
answer_ok_rc()
{
	local r=$RC
	RC=0
	answer_ok "$@"
	RC=$r
}

# err_empty_i DESC: the last ask wrote nothing on stderr.
err_empty_i()
{
	file_empty "$T/ierr" "$1"
}

# metric CLUSTER NAME FILE: the value of pollguard_NAME{cluster="CLUSTER"}.
metric()
{
	sed -n "s/^pollguard_$2{cluster=\"$1\"} \([0-9.]*\)\$/\1/p" "$3"
}

# num_is GOT WANT DESC: GOT is the number WANT (600 or 600.000).
num_is()
{
	if [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] &&
	    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a == b) }'; then
		ok "$3"
	else
		not_ok "$3"
		diag "got '$1', want the number $2"
	fi
}

# snapshot DIR: names, sizes, modes, times and contents of a directory.
snapshot()
{
	find "$1" -printf '%P %s %m %T@ %i\n' 2>/dev/null | sort
	(cd "$1" 2>/dev/null && find . -type f -exec md5sum {} + | sort)
}

# curl_get URL [CURL ARGS...]: CODE, the answer's headers ($T/hdr, CR
# removed) and body ($T/body, BODY).
curl_get()
{
	local url=$1
	shift
	CODE=$(curl -s -g --max-time 10 -D "$T/chdr" -o "$T/body" \
	    -w '%{http_code}' "$@" "$url" 2>/dev/null)
	tr -d '\r' <"$T/chdr" 2>/dev/null | sed '1d; /^$/d' >"$T/hdr"
	STATUS=$(head -n 1 "$T/chdr" 2>/dev/null | tr -d '\r')
	BODY=$(cat "$T/body" 2>/dev/null)
	cp "$T/chdr" "$T/ans" 2>/dev/null
}

# asks < TABLE: one request a line, "PEER REQUEST WANT DESC": pipe
# REQUEST into serve -i (-c $CONF) with SOCAT_PEERADDR=PEER ("-": none)
# and check that the answer is WANT, 200 with code_is, others with
# answer_ok (and a 401 with its WWW-Authenticate). REQUEST: get (GET
# /v1/elapsed/mail HTTP/1.0), garbage (a request line of one word) or
# SCHEME:CREDENTIALS (get with "Authorization: SCHEME CREDENTIALS").
asks()
{
	local peer req want desc r
	while read -r -u 3 peer req want desc; do
		case $req in
		get) r= ;;
		garbage) r=garbage ;;
		*) r="Authorization: ${req%%:*} ${req#*:}" ;;
		esac
		if [ "$r" = garbage ]; then
			r="garbage${CR}${NL}${CR}${NL}"
		else
			r="GET /v1/elapsed/mail HTTP/1.0${CR}${NL}${r:+$r${CR}${NL}}${CR}${NL}"
		fi
		[ "$peer" = - ] && peer=
		PEER=$peer ask "$r"
		if [ "$want" = 200 ]; then
			code_is 200 "$desc"
		else
			answer_ok "$want" "$desc"
		fi
		[ "$want" != 401 ] ||
		    is "$(hdr WWW-Authenticate)" 'Basic realm="pollguard"' \
		    "${desc%: 401}: WWW-Authenticate: Basic realm=\"pollguard\""
	done 3<&0
}

# ask_held CONF [BYTES]: serve -i -c CONF for a client that sends BYTES
# (none by default) and then nothing, its connection open for 20 s
# unless serve answers first; EL: the milliseconds serve took. With
# PEER set, SOCAT_PEERADDR=$PEER.
ask_held()
{
	local conf=$1 w s pre=()
	[ -n "${PEER:-}" ] && pre=(env "SOCAT_PEERADDR=$PEER")
	[ -p "$T/held" ] || mkfifo "$T/held"
	{ printf '%s' "${2:-}"; exec sleep 20; } >"$T/held" &
	w=$!
	s=$(now_ms)
	"${pre[@]}" timeout -k 5 40 "$SERVE" -c "$conf" -i <"$T/held" \
	    >"$T/ans" 2>"$T/ierr"
	RC=$?
	EL=$(($(now_ms) - s))
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	split_answer "$T/ans"
}

# --- fixtures -------------------------------------------------------------

mkconf <<EOF
[cluster zeta]
wait = 10m
[cluster mail]
wait = 10m
[cluster alpha]
wait = 30s
[cluster bad]
wait = 10s
EOF
MAIN=$CONF
T0=$(now_ms)
"$PGSTATE" -c "$CONF" write mail 5000
"$PGSTATE" -c "$CONF" write alpha 3000
echo junk >"$STATE/bad"

# ========================== inetd mode ===================================

# --- the answers ---

GET /v1/elapsed/mail; ask "$REQ"
code_is 200 "inetd: GET /v1/elapsed/mail: 200"
is "$RC" 0 "inetd: exit 0 after answering"
status_like '^HTTP/1\.0 200 OK$' "HTTP/1.0 request: HTTP/1.0 200 OK"
if [[ $BODY =~ ^[0-9]+$ ]] && [ "$(wc -l <"$T/body")" -eq 1 ]; then
	ok "body: digits and a newline"
else
	not_ok "body: digits and a newline"
	diag_file "$T/body" body
fi
age_ok "$BODY" 5000 "$T0" "elapsed: the age of the record (5000 ms, pgstate)"
is "$(hdr Content-Type)" "text/plain; charset=utf-8" "Content-Type: text/plain; charset=utf-8"
is "$(hdr Content-Length)" "$(wc -c <"$T/body")" "Content-Length: the body's length"
is "$(hdr Connection)" close "Connection: close"
is "$(hdr Cache-Control)" no-store "Cache-Control: no-store"
err_empty_i "inetd: nothing on stderr"

GET /v1/elapsed/zeta; ask "$REQ"
code_is 200 "never active: 200"
is "$(cat -v "$T/body")" never "never active: body 'never' and a newline"
is "$(hdr Content-Length)" 6 "never active: Content-Length 6"

GET /v1/elapsed/alpha 1.1; ask "$REQ"
code_is 200 "HTTP/1.1 with Host: 200"
status_like '^HTTP/1\.1 200 OK$' "HTTP/1.1 request: HTTP/1.1 200 OK"
age_ok "$BODY" 3000 "$T0" "alpha: 3000 ms old"

ask "GET /v1/elapsed/mail HTTP/1.0${NL}${NL}"
code_is 200 "bare LF line ends: 200"
ask "GET /v1/elapsed/mail HTTP/1.1${NL}Host: x${NL}User-Agent: t${NL}${NL}"
code_is 200 "bare LF, HTTP/1.1 with headers: 200"
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}Content-Length: 0${CR}${NL}${CR}${NL}"
code_is 200 "Content-Length: 0 is no body: 200"
GET /v1/elapsed/mail; ask "$REQ" -v
code_is 200 "-v in inetd mode: 200"
err_empty_i "-v in inetd mode: still nothing on stderr"

# --- /v1/elapsed ---

GET /v1/elapsed; ask "$REQ"
code_is 200 "GET /v1/elapsed: 200"
is "$(awk '{ print $1 }' "$T/body" | tr '\n' ' ')" "zeta mail alpha " \
    "/v1/elapsed: one line per cluster, config order, damaged record left out"
is "$(sed -n 's/^zeta //p' "$T/body")" never "/v1/elapsed: zeta never"
age_ok "$(sed -n 's/^mail //p' "$T/body")" 5000 "$T0" "/v1/elapsed: mail's age"
age_ok "$(sed -n 's/^alpha //p' "$T/body")" 3000 "$T0" "/v1/elapsed: alpha's age"
is "$(hdr Content-Length)" "$(wc -c <"$T/body")" "/v1/elapsed: Content-Length"

GET /v1/elapsed/bad; ask "$REQ"
answer_ok 500 "damaged record: 500"

# --- /metrics ---

GET /metrics; ask "$REQ"
code_is 200 "GET /metrics: 200"
case $(hdr Content-Type) in
"text/plain; version=0.0.4"*) ok "/metrics: Content-Type text/plain; version=0.0.4" ;;
*) not_ok "/metrics: Content-Type text/plain; version=0.0.4"
   diag "Content-Type: $(hdr Content-Type)" ;;
esac
is "$(hdr Content-Length)" "$(wc -c <"$T/body")" "/metrics: Content-Length"
M=$T/body
for m in build_info wait_seconds last_activity_seconds; do
	assert "/metrics: HELP line for pollguard_$m" \
	    grep -q "^# HELP pollguard_$m " "$M"
	assert "/metrics: TYPE line: pollguard_$m gauge" \
	    grep -qx "# TYPE pollguard_$m gauge" "$M"
done
assert "/metrics: pollguard_build_info{version=\"$VERSION\"} 1" \
    grep -qxF "pollguard_build_info{version=\"$VERSION\"} 1" "$M"
num_is "$(metric mail wait_seconds "$M")" 600 "/metrics: wait_seconds mail 600"
num_is "$(metric zeta wait_seconds "$M")" 600 "/metrics: wait_seconds zeta 600"
num_is "$(metric alpha wait_seconds "$M")" 30 "/metrics: wait_seconds alpha 30"
la=$(sed -n 's/^pollguard_last_activity_seconds{cluster="mail"} \([0-9]*\.[0-9]*\)$/\1/p' "$M")
if [ -n "$la" ]; then
	age_ok "$(awk -v s="$la" 'BEGIN { printf "%d", s * 1000 }')" 5000 "$T0" \
	    "/metrics: last_activity_seconds mail, seconds with a fraction"
else
	not_ok "/metrics: last_activity_seconds mail, seconds with a fraction"
	diag_file "$M" metrics
fi
if grep -q '^pollguard_last_activity_seconds{cluster="zeta"}' "$M"; then
	not_ok "/metrics: no last_activity line for a cluster never active"
	diag_file "$M" metrics
else
	ok "/metrics: no last_activity line for a cluster never active"
fi
bad_lines=$(grep -vE '^(# (HELP|TYPE) pollguard_[a-z_]+ .+|pollguard_[a-z_]+\{[a-z]+="[^"]*"\} [0-9]+(\.[0-9]+)?)$' "$M")
is "$bad_lines" "" "/metrics: every line a comment or name{label} value"

# --- HEAD ---

ask "HEAD /v1/elapsed/zeta HTTP/1.0${CR}${NL}${CR}${NL}"
code_is 200 "HEAD: 200"
is "$HEAD_END" 1 "HEAD: a complete head"
is "$(wc -c <"$T/body")" 0 "HEAD: no body"
is "$(hdr Content-Length)" 6 "HEAD: Content-Length of the GET body"
is "$(hdr Content-Type)" "text/plain; charset=utf-8" "HEAD: Content-Type"
ask "HEAD /nosuch HTTP/1.1${CR}${NL}Host: x${CR}${NL}${CR}${NL}"
code_is 404 "HEAD of an unknown path: 404"
is "$(wc -c <"$T/body")" 0 "HEAD 404: no body"

# --- default mode, -i over listen ---

printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' | timeout -k 5 20 "$SERVE" -c "$CONF" >"$T/ans" 2>"$T/ierr"
RC=$?
split_answer "$T/ans"
code_is 200 "no -i, no -l, no listen: inetd mode, 200"
mkconf "$T/listen.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
listen = 127.0.0.1:0
EOF
CONF=$T/listen.conf
GET /v1/elapsed/mail; ask "$REQ"
code_is 200 "-i wins over listen in the config: 200 on stdout"
CONF=$MAIN

# --- 400 ---

bad400()
{
	ask "$1"
	answer_ok 400 "400: $2"
}
bad400 "GET /v1/elapsed/mail${CR}${NL}${CR}${NL}" "request line without a version"
bad400 "hello${CR}${NL}${CR}${NL}" "request line of one word"
bad400 "GET /v1/elapsed/mail HTTP/1.0 extra${CR}${NL}${CR}${NL}" "request line of four words"
bad400 "G@T /v1/elapsed/mail HTTP/1.0${CR}${NL}${CR}${NL}" "method not a token"
bad400 "GET mail HTTP/1.0${CR}${NL}${CR}${NL}" "target not starting with /"
bad400 "GET http://test/v1/elapsed/mail HTTP/1.1${CR}${NL}Host: test${CR}${NL}${CR}${NL}" \
    "absolute-form target (not starting with /)"
bad400 "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}X-No-Colon${CR}${NL}${CR}${NL}" "header without ':'"
bad400 "GET /v1/elapsed/mail HTTP/1.0${CR}${NL} X-A: b${CR}${NL}${CR}${NL}" \
    "white space before the first header (obs-fold of the request line)"
bad400 "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}X-A: b${CR}${NL} folded${CR}${NL}${CR}${NL}" \
    "obs-fold (continuation line)"
bad400 "GET /v1/elapsed/mail HTTP/1.1${CR}${NL}${CR}${NL}" "HTTP/1.1 without Host"
bad400 "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}Content-Length: 5${CR}${NL}${CR}${NL}hello" \
    "a body (Content-Length: 5)"
bad400 "GET /v1/elapsed/mail HTTP/1.1${CR}${NL}Host: x${CR}${NL}Transfer-Encoding: chunked${CR}${NL}${CR}${NL}0${CR}${NL}${CR}${NL}" \
    "Transfer-Encoding"
status_like '^HTTP/1\.1 ' "400 to HTTP/1.1: HTTP/1.1 status line"

# --- 401 ---

AUTH_OK=$(printf 'pg:s3cret' | base64)
AUTH_BAD=$(printf 'pg:wrong' | base64)
AUTH_USER=$(printf 'pgx:s3cret' | base64)
mkconf "$T/auth.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
user = pg
password = s3cret
EOF
CONF=$T/auth.conf
asks <<EOF
-	get		401	credentials set, no Authorization: 401
-	Basic:$AUTH_BAD	401	wrong password: 401
-	Basic:$AUTH_USER	401	wrong user: 401
-	Bearer:$AUTH_OK	401	another scheme: 401
-	Basic:!!!	401	not base64: 401
-	Basic:$AUTH_OK	200	right credentials: 200
EOF
age_ok "$BODY" 5000 "$T0" "right credentials: the answer"
ask "GET /metrics HTTP/1.0${CR}${NL}${CR}${NL}"
answer_ok 401 "credentials set: /metrics needs them too"
CONF=$MAIN

# --- 403: the allow list ---

mkconf "$T/allow.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
allow = 127.0.0.0/8
EOF
CONF=$T/allow.conf
# [0000:...:ffff:7f00:0001]: what socat 1.7 sets for an IPv4 client of a
# TCP6-LISTEN socket.
asks <<EOF
-		get	403	allow set, a pipe (address unknown): 403
-		garbage	403	allow set, address unknown: 403 before looking at the request
127.0.0.1	get	200	SOCAT_PEERADDR=127.0.0.1, allow 127.0.0.0/8: 200
127.200.3.4	get	200	SOCAT_PEERADDR=127.200.3.4, allow 127.0.0.0/8: 200
10.0.0.1	get	403	SOCAT_PEERADDR=10.0.0.1, allow 127.0.0.0/8: 403
10.0.0.1	garbage	403	excluded client, malformed request: still 403 (checked first)
::ffff:127.0.0.1	get	200	SOCAT_PEERADDR=::ffff:127.0.0.1 (IPv4-mapped): matched as IPv4, 200
[0000:0000:0000:0000:0000:ffff:7f00:0001]	get	200	SOCAT_PEERADDR=[0000:...:ffff:7f00:0001] (socat's IPv4-mapped form): 200
notanaddress	get	403	SOCAT_PEERADDR not an address, allow set: 403
EOF
# refused at start: answered before a byte of the request, which never
# comes. With a 30 s request timeout and input that ends after 20 s, an
# answer within 15 s came at start, however slow the machine (valgrind).
sed 's/^\[cluster mail\]/timeout = 30s\n&/' "$CONF" >"$T/allow30.conf"
PEER=10.0.0.1 ask_held "$T/allow30.conf"
answer_ok 403 "excluded client, request never sent: 403"
num_between "$EL" 0 15000 \
    "excluded client, request never sent: answered at start, not at the deadline"
CONF=$MAIN
GET /v1/elapsed/mail; PEER=notanaddress ask "$REQ"
code_is 200 "no allow: any client, even an unknown address: 200"

mkconf "$T/allow2.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
allow = 10.0.0.0/8
allow = 192.0.2.7, ::1 2001:db8::/32
user = pg
password = s3cret
EOF
CONF=$T/allow2.conf
A=Basic:$AUTH_OK
asks <<EOF
10.9.9.9	$A	200	allow on two lines: the first line's range: 200
192.0.2.7	$A	200	allow on two lines: the second line's address: 200
192.0.2.8	$A	403	allow: an address next to an allowed one: 403
::1		$A	200	allow ::1, SOCAT_PEERADDR=::1: 200
[0000:0000:0000:0000:0000:0000:0000:0001]	$A	200	allow ::1, SOCAT_PEERADDR in socat's form [0000:...:0001]: 200
2001:db8:ffff::5	$A	200	allow 2001:db8::/32: an address in it: 200
2001:db9::1	$A	403	allow 2001:db8::/32: an address outside: 403
192.0.2.8	get	403	excluded and no credentials: 403 before 401
192.0.2.7	get	401	allowed, no credentials: 401
EOF

# An IPv4-mapped entry is an IPv4 range: a dual-stack listener's
# ::ffff:a.b.c.d client is a.b.c.d.
mkconf "$T/allow3.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
allow = ::ffff:198.51.100.0/120
EOF
CONF=$T/allow3.conf
asks <<EOF
198.51.100.9	get	200	allow ::ffff:198.51.100.0/120: 198.51.100.9 is in it: 200
::ffff:198.51.100.9	get	200	allow ::ffff:198.51.100.0/120: ::ffff:198.51.100.9 too: 200
198.51.101.9	get	403	allow ::ffff:198.51.100.0/120: 198.51.101.9 is not: 403
EOF
CONF=$MAIN

# --- 404 ---

for p in / /v1 /v1/ /v1/elapsed/ /v1/elapsed/nosuch /v1/elapsed/mail/ \
    /v1/elapsed/m%61il "/v1/elapsed/mail?x=1" /v1/elapsed/.hidden \
    /v1/elapsed/../mail /metrics/ "/metrics?x" /v2/elapsed/mail /V1/elapsed/mail; do
	GET "$p"; ask "$REQ"
	answer_ok 404 "404: GET $p"
done

# --- 405 ---

for m in POST PUT DELETE OPTIONS get; do
	ask "$m /v1/elapsed/mail HTTP/1.0${CR}${NL}${CR}${NL}"
	answer_ok 405 "405: $m"
	is "$(hdr Allow)" "GET, HEAD" "405 $m: Allow: GET, HEAD"
done

# --- 414, 431 ---

# The request line GET /AAA... HTTP/1.0 CRLF is 16 bytes plus the A's.
A1008=$(printf '%1008s' '' | tr ' ' A)
ask "GET /$A1008 HTTP/1.0${CR}${NL}${CR}${NL}"
answer_ok 404 "request line of 1024 bytes with CRLF: not too long (404)"
ask "GET /${A1008}A HTTP/1.0${CR}${NL}${CR}${NL}"
answer_ok 414 "414: request line of 1025 bytes with CRLF"
ask "GET /$(printf '%5000s' '' | tr ' ' A) HTTP/1.0${CR}${NL}${CR}${NL}"
answer_ok 414 "414: request line of 5 kB"

h64='' h65='' big=''
for i in $(seq 1 64); do h64="${h64}X-H$i: v${CR}${NL}"; done
h65="${h64}X-H65: v${CR}${NL}"
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}${h64}${CR}${NL}"
code_is 200 "64 header fields: 200"
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}${h65}${CR}${NL}"
answer_ok 431 "431: 65 header fields"
for i in 1 2 3 4 5 6 7 8 9; do
	big="${big}X-Big$i: $(printf '%1000s' '' | tr ' ' b)${CR}${NL}"
done
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}${big}${CR}${NL}"
answer_ok 431 "431: head of 9 kB"
# 31 bytes of request line, 9 + N of header, 2 of the empty line.
pad=$(printf '%8150s' '' | tr ' ' p)
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}X-Pad: ${pad}${CR}${NL}${CR}${NL}"
code_is 200 "head of exactly 8192 bytes: 200"
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}X-Pad: ${pad}p${CR}${NL}${CR}${NL}"
answer_ok 431 "431: head of 8193 bytes"
ask "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}X-One: $(printf '%4000s' '' | tr ' ' b)${CR}${NL}${CR}${NL}"
code_is 200 "one header field of 4 kB (head under 8 kB): 200"

# --- 505 ---

for v in HTTP/2.0 HTTP/1.2 HTTP/0.9 HTTP/3.0; do
	ask "GET /v1/elapsed/mail $v${CR}${NL}${CR}${NL}"
	answer_ok 505 "505: $v"
done

# --- 408 ---

mkconf "$T/t300.conf" <<EOF
timeout = 300ms
connect_timeout = 100ms
[cluster mail]
wait = 10m
EOF
CONF=$MAIN
for what in "nothing" "half a request"; do
	if [ "$what" = nothing ]; then
		ask_held "$T/t300.conf"
	else
		ask_held "$T/t300.conf" "GET /v1/elapsed/mail HTTP/1.0${CR}${NL}"
	fi
	answer_ok 408 "timeout 300ms, a pipe open that sends $what: 408"
	num_between "$EL" 0 3000 "408 for $what within 3 s (timeout 300ms)"
	err_empty_i "408: nothing on stderr"
done

# --- never writes state ---

BEFORE=$(snapshot "$STATE")
GET /v1/elapsed/mail; ask "$REQ"
GET /v1/elapsed; ask "$REQ"
GET /metrics; ask "$REQ"
GET /v1/elapsed/zeta; ask "$REQ"
GET /v1/elapsed/bad; ask "$REQ"
is "$(snapshot "$STATE")" "$BEFORE" "serve never writes state: state directory unchanged"

chmod 555 "$STATE"
GET /v1/elapsed/mail; ask "$REQ"
code_is 200 "read-only state directory: 200"
age_ok "$BODY" 5000 "$T0" "read-only state directory: the age"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
    getent passwd 65534 >/dev/null; then
	# As root a mode does not stop a write: as user 65534, a state
	# directory it cannot write, and a config it owns.
	cp "$MAIN" "$T/nobody.conf"
	chown 65534 "$T/nobody.conf"
	chmod 711 "$T"
	printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' |
	    setpriv --reuid=65534 --regid=65534 --clear-groups \
	    timeout -k 5 20 "$SERVE" -c "$T/nobody.conf" -i >"$T/ans" 2>"$T/ierr"
	RC=${PIPESTATUS[1]}
	split_answer "$T/ans"
	code_is 200 "state directory not writable for the user (65534): 200"
	age_ok "$BODY" 5000 "$T0" "not writable for the user: the age"
	chmod 700 "$T"
else
	skip "not root (or no setpriv, no user 65534): the mode test above covers it" 2
fi
chmod 755 "$STATE"
is "$(snapshot "$STATE")" "$BEFORE" "state directory still unchanged"

STATE=$T/nostate mkconf "$T/nostate.conf" <<EOF
[cluster mail]
wait = 10m
[cluster two]
wait = 10m
EOF

CONF=$T/nostate.conf
GET /v1/elapsed/mail; ask "$REQ"
code_is 200 "missing state directory: 200"
is "$BODY" never "missing state directory: never"
GET /v1/elapsed; ask "$REQ"
is "$(tr '\n' ' ' <"$T/body")" "mail never two never " "missing state directory: /v1/elapsed all never"
assert "missing state directory: not created" test ! -e "$T/nostate"
CONF=$MAIN

# --- config errors, usage ---

printf '[cluster mail]\nwait = nonsense\n' >"$T/bad.conf"
chmod 600 "$T/bad.conf"
CONF=$T/bad.conf
GET /v1/elapsed/mail; ask "$REQ"
is "$RC" 78 "inetd, config error: exit 78"
answer_ok_rc 500 "inetd, config error: answers 500"
err_empty_i "inetd, config error: nothing on stderr"
CONF=$T/no-such.conf
GET /v1/elapsed/mail; ask "$REQ"
is "$RC" 78 "inetd, config file missing: exit 78"
answer_ok_rc 500 "inetd, config file missing: answers 500"
printf '[cluster mail]\nwait = 10m\n[serve]\nuser = pg\npassword = x\n' >"$T/open.conf"
chmod 644 "$T/open.conf"
CONF=$T/open.conf
GET /v1/elapsed/mail; ask "$REQ"
is "$RC" 78 "inetd, password in a world-readable config: exit 78"
answer_ok_rc 500 "inetd, password in a world-readable config: answers 500"
CONF=$MAIN

# Without -i and without a connection on stdin (a person, a service
# manager, nohup), a broken config, which may hold the listen key, is an
# error on stderr, not a 500 to nobody; with -p too, not a usage error.
exit_is 78 "no -i, stdin not a socket, broken config: exit 78" \
    "$SERVE" -c "$T/bad.conf" </dev/null
err_has "$T/bad.conf" "no -i, stdin not a socket: the error names the file"
out_empty "no -i, stdin not a socket: no 500 on stdout"
exit_is 78 "-p with a broken config: exit 78, not a usage error" \
    "$SERVE" -c "$T/bad.conf" -p "$T/bad.pid" </dev/null
err_has "$T/bad.conf" "-p with a broken config: the error names the file"
assert "-p with a broken config: no pidfile" test ! -e "$T/bad.pid"

if [ -z "$INETD_STDERR" ]; then
	ok "inetd mode: nothing on stderr in any of $INETD_RUNS runs"
else
	not_ok "inetd mode: nothing on stderr in any of $INETD_RUNS runs"
	diag "stderr: $INETD_STDERR"
fi

USAGE="usage: pollguard-serve [-v] [-c file] [-i]
       pollguard-serve [-v] [-c file] [-p pidfile] -l [addr]:port"
for args in "-x" "-c $MAIN extra" "-l" "-c"; do
	# shellcheck disable=SC2086
	exit_is 64 "usage error ($args): exit 64" "$SERVE" $args
	if [ "$(tail -n 2 "$T/err")" = "$USAGE" ] &&
	    [ "$(grep -vc '^usage: \|^       pollguard-serve ' "$T/err")" -le 1 ]; then
		ok "usage error ($args): the usage text"
	else
		not_ok "usage error ($args): the usage text"
		diag_file "$T/err" stderr
	fi
	out_empty "usage error ($args): nothing on stdout"
done
exit_is "64|78" "-l without a port: refused" timeout -k 2 10 "$SERVE" -c "$MAIN" -l 127.0.0.1
exit_is "64|78" "-l with a port out of range: refused" \
    timeout -k 2 10 "$SERVE" -c "$MAIN" -l 127.0.0.1:70000

# The default deadline, 2s, for a client that sends nothing.
ask_held "$MAIN"
answer_ok 408 "default timeout (2s), a pipe that sends nothing: 408"
num_between "$EL" 1000 10000 "default timeout: 408 after about 2 s (within 10 s)"

if command -v readelf >/dev/null 2>&1; then
	if readelf -d "$SERVE" | grep NEEDED | grep -q libcurl; then
		not_ok "pollguard-serve does not link libcurl"
		diag "$(readelf -d "$SERVE" | grep NEEDED)"
	else
		ok "pollguard-serve does not link libcurl"
	fi
else
	skip "no readelf (binutils) to read the dynamic section"
fi

# ========================== standalone ===================================

if serve_start s1 "$MAIN"; then
	ok "standalone: started on 127.0.0.1, port $PORT"
else
	not_ok "standalone: started on 127.0.0.1"
	finish
fi
S1PID=$SERVE_PID
S1PORT=$PORT
U=http://127.0.0.1:$PORT
assert "standalone: says 'pollguard-serve: listening on 127.0.0.1:PORT'" \
    grep -qxE "pollguard-serve: listening on 127\.0\.0\.1:$PORT" "$T/s1.err"
assert "standalone: port 0 gives a real port" test "$PORT" -gt 0

curl_get "$U/v1/elapsed/mail"
is "$CODE" 200 "TCP: /v1/elapsed/mail: 200"
age_ok "$BODY" 5000 "$T0" "TCP: the age"
is "$(hdr Content-Type)" "text/plain; charset=utf-8" "TCP: Content-Type"
is "$(hdr Connection)" close "TCP: Connection: close"
is "$(hdr Cache-Control)" no-store "TCP: Cache-Control: no-store"
status_like '^HTTP/1\.1 200 ' "TCP: curl's HTTP/1.1 gets HTTP/1.1"
curl_get "$U/v1/elapsed/zeta" --http1.0
status_like '^HTTP/1\.0 200 ' "TCP: curl --http1.0 gets HTTP/1.0"
is "$BODY" never "TCP: never"
curl_get "$U/v1/elapsed"
is "$CODE" 200 "TCP: /v1/elapsed: 200"
is "$(awk '{ print $1 }' "$T/body" | tr '\n' ' ')" "zeta mail alpha " "TCP: /v1/elapsed in config order"
curl_get "$U/metrics"
is "$CODE" 200 "TCP: /metrics: 200"
num_is "$(metric mail wait_seconds "$T/body")" 600 "TCP: /metrics wait_seconds"
tcp_ask 127.0.0.1 "$PORT" "HEAD /v1/elapsed/zeta HTTP/1.1${CR}${NL}Host: x${CR}${NL}${CR}${NL}"
is "$CODE" 200 "TCP: HEAD: 200"
is "$(hdr Content-Length)" 6 "TCP: HEAD: Content-Length 6"
is "$(wc -c <"$T/body")" 0 "TCP: HEAD: no body"
curl_get "$U/v1/elapsed/nosuch"
is "$CODE" 404 "TCP: unknown cluster: 404"
curl_get "$U/nosuch"
is "$CODE" 404 "TCP: unknown path: 404"
curl_get "$U/v1/elapsed/mail" -X POST
is "$CODE" 405 "TCP: POST: 405"
is "$(hdr Allow)" "GET, HEAD" "TCP: 405: Allow"
curl_get "$U/v1/elapsed/bad"
is "$CODE" 500 "TCP: damaged record: 500"
curl_get "$U/v1/elapsed/$(printf '%1100s' '' | tr ' ' a)"
is "$CODE" 414 "TCP: request line over 1024 bytes: 414"
curl_get "$U/v1/elapsed/mail" -H "X-Big: $(printf '%9000s' '' | tr ' ' b)"
is "$CODE" 431 "TCP: head over 8192 bytes: 431"
hargs=()
for i in $(seq 1 70); do hargs+=(-H "X-H$i: v"); done
curl_get "$U/v1/elapsed/mail" "${hargs[@]}"
is "$CODE" 431 "TCP: 70 header fields: 431"
tcp_ask 127.0.0.1 "$PORT" "GET /v1/elapsed/mail HTTP/2.0${CR}${NL}${CR}${NL}"
is "$CODE" 505 "TCP: HTTP/2.0: 505"
tcp_ask 127.0.0.1 "$PORT" "GET /v1/elapsed/mail HTTP/1.1${CR}${NL}${CR}${NL}"
is "$CODE" 400 "TCP: HTTP/1.1 without Host: 400"
tcp_ask 127.0.0.1 "$PORT" "GET /v1/elapsed/mail HTTP/1.0${NL}${NL}"
is "$CODE" 200 "TCP: bare LF: 200"
is "$(hdr Content-Length)" "$(wc -c <"$T/body")" "TCP raw: Content-Length matches the bytes sent"

# --- logging ---

wait_for 5 grep -q 'client 127.0.0.1: 405' "$T/s1.err"
assert "-v: a normal request logged: client 127.0.0.1: 200 \"GET /v1/elapsed/mail HTTP/1.1\"" \
    grep -qF 'client 127.0.0.1: 200 "GET /v1/elapsed/mail HTTP/1.1"' "$T/s1.err"
is "$(grep -c 'client 127\.0\.0\.1: 404 .*"GET /v1/elapsed/nosuch HTTP/1.1"' "$T/s1.err")" 1 \
    "refused request: one log line: client 127.0.0.1: 404 ...: \"GET /v1/elapsed/nosuch HTTP/1.1\""
is "$(grep -c 'client 127\.0\.0\.1: 405 .*"POST /v1/elapsed/mail HTTP/1.1"' "$T/s1.err")" 1 \
    "refused request: 405 logged"
# A serve of its own, where these are the first 404 and 400 from
# 127.0.0.1 in a minute, and so logged (the others of a kind are only
# counted: 33b-log-flood.sh).
S1U=$U
serve_start s1log "$MAIN" || bail "pollguard-serve (logging) did not start"
LPID=$SERVE_PID
tcp_ask 127.0.0.1 "$PORT" "GET /v1/elapsed/a$(printf '\001\033')[31mb HTTP/1.0${CR}${NL}${CR}${NL}"
assert "request line with control bytes: 400 or 404" test "$CODE" = 400 -o "$CODE" = 404
LCODE=$CODE
tcp_ask 127.0.0.1 "$PORT" "GET /x${CR}y HTTP/1.0${CR}${NL}${CR}${NL}"
assert "request line with a CR inside: 400 or 404" test "$CODE" = 400 -o "$CODE" = 404
[ "$CODE" != "$LCODE" ] && wait_for 3 grep -q '/x.*y HTTP/1.0' "$T/s1log.err"
wait_for 3 grep -q 'elapsed/a.*31mb HTTP/1.0' "$T/s1log.err"
if grep -q 'elapsed/a.*\[31mb HTTP/1.0' "$T/s1log.err" &&
    [ "$(grep -c 'elapsed/a.*\[31mb HTTP/1.0' "$T/s1log.err")" -eq 1 ]; then
	ok "request line with control bytes: logged on one line"
else
	not_ok "request line with control bytes: logged on one line"
	diag_file "$T/s1log.err" log
fi
if grep -qE 'elapsed/a(\\001|\\x01|\\\^A)(\\033|\\x1b|\\e|\\\^\[)\[31mb' "$T/s1log.err"; then
	ok "request line with control bytes: escaped in the log"
else
	not_ok "request line with control bytes: escaped in the log"
	diag "$(grep 'elapsed/a' "$T/s1log.err" | cat -v)"
fi
if LC_ALL=C grep -q '[[:cntrl:]]' "$T/s1.err" "$T/s1log.err"; then
	not_ok "no raw control bytes in the log"
	diag "$(LC_ALL=C grep '[[:cntrl:]]' "$T/s1.err" "$T/s1log.err" | cat -v | head -5)"
else
	ok "no raw control bytes in the log"
fi
serve_stop "$LPID" >/dev/null
U=$S1U PORT=$S1PORT

# --- 50 concurrent clients ---

cpids=()
for i in $(seq 1 50); do
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 \
	    "$U/v1/elapsed/mail" >"$T/cc.$i" 2>/dev/null &
	cpids+=($!)
done
for p in "${cpids[@]}"; do
	wait "$p"
done
is "$(cat "$T"/cc.* | grep -c '^200$')" 50 "50 concurrent curl clients: all 200"

# --- a second server on the same port: 71 ---

exit_is 71 "port in use: exit 71" timeout -k 2 10 "$SERVE" -c "$MAIN" -l "127.0.0.1:$S1PORT"

# --- config error at start: 78 ---

exit_is 78 "standalone, config error: exit 78" \
    timeout -k 2 10 "$SERVE" -v -c "$T/bad.conf" -l 127.0.0.1:0
err_has "$T/bad.conf:2: " "standalone, config error: names FILE:LINE"

# --- IPv6 ---

if ! grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
	skip "no IPv6 loopback address ::1 on this host" 6
elif serve_start s6 "$MAIN" -l '[::1]:0'; then
	ok "IPv6: started on [::1]"
	assert "IPv6: says listening on [::1]:PORT" \
	    grep -qxE "pollguard-serve: listening on \[::1\]:$PORT" "$T/s6.err"
	curl_get "http://[::1]:$PORT/v1/elapsed/mail"
	is "$CODE" 200 "IPv6: 200"
	age_ok "$BODY" 5000 "$T0" "IPv6: the age"
	wait_for 5 grep -q 'client ::1: 200' "$T/s6.err"
	assert "IPv6: logged as client ::1" grep -q 'client ::1: 200 "GET /v1/elapsed/mail HTTP/1.1"' "$T/s6.err"
	# the allow list against the socket's peer address
	mkconf "$T/allow6.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
allow = ::1, 10.0.0.0/8
EOF
	CONF=$MAIN
	if serve_start a6 "$T/allow6.conf" -l '[::1]:0'; then
		curl_get "http://[::1]:$PORT/v1/elapsed/mail"
		is "$CODE" 200 "allow ::1: a client on ::1 gets 200 (getpeername)"
	else
		not_ok "allow ::1: started"
	fi
else
	not_ok "IPv6: started on [::1]"
	skip "IPv6 server did not start" 5
fi
mkconf "$T/allow4.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
allow = ::1, 10.0.0.0/8
EOF
CONF=$MAIN
if serve_start a4 "$T/allow4.conf"; then
	curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail"
	is "$CODE" 403 "allow ::1, 10.0.0.0/8: a client on 127.0.0.1 gets 403"
	wait_for 5 grep -q 'client 127.0.0.1: 403' "$T/a4.err"
	assert "403 logged" grep -q 'client 127\.0\.0\.1: 403 ' "$T/a4.err"
else
	not_ok "allow list server started"
	skip "no server" 1
fi
# A refused client is answered when it connects, before it sends a byte,
# and its connection is closed at once (after the lingering close): it
# cannot hold one of the connection slots until the request deadline.
mkconf "$T/allow4t.conf" <<EOF
timeout = 30s
[cluster mail]
wait = 10m
[serve]
allow = 10.0.0.0/8
EOF
CONF=$MAIN
if serve_start a4t "$T/allow4t.conf"; then
	nfd=$(ls /proc/$SERVE_PID/fd | wc -l)
	t0=$(now_ms)
	: >"$T/ans"
	if exec {rfd}<>"/dev/tcp/127.0.0.1/$PORT"; then
		timeout 10 cat <&"$rfd" >"$T/ans" 2>/dev/null
		split_answer "$T/ans"
		is "$CODE" 403 "refused client, silent: 403 without sending a request"
		num_between "$(($(now_ms) - t0))" 0 3000 \
		    "refused client, silent: answered at once, not at the 30 s deadline"
		held() { [ "$(ls /proc/$SERVE_PID/fd | wc -l)" -le "$nfd" ]; }
		if wait_for 5 held; then
			ok "refused client, still connected: serve holds no slot for it"
		else
			not_ok "refused client, still connected: serve holds no slot for it"
			diag "$(ls -l /proc/$SERVE_PID/fd)"
		fi
		exec {rfd}>&-
	else
		not_ok "refused client: connected"
		skip "no connection" 2
	fi
	wait_for 5 grep -q 'client 127.0.0.1: 403' "$T/a4t.err"
	assert "refused at connect: logged as client 127.0.0.1: 403 Forbidden" \
	    grep -q 'client 127\.0\.0\.1: 403 Forbidden$' "$T/a4t.err"
else
	not_ok "allow list server started"
	skip "no server" 3
fi
mkconf "$T/allow4b.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
allow = 127.0.0.1
EOF
CONF=$MAIN
if serve_start a4b "$T/allow4b.conf"; then
	curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail"
	is "$CODE" 200 "allow 127.0.0.1: a client on 127.0.0.1 gets 200"
else
	not_ok "allow list server started"
fi

# --- credentials over TCP ---

if serve_start au "$T/auth.conf"; then
	curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail"
	is "$CODE" 401 "TCP: no credentials: 401"
	is "$(hdr WWW-Authenticate)" 'Basic realm="pollguard"' "TCP: 401: WWW-Authenticate"
	curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail" -u pg:wrong
	is "$CODE" 401 "TCP: wrong password: 401"
	curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail" -u pg:s3cret
	is "$CODE" 200 "TCP: right credentials: 200"
else
	not_ok "credentials server started"
	skip "no server" 3
fi

# --- deadlines: trickled and silent clients ---

mkconf "$T/t500.conf" <<EOF
timeout = 500ms
connect_timeout = 100ms
[cluster mail]
wait = 10m
EOF
CONF=$MAIN
if serve_start tmo "$T/t500.conf"; then
	TPORT=$PORT
	REQ="GET /v1/elapsed/mail HTTP/1.0${CR}${NL}${CR}${NL}"
	exec {fd}<>"/dev/tcp/127.0.0.1/$TPORT"
	s=$(now_ms)
	(
		for ((i = 0; i < ${#REQ}; i++)); do
			printf '%s' "${REQ:i:1}" >&"$fd" || exit
			sleep 0.1
		done
	) 2>/dev/null &
	wpid=$!
	timeout 10 cat <&"$fd" >"$T/ans" 2>/dev/null
	el=$(($(now_ms) - s))
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	exec {fd}>&-
	split_answer "$T/ans"
	is "$CODE" 408 "a request trickled a byte per 100ms (3.4 s), timeout 500ms: 408"
	num_between "$el" 0 3000 "trickled request dropped within 3 s"

	exec {fd}<>"/dev/tcp/127.0.0.1/$TPORT"
	s=$(now_ms)
	timeout 10 cat <&"$fd" >"$T/ans" 2>/dev/null
	el=$(($(now_ms) - s))
	exec {fd}>&-
	split_answer "$T/ans"
	num_between "$el" 0 3000 "a client that sends nothing: dropped within 3 s"
	if [ ! -s "$T/ans" ] || [ "$CODE" = 408 ]; then
		ok "a client that sends nothing: closed (or 408)"
	else
		not_ok "a client that sends nothing: closed (or 408)"
		diag_file "$T/ans" answer
	fi
	wait_for 5 grep -q 'client 127.0.0.1: 408' "$T/tmo.err"
	assert "408 logged" grep -q 'client 127\.0\.0\.1: 408' "$T/tmo.err"
	curl_get "http://127.0.0.1:$TPORT/v1/elapsed/mail"
	is "$CODE" 200 "after the slow clients: 200"
else
	not_ok "timeout server started"
	skip "no server" 5
fi

# --- the connection limit: max_connections, and the default ---

NFD=$(ulimit -n)
mkconf "$T/t10.conf" <<EOF
timeout = 20s
[cluster mail]
wait = 10m
[serve]
max_connections = 40
backlog = 7
EOF
mkconf "$T/t10d.conf" <<EOF
timeout = 20s
[cluster mail]
wait = 10m
EOF
CONF=$MAIN
# queue_is PORT WANT DESC: the listen queue of the socket listening on
# PORT is WANT long, as ss reports it (Send-Q).
queue_is()
{
	if command -v ss >/dev/null; then
		is "$(ss -Hltn "sport = :$1" 2>/dev/null |
		    awk 'NR == 1 { print $3 }')" "$2" "$3"
	else
		skip "no ss(8)" 1
	fi
}
# idle_open PORT N: open N connections to 127.0.0.1:PORT and send
# nothing; FDS, their descriptors, one per connection made. idle_close:
# close them.
idle_open()
{
	local i fd
	FDS=()
	for ((i = 0; i < $2; i++)); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$1" || break
		FDS+=("$fd")
	done
}
idle_close()
{
	local fd
	for fd in "${FDS[@]}"; do
		exec {fd}>&-
	done
}
if [ "$NFD" != unlimited ] && [ "$NFD" -lt 700 ]; then
	skip "ulimit -n is $NFD: too few descriptors for 300 connections" 9
elif serve_start lim "$T/t10.conf"; then
	LPORT=$PORT LIMPID=$SERVE_PID
	queue_is "$LPORT" 7 "backlog = 7: the listen queue is 7 long (ss)"
	idle_open "$LPORT" 50
	is "${#FDS[@]}" 50 "50 idle connections opened"
	curl_get "http://127.0.0.1:$LPORT/v1/elapsed/mail"
	is "$CODE" 503 "max_connections = 40, 50 open: curl gets 503"
	line=
	IFS= read -r -t 5 line <&"${FDS[49]}"
	line=${line%"$CR"}
	if [[ $line =~ ^HTTP/1\.[01]\ 503\  ]]; then
		ok "the 50th idle connection got a 503 at once"
	else
		not_ok "the 50th idle connection got a 503 at once"
		diag "read: '$(printf %s "$line" | cat -v)'"
	fi
	idle_close
	wait_for 10 eval 'curl_get "http://127.0.0.1:$LPORT/v1/elapsed/mail"; [ "$CODE" = 200 ]'
	is "$CODE" 200 "connections closed: 200 again"
	assert "503 logged with the limit" grep -q 'client 127\.0\.0\.1: 503 Service Unavailable (40 connections open)' "$T/lim.err"
	serve_stop "$LIMPID" >/dev/null
	# The defaults: 300 idle clients do not crowd a peer out.
	if serve_start limd "$T/t10d.conf"; then
		LPORT=$PORT LIMPID=$SERVE_PID
		q=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)
		[ "$q" -gt 1024 ] && q=1024
		queue_is "$LPORT" "$q" "default backlog: 1024, or somaxconn when lower ($q)"
		idle_open "$LPORT" 300
		is "${#FDS[@]}" 300 "default limit: 300 idle connections opened"
		curl_get "http://127.0.0.1:$LPORT/v1/elapsed/mail"
		is "$CODE" 200 "default limit (1024): with 300 idle connections open, curl gets 200"
		idle_close
		serve_stop "$LIMPID" >/dev/null
	else
		not_ok "server with the default limits started"
		skip "no server" 2
	fi
else
	not_ok "limit server started"
	skip "no server" 8
fi

# --- pidfile, SIGTERM ---

if serve_start pf "$MAIN" -p "$T/serve.pid"; then
	is "$(tr -d ' \n' <"$T/serve.pid" 2>/dev/null)" "$SERVE_PID" "-p: pidfile holds the PID"
	exit_is 73 "second serve on the same pidfile: exit 73" \
	    timeout -k 2 10 "$SERVE" -c "$MAIN" -p "$T/serve.pid" -l 127.0.0.1:0
	err_has "$SERVE_PID" "second serve: names the PID holding the pidfile"
	is "$(tr -d ' \n' <"$T/serve.pid" 2>/dev/null)" "$SERVE_PID" "pidfile untouched by the second serve"
	serve_stop "$SERVE_PID"
	is "$?" 0 "SIGTERM: exit 0"
	assert "SIGTERM: pidfile removed" test ! -e "$T/serve.pid"
else
	not_ok "pidfile server started"
	skip "no server" 5
fi

# SIGTERM lets an open connection finish.
mkconf "$T/t5.conf" <<EOF
timeout = 5s
[cluster mail]
wait = 10m
EOF
CONF=$MAIN
if serve_start term "$T/t5.conf"; then
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"
	(printf 'GET /v1/elapsed/mail HTTP/1.0\r\n' >&"$fd") 2>/dev/null
	sleep 0.2
	kill -TERM "$SERVE_PID"
	sleep 0.3
	(printf '\r\n' >&"$fd") 2>/dev/null
	timeout 10 cat <&"$fd" >"$T/ans" 2>/dev/null
	exec {fd}>&-
	split_answer "$T/ans"
	is "$CODE" 200 "SIGTERM during a request: the request is still answered"
	wait_exit "$SERVE_PID" 10
	is "$?" 0 "SIGTERM with an open connection: exit 0"
	curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail" --max-time 2
	is "$CODE" 000 "after exit: nothing answers"
else
	not_ok "server started"
	skip "no server" 2
fi

# --- SIGHUP ---

HCONF=$T/hup.conf
mkconf "$HCONF" <<EOF
[cluster mail]
wait = 10m
EOF
CONF=$MAIN
if serve_start hup "$HCONF"; then
	HPID=$SERVE_PID
	HPORT=$PORT
	printf '[pollguard]\nnode = testnode\nstate = %s\n[cluster mail]\nwait = 10m\n[cluster newc]\nwait = soon\n' \
	    "$STATE" >"$T/hup.new"
	chmod 600 "$T/hup.new"
	mv "$T/hup.new" "$HCONF"
	kill -HUP "$HPID"
	if wait_for 10 grep -q "reload failed" "$T/hup.err"; then
		ok "SIGHUP, broken config: logs reload failed (-v: stderr)"
	else
		not_ok "SIGHUP, broken config: logs reload failed (-v: stderr)"
		diag_file "$T/hup.err" stderr
	fi
	if grep -qF "reload failed, keeping the old config: $HCONF:7: " "$T/hup.err"; then
		ok "reload failed: 'reload failed, keeping the old config: FILE:LINE: msg'"
	else
		not_ok "reload failed: 'reload failed, keeping the old config: FILE:LINE: msg'"
		diag_file "$T/hup.err" stderr
	fi
	assert "SIGHUP, broken config: still running" _pg_alive "$HPID"
	curl_get "http://127.0.0.1:$HPORT/v1/elapsed/mail"
	is "$CODE" 200 "SIGHUP, broken config: still answers with the old config"
	curl_get "http://127.0.0.1:$HPORT/v1/elapsed/newc"
	is "$CODE" 404 "SIGHUP, broken config: the new cluster is not there"
	# A listen key, which -l (serve_start's) overrides: no warning.
	printf '[pollguard]\nnode = testnode\nstate = %s\n[cluster mail]\nwait = 10m\n[cluster newc]\nwait = 20s\n[serve]\nlisten = 127.0.0.1:1\n' \
	    "$STATE" >"$T/hup.new"
	chmod 600 "$T/hup.new"
	mv "$T/hup.new" "$HCONF"
	kill -HUP "$HPID"
	wait_for 10 eval 'curl_get "http://127.0.0.1:$HPORT/v1/elapsed/newc"; [ "$CODE" = 200 ]'
	is "$CODE" 200 "SIGHUP, good config: the new cluster answers"
	is "$BODY" never "SIGHUP, good config: never"
	curl_get "http://127.0.0.1:$HPORT/metrics"
	num_is "$(metric newc wait_seconds "$T/body")" 20 "SIGHUP, good config: in /metrics"
	if grep -q "listen, backlog" "$T/hup.err"; then
		not_ok "SIGHUP, listen key added under -l: no 'takes effect' warning"
		diag_file "$T/hup.err" stderr
	else
		ok "SIGHUP, listen key added under -l: no 'takes effect' warning"
	fi
	serve_stop "$HPID"
	is "$?" 0 "SIGTERM after SIGHUPs: exit 0"
else
	not_ok "SIGHUP server started"
	skip "no server" 9
fi

# --- without -v: nothing on stderr ---

# start_quiet NAME CONF: a standalone serve without -v on a free port
# (free_port; another when taken); QPORT, QPID. 1 when it did not start.
start_quiet()
{
	local try p
	for try in 1 2 3 4 5; do
		free_port || return 1
		p=$FREE_PORT
		bg "$1" "$SERVE" -c "$2" -l "127.0.0.1:$p"
		QPID=$BGPID
		if wait_for 10 eval 'port_listening $p || ! _pg_alive $QPID' &&
		    _pg_alive "$QPID"; then
			QPORT=$p
			return 0
		fi
		wait_exit "$QPID" 5 >/dev/null
	done
	return 1
}
if start_quiet quiet "$MAIN"; then
	curl_get "http://127.0.0.1:$QPORT/v1/elapsed/mail"
	is "$CODE" 200 "without -v: 200"
	curl_get "http://127.0.0.1:$QPORT/v1/elapsed/nosuch"
	is "$CODE" 404 "without -v: 404"
	sleep 0.2
	file_empty "$T/quiet.err" "without -v, stderr not a terminal: nothing on stderr"
	file_empty "$T/quiet.out" "standalone: nothing on stdout"
	serve_stop "$QPID"
	is "$?" 0 "without -v: SIGTERM, exit 0"
else
	not_ok "quiet server started"
	diag_file "$T/quiet.err"
	skip "no server" 4
fi

# --- listen from the config; SIGHUP changing it; SIGINT ---

LCONF=$T/listen2.conf
mkconf "$LCONF" <<EOF
[cluster mail]
wait = 10m
[serve]
listen = 127.0.0.1:0
EOF
CONF=$MAIN
bg lc "$SERVE" -v -c "$LCONF"
LPID=$BGPID
if listen_port lc LPORT; then
	ok "listen in the config, no -i, no -l: standalone"
	curl_get "http://127.0.0.1:$LPORT/v1/elapsed/mail"
	is "$CODE" 200 "listen from the config: 200"
	sed -i 's/^listen = .*/listen = 127.0.0.1:1/' "$LCONF"
	n=$(wc -l <"$T/lc.err")
	kill -HUP "$LPID"
	wait_for 10 eval '[ "$(wc -l <"$T/lc.err")" -gt "$n" ]'
	sleep 0.2
	if tail -n +$((n + 1)) "$T/lc.err" | grep -qi listen; then
		ok "SIGHUP, listen changed: a log line says so"
	else
		not_ok "SIGHUP, listen changed: a log line says so"
		diag_file "$T/lc.err" stderr
	fi
	curl_get "http://127.0.0.1:$LPORT/v1/elapsed/mail"
	is "$CODE" 200 "SIGHUP, listen changed: still on the old address"
	kill -INT "$LPID"
	wait_exit "$LPID" 10
	is "$?" 0 "SIGINT: exit 0"
else
	not_ok "listen in the config, no -i, no -l: standalone"
	skip "no server" 4
fi

is "$(snapshot "$STATE")" "$BEFORE" "after all the standalone requests: state directory unchanged"

# --- run_as ---

if [ "$(id -u)" -ne 0 ]; then
	# Not root: run_as is ignored.
	mkconf "$T/runas.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
run_as = root
EOF
	CONF=$MAIN
	if serve_start ra "$T/runas.conf"; then
		ok "not root, run_as = root: ignored, started"
		is "$(awk '/^Uid:/ { print $3 }' "/proc/$SERVE_PID/status")" "$(id -u)" \
		    "not root, run_as = root: still our user"
		curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail"
		is "$CODE" 200 "not root, run_as = root: answers 200"
	else
		not_ok "not root, run_as = root: ignored, started"
		skip "no server" 2
	fi
	skip "not root: cannot switch to another user" 4
# daemon stands for a user of pollguard's own: nobody is refused.
elif ! getent passwd daemon >/dev/null; then
	skip "no user daemon" 7
else
	NUID=$(id -u daemon)
	NGID=$(id -g daemon)
	mkconf "$T/runas.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
run_as = daemon
EOF
	CONF=$MAIN
	chmod 711 "$T"
	if serve_start ra "$T/runas.conf"; then
		st=/proc/$SERVE_PID/status
		is "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")" \
		    "$NUID $NUID $NUID $NUID" "run_as daemon: Uid of daemon (real, effective, saved, fs)"
		is "$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "$st")" \
		    "$NGID $NGID $NGID $NGID" "run_as daemon: Gid of daemon"
		assert "run_as daemon: no root group left" \
		    bash -c '! grep -qE "^Groups:.*\<0\>" "$1"' _ "$st"
		curl_get "http://127.0.0.1:$PORT/v1/elapsed/mail"
		is "$CODE" 200 "run_as daemon: still answers 200"
		age_ok "$BODY" 5000 "$T0" "run_as daemon: reads the record"
		grep -q "running as root" "$T/ra.err" &&
		    not_ok "run_as daemon: warned of running as root" ||
		    ok "run_as daemon: no warning of root"
	else
		not_ok "run_as server started"
		skip "no server" 5
	fi
	grep -q "running as root: set run_as = pollguard (a user of its own) in \[serve\] of $MAIN" \
	    "$T/s1.err" && ok "root without run_as: warned, naming the fix" ||
	    { not_ok "root without run_as: no warning"; diag_file "$T/s1.err" stderr; }
	chmod 700 "$T"
fi

# A run_as that cannot be had: standalone refuses to start; in inetd mode
# the client still gets an answer (500), as for a broken config.
if [ "$(id -u)" -ne 0 ]; then
	skip "not root: run_as is ignored" 4
else
	mkconf "$T/nouser.conf" <<EOF
[cluster mail]
wait = 10m
[serve]
run_as = pollguard-no-such-user
EOF
	CONF=$MAIN
	printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' >"$T/nu.req"
	timeout -k 5 "$PG_CMD_TIMEOUT" "$SERVE" -c "$T/nouser.conf" -i \
	    <"$T/nu.req" >"$T/nu.resp" 2>"$T/nu.err"
	is "$?" 67 "run_as a missing user, inetd mode: exit 67 (EX_NOUSER)"
	is "$(head -n 1 "$T/nu.resp" | tr -d '\r')" "HTTP/1.1 500 Internal Server Error" \
	    "run_as a missing user, inetd mode: the client gets 500"
	exit_is 67 "run_as a missing user, standalone: exit 67" \
	    "$SERVE" -c "$T/nouser.conf" -l 127.0.0.1:0
	err_has "no user 'pollguard-no-such-user'" \
	    "run_as a missing user, standalone: the message names the user"
fi

serve_stop "$S1PID"
is "$?" 0 "main server: SIGTERM, exit 0"

finish
