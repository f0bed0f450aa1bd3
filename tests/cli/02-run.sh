#!/bin/bash
# SPDX-License-Identifier: ISC
# tests/run itself: a run that ran nothing fails; a failing test, one that
# disagrees with its plan and one that hangs past PG_TEST_TIMEOUT are
# counted as failures and named; a signal to the runner stops the test
# it is running (which timeout(1) keeps in a process group of its own),
# not only the runner. With several tests at once (-j): they do run at
# once, each test's lines come together, a failure among several is
# counted and named, "# pg-test: serial" runs alone and "# pg-test:
# long" first, and a signal stops every test that runs.
. "$PG_TOP/tests/lib.sh"

RUN=$PG_TOP/tests/run
mkdir "$T/t"

cat >"$T/t/pass.sh" <<'EOF'
echo "ok 1 - fine"
echo "1..1"
EOF
cat >"$T/t/fail.sh" <<'EOF'
echo "ok 1 - fine"
echo "not ok 2 - broken"
echo "# what broke"
echo "1..2"
exit 1
EOF
cat >"$T/t/bail.sh" <<'EOF'
echo "ok 1 - fine"
echo "Bail out! the fixture broke"
exit 1
EOF
cat >"$T/t/short.sh" <<'EOF'
echo "ok 1 - fine"
echo "1..3"
EOF
# Writes its PID to SCRIPT.pid, then sleeps; a sleeping child too, its
# PID in SCRIPT.child.
cat >"$T/t/hang.sh" <<'EOF'
echo $$ >"$0.pid"
sleep 300 &
echo $! >"$0.child"
wait
EOF
cp "$T/t/hang.sh" "$T/t/hang2.sh"
# Two tests that pass only when they run at the same time: each leaves a
# file and waits (10 s at most) for the other's.
for p in a:b b:a; do
	cat >"$T/t/meet-${p%:*}.sh" <<EOF
: >"$T/t/here.${p%:*}"
for i in \$(seq 100); do
	[ -e "$T/t/here.${p#*:}" ] && break
	sleep 0.1
done
[ -e "$T/t/here.${p#*:}" ] && echo "ok 1 - met ${p#*:}" ||
    echo "not ok 1 - met ${p#*:}"
echo "1..1"
EOF
done
# Two tests that say whether they ran alone: each marks that it runs for
# a second, and fails when it finds the other's mark (serial-a is marked
# "serial"); a third, "long", whose line comes first with -j 1.
for x in a b; do
	cat >"$T/t/alone-$x.sh" <<EOF
: >"$T/t/running.$x"
sleep 1
ls "$T/t"/running.* | grep -qv "running.$x\\\$" &&
    echo "not ok 1 - ran alone" || echo "ok 1 - ran alone"
rm -f "$T/t/running.$x"
echo "1..1"
EOF
done
{ echo "# pg-test: serial"; cat "$T/t/alone-a.sh"; } >"$T/t/serial-a.sh"
{ echo "# pg-test: long"; cat "$T/t/pass.sh"; } >"$T/t/long.sh"

# gone PID...: none of them runs any longer (a zombie counts as gone: the
# killed test's children are reparented to PID 1, which may reap late).
gone()
{
	local p
	for p in "$@"; do
		! _pg_alive "$p" || return 1
	done
}

# runner ARGS...: tests/run, its output in $T/out, its status in RC.
runner()
{
	timeout -k 5 120 sh "$RUN" "$@" >"$T/out" 2>&1
	RC=$?
}

runner -j 1 "$T/t/pass.sh"
is "$RC" 0 "one passing test: exit 0"
assert "... and its line" grep -q '^1 passed, 0 failed, 0 skipped$' "$T/out"

runner "$T/t/none-*.sh"
is "$RC" 1 "a run that ran nothing fails"
assert "... and says so" grep -q '^0 passed, 0 failed, 0 skipped$' "$T/out"

runner -j 1 "$T/t/pass.sh" "$T/t/fail.sh"
is "$RC" 1 "a failing test: exit 1"
assert "... named with its failed check" \
    grep -q "fail.sh: not ok 2 - broken" "$T/out"

runner "$T/t/bail.sh"
is "$RC" 1 "a test that bailed out: exit 1"
assert "... named: no plan" grep -q "bail.sh: exit status 1, no plan" "$T/out"
assert "... with its reason" grep -q "bail.sh: Bail out! the fixture broke" "$T/out"

runner "$T/t/short.sh"
is "$RC" 1 "a test that ran fewer checks than its plan: exit 1"
assert "... named: planned 3, ran 1" grep -q "short.sh: planned 3, ran 1" "$T/out"

PG_TEST_TIMEOUT=3 runner "$T/t/hang.sh"
is "$RC" 1 "a test that hangs past PG_TEST_TIMEOUT: exit 1"
assert "... named: timed out" \
    grep -q "hang.sh: timed out after 3s (PG_TEST_TIMEOUT)" "$T/out"
if [ -s "$T/t/hang.sh.pid" ] && [ -s "$T/t/hang.sh.child" ]; then
	H=$(cat "$T/t/hang.sh.pid") C=$(cat "$T/t/hang.sh.child")
	wait_for 10 gone "$H"
	is "$?" 0 "... and it is stopped"
	wait_for 10 gone "$C"
	is "$?" 0 "... with its child"
	gone "$H" "$C" || kill "$H" "$C" 2>/dev/null	# a broken runner
else
	not_ok "the hanging test did not start"
	skip "no test" 1
fi

# --- several at once ---

runner -j 2 "$T/t/meet-a.sh" "$T/t/meet-b.sh"
is "$RC" 0 "-j 2: two tests that wait for each other both pass: they ran at once"
PG_TEST_JOBS=2 runner "$T/t/meet-a.sh" "$T/t/meet-b.sh"
is "$RC" 0 "PG_TEST_JOBS=2: the same"
rm -f "$T/t"/here.*

runner -j 3 "$T/t/pass.sh" "$T/t/fail.sh" "$T/t/long.sh"
is "$RC" 1 "-j 3, one of three fails: exit 1"
assert "... the counts of all three" \
    grep -q '^3 passed, 2 failed, 0 skipped$' "$T/out"
# Its lines: the failed check, the exit status, its TAP comment and its
# count line, one after the other.
sed '/^--- what failed:$/,$d' "$T/out" | grep -n 'fail\.sh' | cut -d: -f1 >"$T/lines"
is "$(wc -l <"$T/lines")/$(($(tail -n 1 "$T/lines") - $(head -n 1 "$T/lines") + 1))" \
    4/4 "... the failing test's four lines together"
assert "... its count line last" \
    grep -qE 'fail\.sh +1 ok, 2 failed, 0 skipped +[0-9]+s$' "$T/out"
assert "... with its comment" grep -q 'fail.sh: # what broke' "$T/out"
# At the end, before the counts: the failed check again with the comment
# after it, and the problem (a log cut in the middle still shows them).
is "$(sed -n '/^--- what failed:$/,/ passed, /p' "$T/out" | sed 's|^.*/t/||')" \
    "--- what failed:
fail.sh: not ok 2 - broken
fail.sh: # what broke
fail.sh: exit status 1
3 passed, 2 failed, 0 skipped" "... and at the end, the failed check again, what it said and the problem"
is "$(tail -n 1 "$T/out")" "failed: $T/t/fail.sh" "... and named on the last line"

runner -j 3 "$T/t/serial-a.sh" "$T/t/alone-b.sh" "$T/t/pass.sh"
is "$RC" 0 "-j 3: a serial test runs alone"
is "$(grep -n 'serial-a\.sh' "$T/out" | cut -d: -f1)" 3 \
    "... after the others"
rm -f "$T/t"/running.*
runner -j 1 "$T/t/pass.sh" "$T/t/long.sh"
is "$(grep -c . "$T/out")/$(head -n 1 "$T/out" | grep -c long.sh)" 3/1 \
    "a long test starts first"

runner -j x "$T/t/pass.sh"
is "$RC" 64 "-j x: a usage error"

# A signal to the runner alone, as a terminal's Ctrl-C or a cancelled
# job sends it: the tests are in timeout's process groups, not the
# runner's, and must stop too. (A background job of this script starts
# with SIGINT ignored, which a shell cannot undo: perl resets it.)
for sig in INT TERM; do
	rm -f "$T/t"/hang*.sh.*
	bg "run-$sig" perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
	    sh "$RUN" -j 1 "$T/t/hang.sh"
	R=$BGPID
	if wait_for 10 test -s "$T/t/hang.sh.child"; then
		kill -"$sig" "$R"
		wait_exit "$R" 30
		is "$?" "$((128 + $(kill -l "$sig")))" \
		    "SIG$sig to the runner: it exits 128 + SIG$sig"
		H=$(cat "$T/t/hang.sh.pid") C=$(cat "$T/t/hang.sh.child")
		wait_for 10 gone "$H" "$C"
		is "$?" 0 "... and the test it was running is stopped, with its child"
		gone "$H" "$C" || kill "$H" "$C" 2>/dev/null
	else
		not_ok "SIG$sig: the hanging test did not start under the runner"
		skip "no test" 1
	fi
done

# The same with two tests at once, and a third waiting for a slot.
rm -f "$T/t"/hang*.sh.*
bg run-j perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
    sh "$RUN" -j 2 "$T/t/hang.sh" "$T/t/hang2.sh" "$T/t/pass.sh"
R=$BGPID
if wait_for 10 test -s "$T/t/hang.sh.child" -a -s "$T/t/hang2.sh.child"; then
	kill -INT "$R"
	wait_exit "$R" 30
	is "$?" 130 "-j 2, SIGINT to the runner: it exits 130"
	P=$(cat "$T/t"/hang*.sh.pid "$T/t"/hang*.sh.child)
	# shellcheck disable=SC2086
	wait_for 10 gone $P
	is "$?" 0 "... and both tests it was running are stopped, with their children"
	# shellcheck disable=SC2086
	gone $P || kill $P 2>/dev/null
else
	not_ok "-j 2: the hanging tests did not start at once under the runner"
	skip "no test" 1
fi

finish
