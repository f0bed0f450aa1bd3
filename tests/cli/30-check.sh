#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-check on this node: standalone go and claim, -n, -q, -v, the
# terminal rule for the standalone warning, the run lock (exit 2), which
# peers a cluster has (this node is never asked; a peer nobody answers for
# counts as never), and a state directory or record it cannot use. Peers
# that answer: 90-peers.sh.
. "${PG_TOP:-.}/tests/lib.sh"

mkconf <<EOF
[cluster solo]
wait = 10s
[cluster solo2]
wait = 10s
[cluster lk]
wait = 10s
[cluster bad]
wait = 10s
EOF
MAINCONF=$CONF

# Clusters with peers, and clusters whose only peer is this node.
STATE=$T/pstate mkconf "$T/peers.conf" <<EOF
[cluster withpeers]
wait = 10s
peers = other
[cluster selfonly]
wait = 10s
peers = TESTNODE
[cluster defpeers]
wait = 10s
[peer TestNode]
url = http://127.0.0.1:9/
[peer other]
url = http://127.0.0.1:9/
EOF
PCONF=$CONF
CONF=$MAINCONF

# --- standalone go, claim ---

assert "state directory does not exist yet" test ! -e "$STATE"
exit_is 0 "standalone: exit 0" "$CHECK" -c "$CONF" solo
err_empty "standalone, stderr not a terminal: stderr empty (no cron mail)"
out_empty "standalone: nothing on stdout"
num_between "$(record solo)" 0 2000 "standalone: claimed, record a moment old"
is "$(stat -c %a "$STATE" 2>/dev/null)" 755 "state directory created with mode 755"
BOOT=$(cat /proc/sys/kernel/random/boot_id)
if grep -qE "^pollguard-state 1 $BOOT [0-9]+ [0-9]+\$" "$STATE/solo" &&
    [ "$(wc -l <"$STATE/solo")" -eq 1 ]; then
	ok "record is one line: pollguard-state 1 BOOT_ID MONO_NS WALL_NS"
else
	not_ok "record is one line: pollguard-state 1 BOOT_ID MONO_NS WALL_NS"
	diag_file "$STATE/solo" record
fi
read -r _ _ _ mono wall <"$STATE/solo"
num_between "$((${mono:-0} / 1000000 - $(uptime_ms)))" -3000 100 \
    "record: MONO_NS is the boot clock (/proc/uptime)"
num_between "$((${wall:-0} / 1000000 - $(now_ms)))" -3000 100 \
    "record: WALL_NS is the wall clock"
is "$(state_ls | grep '^\.tmp' | tr '\n' ' ')" "" "no temporary files left behind"

"$PGSTATE" -c "$CONF" write solo "$OLD_MS"
exit_is 0 "standalone, old record: exit 0" "$CHECK" -c "$CONF" solo
num_between "$(record solo)" 0 2000 "standalone: claim replaced the old record"

exit_is 0 "-n: exit 0" "$CHECK" -n -c "$CONF" solo2
err_empty "-n: stderr empty"
is "$(record solo2)" never "-n: nothing claimed (no record)"
assert "-n: no record file" test ! -e "$STATE/solo2"
"$PGSTATE" -c "$CONF" write solo2 "$OLD_MS"
exit_is 0 "-n with an old record: exit 0" "$CHECK" -n -c "$CONF" solo2
num_between "$(record solo2)" "$OLD_MS" "$OLD_MAX" "-n: old record left as it was"

exit_is 0 "-q: exit 0" "$CHECK" -q -c "$CONF" solo
err_empty "-q: stderr empty"

exit_is 0 "-v: exit 0" "$CHECK" -v -c "$CONF" solo
err_like 'solo.*standalone' "-v: says standalone"
err_like 'solo: .*\<go\>' "-v: says go"
err_like 'solo: .*claimed' "-v: says claimed"
err_like 'solo: last activity on this node:? [0-9.]+m?s ago' "-v: says when the last activity was"
exit_is 0 "-nv on a cluster never active: exit 0" "$CHECK" -nv -c "$CONF" solo2
err_like 'solo2: .*\<go\>' "-nv: says go"
err_has "not claimed" "-nv: says not claimed"
rm -f "$STATE/solo2"
exit_is 0 "-nv, no record: exit 0" "$CHECK" -nv -c "$CONF" solo2
err_like 'solo2: last activity on this node:? never' "-nv, no record: says never"

exit_is 0 "peers naming only this node, case differing: standalone, exit 0" \
    "$CHECK" -c "$PCONF" selfonly
num_between "$("$PGSTATE" -c "$PCONF" read selfonly)" 0 2000 \
    "peers naming only this node: claimed"

# --- the warning on a terminal ---

if ! command -v script >/dev/null 2>&1; then
	skip "script(1) (util-linux) not installed: no terminal to test with" 6
elif ! timeout 10 script -qec 'test -t 2' /dev/null >/dev/null 2>&1; then
	skip "script(1) cannot give a terminal here (no pseudo-terminals?)" 6
else
	# tty_run OUTFILE ARGS...: run pollguard-check with a terminal as
	# stdin, stdout and stderr; what it prints goes to OUTFILE.
	tty_run()
	{
		local out=$1 cmd
		shift
		cmd=$(printf '%q ' "$CHECK" -c "$CONF" "$@")
		timeout -k 5 20 script -qec "$cmd" /dev/null >"$out" 2>&1
	}
	tty_run "$T/tty1" solo
	is "$?" 0 "terminal: exit 0"
	if grep -qi standalone "$T/tty1"; then
		ok "terminal: standalone warning printed"
	else
		not_ok "terminal: standalone warning printed"
		diag_file "$T/tty1" terminal
	fi
	tty_run "$T/tty2" -q solo
	is "$?" 0 "terminal, -q: exit 0"
	if grep -qi standalone "$T/tty2"; then
		not_ok "terminal, -q: no warning"
		diag_file "$T/tty2" terminal
	else
		ok "terminal, -q: no warning"
	fi
	tty_run "$T/tty3" -n solo2
	is "$?" 0 "terminal, -n: exit 0"
	if grep -qi standalone "$T/tty3"; then
		ok "terminal, -n: standalone warning printed"
	else
		not_ok "terminal, -n: standalone warning printed"
		diag_file "$T/tty3" terminal
	fi
fi

# --- a run on this node holds the lock ---

"$PGSTATE" -c "$CONF" write lk "$OLD_MS"
bg lock "$PGSTATE" -c "$CONF" lock lk 30
LOCKPID=$BGPID
if wait_for 5 lock_taken lk; then
	ok "pgstate lock holds the run lock"
else
	not_ok "pgstate lock holds the run lock"
	diag_file "$T/lock.err"
fi
if lock_held lk; then
	ok "the run lock is a write lock on .lk.lock, seen in /proc/locks"
else
	not_ok "the run lock is a write lock on .lk.lock, seen in /proc/locks"
	diag "/proc/locks: $(grep ":$(stat -c %i "$STATE/.lk.lock" 2>/dev/null) " /proc/locks)"
fi
exit_is 2 "lock held: exit 2" "$CHECK" -c "$CONF" lk
err_empty "lock held: stderr empty"
out_empty "lock held: stdout empty"
num_between "$(record lk)" "$OLD_MS" "$OLD_MAX" "lock held: nothing claimed, old record unchanged"
exit_is 2 "lock held, -n: exit 2" "$CHECK" -n -c "$CONF" lk
exit_is 2 "lock held, -q: exit 2" "$CHECK" -q -c "$CONF" lk
exit_is 2 "lock held, -v: exit 2" "$CHECK" -v -c "$CONF" lk
err_like 'lk: .*skip.*still going' "lock held, -v: says skip, a run is still going"
num_between "$(record lk)" "$OLD_MS" "$OLD_MAX" "lock held: still the old record"
kill -TERM "$LOCKPID" 2>/dev/null
wait_exit "$LOCKPID" 5 >/dev/null
exit_is 0 "lock released: exit 0" "$CHECK" -c "$CONF" lk
num_between "$(record lk)" 0 2000 "lock released: claimed"

bg run "$TOUCH" -c "$CONF" lk -- sleep 30
RUNPID=$BGPID
if wait_for 5 lock_taken lk; then
	ok "pollguard-touch -- sleep holds the run lock"
else
	not_ok "pollguard-touch -- sleep holds the run lock"
	diag_file "$T/run.err"
fi
exit_is 2 "pollguard-touch run going: exit 2" "$CHECK" -c "$CONF" lk
err_empty "pollguard-touch run going: stderr empty"
kill -TERM "$RUNPID" 2>/dev/null
wait_exit "$RUNPID" 5 >/dev/null
exit_is 0 "pollguard-touch run ended: exit 0" "$CHECK" -c "$CONF" lk

# --- peers ---

# The peer's URL is port 9 on loopback, where nothing answers: unreachable,
# which counts as never (unreachable = run, the default).
exit_is 0 "cluster with peers, the peer unreachable: go" "$CHECK" -c "$PCONF" withpeers
err_like 'peer other .*unreachable.*counts as never.*said once an hour' \
    "unreachable peer, stderr not a terminal: said once (issue 34: cron mails it)"
err_lacks "not supported" "cluster with peers: no 'not supported' error (the old exit 69)"
num_between "$("$PGSTATE" -c "$PCONF" read withpeers)" 0 5000 \
    "cluster with peers, go: claimed"
rm -f "$T/pstate/withpeers"
exit_is 0 "cluster with peers, -n: go" "$CHECK" -n -c "$PCONF" withpeers
err_empty "unreachable peer again within the hour, no -v: stderr empty"
is "$("$PGSTATE" -c "$PCONF" read withpeers)" never "cluster with peers, -n: nothing claimed"
exit_is 0 "cluster with peers, -q: go" "$CHECK" -q -n -c "$PCONF" withpeers
err_empty "cluster with peers, -q: stderr empty"
exit_is 0 "cluster with peers, -v: go" "$CHECK" -nv -c "$PCONF" withpeers
err_like '\<other\>.*\<unreachable\>' "-v: says the peer other is unreachable"
err_lacks "standalone" "-v: a cluster with peers is not standalone"
# A reader that goes away (check -v | head) must not kill a check that
# claimed: it goes, with its claim in place, and says so by its status.
rm -f "$T/pstate/withpeers"
{ "$CHECK" -v -c "$PCONF" withpeers 2>&1; echo $? >"$T/rc"; } | true
is "$(cat "$T/rc")" 0 "-v into a closed pipe: go (exit 0), not killed by SIGPIPE"
num_between "$("$PGSTATE" -c "$PCONF" read withpeers)" 0 5000 \
    "-v into a closed pipe: the claim is in place"
rm -f "$T/pstate/withpeers"
exit_is 0 "default peers (every peer but this node): go" \
    "$CHECK" -nv -c "$PCONF" defpeers
err_like '\<other\>.*\<unreachable\>' "default peers: other asked"
err_lacks "TestNode" "default peers: this node (TestNode) not asked"
err_lacks "standalone" "default peers: not standalone"

# only this node as a peer section, no peers key: standalone
STATE=$T/state3 mkconf "$T/self.conf" <<EOF
[cluster c1]
wait = 10s
[peer testnode]
url = http://127.0.0.1:9/
EOF
exit_is 0 "the only [peer] is this node, default peers: standalone, exit 0" \
    "$CHECK" -c "$T/self.conf" c1
CONF=$MAINCONF

# node defaults to the short hostname: a peer named so is this node.
HOST=$(uname -n)
HOST=${HOST%%.*}
if [[ $HOST =~ ^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$ ]]; then
	for name in "$HOST" "${HOST^^}"; do
		cat >"$T/host.conf" <<EOF
[pollguard]
state = $T/hoststate
[cluster c1]
wait = 10s
[peer $name]
url = http://127.0.0.1:9/
EOF
		chmod 600 "$T/host.conf"
		exit_is 0 "no node key, the only peer is [peer $name] (hostname $(uname -n)): standalone, exit 0" \
		    "$CHECK" -n -c "$T/host.conf" c1
	done
	cat >"$T/host.conf" <<EOF
[pollguard]
state = $T/hoststate
[cluster c1]
wait = 10s
[peer $HOST]
url = http://127.0.0.1:9/
[peer not-$HOST]
url = http://127.0.0.1:9/
EOF
	exit_is 0 "no node key, another peer besides this host: asks it, go" \
	    "$CHECK" -nv -c "$T/host.conf" c1
	err_like "\\<not-$HOST\\>.*\\<unreachable\\>" \
	    "no node key: the other peer (not-$HOST) asked"
	err_lacks "peer $HOST " "no node key: this host ($HOST) not asked"
else
	skip "hostname '$HOST' is not a valid peer name" 5
fi

# --- a state directory it cannot use ---

# badstate DESC DIR [STATUS]: check and touch refuse the state directory
# DIR, exiting STATUS (default 73 or 74; 78 for one not to be trusted).
badstate()
{
	local desc=$1 dir=$2 want=${3:-73|74} conf=$T/bad$RANDOM.conf CONF
	STATE=$dir mkconf "$conf" <<EOF
[cluster bad]
wait = 10s
EOF
	exit_is "$want" "$desc: check exits $want" "$CHECK" -c "$conf" bad
	err_has "$dir" "$desc: check names the directory"
	exit_is "$want" "$desc: check -n exits $want" "$CHECK" -n -c "$conf" bad
	exit_is "$want" "$desc: touch exits $want" "$TOUCH" -c "$conf" bad
	err_has "$dir" "$desc: touch names the directory"
}

: >"$T/plainfile"
badstate "state is a regular file" "$T/plainfile"
mkdir "$T/gw" && chmod 775 "$T/gw"
badstate "state directory group-writable (775)" "$T/gw" 78
mkdir "$T/ow" && chmod 757 "$T/ow"
badstate "state directory world-writable (757)" "$T/ow" 78
mkdir "$T/sticky" && chmod 1777 "$T/sticky"
badstate "state directory 1777 like /tmp" "$T/sticky" 78
badstate "state directory's parent missing" "$T/nosuchparent/state"
assert "state directory's parent missing: not created" test ! -e "$T/nosuchparent"

# --- a malformed record ---

# malformed DESC: $STATE/bad holds a bad record; check refuses it, naming
# the file; touch replaces it.
malformed()
{
	exit_err "$1: check exits with an error (not 0..3)" "$CHECK" -c "$CONF" bad
	err_has "$STATE/bad" "$1: check names the file"
	exit_err "$1: check -n exits with an error" "$CHECK" -n -c "$CONF" bad
	exit_is 0 "$1: touch exits 0" "$TOUCH" -c "$CONF" bad
	num_between "$(record bad)" 0 2000 "$1: touch replaced it"
}

echo "junk" >"$STATE/bad"
malformed "junk record"
: >"$STATE/bad"
malformed "empty record"
printf 'pollguard-state 2 %s 1 1\n' "$BOOT" >"$STATE/bad"
malformed "record version 2"
printf 'pollguard-state 1 %s x y\n' "$BOOT" >"$STATE/bad"
malformed "record with letters for numbers"
printf 'pollguard-state 1 %s 1\n' "$BOOT" >"$STATE/bad"
malformed "record missing a field"
head -c 4096 /dev/zero >"$STATE/bad"
malformed "record of NUL bytes"
rm -f "$STATE/bad"
mkdir "$STATE/bad"
exit_is 65 "record is a directory: check exits 65" "$CHECK" -c "$CONF" bad
err_has "a directory, not a state record: remove it" \
    "record is a directory: the advice is to remove it (touch cannot)"
rmdir "$STATE/bad"
ln -s "$CONF" "$STATE/bad"
exit_is 65 "record is a symbolic link: check exits 65" "$CHECK" -c "$CONF" bad
err_has "a symbolic link, which is never followed; 'pollguard-touch bad' replaces it" \
    "record is a symbolic link: the message says so"
exit_is 0 "record is a symbolic link: touch exits 0" "$TOUCH" -c "$CONF" bad
assert "... having replaced the link by a record" test ! -L "$STATE/bad" -a -f "$STATE/bad"
assert "... and left the link's target alone" grep -q '^\[cluster bad\]' "$CONF"
rm -f "$STATE/bad"

# --- a read-only state directory ---

# As root, permissions do not stop a write: run as nobody then.
RO=$T/ro
AS=()
ro_reason=
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null 2>&1 && getent passwd 65534 >/dev/null; then
		AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		ro_reason="running as root without setpriv(1) or user 65534"
	fi
fi
if [ -z "$ro_reason" ]; then
	mkdir -p "$RO"
	STATE=$RO/state mkconf "$RO/ro.conf" <<EOF
[cluster ro]
wait = 10s
EOF
	"$TOUCH" -c "$RO/ro.conf" ro
	"$PGSTATE" -c "$RO/ro.conf" write ro "$OLD_MS"
	cp -p "$RO/state/ro" "$T/ro.saved"
	CONF=$MAINCONF
	if [ ${#AS[@]} -gt 0 ]; then
		chown -R 65534:65534 "$RO"
		chmod 711 "$T"
	fi
	chmod 555 "$RO/state"
	if "${AS[@]}" test -w "$RO/state" 2>/dev/null; then
		ro_reason="cannot make a directory read-only for this user"
	elif ! "${AS[@]}" test -x "$CHECK" -a -r "$RO/ro.conf" 2>/dev/null; then
		ro_reason="user 65534 cannot run $CHECK or read the config"
	fi
fi
if [ -n "$ro_reason" ]; then
	skip "$ro_reason" 8
else
	exit_is 73 "read-only state directory: check exits 73" \
	    "${AS[@]}" "$CHECK" -c "$RO/ro.conf" ro
	err_has "$RO/state" "read-only state directory: message names it"
	assert "read-only state directory: old record unchanged" \
	    cmp -s "$T/ro.saved" "$RO/state/ro"
	is "$(state_ls "$RO/state" | grep '^\.tmp' | tr '\n' ' ')" "" \
	    "read-only state directory: no temporary file left"
	exit_is 73 "read-only state directory: touch exits 73" \
	    "${AS[@]}" "$TOUCH" -c "$RO/ro.conf" ro
	# A filter refreshes every second: the same failure is told once.
	exit_is 73 "read-only state directory: touch -f exits 73 at the end" \
	    "${AS[@]}" bash -c '{ echo a; sleep 2.5; echo b; } | "$1" -f -c "$2" ro' \
	    sh "$TOUCH" "$RO/ro.conf"
	is "$(tr '\n' ' ' <"$T/out")" "a b " "read-only state directory: touch -f passes the data"
	is "$(grep -c 'cannot record activity' "$T/err")" 1 \
	    "read-only state directory: touch -f reports the failure once"
	chmod 755 "$RO/state"
	chmod 700 "$T"
fi

# A skip is quiet: no standalone warning while a local run holds the lock,
# not even with -v (the warning is about going without peers).
mkconf "$T/skipwarn.conf" <<EOF
[cluster sw]
wait = 10s
EOF
bg swlock "$PGSTATE" -c "$T/skipwarn.conf" lock sw 30
swpid=$BGPID
if wait_for 5 lock_held sw; then
	exit_is 2 "standalone, local run: skip 2" "$CHECK" -v -c "$T/skipwarn.conf" sw
	err_lacks "standalone" "no standalone warning on a skip"
	err_has "still going" "-v says why it skips"
else
	skip "pgstate did not take the lock" 3
fi
kill "$swpid" 2>/dev/null
wait "$swpid" 2>/dev/null
exit_is 0 "lock released: go" "$CHECK" -v -c "$T/skipwarn.conf" sw
err_has "standalone" "-v shows the standalone warning when it goes"

# A FIFO named as the config is refused, not waited on.
mkfifo "$T/fifo.conf"
exit_is 78 "a FIFO as config: exit 78, no hang" timeout 10 "$CHECK" -c "$T/fifo.conf" sw
err_has "not a regular file" "the message says why"

finish
