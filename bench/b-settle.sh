# SPDX-License-Identifier: ISC
# bench/b-settle.sh: the cost of the settle round, settle = 0 against the
# default 500ms (sourced by bench/run, after bench/b-check.sh).

section settle "the cost of the settle round"
N=$(rounds 12)
F=$DATA/settle.txt
# The record goes before every run: a claim of the run before would
# make the next check skip, within its horizon.
ALT=("$PGB" alt -n "$N" -w 1 -d "$T/state/mail" "${CMD_CHECK[@]}" ::: \
    "$CHECK" -c "$T/c1settle.conf" mail)
"${ALT[@]}" >"$F"
M_S0=$(get "$F" 1e6 0 0 3)
M_S5=$(get "$F" 1e6 0 1 3)
LABELS=("pollguard-check mail, settle = 0" "pollguard-check mail, settle = 500ms (the default)")
md <<EOF
## The settle round

The latency comparisons above use \`settle = 0\`. With the default,
\`settle = 500ms\`, a check that goes claims the round (a durable write)
and asks its peers again before it keeps the claim: the price of closing
the race measured [below](#the-race). Here the peer shows its status
(0.4), so the second round comes at once; a peer that may be 0.3 (no
status) makes the check sleep settle/2 first (pollguard-check(1)). The
record is removed before every run (\`-d\`): a check within the horizon
of the claim before would skip.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 "settle = 0" "${LABELS[@]}")

The settle round adds $(printf '%.1f' "$(calc "$M_S5 - $M_S0")") ms to
the median go: the claim's write and a second round of questions.

EOF
section_done
