#!/bin/bash
# SPDX-License-Identifier: ISC
# The shape of the code: no file of lib/ calls into a file that calls
# back into it, through any number of files (scripts/cycles, over the
# objects of this build); and scripts/cycles finds such a cycle.
. "$PG_TOP/tests/lib.sh"

cd "$PG_TOP" || bail "cd $PG_TOP"

# --- no call cycle between the files of lib/ --------------------------------

sh scripts/cycles "$PG_BUILD"/lib/*.o >"$T/cycles" 2>&1
is "$?" 0 "scripts/cycles: no cycle between the files of lib/ (exit 0)"
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
finish
