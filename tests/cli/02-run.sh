#!/bin/bash
# SPDX-License-Identifier: ISC
# tests/run itself: a run that ran nothing fails; a failing test, one that
# disagrees with its plan and one that hangs past PG_TEST_TIMEOUT are
# counted as failures and named; a signal to the runner stops the test
# it is running (which timeout(1) keeps in a process group of its own),
# not only the runner.
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
echo "1..2"
exit 1
EOF
cat >"$T/t/short.sh" <<'EOF'
echo "ok 1 - fine"
echo "1..3"
EOF
# Writes its PID, then sleeps; a sleeping child too.
cat >"$T/t/hang.sh" <<EOF
echo \$\$ >"$T/hang.pid"
sleep 300 &
echo \$! >"$T/hang.child"
wait
EOF

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

runner "$T/t/pass.sh"
is "$RC" 0 "one passing test: exit 0"
assert "... and its line" grep -q '^1 passed, 0 failed, 0 skipped$' "$T/out"

runner "$T/t/none-*.sh"
is "$RC" 1 "a run that ran nothing fails"
assert "... and says so" grep -q '^0 passed, 0 failed, 0 skipped$' "$T/out"

runner "$T/t/pass.sh" "$T/t/fail.sh"
is "$RC" 1 "a failing test: exit 1"
assert "... named with its failed check" \
    grep -q "fail.sh: not ok 2 - broken" "$T/out"

runner "$T/t/short.sh"
is "$RC" 1 "a test that ran fewer checks than its plan: exit 1"
assert "... named: planned 3, ran 1" grep -q "short.sh: planned 3, ran 1" "$T/out"

PG_TEST_TIMEOUT=3 runner "$T/t/hang.sh"
is "$RC" 1 "a test that hangs past PG_TEST_TIMEOUT: exit 1"
assert "... named: timed out" \
    grep -q "hang.sh: timed out after 3s (PG_TEST_TIMEOUT)" "$T/out"
if [ -s "$T/hang.pid" ] && [ -s "$T/hang.child" ]; then
	H=$(cat "$T/hang.pid") C=$(cat "$T/hang.child")
	wait_for 10 gone "$H"
	is "$?" 0 "... and it is stopped"
	wait_for 10 gone "$C"
	is "$?" 0 "... with its child"
	gone "$H" "$C" || kill "$H" "$C" 2>/dev/null	# a broken runner
else
	not_ok "the hanging test did not start"
	skip "no test" 1
fi

# A signal to the runner alone, as a terminal's Ctrl-C or a cancelled
# job sends it: the test is in timeout's process group, not the
# runner's, and must stop too. (A background job of this script starts
# with SIGINT ignored, which a shell cannot undo: perl resets it.)
for sig in INT TERM; do
	rm -f "$T/hang.pid" "$T/hang.child"
	bg "run-$sig" perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
	    sh "$RUN" "$T/t/hang.sh"
	R=$BGPID
	if wait_for 10 test -s "$T/hang.child"; then
		kill -"$sig" "$R"
		wait_exit "$R" 30
		is "$?" "$((128 + $(kill -l "$sig")))" \
		    "SIG$sig to the runner: it exits 128 + SIG$sig"
		H=$(cat "$T/hang.pid") C=$(cat "$T/hang.child")
		wait_for 10 gone "$H" "$C"
		is "$?" 0 "... and the test it was running is stopped, with its child"
		gone "$H" "$C" || kill "$H" "$C" 2>/dev/null
	else
		not_ok "SIG$sig: the hanging test did not start under the runner"
		skip "no test" 1
	fi
done
finish
