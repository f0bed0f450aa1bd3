#!/bin/bash
# SPDX-License-Identifier: ISC
# pg-test: long
# The README's demo (make demo) runs to its end: three nodes on loopback,
# one poller a round, a takeover when the poller stops, a handover when
# its job fails. It prints "WRONG" or "FAILED" in a round that should not
# be; both fail here.
. "$PG_TOP/tests/lib.sh"

PG_BIN=$PG_BIN TMPDIR=$T sh "$PG_TOP/scripts/demo" >"$T/out" 2>&1
st=$?
sed 's/^/# /' "$T/out"
is "$st" 0 "the demo ends with exit 0"
if grep -q 'WRONG\|FAILED' "$T/out"; then
	not_ok "no round has two pollers or a failed check"
else
	ok "no round has two pollers or a failed check"
fi
if grep -q 'round [0-9]*: [abc] polled' "$T/out"; then
	ok "rounds have a poller"
else
	not_ok "rounds have a poller"
fi
if grep -q 'polled (handover: [abc].s last run failed' "$T/out"; then
	ok "a failed run is handed over"
else
	not_ok "a failed run is handed over"
fi
finish
