#!/bin/bash
# The man pages are clean under mandoc -Tlint, and each tool's usage
# message is exactly its page's SYNOPSIS.
. "$PG_TOP/tests/lib.sh"

for page in "$PG_TOP"/man/*.[1-8]; do
	mandoc -Tlint -Wwarning "$page" >"$T/lint" 2>&1
	sed 's/^/# /' "$T/lint"
	is "$(cat "$T/lint")" "" "mandoc -Tlint: $(basename "$page")"
done

for tool in pollguard-check pollguard-touch; do
	synopsis=$(mandoc -Tascii -O width=300 "$PG_TOP/man/$tool.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    sed 's/^ *//' | grep -v '^$')
	usage=$("$PG_BIN/$tool" 2>&1 | sed 's/^usage: //; s/^ *//')
	is "$usage" "$synopsis" "$tool: usage matches SYNOPSIS"
done
finish
