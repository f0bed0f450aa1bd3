#!/bin/bash
# SPDX-License-Identifier: ISC
# The licence: LICENSE is the ISC licence; every file of the tree names
# it with an SPDX-License-Identifier line, but for scripts/spdx's
# exceptions; licensecheck finds ISC in every other file and no other
# licence anywhere; debian/copyright (DEP-5) says ISC for every file,
# with the exceptions in a stanza of their own, and agrees with
# licensecheck. scripts/spdx adds the line in each syntax, once.
# The tree's files are those git ls-files lists, or outside git (a
# release tarball) those of MANIFEST.
. "$PG_TOP/tests/lib.sh"

cd "$PG_TOP" || bail "cd $PG_TOP"
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PG_TOP" ]; then
	git -c core.quotepath=off ls-files >"$T/files"
elif [ -f MANIFEST ]; then
	{ sed -n 's/^file //p' MANIFEST; echo MANIFEST; } >"$T/files"
else
	bail "neither a git checkout nor a tree with MANIFEST (make dist)"
fi

# --- scripts/spdx ----------------------------------------------------------

sh scripts/spdx --check >"$T/lacking" 2>"$T/lacking.err"
is "$?" 0 "scripts/spdx --check: exit 0"
is "$(cat "$T/lacking" "$T/lacking.err")" "" \
    "scripts/spdx --check: no file lacks the line"

# Each syntax, on files of its own: the line goes in once, where it
# belongs, and --check lists a file until then.
mkdir -p "$T/src/man"
printf '#include <stdio.h>\n' >"$T/src/a.c"
printf '#!/bin/sh\necho hi\n' >"$T/src/b"
printf '[cluster c]\n' >"$T/src/c.conf"
printf '.Dd x\n' >"$T/src/man/d.1"
printf '# Title\n' >"$T/src/e.md"
printf 'text\n' >"$T/src/f.txt"
chmod 755 "$T/src/b"
(cd "$T/src" && sh "$PG_TOP/scripts/spdx" --check a.c b c.conf man/d.1 e.md) \
    >"$T/check1" 2>&1
is "$?/$(tr '\n' ' ' <"$T/check1")" "1/a.c b c.conf man/d.1 e.md " \
    "scripts/spdx --check lists the files without the line, exit 1"
(cd "$T/src" && sh "$PG_TOP/scripts/spdx" --check f.txt) >"$T/check2" 2>&1
is "$?" 1 "scripts/spdx --check: a file of unknown kind fails"
assert "... and is named" grep -q 'f.txt: no comment syntax known' "$T/check2"
(cd "$T/src" && sh "$PG_TOP/scripts/spdx" a.c b c.conf man/d.1 e.md &&
    sh "$PG_TOP/scripts/spdx" a.c b c.conf man/d.1 e.md) >"$T/add" 2>&1
is "$?" 0 "scripts/spdx adds the line, twice: exit 0"
ID='SPDX-License-Identifier: ISC'
is "$(cat "$T/src/a.c")" "/* $ID */"$'\n#include <stdio.h>' "C: the first line"
is "$(cat "$T/src/b")" $'#!/bin/sh\n'"# $ID"$'\necho hi' "a script: after #!"
is "$(stat -c %a "$T/src/b")" 755 "a script keeps its mode"
is "$(cat "$T/src/c.conf")" "# $ID"$'\n[cluster c]' "INI: the first line"
is "$(cat "$T/src/man/d.1")" ".\\\" $ID"$'\n.Dd x' "mdoc: the first line"
is "$(cat "$T/src/e.md")" "<!-- $ID -->"$'\n# Title' "Markdown: the first line"
(cd "$T/src" && sh "$PG_TOP/scripts/spdx" --check a.c b c.conf man/d.1 e.md) \
    >"$T/check3" 2>&1
is "$?/$(cat "$T/check3")" "0/" "scripts/spdx --check: then none lacks it"

# --- the exceptions ----------------------------------------------------------

sh scripts/spdx --exceptions >"$T/exceptions"
mapfile -t EXC <"$T/exceptions"
# excepted FILE: it matches an exception (* spans /, as in DEP-5).
excepted()
{
	local p
	for p in "${EXC[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}
unused=
for p in "${EXC[@]}"; do
	found=
	while IFS= read -r f; do
		# shellcheck disable=SC2053
		[[ $f == $p ]] && { found=1; break; }
	done <"$T/files"
	[ -n "$found" ] || unused="$unused $p"
done
is "$unused" "" "every exception of scripts/spdx names a file of the tree"

# --- debian/copyright ----------------------------------------------------------

# PATTERN<TAB>LICENSE, one a pattern, in the order of the file's stanzas.
awk '
	function flush() {
		if (files != "" && lic != "") {
			n = split(files, f, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (f[i] != "") print f[i] "\t" lic
		}
		files = ""; lic = ""; infiles = 0
	}
	/^$/ { flush(); next }
	/^Files:/ { files = substr($0, 7); infiles = 1; next }
	/^[ \t]/ { if (infiles) files = files " " $0; next }
	/^License:/ { lic = $2; infiles = 0; next }
	/^Copyright:/ && cr == "" { cr = substr($0, 12); sub(/^ +/, "", cr) }
	{ infiles = 0 }
	END { flush(); print "COPYRIGHT\t" cr > "/dev/stderr" }
' debian/copyright >"$T/dep5" 2>"$T/dep5.cr"
mapfile -t DEP5 <"$T/dep5"
# dep5 FILE: the licence of the last stanza that matches it.
dep5()
{
	local l lic=
	for l in "${DEP5[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == ${l%%	*} ]] && lic=${l#*	}
	done
	echo "${lic:-NONE}"
}
assert "debian/copyright: format 1.0" \
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
    debian/copyright
assert "debian/copyright: a stanza for every file (Files: *)" \
    grep -qx 'Files: \*' debian/copyright
assert "debian/copyright: the text of the ISC licence" \
    grep -q '^ Permission to use, copy, modify, and distribute this software for any$' \
    debian/copyright
# The second stanza's patterns are the exceptions, in the same order.
awk '/^Files:/ { n++; in2 = n == 2 } /^[^ ]/ && !/^Files:/ { in2 = 0 }
    in2 { sub(/^Files:/, ""); print }' debian/copyright | tr -s ' \t' '\n\n' | grep -v '^$' >"$T/stanza2"
is "$(cat "$T/stanza2")" "$(cat "$T/exceptions")" \
    "debian/copyright's second stanza lists scripts/spdx's exceptions"

# --- licensecheck ----------------------------------------------------------

if ! command -v licensecheck >/dev/null 2>&1; then
	skip "licensecheck is not installed (scripts/deps installs it)" 4
	finish
fi
lc=$(licensecheck --machine --shortname-scheme=spdx --copyright LICENSE)
is "$(cut -f 2 <<<"$lc")" ISC "licensecheck: LICENSE is the ISC licence"
is "$(cut -f 3 <<<"$lc")" "$(sed -n 's/^COPYRIGHT\t//p' "$T/dep5.cr")" \
    "licensecheck: LICENSE's copyright is that of debian/copyright"

# Every file, whatever its name (--check .: licensecheck skips names it
# does not know otherwise).
tr '\n' '\0' <"$T/files" | xargs -0 licensecheck --machine \
    --shortname-scheme=spdx --check . --ignore '^$' >"$T/lc" 2>"$T/lc.err"
is "$(cut -f 1 "$T/lc" | sort)" "$(sort "$T/files")" \
    "licensecheck reads every file of the tree"
bad=
while IFS=$'\t' read -r f l; do
	d=$(dep5 "$f")
	if excepted "$f"; then
		case $l in ISC|UNKNOWN) ;; *) bad="$bad $f($l)" ;; esac
	elif [ "$l" != ISC ]; then
		bad="$bad $f($l)"
	fi
	[ "$d" = ISC ] || bad="$bad $f(debian/copyright: $d)"
	[ "$l" = UNKNOWN ] || [ "$l" = "$d" ] || bad="$bad $f($l, debian/copyright: $d)"
done <"$T/lc"
is "$bad" "" "licensecheck: ISC in every file but the exceptions, and what debian/copyright says"
finish
