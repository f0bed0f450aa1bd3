#!/bin/bash
# SPDX-License-Identifier: ISC
# The config file through the real tools. Each tests/config/*.conf is one
# case, and its header says what the tools do with it:
#
#	# tool: pollguard-touch		optional; default pollguard-check
#	# expect: 78 LINE MESSAGE	exit 78 and "TOOL: FILE:LINE: ..." with
#					MESSAGE in it (LINE counts the header)
#	# expect: 0			pollguard-check -n loads it
#
# Every case names cluster c1; @STATE@ and @T@ in a file stand for $STATE
# and $T. Below the cases, what a file alone cannot show: passwords and
# file modes, and the choice between -c, POLLGUARD_CONF and a missing file.
. "${PG_TOP:-.}/tests/lib.sh"

CASES=$PG_TOP/tests/config

# conf_msg DESC PREFIX MESSAGE: a line of stderr starts with PREFIX and
# holds MESSAGE, both taken literally.
conf_msg()
{
	local l
	while IFS= read -r l; do
		[[ $l == "$2"*"$3"* ]] && { ok "$1"; return; }
	done <"$T/err"
	not_ok "$1"
	diag "want a line starting '$2' holding '$3'"
	diag_file "$T/err" stderr
}

# ere_quote STRING: STRING as a literal in an extended regular expression.
ere_quote()
{
	printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g'
}

# copy_case SRC FILE MODE [STATE]: a case into FILE, its state directory
# $STATE or STATE; F names the file.
copy_case()
{
	F=$2
	sed -e "s|@STATE@|${4:-$STATE}|g" -e "s|@T@|$T|g" "$1" >"$F"
	chmod "$3" "$F"
}

# run_cases STATUS: the cases that expect STATUS, each copied into $T.
run_cases()
{
	local src name tool status line msg
	for src in "$CASES"/*.conf; do
		[ -f "$src" ] || bail "no cases in $CASES"
		read -r status line msg < <(sed -n 's/^# expect: //p' "$src")
		[ "$status" = "$1" ] || continue
		name=${src##*/}
		copy_case "$src" "$T/$name" 600
		tool=$(sed -n 's/^# tool: //p' "$src")
		tool=${tool:-pollguard-check}
		if [ "$status" = 0 ]; then
			exit_is 0 "$name: loads (check -n c1 exits 0)" \
			    "$CHECK" -n -c "$F" c1
		else
			exit_is "$status" "$name: $tool exits $status" \
			    "$PG_BIN/$tool" -c "$F" c1
			conf_msg "$name: \"$tool: FILE:$line: $msg\"" \
			    "$tool: $F:$line: " "$msg"
		fi
	done
}

# Every case must say what it expects.
bad=$(grep -L -E '^# expect: (0|78 [0-9]+ .+)$' "$CASES"/*.conf)
is "$bad" "" "every tests/config case has a valid '# expect:' line"
: >"$T/ca.pem"
run_cases 78
assert "no state written by any of the broken configs" test -z "$(state_ls)"
run_cases 0

# --- passwords and file modes ---

for mode in 0644 0604 0444; do
	copy_case "$CASES/80-peer-password.conf" "$T/pw$mode.conf" "$mode"
	exit_is 78 "peer password, mode $mode (readable by others): exit 78" \
	    "$CHECK" -n -c "$F" c1
	err_like "^pollguard-check: $(ere_quote "$F"): contains passwords.*run: chmod o-r $(ere_quote "$F")\$" \
	    "peer password, mode $mode: message names the file, ends \"run: chmod o-r FILE\""
	err_has "$mode" "peer password, mode $mode: message gives the mode"
done
for mode in 0600 0400 0640 0440; do
	copy_case "$CASES/80-peer-password.conf" "$T/pw$mode.conf" "$mode"
	exit_is 0 "peer password, mode $mode: loads" "$CHECK" -n -c "$F" c1
done
# Writable by group: not trusted, passwords or not (tests/cli/33a-trust.sh).
for mode in 0664 0660; do
	copy_case "$CASES/80-peer-password.conf" "$T/pw$mode.conf" "$mode"
	exit_is 78 "peer password, mode $mode (group-writable): exit 78" \
	    "$CHECK" -n -c "$F" c1
	err_has "$F: writable by group or others (owner root, mode $mode)" \
	    "peer password, mode $mode: message names the file, owner, mode"
done

copy_case "$CASES/80-serve-password.conf" "$T/serve.conf" 644
exit_is 78 "serve password, mode 0644: exit 78" "$CHECK" -n -c "$F" c1
err_has "run: chmod o-r $F" "serve password, mode 0644: message says chmod o-r"
exit_is 78 "serve password, mode 0644: touch exits 78 too" "$TOUCH" -c "$F" c1
chmod 640 "$F"
exit_is 0 "serve password, mode 0640 (group-readable): loads" "$CHECK" -n -c "$F" c1
exit_is 0 "serve password, mode 0640: touch loads it too" "$TOUCH" -c "$F" c1

copy_case "$CASES/90-minimal.conf" "$T/nopw.conf" 644
exit_is 0 "no password, mode 0644: loads" "$CHECK" -n -c "$F" c1

# --- which file ---

exit_is 78 "missing config file: exit 78" "$CHECK" -c "$T/nosuch.conf" c1
err_has "$T/nosuch.conf" "missing config file: message names it"
exit_is 78 "missing config file: touch exits 78" "$TOUCH" -c "$T/nosuch.conf" c1
err_has "$T/nosuch.conf" "missing config file: touch names it"
exit_is 78 "config file is a directory: exit 78" "$CHECK" -c "$T" c1

ESTATE=$T/envstate
copy_case "$CASES/90-minimal.conf" "$T/env.conf" 600 "$ESTATE"
ENVCONF=$F

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
