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
if ! le "$R_CHECK" 1.0; then
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
if ! le "$R256" 2; then
	FAN1=$(get "$DATA/peers.txt" 1e6 6 6 3)
	FAN256=$(get "$DATA/peers.txt" 1e6 6 10 3)
	md <<EOF
**256 peers** ($(printf '%.2f' "$R256")× one peer, $(printf '%.1f' "$(calc "$M256 - $M1")") ms more).
Every peer is a separate serve process, and each question a new TCP
connection on loopback: 256 handshakes and 256 serves to wake, on
$(nproc) cores that the check shares with them. The floor measured beside
it, plain non-blocking sockets sending the same requests to the same
serves and nothing else (\`pgbench fan\`), takes
$(printf '%.1f' "$(calc "$FAN256 - $FAN1")") ms more for 256 peers than for one;
curl, fetching the 256 URLs at once with libcurl's own parallel mode
(\`-Z\`), takes $(printf '%.2f' "$CURLZR")× its time for one URL. With the 256 peer
names on one serve (one process to wake) the check takes
$(printf '%.2f' "$R256ONE")× one peer. By instructions the check with 64 peers
runs $(irratio "$IR_CHECK64" "$IR_CHECK") what it runs with one: libcurl's
work per transfer (an easy handle, a connection, the answer's headers),
about $(commas "$(calc "($IR_CHECK64 - $IR_CHECK) / 63")") instructions a peer.
The rest is the kernel's and the serves' work, the
cost of 256 TCP connections on one small machine, which the check cannot
take away; on a real fleet the serves run on their own hosts.

EOF
fi
if ! le "$M_HUNGS" 2200; then
	md <<EOF
**A peer that never answers, with the default settle**
($(printf '%.0f' "$M_HUNGS") ms against a 2 s timeout). A peer that
gave no answer in round 1 cannot have announced the fast rule, so a check
that goes sleeps settle/2 and asks it again in round 2, where it waits
for the timeout once more: the proof needs round 2's answer from every
peer that might have claimed (pollguard(7), CLAIM AND SETTLE). A skip
costs one timeout; with \`settle = 0\` (ablation, no race closure) a go
costs $(printf '%.0f' "$M_HUNG") ms. No rule that keeps the proof meets the target at the
defaults: a go needs, from a peer that may order claims by 0.3's rule,
an answer to a question that left at least settle/2 after the claim
(250 ms, an eighth of the timeout), and that question must be given the
whole timeout, or a slow peer that is polling is missed (tried and
reverted; tests/cli/92-peer-faults.sh holds the case). So a silent peer
costs a go at least timeout + settle/2, 1.125× the timeout, which is
over the target whenever settle is more than about a fifth of the timeout.
pollguard pays one timeout more, round 1's: it claims only once round 1
has ended. Claiming while a silent peer's round-1 question is still
open would come within a grace period of that bound; it is not done.

EOF
fi
if [ -n "$R_ETCD" ] && ! le "$R_ETCD" 0.5; then
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
if [ $((z5 + tw5 + th5)) -gt 0 ]; then
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
if ! le 1.0 "$R_RPS"; then
	md <<EOF
**serve against nginx** ($(printf '%.2f' "$R_RPS")× nginx's requests per
second). The two are close, and most of each request is the kernel's:
a TCP connection set up and torn down on loopback, with wrk on the other
core. By instructions serve does less per request than nginx
($(irratio "$IR_SREQ" "$IR_NREQ")); by CPU time it takes $(printf '%.2f' "$R_CPU")× what
nginx's worker takes. serve makes $SYS_S system calls per request to
nginx's $SYS_N (strace -c, requests one after another): it checks that the state directory was not replaced (a
stat and an fstat), reads the record (open, fstat, read, close), and
before it closes looks whether the client sent anything more (recv
with MSG_PEEK; if so, a lingering close: shutdown, then reading until
the client closes, so that unread bytes cannot make the kernel reset
the connection and destroy the answer). nginx opens the file, reads
it, sends the answer with one writev and closes. The runs vary by a quarter from one
to the next on this machine (see the spread), more than the difference.

EOF
fi
if ! le "$R_FILTER" 1.5; then
	md <<EOF
**pollguard-touch -f against cat** ($(printf '%.2f' "$R_FILTER")×). Copying costs
both about the same; pollguard-touch also starts like pollguard-touch
(config, state directory) and records activity durably twice, when the
data start and at the end$( [ -n "$SHM" ] && printf '; with its state on tmpfs it takes %.2f× cat' "$R_FILTERSHM").

EOF
fi
if ! le "$R_TOUCH" 1.5; then
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
if ! le "$(mib "$URSS_MED")" 2; then
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
close_call "pollguard-check against curl" "$R_CHECK" 1.0
close_call "256 peers against one" "$R256" 2
close_call "pollguard-check against etcdctl lock" "${R_ETCD:-}" 0.5
close_call "a peer that never answers (default settle), median against the timeout" "$(calc "$M_HUNGS / 2000")" 1.1
close_call "pollguard-touch against touch" "$R_TOUCH" 1.5
close_call "pollguard-touch -f against cat" "$R_FILTER" 1.5
close_call "serve's requests per second against nginx's" "$R_RPS" 1.0
close_call "serve's idle RSS, median of 64, MiB" "$(mib "$URSS_MED")" 2
close_call "serve's peak RSS with 1000 connections, MiB" "$(mib "$HWM")" 8
close_call "serve -i against cat under inetd" "${R_INETD:-}" 1.5
if [ -n "$CLOSE" ]; then
	md <<EOF
**Close to the limit.** These results are within 5% of their target,
met or not: on a shared machine another run may land on the other side.

$CLOSE
EOF
fi
