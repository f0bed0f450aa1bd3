#!/bin/bash
# SPDX-License-Identifier: ISC
# Elapsed time and the clocks: wall-clock steps (libfaketime) do not change the
# elapsed time of a record from this boot; a record from another boot reads
# as the larger of the uptime and its wall-clock age; records written by
# hand in the format of SPEC.md read as their age.
. "${PG_TOP:-.}/tests/lib.sh"

mkconf <<EOF
[cluster c1]
wait = 10s
[cluster c2]
wait = 10s
[cluster c3]
wait = 10s
[cluster c4]
wait = 10s
[cluster c5]
wait = 10s
[cluster c6]
wait = 10s
EOF

DAY=86400000
BOOT=$(cat /proc/sys/kernel/random/boot_id)

# --- records written by hand, in the format of SPEC.md ---

up=$(uptime_ms)
if [ "$up" -gt 10000 ]; then
	printf 'pollguard-state 1 %s %d %d\n' "$BOOT" \
	    $(((up - 7000) * 1000000)) $((($(now_ms) - 7000) * 1000000)) >"$STATE.tmp"
	mkdir -p "$STATE" && mv "$STATE.tmp" "$STATE/c5"
	# 7 s old, and older by the time since (a loaded machine).
	num_between "$(record c5)" 6990 $((7000 + $(uptime_ms) - up + 100)) \
	    "hand-written record of this boot, 7s old: reads 7000ms"
	exit_is 0 "hand-written record: check -nv exits 0" "$CHECK" -nv -c "$CONF" c5
	secs=7
	for ((i = 8; i <= (7000 + $(uptime_ms) - up + 100) / 1000; i++)); do
		secs+="|$i"
	done
	err_like "c5: last activity on this node:? ($secs)(\.[0-9])?s ago" \
	    "hand-written record: check -v says 7s ago"
else
	skip "machine booted less than 10s ago" 3
fi

now=$(now_ms)
up=$(uptime_ms)
printf 'pollguard-state 1 00000000-0000-0000-0000-000000000000 1000000000 %d\n' \
    $(((now - 3 * DAY) * 1000000)) >"$STATE/c6"
want=$((up > 3 * DAY ? up : 3 * DAY))
num_between "$(record c6)" "$want" $((want + 10000)) \
    "hand-written record of another boot, 3 days old: reads max(uptime, 3 days)"
exit_is 0 "hand-written record of another boot: check -nv exits 0" "$CHECK" -nv -c "$CONF" c6
err_like 'c6: last activity on this node:? [0-9]+d' "another boot: check -v says days"

# --- the reboot rule through pgstate oldboot ---

"$PGSTATE" -c "$CONF" oldboot c3 $((3 * DAY))
up=$(uptime_ms)
want=$((up > 3 * DAY ? up : 3 * DAY))
num_between "$(record c3)" "$want" $((want + 10000)) \
    "record of another boot, wall age 3 days: reads at least 3 days"
up0=$(uptime_ms)
"$PGSTATE" -c "$CONF" -- oldboot c4 -5000
got=$(record c4)
up1=$(uptime_ms)
num_between "$got" "$up0" $((up1 + 1000)) \
    "record of another boot, wall age -5s: reads the uptime (${up0}ms)"

# --- wall-clock steps ---

if ! faked_init; then
	skip "libfaketime not installed (Debian package libfaketime)" 12
	finish
fi
# Fake CLOCK_REALTIME only; CLOCK_BOOTTIME stays real.
export FAKETIME_DONT_FAKE_MONOTONIC=1

exit_is 0 "touch: exit 0" "$TOUCH" -c "$CONF" c1
exit_is 0 "pgstate read with the wall clock 2 days ahead: exit 0" \
    "$FAKED" +2d "$PGSTATE" -c "$CONF" read c1
num_between "$(cat "$T/out")" 0 10000 "wall clock 2 days ahead: elapsed stays small"
exit_is 0 "pgstate read with the wall clock 2 days back: exit 0" \
    "$FAKED" -2d "$PGSTATE" -c "$CONF" read c1
num_between "$(cat "$T/out")" 0 10000 "wall clock 2 days back: elapsed stays small"

exit_is 0 "touch with the wall clock a day back: exit 0" \
    "$FAKED" -1d "$TOUCH" -c "$CONF" c2
read -r _ _ _ _ wall <"$STATE/c2"
num_between "$(($(now_ms) - ${wall:-0} / 1000000))" $((DAY - 60000)) $((DAY + 60000)) \
    "libfaketime takes effect: WALL_NS of the record a day back"
num_between "$(record c2)" 0 10000 "record written a day back in wall time: elapsed small"

exit_is 0 "check -nv with the wall clock 2 days ahead: exit 0" \
    "$FAKED" +2d "$CHECK" -nv -c "$CONF" c1
if grep -E 'last activity on this node' "$T/err" | grep -qE ':? ([0-9]+ms|[0-9.]+s) ago'; then
	ok "check -v, wall clock 2 days ahead: last activity seconds ago, not days"
else
	not_ok "check -v, wall clock 2 days ahead: last activity seconds ago, not days"
	diag_file "$T/err" stderr
fi
exit_is 0 "check with the wall clock 2 days ahead: claims, exit 0" \
    "$FAKED" +2d "$CHECK" -c "$CONF" c1
num_between "$(record c1)" 0 10000 "record claimed 2 days ahead in wall time: elapsed small"

finish
