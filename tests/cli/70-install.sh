#!/bin/bash
# make install puts the tools and pages where PREFIX, BINDIR, MANDIR and
# DESTDIR say; the installed tools run; make uninstall removes all of it.
. "$PG_TOP/tests/lib.sh"

root=$T/root
make -s -C "$PG_TOP" install DESTDIR="$root" PREFIX=/usr MANDIR=/usr/share/man \
	>"$T/install.log" 2>&1
is "$?" 0 "make install DESTDIR=... PREFIX=/usr"
[ -s "$T/install.log" ] && diag_file "$T/install.log"

(cd "$root" && find . -type f | sort) >"$T/files"
cat >"$T/want" <<'LIST'
./usr/bin/pollguard-check
./usr/bin/pollguard-serve
./usr/bin/pollguard-touch
./usr/share/man/man1/pollguard-check.1
./usr/share/man/man1/pollguard-touch.1
./usr/share/man/man5/pollguard.conf.5
./usr/share/man/man7/pollguard.7
./usr/share/man/man8/pollguard-serve.8
LIST
is "$(cat "$T/files")" "$(cat "$T/want")" "the installed tree"
is "$(stat -c %a "$root/usr/bin/pollguard-check")" 755 "tools are mode 755"
is "$(stat -c %a "$root/usr/share/man/man5/pollguard.conf.5")" 644 "pages are mode 644"

mkconf <<'CONF'
[cluster mail]
wait = 10s
CONF
exit_is 0 "the installed pollguard-check runs" "$root/usr/bin/pollguard-check" -c "$CONF" mail
exit_is 0 "the installed pollguard-touch runs" "$root/usr/bin/pollguard-touch" -c "$CONF" -r mail
printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' >"$T/req"
"$root/usr/bin/pollguard-serve" -c "$CONF" -i <"$T/req" >"$T/resp" 2>&1
is "$(head -n 1 "$T/resp" | tr -d '\r')" "HTTP/1.0 200 OK" "the installed pollguard-serve answers"

rendered() { [ -s "$1" ] && ! [ -s "$2" ] && grep -q '^NAME' "$1"; }
if command -v man >/dev/null; then
	for p in man1/pollguard-check.1 man1/pollguard-touch.1 man5/pollguard.conf.5 \
	    man7/pollguard.7 man8/pollguard-serve.8; do
		MANWIDTH=80 man -l "$root/usr/share/man/$p" >"$T/page" 2>"$T/page.err" </dev/null
		[ -s "$T/page.err" ] && diag_file "$T/page.err"
		assert "man -l renders $p" rendered "$T/page" "$T/page.err"
	done
else
	skip "man is not installed" 5
fi

make -s -C "$PG_TOP" uninstall DESTDIR="$root" PREFIX=/usr MANDIR=/usr/share/man \
	>"$T/uninstall.log" 2>&1
is "$?" 0 "make uninstall"
is "$(cd "$root" && find . -type f)" "" "nothing is left after uninstall"
finish
