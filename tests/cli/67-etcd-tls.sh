#!/bin/bash
# SPDX-License-Identifier: ISC
# The etcd backend over TLS and with etcd's authentication, against
# single-member etcds on loopback (tests/etcd.sh) and certificates made
# by the test (a CA, a server certificate for IP 127.0.0.1, a client
# certificate, and another CA with a client certificate of its own).
#
# s: https, server certificate only. With the CA as cafile the checks
#    work; without a cafile, or with the other CA, the endpoint is not
#    trusted: refused with exit 76, as a peer whose certificate does not
#    verify is (the TLS error named), never a go.
# m: https with --client-cert-auth. cafile, cert and key work; a client
#    certificate of the other CA, or none, is refused by etcd with a TLS
#    alert: 76, as pollguard-check(1) says, whether the alert or the
#    reset of the closed connection reaches the client first (TLS 1.3).
# r: a TLS server that completes the handshake, takes no certificate and
#    closes (a reset, as a network fault would give, and no alert): 3,
#    not a refusal.
# p: http with etcd's auth on (user pollguard, a role on the prefix).
#    The right password works; a wrong one, none, or a prefix the role
#    does not cover is a refused login: 76.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/etcd.sh"

etcd_need 30
etcd_certs || bail "openssl could not make the certificates"
ok "a CA, a server certificate (IP:127.0.0.1), a client certificate, another CA and its client certificate"

CLUSTERS='[cluster mail]
backend = etcd
wait = 60s'
TLS=$ETCD_TLS

# --- s: https, the server's certificate --------------------------------------

ETCD_SCHEME=https ETCD_CLIENT_CERT_AUTH=0
etcd_cluster s || bail "etcd s (https) did not start"
ok "etcd s serves https on $(etcd_endpoints)"
URL_S=$(etcd_endpoints)
etcd_mkconf s1 "$T/s1.conf" <<<"$CLUSTERS"
etcd_mkconf s2 "$T/s2.conf" <<<"$CLUSTERS"
exit_is 0 "cafile is the CA: s1's check goes" "$CHECK" -c "$T/s1.conf" mail
exit_is 1 "cafile is the CA: s2's check skips (s1 holds the key)" \
    "$CHECK" -v -c "$T/s2.conf" mail
err_has s1 "-v names the holder, s1"
exit_is 0 "s1: -r releases over https" "$TOUCH" -c "$T/s1.conf" -r mail
grep -v '^cafile' "$T/s2.conf" >"$T/s-nocafile.conf"
chmod 600 "$T/s-nocafile.conf"
exit_is 76 "no cafile: the test CA is not trusted, refused (76)" \
    "$CHECK" -c "$T/s-nocafile.conf" mail
err_has "$URL_S" "... the error names the endpoint"
sed "s|^cafile = .*|cafile = $TLS/otherca.crt|" "$T/s2.conf" \
    >"$T/s-otherca.conf"
chmod 600 "$T/s-otherca.conf"
exit_is 76 "cafile is another CA: refused (76)" \
    "$CHECK" -c "$T/s-otherca.conf" mail
err_like 'certificate|SSL|TLS' "... the error says what TLS said"
exit_is 0 "the refusals claimed nothing: s2 goes" "$CHECK" -c "$T/s2.conf" mail

# --- m: https, client certificates required ----------------------------------

ETCD_CLIENT_CERT_AUTH=1
etcd_cluster m || bail "etcd m (https, client-cert-auth) did not start"
ok "etcd m requires client certificates on $(etcd_endpoints)"
etcd_mkconf m1 "$T/m1.conf" "cert = $TLS/client.crt" \
    "key = $TLS/client.key" <<<"$CLUSTERS"
etcd_mkconf m2 "$T/m2.conf" "cert = $TLS/client.crt" \
    "key = $TLS/client.key" <<<"$CLUSTERS"
exit_is 0 "cert and key of the CA: m1's check goes" "$CHECK" -c "$T/m1.conf" mail
exit_is 1 "cert and key of the CA: m2's check skips" "$CHECK" -c "$T/m2.conf" mail
etcd_mkconf m3 "$T/m3.conf" <<<"$CLUSTERS"
exit_is 76 "no client certificate: etcd refuses the handshake (76)" \
    "$CHECK" -c "$T/m3.conf" mail
err_like 'TLS alert.*none is configured' "... a TLS alert, and no cert configured"
etcd_mkconf m4 "$T/m4.conf" "cert = $TLS/otherclient.crt" \
    "key = $TLS/otherclient.key" <<<"$CLUSTERS"
exit_is 76 "a client certificate of another CA: etcd refuses it, 76" \
    "$CHECK" -c "$T/m4.conf" mail
err_like 'TLS alert .*client certificate$' "... the TLS alert named"
exit_is 0 "m1: -r releases with its certificate" "$TOUCH" -c "$T/m1.conf" -r mail
exit_is 0 "m2 goes once m1 released" "$CHECK" -c "$T/m2.conf" mail

# --- r: a TLS server that drops the connection after the handshake ------------

free_port || bail "no free port"
RPORT=$FREE_PORT
bg socat-r socat "OPENSSL-LISTEN:$RPORT,bind=127.0.0.1,reuseaddr,fork,cert=$TLS/server.crt,key=$TLS/server.key,verify=0" SYSTEM:true
wait_for 10 port_listening "$RPORT" || bail "socat did not listen on $RPORT"
sed "s|^endpoints = .*|endpoints = https://127.0.0.1:$RPORT|" "$T/m1.conf" \
    >"$T/r.conf"
chmod 600 "$T/r.conf"
exit_is 3 "a connection closed after the handshake, no alert: unreachable (3)" \
    "$CHECK" -c "$T/r.conf" mail
err_lacks 'TLS alert' "... and not called a refusal"
stop_pids "$BGPID"

# --- p: etcd's user/password auth ---------------------------------------------

ETCD_SCHEME=http ETCD_CLIENT_CERT_AUTH=0
etcd_cluster p || bail "etcd p did not start"
etcd_auth || bail "etcd p: auth enable failed"
ok "etcd p has auth on: root, user $ETCD_USER with readwrite on $ETCD_PREFIX"
URL_P=$(etcd_endpoints)
AUTH=("user = $ETCD_USER" "password = $ETCD_PASSWORD")
etcd_mkconf p1 "$T/p1.conf" "${AUTH[@]}" <<<"$CLUSTERS"
etcd_mkconf p2 "$T/p2.conf" "${AUTH[@]}" <<<"$CLUSTERS"
exit_is 0 "the right password: p1's check goes" "$CHECK" -c "$T/p1.conf" mail
exit_is 1 "the right password: p2's check skips" "$CHECK" -c "$T/p2.conf" mail
WRONG=wrong-$RANDOM$RANDOM
etcd_mkconf p3 "$T/p3.conf" "user = $ETCD_USER" "password = $WRONG" \
    <<<"$CLUSTERS"
exit_is 76 "a wrong password: a refused login (76)" "$CHECK" -c "$T/p3.conf" mail
err_has "$URL_P" "... the error names the endpoint"
err_lacks "$WRONG" "... and does not show the password"
etcd_mkconf p4 "$T/p4.conf" <<<"$CLUSTERS"
exit_is 76 "no user and password on an etcd with auth: refused (76)" \
    "$CHECK" -c "$T/p4.conf" mail
ETCD_PREFIX=/elsewhere/ etcd_mkconf p5 "$T/p5.conf" "${AUTH[@]}" <<<"$CLUSTERS"
exit_is 76 "the right password, a prefix the role does not cover: 76" \
    "$CHECK" -c "$T/p5.conf" mail
finish
