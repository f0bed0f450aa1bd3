# SPDX-License-Identifier: ISC
# bench/b-check.sh: pollguard-check with one peer against curl fetching
# the same URL (sourced by bench/run, after bench/fixtures.sh). Sets
# CMD_CHECK, CMD_CHECKN and CMD_CURL, which later benchmarks run again,
# and R_CHECK, R_CHECKN, R_CHECKSHM for bench/why.sh.

section check "pollguard-check, 1 peer, against curl"
N=$(rounds 100)
F=$DATA/check-curl.txt
CMD_CHECK=("$CHECK" -c "$T/c1.conf" mail)
CMD_CURL=(curl -s "$URL1")
CMD_CHECKN=("$CHECK" -n -c "$T/c1.conf" mail)
ALT=("$PGB" alt -n "$N" -w 3 "${CMD_CURL[@]}" ::: "${CMD_CHECK[@]}" \
    ::: "${CMD_CHECKN[@]}")
LABELS=("curl -s URL" "pollguard-check mail (go: claims, writes the record)"
    "pollguard-check -n mail (decides, writes nothing)")
if [ -n "$SHM" ]; then
	ALT+=(::: "$CHECK" -c "$T/c1shm.conf" mail)
	LABELS+=("pollguard-check mail, state directory on tmpfs")
fi
"${ALT[@]}" >"$F"
R_CHECK=$(get "$F" 1e6 0 1 6)
R_CHECKN=$(get "$F" 1e6 0 2 6)
R_CHECKSHM=$([ -n "$SHM" ] && get "$F" 1e6 0 3 6)
M_CHECK=$(get "$F" 1e6 0 1 3)
M_CURL=$(get "$F" 1e6 0 0 3)
md <<EOF
## pollguard-check with one peer, against curl

One peer: a standalone \`pollguard-serve\` on 127.0.0.1. curl fetches the
same URL from the same serve. \`settle = 0\` (see [settle](#the-settle-round)
for its cost). The check goes (the peer was last active long ago) and
claims the round: it replaces its state record durably (temporary file,
fsync, rename), which curl does not do; \`-n\` decides without writing.
$( [ -n "$SHM" ] && echo "The last row keeps the state directory on tmpfs, where fsync and rename cost next to nothing: the difference to the first pollguard row is the cost of the durable write on this machine's $FS file system.")

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 curl "${LABELS[@]}")

EOF
target "\`pollguard-check\`, 1 peer, whole process" "\`curl -s\`, same URL, same serve" "≤ 1.0×" \
    "$(printf '%.2f×' "$R_CHECK") ($(printf '%.2f' "$M_CHECK") ms vs $(printf '%.2f' "$M_CURL") ms); \`-n\`: $(printf '%.2f×' "$R_CHECKN")$( [ -n "$SHM" ] && printf '; state on tmpfs: %.2f×' "$R_CHECKSHM")" \
    "$(verdict le "$R_CHECK" 1.0)"
section_done
