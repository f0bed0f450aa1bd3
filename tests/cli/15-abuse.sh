#!/bin/bash
# SPDX-License-Identifier: ISC
# Command-line abuse of all the tools: missing and extra arguments,
# unknown options, options without their argument, cluster IDs that are
# too long or hold '/', '..', '.', a leading '-', control characters or
# nothing, -c naming a directory, nothing or an unreadable file, bad -l
# addresses for serve. Each is a usage (64) or config (78) error with a
# short message naming the problem, never a crash; nothing is written
# anywhere (the tools run in an empty working directory with TMPDIR in
# $T, and the whole of $T, state directory included, is compared before
# and after). The longest valid ID works and writes only in the state
# directory. A peer's mangled HTTP status line is nonsense (exit 76),
# whatever libcurl makes of it.
. "${PG_TOP:-.}/tests/lib.sh"

STATUS=$PG_BIN/pollguard-status
ID64=$(printf 'a%.0s' $(seq 63))z
ID65=${ID64}x
ID300=$(printf 'x%.0s' $(seq 300))
ID5000=$(printf 'y%.0s' $(seq 5000))
PATH5000=$T/$(printf 'p%.0s' $(seq 5000))

mkconf <<EOF
[cluster c1]
wait = 10s
[cluster $ID64]
wait = 10s
EOF
mkdir "$T/cwd" "$T/tmp" "$T/confdir"
cp "$CONF" "$T/unreadable.conf"
export TMPDIR=$T/tmp
cd "$T/cwd" || bail "cd $T/cwd"

# snap: every entry under $T with its type and mode, and for files their
# size and mtime, but for the output files of exit_is.
snap()
{
	(cd "$T" && find . \( -path ./out -o -path ./err \) -prune -o \
	    -type d -printf '%y %m %p\n' -o -printf '%y %m %s %T@ %p\n' |
	    LC_ALL=C sort)
}

# unchanged BEFORE DESC: nothing under $T changed since the snapshot.
unchanged()
{
	local now
	now=$(snap)
	if [ "$now" = "$1" ]; then
		ok "$2"
	else
		not_ok "$2"
		diag "$(diff <(printf '%s\n' "$1") <(printf '%s\n' "$now") |
		    grep '^[<>]' | head -n 10)"
	fi
}

# short_clean DESC: stderr is at most 1100 bytes (a message is cut at
# 1 KB) and holds no control characters but its line ends (long or
# hostile arguments are cut and escaped).
short_clean()
{
	local n
	n=$(wc -c <"$T/err")
	if [ "$n" -le 1100 ] && ! tr -d '\n' <"$T/err" | LC_ALL=C grep -q '[[:cntrl:]]'; then
		ok "$1"
	else
		not_ok "$1"
		diag "stderr: $n bytes"
		diag_file "$T/err" stderr
	fi
}

# usage_err TOOL DESC ARGS...: exit 64, the tool's usage on stderr.
usage_err()
{
	local tool=$1 desc=$2 name
	shift 2
	name=${tool##*/}
	exit_is 64 "$desc: exit 64" "$tool" "$@"
	err_like "^usage: $name " "$desc: usage on stderr"
}

# bad_id TOOL DESC ARGS...: exit 64, "invalid cluster ID", short, escaped.
bad_id()
{
	local tool=$1 desc=$2
	shift 2
	exit_is 64 "$desc: exit 64" "$tool" "$@"
	err_like "^${tool##*/}: invalid cluster ID '" "$desc: says the cluster ID is invalid"
	short_clean "$desc: message escaped"
	num_between "$(wc -c <"$T/err")" 1 300 "$desc: a long ID is cut in the message"
}

exit_is 64 "warm-up: check without arguments" "$CHECK"
BEFORE=$(snap)

# --- check and touch: arguments and options ---

for tool in "$CHECK" "$TOUCH"; do
	t=${tool##*/}
	t=${t#pollguard-}
	usage_err "$tool" "$t, no arguments"
	usage_err "$tool" "$t, -c but no cluster" -c "$CONF"
	usage_err "$tool" "$t, extra argument" -c "$CONF" c1 extra
	usage_err "$tool" "$t, two clusters" -c "$CONF" c1 "$ID64"
	usage_err "$tool" "$t, unknown option -z" -z -c "$CONF" c1
	usage_err "$tool" "$t, unknown long option --frobnicate" --frobnicate
	usage_err "$tool" "$t, -c without its argument" -c
	usage_err "$tool" "$t, -c without its argument after the cluster" c1 -c
	usage_err "$tool" "$t, option cluster -x" -c "$CONF" -x
	usage_err "$tool" "$t, lone -" -c "$CONF" - c1
done
usage_err "$TOUCH" "touch, -- without a command" -c "$CONF" c1 --
usage_err "$TOUCH" "touch, a command without --" -c "$CONF" c1 true
usage_err "$CHECK" "check, -- and a command" -c "$CONF" c1 -- true

# pollguard-status takes one cluster or none.
usage_err "$STATUS" "status, two clusters" -c "$CONF" c1 "$ID64"
usage_err "$STATUS" "status, unknown option -z" -z -c "$CONF" c1
usage_err "$STATUS" "status, unknown long option --frobnicate" --frobnicate
usage_err "$STATUS" "status, -c without its argument" -c
usage_err "$STATUS" "status, -c without its argument after the cluster" c1 -c
usage_err "$STATUS" "status, option cluster -x" -c "$CONF" -x

# --- check, touch and status: cluster IDs ---

for tool in "$CHECK" "$TOUCH" "$STATUS"; do
	t=${tool##*/}
	t=${t#pollguard-}
	bad_id "$tool" "$t, 65-character ID" -c "$CONF" "$ID65"
	bad_id "$tool" "$t, 300-character ID" -c "$CONF" "$ID300"
	bad_id "$tool" "$t, 5000-character ID" -c "$CONF" "$ID5000"
	bad_id "$tool" "$t, empty ID" -c "$CONF" ''
	bad_id "$tool" "$t, ID a/b" -c "$CONF" a/b
	bad_id "$tool" "$t, ID /etc/passwd" -c "$CONF" /etc/passwd
	bad_id "$tool" "$t, ID .." -c "$CONF" ..
	bad_id "$tool" "$t, ID ../c1" -c "$CONF" ../c1
	bad_id "$tool" "$t, ID ." -c "$CONF" .
	bad_id "$tool" "$t, ID .c1" -c "$CONF" .c1
	bad_id "$tool" "$t, ID -c1 after --" -c "$CONF" -- -c1
	bad_id "$tool" "$t, ID - after --" -c "$CONF" -- -
	bad_id "$tool" "$t, ID with \\001" -c "$CONF" $'c\0011'
	bad_id "$tool" "$t, ID with a newline" -c "$CONF" $'c1\nc1'
	bad_id "$tool" "$t, ID with a tab" -c "$CONF" $'c\t1'
	bad_id "$tool" "$t, ID with ESC" -c "$CONF" $'c1\033[2J'
	bad_id "$tool" "$t, ID with DEL" -c "$CONF" $'c1\177'
	bad_id "$tool" "$t, ID with a space" -c "$CONF" 'c 1'
	bad_id "$tool" "$t, ID with UTF-8" -c "$CONF" 'c1ä'
	bad_id "$tool" "$t, ID with a shell pattern" -c "$CONF" 'c*'
	bad_id "$tool" "$t, 300-character ID with '/'" -c "$CONF" "$ID300/x"
	exit_is 78 "$t, valid but unknown ID: exit 78" "$tool" -c "$CONF" c2
	err_has "no [cluster c2]" "$t, unknown ID: named"
	exit_is 78 "$t, ID differing in case: unknown, exit 78" "$tool" -c "$CONF" C1
done
bad_id "$TOUCH" "touch -f, ID ../x" -f -c "$CONF" ../x
bad_id "$TOUCH" "touch -r, ID ../x" -r -c "$CONF" ../x
bad_id "$TOUCH" "touch, ID ../x -- command" -c "$CONF" ../x -- touch "$T/ran"
bad_id "$CHECK" "check -n, 5000-character ID" -n -c "$CONF" "$ID5000"

# --- check, touch and status: -c ---

chmod 000 "$T/confdir"
for tool in "$CHECK" "$TOUCH" "$STATUS"; do
	t=${tool##*/}
	t=${t#pollguard-}
	exit_is 78 "$t -c DIRECTORY: exit 78" "$tool" -c "$T" c1
	err_has "$T: not a regular file" "$t -c DIRECTORY: says so"
	exit_is 78 "$t -c MISSING: exit 78" "$tool" -c "$T/nosuch.conf" c1
	err_has "$T/nosuch.conf: No such file or directory" "$t -c MISSING: says so"
	exit_is 78 "$t -c in a missing directory: exit 78" "$tool" -c "$T/nosuch/x.conf" c1
	err_has "$T/nosuch/x.conf: No such file or directory" "$t -c in a missing directory: says so"
	exit_is 78 "$t -c FILE/: exit 78" "$tool" -c "$CONF/" c1
	err_has "$CONF/: Not a directory" "$t -c FILE/: says so"
	exit_is 78 "$t -c /dev/null: exit 78" "$tool" -c /dev/null c1
	err_has "/dev/null: not a regular file" "$t -c /dev/null: says so"
	exit_is 78 "$t -c '': exit 78" "$tool" -c '' c1
	err_has "config file name is empty" "$t -c '': says the name is empty"
	exit_is 78 "$t -c 5000-character path: exit 78" "$tool" -c "$PATH5000" c1
	err_has "too long" "$t -c 5000-character path: says it is too long"
	short_clean "$t -c 5000-character path: message short"
	exit_is 78 "$t -c path with ESC: exit 78" "$tool" -c $'/nonexistent/\033[2Jx' c1
	err_has '/nonexistent/\033[2Jx' "$t -c path with ESC: named, escaped"
	short_clean "$t -c path with ESC: no raw control character"
	exit_is 78 "$t POLLGUARD_CONF=DIRECTORY: exit 78" env POLLGUARD_CONF="$T" "$tool" c1
	err_has "$T: not a regular file" "$t POLLGUARD_CONF=DIRECTORY: says so"
	exit_is 78 "$t -c in an unsearchable directory: exit 78" "$tool" -c "$T/confdir/x.conf" c1
	if [ "$(id -u)" -ne 0 ]; then
		err_has "Permission denied" "$t -c in an unsearchable directory: says so"
	else
		err_like "Permission denied|No such file" "$t -c in an unsearchable directory (root): names the file"
	fi
done
chmod 755 "$T/confdir"

# An unreadable file: as root, read by nobody (setpriv), else by us.
chmod 000 "$T/unreadable.conf"
chmod 711 "$T"
as_other=()
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null 2>&1 &&
	    setpriv --reuid 65534 --regid 65534 --clear-groups true 2>/dev/null; then
		as_other=(setpriv --reuid 65534 --regid 65534 --clear-groups)
	else
		as_other=(none)
	fi
fi
for tool in "$CHECK" "$TOUCH" "$STATUS"; do
	t=${tool##*/}
	t=${t#pollguard-}
	if [ "${as_other[0]:-}" = none ]; then
		skip "root without setpriv: no user to find a file unreadable" 2
		continue
	fi
	exit_is 78 "$t -c UNREADABLE: exit 78" "${as_other[@]}" "$tool" -c "$T/unreadable.conf" c1
	err_has "$T/unreadable.conf: Permission denied" "$t -c UNREADABLE: says so"
done
chmod 700 "$T"
chmod 600 "$T/unreadable.conf"

unchanged "$BEFORE" "check, touch and status: nothing written anywhere, state directory not even created"
assert "touch ../x -- command: the command was not run" test ! -e "$T/ran"

# --- serve ---

USAGE_SERVE='usage: pollguard-serve [-v] [-c file] [-i]'
BEFORE=$(snap)
usage_err "$SERVE" "serve, an argument" -c "$CONF" c1
usage_err "$SERVE" "serve, unknown option -z" -z
usage_err "$SERVE" "serve, unknown long option --frobnicate" --frobnicate
usage_err "$SERVE" "serve, -c without its argument" -c
usage_err "$SERVE" "serve, -l without its argument" -c "$CONF" -l
usage_err "$SERVE" "serve, -p without its argument" -c "$CONF" -l 127.0.0.1:0 -p
usage_err "$SERVE" "serve, -i with -l" -c "$CONF" -i -l 127.0.0.1:0
usage_err "$SERVE" "serve, -i with -p" -c "$CONF" -i -p "$T/serve.pid"
usage_err "$SERVE" "serve, -p without -l" -c "$CONF" -p "$T/serve.pid"
err_has "$USAGE_SERVE" "serve: usage is the SYNOPSIS"

# bad_listen DESC SPEC: exit 64, "listen:" naming the problem.
bad_listen()
{
	exit_is 64 "serve -l $1: exit 64" "$SERVE" -c "$CONF" -l "$2"
	err_like "^pollguard-serve: listen: " "serve -l $1: message about listen"
	short_clean "serve -l $1: message short and escaped"
}
bad_listen "without a port" 127.0.0.1
bad_listen "port 65536" :65536
bad_listen "port -1" :-1
bad_listen "port +1" :+1
bad_listen "empty port" 127.0.0.1:
bad_listen "empty" ''
bad_listen "a colon" :
bad_listen "a host name" localhost:7709
bad_listen "IPv6 without brackets" ::1
bad_listen "brackets without a port" '[::1]'
bad_listen "empty brackets" '[]:7709'
bad_listen "300-character host" "$ID300:7709"
bad_listen "5000-character host" "$ID5000:7709"
bad_listen "a newline" $'127.0.0.1:7709\n'
bad_listen "ESC" $'\033[2J:7709'

exit_is 78 "serve -c DIRECTORY -l: exit 78" "$SERVE" -c "$T" -l 127.0.0.1:0
err_has "$T: not a regular file" "serve -c DIRECTORY -l: says so"
exit_is 78 "serve -c MISSING -l: exit 78" "$SERVE" -c "$T/nosuch.conf" -l 127.0.0.1:0
err_has "$T/nosuch.conf: No such file or directory" "serve -c MISSING -l: says so"
exit_is 78 "serve -c '' -l: exit 78" "$SERVE" -c '' -l 127.0.0.1:0
err_has "config file name is empty" "serve -c '' -l: says the name is empty"
exit_is 78 "serve -c 5000-character path -l: exit 78" "$SERVE" -c "$PATH5000" -l 127.0.0.1:0
err_has "too long" "serve -c 5000-character path: says it is too long"
# Under inetd stderr may be the client's socket: the client gets a 500,
# the reason goes to syslog only.
exit_is 78 "serve -i -c MISSING: exit 78" "$SERVE" -i -c "$T/nosuch.conf"
if head -n 1 "$T/out" | grep -q '^HTTP/1\.1 500 '; then
	ok "serve -i -c MISSING: the client gets 500"
else
	not_ok "serve -i -c MISSING: the client gets 500"
	diag_file "$T/out" stdout
fi
err_empty "serve -i -c MISSING: nothing on stderr (it may be the socket)"
# A bad -l with -p: a usage error, and no pidfile is left.
for spec in bogus :65536 '' "$ID300:7709"; do
	exit_is 64 "serve -p FILE -l '${spec:0:12}': exit 64" \
	    "$SERVE" -c "$CONF" -p "$T/serve.pid" -l "$spec"
	assert "serve -p FILE -l '${spec:0:12}': no pidfile left" test ! -e "$T/serve.pid"
done
unchanged "$BEFORE" "serve: nothing written anywhere"

# Binding fails after the pidfile is taken: it is removed on the way out.
if serve_start busy "$CONF"; then
	exit_is 71 "serve -p FILE -l on a port in use: exit 71" \
	    "$SERVE" -c "$CONF" -p "$T/busy.pid" -l "127.0.0.1:$PORT"
	err_has "listen on 127.0.0.1:$PORT: Address already in use" \
	    "serve -l on a port in use: says so"
	assert "serve -l on a port in use: pidfile removed" test ! -e "$T/busy.pid"
	serve_stop "$SERVE_PID"
else
	not_ok "a serve to hold a port started"
	skip "no serve holding a port" 2
fi

# --- the longest valid ID works, and writes only in the state directory ---

BEFORE=$(snap | grep -v ' \./state')
exit_is 0 "check, 64-character ID: exit 0" "$CHECK" -c "$CONF" "$ID64"
assert "check, 64-character ID: its record is in the state directory" test -f "$STATE/$ID64"
exit_is 0 "touch, 64-character ID: exit 0" "$TOUCH" -c "$CONF" "$ID64"
exit_is 0 "touch, 64-character ID -- true: exit 0" "$TOUCH" -c "$CONF" "$ID64" -- true
exit_is 0 "touch -r, 64-character ID: exit 0" "$TOUCH" -r -c "$CONF" "$ID64"
assert "touch -r, 64-character ID: its record is gone" test ! -e "$STATE/$ID64"
exit_is 0 "touch -H, 64-character ID: exit 0" "$TOUCH" -H 1m -m "a long ID" -c "$CONF" "$ID64"
assert "touch -H, 64-character ID: .ID.side written" test -f "$STATE/.$ID64.side"
now=$(snap | grep -v ' \./state')
is "$now" "$BEFORE" "64-character ID: nothing written outside the state directory"
extra=$(state_ls | grep -v -x -F -e ".$ID64.claim" -e ".$ID64.lock" \
    -e ".$ID64.rec" -e ".$ID64.side")
is "$extra" "" "64-character ID: the state directory holds only its lock files"

# --- check: a peer that mangles its status line ---

# libcurl 7 reads "HTTP/x 200" and the like as 200; check must not.
if ! command -v socat >/dev/null 2>&1; then
	skip "socat not installed: no fake peer" 13
else
	# The fake peer reads the request head (at most 50 lines, 5 s each),
	# then sends $T/answer. It plays a 0.3 serve: /v1/status is a 404
	# without Pollguard-Node, so check asks /v1/elapsed.
	cat >"$T/fake.sh" <<EOF
#!/bin/bash
first=
for ((i = 0; i < 50; i++)); do
	IFS= read -r -t 5 l || break
	l=\${l%\$'\r'}
	[ -n "\$first" ] || first=\$l
	[ -n "\$l" ] || break
done
case \$first in *' '*/v1/status/*)
	printf 'HTTP/1.1 404 Not Found\\r\\nContent-Length: 10\\r\\nConnection: close\\r\\n\\r\\nNot Found\\n'
	exit 0 ;;
esac
exec cat "$T/answer"
EOF
	chmod 755 "$T/fake.sh"
	bg fake socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork \
	    EXEC:"$T/fake.sh"
	listen_port fake FP
	cat >"$T/fake.conf" <<EOF
[pollguard]
node = testnode
state = $STATE
[peer fake]
url = http://127.0.0.1:$FP/
[cluster fk]
wait = 12s
EOF
	# answer STATUS-LINE: the fake peer's answer, 5000 ms elapsed.
	answer()
	{
		printf '%s\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\n5000\n' \
		    "$1" >"$T/answer"
	}
	if ! [[ $FP =~ ^[0-9]+$ ]]; then
		not_ok "fake peer (socat) listens"
		diag_file "$T/fake.err" "socat stderr"
		skip "no fake peer" 12
	else
		answer 'HTTP/1.1 200 OK'
		exit_is 1 "fake peer, 'HTTP/1.1 200 OK', 5000 ms: active, skip" \
		    "$CHECK" -n -c "$T/fake.conf" fk
		for line in 'HTTP/x 200 OK' 'HTTP/1.1 200x' 'HTTP/2 200' \
		    'http/1.1 200 OK'; do
			answer "$line"
			exit_is 76 "fake peer, status line '$line': exit 76" \
			    "$CHECK" -n -c "$T/fake.conf" fk
			err_has "peer fake" "status line '$line': the error names the peer"
			err_has "malformed status line" "status line '$line': says what is wrong"
		done
	fi
fi

finish
