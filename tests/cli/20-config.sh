#!/bin/bash
# The config file through the real tools: every error is "TOOL: FILE:LINE:
# message" and exit 78; valid files load; a file with passwords must not be
# readable by others; settle is 0 or at least 100ms; a cluster with peers
# waits longer than the claim horizon; allow may be repeated; -c,
# POLLGUARD_CONF and the default are chosen in that order.
. "${PG_TOP:-.}/tests/lib.sh"

_cn=0

# newconf: a fresh file name in $F.
newconf()
{
	_cn=$((_cn + 1))
	F=$T/conf$_cn.conf
}

# ere_quote STRING: STRING as a literal in an extended regular expression.
ere_quote()
{
	printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g'
}

# conf_err DESC LINE MSG [TOOL] < FILE: the tool (pollguard-check by
# default) given this config exits 78 and says "TOOL: FILE:LINE: ..." with
# MSG in the message; LINE "any" accepts any line number.
conf_err()
{
	local desc=$1 line=$2 msg=$3 tool=${4:-$CHECK} name pat
	name=${tool##*/}
	newconf
	cat >"$F"
	chmod 600 "$F"
	exit_is 78 "$desc: exit 78" "$tool" -c "$F" c1
	[ "$line" = any ] && line='[0-9]+'
	pat="^$name: $(ere_quote "$F"):$line: "
	if grep -E -- "$pat" "$T/err" | grep -qF -- "$msg"; then
		ok "$desc: \"$name: FILE:${2}: ${msg:-...}\""
	else
		not_ok "$desc: \"$name: FILE:${2}: ${msg:-...}\""
		diag "want a line matching: $pat${msg:+ containing '$msg'}"
		diag_file "$T/err" stderr
	fi
}

# conf_ok DESC < FILE: pollguard-check -n accepts the file (cluster c1).
conf_ok()
{
	newconf
	cat >"$F"
	chmod 600 "$F"
	exit_is 0 "$1: loads (check -n c1 exits 0)" "$CHECK" -n -c "$F" c1
}

HEAD="[pollguard]
node = testnode
state = $STATE"
: >"$T/ca.pem"

# --- errors, with their line ---

conf_err "unknown key in [cluster]" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
colour = blue
EOF

conf_err "unknown key in [pollguard]" 2 "" <<EOF
[pollguard]
nodes = testnode
state = $STATE
[cluster c1]
wait = 10s
EOF

conf_err "cluster key in [pollguard]" 4 "" <<EOF
$HEAD
wait = 10s
[cluster c1]
wait = 10s
EOF

conf_err "unknown key in [peer]" 8 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
url = http://127.0.0.1:9/
port = 80
EOF

conf_err "unknown key in [serve]" 7 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
port = 8080
EOF

conf_err "unknown section [clusters c2]" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[clusters c2]
wait = 10s
EOF

conf_err "unknown section [global]" 1 "" <<EOF
[global]
$HEAD
[cluster c1]
wait = 10s
EOF

conf_err "duplicate [cluster c1]" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[cluster c1]
wait = 20s
EOF

conf_err "duplicate [peer p1]" 8 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
url = http://127.0.0.1:9/
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_err "duplicate [pollguard]" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[pollguard]
settle = 0
EOF

conf_err "key before any section" 1 "" <<EOF
wait = 10s
$HEAD
[cluster c1]
wait = 10s
EOF

conf_err "key set twice" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
wait = 20s
EOF

conf_err "empty value" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
name =
EOF

conf_err "indented line after a key" 6 "" <<EOF
$HEAD
[cluster c1]
name = first
  continued
wait = 10s
EOF

LINE200="name = $(printf 'x%.0s' $(seq 193))"
LINE199="name = $(printf 'x%.0s' $(seq 192))"
conf_err "line of 200 characters" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
$LINE200
EOF

conf_err "wait 5s" 5 "too small (minimum 10s)" <<EOF
$HEAD
[cluster c1]
wait = 5s
EOF

conf_err "wait 9999ms" 5 "too small (minimum 10s)" <<EOF
$HEAD
[cluster c1]
wait = 9999ms
EOF

conf_err "wait 9 (bare seconds)" 5 "too small (minimum 10s)" <<EOF
$HEAD
[cluster c1]
wait = 9
EOF

conf_err "wait 31d" 5 "too large (maximum" <<EOF
$HEAD
[cluster c1]
wait = 31d
EOF

conf_err "wait 721h" 5 "too large (maximum" <<EOF
$HEAD
[cluster c1]
wait = 721h
EOF

for d in -10s +10s 1.5m '10 s' 10x s 10sec 0x10s; do
	conf_err "wait '$d'" 5 "invalid duration" <<EOF
$HEAD
[cluster c1]
wait = $d
EOF
done

conf_err "wait 99999999999999999999d (overflow)" 5 "" <<EOF
$HEAD
[cluster c1]
wait = 99999999999999999999d
EOF

conf_err "wait missing" any "wait" <<EOF
$HEAD
[cluster c1]
name = no wait here
EOF

conf_err "unreachable = maybe" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
unreachable = maybe
EOF

conf_err "unknown peer in peers list" 6 "nosuch" <<EOF
$HEAD
[cluster c1]
wait = 10s
peers = p1, nosuch
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_err "unknown peer, list before the peer sections" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
peers = p1 p2
[peer p1]
url = http://127.0.0.1:9/
EOF

for n in .p -p a/b 'a b' "$(printf 'p%.0s' $(seq 65))"; do
	conf_err "peer name '$n'" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer $n]
url = http://127.0.0.1:9/
EOF
done

conf_err "peer without name" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer]
url = http://127.0.0.1:9/
EOF

for n in .c a/b ../c 'a b' "$(printf 'c%.0s' $(seq 65))"; do
	conf_err "cluster ID '$n'" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[cluster $n]
wait = 10s
EOF
done

conf_err "cluster without ID" 6 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[cluster]
wait = 10s
EOF

conf_err "peer without url" any "url" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
cafile = $T/ca.pem
EOF

for u in ftp://127.0.0.1/ http:// 'http://a b/' 'http:/x' 127.0.0.1:80 \
    "http://a$(printf '\t')b/"; do
	conf_err "peer url '$u'" 7 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
url = $u
EOF
done

conf_err "peer user without password" any "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
url = http://127.0.0.1:9/
user = u
EOF

conf_err "peer password without user" any "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
url = http://127.0.0.1:9/
password = secret
EOF

conf_err "peer cafile relative" 8 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[peer p1]
url = https://127.0.0.1:9/
cafile = certs/ca.pem
EOF

conf_err "state relative" 3 "" <<EOF
[pollguard]
node = testnode
state = var/state
[cluster c1]
wait = 10s
EOF

conf_err "timeout 50ms" 4 "too small" <<EOF
$HEAD
timeout = 50ms
[cluster c1]
wait = 10s
EOF

conf_err "timeout 61s" 4 "too large" <<EOF
$HEAD
timeout = 61s
[cluster c1]
wait = 10s
EOF

conf_err "connect_timeout 5ms" 4 "too small" <<EOF
$HEAD
connect_timeout = 5ms
[cluster c1]
wait = 10s
EOF

conf_err "connect_timeout above timeout" any "" <<EOF
$HEAD
timeout = 1s
connect_timeout = 2s
[cluster c1]
wait = 10s
EOF

conf_err "connect_timeout 3s above the default timeout 2s" any "" <<EOF
$HEAD
connect_timeout = 3s
[cluster c1]
wait = 10s
EOF

conf_err "settle 11s" 4 "too large" <<EOF
$HEAD
settle = 11s
[cluster c1]
wait = 10s
EOF

conf_err "settle -1s" 4 "invalid duration" <<EOF
$HEAD
settle = -1s
[cluster c1]
wait = 10s
EOF

for d in 1ms 50ms 99ms; do
	conf_err "settle $d (0 or at least 100ms)" 4 "too small" <<EOF
$HEAD
settle = $d
[cluster c1]
wait = 10s
EOF
done

# The claim horizon, 2 x timeout + 1.5 x settle + 1s, must be shorter than
# the wait of every cluster with peers; the error names the cluster's
# header or its wait line.
conf_err "horizon: timeout 4s, settle 2s = 12s, wait 12s" "(6|7)" "horizon" <<EOF
$HEAD
timeout = 4s
settle = 2s
[cluster c1]
wait = 12s
peers = p1
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_err "horizon: timeout 5s, default settle = 11.75s, wait 10s" "(5|6)" "horizon" <<EOF
$HEAD
timeout = 5s
[cluster c1]
wait = 10s
peers = p1
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_err "horizon: another cluster with peers too short" "(8|9)" "c2" <<EOF
$HEAD
timeout = 5s
[cluster c1]
wait = 10s
peers =
[cluster c2]
wait = 11s
peers = p1
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_err "horizon: default peers (every peer section)" "(5|6)" "horizon" <<EOF
$HEAD
timeout = 5s
[cluster c1]
wait = 10s
[peer p1]
url = http://127.0.0.1:9/
EOF

for l in 8080 :65536 1.2.3:80 '[::1]80' '::1:80' 'localhost:80' \
    '256.1.1.1:80' ':80x'; do
	conf_err "serve listen '$l'" 7 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
listen = $l
EOF
done

for a in 10.0.0.0/33 300.1.1.1 ::1/129 'example.org' '10.0.0.1/-1'; do
	conf_err "serve allow '$a'" 7 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
allow = 127.0.0.1, $a
EOF
done

for r in Root 1abc 'a b' "$(printf 'u%.0s' $(seq 33))"; do
	conf_err "serve run_as '$r'" 7 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
run_as = $r
EOF
done

# allow_lines N: N allow entries, 16 to a line (a line is at most 199
# characters).
allow_lines()
{
	local i
	for ((i = 0; i < $1; i++)); do
		[ $((i % 16)) -eq 0 ] && { [ "$i" -eq 0 ] || echo; printf 'allow ='; }
		printf ' 10.0.%d.%d' $((i / 16)) $((i % 16 + 1))
	done
	echo
}

conf_err "65 allow entries over five lines" any "" < <(
	echo "$HEAD"
	printf '[cluster c1]\nwait = 10s\n[serve]\n'
	allow_lines 65
)

conf_err "serve allow: a bad entry on the second line" 8 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
allow = 127.0.0.1
allow = 10.0.0.0/33
EOF

conf_err "serve listen set twice" 8 "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
listen = :8080
listen = :8081
EOF

conf_err "serve user without password" any "" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
user = u
EOF

conf_err "257 clusters" any "" < <(
	echo "$HEAD"
	for i in $(seq 1 257); do printf '[cluster c%d]\nwait = 10s\n' "$i"; done
)

conf_err "257 peers" any "" < <(
	echo "$HEAD"
	printf '[cluster c1]\nwait = 10s\n'
	for i in $(seq 1 257); do
		printf '[peer p%d]\nurl = http://127.0.0.1:9/\n' "$i"
	done
)

conf_err "pollguard-touch: unknown key" 6 "" "$TOUCH" <<EOF
$HEAD
[cluster c1]
wait = 10s
colour = blue
EOF

conf_err "pollguard-touch: wait 5s" 5 "too small (minimum 10s)" "$TOUCH" <<EOF
$HEAD
[cluster c1]
wait = 5s
EOF

assert "no state written by any of the broken configs" test -z "$(state_ls)"

# --- valid files ---

conf_ok "every key, valid" <<EOF
# a comment
; another comment
[pollguard]
node = testnode
state = $STATE
timeout = 3s
connect_timeout = 500ms
settle = 0

[peer testnode]
url = http://127.0.0.1:9/pollguard
user = u
password = p
cafile = $T/ca.pem
[peer other]
url = https://other.example:8443/
[serve]
listen = [::1]:8080
user = server
password = secret
allow = 10.0.0.0/8, 192.0.2.1 ::1/128,2001:db8::/32
run_as = _pollguard
[cluster c1]
name = mail from the shared mailbox
wait = 10s
peers = testnode
unreachable = skip
[cluster c2]
wait = 30d
peers = other
unreachable = run
EOF

conf_ok "inline comments, blank lines" <<EOF
$HEAD ; the state
[cluster c1] ; first cluster
# comment
wait = 10s ; ten seconds

name = a;b#c
EOF

conf_ok "a line of 199 characters" <<EOF
$HEAD
[cluster c1]
wait = 10s
$LINE199
EOF

for d in 10 10s 10000ms 1m 30d 720h 43200m; do
	conf_ok "wait $d" <<EOF
$HEAD
[cluster c1]
wait = $d
EOF
done

for l in :8080 127.0.0.1:65535 '[::]:1' 0.0.0.0:80 :0 127.0.0.1:0 '[::1]:0'; do
	conf_ok "serve listen '$l'" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
listen = $l
EOF
done

conf_ok "allow on several lines" <<EOF
$HEAD
[cluster c1]
wait = 10s
[serve]
allow = 10.0.0.0/8
allow = 192.0.2.1, ::1
allow = 2001:db8::/32
EOF

conf_ok "64 allow entries over four lines" < <(
	echo "$HEAD"
	printf '[cluster c1]\nwait = 10s\n[serve]\n'
	allow_lines 64
)

conf_ok "settle 100ms" <<EOF
$HEAD
settle = 100ms
[cluster c1]
wait = 10s
EOF

conf_ok "horizon: timeout 4s, settle 2s = 12s, wait 12001ms" <<EOF
$HEAD
timeout = 4s
settle = 2s
[cluster c1]
wait = 10s
peers =
[cluster c2]
wait = 12001ms
peers = p1
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_ok "horizon: settle 0 turns the rule off (timeout 10s, wait 10s)" <<EOF
$HEAD
timeout = 10s
settle = 0
[cluster c1]
wait = 10s
peers =
[cluster c2]
wait = 10s
peers = p1
[peer p1]
url = http://127.0.0.1:9/
EOF

conf_ok "horizon: no peers, no rule (timeout 60s, settle 10s, wait 10s)" <<EOF
$HEAD
timeout = 60s
connect_timeout = 1s
settle = 10s
[cluster c1]
wait = 10s
[peer testnode]
url = http://127.0.0.1:9/
EOF

conf_ok "timeout 100ms, connect_timeout 10ms, settle 10s" <<EOF
$HEAD
timeout = 100ms
connect_timeout = 10ms
settle = 10s
[cluster c1]
wait = 10s
EOF

conf_ok "timeout 60s, connect_timeout 60s" <<EOF
$HEAD
timeout = 60s
connect_timeout = 60s
[cluster c1]
wait = 10s
EOF

conf_ok "256 clusters" < <(
	echo "$HEAD"
	for i in $(seq 1 256); do printf '[cluster c%d]\nwait = 10s\n' "$i"; done
)

conf_ok "256 peers, cluster lists only this node" < <(
	echo "$HEAD"
	printf '[cluster c1]\nwait = 10s\npeers = testnode\n'
	printf '[peer testnode]\nurl = http://127.0.0.1:9/\n'
	for i in $(seq 1 255); do
		printf '[peer p%d]\nurl = http://127.0.0.1:9/\n' "$i"
	done
)

# --- passwords and file modes ---

PWCONF="$HEAD
[cluster c1]
wait = 10s
peers = testnode
[peer testnode]
url = http://127.0.0.1:9/
user = u
password = secret"

for mode in 0644 0604 0664 0444; do
	newconf
	printf '%s\n' "$PWCONF" >"$F"
	chmod "$mode" "$F"
	exit_is 78 "peer password, mode $mode (readable by others): exit 78" \
	    "$CHECK" -n -c "$F" c1
	err_like "^pollguard-check: $(ere_quote "$F"): contains passwords.*run: chmod o-r $(ere_quote "$F")\$" \
	    "peer password, mode $mode: message names the file, ends \"run: chmod o-r FILE\""
	err_has "$mode" "peer password, mode $mode: message gives the mode"
done

newconf
printf '%s\n' "$HEAD" '[cluster c1]' 'wait = 10s' '[serve]' 'user = u' \
    'password = secret' >"$F"
chmod 644 "$F"
exit_is 78 "serve password, mode 0644: exit 78" "$CHECK" -n -c "$F" c1
err_has "run: chmod o-r $F" "serve password, mode 0644: message says chmod o-r"
exit_is 78 "serve password, mode 0644: touch exits 78 too" "$TOUCH" -c "$F" c1
chmod 640 "$F"
exit_is 0 "serve password, mode 0640 (group-readable): loads" "$CHECK" -n -c "$F" c1
exit_is 0 "serve password, mode 0640: touch loads it too" "$TOUCH" -c "$F" c1

for mode in 0600 0400 0640 0440 0660; do
	newconf
	printf '%s\n' "$PWCONF" >"$F"
	chmod "$mode" "$F"
	exit_is 0 "peer password, mode $mode: loads" "$CHECK" -n -c "$F" c1
done

newconf
printf '%s\n' "$HEAD" '[cluster c1]' 'wait = 10s' >"$F"
chmod 644 "$F"
exit_is 0 "no password, mode 0644: loads" "$CHECK" -n -c "$F" c1

# --- which file ---

exit_is 78 "missing config file: exit 78" "$CHECK" -c "$T/nosuch.conf" c1
err_has "$T/nosuch.conf" "missing config file: message names it"
exit_is 78 "missing config file: touch exits 78" "$TOUCH" -c "$T/nosuch.conf" c1
err_has "$T/nosuch.conf" "missing config file: touch names it"
exit_is 78 "config file is a directory: exit 78" "$CHECK" -c "$T" c1

ESTATE=$T/envstate
newconf
ENVCONF=$F
printf '[pollguard]\nnode = testnode\nstate = %s\n[cluster c1]\nwait = 10s\n' \
    "$ESTATE" >"$ENVCONF"
chmod 600 "$ENVCONF"
CONF=$ENVCONF

exit_is 0 "POLLGUARD_CONF used without -c: check exits 0" \
    env POLLGUARD_CONF="$ENVCONF" "$CHECK" c1
assert "POLLGUARD_CONF used without -c: record in its state directory" \
    test -f "$ESTATE/c1"
rm -f "$ESTATE/c1"
exit_is 0 "POLLGUARD_CONF used without -c: touch exits 0" \
    env POLLGUARD_CONF="$ENVCONF" "$TOUCH" c1
assert "POLLGUARD_CONF used without -c: touch's record in its state directory" \
    test -f "$ESTATE/c1"
exit_is 78 "POLLGUARD_CONF naming a missing file: exit 78" \
    env POLLGUARD_CONF="$T/envmissing.conf" "$CHECK" c1
err_has "$T/envmissing.conf" "POLLGUARD_CONF naming a missing file: message names it"
exit_is 0 "-c overrides a broken POLLGUARD_CONF" \
    env POLLGUARD_CONF="$T/envmissing.conf" "$CHECK" -c "$ENVCONF" c1
exit_is 78 "-c naming a missing file overrides a good POLLGUARD_CONF" \
    env POLLGUARD_CONF="$ENVCONF" "$CHECK" -c "$T/cmissing.conf" c1
err_has "$T/cmissing.conf" "-c missing file: message names the -c file"

finish
