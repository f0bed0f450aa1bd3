#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-check against peers that misbehave: one that accepts and never
# answers, one that sends its headers and stalls, one that resets the
# connection, answers of 10 MB (a body, one header line, many header
# lines, garbage that is not HTTP), a name that does not resolve (and, as
# root, a name server that never answers), a port that refuses
# connections. For each: the check ends within its timeout (two rounds
# when it claims), and decides as the cluster's policy says for an
# unreachable peer (run: go; skip: exit 3), or fails with exit 76 for an
# invalid answer whatever the policy, leaving the record as it was.
# And a peer whose config breaks: a standalone serve keeps its old one
# on SIGHUP; under a super-server, serve -i answers 500, unreachable.
# Answers 90-peers.sh already covers (statuses, short nonsense, an endless
# body) are not repeated here.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

command -v perl >/dev/null 2>&1 || {
	skip "perl is not installed: no fake peers" 1
	finish
}

# The config's timeouts, and how long a check may take at most: one round
# with -n or a skip; two rounds and the settle time when it claims. The
# slack is for a slow machine, not a speed requirement.
TIMEOUT_MS=2000
SETTLE_MS=1000
SLACK_MS=${PG_SLACK_MS:-$((2000 * PG_SLOW))}
ONE_ROUND_MS=$((TIMEOUT_MS + SLACK_MS))
TWO_ROUNDS_MS=$((2 * TIMEOUT_MS + SETTLE_MS + SLACK_MS))

# --- the fake peers -------------------------------------------------------

# fake.pl MODE: a peer on 127.0.0.1, a port the kernel picks, named on
# stderr as "listening on 127.0.0.1:PORT"; one child per connection, each
# bounded to a minute. MODE "closed" binds a port without listening on it
# (a connection is refused); "dns ADDR" is a name server on ADDR:53 that
# reads every question, logs "query" on stdout, and never answers.
FAKE=$T/fake.pl
cat >"$FAKE" <<'EOF'
use strict;
use warnings;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);

$| = 1;
my $mode = shift @ARGV or die "usage: fake.pl MODE\n";
$SIG{CHLD} = 'IGNORE';
$SIG{PIPE} = 'IGNORE';

if ($mode eq 'closed') {
	my $s = IO::Socket::INET->new(Proto => 'tcp',
	    LocalAddr => '127.0.0.1', LocalPort => 0) or die "bind: $!\n";
	print STDERR "listening on 127.0.0.1:" . $s->sockport . "\n";
	sleep 600;
	exit 0;
}
if ($mode eq 'dns') {
	my $addr = shift @ARGV;
	my $s = IO::Socket::INET->new(Proto => 'udp', LocalAddr => $addr,
	    LocalPort => 53) or die "bind $addr:53: $!\n";
	print STDERR "listening on $addr:53\n";
	my $buf;
	print "query\n" while defined $s->recv($buf, 4096);
	exit 0;
}

my $l = IO::Socket::INET->new(Proto => 'tcp', LocalAddr => '127.0.0.1',
    LocalPort => 0, Listen => 64, ReuseAddr => 1) or die "listen: $!\n";
print STDERR "listening on 127.0.0.1:" . $l->sockport . "\n";

# The request head: at most 100 lines; its first line to stdout.
sub head {
	my ($c) = @_;
	my ($line, $first);
	for (1 .. 100) {
		defined($line = <$c>) or last;
		$first //= $line;
		last if $line =~ /^\r?\n$/;
	}
	print $first if defined $first;
	return $first // '';
}

# Until the client closes.
sub drain {
	my ($c) = @_;
	my $buf;
	1 while sysread($c, $buf, 4096);
}

# $pre, then 10 MB of $byte (or less, when the client is gone).
sub big {
	my ($c, $pre, $byte) = @_;
	my $chunk = $byte x 65536;
	print $c $pre or return;
	for (1 .. 160) {
		print $c $chunk or return;
	}
}

my $ok = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n";

# As 0.3 answers the request whose first line is given: /v1/status
# unknown (404 without Pollguard-Node), /v1/elapsed the body given.
sub as03 {
	my ($c, $first, $body) = @_;
	if ($first =~ m{ \S*/v1/status/}) {
		print $c "HTTP/1.1 404 Not Found\r\n" .
		    "Content-Length: 10\r\n\r\nNot Found\n";
	} else {
		print $c "${ok}Content-Length: " . length($body) .
		    "\r\n\r\n$body";
	}
}

my $conns = 0;
for (;;) {
	my $c = $l->accept or next;
	$conns++;
	my $pid = fork;
	if (!defined $pid || $pid) {
		close $c;
		next;
	}
	close $l;
	alarm 60;
	$c->autoflush(1);
	if ($mode eq 'hang') {
		drain($c);
	} elsif ($mode eq 'stall') {
		head($c);
		print $c "${ok}Content-Length: 6\r\nConnection: close\r\n\r\n";
		drain($c);
	} elsif ($mode eq 'rst') {
		head($c);
		setsockopt($c, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0));
	} elsif ($mode eq 'big') {
		head($c);
		big($c, "${ok}Content-Length: 10485760\r\n\r\n", '7');
	} elsif ($mode eq 'bighdr') {
		head($c);
		big($c, "${ok}X-Big: ", 'x');
	} elsif ($mode eq 'manyhdr') {
		head($c);
		big($c, $ok, "X-A: 0123456789abcdef0123456789abcdef0123456\r\n");
	} elsif ($mode eq 'garbage') {
		head($c);
		big($c, '', "\xff");
	} elsif ($mode eq 'slow03') {
		# As 0.3, on a slow link: every answer after 1.1 s, and
		# /v1/elapsed says it was active 3 s ago (it polls).
		my $first = head($c);
		select(undef, undef, undef, 1.1);
		as03($c, $first, "3000\n");
	} elsif ($mode eq 'late') {
		# Its first connection is closed unanswered (round 1); then
		# as 0.3, its job having refreshed its record just now.
		my $first = head($c);
		if ($conns == 1) {
			close $c;
			exit 0;
		}
		as03($c, $first, "0\n");
	} elsif ($mode eq 'idle') {
		# As 0.3, idle for a minute.
		as03($c, head($c), "60000\n");
	}
	close $c;
	exit 0;
}
EOF

# fake_start MODE [ARG]: start a fake peer; its port in FPORT.
fake_start()
{
	bg "fake-$1" perl "$FAKE" "$@"
	listen_port "fake-$1" FPORT
}

# Each fault: a fake peer of that name, and its class: what the check
# must make of the answer.
FAULTS="hang stall rst big bighdr manyhdr garbage closed nxdomain"
declare -A CLASS=(
	[hang]=unreachable [stall]=unreachable [rst]=unreachable
	[closed]=unreachable [nxdomain]=unreachable
	[big]=invalid [bighdr]=invalid [manyhdr]=invalid [garbage]=invalid
)
declare -A WHAT=(
	[hang]="a peer that accepts and never answers"
	[stall]="a peer that sends its headers and stalls"
	[rst]="a peer that resets the connection (RST)"
	[big]="a 10 MB body"
	[bighdr]="a 10 MB header line"
	[manyhdr]="10 MB of header lines"
	[garbage]="10 MB of garbage, not HTTP"
	[closed]="a port that refuses connections"
	[nxdomain]="a name that does not resolve (.invalid)"
)
declare -A URL=([nxdomain]=http://pollguard-test-peer.invalid:7709/)

for f in $FAULTS; do
	[ -n "${URL[$f]:-}" ] && continue
	if fake_start "$f"; then
		URL[$f]=http://127.0.0.1:$FPORT/
	else
		bail "fake peer '$f' did not start"
	fi
done
ok "fake peers listen on 127.0.0.1"

# a_head [SETTLE_MS]: the [pollguard] section of node a's configs:
# settle SETTLE_MS (default SETTLE_MS), the timeouts of this test.
a_head()
{
	printf '[pollguard]\nnode = a\nstate = %s\n' "$STATE"
	printf 'timeout = %dms\nconnect_timeout = 1s\nsettle = %dms\n' \
	    "$TIMEOUT_MS" "${1:-$SETTLE_MS}"
}

# The config of node a: a cluster for each fault with the default policy
# (unreachable = run), and one, FAULT-skip, with unreachable = skip.
CONF=$T/a.conf
{
	a_head
	for f in $FAULTS; do
		printf '[peer %s]\nurl = %s\n' "$f" "${URL[$f]}"
		printf '[cluster %s]\nwait = 12s\npeers = %s\n' "$f" "$f"
		printf '[cluster %s-skip]\nwait = 12s\npeers = %s\n' "$f" "$f"
		printf 'unreachable = skip\n'
	done
} >"$CONF"
chmod 600 "$CONF"
mkdir -m 755 "$STATE"

# timed WANT DESC COMMAND...: exit_is, and the time it took in $MS.
timed()
{
	local t0
	t0=$(now_ms)
	exit_is "$@"
	MS=$(($(now_ms) - t0))
}

# within MAX DESC: the last command took at most MAX ms.
within()
{
	num_between "$MS" 0 "$1" "$2 (${MS} ms, at most $1)"
}

# run_timed COMMAND...: run it (bounded), as exit_is does, without a test:
# $RC, $T/out, $T/err, and the time it took in $MS.
run_timed()
{
	local t0
	t0=$(now_ms)
	timeout -k 5 "$PG_CMD_TIMEOUT" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	MS=$(($(now_ms) - t0))
}

# go_or_slow DESC: the last check (with -v) went, and its record is a
# claim made just now. A claim withdrawn as too slow to order (exit 1,
# "too long" or "too slow": a busy machine, a slow fsync) is a skip.
go_or_slow()
{
	local desc=$1
	if [ "$RC" -eq 0 ]; then
		ok "$desc"
		num_between "$(record "$CL")" 0 $((TWO_ROUNDS_MS + 5000)) \
		    "$desc: the round claimed, record fresh"
	elif [ "$RC" -eq 1 ] && grep -qE 'too (long|slow)' "$T/err"; then
		skip "$desc: claim withdrawn as too slow to order (busy machine)" 2
	else
		not_ok "$desc"
		diag "exit status $RC, want 0"
		diag_file "$T/err" stderr
		skip "no go" 1
	fi
}

# fault NAME: the checks for one fault, each run bounded in time.
fault()
{
	local f=$1 what=${WHAT[$1]} class=${CLASS[$1]} run skip
	CL=$f
	if [ "$class" = unreachable ]; then
		run=0 skip=3
	else
		run=76 skip=76
	fi

	# One round, -n: policy run, then skip.
	rm -f "$STATE/$f" "$STATE/$f-skip"
	timed "$run" "$what: check -n, unreachable = run: exit $run" \
	    "$CHECK" -nv -c "$CONF" "$f"
	within "$ONE_ROUND_MS" "$what: -n ends within the timeout"
	if [ "$class" = unreachable ]; then
		err_like "peer $f .*unreachable.*counts as never" \
		    "$what: -v warns that $f is unreachable"
	else
		err_like "peer $f .*answered" \
		    "$what: the error names $f and what it answered"
		err_lacks "unreachable" "$what: not called unreachable"
	fi
	timed "$skip" "$what: check -n, unreachable = skip: exit $skip" \
	    "$CHECK" -n -c "$CONF" "$f-skip"
	within "$ONE_ROUND_MS" "$what: -n, skip policy, ends within the timeout"

	# Claiming: policy run (a go takes two rounds and the settle time),
	# then skip; an old record is kept unless the round is claimed.
	"$PGSTATE" -c "$CONF" write "$f" 30000
	"$PGSTATE" -c "$CONF" write "$f-skip" 30000
	cp "$STATE/$f" "$T/$f.saved"
	cp "$STATE/$f-skip" "$T/$f-skip.saved"
	if [ "$class" = unreachable ]; then
		run_timed "$CHECK" -v -c "$CONF" "$f"
		go_or_slow "$what: check, unreachable = run: go (exit 0)"
		within "$TWO_ROUNDS_MS" \
		    "$what: check, go, ends within 2 x timeout + settle"
	else
		timed 76 "$what: check, unreachable = run: exit 76" \
		    "$CHECK" -v -c "$CONF" "$f"
		within "$ONE_ROUND_MS" "$what: check, exit 76, ends within the timeout"
		assert "$what: exit 76: the record as it was, byte for byte" \
		    cmp -s "$T/$f.saved" "$STATE/$f"
	fi
	timed "$skip" "$what: check, unreachable = skip: exit $skip" \
	    "$CHECK" -c "$CONF" "$f-skip"
	within "$ONE_ROUND_MS" "$what: check, skip policy, ends within the timeout"
	assert "$what: exit $skip: the record as it was, byte for byte" \
	    cmp -s "$T/$f-skip.saved" "$STATE/$f-skip"
	is "$(state_ls | grep '^\.tmp' | tr '\n' ' ')" "" \
	    "$what: no temporary file left"
}

for f in $FAULTS; do
	fault "$f"
done

# --- a peer among good ones: the fault does not hold up the round ---

# The good peer answers "idle" at once; the round still ends in time, and
# the decision is the fault's.
if fake_start idle; then
	{ a_head 0; cat <<EOF; } >"$T/mixed.conf"
[peer good]
url = http://127.0.0.1:$FPORT/
[peer hang]
url = ${URL[hang]}
[peer big]
url = ${URL[big]}
[cluster hang]
wait = 12s
peers = good hang
unreachable = skip
[cluster big]
wait = 12s
peers = big good
EOF
	chmod 600 "$T/mixed.conf"
	timed 3 "an idle peer and a hanging one, unreachable = skip: exit 3" \
	    "$CHECK" -n -c "$T/mixed.conf" hang
	within "$ONE_ROUND_MS" "an idle peer and a hanging one: within the timeout"
	timed 76 "an idle peer and a 10 MB answer: exit 76" \
	    "$CHECK" -n -c "$T/mixed.conf" big
	within "$ONE_ROUND_MS" "an idle peer and a 10 MB answer: within the timeout"
else
	skip "the idle fake peer did not start" 4
fi

# withdraws NAME DESC SAID: a cluster NAME whose one peer, NAME, is the
# fake peer at FPORT (settle on); its record is 30 s old. The check
# claims, then withdraws (exit 1), saying SAID (an ERE), and puts the
# record back byte for byte.
withdraws()
{
	{ a_head; cat <<EOF; } >"$T/$1.conf"
[peer $1]
url = http://127.0.0.1:$FPORT/
[cluster $1]
wait = 12s
peers = $1
EOF
	chmod 600 "$T/$1.conf"
	"$PGSTATE" -c "$T/$1.conf" write "$1" 30000
	cp "$STATE/$1" "$T/$1.saved"
	timed 1 "$2: exit 1" "$CHECK" -v -c "$T/$1.conf" "$1"
	err_like "$3" "$2: withdrawn ($3)"
	assert "$2: the record as it was, byte for byte" \
	    cmp -s "$T/$1.saved" "$STATE/$1"
}

# --- a slow peer before 0.4 that is polling ---

# Round 1 needs two questions of it (404 to /v1/status, then
# /v1/elapsed), 2.2 s in all: past the timeout, it is unreachable and,
# with unreachable = run, the check claims. It is not of the fast rule,
# so the check sleeps, and round 2 asks /v1/elapsed at once, with the
# whole timeout: the answer, 1.1 s later, shows it active, and the claim
# is withdrawn. Round 2 must not shorten the question to a peer that
# failed round 1, nor skip the sleep for it (pollguard(7)).
if fake_start slow03; then
	withdraws slow03 "a slow 0.3 peer, polling, unreachable in round 1" \
	    'claim withdrawn: slow03'
	err_has "slow03: 3000 ms: active" "round 2 saw it active"
else
	skip "the slow 0.3 fake peer did not start" 4
fi

# --- a peer that polls, unreachable in round 1 ---

# Round 1 cannot reach it; round 2 finds its record refreshed just now,
# by a job that may have run since before round 1: a moment after our
# claim, which the settle rule alone would count as a later claim. The
# check withdraws (pollguard(7)).
if fake_start late; then
	withdraws late "a peer polling, unreachable in round 1, active in round 2" \
	    'could not be reached in round 1 and is active'
else
	skip "the late fake peer did not start" 3
fi

# --- the peer's config broken ---

# Node b's record is 1 s old; its config then breaks. A standalone serve
# that gets SIGHUP keeps its old config (80-serve.sh), so a still skips.
# A serve under a super-server (here socat) reads the config for each
# connection: it answers 500, which the check counts as unreachable.
NBROKEN=8
BCONF=$T/b.conf
mkdir -m 755 "$T/b.state"
bconf()
{
	{
		printf '[pollguard]\nnode = b\nstate = %s\n' "$T/b.state"
		printf '[cluster mail]\nwait = %s\n' "$1"
	} >"$BCONF.new"
	chmod 600 "$BCONF.new"
	mv -f "$BCONF.new" "$BCONF"
}
bconf 12s
"$PGSTATE" -c "$BCONF" write mail 1000
# peerconf FILE PORT: node a's config with b at PORT.
peerconf()
{
	{ a_head 0; cat <<EOF; } >"$1"
[peer b]
url = http://127.0.0.1:$2/
[cluster mail]
wait = 12s
peers = b
[cluster mail-skip]
wait = 12s
peers = b
unreachable = skip
EOF
	chmod 600 "$1"
}
if serve_start sb "$BCONF"; then
	peerconf "$T/ab.conf" "$PORT"
	exit_is 1 "b active 1s ago: a skips" "$CHECK" -n -c "$T/ab.conf" mail
	bconf soon
	kill -HUP "$SERVE_PID"
	wait_for 10 grep -q "reload failed" "$T/sb.err"
	exit_is 1 "b's config broken, SIGHUP: b keeps its old config, a still skips" \
	    "$CHECK" -n -c "$T/ab.conf" mail
	serve_stop "$SERVE_PID" >/dev/null
else
	skip "pollguard-serve for b did not start" 2
fi
bconf 12s
if ! command -v socat >/dev/null 2>&1; then
	skip "socat not installed: no super-server for serve -i" $((NBROKEN - 2))
else
	bg sbi socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork \
	    EXEC:"$SERVE -i -c $BCONF"
	if listen_port sbi SP; then
		peerconf "$T/abi.conf" "$SP"
		exit_is 1 "b under socat (serve -i), active 1s ago: a skips" \
		    "$CHECK" -n -c "$T/abi.conf" mail
		bconf soon
		timed 0 "b's config broken, serve -i answers 500: unreachable, a goes" \
		    "$CHECK" -nv -c "$T/abi.conf" mail
		err_like 'peer b .*unreachable: 500 .*counts as never' \
		    "b's config broken: -v warns that b is unreachable (500)"
		within "$ONE_ROUND_MS" "b's config broken: within the timeout"
		exit_is 3 "b's config broken, unreachable = skip: exit 3" \
		    "$CHECK" -n -c "$T/abi.conf" mail-skip
		# The 500 reaches the client every time: serve reads the
		# request before it closes (socat drops an answer when it
		# cannot pass the request on; a socket closed with the
		# request unread is reset).
		got=
		for i in 1 2 3 4 5 6 7 8 9 10; do
			tcp_ask 127.0.0.1 "$SP" "GET /v1/elapsed/mail HTTP/1.0${CR}"$'\n'"${CR}"$'\n'
			got="$got${CODE:-000} "
		done
		is "$got" "$(printf '500 %.0s' 1 2 3 4 5 6 7 8 9 10)" \
		    "b's config broken: 10 requests, 10 answers 500"
	else
		diag_file "$T/sbi.err" "socat stderr"
		skip "socat did not listen" $((NBROKEN - 2))
	fi
fi

# --- a name server that never answers ---

# The resolver waits for it far longer than the check's timeout (10 s,
# options timeout:10 attempts:1); the check must not. As root, in a
# private mount namespace (unshare -m), /etc/resolv.conf is replaced by
# one naming the fake name server on a loopback address; the test then
# makes sure the resolver did ask it.
NDNS=8
dns_why=
NS=127.83.71.53
if [ "$(id -u)" -ne 0 ]; then
	dns_why="not root: cannot replace /etc/resolv.conf in a mount namespace"
elif ! command -v unshare >/dev/null 2>&1; then
	dns_why="unshare(1) not installed"
elif [ ! -f /etc/resolv.conf ]; then
	dns_why="no /etc/resolv.conf to replace"
else
	printf 'nameserver %s\noptions timeout:10 attempts:1\n' "$NS" >"$T/resolv.conf"
	if ! unshare -m --propagation private sh -c \
	    'mount --bind "$1" /etc/resolv.conf && grep -q "$2" /etc/resolv.conf' \
	    sh "$T/resolv.conf" "$NS" >"$T/ns.err" 2>&1; then
		dns_why="cannot bind-mount /etc/resolv.conf in a mount namespace: $(head -n 1 "$T/ns.err")"
	elif ! fake_start dns "$NS"; then
		dns_why="cannot listen on $NS:53 (UDP)"
	fi
fi
# "${INNS[@]}" COMMAND...: run it with the fake name server's resolv.conf.
INNS=(unshare -m --propagation private sh -c
    'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"'
    sh "$T/resolv.conf")
if [ -n "$dns_why" ]; then
	skip "$dns_why" "$NDNS"
else
	{ a_head; cat <<EOF; } >"$T/dns.conf"
[peer slowdns]
url = http://pollguard-test-peer.invalid:7709/
[cluster slowdns]
wait = 12s
peers = slowdns
[cluster slowdns-skip]
wait = 12s
peers = slowdns
unreachable = skip
EOF
	chmod 600 "$T/dns.conf"
	timed 0 "name server never answers, -n, unreachable = run: go" \
	    "${INNS[@]}" "$CHECK" -nv -c "$T/dns.conf" slowdns
	if [ -s "$T/fake-dns.out" ]; then
		within "$ONE_ROUND_MS" "name server never answers: -n ends within the timeout"
		err_like 'peer slowdns .*unreachable' "name server never answers: slowdns unreachable"
		timed 3 "name server never answers, unreachable = skip: exit 3" \
		    "${INNS[@]}" "$CHECK" -c "$T/dns.conf" slowdns-skip
		within "$ONE_ROUND_MS" "name server never answers, skip: within the timeout"
		"$PGSTATE" -c "$T/dns.conf" write slowdns 30000
		CL=slowdns CONF=$T/dns.conf run_timed "${INNS[@]}" "$CHECK" -v -c "$T/dns.conf" slowdns
		CL=slowdns CONF=$T/dns.conf go_or_slow "name server never answers, claiming: go"
		within "$TWO_ROUNDS_MS" "name server never answers, two rounds: within 2 x timeout + settle"
	else
		skip "the resolver did not ask the name server of /etc/resolv.conf (nsswitch, nscd?)" \
		    $((NDNS - 1))
	fi
fi

# A signal during round 2, the claim out, a peer that never answers: the
# check withdraws the claim and dies of the signal at once, not when the
# round's timeout runs out (8 s here; the bound is for a slow machine).
{
	printf '[pollguard]\nnode = a\nstate = %s\n' "$T/int.state"
	printf 'timeout = 8s\nconnect_timeout = 1s\n'
	printf '[peer hang]\nurl = %s\n' "${URL[hang]}"
	printf '[cluster int]\nwait = 30s\npeers = hang\n'
} >"$T/int.conf"
chmod 600 "$T/int.conf"
mkdir -m 755 "$T/int.state"
bg int "$CHECK" -v -c "$T/int.conf" int
INT=$BGPID
if wait_for 30 test -s "$T/int.state/int"; then
	sleep 0.5
	t0=$(now_ms)
	kill -TERM "$INT"
	wait_exit "$INT" 30
	is "$?" 143 "SIGTERM in round 2: the check dies of it"
	num_between "$(($(now_ms) - t0))" 0 5000 \
	    "... without waiting out the 8 s timeout ($(($(now_ms) - t0)) ms)"
	grep -q "interrupted: claim withdrawn" "$T/int.err" &&
	    ok "... having withdrawn its claim" ||
	    { not_ok "... it did not say it withdrew its claim"; diag_file "$T/int.err" stderr; }
	assert "... and the record is gone as before the claim" \
	    test ! -e "$T/int.state/int"
	# The peer was not asked to the end: no "unreachable" for round 2.
	if grep -q "again: peer hang" "$T/int.err"; then
		not_ok "... without calling the peer it stopped asking unreachable"
		diag_file "$T/int.err" stderr
	else
		ok "... without calling the peer it stopped asking unreachable"
	fi
else
	not_ok "the claim did not appear in $T/int.state within 30 s"
	diag_file "$T/int.err" stderr
	skip "no claim" 4
fi

finish
