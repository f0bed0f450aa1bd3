# SPDX-License-Identifier: ISC
# bench/why.sh: the report's section on the targets pollguard misses in
# this run, and why, from the results the benchmarks set; and the results
# within 5% of their limit (sourced by bench/run after the benchmarks).

SECTION=why
NOTMET=$(grep -c 'not met' "$TARGETS")
{
	echo "## Where pollguard misses a target, and why"
	echo
	[ "$NOTMET" -eq 0 ] && echo "Every target measured was met in this run."
} | md
if over "${GA_R:-}" 0.5 || over "${GR_R:-}" 1.0 || over "${GAD_R:-}" 0.5 ||
    over "${GRD_R:-}" 0.5; then
	md <<EOF
**The race-free go against etcdctl lock** (uncontested $(rat "$GA_R"),
contested $(rat "$GR_R"); through the same delay $(rat "$GAD_R") and
$(rat "$GRD_R")). A go is a process that loads libcurl and OpenSSL
(about three quarters of its instructions, see [instruction
counts](#instruction-counts)), asks its peers twice and writes its
claim durably: nearly all CPU, on $(nproc) cores whose load average was
$LOAD0 at the start of this run. etcdctl mostly waits: on etcd's fsync
and, delayed, on five round trips on one connection. Load stretches
the one more than the other. What 0.5 itself adds shows where both
versions run side by side, in [what 0.5's safety
costs](#what-05s-safety-costs): an uncontested go of 0.5 took
$(printf '%.2f' "${COST_R:-0}")× 0.4.0's time, $(printf '%.2f' "${COST_E05:-0}")× etcdctl's
against 0.4.0's $(printf '%.2f' "${COST_E04:-0}")×.

EOF
fi
if over "${R_CHECK:-}" 1.0; then
	md <<EOF
**pollguard-check against curl** ($(printf '%.2f' "$R_CHECK")×). Both run
the same libcurl and send the same request, and both spend most of their
time before the first question: ${SH_LOADER:-?}% of the check's instructions
(${SH_CURLLOADER:-?}% of curl's) are the dynamic loader, mapping and relocating
the $(ldd "$CHECK" | grep -c '=>') shared libraries pollguard-check loads (libcurl and what it
pulls in), and ${SH_INIT:-?}% are OpenSSL's
initialisation in curl_global_init, which libcurl does whether or not a
peer uses https (since libcurl 7.57 its flags cannot leave it out). By
instructions the check is $(irratio "$IR_CHECK" "$IR_CURL") curl (libinih, libbsd and libmd are
linked in statically, and the check leaves without libcurl's and
OpenSSL's exit handlers). Deciding alone (\`-n\`) takes $(printf '%.2f' "$R_CHECKN")× curl's
time. Beyond that, a check that goes claims the round: it replaces its
state record with a temporary file, fsync and rename, so that a crash or
a power cut never leaves a torn or empty record$( [ -n "$SHM" ] && printf '; with the state directory on tmpfs, where that costs next to nothing, the check takes %.2f× curl' "$R_CHECKSHM"). The
durable write stays: it is what makes the claim hold.

EOF
fi
if over "${R256CURL:-}" 1.5; then
	md <<EOF
**256 peers against curl** ($(printf '%.2f' "$R256CURL")× \`curl --parallel
--parallel-max 256\` on the same 256 URLs, $(printf '%.1f' "$M256") ms against
$(printf '%.1f' "$MZ256") ms). Both are libcurl's multi interface asking 256 serves at
once on new connections, and both pay the 256 serves' wake-ups on
$(nproc) cores they share; the floor, plain non-blocking sockets and
nothing else (\`pgbench fan\`), takes $(printf '%.1f' "$FAN256") ms. By instructions
(callgrind, the whole process) the check with 256 peers runs
$(irratio "${IR_CHECK256:-0}" "${IR_CURLZ:-0}") what curl runs for the 256 URLs; libcurl's
transfers are ${SH_MULTI256:-?}% of the check's instructions and
${SH_CURLMULTI:-?}% of curl's. With the 256 peer names on one serve (one
process to wake) the check takes $(printf '%.2f' "$R256ONE")× one peer.

EOF
fi
if over "${HUNG_R:-}" 1.25; then
	md <<EOF
**A peer that never answers, with the default settle**
($(printf '%.0f' "$M_HUNGS") ms, $(printf '%.2f' "$HUNG_R")× the 2 s timeout, median of
$HUNG_N). Round 1 waits the whole timeout for the silent peer; a peer
that gave no answer cannot have announced the fast rule, so the check
claims, sleeps settle/2 and asks it again in round 2, where it waits the
timeout once more: about 2 × timeout + settle/2. The proof needs round
2's answer from every peer that might have claimed (pollguard(7), CLAIM
AND SETTLE), to a question that left at least settle/2 after the claim,
given the whole timeout; so a silent peer costs a go at least timeout +
settle/2, 1.125× the timeout, if round 1's wait and round 2's overlap.
With \`settle = 0\` (ablation, no race closure) a go costs
$(printf '%.0f' "$M_HUNG") ms; a skip costs one timeout.

EOF
fi
if over "${R_ETCD:-}" 0.5; then
	md <<EOF
**pollguard-check against etcdctl lock** ($(printf '%.2f' "$R_ETCD")×). etcdctl
is a Go program that grants a lease, writes the lock key in a
transaction, runs the command and deletes the key, and etcd fsyncs its
log for every write; the check is one HTTP question, most of whose time
is loading libcurl (see above). The ratio moves with the load on the
machine (the load average is in [The machine](#the-machine)): the check is
dominated by CPU, etcd by its fsyncs.

EOF
fi
if [ $((${z5:-0} + ${tw5:-0} + ${th5:-0})) -gt 0 ]; then
	md <<EOF
**The race with the default settle** ($z5 rounds of $n5 without a poller,
$((tw5 + th5)) with more than one). A check keeps its claim only when it
is sure to beat every claim it sees: a peer's claim counts from the
moment the question was sent, so an answer that comes late makes the
peer's claim look earlier than it may have been, and a claim that took
longer than a quarter of the settle time to write, or a settle round
that took too long, is withdrawn. Under load every node can withdraw:
then nobody polls that round, the safe way to fail, and the next cron
round polls. What the checks said in those rounds is listed under
[The race](#the-race). Here $((RJ * 3)) checks and 3 serves start at
once on $(nproc) cores, on a machine whose load average was
$LOAD0 at the start.

EOF
fi
if under "${R_RPS:-}" 1.0; then
	md <<EOF
**serve against nginx** ($(printf '%.2f' "$R_RPS")× nginx's requests per
second). Most of each request is the kernel's: a TCP connection set up
and torn down on loopback, with wrk on the other core. By instructions
serve does $(irratio "$IR_SREQ" "$IR_NREQ") nginx's work per request; by CPU time
it takes $(printf '%.2f' "$R_CPU")× what nginx's worker takes. serve makes $SYS_S
system calls per request to nginx's $SYS_N (strace -c, requests one
after another): since 0.5 it walks the state directory's path at each
answer, from / down, opening each directory with O_PATH and checking
its owner and mode, so that no one but root and the serve's user can
have replaced it (pollguard-serve(8); about four calls a directory: openat,
two fstat, close); then it reads the record (open, fstat, read, close),
and before it closes looks whether the client sent anything more (recv
with MSG_PEEK; if so, a lingering close, so that unread bytes cannot
make the kernel reset the connection and destroy the answer). nginx
opens the file, reads it, sends the answer with one writev and closes.
[What 0.5's safety costs](#what-05s-safety-costs) has the serve of 0.5
against 0.4.0's.

EOF
fi
if over "${R_FILTER:-}" 1.5; then
	md <<EOF
**pollguard-touch -f against cat** ($(printf '%.2f' "$R_FILTER")×). Copying costs
both about the same; pollguard-touch also starts like pollguard-touch
(config, state directory) and records activity durably twice, when the
data start and at the end$( [ -n "$SHM" ] && printf '; with its state on tmpfs it takes %.2f× cat' "$R_FILTERSHM").

EOF
fi
if over "${R_TOUCH:-}" 1.5; then
	md <<EOF
**pollguard-touch against touch(1)** ($(printf '%.2f' "$R_TOUCH")×). touch
sets a time stamp; pollguard-touch writes a new record and makes it
durable (write, fsync, rename), so that a crash never leaves a torn or
empty record. By instructions it is $(irratio "$IR_PTOUCH" "$IR_TOUCH")
touch, and ${SH_PTLOADER:-?}% of its instructions are the dynamic loader's (libinih,
libbsd and libmd, which touch does not load)$( [ -n "$SHM" ] && printf '; with its state on tmpfs, where fsync and rename cost next to nothing, it takes %.2f× touch' "$R_TOUCHSHM"). The rest of the difference is the
file system's price of durability, which stays.

EOF
fi
if [ -n "${URSS_MED:-}" ] && over "$(mib "$URSS_MED")" 2; then
	md <<EOF
**serve's idle memory** (median RSS of 64 idle serves $(printf '%.2f' "$(mib "$URSS_MED")") MiB
after answering, $(printf '%.2f' "$(mib "$PRSS_MED")") MiB just started). Almost all of it is
pages of the C library and the loader, which every process maps; how
many count depends on where the libraries land (address space layout
randomisation), from $(printf '%.2f' "$(mib "$URSS_MIN")") to $(printf '%.2f' "$(mib "$URSS_MAX")") MiB here. serve's proportional
share of what it maps, PSS, where shared pages are divided among the
processes that map them, is $(printf '%.2f' "$(mib "$UPSS_MED")") MiB; the anonymous memory (heap,
stack, data) of the serve against nginx $(printf '%.2f' "$(mib "$ANON_IDLE")") MiB.

EOF
fi

# Targets within 5% of their limit: one run may land either side.
CLOSE=""
close_call()
{
	awk -v v="$2" -v l="$3" 'BEGIN { exit !(v ~ /^[0-9.e+-]+$/ &&
	    v >= 0.95 * l && v <= 1.05 * l) }' || return 0
	CLOSE="$CLOSE- $1: $(printf '%.3g' "$2") against $3
"
}
close_call "race-free go against etcdctl lock, uncontested" "${GA_R:-}" 0.5
close_call "race-free go against etcdctl lock, contested" "${GR_R:-}" 1.0
close_call "race-free go against etcdctl lock, both delayed, uncontested" "${GAD_R:-}" 0.5
close_call "race-free go against etcdctl lock, both delayed, contested" "${GRD_R:-}" 0.5
close_call "pollguard-check against curl" "${R_CHECK:-}" 1.0
close_call "256 peers against curl --parallel on the same URLs" "${R256CURL:-}" 1.5
close_call "pollguard-check against etcdctl lock" "${R_ETCD:-}" 0.5
close_call "a peer that never answers (default settle), median against the timeout" "${HUNG_R:-}" 1.25
close_call "pollguard-touch against touch" "${R_TOUCH:-}" 1.5
close_call "pollguard-touch -f against cat" "${R_FILTER:-}" 1.5
close_call "serve's requests per second against nginx's" "${R_RPS:-}" 1.0
[ -n "${URSS_MED:-}" ] &&
    close_call "serve's idle RSS, median of 64, MiB" "$(mib "$URSS_MED")" 2
[ -n "${HWM:-}" ] &&
    close_call "serve's peak RSS with 1000 connections, MiB" "$(mib "$HWM")" 8
close_call "serve -i against cat under inetd" "${R_INETD:-}" 1.5
if [ -n "$CLOSE" ]; then
	md <<EOF
**Close to the limit.** These results are within 5% of their target,
met or not: on a shared machine another run may land on the other side.

$CLOSE
EOF
fi
