#!/bin/bash
# SPDX-License-Identifier: ISC
# make install puts the tools, pages and examples where PREFIX, BINDIR,
# MANDIR, DOCDIR, SYSCONFDIR and DESTDIR say, with the installed paths
# written into pages and examples; it installs pollguard.conf only when
# there is none; the installed tools run and the installed pages render
# with man -l; make uninstall removes all of it but the configuration.
#
# pg-test: long (three builds of the tree)
. "$PG_TOP/tests/lib.sh"

# The makes here are this test's own, not the -s, the variables or the
# jobserver of a "make check" it runs under.
unset MAKEFLAGS MFLAGS MAKELEVEL

EXAMPLES="cron.d/pollguard inetd.conf pollguard.conf pollguard-etcd.conf
icinga2/pollguard.conf prometheus/pollguard.rules.yml
stunnel/pollguard.conf
systemd/pollguard-job@.service systemd/pollguard-job@.timer
systemd/pollguard.service systemd/pollguard.socket systemd/pollguard@.service
tmpfiles.d/pollguard.conf xinetd.d/pollguard"
PAGES="man1/pollguard-check.1 man1/pollguard-touch.1 man1/pollguard-status.1
man1/pollguard-run.1 man5/pollguard.conf.5
man7/pollguard.7 man8/pollguard-serve.8"

root=$T/root
# inst LOG ARG...: make install or uninstall into $root (PREFIX=/usr),
# built in $T/build: PREFIX is compiled into the tools, and the tree
# under test must not be rebuilt with it.
inst()
{
	local log=$1
	shift
	make -s -C "$PG_TOP" "$@" O="$T/build" DESTDIR="$root" PREFIX=/usr \
	    MANDIR=/usr/share/man >"$T/$log" 2>&1
}

# Built first with the default PREFIX, as "make; make install PREFIX=/usr"
# does: the install must rebuild what names it.
make -s -C "$PG_TOP" O="$T/build" all >"$T/build.log" 2>&1 ||
    diag_file "$T/build.log" "make all"
inst install.log install
is "$?" 0 "make install DESTDIR=... PREFIX=/usr"
[ -s "$T/install.log" ] && diag_file "$T/install.log" "make install"

(cd "$root" && find . -type f | sort) >"$T/files"
{
	echo ./etc/pollguard.conf
	for t in pollguard-check pollguard-run pollguard-serve pollguard-status \
	    pollguard-touch; do
		echo "./usr/bin/$t"
	done
	echo ./usr/lib/pollguard/pollguard-touch-curl
	for e in $EXAMPLES; do
		echo "./usr/share/doc/pollguard/examples/$e"
	done
	echo ./usr/share/doc/pollguard/README
	echo ./usr/share/doc/pollguard/CHANGES
	echo ./usr/share/doc/pollguard/LICENSE
	echo ./usr/share/bash-completion/completions/pollguard-check
	for p in $PAGES; do
		echo "./usr/share/man/$p"
	done
} | sort >"$T/want"
is "$(cat "$T/files")" "$(cat "$T/want")" "the installed tree"
is "$(stat -c %a "$root/usr/bin/pollguard-check")" 755 "tools are mode 755"
is "$(stat -c %a "$root/usr/share/man/man5/pollguard.conf.5")" 644 "pages are mode 644"
is "$(stat -c %a "$root/etc/pollguard.conf")" 644 "the configuration is mode 644"

# Installed pages and examples name the installed paths, not the
# defaults of the source tree.
grep -rlE '/usr/local/(bin/pollguard|share/doc/pollguard|share/man)' "$root" \
    >"$T/local" 2>/dev/null
is "$(cat "$T/local")" "" "nothing installed under PREFIX=/usr names /usr/local paths of pollguard"
assert "the installed pollguard-touch looks for pollguard-touch-curl in /usr/lib/pollguard" \
    grep -qF /usr/lib/pollguard/pollguard-touch-curl "$root/usr/bin/pollguard-touch"
assert "the inetd.conf example runs /usr/bin/pollguard-serve" \
    grep -qE '^[^#].*[[:space:]]/usr/bin/pollguard-serve[[:space:]]' \
    "$root/usr/share/doc/pollguard/examples/inetd.conf"
assert "pollguard-serve(8) names the installed examples" \
    grep -q '/usr/share/doc/pollguard/examples' "$root/usr/share/man/man8/pollguard-serve.8"

# The installed configuration is the example, and it loads.
cmp -s "$PG_TOP/etc/pollguard.conf" "$root/etc/pollguard.conf"
is "$?" 0 "/etc/pollguard.conf is the example (no paths to rewrite in it)"

mkconf <<'CONF'
[cluster mail]
wait = 10s
CONF
exit_is 0 "the installed pollguard-check runs" "$root/usr/bin/pollguard-check" -c "$CONF" mail
exit_is 0 "the installed pollguard-touch runs" "$root/usr/bin/pollguard-touch" -c "$CONF" -r mail
exit_is 0 "the installed pollguard-run runs a job" "$root/usr/bin/pollguard-run" -q -c "$CONF" mail -- true
exit_is 0 "the installed pollguard-status runs" "$root/usr/bin/pollguard-status" -c "$CONF" mail
assert "the installed pollguard-status shows the cluster" grep -q '^mail  *testnode (self)  *yes ' "$T/out"
for t in pollguard-serve pollguard-status pollguard-touch pollguard-run; do
	is "$(readlink "$root/usr/share/bash-completion/completions/$t")" pollguard-check \
	    "bash completion for $t: a link to pollguard-check's"
done
printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' >"$T/req"
"$root/usr/bin/pollguard-serve" -c "$CONF" -i <"$T/req" >"$T/resp" 2>&1
is "$(head -n 1 "$T/resp" | tr -d '\r')" "HTTP/1.0 200 OK" "the installed pollguard-serve answers"

rendered() { [ -s "$1" ] && ! [ -s "$2" ] && grep -q '^NAME' "$1"; }
if command -v man >/dev/null; then
	for p in $PAGES; do
		MANWIDTH=80 man -l "$root/usr/share/man/$p" >"$T/page" 2>"$T/page.err" </dev/null
		[ -s "$T/page.err" ] && diag_file "$T/page.err" "man -l $p"
		assert "man -l renders $p" rendered "$T/page" "$T/page.err"
	done
	MANWIDTH=80 man -l "$root/usr/share/man/man7/pollguard.7" 2>/dev/null </dev/null |
	    col -b >"$T/page"
	assert "pollguard(7) as rendered names /usr/share/doc/pollguard/examples" \
	    grep -q '/usr/share/doc/pollguard/examples' "$T/page"
else
	skip "man is not installed (Debian package man-db)" 7
fi

# A second install leaves an existing configuration alone, and says so.
echo '# the operator was here' >>"$root/etc/pollguard.conf"
cp "$root/etc/pollguard.conf" "$T/conf.before"
inst install2.log install
is "$?" 0 "make install over an installed tree"
cmp -s "$T/conf.before" "$root/etc/pollguard.conf"
is "$?" 0 "make install does not replace an existing /etc/pollguard.conf"
assert "make install says it left the configuration" \
    grep -q 'pollguard.conf exists: not replaced' "$T/install2.log"

inst uninstall.log uninstall
is "$?" 0 "make uninstall"
is "$(cd "$root" && find . -type f)" "./etc/pollguard.conf" \
    "uninstall removes everything but the configuration"
is "$(cd "$root" && find . -depth -type d -path './usr/share/doc*')" "./usr/share/doc" \
    "uninstall removes the examples' directories"

# SYSCONFDIR is compiled in: a tree built with SYSCONFDIR=/opt/pg/etc
# reads /opt/pg/etc/pollguard.conf when neither -c nor POLLGUARD_CONF is
# given. Built in a copy of the sources, so this tree stays as it is.
src=$T/src
mkdir -p "$src"
(cd "$PG_TOP" && cp -a Makefile VERSION README CHANGES LICENSE lib bin man etc "$src/") &&
    make -s -C "$src" clean >/dev/null 2>&1
make -s -C "$src" install DESTDIR="$T/root2" SYSCONFDIR=/opt/pg/etc \
    >"$T/install3.log" 2>&1
is "$?" 0 "make install SYSCONFDIR=/opt/pg/etc"
[ -s "$T/install3.log" ] && diag_file "$T/install3.log" "make install SYSCONFDIR=/opt/pg/etc"
assert "SYSCONFDIR: the configuration is installed in it" \
    test -f "$T/root2/opt/pg/etc/pollguard.conf"
assert "SYSCONFDIR: pollguard.conf(5) names it" \
    grep -q '/opt/pg/etc/pollguard.conf' "$T/root2/usr/local/share/man/man5/pollguard.conf.5"
exit_is 78 "SYSCONFDIR: the built pollguard-check reads its configuration there" \
    "$src/bin/pollguard-check" mail
err_has "/opt/pg/etc/pollguard.conf" "SYSCONFDIR: the error names /opt/pg/etc/pollguard.conf"

# Flags are compiled in as well: the same tree built again with others
# rebuilds every object, not only those whose source changed. compiled
# counts the objects a make compiles, from the commands it echoes.
compiled()
{
	make -C "$src" "$@" 2>&1 | grep -c -- '-c -o '
}
make -s -C "$src" all >/dev/null 2>&1
is "$(compiled all)" 0 \
    "the same flags again: nothing is rebuilt"
is "$(compiled all CFLAGS='-O1 -g')" \
    "$(find "$src" -name '*.o' | wc -l)" \
    "other CFLAGS rebuild every object"
# A target-specific flag (pollguard-touch's LIBEXECDIR) is not the tree's:
# building touch alone leaves the stamp as it was.
make -s -C "$src" all >/dev/null 2>&1
make -s -C "$src" bin/pollguard-touch >/dev/null 2>&1
is "$(compiled all)" 0 \
    "make bin/pollguard-touch, then make all: nothing is rebuilt"

# Without the build dependencies (pkg-config finds none), make says what
# to run and builds nothing; clean still works.
exit_is 2 "make all without the build dependencies fails" \
    make -C "$src" PKG_CONFIG=false all
err_has 'run "sh scripts/deps" as root' "the error says to run scripts/deps"
exit_is 0 "make clean without them works" make -C "$src" PKG_CONFIG=false clean
finish
