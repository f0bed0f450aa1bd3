#!/bin/bash
# SPDX-License-Identifier: ISC
# pollguard-touch: plain, -r, and -- command: exit statuses, the run lock,
# the record at start, the heartbeat while the command runs, the record at
# the end, signals forwarded to the command, the lock not inherited.
. "${PG_TOP:-.}/tests/lib.sh"

mkconf <<EOF
[cluster t1]
wait = 10s
[cluster cmd]
wait = 10s
[cluster lk]
wait = 10s
[cluster hb]
wait = 10s
[cluster rf]
wait = 10s
[cluster sig]
wait = 10s
[cluster inh]
wait = 10s
[cluster blk]
wait = 10s
[cluster at]
wait = 10s
[cluster perm]
wait = 10s
EOF

# --- plain and -r ---

exit_is 0 "plain: exit 0" "$TOUCH" -c "$CONF" t1
err_empty "plain: stderr empty"
out_empty "plain: stdout empty"
num_between "$(record t1)" 0 2000 "plain: record a moment old"
"$PGSTATE" -c "$CONF" write t1 "$OLD_MS"
exit_is 0 "plain, over an old record: exit 0" "$TOUCH" -c "$CONF" t1
num_between "$(record t1)" 0 2000 "plain: record replaced"
exit_is 0 "-r: exit 0" "$TOUCH" -r -c "$CONF" t1
err_empty "-r: stderr empty"
is "$(record t1)" never "-r: record reads never"
assert "-r: record file removed" test ! -e "$STATE/t1"
exit_is 0 "-r without a record: exit 0" "$TOUCH" -r -c "$CONF" t1
err_empty "-r without a record: stderr empty"

# --- -- command: exit statuses ---

exit_is 0 "-- true: exit 0" "$TOUCH" -c "$CONF" cmd -- true
err_empty "-- true: stderr empty"
exit_is 7 "-- sh -c 'exit 7': exit 7" "$TOUCH" -c "$CONF" cmd -- sh -c 'exit 7'
exit_is 255 "-- sh -c 'exit 255': exit 255" "$TOUCH" -c "$CONF" cmd -- sh -c 'exit 255'
exit_is 143 "-- command killed by SIGTERM: exit 143" \
    "$TOUCH" -c "$CONF" cmd -- sh -c 'kill -TERM $$'
exit_is 137 "-- command killed by SIGKILL: exit 137" \
    "$TOUCH" -c "$CONF" cmd -- sh -c 'kill -KILL $$'
exit_is 127 "-- /nonexistent: exit 127" "$TOUCH" -c "$CONF" cmd -- /nonexistent
err_has /nonexistent "-- /nonexistent: message names it"
# (PATH of searchable directories only: execvp(3) reports EACCES, not
# ENOENT, when a directory of PATH cannot be searched.)
exit_is 127 "-- command not in PATH: exit 127" \
    env PATH=/usr/bin:/bin "$TOUCH" -c "$CONF" cmd -- pollguard-no-such-command
exit_is 126 "-- /etc (a directory): exit 126" "$TOUCH" -c "$CONF" cmd -- /etc
printf '#!/bin/sh\ntouch "$1"\n' >"$T/noexec"
chmod 644 "$T/noexec"
exit_is 126 "-- a file without execute permission: exit 126" \
    "$TOUCH" -c "$CONF" cmd -- "$T/noexec" "$T/noexec.ran"
assert "-- a file without execute permission: not run" test ! -e "$T/noexec.ran"

exit_is 0 "-- printf with arguments: exit 0" \
    "$TOUCH" -c "$CONF" cmd -- printf '%s|' a 'b c' '' -x --
is "$(cat "$T/out")" "a|b c||-x|--|" "-- arguments reach the command as given, options too"
printf 'line 1\nline 2\n' >"$T/in"
exit_is 0 "-- cat: exit 0" "$TOUCH" -c "$CONF" cmd -- cat <"$T/in"
assert "-- cat: stdin and stdout are the command's" cmp -s "$T/in" "$T/out"
exit_is 0 "-- command sees the environment" \
    env PG_TEST_VAR=hello "$TOUCH" -c "$CONF" cmd -- sh -c 'echo "$PG_TEST_VAR"'
is "$(cat "$T/out")" hello "-- command sees the environment: value"

# Record at start: the command itself reads the record.
"$PGSTATE" -c "$CONF" write cmd "$OLD_MS"
exit_is 0 "-- command reading the record: exit 0" \
    "$TOUCH" -c "$CONF" cmd -- "$PGSTATE" -c "$CONF" read cmd
num_between "$(cat "$T/out")" 0 2000 "-- record written before the command starts"
# Record at end: the command makes the record old, touch renews it.
exit_is 0 "-- command aging the record: exit 0" \
    "$TOUCH" -c "$CONF" cmd -- "$PGSTATE" -c "$CONF" write cmd "$OLD_MS"
num_between "$(record cmd)" 0 2000 "-- record written after the command ends"
exit_is 7 "-- command failing after aging the record: exit 7" \
    "$TOUCH" -c "$CONF" cmd -- sh -c "$(printf '%q ' "$PGSTATE" -c "$CONF" write cmd "$OLD_MS"); exit 7"
num_between "$(record cmd)" 0 2000 "-- record written at the end of a failing command too"

# Record at start fails (the record's name is a directory): command not run.
mkdir "$STATE/blk"
exit_is 73 "record at start fails: exit 73" \
    "$TOUCH" -c "$CONF" blk -- touch "$T/blk.ran"
assert "record at start fails: command not run" test ! -e "$T/blk.ran"
exit_is 73 "plain, record cannot be written: exit 73" "$TOUCH" -c "$CONF" blk
err_has blk "plain, record cannot be written: message names the record"
rmdir "$STATE/blk"

# --- readers never see a torn record ---

"$TOUCH" -c "$CONF" at
# Up to 300 touches, or as many as 20 s take (a sanitizer build at load).
rm -f "$T/storm.stop"
bg storm sh -c 'i=0; while [ $i -lt 300 ] && [ ! -e "$3" ]; do
	"$1" -c "$2" at || exit 1; i=$((i + 1)); echo $i >"$3.n"; done' \
    sh "$TOUCH" "$CONF" "$T/storm.stop"
STORM=$BGPID
t0=$(now_ms) reads=0 bad=0
while _pg_alive "$STORM" && [ $(($(now_ms) - t0)) -lt 20000 ]; do
	a=$(record at)
	reads=$((reads + 1))
	if ! [[ $a =~ ^[0-9]+$ ]]; then
		bad=$((bad + 1))
		[ "$bad" -le 3 ] && diag "read $reads: '$a'"
	fi
done
: >"$T/storm.stop"
wait_exit "$STORM" 120
is "$?" 0 "touches in a row: all exit 0"
diag "$(cat "$T/storm.stop.n" 2>/dev/null) touches, $reads reads during them"
num_between "$(cat "$T/storm.stop.n" 2>/dev/null)" 10 300 "... at least 10 of them"
is "$bad" 0 "a reader during the touches always sees a whole record"
is "$(state_ls | grep '^\.tmp' | tr '\n' ' ')" "" "no temporary files left behind"

# --- the run lock ---

bg holder "$TOUCH" -c "$CONF" lk -- sleep 30
HOLDER=$BGPID
if wait_for 5 lock_taken lk; then
	ok "-- sleep 30: run lock taken"
else
	not_ok "-- sleep 30: run lock taken"
	diag_file "$T/holder.err"
fi
if lock_held lk; then
	ok "the run lock is a write lock on .lk.lock, seen in /proc/locks"
else
	not_ok "the run lock is a write lock on .lk.lock, seen in /proc/locks"
fi
exit_is 75 "lock held: second run exits 75" \
    "$TOUCH" -c "$CONF" lk -- touch "$T/lk.ran"
assert "lock held: second command not started" test ! -e "$T/lk.ran"
err_has "pollguard-touch: lk: a run on this node is still going" "lock held: message"
kill -TERM "$HOLDER"
wait_exit "$HOLDER" 5
is "$?" 143 "SIGTERM to the holder: forwarded, sleep killed, exit 143"
exit_is 0 "lock released: next run exits 0" "$TOUCH" -c "$CONF" lk -- touch "$T/lk.ran"
assert "lock released: command ran" test -e "$T/lk.ran"
rm -f "$T/lk.ran"

bg pglock "$PGSTATE" -c "$CONF" lock lk 30
PGLOCK=$BGPID
wait_for 5 lock_taken lk || diag "pgstate lock did not take the lock"
exit_is 75 "lock held by pgstate lock: exit 75" \
    "$TOUCH" -c "$CONF" lk -- touch "$T/lk.ran"
assert "lock held by pgstate lock: command not started" test ! -e "$T/lk.ran"
kill -TERM "$PGLOCK"
wait_exit "$PGLOCK" 5 >/dev/null

# The lock is not inherited: a leftover background child does not hold it.
exit_is 0 "-- command leaving a child behind: exit 0" \
    "$TOUCH" -c "$CONF" inh -- sh -c 'sleep 30 >/dev/null 2>&1 & echo $! >"$1"' sh "$T/inh.pid"
LEFTOVER=$(cat "$T/inh.pid" 2>/dev/null)
[ -n "$LEFTOVER" ] && BGPIDS+=("$LEFTOVER")
if lock_taken inh; then
	not_ok "lock not inherited: free after touch exits, child still running"
	diag "/proc/locks: $(grep ":$(stat -c %i "$STATE/.inh.lock") " /proc/locks)"
else
	ok "lock not inherited: free after touch exits, child still running"
fi
exit_is 0 "lock not inherited: a second run exits 0" "$TOUCH" -c "$CONF" inh -- true
[ -n "$LEFTOVER" ] && kill -TERM "$LEFTOVER" 2>/dev/null
# The command gets no descriptor of the lock file (close-on-exec).
exit_is 0 "-- command listing its descriptors: exit 0" \
    "$TOUCH" -c "$CONF" inh -- sh -c 'ls -l /proc/$$/fd/'
if grep -qF ".inh.lock" "$T/out"; then
	not_ok "the command has no descriptor of the lock file"
	diag_file "$T/out" descriptors
else
	ok "the command has no descriptor of the lock file"
fi

# --- heartbeat: wait 10s, refresh every 10s/3 ---

"$PGSTATE" -c "$CONF" write hb "$OLD_MS"
"$PGSTATE" -c "$CONF" write rf "$OLD_MS"
bg hb "$TOUCH" -c "$CONF" hb -- sleep 6
HB=$BGPID
# At the same time: a refresh that fails must not stop the job (8s: a
# refresh at 3.3s and 6.7s, the record broken before the second at the
# latest, however slow the loop below).
bg rf "$TOUCH" -c "$CONF" rf -- sh -c 'sleep 8; echo done >"$1"' sh "$T/rf.done"
RF=$BGPID
t0=$(now_ms)
started= refreshed= prev= maxage=0 samples=0 broke=
while _pg_alive "$HB"; do
	a=$(record hb)
	t=$(($(now_ms) - t0))
	if [[ $a =~ ^[0-9]+$ ]]; then
		samples=$((samples + 1))
		if [ -z "$started" ]; then
			[ "$a" -lt 1000 ] && started=$t
		else
			[ "$a" -gt "$maxage" ] && maxage=$a
			if [ -n "$prev" ] && [ "$a" -lt $((prev - 500)) ]; then
				[ -n "$refreshed" ] || refreshed=$t
			fi
		fi
		prev=$a
	fi
	# Break the record of rf once touch has written it (younger than
	# the OLD_MS it was given): its refreshes fail.
	if [ -z "$broke" ]; then
		r=$(record rf)
		if [[ $r =~ ^[0-9]+$ ]] && [ "$r" -lt $((OLD_MS - 1000)) ]; then
			rm -f "$STATE/rf" && mkdir "$STATE/rf" && broke=$t
		fi
	fi
	[ "$t" -lt 15000 ] || break
	sleep 0.1
done
wait_exit "$HB" 10
is "$?" 0 "heartbeat: -- sleep 6 exits 0"
t_w=$(now_ms)
age=$(record hb)
# Written as touch ended, before wait_exit saw it: no older than the time
# since, and a second (the last refresh could be 3.3s old without it);
# under ASan the leak check at exit comes between (PG_SLOW seconds).
num_between "$age" 0 $(($(now_ms) - t_w + 1000 * PG_SLOW)) "heartbeat: record fresh right after the command ends"
diag "heartbeat: $samples samples, start recorded at ${started:-never} ms, first refresh at ${refreshed:-never} ms, oldest age seen ${maxage} ms (PG_SLOW $PG_SLOW)"
num_between "${started:-x}" 0 $((1500 * PG_SLOW)) "heartbeat: record written at the start"
num_between "${refreshed:-x}" 2000 $((5500 * PG_SLOW)) "heartbeat: refreshed while the command ran (after about 3.3s)"
# Sampled every d seconds, the oldest age seen is at least 3.3 s - d:
# 2.5 s needs d under 0.8 s, ten samples in 6 s; read more seldom (a
# sanitizer build at load), the samples miss it.
if [ "$samples" -ge 10 ]; then
	num_between "$maxage" 2500 $((5000 * PG_SLOW)) "heartbeat: refresh interval about wait/3 (oldest age seen)"
else
	skip "heartbeat: refresh interval: only $samples samples of the record in 6 s"
fi

wait_exit "$RF" 20
diag "failing refresh: record broken at ${broke:-never} ms; exit status $?"
assert "failed refresh: the job went on to its end" test -s "$T/rf.done"
if [ -s "$T/rf.err" ]; then
	ok "failed refresh: logged on stderr"
	diag_file "$T/rf.err" stderr
else
	not_ok "failed refresh: logged on stderr"
fi
rm -rf "$STATE/rf"

# --- signals forwarded to the command ---

# The command traps the signal, writes it down, and exits 0.
for s in TERM INT HUP; do
	rm -f "$T/ready" "$T/got"
	# Background jobs of a script start with SIGINT ignored: undo that,
	# as a shell with job control or a cron daemon would.
	bg "sig$s" env --default-signal=INT "$TOUCH" -c "$CONF" sig -- sh -c \
	    'trap "echo got $1 >\"$2\"; exit 0" "$1"; : >"$3"; while :; do sleep 0.1; done' \
	    sh "$s" "$T/got" "$T/ready"
	P=$BGPID
	if ! wait_for 5 test -e "$T/ready"; then
		not_ok "SIG$s: command started"
		diag_file "$T/sig$s.err"
		continue
	fi
	kill -"$s" "$P"
	wait_exit "$P" 5
	is "$?" 0 "SIG$s to touch: exits with the command's status 0"
	is "$(cat "$T/got" 2>/dev/null)" "got $s" "SIG$s to touch: forwarded to the command"
done

# --- housekeeping: temp files and the lock file's mode ---

# A writer killed between creating its temp file and renaming it leaves
# the file; the next tool that opens the state directory removes it once
# it is clearly abandoned, and leaves a young one alone.
printf 'half' >"$STATE/.tmp.0123456789abcdef"
touch -d '2 minutes ago' "$STATE/.tmp.0123456789abcdef"
printf 'half' >"$STATE/.tmp.fedcba9876543210"
exit_is 0 "touch with temp files lying around: exit 0" "$TOUCH" -c "$CONF" t1
assert "an abandoned temp file is removed" test ! -e "$STATE/.tmp.0123456789abcdef"
assert "a young temp file is left alone" test -e "$STATE/.tmp.fedcba9876543210"
rm -f "$STATE/.tmp.fedcba9876543210"

# Whoever can open the lock file can hold a read lock on it and make this
# node skip: it is the owner's alone, also when an older version made it.
printf '' >"$STATE/.perm.lock"
chmod 644 "$STATE/.perm.lock"
exit_is 0 "a run with a 0644 lock file: exit 0" "$TOUCH" -c "$CONF" perm -- true
is "$(stat -c %a "$STATE/.perm.lock")" 600 "the lock file is made mode 600"
rm -f "$STATE/.perm.lock"
exit_is 0 "a run creating its lock file: exit 0" "$TOUCH" -c "$CONF" perm -- true
is "$(stat -c %a "$STATE/.perm.lock")" 600 "a new lock file is mode 600"

finish
