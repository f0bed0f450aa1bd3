# SPDX-License-Identifier: ISC
# bench/b-cost.sh: what 0.5's safety (issue 32) costs, against 0.4.0
# built from git beside this tree: the race-free go, both versions in the
# same invocation and each against etcdctl lock; the system calls of one
# go; the serve's CPU time and instructions per request (sourced by
# bench/run, after bench/b-go.sh, whose go_fleet, go_etcd, go_run,
# go_stats, fmt and rat it uses). Sets COST_* for the report's lead.
#
# 0.5 adds to a go: the clock's rate (adjtimex, twice), a nonce per
# question (arc4random) and its check in the answer, the pending claim
# and the link that keeps the record for a restore; to each answer of a
# serve: the walk that checks that no one else can replace the state
# directory or a directory above it, and the nonce's echo.

section cost "what 0.5's safety costs, against 0.4.0"
COST_REV=9c923c0		# the commit of the 0.4.0 release
OLD=$BB/v0.4.0
COST_HEADLINE=""
if [ ! -x "$OLD/bin/pollguard-check" ] || [ ! -x "$OLD/bin/pollguard-serve" ]; then
	rm -rf "$OLD"
	mkdir -p "$OLD"
	if ! git -C "$TOP" archive "$COST_REV" 2>/dev/null | tar -x -C "$OLD" ||
	    ! make -C "$OLD" CFLAGS="-O2 -DNDEBUG" bin/pollguard-check \
	    bin/pollguard-serve >"$T/log/v040-build.log" 2>&1; then
		rm -rf "$OLD"
	fi
fi
if [ ! -x "$OLD/bin/pollguard-check" ]; then
	say "  0.4.0 ($COST_REV) could not be built: not measured"
	md <<EOF
## What 0.5's safety costs

Not measured: 0.4.0 (commit $COST_REV) could not be built from git here.

EOF
	section_done
	return 0
fi
OCHECK=$OLD/bin/pollguard-check
OSERVE=$OLD/bin/pollguard-serve
go_fleet "$T/cost05" "$SERVE"
C05_PIDS=("${FLEET_PIDS[@]}" "${FLEET_PROXY[@]}")
C05_PORT=${FLEET_PORTS[0]}
go_fleet "$T/cost04" "$OSERVE"
C04_PIDS=("${FLEET_PIDS[@]}" "${FLEET_PROXY[@]}")
C04_PORT=${FLEET_PORTS[0]}
go_etcd "$T/etcd-cost"

# The go, uncontested: node a of each fleet alone, and etcdctl lock, in
# one alternation; with no delay, then all three through the delaying
# proxies.
N=$(rounds 100)
RM=(-d "$T/cost05/a/r0" -d "$T/cost04/a/r0")
F=$DATA/cost-alone.txt
ALT=("$PGB" alt -n "$N" -w 2 "${RM[@]}" "$CHECK" -c "$T/cost05/a.conf" r0
    ::: "$OCHECK" -c "$T/cost04/a.conf" r0 ::: "${LOCK[@]}")
"${ALT[@]}" >"$F"
COST_CMD=$(show "${ALT[@]}")
FD=$DATA/cost-alone-delay.txt
ALTD=("$PGB" alt -n "$(rounds 60)" -w 2 "${RM[@]}"
    "$CHECK" -c "$T/cost05/a-delay.conf" r0
    ::: "$OCHECK" -c "$T/cost04/a-delay.conf" r0 ::: "${LOCK_DELAY[@]}")
"${ALTD[@]}" >"$FD"
COST_CMDD=$(show "${ALTD[@]}")
LABELS=("0.5 (this tree): pollguard-check r0, a go"
    "0.4.0: pollguard-check r0, a go"
    "etcdctl lock NAME /bin/true")
COST_R=$(get "$F" 1e6 1 0 6)
COST_RD=$(get "$FD" 1e6 1 0 6)
COST_E05=$(get "$F" 1e6 2 0 6)
COST_E04=$(get "$F" 1e6 2 1 6)

# The go, contested: the three nodes of one fleet at once, etcdctl lock
# after each round; the two fleets take turns in batches, so that both
# see the same moments of the machine's load.
: >"$DATA/cost-race05.txt"
: >"$DATA/cost-race04.txt"
B=$(rounds 100)
BATCH=20
[ "$B" -lt "$BATCH" ] && BATCH=$B
for ((k = 0; k < B; k += BATCH)); do
	go_run "$DATA/cost-race05.txt" "$T/cost05" "" 3 "$CHECK" "$BATCH" "${LOCK[@]}"
	go_run "$DATA/cost-race04.txt" "$T/cost04" "" 3 "$OCHECK" "$BATCH" "${LOCK[@]}"
done
read -r CR5_N CR5_Z _ CR5_M CR5_MS CR5_REF CR5_R < <(go_stats "$DATA/cost-race05.txt")
read -r CR4_N CR4_Z _ CR4_M CR4_MS CR4_REF CR4_R < <(go_stats "$DATA/cost-race04.txt")

# The system calls of one go, each version (strace -f -c), its record
# removed first.
# scount VERSION CHECK CONF: "total adjtimex getrandom" for one go.
scount()
{
	rm -f "$T/cost$1/a/r0"
	strace -f -c -o "$T/log/strace-go$1" "$2" -c "$3" r0 >/dev/null 2>&1
	awk '$NF == "total" { t = $4 }
	    $NF == "adjtimex" || $NF == "clock_adjtime" { a += $4 }
	    $NF == "getrandom" { g = $4 }
	    END { print t + 0, a + 0, g + 0 }' "$T/log/strace-go$1"
}
read -r SC5 SA5 SG5 < <(scount 05 "$CHECK" "$T/cost05/a.conf")
read -r SC4 SA4 SG4 < <(scount 04 "$OCHECK" "$T/cost04/a.conf")

# The serve per request: wrk against node a's serve of each fleet, in
# turn, for what a 0.4 check asks (/v1/elapsed) and what a 0.5 check asks
# (/v1/status, with a nonce); the server's CPU time from /proc/PID/stat.
# Node a holds the record of the last go above.
NONCE="Pollguard-Nonce: 0123456789abcdef0123456789abcdef"
WN=$(rounds 6)
[ "$WN" -lt 2 ] && WN=2
FW=$DATA/cost-cpu.txt
: >"$FW"
: >"$FW.rps"
TICK_US=$((1000000 / $(getconf CLK_TCK)))
for ((r = 0; r < WN; r++)); do
	c=0
	for job in "${C05_PIDS[0]} $C05_PORT /v1/elapsed/r0 -" \
	    "${C04_PIDS[0]} $C04_PORT /v1/elapsed/r0 -" \
	    "${C05_PIDS[0]} $C05_PORT /v1/status/r0 n" \
	    "${C04_PIDS[0]} $C04_PORT /v1/status/r0 n"; do
		set -- $job
		h=(-H "Connection: close")
		[ "$4" = n ] && h+=(-H "$NONCE")
		wrk_cpu "$r" "$c" "$1" "$FW.rps" "$FW" \
		    wrk -t1 -c16 -d2s "${h[@]}" "http://127.0.0.1:$2$3"
		c=$((c + 1))
	done
done
CPU_E=$(get "$FW" 1 1 0 6)
CPU_S=$(get "$FW" 1 3 2 6)
WLABELS=("0.5 serve: GET /v1/elapsed/r0" "0.4.0 serve: GET /v1/elapsed/r0"
    "0.5 serve: GET /v1/status/r0, with a nonce"
    "0.4.0 serve: GET /v1/status/r0, with a nonce")
stop_pids "${C05_PIDS[@]}" "${C04_PIDS[@]}" "$GO_ETCD_DPID" "$GO_ETCD_PID"

# Instructions per request, each serve under callgrind (bench/lib.sh's
# perreq), for what a 0.5 check asks.
REQ=$(rounds 200)
launch_cg05()
{
	bg_cg s05 "$SERVE" -c "$T/cost05/a.conf" -l "127.0.0.1:$1"
}
launch_cg04()
{
	bg_cg s04 "$OSERVE" -c "$T/cost04/a.conf" -l "127.0.0.1:$1"
}
perreq IR05 s05 launch_cg05 /v1/status/r0 "$NONCE"
perreq IR04 s04 launch_cg04 /v1/status/r0 "$NONCE"
perreq IR05E s05 launch_cg05 /v1/elapsed/r0
perreq IR04E s04 launch_cg04 /v1/elapsed/r0
md <<EOF
## What 0.5's safety costs

0.5 closes the six ways the review of 0.4.0 found to run two jobs at
once (issue 32). A go now reads its clock's rate (adjtimex(2), twice:
the frequency and what is left to slew), sends each question with a
nonce (32 hex digits from arc4random) and checks its echo, keeps its
claim pending until the job's start and links its record for a restore;
a serve walks the state directory's path at each answer (no one else may
replace it) and echoes the nonce. Here 0.4.0, built from git (commit
$COST_REV) with the same flags, runs beside this tree in the same
invocations: two fleets of three nodes like the one of [the race-free
go](#the-race-free-go), one of each version, and one etcd. (0.4.0's own
report, on 2026-11-26 with a load average of 3.6: an uncontested go
9.3 ms, 0.52× etcdctl lock; contested 10.6 ms, 0.60×. Times move with
the machine's load; the ratios below are from this run.)

Uncontested, node a of each fleet alone, and etcdctl lock, alternating
(ratios to 0.4.0):

    $COST_CMD

$(table "$F" 1e6 ms 1 "0.4.0" "${LABELS[@]}")

The same, through the delaying proxies (20 ± 10 ms on every request,
etcdctl's too):

    $COST_CMDD

$(table "$FD" 1e6 ms 1 "0.4.0" "${LABELS[@]}")

Contested, the three nodes of one fleet at once, etcdctl lock after
each round; the fleets take turns, $BATCH rounds each:

| | rounds | 0 pollers | ≥ 2 pollers | time to a go (median) | etcdctl lock (median) | ÷ etcdctl (median of per-round ratios) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| 0.5 (this tree) | $CR5_N | $CR5_Z | $CR5_M | $(fmt "$CR5_MS") ms | $(fmt "$CR5_REF") ms | $(rat "$CR5_R") |
| 0.4.0 | $CR4_N | $CR4_Z | $CR4_M | $(fmt "$CR4_MS") ms | $(fmt "$CR4_REF") ms | $(rat "$CR4_R") |

System calls of one uncontested go (\`strace -f -c\`): 0.5 $SC5
($SA5 adjtimex, $SG5 getrandom), 0.4.0 $SC4 ($SA4 adjtimex, $SG4
getrandom).

The serve, per request: its CPU time (user and system, from
/proc/PID/stat, in ticks of $TICK_US µs) while \`wrk -t1 -c16 -d2s\`
sends requests on new connections, the four in turn, $WN rounds:

$(table "$FW" 1 "µs" 1 "0.4.0's elapsed" "${WLABELS[@]}")

0.5 ÷ 0.4.0: $(printf '%.2f×' "$CPU_E") for /v1/elapsed, $(printf '%.2f×' "$CPU_S") for
/v1/status with a nonce. Instructions per request (callgrind, $REQ
requests less none, as in [instruction counts](#instruction-counts)):
/v1/status with a nonce, 0.5 $(commas "$IR05"), 0.4.0 $(commas "$IR04")
($(irratio "$IR05" "$IR04")); /v1/elapsed, 0.5 $(commas "$IR05E"), 0.4.0 $(commas "$IR04E")
($(irratio "$IR05E" "$IR04E")).

EOF
COST_HEADLINE="Against 0.4.0 in the same invocation ([what 0.5's safety costs](#what-05s-safety-costs)): an uncontested go takes $(printf '%.2f×' "$COST_R") 0.4.0's time ($(printf '%.2f×' "$COST_E05") etcdctl's, 0.4.0 $(printf '%.2f×' "$COST_E04")); through the delay $(printf '%.2f×' "$COST_RD"); contested, $(rat "$CR5_R") etcdctl's against 0.4.0's $(rat "$CR4_R"). The serve spends $(irratio "$IR05" "$IR04") 0.4.0's instructions per status request."
target "what 0.5's safety costs: race-free go, uncontested" "0.4.0, same run" "report; ≤ 0.5× etcdctl" \
    "$(printf '%.2f×' "$COST_R") 0.4.0's time ($(printf '%.2f×' "$COST_E05") etcdctl lock; 0.4.0: $(printf '%.2f×' "$COST_E04")); delayed: $(printf '%.2f×' "$COST_RD"); contested: $(rat "$CR5_R") etcdctl, 0.4.0 $(rat "$CR4_R")" \
    "$(verdict le "$COST_E05" 0.5)"
target "what 0.5's safety costs: serve per request" "0.4.0's serve" "report" \
    "CPU time $(printf '%.2f×' "$CPU_S") (status with a nonce), $(printf '%.2f×' "$CPU_E") (elapsed); instructions $(irratio "$IR05" "$IR04"), $(irratio "$IR05E" "$IR04E")" \
    "reported"
section_done
