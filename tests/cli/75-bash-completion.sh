#!/bin/bash
# SPDX-License-Identifier: ISC
# etc/bash-completion/pollguard: sourced, its function called as bash
# calls it (COMP_WORDS, COMP_CWORD): options (--help and --version on
# every tool), cluster IDs from -c FILE,
# $POLLGUARD_CONF or the default, pollguard-touch's "--" and command.
. "${PG_TOP:-.}/tests/lib.sh"

mkconf <<EOF2
[cluster mail]
wait = 10m
[cluster  orders.db]
wait = 10m
[peer mailer]
url = http://127.0.0.1:9
EOF2
MAINCONF=$CONF
mkconf "$T/other.conf" <<EOF2
[cluster other]
wait = 10m
EOF2

CONF=$MAINCONF
exit_is 0 "the config with [cluster  orders.db] loads" \
    "$CHECK" -n -c "$CONF" orders.db

# shellcheck source=/dev/null
. "$PG_TOP/etc/bash-completion/pollguard" || bail "cannot source the completion"

# comp WORD...: complete the last word of the line; the candidates, sorted,
# on one line.
comp()
{
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_pollguard "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

is "$(complete -p pollguard-check pollguard-touch pollguard-serve pollguard-status \
    pollguard-run 2>&1 | wc -l)" 5 "complete -F _pollguard for each of the five tools"
is "$(comp pollguard-check -c "$CONF" '')" "mail orders.db" \
    "check -c FILE: the cluster IDs of FILE (not peers)"
is "$(comp pollguard-check -c "$CONF" -E o)" "orders.db" "check: a prefix"
is "$(comp pollguard-check "-c$T/other.conf" '')" "other" "check -cFILE"
is "$(POLLGUARD_CONF=$T/other.conf comp pollguard-check -n '')" "other" \
    "check: \$POLLGUARD_CONF without -c"
is "$(POLLGUARD_CONF=$T/other.conf comp pollguard-check -c "$CONF" m)" "mail" \
    "check: -c wins over \$POLLGUARD_CONF"
is "$(POLLGUARD_CONF=$T/none.conf comp pollguard-check '')" "" \
    "check: an unreadable config gives nothing, and no error"
is "$(comp pollguard-check -)" "--help --version -E -c -n -q -v" "check: its options"
is "$(comp pollguard-check -c "$CONF" mail '')" "" "check: one cluster only"
is "$(comp pollguard-touch -)" "--help --version -H -c -f -m -r -t" "touch: its options"
is "$(comp pollguard-touch -c "$CONF" '')" "mail orders.db" "touch: cluster IDs"
is "$(comp pollguard-touch -c "$CONF" mail '')" "--" "touch CLUSTER: --"
is "$(PATH=$PG_BIN:$PATH comp pollguard-touch -c "$CONF" mail -- pollguard-che)" "pollguard-check" \
    "touch CLUSTER --: a command"
is "$(comp pollguard-serve -)" "--help --version -c -i -l -p -v" "serve: its options"
is "$(comp pollguard-serve -c "$CONF" '')" "" "serve: no cluster"
is "$(comp pollguard-status -c "$CONF" '')" "mail orders.db" \
    "pollguard-status: cluster IDs"
is "$(comp pollguard-status -)" "--help --version -C -c -j -p -t -w" "status: its options"
is "$(comp pollguard-status -t -c "$CONF" '')" "mail orders.db" \
    "status -t: cluster IDs (-t takes no argument)"
is "$(comp pollguard-status -p -w 1m -c "$CONF" '')" "mail orders.db" \
    "status -p -w DURATION: cluster IDs"
is "$(comp pollguard-status -j -c "$CONF" o)" "orders.db" "status -j: a prefix"
is "$(comp pollguard-status -c "$CONF" mail '')" "" "status: one cluster only"
is "$(comp pollguard-run -)" "--help --version -c -n -q -t -v -w" "run: its options"
is "$(comp pollguard-run -w 5m -c "$CONF" '')" "mail orders.db" \
    "run -w DURATION: cluster IDs"
is "$(comp pollguard-run -n -c "$CONF" mail '')" "--" "run CLUSTER: --"
is "$(comp pollguard-run -c "$CONF" mail -)" "--" "run CLUSTER -: only --"
is "$(PATH=$PG_BIN:$PATH comp pollguard-run -c "$CONF" mail -- pollguard-che)" \
    "pollguard-check" "run CLUSTER --: a command"
for tool in pollguard-check pollguard-touch pollguard-serve pollguard-status \
    pollguard-run; do
	is "$(comp "$tool" --)" "--help --version" "${tool#pollguard-} --: --help and --version"
	is "$(comp "$tool" --v)" "--version" "${tool#pollguard-} --v: --version"
	is "$(comp "$tool" --help '')" "" "${tool#pollguard-} --help: nothing more"
done
is "$(comp pollguard-touch -c "$CONF" mail -)" "--" "touch CLUSTER -: only --"
is "$(comp pollguard-touch -c "$CONF" mail --)" "--" "touch CLUSTER --: not --help"
mkdir -p "$T/d"
: >"$T/d/conf-a"
is "$(comp pollguard-check -c "$T/d/co")" "$T/d/conf-a" "-c: file names"
finish
