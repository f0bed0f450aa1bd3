#!/bin/bash
# SPDX-License-Identifier: ISC
# Trust (issue 33, items 1 to 3), with user 65534 (setpriv) as the local
# attacker and the tools as root, as cron runs them:
#
#	config file	one that the attacker can write (0666), or owns, is
#			refused: exit 78, naming the file, its owner and its
#			mode; so is one in a directory the attacker can write,
#			not one in a sticky directory such as /tmp. The
#			attack itself: a config rewritten to name a
#			root-owned directory as state and a cluster after a
#			file in it, whose content pollguard-touch would
#			replace.
#	state directory	writable by others, owned by the attacker, or below
#			a directory others can write: exit 78, named; below
#			a sticky one: used.
#	pidfile		a symbolic link the attacker planted as
#			pollguard-serve's pidfile, or a file they own, is
#			not written: the target keeps its content, and the
#			error names the file.
#	in the state	a symbolic link or a file of the attacker left in a
#	directory	state directory (which was theirs before it was
#			given back to root) is not followed nor trusted: the
#			tools say which file and why; a serve answers 500,
#			not what the attacker wrote.
#	a standalone	its state directory made 0777 after it started: 500,
#	serve		also after SIGHUP, and 200 again once fixed; a
#			directory above made 0777 likewise. Started as root
#			with run_as, it trusts the same files as that user,
#			and rereads its config on SIGHUP; run_as nobody, a
#			user shared with other daemons, is refused.
#	the walk	a record others can write is refused, with the
#			chmod; a link of root's to the state directory is
#			followed; a config named relative to the working
#			directory is walked from / too.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

NTESTS=74
why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root: the tools must run as root beside another user"
elif ! command -v setpriv >/dev/null 2>&1; then
	why="no setpriv(1) (util-linux)"
elif [ "$(getent passwd 65534 | cut -d: -f1)" != nobody ]; then
	why="no user nobody with uid 65534"
elif ! getent passwd daemon >/dev/null; then
	why="no user daemon, to stand for a user of pollguard's own (run_as)"
fi
RUNAS=daemon
if [ -n "$why" ]; then
	skip "$why" "$NTESTS"
	finish
fi
plan "$NTESTS"

# as_attacker COMMAND...: run it as user 65534, without groups.
as_attacker()
{
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# The attacker must reach what the test gives them: $T is searchable.
chmod 711 "$T"
ATT=$T/att			# the attacker's own directory
mkdir -m 755 "$ATT" && chown 65534:65534 "$ATT"
SHARED=$T/tmp			# like /tmp: sticky, writable by all
mkdir "$SHARED" && chmod 1777 "$SHARED"
VICTIM=$T/victim		# root's, with a file the attacker aims at
mkdir -m 755 "$VICTIM"
printf 'keep\n' >"$VICTIM/data"
chmod 644 "$VICTIM/data"

# intact: the victim's file still holds "keep"; renew: make it so again,
# before the next attack (an old serve empties it).
intact()
{
	[ "$(cat "$VICTIM/data" 2>/dev/null)" = keep ]
}
renew()
{
	printf 'keep\n' >"$VICTIM/data"
}

# --- the config file ---

mkconf "$T/open.conf" <<EOF
[cluster c]
wait = 10s
EOF
chmod 666 "$T/open.conf"
# The attack of the issue: rewritten by the attacker to name root's
# directory as state and a cluster after a file in it.
as_attacker sh -c 'printf "[pollguard]\nnode = testnode\nstate = %s\n[cluster data]\nwait = 10s\n" "$1" >"$2"' \
    sh "$VICTIM" "$T/open.conf"
assert "the attacker could rewrite the 0666 config" \
    grep -q "state = $VICTIM" "$T/open.conf"
exit_is 78 "config 0666: touch exits 78" "$TOUCH" -c "$T/open.conf" data
err_has "$T/open.conf: writable by group or others (owner root, mode 0666)" \
    "config 0666: message names the file, its owner and mode"
assert "config 0666: root's file named in it is untouched" intact
exit_is 78 "config 0666: check exits 78" "$CHECK" -c "$T/open.conf" data
assert "... the file still untouched" intact

mkconf "$T/theirs.conf" <<EOF
[cluster c]
wait = 10s
EOF
chown 65534 "$T/theirs.conf"
exit_is 78 "config owned by nobody (0600): check exits 78" \
    "$CHECK" -c "$T/theirs.conf" c
err_has "$T/theirs.conf: owned by nobody (uid 65534), mode 0600" \
    "config owned by nobody: message names the file, its owner and mode"
exit_is 78 "config owned by nobody: touch exits 78" \
    "$TOUCH" -c "$T/theirs.conf" c
assert "config owned by nobody: no record written" test ! -e "$STATE/c"

mkdir -m 777 "$T/wdir"
mkconf "$T/wdir/p.conf" <<EOF
[cluster c]
wait = 10s
EOF
exit_is 78 "config in a directory writable by others: exit 78" \
    "$CHECK" -c "$T/wdir/p.conf" c
err_has "$T/wdir/p.conf: the directory $T/wdir above it is writable by group or others (owner root, mode 0777)" \
    "... message names the directory, its owner and mode"
# What the attacker could do there: put their file in its place.
as_attacker mv "$T/wdir/p.conf" "$T/wdir/gone.conf"
assert "... where the attacker can move the file away" \
    test -e "$T/wdir/gone.conf" -a ! -e "$T/wdir/p.conf"
ln -s "$T/wdir/gone.conf" "$T/link.conf"
exit_is 78 "a config reached through a symbolic link into that directory: exit 78" \
    "$CHECK" -c "$T/link.conf" c
err_has "the directory $T/wdir above it is writable" \
    "... the directory of the file itself is checked"

mkconf "$SHARED/p.conf" <<EOF
[cluster c]
wait = 10s
EOF
exit_is 0 "config in a sticky directory writable by all (like /tmp): loads" \
    "$CHECK" -n -c "$SHARED/p.conf" c
chmod 640 "$T/theirs.conf"
chown root:65534 "$T/theirs.conf"
exit_is 0 "config root:nogroup 0640 (as for run_as): loads" \
    "$CHECK" -n -c "$T/theirs.conf" c

# --- the state directory ---

# statedir DIR: a config $T/sd.conf with the state directory DIR.
statedir()
{
	STATE=$1 mkconf "$T/sd.conf" <<EOF
[cluster c]
wait = 10s
EOF
}

mkdir -m 755 "$T/s0777" && chmod 777 "$T/s0777"
statedir "$T/s0777"
exit_is 78 "state directory 0777: touch exits 78" "$TOUCH" -c "$T/sd.conf" c
err_has "state directory $T/s0777: writable by group or others (owner root, mode 0777)" \
    "... message names it, its owner and mode"
assert "... no record written" test ! -e "$T/s0777/c"

mkdir -m 755 "$T/snobody" && chown 65534 "$T/snobody"
statedir "$T/snobody"
exit_is 78 "state directory owned by nobody: check exits 78" \
    "$CHECK" -c "$T/sd.conf" c
err_has "state directory $T/snobody: owned by nobody (uid 65534), mode 0755" \
    "... message names it, its owner and mode"

mkdir -m 777 "$T/above" && mkdir -m 755 "$T/above/state"
statedir "$T/above/state"
exit_is 78 "a directory above the state directory writable by others: touch exits 78" \
    "$TOUCH" -c "$T/sd.conf" c
err_has "state directory $T/above/state: the directory $T/above above it is writable by group or others (owner root, mode 0777)" \
    "... message names that directory, its owner and mode"
assert "... no record written" test ! -e "$T/above/state/c"

mkdir -m 755 "$SHARED/state"
statedir "$SHARED/state"
exit_is 0 "state directory in a sticky directory writable by all: touch exits 0" \
    "$TOUCH" -c "$T/sd.conf" c
assert "... the record written" test -f "$SHARED/state/c"

# --- the pidfile ---

# pidfile_refused DESC PATH WANT: serve -p PATH exits 73, names PATH and
# says WANT, leaves the victim's file as it was; no serve keeps running.
pidfile_refused()
{
	renew
	exit_is 73 "$1: serve -p exits 73" \
	    timeout -k 2 10 "$SERVE" -c "$CONF" -p "$2" -l 127.0.0.1:0
	err_has "$2: $3" "$1: the message names the file and says why"
	assert "$1: the target keeps its content" intact
}

mkconf <<EOF
[cluster c]
wait = 10s
EOF
as_attacker ln -s "$VICTIM/data" "$ATT/serve.pid"
# In the attacker's own directory: refused before the link is looked at.
pidfile_refused "a symbolic link planted as pidfile" "$ATT/serve.pid" \
    "the directory $ATT above it is owned by nobody (uid 65534)"
as_attacker ln -s "$VICTIM/data" "$SHARED/serve.pid"
pidfile_refused "a symbolic link planted in a sticky directory" \
    "$SHARED/serve.pid" "a symbolic link, which is never followed"
as_attacker sh -c 'printf "keep\n" >"$1" && chmod 666 "$1"' sh \
    "$SHARED/x.pid"
exit_is 73 "a pidfile owned by nobody: serve -p exits 73" \
    timeout -k 2 10 "$SERVE" -c "$CONF" -p "$SHARED/x.pid" -l 127.0.0.1:0
err_has "$SHARED/x.pid: owned by nobody (uid 65534), mode 0666" \
    "... the message names the file, its owner and mode"
is "$(cat "$SHARED/x.pid" 2>/dev/null)" keep "... its content untouched"

# --- links and files of the attacker in the state directory ---

# The state directory was the attacker's; they left links and files in
# it; it is root's again (chown, chmod 755), with all they left in it.
ST=$T/given
mkdir -m 755 "$ST"
chown 65534 "$ST"
as_attacker ln -s "$VICTIM/data" "$ST/.c.lock"
as_attacker ln -s "$VICTIM/data" "$ST/.c.side"
as_attacker ln -s "$VICTIM/data" "$ST/c"
chown root "$ST"
statedir "$ST"
renew
exit_is 74 "a link as the run lock: touch -- true exits 74" \
    "$TOUCH" -c "$T/sd.conf" c -- true
err_has "$ST/.c.lock: a symbolic link, which is never followed" \
    "... naming the file and why"
assert "... the link's target untouched" intact
exit_is 65 "a link as the record: check exits 65" "$CHECK" -c "$T/sd.conf" c
err_has "$ST/c: a symbolic link, which is never followed" \
    "... naming the file and why"
rm "$ST/.c.lock"
exit_is 0 "the lock removed: touch -- true exits 0" \
    "$TOUCH" -c "$T/sd.conf" c -- true
assert "... the links to the record and side record replaced by files" \
    test -f "$ST/c" -a ! -L "$ST/c" -a -f "$ST/.c.side" -a ! -L "$ST/.c.side"
assert "... their target untouched" intact

# A record of the attacker's (a fresh one: their claim, their time).
"$PGSTATE" -c "$T/sd.conf" write c 1000
chown 65534 "$ST/c"
exit_is 65 "a record owned by nobody: check exits 65" "$CHECK" -c "$T/sd.conf" c
err_has "$ST/c: owned by nobody (uid 65534), mode 0644" \
    "... naming the file, its owner and mode"
if serve_start sd "$T/sd.conf"; then
	tcp_ask 127.0.0.1 "$PORT" $'GET /v1/elapsed/c HTTP/1.0\r\n\r\n'
	is "$CODE" 500 "a record owned by nobody: serve answers 500, not its time"
	assert "... and logs which file and why" \
	    grep -q "$ST/c: owned by nobody (uid 65534)" "$T/sd.err"
	serve_stop "$SERVE_PID"
else
	not_ok "serve started on the state directory"
	not_ok "serve logs the record owned by nobody"
fi
chown 65534 "$ST/.c.lock"
exit_is 74 "a run lock owned by nobody: touch -- true exits 74" \
    "$TOUCH" -c "$T/sd.conf" c -- true
err_has "$ST/.c.lock: owned by nobody (uid 65534), mode 0600" \
    "... naming the file, its owner and mode"

# --- a standalone serve whose state directory changes mode ---

# code_now DESC WANT: GET /v1/elapsed/c from the serve answers WANT.
code_now()
{
	tcp_ask 127.0.0.1 "$PORT" $'GET /v1/elapsed/c HTTP/1.0\r\n\r\n'
	is "$CODE" "$2" "$1: $2"
}

# reloaded NAME N: the serve NAME logged its N-th reload (or failed one).
reloaded()
{
	[ "$(grep -c reload "$T/$1.err")" -ge "$2" ]
}

mkdir -m 755 "$T/live" "$T/live/state"
statedir "$T/live/state"
"$TOUCH" -c "$T/sd.conf" c
if serve_start live "$T/sd.conf"; then
	code_now "state directory 0755" 200
	chmod 777 "$T/live/state"
	code_now "state directory made 0777 after the serve started" 500
	assert "... the serve logs it, naming the directory, owner, mode" \
	    grep -q "state directory $T/live/state: writable by group or others (owner root, mode 0777)" \
	    "$T/live.err"
	kill -HUP "$SERVE_PID"
	wait_for 10 reloaded live 1 || diag "no reload logged"
	code_now "... after SIGHUP" 500
	chmod 755 "$T/live/state"
	code_now "... made 0755 again" 200
	chmod 777 "$T/live"
	code_now "a directory above made 0777" 500
	chmod 1777 "$T/live"
	code_now "... then sticky (1777, like /tmp)" 200
	chmod 755 "$T/live"
	chown 65534 "$T/live/state"
	code_now "the state directory given to nobody" 500
	chown root "$T/live/state"
	code_now "... and back to root" 200
	serve_stop "$SERVE_PID"
else
	skip "serve did not start" 9
fi

# Started as root, run as $RUNAS (run_as; standing for a user of its
# own): the same files are trusted, by that user, at each request and
# when SIGHUP rereads the config.
STATE=$T/live/state mkconf "$T/runas.conf" <<EOF
[serve]
run_as = $RUNAS
[cluster c]
wait = 10s
EOF
chmod 644 "$T/runas.conf"
if serve_start runas "$T/runas.conf"; then
	code_now "run_as $RUNAS: a root-owned state directory" 200
	kill -HUP "$SERVE_PID"
	wait_for 10 grep -q "reloaded" "$T/runas.err"
	assert "run_as $RUNAS: SIGHUP rereads the root-owned config" \
	    grep -q "reloaded $T/runas.conf" "$T/runas.err"
	code_now "run_as $RUNAS: after SIGHUP" 200
	chmod 777 "$T/live/state"
	code_now "run_as $RUNAS: state directory made 0777" 500
	chmod 755 "$T/live/state"
	code_now "run_as $RUNAS: made 0755 again" 200
	chown "$RUNAS" "$T/live/state"
	code_now "run_as $RUNAS: a state directory of its user's" 200
	chmod 666 "$T/runas.conf"
	kill -HUP "$SERVE_PID"
	wait_for 10 grep -q "reload failed" "$T/runas.err"
	assert "run_as $RUNAS: SIGHUP refuses a config made 0666, naming it" \
	    grep -q "reload failed, keeping the old config: $T/runas.conf: writable by group or others (owner root, mode 0666)" \
	    "$T/runas.err"
	serve_stop "$SERVE_PID"
else
	skip "serve did not start" 7
fi
# Started so by root, who does not trust it: left to $RUNAS, who does.
chmod 644 "$T/runas.conf"
if serve_start runas2 "$T/runas.conf"; then
	code_now "run_as $RUNAS, started on a state directory of its user's" 200
	serve_stop "$SERVE_PID"
else
	not_ok "run_as $RUNAS: serve starts on a state directory of its user's"
	diag_file "$T/runas2.err"
fi
chown root "$T/live/state"

# run_as nobody: its files would be trusted by the server, and every
# daemon running as nobody could write them.
sed 's/^run_as = .*/run_as = nobody/' "$T/runas.conf" >"$T/nobody.conf"
chmod 644 "$T/nobody.conf"
exit_is 78 "run_as = nobody: serve refuses the config (78)" \
    timeout -k 2 10 "$SERVE" -c "$T/nobody.conf" -l 127.0.0.1:0
err_has "run_as: nobody is shared with other daemons" "... and says why"

# --- the files in the state directory, and the walk ---

mkdir -m 755 "$T/gw"
statedir "$T/gw"
"$TOUCH" -c "$T/sd.conf" c
chmod 666 "$T/gw/c"
exit_is 65 "a record mode 0666: check exits 65" "$CHECK" -c "$T/sd.conf" c
err_has "$T/gw/c: writable by group or others (owner root, mode 0666); run: chmod go-w $T/gw/c" \
    "... naming the file, its owner and mode, and the fix"
chmod 644 "$T/gw/c"
exit_is 0 "... chmod go-w: check -n exits 0" "$CHECK" -n -c "$T/sd.conf" c
ln -s "$T/gw" "$T/gwlink"
statedir "$T/gwlink"
exit_is 0 "a state directory reached through root's symbolic link: used" \
    "$TOUCH" -c "$T/sd.conf" c
exit_is 0 "a config named relative to the working directory: loads" \
    sh -c 'cd "$1" && "$2" -n -c sd.conf c' sh "$T" "$CHECK"

finish
