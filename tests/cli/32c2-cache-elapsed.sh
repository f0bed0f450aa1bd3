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

went=0 refused=0
for ((r = 1; r <= ROUNDS; r++)); do
	rm -f "$T/cache"/*
	"$PGSTATE" -c "$T/a.conf" write mail 600000 ||
	    bail "pgstate write a mail failed"
	"$PGSTATE" -c "$T/b.conf" write mail 600000 ||
	    bail "pgstate write b mail failed"
	# The copy: b idle, taken by a's earlier dry run.
	"$CHECK" -n -c "$T/a.conf" mail >/dev/null 2>&1
	[ -n "$(proxy_kept "$T/cache" elapsed)" ] ||
	    bail "round $r: the proxy kept no copy of b's status"
	"$CHECK" -c "$T/b.conf" mail >"$T/b.out" 2>&1 ||
	    bail "round $r: b did not go ($(cat "$T/b.out"))"
	"$TOUCH" -c "$T/b.conf" mail -- sleep 3 &
	job=$!
	wait_for 5 sh -c "curl -s http://127.0.0.1:${FLEET_PORT[b]}/v1/status/mail | grep -q '^running 1'" ||
	    bail "round $r: b's job did not start"
	"$CHECK" -c "$T/a.conf" mail >"$T/a.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && went=$((went + 1))
	[ "$rc" = 76 ] && grep -q 'peer b .*from a cache' "$T/a.out" &&
	    refused=$((refused + 1))
	[ "$rc" = 0 ] || [ "$rc" = 76 ] || diag_file "$T/a.out" "round $r: a exited $rc"
	wait "$job"
done
is "$went" 0 "a never went beside b's job ($ROUNDS rounds through the cache)"
is "$refused" "$ROUNDS" "a refused each round (exit 76), naming b and the cache"
diag_file "$T/a.out" "a's last words"
finish
