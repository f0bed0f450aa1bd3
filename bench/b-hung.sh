# SPDX-License-Identifier: ISC
# bench/b-hung.sh: pollguard-check with a peer that never answers
# (sourced by bench/run, after bench/fixtures.sh, whose mkcheck it uses):
# a listening socket that never accepts (a stopped process behind a live
# socket), and one that accepts and never answers (pgbench sink -a: a
# process hung after accept). Sets M_HUNG, M_HUNGS, HUNG_R (the go's
# median against the timeout, the default settle, the peer that
# accepts), HUNG_N and HI_HUNG for bench/why.sh.
#
# To measure this alone, for example after a change to how a silent peer
# is asked: BENCHES=hung BENCH_OUT=/tmp/hung.md make bench.

section hung "pollguard-check with a peer that never answers"
HUNG_TIMEOUT_MS=2000		# the default timeout, which the configs keep
sink_start()
{
	bg "sink$1" "$PGB" sink $2 -t 600
	SINKPID=$BGPID
	wait_for 5 grep -q '^port ' "$T/sink$1.out"
	SINKPORT=$(awk '/^port / { print $2 }' "$T/sink$1.out")
	[ -n "$SINKPORT" ] || die "pgbench sink did not start"
}
sink_start q ""
SINKPIDS=("$SINKPID")
mkcheck "$T/hung.conf" "$T/hungstate" 0 "$SINKPORT"
mkcheck "$T/hungsettle.conf" "$T/hungstate" 500ms "$SINKPORT"
sink_start a -a
SINKPIDS+=("$SINKPID")
mkcheck "$T/hungacc.conf" "$T/hungstate" 500ms "$SINKPORT"
HUNG_N=$(rounds 5)
[ "$HUNG_N" -lt 5 ] && HUNG_N=5
F=$DATA/hung.txt
# The record goes before every run, as in the settle bench: every run is
# a go.
ALT=("$PGB" alt -n "$HUNG_N" -w 0 -t 600 -d "$T/hungstate/mail"
    "$CHECK" -c "$T/hung.conf" mail ::: "$CHECK" -c "$T/hungsettle.conf" mail
    ::: "$CHECK" -c "$T/hungacc.conf" mail)
"${ALT[@]}" >"$F"
M_HUNG=$(get "$F" 1e6 0 0 3)
HI_HUNG=$(get "$F" 1e6 0 0 5)
M_HUNGQ=$(get "$F" 1e6 0 1 3)
M_HUNGS=$(get "$F" 1e6 0 2 3)
HI_HUNGS=$(get "$F" 1e6 0 2 5)
HUNG_R=$(calc "$M_HUNGS / $HUNG_TIMEOUT_MS")
HUNG_RQ=$(calc "$M_HUNGQ / $HUNG_TIMEOUT_MS")
BAD_HUNG=$(stats "$F" 1e6 0 | awk '{ s += $7 } END { print s + 0 }')
LABELS=("ablation, settle = 0: the peer listens, never accepts"
    "pollguard-check mail (defaults): the peer listens, never accepts"
    "pollguard-check mail (defaults): the peer accepts, never answers")
md <<EOF
## A peer that never answers

Two kinds of silent peer on 127.0.0.1: a socket that listens and never
accepts (\`pgbench sink\`: the kernel completes the handshake and queues
the request, as for a stopped process behind a live socket), and one
that accepts every connection and holds it, never reading or answering
(\`pgbench sink -a\`, a process hung after accept). \`timeout\` is the
default, 2 s. The check counts the peer as unreachable (\`unreachable =
run\`, the default: fail open) and goes: every run is a go, its record
removed before it. Median of $HUNG_N runs each, alternating; the ratio
that matters is the go's median against the timeout: $(printf '%.2f' "$HUNG_R")× for
the peer that accepts, $(printf '%.2f' "$HUNG_RQ")× for the one that does not (at most
$(printf '%.0f' "$HI_HUNGS") ms). Failed runs (not a go): $BAD_HUNG.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 "settle = 0" "${LABELS[@]}")

EOF
target "\`pollguard-check\`, one peer that accepts and never answers (a go, defaults)" "its timeout (2 s)" "≤ 1.25×, median of $HUNG_N" \
    "median $(printf '%.0f' "$M_HUNGS") ms, $(printf '%.2f×' "$HUNG_R") the timeout; a peer that never accepts: $(printf '%.2f×' "$HUNG_RQ"); ablation, settle = 0: median $(printf '%.0f' "$M_HUNG") ms" \
    "$(verdict le "$HUNG_R" 1.25)"
stop_pids "${SINKPIDS[@]}"
section_done
