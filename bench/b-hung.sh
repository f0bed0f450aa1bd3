# SPDX-License-Identifier: ISC
# bench/b-hung.sh: pollguard-check with a peer that never answers, a
# listening socket that never accepts (sourced by bench/run). Sets
# HI_HUNG for bench/why.sh.

section hung "pollguard-check with a peer that never answers"
bg sink "$PGB" sink -t 300
SINKPID=$BGPID
wait_for 5 grep -q '^port ' "$T/sink.out"
SINKPORT=$(awk '/^port / { print $2 }' "$T/sink.out")
[ -n "$SINKPORT" ] || die "pgbench sink did not start"
mkcheck "$T/hung.conf" "$T/hungstate" 0 "$SINKPORT"
mkcheck "$T/hungsettle.conf" "$T/hungstate" 500ms "$SINKPORT"
N=$(rounds 5)
F=$DATA/hung.txt
# The record goes before every run, as in the settle bench.
ALT=("$PGB" alt -n "$N" -w 0 -d "$T/hungstate/mail" \
    "$CHECK" -c "$T/hung.conf" mail ::: "$CHECK" -c "$T/hungsettle.conf" mail)
"${ALT[@]}" >"$F"
M_HUNG=$(get "$F" 1e6 0 0 3)
HI_HUNG=$(get "$F" 1e6 0 0 5)
M_HUNGS=$(get "$F" 1e6 0 1 3)
LABELS=("pollguard-check mail, settle = 0" "pollguard-check mail, settle = 500ms (the default)")
md <<EOF
## A peer that never answers

The peer is a socket that listens on 127.0.0.1 but never accepts
(\`pgbench sink\`): the kernel completes the handshake and queues the
request, and no answer ever comes. \`timeout\` is the default, 2s. The
check counts the peer as unreachable (\`unreachable = run\`, the default:
fail open) and goes. With the default settle, it waits again for the
peer in round 2, so it ends after about 2 × timeout + settle, as
pollguard-check(1) says.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 "settle = 0" "${LABELS[@]}")

EOF
target "\`pollguard-check\`, one peer that never answers (a go, default settle)" "its timeout (2 s)" "≤ timeout + 10%" \
    "median $(printf '%.0f' "$M_HUNGS") ms ($(printf '%.3f×' "$(calc "$M_HUNGS / 2000")") of the timeout); ablation, settle = 0: median $(printf '%.0f' "$M_HUNG") ms, at most $(printf '%.0f' "$HI_HUNG") ms" \
    "$(verdict le "$M_HUNGS" 2200)"
stop_pids "$SINKPID"
section_done
