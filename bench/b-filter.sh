# SPDX-License-Identifier: ISC
# bench/b-filter.sh: pollguard-touch -f against cat on a million lines
# (sourced by bench/run, after bench/b-touch.sh). Writes $T/lines, which
# bench/b-callgrind.sh uses, and sets R_FILTER, R_FILTERSHM.

section filter "pollguard-touch -f against cat, 1,000,000 lines"
awk 'BEGIN { for (i = 1; i <= 1000000; i++)
	printf "%07d a line of a log that streams through a pipeline\n", i }' \
    >"$T/lines"
LINES_MB=$(calc "$(stat -c %s "$T/lines") / 1048576")
N=$(rounds 30)
F=$DATA/filter.txt
ALT=("$PGB" alt -n "$N" -w 2 -i "$T/lines" cat ::: "$TOUCH" -f -c "$T/t.conf" mail)
LABELS=("cat < LINES > /dev/null" "pollguard-touch -f mail < LINES > /dev/null")
if [ -n "$SHM" ]; then
	ALT+=(::: "$TOUCH" -f -c "$T/tshm.conf" mail)
	LABELS+=("pollguard-touch -f mail, state directory on tmpfs")
fi
"${ALT[@]}" >"$F"
R_FILTER=$(get "$F" 1e6 0 1 6)
R_FILTERSHM=$([ -n "$SHM" ] && get "$F" 1e6 0 2 6)
md <<EOF
## pollguard-touch -f against cat

One million lines ($(printf '%.1f' "$LINES_MB") MiB) from a file on
standard input, to /dev/null. pollguard-touch -f copies with read(2) and
write(2) in 64 KiB blocks (cat: 128 KiB) and records activity when the
first data arrive, then at most once a second, and at the end: here, two
durable writes of the record (fsync and rename), which the row with the
state directory on tmpfs leaves out.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 cat "${LABELS[@]}")

EOF
target "\`pollguard-touch -f\` on 1,000,000 lines" "\`cat\`" "≤ 1.5×" \
    "$(printf '%.2f×' "$R_FILTER")$( [ -n "$SHM" ] && printf '; state on tmpfs: %.2f×' "$R_FILTERSHM")" "$(verdict le "$R_FILTER" 1.5)"
section_done
