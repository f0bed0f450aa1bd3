#!/bin/bash
# SPDX-License-Identifier: ISC
# The man pages are clean under mandoc -Tlint, and each tool's usage
# message is exactly its page's SYNOPSIS, line for line. The pages and
# the code agree both ways: each tool's options (its getopt string) are
# the page's option list; the keys of each section of lib/confkey.c are
# those pollguard.conf(5) documents in that section; every exit status
# a tool's sources name (EX_* of sysexits.h) is in its page's EXIT
# STATUS (or under a line there that refers to sysexits), and every
# status a page lists is one the code can return. The pages are for
# operators: none names a library function (pg_*, .Fn), and
# pollguard(7) stays within 1000 source lines.
. "$PG_TOP/tests/lib.sh"

for page in "$PG_TOP"/man/*.[1-8]; do
	mandoc -Tlint -Wwarning "$page" >"$T/lint" 2>&1
	sed 's/^/# /' "$T/lint"
	is "$(cat "$T/lint")" "" "mandoc -Tlint: $(basename "$page")"
done

# The usage is what a tool prints after an unknown option, from its
# "usage:" line on (getopt's complaint comes first); a usage of several
# lines continues on lines indented to the tool's name. Without
# arguments pollguard-serve would serve a connection on stdin, so an
# unknown option is the one way to ask all of the tools.
for tool in pollguard-check pollguard-touch pollguard-serve pollguard-status \
    pollguard-run; do
	pages=("$PG_TOP"/man/"$tool".[1-8])
	page=${pages[0]}
	if [ ! -f "$page" ]; then
		not_ok "$tool: usage matches SYNOPSIS (no man page man/$tool.N)"
		continue
	fi
	if [ ! -x "$PG_BIN/$tool" ]; then
		not_ok "$tool: usage matches SYNOPSIS ($PG_BIN/$tool is not built)"
		continue
	fi
	synopsis=$(mandoc -Tascii -O width=300 "$page" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    sed 's/^ *//' | grep -v '^$')
	timeout -k 5 "$PG_CMD_TIMEOUT" "$PG_BIN/$tool" -@ </dev/null \
	    >"$T/usage.out" 2>"$T/usage.err"
	rc=$?
	usage=$(sed -n '/^usage: /,$p' "$T/usage.err" |
	    sed 's/^usage: //; s/^ *//')
	if [ "$rc" -ne 64 ]; then
		not_ok "$tool: usage matches SYNOPSIS"
		diag "$tool -@: exit status $rc, want 64 and the usage"
		diag_file "$T/usage.err" stderr
		continue
	fi
	is "$usage" "$synopsis" "$tool: usage matches SYNOPSIS"
done
# --- the pages and the code agree -----------------------------------------

# section PAGE NAME: the lines of section NAME (.Sh or .Ss) of PAGE.
section()
{
	awk -v n="$2" '
		!p && ($0 == ".Sh " n || $0 == ".Ss " n) { p = 1; ss = /^\.Ss/; next }
		p && (/^\.Sh / || (ss && /^\.Ss /)) { exit }
		p { print }
	' "$1"
}

for tool in pollguard-check pollguard-touch pollguard-serve pollguard-status \
    pollguard-run; do
	pages=("$PG_TOP"/man/"$tool".[1-8])
	page=${pages[0]}
	[ -f "$page" ] || continue
	# The string given to getopt, or the macro OPTS it is given.
	code=$(sed -n -e 's/.*getopt(argc, argv, "+\{0,1\}\([^"]*\)").*/\1/p' \
	    -e 's/^#define OPTS[[:space:]]*"+\{0,1\}\([^"]*\)".*/\1/p' \
	    "$PG_TOP/bin/$tool.c" | tr -d ':' | grep -o . | sort | tr -d '\n')
	doc=$(grep -o '^\.It Fl [A-Za-z]' "$page" | awk '{ print $3 }' | sort -u |
	    tr -d '\n')
	is "$doc" "$code" "$tool: the page's options are its getopt's ($code)"
done

# Keys: each list of lib/confkey.c and the section of pollguard.conf(5)
# that documents it (".It Ic KEY No =", several on one line).
keys()
{
	local l
	for l in "$@"; do
		awk -v h="static const struct key ${l}_keys[] = {" \
		    'index($0, h) == 1 { p = 1 } p { print } p && /};/ { exit }' \
		    "$PG_TOP/lib/confkey.c"
	done | sed -n 's/^\t{ "\([a-z_]*\)".*/\1/p' | sort -u | tr '\n' ' '
}
dockeys()
{
	section "$PG_TOP/man/pollguard.conf.5" "$1" | grep '^\.It Ic ' |
	    grep -o 'Ic [a-z_]* No =' | awk '{ print $2 }' | sort -u | tr '\n' ' '
}
for kind in "global:Global section" "peer:Peer sections" \
    "cluster strict:Cluster sections" "etcd:etcd section" \
    "serve:Server section"; do
	code=$(keys ${kind%%:*})
	if [ -z "$code" ]; then
		not_ok "lib/confkey.c: keys of ${kind%%:*} found"
		continue
	fi
	is "$(dockeys "${kind#*:}")" "$code" \
	    "pollguard.conf(5), ${kind#*:}: the keys of lib/confkey.c"
done

# Exit statuses. What the code can return: the EX_* of sysexits.h named
# anywhere in bin/ and lib/, the skips of lib/decide.h, the EXIT_*
# of bin/, 0, and the statuses of a command that cannot run (126, 127).
exval()
{
	grep -ho 'EX_[A-Z]*' "$@" | sort -u | while read -r e; do
		awk -v e="$e" '$1 == "#define" && $2 == e { print $3 }' \
		    /usr/include/sysexits.h
	done
}
{
	exval "$PG_TOP"/bin/*.[ch] "$PG_TOP"/lib/*.[ch]
	sed -n 's/^[[:space:]]*PG_SKIP_[A-Z]* = \([0-9]*\),.*/\1/p' "$PG_TOP/lib/decide.h"
	sed -n 's/^#define EXIT_[A-Z]*[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$PG_TOP"/bin/*.[ch]
	grep -ho '_exit([^;]*\b12[67]\b[^;]*;' "$PG_TOP"/bin/*.c | grep -o '12[67]'
	echo 0
} | LC_ALL=C sort -u >"$T/can"
# objs TOOL: the sources of bin/ it is linked from (the Makefile's rule).
objs()
{
	awk -v t="$1" '$0 ~ "^\\$\\(B\\)bin/" t ":" { p = 1 } p { print }
	    p && /\$\(LIB\)/ { exit }' "$PG_TOP/Makefile" |
	    grep -o '[a-z-]*\.o' | sed "s|^|$PG_TOP/bin/|; s|\.o$|.c|"
}
for tool in pollguard-check pollguard-touch pollguard-serve pollguard-status \
    pollguard-run; do
	pages=("$PG_TOP"/man/"$tool".[1-8])
	page=${pages[0]}
	[ -f "$page" ] || continue
	section "$page" "EXIT STATUS" >"$T/exit"
	grep -o '^\.It [0-9][0-9]*' "$T/exit" | awk '{ print $2 }' |
	    LC_ALL=C sort -u >"$T/documented"
	srcs=$(objs "$tool"; [ "$tool" = pollguard-touch ] && objs pollguard-touch-curl)
	# shellcheck disable=SC2086
	used=$(exval $srcs | sort -nu)
	missing=
	for c in $used; do
		grep -qx "$c" "$T/documented" && continue
		[ "$c" -ge 64 ] && grep -q 'sysexits' "$T/exit" && continue
		missing="$missing $c"
	done
	is "$missing" "" "$tool: every exit status its sources name is in EXIT STATUS"
	is "$(comm -23 "$T/documented" "$T/can" | tr '\n' ' ')" "" \
	    "$tool: every exit status in EXIT STATUS is one the code returns"
done

# For operators: no library function by name, no .Fn of pollguard's code.
bad=$(grep -n 'pg_[a-z]\|^\.Fn\|[[:space:]]Fn[[:space:]]' "$PG_TOP"/man/*.[1-8])
is "$bad" "" "no page names a library function (pg_*, .Fn)"
n=$(wc -l <"$PG_TOP/man/pollguard.7")
num_between "$n" 1 1000 "pollguard(7) is at most 1000 lines ($n)"
finish
