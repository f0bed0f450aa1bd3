#!/bin/bash
# The man pages are clean under mandoc -Tlint, and each tool's usage
# message is exactly its page's SYNOPSIS, line for line.
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
for tool in pollguard-check pollguard-touch pollguard-serve pollguard-status; do
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
finish
