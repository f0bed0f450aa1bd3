#!/bin/bash
# SPDX-License-Identifier: ISC
# make dist: the tarball holds exactly the files git ls-files lists (in a
# release tarball: MANIFEST's) and MANIFEST, under pollguard-VERSION/,
# owned by root (0/0), modes 644 or 755 as the files are executable or
# not, every mtime the commit's date, gzip without name or time; twice
# the same bytes, and the same again when packed from the unpacked tree,
# outside git, with another umask and other mtimes. Unpacked, it builds
# (make) and installs (make -n install) without git. The whole make
# distcheck (its tests, install and uninstall) is a step of .ci/run.
. "$PG_TOP/tests/lib.sh"

# The makes here are this test's own, not those of a make check.
unset MAKEFLAGS MFLAGS MAKELEVEL

cd "$PG_TOP" || bail "cd $PG_TOP"
V=$(cat VERSION)
NAME=pollguard-$V
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PG_TOP" ]; then
	git -c core.quotepath=off ls-files >"$T/files"
	COMMIT=$(git rev-parse HEAD)
	DATE=$(git log -1 --format=%ct HEAD)
	git ls-files -s | awk '$1 == "100755" { print $4 }' | sort >"$T/exec"
	FROM="git ls-files"
elif [ -f MANIFEST ]; then
	sed -n 's/^file //p' MANIFEST >"$T/files"
	COMMIT=$(sed -n 's/^commit //p' MANIFEST)
	DATE=$(sed -n 's/^date //p' MANIFEST)
	while read -r f; do
		[ -x "$f" ] && echo "$f"
	done <"$T/files" | sort >"$T/exec"
	FROM="MANIFEST"
else
	bail "neither a git checkout nor a tree with MANIFEST (make dist)"
fi
{ cat "$T/files"; echo MANIFEST; } | sed "s|^|$NAME/|" | LC_ALL=C sort \
    >"$T/want"

make -s dist O="$T/a" >"$T/dist1.log" 2>&1
is "$?" 0 "make dist O=DIR: exit 0"
TGZ=$T/a/$NAME.tar.gz
[ -f "$TGZ" ] || { diag_file "$T/dist1.log" "make dist"; bail "no $NAME.tar.gz"; }
make -s dist O="$T/b" >"$T/dist2.log" 2>&1
is "$(sha256sum <"$TGZ")" "$(sha256sum <"$T/b/$NAME.tar.gz")" \
    "make dist twice: the same bytes"

tar -tvzf "$TGZ" --numeric-owner --full-time --utc >"$T/list"
is "$(awk '!/\/$/ { print $6 }' "$T/list" | LC_ALL=C sort)" "$(cat "$T/want")" \
    "the tarball holds the files of $FROM and MANIFEST, under $NAME/"
is "$(awk '{ print $2 }' "$T/list" | sort -u)" "0/0" "every member is owned by 0/0"
tar -tvzf "$TGZ" --full-time | awk '{ print $2 }' | sort -u >"$T/names"
is "$(cat "$T/names")" "root/root" "... named root/root"
is "$(awk '{ print $4 " " $5 }' "$T/list" | sort -u)" \
    "$(date -u -d "@$DATE" '+%Y-%m-%d %H:%M:%S')" \
    "every mtime is the commit's date"
is "$(awk '$1 ~ /^d/ { print $1 }' "$T/list" | sort -u)" "drwxr-xr-x" \
    "directories are 755"
is "$(awk '$1 ~ /^-rwxr-xr-x/ { print $6 }' "$T/list" |
    sed "s|^$NAME/||" | sort)" "$(cat "$T/exec")" \
    "the executables are 755, as in $FROM"
is "$(awk '$1 !~ /^d/ && $1 != "-rwxr-xr-x" && $1 != "-rw-r--r--"' "$T/list")" "" \
    "every other file is 644"
# gzip's header: no file name (flags 0), no time stamp.
is "$(od -An -tx1 -j 3 -N 5 "$TGZ" | tr -d ' ')" "0000000000" \
    "gzip: no name, no time stamp"

tar -xzf "$TGZ" -O "$NAME/MANIFEST" >"$T/MANIFEST"
is "$(sed -n 's/^commit //p' "$T/MANIFEST")/$(sed -n 's/^date //p' "$T/MANIFEST")" \
    "$COMMIT/$DATE" "MANIFEST names the commit and its date"

# Unpacked outside git, with umask 077 and the mtimes of now: make dist
# there makes the same bytes, and the tree builds and would install.
mkdir "$T/x"
(umask 077 && tar -xzf "$TGZ" -C "$T/x" --no-same-permissions -m)
X=$T/x/$NAME
export GIT_CEILING_DIRECTORIES=$T/x
if git -C "$X" rev-parse --git-dir >/dev/null 2>&1; then
	bail "$X is inside a git checkout"
fi
is "$(stat -c %a "$X/VERSION")" 600 "unpacked with umask 077"
make -s -C "$X" dist >/dev/null 2>"$T/dist3.log"
is "$?" 0 "make dist in the unpacked tree, outside git: exit 0"
[ -s "$T/dist3.log" ] && diag_file "$T/dist3.log" "make dist outside git"
is "$(sha256sum <"$X/$NAME.tar.gz")" "$(sha256sum <"$TGZ")" \
    "... the same bytes"
rm -f "$X/$NAME.tar.gz"
(cd "$X" && sh scripts/spdx --check) >"$T/spdx" 2>&1
is "$?/$(cat "$T/spdx")" "0/" "scripts/spdx --check outside git (MANIFEST's files)"

timeout -k 5 600 make -s -C "$X" -j2 all >"$T/make.log" 2>&1
is "$?" 0 "make in the unpacked tree, outside git"
[ -s "$T/make.log" ] && diag_file "$T/make.log" "make"
mkconf <<'CONF'
[cluster mail]
wait = 10s
CONF
exit_is 0 "the tools it built run: pollguard-check -n" \
    "$X/bin/pollguard-check" -n -c "$CONF" mail
make -s -C "$X" -n install DESTDIR="$T/root" >"$T/install.log" 2>&1
is "$?" 0 "make -n install in the unpacked tree"
assert "... would install pollguard-check" \
    grep -q 'install -m 755 .*bin/pollguard-check' "$T/install.log"
finish
