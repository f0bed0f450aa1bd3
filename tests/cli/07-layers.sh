#!/bin/bash
# SPDX-License-Identifier: ISC
# The shape of the code: no file of lib/, nor of bin/, calls into a file
# that calls back into it, through any number of files (scripts/cycles,
# over the objects of this build), and scripts/cycles finds such a cycle; no
# source of lib/ or bin/ is over 800 lines, no tool's over 400, no file
# of bench/ over 600, and no line of lib/ or bin/ over 80 columns (tabs of 8, as style(9) has it); each
# header of lib/ compiles on its own, the sources include the layers
# they use rather than lib/pollguard.h, and bin/ includes no private
# header of lib/ (*-int.h), where the state handle's own fields are.
. "$PG_TOP/tests/lib.sh"

cd "$PG_TOP" || bail "cd $PG_TOP"

# --- no call cycle between the files of lib/ --------------------------------

sh scripts/cycles "$PG_BUILD"/lib/*.o >"$T/cycles" 2>&1
is "$?" 0 "scripts/cycles: no cycle between the files of lib/ (exit 0)"
[ -s "$T/cycles" ] && diag_file "$T/cycles"
# Nor of bin/: a tool's parts are shared (pollguard-run uses check's and
# touch's) as layers, not as files that call each other back.
sh scripts/cycles "$PG_BUILD"/bin/*.o >"$T/cycles" 2>&1
is "$?" 0 "scripts/cycles: no cycle between the files of bin/ (exit 0)"
[ -s "$T/cycles" ] && diag_file "$T/cycles"

# Three objects in a cycle (a calls b, b calls a and c, c calls a) and one
# that only calls into it: the cycle is named, with its edges.
mkdir -p "$T/obj"
printf 'int b(void);\nint a(void) { return b(); }\n' >"$T/obj/a.c"
printf 'int a(void), c(void);\nint b(void) { return a() + c(); }\n' \
    >"$T/obj/b.c"
printf 'int a(void);\nint c(void) { return a(); }\n' >"$T/obj/c.c"
printf 'int a(void);\nint d(void) { return a(); }\n' >"$T/obj/d.c"
(cd "$T/obj" && ${CC:-cc} -c a.c b.c c.c d.c) || bail "cc failed"
(cd "$T/obj" && sh "$PG_TOP/scripts/cycles" a.o b.o c.o d.o) >"$T/out" 2>&1
is "$?" 1 "scripts/cycles: a cycle: exit 1"
is "$(cat "$T/out")" "cycle: a.o b.o c.o
    a.o -> b.o: b
    b.o -> a.o: a
    b.o -> c.o: c
    c.o -> a.o: a" "... the files of the cycle, each edge and its symbols"
(cd "$T/obj" && sh "$PG_TOP/scripts/cycles" a.o d.o) >"$T/out" 2>&1
is "$?/$(cat "$T/out")" "0/" "... none when only one side is given"
sh scripts/cycles "$T/obj/none.o" >"$T/out" 2>&1
is "$?" 2 "scripts/cycles: an object that is not there: exit 2"

# --- sizes ------------------------------------------------------------------

# over MAX FILE...: the files of more than MAX lines, with their counts.
over()
{
	local max=$1
	shift
	wc -l "$@" | awk -v max="$max" '$2 != "total" && $1 > max {
	    printf "%s%s (%d)", sep, $2, $1; sep = " " }'
}
is "$(over 800 lib/*.[ch] bin/*.[ch])" "" \
    "no source of lib/ or bin/ is over 800 lines"
is "$(over 400 bin/*.c)" "" "no source of bin/ is over 400 lines"
is "$(over 600 bench/*.c bench/*.h bench/*.sh bench/*.awk bench/run)" "" \
    "no file of bench/ is over 600 lines"

# The lines over 80 columns, tabs expanded to 8, as FILE:LINE (COLUMNS).
wide=$(for f in lib/*.[ch] bin/*.[ch]; do
	expand "$f" | awk -v f="$f" 'length > 80 {
	    printf "%s:%d (%d)\n", f, NR, length }'
done)
if [ -z "$wide" ]; then
	ok "no line of lib/ or bin/ over 80 columns"
else
	not_ok "no line of lib/ or bin/ over 80 columns"
	diag "$wide"
fi

# --- headers ------------------------------------------------------------------

read -ra bsd <<<"$(pkg-config --cflags libbsd-overlay)"
flags=(-std=c99 -D_GNU_SOURCE -DLIBBSD_OPENBSD_VIS -Wall -Wextra -Werror
    "-DPG_VERSION=\"$(cat VERSION)\"" -Ilib "${bsd[@]}")
bad=""
for h in lib/*.h; do
	printf '#include "%s"\n' "${h#lib/}" >"$T/h.c"
	"${CC:-cc}" "${flags[@]}" -fsyntax-only "$T/h.c" 2>>"$T/h.log" ||
	    bad="$bad $h"
done
[ -n "$bad" ] && diag_file "$T/h.log"
is "$bad" "" "each header of lib/ compiles on its own"
is "$(grep -l '^#include "pollguard.h"' lib/*.[ch] bin/*.[ch] |
    grep -v '^lib/pollguard.h$' | tr '\n' ' ')" "" \
    "lib/ and bin/ include the layers they use, not lib/pollguard.h"
is "$(grep -l '^#include "[a-z]*-int.h"' bin/*.[ch] | tr '\n' ' ')" "" \
    "bin/ includes no private header of lib/"
is "$(grep -lwE 'recfd|reccluster|undolen|undoby' lib/*.h |
    grep -v -- '-int\.h$' | tr '\n' ' ')" "" \
    "the state handle's own fields are only in lib/state-int.h"
finish
