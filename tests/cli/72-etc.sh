#!/bin/bash
# SPDX-License-Identifier: ISC
# The examples in etc/, each exercised with the real program it is for.
# Every example is used as it is, with only its paths (/usr/local/bin,
# /etc/pollguard.conf, the state directory), its port and its user
# replaced by sed, so that a broken example breaks this test:
#
#	etc/pollguard.conf	names every key of lib/confkey.c; loads as shipped
#				(mode 0644) and with every ';' setting enabled;
#				pollguard-check, -touch and -serve use it
#	etc/inetd.conf		under openbsd-inetd
#	etc/xinetd.d/pollguard	under xinetd (tests/.cache/xinetd), which
#				logs no complaint about it, and keeps
#				answering after a burst of 300 connections
#	etc/cron.d/pollguard	under Debian's cron, in a private mount
#				namespace with its own /etc/cron.d and /dev/log:
#				the file is accepted (broken copies are not), and
#				its entry runs (faketime starts cron just before
#				a matching minute) on a fleet of two nodes on
#				loopback: one polls, the other skips, neither
#				says anything; and the same through sh -c
#	etc/systemd/*		systemd-analyze verify; the ExecStart lines
#				under systemd-socket-activate and standalone;
#				what serve calls fits the unit's sandbox (strace)
#	etc/tmpfiles.d/pollguard.conf	systemd-tmpfiles --create --root
#	etc/icinga2/pollguard.conf	under Icinga 2, in 78-monitoring.sh
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

unset SOCAT_PEERADDR
command -v curl >/dev/null 2>&1 || bail "curl is not installed (scripts/deps installs it)"
NL=$'\n'
ME=$(id -un)
ETC=$PG_TOP/etc
BIN=/usr/local/bin
SYSCONF=/etc/pollguard.conf
case $T$PG_BIN in
*[[:space:]\|\&]*) bail "paths with white space or | & ($T, $PG_BIN): the examples are rewritten with sed" ;;
esac

# --- helpers --------------------------------------------------------------

# paths FILE...: the files with the installed paths replaced by the ones
# under test: the tools by the built ones, /etc/pollguard.conf by $CONF.
paths()
{
	sed -e "s|$BIN/pollguard-|$PG_BIN/pollguard-|g" -e "s|$SYSCONF|$CONF|g" "$@"
}

# get LABEL PORT: curl /v1/elapsed/mail on 127.0.0.1:PORT: 200 and the
# age of the record written at T0.
get()
{
	CODE=$(curl -s --max-time 10 -o "$T/body" -w '%{http_code}' \
	    "http://127.0.0.1:$2/v1/elapsed/mail" 2>/dev/null)
	is "$CODE" 200 "$1: GET /v1/elapsed/mail: 200"
	age_ok "$(cat "$T/body")" 5000 "$T0" "$1: the record's age"
}

# has_line FILE ERE DESC / lacks_line FILE ERE DESC
has_line()
{
	if grep -qE -- "$2" "$1" 2>/dev/null; then
		ok "$3"
	else
		not_ok "$3"
		diag "no line matches: $2"
		diag_file "$1"
	fi
}
lacks_line()
{
	if grep -E -- "$2" "$1" >"$T/lacks" 2>/dev/null; then
		not_ok "$3"
		diag_file "$T/lacks" "lines matching $2"
	else
		ok "$3"
	fi
}

# A syslog of its own: ns_start NAME SNIPPET COMMAND... starts COMMAND
# (bg NAME, BGPID) in a mount namespace of its own whose /dev is a copy
# with /dev/log a socket that socat reads, after the shell SNIPPET (run
# there; $d is $T/ns-NAME). ns_log NAME: the syslog lines so far, one a
# line, without their priority. ns_stop NAME PID: stop the command and
# the reader; the log stays in $T/ns-NAME.log. No syslog daemon needed.
ns_start()
{
	local name=$1 snippet=$2 d=$T/ns-$1 n
	shift 2
	mkdir -p "$d/dev/shm"
	for n in null zero full random urandom; do
		: >"$d/dev/$n"
	done
	bg "ns-$name-log" socat -u "UNIX-RECV:$d/dev/log,mode=666" -
	NS_LOGPID[${#NS_LOGPID[@]}]="$name:$BGPID"
	wait_for 10 test -S "$d/dev/log" || return 1
	bg "$name" timeout -k 5 120 unshare -m sh -ec '
		d=$1
		shift
		for n in null zero full random urandom; do
			mount --bind "/dev/$n" "$d/dev/$n"
		done
		mount -t tmpfs tmpfs "$d/dev/shm"
		'"$snippet"'
		mount --bind "$d/dev" /dev
		exec "$@"' sh "$d" "$@"
}
NS_LOGPID=()
ns_log()
{
	{ tr '<' '\n' <"$T/ns-$1-log.out"; echo; } 2>/dev/null |
	    sed 's/^[0-9]*>//; /^$/d'
}
ns_stop()
{
	local e
	kill -TERM "$2" 2>/dev/null
	wait_exit "$2" 10 >/dev/null
	sleep 0.2
	for e in "${NS_LOGPID[@]}"; do
		[ "${e%:*}" = "$1" ] || continue
		kill -TERM "${e##*:}" 2>/dev/null
		wait_exit "${e##*:}" 10 >/dev/null
	done
	ns_log "$1" >"$T/ns-$1.log"
}
ns_ok=1
if ! command -v socat >/dev/null 2>&1; then
	ns_ok=0 ns_why="socat not installed (scripts/deps installs it)"
elif ! unshare -m sh -c "mount -t tmpfs tmpfs '$T'" 2>"$T/unshare.err"; then
	ns_ok=0 ns_why="no private mount namespace here: $(head -c 200 "$T/unshare.err")"
fi

# --- etc/pollguard.conf ---------------------------------------------------

EX=$ETC/pollguard.conf
# CONF: the example as shipped, with the state directory in $T.
CONF=$T/pollguard.conf
sed "s|^state = /var/lib/pollguard\$|state = $STATE|" "$EX" >"$CONF"
chmod 644 "$CONF"
if grep -qx "state = $STATE" "$CONF"; then
	ok "pollguard.conf: state = /var/lib/pollguard, replaced by the test's"
else
	not_ok "pollguard.conf: state = /var/lib/pollguard, replaced by the test's"
fi

# named FILE: "section:key" for every key the example sets or names
# after ';', sorted.
named()
{
	awk '
	/^;?\[/ { s = $0; sub(/^;?\[/, "", s); sub(/[] ].*/, "", s); next }
	/^;?[a-z_]+ = / { k = $0; sub(/^;/, "", k); sub(/ .*/, "", k); print s ":" k }
	' "$1" | sort -u
}

# Every key of lib/confkey.c appears in its section, set or after ';'.
keys()
{
	sed -n "/^static const struct key $1_keys\[\] = {/,/};/p" \
	    "$PG_TOP/lib/confkey.c" | sed -n 's/^\t{ "\([a-z_]*\)".*/\1/p'
}
named "$EX" >"$T/present"
missing=
nkeys=0
for kind in global:pollguard peer:peer cluster:cluster serve:serve; do
	for k in $(keys "${kind%%:*}"); do
		nkeys=$((nkeys + 1))
		grep -qx "${kind#*:}:$k" "$T/present" || missing="$missing [${kind#*:}] $k"
	done
done
if [ "$nkeys" -ge 18 ] && [ -z "$missing" ]; then
	ok "pollguard.conf names all $nkeys keys of lib/confkey.c, each in its section"
else
	not_ok "pollguard.conf names all keys of lib/confkey.c, each in its section"
	diag "keys found in lib/confkey.c: $nkeys; missing from the example:$missing"
fi
over=$(awk '{ if (length($0) > 199) print FILENAME ":" NR }' "$EX")
is "$over" "" "pollguard.conf: no line longer than 199 characters"

# As shipped (mode 0644, as installed): every tool loads it, silently.
exit_is 0 "pollguard.conf as shipped: pollguard-check -n mail goes" \
    "$CHECK" -n -c "$CONF" mail
err_empty "pollguard.conf as shipped: pollguard-check -n says nothing"
exit_is 0 "pollguard.conf as shipped: pollguard-touch mail" \
    "$TOUCH" -c "$CONF" mail
err_empty "pollguard.conf as shipped: pollguard-touch says nothing"
# The record every super-server below answers for: 5 s old at T0.
T0=$(now_ms)
"$PGSTATE" -c "$CONF" write mail 5000
printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' |
    timeout -k 5 20 "$SERVE" -i -c "$CONF" >"$T/ans" 2>"$T/err"
split_answer "$T/ans"
is "$CODE" 200 "pollguard.conf as shipped: pollguard-serve -i answers 200"
age_ok "$BODY" 5000 "$T0" "pollguard.conf as shipped: the record's age"

# With every ';' setting enabled: node alpha of three peers, credentials,
# an allow list naming 127.0.0.1. run_as names the test's user (it must
# exist, and serve runs as root here).
ALL=$T/all.conf
sed -e 's/^;//' -e "s|^state = /var/lib/pollguard\$|state = $T/all-state|" \
    -e "s|^run_as = .*|run_as = $ME|" "$EX" >"$ALL"
chmod 644 "$ALL"
exit_is 78 "every setting enabled, mode 0644: refused (passwords)" \
    "$TOUCH" -c "$ALL" mail
err_has "readable by others" "the password rule of the example's comment holds"
chmod 640 "$ALL"
exit_is 0 "every setting enabled, mode 0640: pollguard-touch mail loads it" \
    "$TOUCH" -c "$ALL" mail
err_empty "every setting enabled: pollguard-touch says nothing"
SUSER=$(sed -n '/^\[serve\]/,/^\[/s/^user = //p' "$ALL")
SPASS=$(sed -n '/^\[serve\]/,/^\[/s/^password = //p' "$ALL")
ask_all()
{
	printf 'GET /v1/elapsed/mail HTTP/1.0\r\n%s\r\n' "$2" |
	    SOCAT_PEERADDR=$1 timeout -k 5 20 "$SERVE" -i -c "$ALL" >"$T/ans" 2>"$T/err"
	split_answer "$T/ans"
}
ask_all 127.0.0.1 ""
is "$CODE" 401 "every setting enabled: serve -i wants the [serve] credentials"
AUTH="Authorization: Basic $(printf '%s:%s' "$SUSER" "$SPASS" | base64 -w0)$CR$NL"
ask_all 127.0.0.1 "$AUTH"
is "$CODE" 200 "every setting enabled: serve -i answers 200 with them"
ask_all 198.51.100.7 "$AUTH"
is "$CODE" 403 "every setting enabled: a client outside allow gets 403"

# --- etc/pollguard-etcd.conf ----------------------------------------------

# The strict-mode example: every [etcd] key and the strict cluster keys
# named (set or after ';'); it loads as shipped, at the mode its comment
# asks for (it holds a password), and serve -i answers for both its
# clusters from the local state, asking neither etcd nor the peers.
EEX=$ETC/pollguard-etcd.conf
ECONF=$T/etcd.conf
sed "s|^state = /var/lib/pollguard\$|state = $T/etcd-state|" "$EEX" >"$ECONF"
named "$EEX" >"$T/epresent"
missing=
nkeys=0
for k in $(keys etcd); do
	nkeys=$((nkeys + 1))
	grep -qx "etcd:$k" "$T/epresent" || missing="$missing [etcd] $k"
done
for k in $(keys strict); do
	grep -qx "cluster:$k" "$T/epresent" || missing="$missing [cluster] $k"
done
is "$nkeys:$missing" "8:" \
    "pollguard-etcd.conf names all 8 [etcd] keys and the strict keys"
chmod 644 "$ECONF"
exit_is 78 "pollguard-etcd.conf, mode 0644: refused (a password)" \
    "$SERVE" -i -c "$ECONF" </dev/null
chmod 600 "$ECONF"
for c in mail billing; do
	printf 'GET /v1/status/%s HTTP/1.0\r\n\r\n' "$c" |
	    timeout -k 5 20 "$SERVE" -i -c "$ECONF" >"$T/ans" 2>"$T/err"
	split_answer "$T/ans"
	is "$CODE" 200 "pollguard-etcd.conf as shipped: serve -i answers 200 for $c"
done

# --- etc/inetd.conf under openbsd-inetd ----------------------------------

# The one line; its port, user, server and config replaced.
grep -v -e '^#' -e '^[[:space:]]*$' "$ETC/inetd.conf" >"$T/inetd.line"
is "$(wc -l <"$T/inetd.line")" 1 "inetd.conf: one service line"
read -r f_port f_type f_proto f_wait f_user f_server f_argv0 f_args <"$T/inetd.line"
# nowait.N: inetd's limit, N a minute, above a burst (its default, 256,
# is not); 81-inetd.sh bursts it.
f_max=${f_wait#nowait.}
[[ $f_max =~ ^[0-9]+$ ]] && [ "$f_max" -ge 1000 ] && f_wait=nowait.N
is "$f_port $f_type $f_proto $f_wait $f_user $f_server $f_argv0 $f_args" \
    "7709 stream tcp nowait.N pollguard $BIN/pollguard-serve pollguard-serve -i -c $SYSCONF" \
    "inetd.conf: port 7709, stream tcp nowait.N (N >= 1000 a minute), user pollguard, pollguard-serve -i"
INETD=/usr/sbin/inetd
launch_inetd()
{
	awk -v p="127.0.0.1:$1" -v u="$ME" '{ $1 = p; $5 = u; print }' \
	    "$T/inetd.line" | paths >"$T/inetd.conf"
	bg inetd private_run "$INETD" -d "$T/inetd.conf"
}
# inetd's pidfile is /run/inetd.pid: where a /run of its own cannot be
# had (private_run), one inetd at a time on this host, and none beside
# the host's.
host_lock inetd || diag "no lock on the inetd pidfile: another test may hold it"
inetd_pid=
private_run_ok || inetd_pid=$(cat /run/inetd.pid 2>/dev/null)
if [ ! -x "$INETD" ] || ! dpkg-query -W -f '${Status}' openbsd-inetd 2>/dev/null |
    grep -q ' installed$'; then
	skip "openbsd-inetd not installed (scripts/deps installs it)" 3
elif [ -n "$inetd_pid" ] && _pg_alive "$inetd_pid"; then
	skip "an inetd runs already (/run/inetd.pid: $inetd_pid): a second would take its pidfile" 3
elif start_on_port inetd launch_inetd; then
	ok "openbsd-inetd -d runs the inetd.conf line on 127.0.0.1:$SPORT"
	get inetd "$SPORT"
	kill -TERM "$SPID"
	wait_exit "$SPID" 10 >/dev/null
else
	not_ok "openbsd-inetd -d runs the inetd.conf line on a loopback port"
	diag_file "$T/inetd.conf" "inetd.conf"
	skip "inetd did not start" 2
fi
host_unlock inetd

# --- etc/xinetd.d/pollguard under xinetd ---------------------------------

XF=$ETC/xinetd.d/pollguard
xattr()
{
	sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$XF"
}
is "$(xattr port)/$(xattr user)/$(xattr wait)/$(xattr type)/$(xattr server)/$(xattr server_args)" \
    "7709/pollguard/no/UNLISTED/$BIN/pollguard-serve/-i -c $SYSCONF" \
    "xinetd.d/pollguard: port 7709, user pollguard, wait no, UNLISTED, serve -i"
# Above a burst: xinetd's cps (default 50 10) and no line of its own for
# each connection.
read -r x_cps x_wait <<<"$(xattr cps)"
if [[ ${x_cps:-} =~ ^[0-9]+$ ]] && [ "$x_cps" -ge 1000 ] && [ "${x_wait:-99}" -le 1 ] &&
    [ -z "$(xattr log_on_success)" ] && [ -z "$(xattr log_on_failure)" ] &&
    [ "$(grep -c '^[[:space:]]*log_on_\(success\|failure\)[[:space:]]*=' "$XF")" = 2 ]; then
	ok "xinetd.d/pollguard: cps of at least 1000 a second, disabled 1 s at most; log_on_success and log_on_failure empty"
else
	not_ok "xinetd.d/pollguard: cps of at least 1000 a second, disabled 1 s at most; log_on_success and log_on_failure empty"
fi
XCACHE=$PG_TOP/tests/.cache
XINETD=$XCACHE/xinetd/usr/sbin/xinetd
[ -x "$XINETD" ] || XINETD=$(command -v xinetd 2>/dev/null || echo /usr/sbin/xinetd)
# Only on loopback: nothing else added. With a syslog of its own when
# possible, where xinetd says what it thinks of the file.
launch_xinetd()
{
	paths "$XF" | sed -e "s/^\([[:space:]]*port[[:space:]]*=[[:space:]]*\)7709\$/\1$1/" \
	    -e "s/^\([[:space:]]*user[[:space:]]*=[[:space:]]*\)pollguard\$/\1$ME/" \
	    -e "/^{/a\\
	bind = 127.0.0.1" >"$T/xinetd.conf"
	XNAME=xinetd-$1
	if [ "$ns_ok" = 1 ]; then
		ns_start "$XNAME" "" "$XINETD" -dontfork -f "$T/xinetd.conf" \
		    -pidfile "$T/xinetd.pid"
	else
		bg "$XNAME" "$XINETD" -dontfork -f "$T/xinetd.conf" -pidfile "$T/xinetd.pid"
	fi
}
if [ ! -x "$XINETD" ]; then
	why="xinetd not in tests/.cache/xinetd (scripts/deps fetches it with apt-get download)"
	[ -s "$XCACHE/xinetd.why" ] && why="$why: $(head -n 1 "$XCACHE/xinetd.why")"
	skip "skipped: $why" 5
elif ! "$XINETD" -version >/dev/null 2>"$T/xv.err"; then
	skip "skipped: $XINETD does not run here: $(head -c 200 "$T/xv.err")" 5
elif start_on_port xinetd launch_xinetd; then
	ok "xinetd -dontfork runs xinetd.d/pollguard on 127.0.0.1:$SPORT"
	get xinetd "$SPORT"
	# A burst of 300 connections at once from one client: within cps,
	# so xinetd keeps the service (its default, 50 10, would disable it
	# for 10 s); once the 8 that per_source lets in are answered (408 at
	# serve's timeout), a request gets through again.
	timeout -k 5 100 "${PG_BUILD:-$PG_TOP}/tests/connflood" -f -n 300 -t 60 \
	    127.0.0.1 "$SPORT" >"$T/xburst.out" 2>&1
	diag "burst: $(tail -n 1 "$T/xburst.out")"
	x200()
	{
		[ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' \
		    "http://127.0.0.1:$SPORT/v1/elapsed/mail" 2>/dev/null)" = 200 ]
	}
	if wait_for 5 x200; then
		ok "xinetd: after a burst of 300 connections at once, it still answers"
	else
		not_ok "xinetd: after a burst of 300 connections at once, it still answers"
	fi
	if [ "$ns_ok" = 1 ]; then
		ns_stop "$XNAME" "$SPID"
		if grep -q 'Started working: 1 available service' "$T/ns-$XNAME.log" &&
		    ! grep -qE '\[file=|Must specify|DISABLING' "$T/ns-$XNAME.log"; then
			ok "xinetd: no complaint about the file, 1 service (its syslog)"
		else
			not_ok "xinetd: no complaint about the file, 1 service (its syslog)"
			diag_file "$T/ns-$XNAME.log" "xinetd syslog"
		fi
	else
		kill -TERM "$SPID"
		wait_exit "$SPID" 10 >/dev/null
		skip "xinetd's syslog not read: $ns_why"
	fi
else
	not_ok "xinetd -dontfork runs xinetd.d/pollguard on a loopback port"
	diag_file "$T/xinetd.conf" "xinetd.conf"
	skip "xinetd did not start" 4
fi

# --- etc/cron.d/pollguard ---------------------------------------------------

CF=$ETC/cron.d/pollguard
grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$CF" >"$T/cron.env"
grep -v -E -e '^#' -e '^[[:space:]]*$' -e '^[A-Za-z_][A-Za-z0-9_]*=' "$CF" >"$T/cron.entry"
is "$(wc -l <"$T/cron.entry")" 1 "cron.d/pollguard: one entry"
read -r _ _ _ _ _ c_user c_cmd <"$T/cron.entry"
is "$c_user" root "cron.d/pollguard: the user field is root (it writes the state directory)"
has_line "$T/cron.env" '^SHELL=/bin/sh$' "cron.d/pollguard: SHELL=/bin/sh"
has_line "$T/cron.env" "^PATH=(.*:)?$BIN(:.*)?\$" "cron.d/pollguard: PATH has $BIN"
has_line "$T/cron.env" '^MAILTO=' "cron.d/pollguard: MAILTO is set"
case $c_cmd in
"$BIN/pollguard-run -c $SYSCONF mail -- "*)
	ok "cron.d/pollguard: pollguard-run mail -- job" ;;
*)
	not_ok "cron.d/pollguard: pollguard-run mail -- job"
	diag "command: $c_cmd" ;;
esac
JOB=${c_cmd##* -- }

# The recipe on a fleet of two nodes on this host, alpha and beta, each
# with its own state directory and pollguard-serve on loopback: the
# example config with node, state and two [peer] sections set. A first
# run on alpha polls; a second, on beta, within wait, skips because
# alpha was active. Both say nothing.
# fleet NODE DIR: $T/NODE.conf, the example config for NODE, state DIR.
fleet()
{
	{
		sed -e "s|^;node = .*|node = $1|" \
		    -e "s|^state = /var/lib/pollguard\$|state = $2|" "$EX"
		printf '[peer alpha]\nurl = http://127.0.0.1:%s\n' "$PORT_ALPHA"
		printf '[peer beta]\nurl = http://127.0.0.1:%s\n' "$PORT_BETA"
	} >"$T/$1.conf"
	chmod 644 "$T/$1.conf"
}
# The job: a script that notes its run and environment in $MARK.
mkjob()
{
	MARK=$1
	printf '#!/bin/sh\necho "ran PATH=$PATH SHELL=$SHELL" >>%s\n' "$MARK" >"$T/job"
	chmod 755 "$T/job"
}
# cronfile NODE [JOB]: the example with the tools, NODE's config and the
# job (default $T/job) replaced.
cronfile()
{
	CONF=$T/$1.conf paths "$CF" | sed "s|-- $JOB\$|-- ${2:-$T/job}|"
}
# entry: the command of the entry in a cron file on stdin.
entry()
{
	grep -v -E -e '^#' -e '^[[:space:]]*$' -e '^[A-Za-z_][A-Za-z0-9_]*=' |
	    { read -r _ _ _ _ _ _ c; printf '%s' "$c"; }
}
runs()
{
	if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi
}
# serve_state NAME DIR: a pollguard-serve for the records in DIR; PORT.
serve_state()
{
	printf '[pollguard]\nstate = %s\n[cluster mail]\nwait = 10m\n' "$2" >"$T/$1-serve.conf"
	serve_start "$1" "$T/$1-serve.conf"
}

fleet_ok=1
serve_state serve-alpha "$T/sh-alpha" && PORT_ALPHA=$PORT || fleet_ok=0
serve_state serve-beta "$T/sh-beta" && PORT_BETA=$PORT || fleet_ok=0
if [ "$fleet_ok" = 0 ]; then
	not_ok "pollguard-serve for alpha and beta on loopback"
	skip "no fleet" 7
else
	ok "pollguard-serve for alpha and beta on loopback ($PORT_ALPHA, $PORT_BETA)"
	fleet alpha "$T/sh-alpha"
	fleet beta "$T/sh-beta"
	mkjob "$T/sh.ran"
	mapfile -t cenv <"$T/cron.env"
	exit_is 0 "sh -c entry on alpha: exit 0" \
	    env -i HOME=/ LOGNAME="$ME" "${cenv[@]}" /bin/sh -c "$(cronfile alpha | entry)"
	is "$(runs "$T/sh.ran")" 1 "sh -c entry on alpha: the job ran"
	is "$(cat "$T/out" "$T/err")" "" "sh -c entry on alpha: no output (nothing to mail)"
	is "$(sed -n '1s/^ran PATH=\([^ ]*\) .*/\1/p' "$T/sh.ran")" \
	    "$(sed -n 's/^PATH=//p' "$T/cron.env")" "sh -c entry: the job has the file's PATH"
	exit_is 1 "sh -c entry on beta, within wait: exit 1 (skip: alpha was active)" \
	    env -i HOME=/ LOGNAME="$ME" "${cenv[@]}" /bin/sh -c "$(cronfile beta | entry)"
	is "$(runs "$T/sh.ran")" 1 "sh -c entry on beta: the job did not run"
	is "$(cat "$T/out" "$T/err")" "" "sh -c entry on beta: no output (a no is silent)"
fi

# Under Debian's cron, with a syslog of its own (ns_start) and its own
# /etc/cron.d and /etc/crontab, /var/spool/cron, /run and /dev/shm empty
# (faketime(1) keeps a semaphore there named after its PID, left behind
# when it is killed; one of another run's PID would make it fail).
# cron_run NAME FAKETIME ERE: start cron -f -L 15 (logging the start and
# end of every job) on the files in $T/ns-NAME/crond, its clock started
# at FAKETIME; wait until a line of its syslog (and the tools') matches
# ERE, stop it; the log is $T/ns-NAME.log. 1 when no line matched.
CRON=$(command -v cron 2>/dev/null || echo /usr/sbin/cron)
cron_run()
{
	local d=$T/ns-$1 rc=0 end
	: >"$d/crontab"
	ns_start "$1" '
		mount --bind "$d/crond" /etc/cron.d
		mount --bind "$d/crontab" /etc/crontab
		mount -t tmpfs tmpfs /var/spool/cron
		mount -t tmpfs tmpfs /run
		mount -t tmpfs tmpfs /dev/shm' faketime -f "@$2" "$CRON" -f -L 15 || return 1
	end=$(($(now_ms) + 40000))
	until ns_log "$1" | grep -qE "$3"; do
		if ! _pg_alive "$BGPID" || [ "$(now_ms)" -ge "$end" ]; then
			rc=1
			break
		fi
		sleep 0.1
	done
	ns_stop "$1" "$BGPID"
	return "$rc"
}
# broken minute|user: the example with its entry's minute 61, or without
# its user field.
broken()
{
	awk -v what="$1" '
	/^#/ || /^[[:space:]]*$/ || /^[A-Za-z_][A-Za-z0-9_]*=/ { print; next }
	what == "minute" { $1 = "61" }
	what == "user" { $6 = "" }
	{ print }' "$CF"
}
# mailed NAME: the log of cron run NAME says the entry's output was
# mailed, or discarded (no MTA): 0; it ran and nothing was: 1; it did not
# run: 2. cron logs nothing of mail when there is no output.
mailed()
{
	local log=$T/ns-$1.log pid
	pid=$(sed -n 's/.*CRON\[\([0-9]*\)\]: (root) CMD .*pollguard-run.*/\1/p' "$log" |
	    head -n 1)
	[ -n "$pid" ] || return 2
	grep -qE "CRON\[$pid\]: .*(discarding output|MAIL)" "$log" || return 1
}

cron_why=
if ! [ -x "$CRON" ] || ! dpkg-query -W -f '${Status}' cron 2>/dev/null |
    grep -q ' installed$'; then
	cron_why="Debian's cron not installed (scripts/deps installs it)"
elif ! command -v faketime >/dev/null 2>&1; then
	cron_why="faketime not installed (scripts/deps installs it)"
elif [ "$ns_ok" = 0 ]; then
	cron_why=$ns_why
elif [ "$fleet_ok" = 0 ]; then
	cron_why="no fleet (pollguard-serve did not start)"
fi
if [ -n "$cron_why" ]; then
	skip "$cron_why" 13
else
	# 1: the example as it is, next to two broken copies of it: a minute
	# of 61, and no user field. The clock at 00:01 runs no */5 entry.
	d=$T/ns-check
	mkdir -p "$d/crond"
	cp "$CF" "$d/crond/pollguard"
	broken minute >"$d/crond/bad-minute"
	broken user >"$d/crond/no-user"
	chmod 644 "$d/crond/"*
	if cron_run check "2026-01-01 00:01:00" 'Running @reboot jobs'; then
		ok "cron -f read /etc/cron.d and started"
	else
		not_ok "cron -f read /etc/cron.d and started"
		diag_file "$T/check.err" "cron stderr"
	fi
	has_line "$T/ns-check.log" 'bad minute; while reading /etc/cron.d/bad-minute' \
	    "cron: a copy with minute 61 is reported (bad minute)"
	has_line "$T/ns-check.log" 'bad username; while reading /etc/cron.d/no-user' \
	    "cron: a copy without the user field is reported (bad username)"
	lacks_line "$T/ns-check.log" '/etc/cron\.d/pollguard|\*system\*pollguard\)' \
	    "cron: etc/cron.d/pollguard is accepted (no error, owner or mode complaint)"

	# 2: a control, the entry on alpha with a job that echoes: its output
	# is mailed, or discarded when no MTA is installed; cron logs either.
	# 3 and 4: the entry, run by cron at 00:05, on alpha (it polls), then
	# on beta (it skips). Nothing is mailed either time. A fleet of its
	# own: new state directories, and a serve for each.
	serve_state serve-cron-alpha "$T/cron-state-alpha" && PORT_ALPHA=$PORT
	serve_state serve-cron-beta "$T/cron-state-beta" && PORT_BETA=$PORT
	mkdir -p "$T/ns-echo/crond" "$T/ns-alpha/crond" "$T/ns-beta/crond"
	cronfile alpha "/bin/echo output" >"$T/ns-echo/crond/pollguard"
	cronfile alpha >"$T/ns-alpha/crond/pollguard"
	cronfile beta >"$T/ns-beta/crond/pollguard"
	chmod 644 "$T"/ns-*/crond/pollguard
	# The control runs as alpha, with a state directory of its own.
	fleet alpha "$T/cron-state-echo"
	cron_run echo "2026-01-01 00:04:57" '\(root\) END \(.*pollguard-run'
	if mailed echo; then
		ok "cron control: a job with output is mailed (or discarded: no MTA)"
	else
		not_ok "cron control: a job with output is mailed (or discarded: no MTA)"
		diag_file "$T/ns-echo.log" "cron log"
	fi

	mkjob "$T/cron.ran"
	fleet alpha "$T/cron-state-alpha"
	fleet beta "$T/cron-state-beta"
	cron_run alpha "2026-01-01 00:04:57" '\(root\) END \(.*pollguard-run'
	is "$?" 0 "cron ran the entry on alpha at 00:05"
	is "$(runs "$T/cron.ran")" 1 "cron on alpha: the job ran"
	rec=$(CONF=$T/alpha.conf record mail)
	if [[ $rec =~ ^[0-9]+$ ]]; then
		ok "cron on alpha: the cluster's record was written"
	else
		not_ok "cron on alpha: the cluster's record was written"
		diag "pgstate read mail: $rec"
	fi
	mailed alpha
	if [ "$?" = 1 ]; then
		ok "cron on alpha: nothing to mail"
	else
		not_ok "cron on alpha: nothing to mail"
		diag_file "$T/ns-alpha.log" "cron log"
	fi
	cron_run beta "2026-01-01 00:04:57" '\(root\) END \(.*pollguard-run'
	is "$?" 0 "cron ran the entry on beta at 00:05"
	is "$(runs "$T/cron.ran")" 1 "cron on beta, within wait: the job did not run"
	mailed beta
	if [ "$?" = 1 ]; then
		ok "cron on beta: nothing to mail (a no is silent)"
	else
		not_ok "cron on beta: nothing to mail (a no is silent)"
		diag_file "$T/ns-beta.log" "cron log"
	fi
	is "$(sed -n '1s/^ran PATH=\([^ ]*\) .*/\1/p' "$T/cron.ran")" \
	    "$(sed -n 's/^PATH=//p' "$T/cron.env")" "cron: the job has the file's PATH"
fi

# --- etc/systemd -------------------------------------------------------------

SD=$ETC/systemd
SDA=$(command -v systemd-analyze 2>/dev/null)
SSA=$(command -v systemd-socket-activate 2>/dev/null)
mkdir -p "$T/units"
JOB_UNITS="pollguard-job@.service pollguard-job@.timer"
for f in pollguard.socket pollguard@.service pollguard.service $JOB_UNITS; do
	paths "$SD/$f" >"$T/units/$f"
done
# unit KEY FILE: the values of KEY in a unit (one a line).
unit()
{
	sed -n "s/^$1=//p" "$2"
}

# Static: what the issue asks of each unit.
if [ "$(unit ListenStream "$SD/pollguard.socket")" = 7709 ] &&
    [ "$(unit Accept "$SD/pollguard.socket")" = yes ] &&
    [[ $(unit MaxConnections "$SD/pollguard.socket") =~ ^[0-9]+$ ]]; then
	ok "pollguard.socket: ListenStream=7709, Accept=yes, MaxConnections"
else
	not_ok "pollguard.socket: ListenStream=7709, Accept=yes, MaxConnections"
fi
if [ "$(unit StandardInput "$SD/pollguard@.service")" = socket ] &&
    [ "$(unit ExecStart "$SD/pollguard@.service")" = "$BIN/pollguard-serve -i -c $SYSCONF" ]; then
	ok "pollguard@.service: StandardInput=socket, ExecStart=$BIN/pollguard-serve -i -c $SYSCONF"
else
	not_ok "pollguard@.service: StandardInput=socket, ExecStart=$BIN/pollguard-serve -i -c $SYSCONF"
fi
if [ "$(unit Type "$SD/pollguard.service")" = simple ] &&
    [[ $(unit ExecReload "$SD/pollguard.service") =~ ^(/bin/|/usr/bin/)?kill\ -HUP\ \$MAINPID$ ]]; then
	ok "pollguard.service: Type=simple, ExecReload=kill -HUP \$MAINPID"
else
	not_ok "pollguard.service: Type=simple, ExecReload=kill -HUP \$MAINPID"
fi
# The job: skips are 1 to 3 of pollguard-check -E, errors fail the unit.
if [ "$(unit ExecCondition "$SD/pollguard-job@.service")" = "$BIN/pollguard-check -E -c $SYSCONF %i" ] &&
    [ -z "$(unit SuccessExitStatus "$SD/pollguard-job@.service")" ] &&
    [[ $(unit ExecStart "$SD/pollguard-job@.service") == "$BIN/pollguard-touch -c $SYSCONF %i -- "* ]]; then
	ok "pollguard-job@.service: ExecCondition=pollguard-check -E, the job under pollguard-touch, no SuccessExitStatus="
else
	not_ok "pollguard-job@.service: ExecCondition=pollguard-check -E, the job under pollguard-touch, no SuccessExitStatus="
fi
for f in pollguard@.service pollguard.service; do
	is "$(unit User "$SD/$f")/$(unit NoNewPrivileges "$SD/$f")/$(unit ProtectSystem "$SD/$f")/$(unit CapabilityBoundingSet "$SD/$f")" \
	    "pollguard/yes/strict/" "$f: User=pollguard, NoNewPrivileges, ProtectSystem=strict, no capabilities"
done

# systemd-analyze verify: no error and no warning, the Documentation=
# pages included (from man/, through MANPATH) when man(1) is there.
for p in "$PG_TOP"/man/*.[1-8]; do
	mkdir -p "$T/man/man${p##*.}"
	ln -s "$p" "$T/man/man${p##*.}/"
done
VERIFY_MAN=--man=yes
command -v man >/dev/null 2>&1 || VERIFY_MAN=--man=no
sdverify()
{
	(cd "$(dirname "$1")" && MANPATH=$T/man SYSTEMD_LOG_COLOR=0 \
	    timeout -k 5 60 "$SDA" verify "$VERIFY_MAN" "./$(basename "$1")") \
	    >"$T/verify.out" 2>&1
}
sda_why=
if [ -z "$SDA" ]; then
	sda_why="systemd-analyze not installed (no systemd here)"
else
	mkdir -p "$T/units-probe"
	printf '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n' \
	    >"$T/units-probe/probe.service"
	sdverify "$T/units-probe/probe.service" ||
	    sda_why="systemd-analyze verify does not work here: $(head -c 200 "$T/verify.out")"
	[ -z "$sda_why" ] && [ -s "$T/verify.out" ] &&
	    sda_why="systemd-analyze verify warns on a trivial unit: $(head -c 200 "$T/verify.out")"
fi
if [ -n "$sda_why" ]; then
	skip "$sda_why" 8
else
	for f in pollguard.socket pollguard@.service pollguard.service $JOB_UNITS; do
		if sdverify "$T/units/$f" && ! [ -s "$T/verify.out" ]; then
			ok "systemd-analyze verify $f: no error, no warning"
		else
			not_ok "systemd-analyze verify $f: no error, no warning"
			diag_file "$T/verify.out" "systemd-analyze verify"
		fi
	done
	# The control: a misspelt key is a warning, and so fails the above.
	mkdir -p "$T/units-bad"
	sed 's/^ProtectHome=/ProtectHom=/' "$T/units/pollguard.service" \
	    >"$T/units-bad/pollguard.service"
	sdverify "$T/units-bad/pollguard.service"
	has_line "$T/verify.out" "Unknown key.*ProtectHom" \
	    "systemd-analyze verify reports a misspelt key (control)"
	for f in pollguard@.service pollguard.service; do
		(cd "$T/units" && SYSTEMD_LOG_COLOR=0 timeout -k 5 60 "$SDA" security \
		    --offline=yes --threshold=20 "./$f") >"$T/security.out" 2>&1
		rc=$?
		if [ "$rc" = 0 ]; then
			ok "systemd-analyze security --offline $f: exposure at most 2.0 ($(grep -o 'level for.*' "$T/security.out"))"
		else
			not_ok "systemd-analyze security --offline $f: exposure at most 2.0"
			grep -v '^✓' "$T/security.out" | tail -n 20 >"$T/security.short"
			diag_file "$T/security.short" "systemd-analyze security"
		fi
	done
fi

# The ExecStart lines, paths replaced, under systemd-socket-activate
# (Accept=yes, as pollguard.socket) and standalone (the port 7709 of -l
# replaced by a free one on 127.0.0.1). They read the shipped config.
read -r -a SOCK_CMD <<<"$(unit ExecStart "$T/units/pollguard@.service")"
SA_LINE=$(unit ExecStart "$T/units/pollguard.service")
launch_ssa()
{
	bg ssa "$SSA" -l "127.0.0.1:$1" --inetd -a "${SOCK_CMD[@]}"
}
if [ -z "$SSA" ]; then
	skip "systemd-socket-activate not installed (no systemd here)" 3
elif start_on_port ssa launch_ssa; then
	ok "pollguard@.service's ExecStart under systemd-socket-activate --inetd on 127.0.0.1:$SPORT"
	get "pollguard@.service" "$SPORT"
	kill -TERM "$SPID"
	wait_exit "$SPID" 10 >/dev/null
else
	not_ok "pollguard@.service's ExecStart under systemd-socket-activate --inetd"
	skip "systemd-socket-activate did not start" 2
fi

# Standalone on a config of its own (reload changes it).
SACONF=$T/standalone.conf
cp "$CONF" "$SACONF"
SA_LINE=${SA_LINE//$CONF/$SACONF}
case $SA_LINE in
*" -l :7709"*)
	ok "pollguard.service's ExecStart listens with -l :7709" ;;
*)
	not_ok "pollguard.service's ExecStart listens with -l :7709"
	diag "ExecStart=$SA_LINE" ;;
esac
launch_standalone()
{
	local c
	read -r -a c <<<"${SA_LINE/ -l :7709/ -l 127.0.0.1:$1}"
	bg standalone "${c[@]}"
}
if start_on_port standalone launch_standalone; then
	ok "pollguard.service's ExecStart serves on 127.0.0.1:$SPORT"
	get "pollguard.service" "$SPORT"
	sed -i "/^\[serve\]\$/a allow = 192.0.2.0/24" "$SACONF"
	reload=$(unit ExecReload "$SD/pollguard.service")
	MAINPID=$SPID sh -c "${reload//\$MAINPID/\$MAINPID}" 2>"$T/err"
	is "$?" 0 "pollguard.service's ExecReload runs"
	sa403()
	{
		[ "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' \
		    "http://127.0.0.1:$SPORT/v1/elapsed/mail" 2>/dev/null)" = 403 ]
	}
	if wait_for 10 sa403; then
		ok "after ExecReload, the changed config is in force (allow: 403)"
	else
		not_ok "after ExecReload, the changed config is in force (allow: 403)"
		diag_file "$T/standalone.err" "serve stderr"
	fi
	serve_stop "$SPID"
	is "$?" 0 "pollguard.service's serve exits 0 on SIGTERM (systemctl stop)"
else
	not_ok "pollguard.service's ExecStart serves on a loopback port"
	skip "serve did not start" 5
fi

# What serve does, under strace, against the sandbox of the units:
# every system call within SystemCallFilter, sockets only of the
# RestrictAddressFamilies, nothing opened for writing or created
# (ProtectSystem=strict) but, in inetd mode, its record of log lines in
# $RUNTIME_DIRECTORY (RuntimeDirectory=pollguard), no memory both
# writable and executable (MemoryDenyWriteExecute). One request through
# each ExecStart, and a reload standalone.
# calls FILE: the system calls in a strace -f output.
calls()
{
	sed 's/^[0-9]\{1,\} \{1,\}//' "$1" |
	    sed -n -e 's/^<\.\.\. \([a-z0-9_]*\) resumed>.*/\1/p' -e 't' \
	    -e 's/^\([a-z0-9_]*\)(.*/\1/p' | sort -u
}
# group NAME: a system call or @group, groups expanded (systemd-analyze).
group()
{
	local s
	case $1 in
	@*)
		"$SDA" syscall-filter "$1" 2>/dev/null | sed -n '2,$p' |
		    sed 's/^[[:space:]]*//; /^#/d; /^$/d' | while read -r s; do
			group "$s"
		done
		;;
	*) echo "$1" ;;
	esac
}
# allowed UNIT: the system calls its SystemCallFilter= lines allow.
allowed()
{
	local v w
	: >"$T/allow" && : >"$T/deny"
	while read -r v; do
		case $v in
		"~"*) for w in ${v#\~}; do group "$w"; done >>"$T/deny" ;;
		*) for w in $v; do group "$w"; done >>"$T/allow" ;;
		esac
	done < <(unit SystemCallFilter "$1")
	sort -u "$T/allow" -o "$T/allow"
	sort -u "$T/deny" -o "$T/deny"
	comm -23 "$T/allow" "$T/deny"
}
STRACE=(strace -f -qq -y -e signal=none)
RT=$T/runtime
mkdir -m 700 "$RT"
launch_ssa_strace()
{
	bg ssa-strace "$SSA" -l "127.0.0.1:$1" --inetd -E RUNTIME_DIRECTORY="$RT" \
	    -a "${STRACE[@]}" -o "$T/strace-inetd" "${SOCK_CMD[@]}"
}
launch_sa_strace()
{
	local c
	read -r -a c <<<"${SA_LINE/ -l :7709/ -l 127.0.0.1:$1}"
	bg sa-strace "${STRACE[@]}" -o "$T/strace-standalone" "${c[@]}"
}
cp "$CONF" "$SACONF"
if ! command -v strace >/dev/null 2>&1; then
	skip "strace not installed (scripts/deps installs it)" 7
elif [ -z "$SSA" ] || [ -n "$sda_why" ]; then
	skip "systemd-socket-activate or systemd-analyze missing or not working here" 7
elif ! strace -qq -o /dev/null true 2>"$T/strace.err"; then
	skip "strace does not work here: $(head -c 200 "$T/strace.err")" 7
else
	traced=1
	if start_on_port ssa-strace launch_ssa_strace; then
		curl -s --max-time 10 -o /dev/null "http://127.0.0.1:$SPORT/v1/elapsed/mail"
		kill -TERM "$SPID"
		wait_exit "$SPID" 10 >/dev/null
	else
		traced=0
	fi
	if start_on_port sa-strace launch_sa_strace; then
		curl -s --max-time 10 -o /dev/null "http://127.0.0.1:$SPORT/v1/elapsed/mail"
		kill -HUP "$(pgrep -P "$SPID" -x pollguard-serve || echo "$SPID")" 2>/dev/null
		curl -s --max-time 10 -o /dev/null "http://127.0.0.1:$SPORT/v1/elapsed/zeta"
		kill -TERM "$(pgrep -P "$SPID" -x pollguard-serve || echo "$SPID")" 2>/dev/null
		wait_exit "$SPID" 10 >/dev/null
	else
		traced=0
	fi
	if [ "$traced" = 1 ] && grep -q 'accept4\|getpeername' "$T/strace-standalone" &&
	    grep -q 'getpeername' "$T/strace-inetd"; then
		ok "serve traced through both ExecStart lines, a request each"
	else
		not_ok "serve traced through both ExecStart lines, a request each"
	fi
	for pair in pollguard@.service:inetd pollguard.service:standalone; do
		f=${pair%%:*} mode=${pair#*:}
		allowed "$SD/$f" >"$T/allowed"
		calls "$T/strace-$mode" >"$T/calls"
		out=$(comm -23 "$T/calls" "$T/allowed" | tr '\n' ' ')
		if [ -s "$T/calls" ] && [ "$(wc -l <"$T/allowed")" -gt 100 ] && [ -z "$out" ]; then
			ok "$f: serve's $(wc -l <"$T/calls") system calls are all within SystemCallFilter"
		else
			not_ok "$f: serve's system calls are all within SystemCallFilter"
			diag "outside the filter: $out"
		fi
	done
	fams=$(cat "$T/strace-inetd" "$T/strace-standalone" |
	    sed -n 's/^[0-9 ]*socket(\(AF_[A-Z0-9]*\),.*/\1/p' | sort -u | tr '\n' ' ')
	allowf=" $(unit RestrictAddressFamilies "$SD/pollguard.service") "
	bad=
	for f in $fams; do
		[[ $allowf == *" $f "* ]] || bad="$bad $f"
	done
	if [ -n "$fams" ] && [ -z "$bad" ] &&
	    [ "$allowf" = " $(unit RestrictAddressFamilies "$SD/pollguard@.service") " ]; then
		ok "serve's sockets ($fams) are all in RestrictAddressFamilies"
	else
		not_ok "serve's sockets are all in RestrictAddressFamilies"
		diag "families used: $fams; not allowed:$bad; allowed:$allowf"
	fi
	cat "$T/strace-inetd" "$T/strace-standalone" |
	    grep -E '^[0-9 ]*(open(at)?\(.*O_(WRONLY|RDWR|CREAT)|(mkdir|mkdirat|unlink|unlinkat|rename|renameat2?|link|linkat|symlink|symlinkat|chmod|fchmod|fchmodat|truncate|ftruncate)\()' \
	    >"$T/writes"
	grep -vF "<$RT>, \"serve-log\", " "$T/writes" >"$T/writes.other"
	if [ -s "$T/writes.other" ]; then
		not_ok "serve opens nothing for writing and creates nothing (ProtectSystem=strict) but its record in RuntimeDirectory="
		diag_file "$T/writes.other" "write calls"
	else
		ok "serve opens nothing for writing and creates nothing (ProtectSystem=strict) but its record in RuntimeDirectory="
	fi
	is "$(unit RuntimeDirectory "$SD/pollguard@.service")/$(stat -c '%F %a' "$RT/serve-log" 2>&1)" \
	    "pollguard/regular file 600" \
	    "pollguard@.service: RuntimeDirectory=pollguard, where serve -i keeps its record (mode 0600)"
	cat "$T/strace-inetd" "$T/strace-standalone" |
	    grep -E '^[0-9 ]*(mmap|mprotect|pkey_mprotect)\(.*(PROT_WRITE.*PROT_EXEC|PROT_EXEC.*PROT_WRITE)' \
	    >"$T/wx"
	if [ -s "$T/wx" ]; then
		not_ok "serve maps no memory writable and executable (MemoryDenyWriteExecute)"
		diag_file "$T/wx" "W+X mappings"
	else
		ok "serve maps no memory writable and executable (MemoryDenyWriteExecute)"
	fi
fi

# --- etc/tmpfiles.d/pollguard.conf -----------------------------------------

TF=$ETC/tmpfiles.d/pollguard.conf
if ! command -v systemd-tmpfiles >/dev/null 2>&1; then
	skip "systemd-tmpfiles not installed (no systemd here)" 5
elif [ "$(id -u)" -ne 0 ]; then
	skip "not root: systemd-tmpfiles cannot make root's directory" 5
else
	# The root has the user pollguard (uid 64999 here), as the Debian
	# package's sysusers.d makes it, or useradd.
	mkdir -p "$T/root/etc"
	printf 'root:x:0:0::/root:/bin/sh\npollguard:x:64999:64999::/:/usr/sbin/nologin\n' \
	    >"$T/root/etc/passwd"
	printf 'root:x:0:\npollguard:x:64999:\n' >"$T/root/etc/group"
	exit_is 0 "systemd-tmpfiles --create --root=DIR tmpfiles.d/pollguard.conf" \
	    systemd-tmpfiles --create --root="$T/root" "$TF"
	err_empty "systemd-tmpfiles: no complaint"
	is "$(stat -c '%F %a %U %G' "$T/root/var/lib/pollguard" 2>&1)" \
	    "directory 755 root root" "tmpfiles.d: /var/lib/pollguard, mode 755, root:root"
	is "$(stat -c '%F %a %u %g' "$T/root/run/pollguard" 2>&1)" \
	    "directory 700 64999 64999" "tmpfiles.d: /run/pollguard, mode 700, pollguard's"
	sed "s|^state = /var/lib/pollguard\$|state = $T/root/var/lib/pollguard|" \
	    "$EX" >"$T/tmpfiles.conf"
	exit_is 0 "pollguard-check and -touch use the directory it made" \
	    sh -c "'$CHECK' -c '$T/tmpfiles.conf' mail && '$TOUCH' -c '$T/tmpfiles.conf' mail"
fi

finish
