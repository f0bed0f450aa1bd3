#!/bin/bash
# SPDX-License-Identifier: ISC
# The release is named in one place, the file VERSION, and everything
# that names it agrees: the tools (the status answer, /metrics), the
# newest heading of CHANGES, debian/changelog, and the date of every
# man page, which is the date of the release in CHANGES. A heading
# "VERSION (not yet released)" allows any page date.
. "$PG_TOP/tests/lib.sh"

V=$(cat "$PG_TOP/VERSION" 2>/dev/null)
case $V in
[0-9]*.[0-9]*.[0-9]*) ok "VERSION: $V" ;;
*) not_ok "VERSION holds a version"; diag "VERSION: '$V'" ;;
esac
is "$(wc -l <"$PG_TOP/VERSION")" 1 "VERSION is one line"

# CHANGES: the first line is the newest heading, "VERSION (YYYY-MM-DD)".
head1=$(head -n 1 "$PG_TOP/CHANGES")
D=
case $head1 in
"$V ("[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]")")
	D=${head1#"$V ("}
	D=${D%)}
	ok "CHANGES: the newest heading is $V, released $D" ;;
"$V (not yet released)")
	ok "CHANGES: the newest heading is $V, not yet released" ;;
*)	not_ok "CHANGES: the newest heading is $V (YYYY-MM-DD)"
	diag "CHANGES begins: $head1" ;;
esac

# debian/changelog: upstream version VERSION (or VERSION~ or + more), of
# the release's date.
if command -v dpkg-parsechangelog >/dev/null 2>&1; then
	dv=$(dpkg-parsechangelog -l "$PG_TOP/debian/changelog" -S Version)
	dd=$(dpkg-parsechangelog -l "$PG_TOP/debian/changelog" -S Date)
else
	dv=$(sed -n '1s/^pollguard (\([^)]*\)).*/\1/p' "$PG_TOP/debian/changelog")
	dd=$(sed -n 's/^ -- .*>  //p' "$PG_TOP/debian/changelog" | head -n 1)
fi
case ${dv%-*} in
"$V"|"$V"[+~]*) ok "debian/changelog: $dv is of $V" ;;
*) not_ok "debian/changelog: $dv is of $V" ;;
esac
if [ -n "$D" ]; then
	is "$(date -u -d "$dd" +%F 2>&1)" "$D" "debian/changelog: dated $D"
else
	skip "not yet released: any date"
fi

# The pages: .Dd is the release date, in mdoc's "Month D, YYYY".
if [ -n "$D" ]; then
	want=$(LC_ALL=C date -u -d "$D" '+%B %-d, %Y')
	bad=
	for p in "$PG_TOP"/man/*.[1-8]; do
		dd=$(sed -n 's/^\.Dd //p' "$p")
		[ "$dd" = "$want" ] || bad="$bad $(basename "$p") ($dd)"
	done
	is "$bad" "" "every page's .Dd is $want"
else
	skip "not yet released: any page date"
fi

# The tools say VERSION: pollguard-serve's status answer and /metrics.
mkconf <<'CONF'
[cluster mail]
wait = 10s
CONF
ask()
{
	printf 'GET %s HTTP/1.0\r\n\r\n' "$1" |
	    timeout -k 5 "$PG_CMD_TIMEOUT" "$SERVE" -c "$CONF" -i 2>&1 | tr -d '\r'
}
assert "the status answer says version $V" \
    eval 'ask /v1/status/mail | grep -qx "version $V"'
assert "/metrics says version=\"$V\"" \
    eval 'ask /metrics | grep -qxF "pollguard_build_info{version=\"$V\"} 1"'
finish
