#!/bin/bash
# SPDX-License-Identifier: ISC
# Usage errors of pollguard-check, pollguard-touch, pollguard-status and
# pollguard-run: exit 64, the usage
# text of SPEC.md on stderr, invalid cluster IDs refused, an unknown cluster
# a configuration error (78); none of it writes to the state directory.
# --help (the usage on stdout) and --version (the file VERSION) on every
# tool, exit 0.
. "${PG_TOP:-.}/tests/lib.sh"

USAGE_CHECK='usage: pollguard-check [-Enqv] [-c file] cluster'
USAGE_TOUCH='usage: pollguard-touch [-c file] cluster
       pollguard-touch [-c file] [-t duration] cluster -- command [argument ...]
       pollguard-touch -f [-c file] cluster
       pollguard-touch -H duration [-c file] [-m message] cluster
       pollguard-touch -r [-c file] cluster'

USAGE_STATUS='usage: pollguard-status [-j] [-c file] [cluster]
       pollguard-status -p [-C duration] [-c file] [-w duration] cluster
       pollguard-status -t [-c file] [cluster]'
STATUS=$PG_BIN/pollguard-status
USAGE_RUN='usage: pollguard-run [-nqv] [-c file] [-t duration] [-w duration] cluster -- command [argument ...]'
RUN=$PG_BIN/pollguard-run
USAGE_SERVE='usage: pollguard-serve [-v] [-c file] [-i]
       pollguard-serve [-v] [-c file] [-p pidfile] -l [addr]:port'

LONG64=$(printf 'x%.0s' $(seq 64))
LONG65=${LONG64}y

mkconf <<EOF
[cluster c1]
wait = 10s
[cluster $LONG64]
wait = 10s
EOF

# usage_error TOOL USAGE DESC ARGS...: exit 64, nothing on stdout, and the
# usage text ends stderr (after a getopt message, if any).
usage_error()
{
	local tool=$1 usage=$2 desc=$3 n
	shift 3
	exit_is 64 "$desc: exit 64" "$tool" "$@"
	n=$(printf '%s\n' "$usage" | wc -l)
	is "$(tail -n "$n" "$T/err")" "$usage" "$desc: usage on stderr"
	out_empty "$desc: nothing on stdout"
}

# bad_id TOOL DESC ARGS...: exit 64 and a message from the tool.
bad_id()
{
	local tool=$1 desc=$2 name
	shift 2
	name=${tool##*/}
	exit_is 64 "$desc: exit 64" "$tool" "$@"
	err_like "^($name: |usage: $name)" "$desc: message on stderr"
}

# state_untouched DESC: the state directory is missing or empty.
state_untouched()
{
	if [ -z "$(state_ls)" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "state directory holds: $(state_ls | tr '\n' ' ')"
	fi
}

# --- pollguard-check ---

exit_is 64 "check, no arguments: exit 64" "$CHECK"
is "$(cat "$T/err")" "$USAGE_CHECK" "check, no arguments: stderr is exactly the usage"
out_empty "check, no arguments: nothing on stdout"

usage_error "$CHECK" "$USAGE_CHECK" "check, no cluster" -c "$CONF"
usage_error "$CHECK" "$USAGE_CHECK" "check, extra argument" -c "$CONF" c1 extra
usage_error "$CHECK" "$USAGE_CHECK" "check, -- and a command" -c "$CONF" c1 -- true
usage_error "$CHECK" "$USAGE_CHECK" "check, unknown option -x" -x -c "$CONF" c1
usage_error "$CHECK" "$USAGE_CHECK" "check, touch's option -f" -f -c "$CONF" c1
usage_error "$CHECK" "$USAGE_CHECK" "check, -c without argument" -c

bad_id "$CHECK" "check ../x" -c "$CONF" ../x
bad_id "$CHECK" "check a/b" -c "$CONF" a/b
bad_id "$CHECK" "check .x" -c "$CONF" .x
bad_id "$CHECK" "check empty cluster ID" -c "$CONF" ''
bad_id "$CHECK" "check 65-character ID" -c "$CONF" "$LONG65"
bad_id "$CHECK" "check ID with a control character" -c "$CONF" $'a\001b'
bad_id "$CHECK" "check ID with a newline" -c "$CONF" $'a\nb'

exit_is 78 "check unknown cluster: exit 78" "$CHECK" -c "$CONF" nosuch
err_has nosuch "check unknown cluster: message names it"
exit_is 78 "check -n unknown cluster: exit 78" "$CHECK" -n -c "$CONF" nosuch

state_untouched "check: nothing written in the state directory by any of these"

# --- pollguard-touch ---

exit_is 64 "touch, no arguments: exit 64" "$TOUCH"
is "$(cat "$T/err")" "$USAGE_TOUCH" "touch, no arguments: stderr is exactly the usage"
out_empty "touch, no arguments: nothing on stdout"

M=$T/marker
usage_error "$TOUCH" "$USAGE_TOUCH" "touch, no cluster" -c "$CONF"
usage_error "$TOUCH" "$USAGE_TOUCH" "touch, extra argument without --" -c "$CONF" c1 extra
usage_error "$TOUCH" "$USAGE_TOUCH" "touch, -- without a command" -c "$CONF" c1 --
usage_error "$TOUCH" "$USAGE_TOUCH" "touch, unknown option -x" -x -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch, check's option -n" -n -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch, -c without argument" -c
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -f with -- command" -f -c "$CONF" c1 -- touch "$M"
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -r with -- command" -r -c "$CONF" c1 -- touch "$M"
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -f with -r" -f -r -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -r with -f" -r -f -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -t without a command" -t 1s -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -t with -f" -t 1s -f -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -t without argument" -c "$CONF" c1 -t
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -m without -H" -m why -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -H with -- command" -H 1h -c "$CONF" c1 -- touch "$M"
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -H with -f" -H 1h -f -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -H with -r" -H 1h -r -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -H with -t" -H 1h -t 1s -c "$CONF" c1
usage_error "$TOUCH" "$USAGE_TOUCH" "touch -H 0 with -m" -H 0 -m why -c "$CONF" c1
for d in x 5x 10ms 99ms 31d -1s ''; do
	exit_is 64 "touch -t '$d': exit 64" "$TOUCH" -t "$d" -c "$CONF" c1 -- touch "$M"
	err_has "-t $d:" "touch -t '$d': the message names the option"
done
assert "touch usage errors: the command was not run" test ! -e "$M"

bad_id "$TOUCH" "touch ../x" -c "$CONF" ../x
bad_id "$TOUCH" "touch a/b" -c "$CONF" a/b
bad_id "$TOUCH" "touch .x" -c "$CONF" .x
bad_id "$TOUCH" "touch empty cluster ID" -c "$CONF" ''
bad_id "$TOUCH" "touch 65-character ID" -c "$CONF" "$LONG65"
bad_id "$TOUCH" "touch ID with a control character" -c "$CONF" $'a\001b'
bad_id "$TOUCH" "touch -r ../x" -r -c "$CONF" ../x
bad_id "$TOUCH" "touch -f ../x" -f -c "$CONF" ../x
bad_id "$TOUCH" "touch ../x -- command" -c "$CONF" ../x -- touch "$M"
assert "touch ../x -- command: the command was not run" test ! -e "$M"

exit_is 78 "touch unknown cluster: exit 78" "$TOUCH" -c "$CONF" nosuch
err_has nosuch "touch unknown cluster: message names it"
exit_is 78 "touch -r unknown cluster: exit 78" "$TOUCH" -r -c "$CONF" nosuch
exit_is 78 "touch -f unknown cluster: exit 78" "$TOUCH" -f -c "$CONF" nosuch
exit_is 78 "touch unknown cluster -- command: exit 78" "$TOUCH" -c "$CONF" nosuch -- touch "$M"
assert "touch unknown cluster -- command: the command was not run" test ! -e "$M"

exit_is 64 "touch -t after the cluster is the command's: usage" \
    "$TOUCH" -c "$CONF" c1 -t 1s -- touch "$M"
assert "touch usage errors with -t: the command was not run" test ! -e "$M"

state_untouched "touch: nothing written in the state directory by any of these"

# --- pollguard-status ---

usage_error "$STATUS" "$USAGE_STATUS" "status, two clusters" -c "$CONF" c1 extra
usage_error "$STATUS" "$USAGE_STATUS" "status, unknown option -x" -x -c "$CONF" c1
usage_error "$STATUS" "$USAGE_STATUS" "status, check's option -n" -n -c "$CONF" c1
usage_error "$STATUS" "$USAGE_STATUS" "status, -c without argument" -c
usage_error "$STATUS" "$USAGE_STATUS" "status, -t with -j" -t -j -c "$CONF" c1
usage_error "$STATUS" "$USAGE_STATUS" "status, -t with two clusters" -t -c "$CONF" c1 c2
bad_id "$STATUS" "status ../x" -c "$CONF" ../x
bad_id "$STATUS" "status ID with a control character" -c "$CONF" $'a\001b'
exit_is 78 "status unknown cluster: exit 78" "$STATUS" -c "$CONF" nosuch
err_has "no [cluster nosuch]" "status unknown cluster: message names it"
out_empty "status unknown cluster: nothing on stdout"
exit_is 78 "status -j unknown cluster: exit 78" "$STATUS" -j -c "$CONF" nosuch
out_empty "status -j unknown cluster: nothing on stdout"

state_untouched "status: nothing written in the state directory by any of these"

# --- pollguard-run ---

usage_error "$RUN" "$USAGE_RUN" "run, no command" -c "$CONF" c1
usage_error "$RUN" "$USAGE_RUN" "run, -- without a command" -c "$CONF" c1 --
usage_error "$RUN" "$USAGE_RUN" "run, no --" -c "$CONF" c1 touch "$M"
usage_error "$RUN" "$USAGE_RUN" "run, unknown option -x" -x -c "$CONF" c1 -- touch "$M"
usage_error "$RUN" "$USAGE_RUN" "run, check's option -E" -E -c "$CONF" c1 -- touch "$M"
usage_error "$RUN" "$USAGE_RUN" "run, -w without argument" -c "$CONF" c1 -w
for d in 0 500ms 31d x; do
	exit_is 64 "run -w '$d': exit 64" "$RUN" -w "$d" -c "$CONF" c1 -- touch "$M"
done
for d in 50ms 31d x; do
	exit_is 64 "run -t '$d': exit 64" "$RUN" -t "$d" -c "$CONF" c1 -- touch "$M"
done
bad_id "$RUN" "run ../x" -c "$CONF" ../x -- touch "$M"
exit_is 78 "run unknown cluster: exit 78" "$RUN" -c "$CONF" nosuch -- touch "$M"
err_has "no [cluster nosuch]" "run unknown cluster: message names it"
assert "run usage errors: the command was not run" test ! -e "$M"
state_untouched "run: nothing written in the state directory by any of these"

# getopt's own message names the program as the others do, not the path
# it was run by.
for tool in "$CHECK" "$TOUCH" "$STATUS" "$SERVE" "$RUN"; do
	"$tool" -x </dev/null >/dev/null 2>"$T/err"
	is "$(head -n 1 "$T/err")" "${tool##*/}: invalid option -- 'x'" \
	    "${tool##*/} -x, run by its path: getopt names the program"
done

# --- --help and --version ---

V=$(cat "$PG_TOP/VERSION")
# help_version TOOL USAGE: --help, alone or after other options, and
# --version, each exit 0 with nothing on stderr.
help_version()
{
	local tool=$1 usage=$2 name=${1##*/} args
	for args in "--help" "-c $CONF --help" "-c$CONF --help c1"; do
		# shellcheck disable=SC2086
		exit_is 0 "$name $args: exit 0" "$tool" $args
		is "$(cat "$T/out")" "$usage" "$name $args: the usage on stdout"
		err_empty "$name $args: nothing on stderr"
	done
	exit_is 0 "$name --version: exit 0" "$tool" --version
	is "$(cat "$T/out")" "$name $V" "$name --version: '$name $V' on stdout"
	err_empty "$name --version: nothing on stderr"
}
help_version "$CHECK" "$USAGE_CHECK"
help_version "$TOUCH" "$USAGE_TOUCH"
help_version "$SERVE" "$USAGE_SERVE"
help_version "$STATUS" "$USAGE_STATUS"
help_version "$RUN" "$USAGE_RUN"
if [ -x "$PG_BIN/pollguard-touch-curl" ]; then
	help_version "$PG_BIN/pollguard-touch-curl" "$USAGE_TOUCH"
else
	skip "pollguard-touch-curl not built" 12
fi
exit_is 0 "check -E --help: exit 0, not 255" "$CHECK" -E --help
exit_is 0 "status -p --help: exit 0" "$STATUS" -p --help
is "$(cat "$T/out")" "$USAGE_STATUS" "status -p --help: the usage on stdout"
# -c's argument and a job's arguments are not options.
exit_is 78 "check -c --help: a config named --help" "$CHECK" -c --help c1
err_has "--help" "check -c --help: the error names the file"
out_empty "check -c --help: no usage on stdout"
exit_is 0 "touch c1 -- printf --help: the job's argument" \
    "$TOUCH" -c "$CONF" c1 -- printf '%s\n' --help
is "$(cat "$T/out")" "--help" "touch c1 -- printf --help: the job printed it"
exit_is 0 "touch c1 -- printf --version: the job's argument" \
    "$TOUCH" -c "$CONF" c1 -- printf '%s\n' --version
is "$(cat "$T/out")" "--version" "touch c1 -- printf --version: the job printed it"
exit_is 0 "run c1 -- printf --help: the job's argument" \
    "$RUN" -q -c "$CONF" c1 -- printf '%s\n' --help
is "$(cat "$T/out")" "--help" "run c1 -- printf --help: the job printed it"
usage_error "$CHECK" "$USAGE_CHECK" "check, another long option" --helpme -c "$CONF" c1

# --- the longest valid ID is fine ---

exit_is 0 "check 64-character ID: exit 0" "$CHECK" -c "$CONF" "$LONG64"
assert "check 64-character ID: record $STATE/$LONG64 written" test -f "$STATE/$LONG64"
exit_is 0 "touch 64-character ID: exit 0" "$TOUCH" -c "$CONF" "$LONG64"

# Untrusted text is escaped before it reaches a terminal or syslog.
esc=$(printf 'a\033[2Jb')
exit_is 64 "control characters in a cluster ID: usage error" "$CHECK" -c "$CONF" "$esc"
if grep -q "$(printf '\033')" "$T/err"; then
	not_ok "the message carries no raw escape byte"
else
	ok "the message carries no raw escape byte"
fi
err_has 'a\033[2Jb' "the message shows the ID escaped"

finish
