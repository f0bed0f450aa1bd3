#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-touch -f: a filter that copies stdin to stdout unchanged and
# unbuffered, records activity while data flows (at most once a second) and
# at EOF, dies by SIGPIPE when its reader goes away, exits 74 on other
# write errors.
. "${PG_TOP:-.}/tests/lib.sh"

mkconf <<EOF
[cluster f1]
wait = 10s
[cluster f2]
wait = 10s
[cluster f3]
wait = 10s
[cluster f4]
wait = 10s
[cluster f5]
wait = 10s
[cluster f6]
wait = 10s
EOF

# --- copies binary data unchanged ---

{
	printf '\0\0\n\0\r\n'
	head -c 1048576 /dev/urandom
	printf 'no newline at the end\0x'
} >"$T/bin.in"
exit_is 0 "binary input, 1 MiB: exit 0" "$TOUCH" -f -c "$CONF" f1 <"$T/bin.in"
if cmp -s "$T/bin.in" "$T/out"; then
	ok "binary input: output identical (NUL bytes, no final newline)"
else
	not_ok "binary input: output identical (NUL bytes, no final newline)"
	diag "in $(wc -c <"$T/bin.in") bytes, out $(wc -c <"$T/out") bytes"
	diag "$(cmp "$T/bin.in" "$T/out" 2>&1)"
fi
err_empty "binary input: stderr empty"
num_between "$(record f1)" 0 2000 "binary input: record written"

exit_is 0 "empty input: exit 0" "$TOUCH" -f -c "$CONF" f2 </dev/null
out_empty "empty input: empty output"
num_between "$(record f2)" 0 2000 "empty input: record written at EOF"

seq 1000000 >"$T/seq.in"
exit_is 0 "a million lines: exit 0" "$TOUCH" -f -c "$CONF" f2 <"$T/seq.in"
is "$(cksum <"$T/out")" "$(cksum <"$T/seq.in")" "a million lines: output identical"

seq 1000000 | timeout 30 "$TOUCH" -f -c "$CONF" f2 >"$T/pipe.out"
is "$?" 0 "a million lines through a pipe: exit 0"
is "$(cksum <"$T/pipe.out")" "$(cksum <"$T/seq.in")" "a million lines through a pipe: output identical"

# --- unbuffered, and recording while data flows ---

"$PGSTATE" -c "$CONF" write f3 "$OLD_MS"
coproc FILT { exec "$TOUCH" -f -c "$CONF" f3 2>"$T/filt.err"; }
FPID=$FILT_PID
BGPIDS+=("$FPID")
exec {FIN}>&"${FILT[1]}" {FOUT}<&"${FILT[0]}"

# No data yet: no record yet (the filter records when data flows).
sleep 0.5
num_between "$(record f3)" "$OLD_MS" "$OLD_MAX" "no record at start, before any data"

printf 'abc' >&"$FIN"
got=
IFS= read -r -N 3 -t 5 -u "$FOUT" got
is "$got" abc "a partial line passes at once (no line buffering)"

# Feed a line every 0.1s for 3.5s; each must come back before the next one
# goes in; meanwhile watch the record.
t0=$(now_ms)
lost=0 lines=0 first= maxage=0
while [ $(($(now_ms) - t0)) -lt 3500 ]; do
	lines=$((lines + 1))
	printf 'line %d\n' "$lines" >&"$FIN"
	got=
	IFS= read -r -t 5 -u "$FOUT" got
	[ "$got" = "line $lines" ] || { lost=$((lost + 1)); diag "line $lines: got '$got'"; }
	a=$(record f3)
	if [[ $a =~ ^[0-9]+$ ]] && [ "$a" -lt "$OLD_MS" ]; then
		[ -n "$first" ] || first=$(($(now_ms) - t0))
		[ "$a" -gt "$maxage" ] && maxage=$a
	fi
	sleep 0.1
done
is "$lost" 0 "each of $lines lines came out before the next went in"
diag "record first written at ${first:-never} ms after data began; oldest age seen while data flowed ${maxage} ms"
num_between "${first:-x}" 0 2500 "record written while data flows (before EOF)"
num_between "$maxage" 0 2500 "record kept fresh while data flows"
num_between "$maxage" 500 2500 "record written at most once a second (not on every line)"
sleep 1.2
age=$(record f3)
diag "after 1.2s without data: age $age ms"
t_eof=$(now_ms)
exec {FIN}>&-
eval "exec ${FILT[1]}>&-" 2>/dev/null
wait_exit "$FPID" 5
is "$?" 0 "filter: exit 0 at EOF"
# Written at EOF: no older than the time since then (and its ms rounding).
num_between "$(record f3)" 0 $(($(now_ms) - t_eof + 5)) \
    "record written once more at EOF"
exec {FOUT}<&-
file_empty "$T/filt.err" "filter: stderr empty"

# --- write errors ---

# The reader goes away: EPIPE; record, then die by SIGPIPE (128+13).
rm -f "$T/epipe.rc"
timeout -k 2 10 bash -c 'yes | { env --default-signal=PIPE "$1" -f -c "$2" f4 2>"$3.err"; echo $? >"$3.rc"; } | head -n 1' \
    sh "$TOUCH" "$CONF" "$T/epipe" >"$T/epipe.out"
is "$?" 0 "yes | touch -f | head -n 1: finishes"
is "$(cat "$T/epipe.out")" y "yes | touch -f | head -n 1: output y"
is "$(cat "$T/epipe.rc" 2>/dev/null)" 141 "reader gone: touch dies by SIGPIPE (141)"
num_between "$(record f4)" 0 2000 "reader gone: record written"

printf 'data\n' >"$T/small.in"
exit_is 74 "stdout /dev/full: exit 74" \
    sh -c 'exec "$1" -f -c "$2" f5 <"$3" >/dev/full' sh "$TOUCH" "$CONF" "$T/small.in"
exit_is 74 "stdin a directory (read error): exit 74" "$TOUCH" -f -c "$CONF" f6 </

finish
