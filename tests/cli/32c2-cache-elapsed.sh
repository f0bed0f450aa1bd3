#!/bin/bash
# SPDX-License-Identifier: ISC
# 32c-cache.sh, but the caching gateway (tests/pathproxy -c) routes only
# /v1/elapsed/, a proxy that doc/PROTOCOL.md and pollguard(7) name.
# /v1/status gets the gateway's own 404 without Pollguard-Node, so a's
# check falls back to /v1/elapsed. Its copy, made while b was idle,
# carries the Pollguard-Nonce field of the request that filled the cache,
# not this one's: a refuses. Before every answer echoed the field (only
# status blocks did), a went beside b's job in 4 of 4 rounds.
#
# PG_CACHE_ROUNDS: rounds (4).
. "${PG_TOP:-.}/tests/lib.sh"

ROUNDS=${PG_CACHE_ROUNDS:-4}
[[ $ROUNDS =~ ^[0-9]+$ ]] || bail "PG_CACHE_ROUNDS must be a number"
PROXY=$PG_BUILD/tests/pathproxy
[ -x "$PROXY" ] || bail "$PROXY is not built (make $PROXY)"
command -v curl >/dev/null 2>&1 || bail "curl is not installed"

fleet_start "" a b
mkdir -m 700 "$T/cache"
bg pp "$PROXY" -v -c "$T/cache" -a /v1/elapsed/ -l 127.0.0.1:0 \
    "127.0.0.1:${FLEET_PORT[b]}"
listen_port pp PP || bail "pathproxy did not start"
sed -i "/^\[peer b\]/,/^url/s|^url = .*|url = http://127.0.0.1:$PP/|" \
    "$T/a.conf"
grep -q "127.0.0.1:$PP/" "$T/a.conf" || bail "a's config does not name the proxy"
ok "serves a, b; a asks b through a caching proxy on :$PP"

cached_rounds elapsed
is "$WENT" 0 "a never went beside b's job ($ROUNDS rounds through the cache)"
is "$REFUSED" "$ROUNDS" "a refused each round (exit 76), naming b and the cache"
diag_file "$T/a.out" "a's last words"
finish
