#!/bin/bash
# SPDX-License-Identifier: ISC
# A caching gateway (issue 32, item 5). Node a reaches b through
# tests/pathproxy -c, a reverse proxy that keeps every answer it routed
# and answers the same path from its copy, as a gateway that ignores
# Cache-Control: no-store would. The cache is filled while b is idle
# (by a's own dry run, so the copy carries an earlier request's nonce);
# then b goes and runs a job, and a checks. Before 0.5 both of a's
# rounds were answered from the copy, b read as idle, and a went beside
# b's job (8 of 8 rounds in the field). Now every request carries a new
# Pollguard-Nonce that the serve echoes, and a copy's nonce is not the
# request's: a refuses (exit 76) naming b and the cache, every round.
# A copy without a nonce, of a serve of 0.5 or later (asked without the
# field, by curl through the gateway), is refused too. A 0.4.0 serve
# (built from git) behind the same proxy echoes nothing: its answers are
# read as before, fresh or copied (a cache in front of it cannot be
# told, doc/PROTOCOL.md); and a 0.4.0 check reads the new serve.
#
# PG_CACHE_ROUNDS: rounds (4).
. "${PG_TOP:-.}/tests/lib.sh"

ROUNDS=${PG_CACHE_ROUNDS:-4}
OLDREV=9c923c0		# the 0.4.0 release
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "PG_CACHE_ROUNDS must be a number"
PROXY=$PG_BUILD/tests/pathproxy
[ -x "$PROXY" ] || bail "$PROXY is not built (make $PROXY)"
command -v curl >/dev/null 2>&1 || bail "curl is not installed"

fleet_start "" a b
mkdir -m 700 "$T/cache"
bg pp "$PROXY" -v -c "$T/cache" -a / -l 127.0.0.1:0 \
    "127.0.0.1:${FLEET_PORT[b]}"
listen_port pp PP || bail "pathproxy did not start"
sed -i "/^\[peer b\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PP/|" \
    "$T/a.conf"
grep -q "127.0.0.1:$PP/" "$T/a.conf" || bail "a's config does not name the proxy"
ok "serves a, b; a asks b through a caching proxy on :$PP"

# The proxy does cache: a second answer is the first one's copy.
n=0123456789abcdef0123456789abcdef
curl -s -H "Pollguard-Nonce: $n" "http://127.0.0.1:$PP/v1/status/mail" \
    >"$T/first"
curl -s -H "Pollguard-Nonce: fedcba9876543210fedcba9876543210" \
    "http://127.0.0.1:$PP/v1/status/mail" >"$T/second"
assert "the proxy answers from its copy, nonce and all" \
    grep -q "^nonce $n" "$T/second"
direct=$(curl -s -H "Pollguard-Nonce: $n" \
    "http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail")
echo "$direct" >"$T/direct"
assert "b's serve echoes the request's nonce" \
    grep -q "^nonce $n" "$T/direct"

cached_rounds status
is "$WENT" 0 "a never went beside b's job ($ROUNDS rounds through the cache)"
is "$REFUSED" "$ROUNDS" "a refused each round (exit 76), naming b and the cache"
diag_file "$T/a.out" "a's last words"

# A copy without a nonce: b's status asked through the gateway without
# the field (curl), b's version said to be 0.5.0 in it (this branch's
# VERSION may still be 0.4.0; the Content-Length stays true).
rm -f "$T/cache"/* "$T/a.state/mail" "$T/b.state/mail"
code=$(curl -s -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:$PP/v1/status/mail")
is "$code" 200 "curl through the gateway, no nonce: 200"
entry=$(proxy_kept "$T/cache" status)
[ -n "$entry" ] || bail "the proxy kept no copy of b's status"
if grep -q '^nonce' "$entry"; then
	not_ok "... and the copy has no nonce"
else
	ok "... and the copy has no nonce"
fi
awk 'BEGIN { RS = "\r\n\r\n"; ORS = "" } NR == 1 { head = $0; next }
    { body = body (NR > 2 ? RS : "") $0 }
    END { sub(/\nversion [^\n]*\n/, "\nversion 0.5.0\n", body)
	sub(/Content-Length: [0-9]+/, "Content-Length: " length(body), head)
	print head "\r\n\r\n" body }' "$entry" >"$T/copy" &&
    mv "$T/copy" "$entry"
assert "the copy says version 0.5.0" grep -qx 'version 0.5.0' "$entry"
exit_is 76 "a, b's copy of version 0.5.0 without a nonce: exit 76" \
    "$CHECK" -c "$T/a.conf" mail
err_like 'peer b .*from a cache, or through a proxy that drops the Pollguard-Nonce field: a 0\.5\.0 serve' \
    "... naming b and the cache"
assert "a did not claim" test ! -e "$T/a.state/mail"

# --- a 0.4.0 serve behind the same proxy ------------------------------
if ! command -v git >/dev/null 2>&1 ||
    ! git -C "$PG_TOP" cat-file -e "$OLDREV^{commit}" 2>/dev/null; then
	skip "git or commit $OLDREV (0.4.0) not available: not a git checkout" 10
	finish
fi
OLD=$T/old
mkdir "$OLD"
if ! git -C "$PG_TOP" archive "$OLDREV" | tar -x -C "$OLD" ||
    ! make -C "$OLD" bin/pollguard-serve bin/pollguard-check \
    >"$T/old-build.log" 2>&1; then
	diag_file "$T/old-build.log" "0.4.0 build"
	bail "0.4.0 ($OLDREV) does not build here"
fi
ok "0.4.0 built from git ($OLDREV)"
serve_stop "${FLEET_SPID[b]}"
SERVE_BIN=$OLD/bin/pollguard-serve serve_again sb04 "$T/b.conf" \
    "${FLEET_PORT[b]}" || bail "the 0.4.0 serve did not start"
FLEET_SPID[b]=$SERVE_PID
rm -f "$T/cache"/* "$T/a.state/mail"
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b mail failed"
exit_is 1 "a asks the 0.4.0 serve b (active 5s ago) with a nonce, through the proxy: skip" \
    "$CHECK" -v -c "$T/a.conf" mail
err_like 'skip: b was active' "... b read as before"
entry=$(proxy_kept "$T/cache" status)
if [ -n "$entry" ] && grep -q '^version 0\.4\.0' "$entry" &&
    ! grep -q '^nonce' "$entry"; then
	ok "the 0.4.0 serve's answer, kept by the proxy, has no nonce"
else
	not_ok "the 0.4.0 serve's answer, kept by the proxy, has no nonce"
fi
rm -f "$T/cache"/* "$T/b.state/mail"
exit_is 0 "a's dry run, b idle, fills the cache" "$CHECK" -n -c "$T/a.conf" mail
[ -n "$(proxy_kept "$T/cache" status)" ] || bail "the proxy kept no copy of b's status"
"$PGSTATE" -c "$T/b.conf" write mail 5000 || bail "pgstate write b mail failed"
hits=$(grep -c 'answered from the cache' "$T/pp.err")
exit_is 0 "b active since, its 0.4.0 copy is taken as before: go (cannot be told)" \
    "$CHECK" -v -c "$T/a.conf" mail
err_like 'b: never: idle' "... b read from the copy: never"
# The proxy logs a cached answer after it sent it: the log may lag.
wait_for 5 eval '[ $(($(grep -c "answered from the cache" "$T/pp.err") -
    hits)) -ge 2 ]'
num_between "$(($(grep -c 'answered from the cache' "$T/pp.err") - hits))" \
    2 2 "... which the proxy answered, in both rounds"
# A 0.4.0 check asks a's new serve, without a nonce.
rm -f "$T/a.state/mail" "$T/b.state/mail"
exit_is 0 "a 0.4.0 check reads the new serve a's status: go" \
    "$OLD/bin/pollguard-check" -n -v -c "$T/b.conf" mail
err_like 'a: never: idle' "... a: never"
finish
