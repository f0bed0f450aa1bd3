#!/bin/bash
# SPDX-License-Identifier: ISC
# TLS in front of pollguard-serve with stunnel, as etc/stunnel/pollguard.conf
# shows it: the example itself is run, with only its ports, paths and user
# replaced, so a broken example breaks this test. A throwaway CA signs the
# server's certificate. pollguard-check reads the peer's elapsed time
# through stunnel with the CA as cafile, and the [serve] credentials pass
# inside TLS; without the CA, with another CA, or with a host the
# certificate does not name, it refuses the peer: exit 76.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

EXAMPLE=$PG_TOP/etc/stunnel/pollguard.conf
STUNNEL=$(command -v stunnel4 || command -v stunnel)
if [ -z "$STUNNEL" ] || ! command -v openssl >/dev/null 2>&1 ||
    ! command -v ss >/dev/null 2>&1; then
	skip "stunnel4, openssl or ss (iproute2) is not installed (scripts/deps installs them)" 18
	finish
fi

# --- certificates -----------------------------------------------------------

# ca NAME: a self-signed CA, $T/NAME.crt and $T/NAME.key.
ca()
{
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
	    -subj "/CN=pollguard test $1" -keyout "$T/$1.key" \
	    -out "$T/$1.crt" >>"$T/openssl.log" 2>&1
}
if ca ca && ca otherca &&
    openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
    -keyout "$T/srv.key" -out "$T/srv.csr" >>"$T/openssl.log" 2>&1 &&
    printf '%s\n' 'subjectAltName = IP:127.0.0.1' 'basicConstraints = CA:FALSE' \
    'extendedKeyUsage = serverAuth' >"$T/srv.ext" &&
    openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" \
    -CAcreateserial -days 2 -extfile "$T/srv.ext" -out "$T/srv.crt" \
    >>"$T/openssl.log" 2>&1; then
	ok "a CA, another CA, and a server certificate for IP 127.0.0.1 signed by the first"
else
	not_ok "a CA, another CA, and a server certificate for IP 127.0.0.1 signed by the first"
	diag_file "$T/openssl.log" openssl
	skip "no certificates" 17
	finish
fi
chmod 600 "$T"/*.key

# --- pollguard-serve, standalone on loopback, with credentials ---------------

# A handshake that loads the system's CAs takes seconds in a sanitizer
# build at load: the cluster's timeout (the same on every node) is 2 s,
# 8 under ASan or memcheck.
TO=$((2 * PG_SLOW))
mkconf <<EOF
timeout = ${TO}s
[cluster mail]
wait = 10m
[serve]
allow = 127.0.0.1
user = pg
password = s3cret
EOF
"$PGSTATE" -c "$CONF" write mail 5000
T0=$(now_ms)
serve_start s "$CONF" || bail "pollguard-serve did not start"
SPORT=$PORT

# --- stunnel with the example -------------------------------------------------

# Replace what names this host: the port to accept on (0: the kernel picks
# one), serve's port, the certificate and key; drop the user switch when
# not root. Each replacement must have matched a line of the example.
sed -e 's|^accept = 7710$|accept = 127.0.0.1:0|' \
    -e "s|^connect = 127.0.0.1:7709\$|connect = 127.0.0.1:$SPORT|" \
    -e "s|^cert = /etc/stunnel/pollguard.crt\$|cert = $T/srv.crt|" \
    -e "s|^key = /etc/stunnel/pollguard.key\$|key = $T/srv.key|" \
    "$EXAMPLE" >"$T/stunnel.conf"
[ "$(id -u)" -eq 0 ] || sed -i '/^set[ug]id = /d' "$T/stunnel.conf"
missing=
for l in 'accept = 127.0.0.1:0' "connect = 127.0.0.1:$SPORT" "cert = $T/srv.crt" \
    "key = $T/srv.key" 'foreground = yes'; do
	grep -qxF "$l" "$T/stunnel.conf" || missing="$missing [$l]"
done
is "$missing" "" "the example has the accept, connect, cert, key and foreground lines the test replaces"

bg stunnel "$STUNNEL" "$T/stunnel.conf"
STPID=$BGPID
TPORT=
# stunnel_port: the port the stunnel process listens on.
stunnel_port()
{
	TPORT=$(ss -Hltnp 2>/dev/null | grep "pid=$STPID," |
	    awk '{ n = split($4, a, ":"); print a[n] }' | head -n 1)
	[[ $TPORT =~ ^[0-9]+$ ]]
}
if wait_for 10 stunnel_port; then
	ok "stunnel runs the example, listening on 127.0.0.1:$TPORT"
else
	not_ok "stunnel runs the example"
	diag_file "$T/stunnel.err" "stunnel stderr"
	skip "no stunnel" 15
	finish
fi
if [ "$(id -u)" -eq 0 ]; then
	is "$(ps -o user= -p "$STPID" | tr -d ' ')" stunnel4 "stunnel runs as stunnel4 (setuid in the example)"
else
	skip "not root: setuid left out"
fi

# --- pollguard-check through TLS ------------------------------------------------

# peerconf NAME URL [LINES]: $T/NAME.conf, node a, one peer s at URL with
# LINES added to its section, cluster mail (unreachable = skip, so that
# exit 3 means "not reached" and 76 "refused").
peerconf()
{
	{
		printf '[pollguard]\nnode = a\nstate = %s\ntimeout = %ss\n' \
		    "$T/a.state" "$TO"
		printf '[peer s]\nurl = %s\n' "$2"
		[ -z "${3:-}" ] || printf '%s\n' "$3"
		printf '[cluster mail]\nwait = 10m\nunreachable = skip\n'
	} >"$T/$1.conf"
	chmod 600 "$T/$1.conf"
}
URL=https://127.0.0.1:$TPORT/
peerconf good "$URL" "cafile = $T/ca.crt
user = pg
password = s3cret"
peerconf noca "$URL" "user = pg
password = s3cret"
peerconf other "$URL" "cafile = $T/otherca.crt
user = pg
password = s3cret"
peerconf host "https://localhost:$TPORT/" "cafile = $T/ca.crt
user = pg
password = s3cret"
peerconf badpw "$URL" "cafile = $T/ca.crt
user = pg
password = wrong"

exit_is 1 "https with the CA as cafile: the peer's answer read (active: exit 1)" \
    "$CHECK" -nv -c "$T/good.conf" mail
ms=$(sed -n 's/.*mail: s: \([0-9]*\) ms: active .*/\1/p' "$T/err")
age_ok "$ms" 5000 "$T0" "the elapsed time is serve's record, 5000 ms old (read ${ms:-nothing})"
wait_for 5 grep -q 'client 127.0.0.1: 200 "GET /v1/status/mail ' "$T/s.err"
assert "serve answered it, from 127.0.0.1 (stunnel), with the credentials" \
    grep -q 'client 127.0.0.1: 200 "GET /v1/status/mail ' "$T/s.err"

# Loading the system's CAs took longer than even 8 s once, in a loaded
# sanitizer build. There a handshake that timed out (exit 3, saying so)
# is accepted; the check runs once, so that a retry cannot time out.
want=76
[ "$PG_SLOW" -gt 1 ] && want='76|3'
exit_is "$want" "no cafile (the system's CAs): certificate refused, exit 76" \
    "$CHECK" -nv -c "$T/noca.conf" mail
if [ "$RC" = 3 ]; then
	err_like '\<s\>.*(timeout|timed out)' "no cafile: exit 3 only for a handshake timed out (${TO}s) in this slow build"
else
	err_like '\<s\>.*(certificate|SSL)' "no cafile: the error names the peer and the certificate"
fi
exit_is 76 "another CA as cafile: refused, exit 76" "$CHECK" -nv -c "$T/other.conf" mail
err_like '\<s\>.*(certificate|SSL)' "another CA: the error names the peer and the certificate"
exit_is 76 "url host localhost, certificate for 127.0.0.1 only: refused, exit 76" \
    "$CHECK" -nv -c "$T/host.conf" mail
err_like "\\<s\\>.*(certificate|SSL|localhost|name)" "wrong host: the error names the peer and why"
exit_is 76 "through TLS, a wrong password: 401, exit 76" "$CHECK" -nv -c "$T/badpw.conf" mail
err_has "401" "wrong password: the error says 401"

# The go path too: a peer idle for longer than wait, asked twice (claim
# and settle), through TLS.
"$PGSTATE" -c "$CONF" write mail 700000
exit_is 0 "peer idle 700 s (wait 10m): go, claimed, settled through TLS" \
    "$CHECK" -c "$T/good.conf" mail
err_empty "go: nothing on stderr"

kill -TERM "$STPID"
wait_exit "$STPID" 10 >/dev/null
serve_stop "$SERVE_PID"
is "$?" 0 "serve: SIGTERM, exit 0"

finish
