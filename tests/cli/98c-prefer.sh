#!/bin/bash
# SPDX-License-Identifier: ISC
# The preferred node end to end (pollguard(7), PREFERRED NODE), with real
# processes only: three nodes a, b and c on loopback, each with its own
# state directory, config (prefer = a, b) and pollguard-serve, which the
# test stops ("down": its serve is gone and its cron does not run) and
# starts again. tests/unit/t_prefer.c tries the same rules in every order
# of checks; here the checks of a round start at one instant (the race
# helpers), so the race closure is real.
#
# A round is what cron does: the checks of the nodes that are up start
# together, and the job runs, under pollguard-touch, where a check exited
# 0. Between rounds every record and checked record is aged by STEP (10s:
# longer than the claim horizon, 5.3s with timeout 2s and settle 200ms;
# wait is 60s), as if cron ran every 10 seconds. Each case prints its
# rounds as a table: who went (GO) and why the others skipped.
. "${PG_TOP:-.}/tests/lib.sh"

NODES=(a b c)
STEP=10000
ZERO_BOOT=00000000-0000-0000-0000-000000000000

fleet_start "settle = 200ms" "${NODES[@]}"
ok "three serves on 127.0.0.1:${FLEET_PORT[a]}, :${FLEET_PORT[b]}," \
    ":${FLEET_PORT[c]}"

# setup WAIT PREFER_C [LINE...]: every node's cluster: wait WAIT, prefer
# a, b (c: PREFER_C), and the LINEs (failback_after = 0, ...); the serves
# reread their configs.
setup()
{
	local n wait=$1 pc=$2 line k l
	shift 2
	for n in "${NODES[@]}"; do
		sed -i -e '/^prefer = /d' -e '/^failback/d' \
		    -e "s/^wait = .*/wait = $wait/" "$T/$n.conf"
		line="prefer = a, b"
		[ "$n" != c ] || line="prefer = $pc"
		for l in "$line" "$@"; do
			sed -i "s/^wait = $wait\$/&\\n$l/" "$T/$n.conf"
		done
		[ -n "${UP[$n]:-}" ] || continue
		k=$(grep -c 'reloaded' "$T/s$n.err")
		kill -HUP "${FLEET_SPID[$n]}"
		wait_for "$PG_CMD_TIMEOUT" reloaded "$n" "$k" ||
		    bail "serve $n did not reload its config"
	done
	WAIT=$wait
}

declare -A UP=([a]=1 [b]=1 [c]=1)

# reloaded NODE K: its serve has said "reloaded" more than K times.
reloaded()
{
	[ "$(grep -c reloaded "$T/s$1.err")" -gt "$2" ]
}

# down NODE: its serve stops, its cron with it. up NODE: both are back,
# the serve on the same port.
down()
{
	serve_stop "${FLEET_SPID[$1]}" || diag "serve $1 did not stop cleanly"
	UP[$1]=
}
up()
{
	serve_again "s$1" "$T/$1.conf" "${FLEET_PORT[$1]}" ||
	    bail "pollguard-serve for node $1 did not start again"
	FLEET_SPID[$1]=$SERVE_PID
	UP[$1]=1
}

# age_checked NODE MS: the checked part of the node's side record MS
# older (a stamp older than this boot becomes one of an earlier boot, as
# pgstate write does); the other parts as they were.
age_checked()
{
	local f=$T/$1.state/.mail.side out= part= line k b m w
	[ -e "$f" ] || return 0
	while IFS= read -r line; do
		read -r k b m w <<<"$line"
		case $k in pollguard-*) part=$k ;; esac
		case $part:$k in
		pollguard-checked:last|pollguard-checked:since|\
		pollguard-checked:yielded)
			m=$((m - $2 * 1000000)) w=$((w - $2 * 1000000))
			[ "$m" -gt 0 ] || b=$ZERO_BOOT m=1
			out+="$k $b $m $w"$'\n'
			;;
		*)
			out+="$line"$'\n'
			;;
		esac
	done <"$f"
	printf '%s' "$out" >"$f.new" && mv "$f.new" "$f" ||
	    bail "cannot age $f"
}

# later [MS [CHECKED_MS]]: MS (default STEP) pass for every node's
# records, CHECKED_MS (default MS) for its checked record: a job that ran
# an hour ends an hour after its check.
later()
{
	local n e ms=${1:-$STEP} cms=${2:-${1:-$STEP}}
	for n in "${NODES[@]}"; do
		e=$("$PGSTATE" -c "$T/$n.conf" read mail) ||
		    bail "pgstate read $n"
		[ "$e" = never ] ||
		    "$PGSTATE" -c "$T/$n.conf" write mail $((e + ms)) ||
		    bail "pgstate write $n"
		age_checked "$n" "$cms"
	done
}

# fresh: forget every record: a cluster nobody polled or checked yet.
fresh()
{
	local n
	for n in "${NODES[@]}"; do
		rm -f "$T/$n.state/mail" "$T/$n.state/.mail".*
	done
	TABLE= ROUND=0 POLLERS= DOUBLES=0 EMPTY=0
}

# why FILE: a check's decision in a word or two, from its -v stderr.
why()
{
	local l
	l=$(grep -E '^pollguard-check: (mail: )?(go|skip|keep|withdraw|claim)' \
	    "$1" | tail -n 1)
	case $l in
	*"is preferred and healthy"*)
		l=${l%% is preferred*}
		echo "skip(${l##* } preferred)"
		;;
	*"yielding to"*)	echo "skip(yield)" ;;
	*"was active"*)
		l=${l##*skip: }
		echo "skip(${l%% *} active)"
		;;
	*withdraw*)		echo "skip(withdrew)" ;;
	*"running"*|*"still going"*) echo "skip(running)" ;;
	*go*)
		if grep -q 'go: the last run before yielding' "$1"; then
			echo "GO(last,yield)"
		elif grep -q 'yields to this node' "$1"; then
			echo "GO(failback)"
		else
			echo "GO"
		fi
		;;
	*)			echo "?(${l:-no decision})" ;;
	esac
}

# round: one round on every node that is up, at one instant; the job of
# a node that went runs under pollguard-touch. A round where nobody went
# because a claim was withdrawn as too slow to order (a busy machine:
# safe) is run again, twice at most. Adds a letter to POLLERS (. none,
# 2 two or more) and a line to TABLE.
round()
{
	local n k try line racers=()
	for ((try = 0; try < 3; try++)); do
		race_arm
		racers=()
		for n in "${NODES[@]}"; do
			[ -n "${UP[$n]}" ] || continue
			racers+=("$n")
			racer 0 "$CHECK" -v -c "$T/$n.conf" mail
		done
		race_go
		race_count
		[ "$WENT" -eq 0 ] && [ "$SLOW" -gt 0 ] || break
		diag "round $((ROUND + 1)): a claim withdrawn as too slow;" \
		    "run again"
	done
	ROUND=$((ROUND + 1))
	WHO= line=$(printf '%s round %2d:' "$CASE" "$ROUND")
	k=0
	for n in "${NODES[@]}"; do
		if [ -z "${UP[$n]}" ]; then
			line+=" $n down"
			continue
		fi
		k=$((k + 1))
		line+=" $n $(why "$T/r$k.err")"
		cp "$T/r$k.err" "$T/last.$n.err"
		[ "${RACE_RC[$k]}" = 0 ] || continue
		WHO+=$n
		"$TOUCH" -c "$T/$n.conf" mail -- true ||
		    diag "the job on $n did not run"
	done
	TABLE+="$line"$'\n'
	case ${#WHO} in
	0)	POLLERS+=. EMPTY=$((EMPTY + 1)) ;;
	1)	POLLERS+=$WHO ;;
	*)	POLLERS+=2 DOUBLES=$((DOUBLES + 1)) ;;
	esac
	if [ "${#WHO}" -gt 1 ] || [ "$ODD" -ne 0 ]; then
		diag "$line: ${#WHO} nodes went"
		for ((k = 1; k <= ${#racers[@]}; k++)); do
			diag_file "$T/r$k.err" "${racers[$((k - 1))]} stderr"
		done
	fi
}

# rounds N [MS [CHECKED_MS]]: N rounds, MS (default STEP) apart.
rounds()
{
	local i
	for ((i = 0; i < $1; i++)); do
		later "${2:-$STEP}" "${3:-${2:-$STEP}}"
		round
	done
}

# same STRING: every letter of it is the same.
same()
{
	[ -n "$1" ] && [ -z "${1//${1:0:1}/}" ]
}

# show: the table so far, as TAP comments.
show()
{
	diag "$CASE: who went, round by round: $POLLERS"
	while IFS= read -r l; do
		diag "$l"
	done <<<"${TABLE%$'\n'}"
}

# --- (1) steady state, failover, failback ---

CASE=main
setup 60s "a, b" "failback_after = 0"
fresh
# Eight rounds, 70s: longer than wait after round 2. Whoever won the
# first round of a fresh cluster (c, when a's check started late on a
# busy machine) ran its last run by round 2; from round 9 on its record
# is older than wait, so the failover below is decided by preference
# alone, not by a substitute's record still within wait.
rounds 8
if [[ ${POLLERS:2} =~ ^aaaaaa$ ]]; then
	ok "(1) steady: a, the preferred node, polls (rounds 3-8: ${POLLERS:2})"
else
	not_ok "(1) steady: a, the preferred node, polls (${POLLERS})"
fi
A="preferred|active"
assert "(1) steady: b and c say a is preferred and healthy, or active" \
    grep -qE "round  8: a GO b skip\(a ($A)\) c skip\(a ($A)\)" <<<"$TABLE"
down a
rounds 8
is "${POLLERS:8:1}" b "(1) failover: a down, b polls in the very next round"
is "${POLLERS:8}" bbbbbbbb "(1) failover: b keeps polling while a is down"
up a
rounds 6
f=${POLLERS:16}
diag "(1) a back from round 17: $f"
if [[ $f =~ ^(b|bb)a+$ ]]; then
	ok "(1) failback: a polls again within two rounds of its return ($f)"
else
	not_ok "(1) failback: a polls again within two rounds of its" \
	    "return ($f)"
fi
assert "(1) failback: b's last run announced the yield" \
    grep -qE "round 1[78]: .*b GO\(last,yield\)" <<<"$TABLE"
assert "(1) failback: a went because b yields to it" \
    grep -qE "round (18|19): a GO\(failback\)" <<<"$TABLE"
is "$DOUBLES" 0 "(1) no round with two pollers"
is "$EMPTY" 0 "(1) no round without a poller"
exit_is 0 "(1) pollguard-status on c: every node answered" \
    "$PG_BIN/pollguard-status" -c "$T/c.conf" mail
assert "(1) pollguard-status: the order" \
    grep -qE '^mail: prefer a,b; failback after [0-9a-z]+ of checks$' "$T/out"
assert "(1) pollguard-status: b yields to a" \
    grep -qE '^mail: b yields to a \(for [0-9][0-9.a-z]*\)$' "$T/out"
exit_is 0 "(1) pollguard-status -j on c" \
    "$PG_BIN/pollguard-status" -j -c "$T/c.conf" mail
assert "(1) pollguard-status -j: b's order and its yield to a" \
    grep -qE '"name":"b",.*"prefer":"a,b","checked_ms":[0-9]+,"checking_ms":[0-9]+,"yield":\{"to":"a","ms":[0-9]+\}' \
    "$T/out"
# Every record past wait, the checks as fresh as ever: by the rule alone,
# anyone may go; by the preference, a does, and the others skip.
later 70000 1
exit_is 0 "(1) pollguard-status on c, nobody active within wait" \
    "$PG_BIN/pollguard-status" -c "$T/c.conf" mail
assert "(1) pollguard-status: next, by prefer, is a" \
    grep -qE '^mail +next +a: its check goes, the others skip \(prefer a,b\)$' \
    "$T/out"
show

# --- (2) a flapping preferred node ---

# wait 20s, failback_after the default, one wait: two rounds. a is up
# one round in four: its checks stop for longer than wait + slack (25s)
# each time, so its healthy time starts again at every return. b stays
# the poller; no round is empty, none doubled.
CASE=flap
setup 20s "a, b"
fresh
down a
"$PGSTATE" -c "$T/b.conf" write mail 1000 || bail "pgstate write b"
rounds 2
for i in 1 2 3; do
	up a
	rounds 1
	down a
	rounds 3
done
is "$POLLERS" bbbbbbbbbbbbbb "(2) flapping a: b polls every round, a never"
is "$DOUBLES" 0 "(2) no round with two pollers"
# Now a stays: once its checks have run for failback_after, it is back.
up a
rounds 5
f=${POLLERS:14}
if [[ $f =~ ^bbb?a+$ ]]; then
	ok "(2) a stays up: failback once its checks ran a wait ($f)"
else
	not_ok "(2) a stays up: failback once its checks ran a wait ($f)"
fi
is "$EMPTY" 0 "(2) no round without a poller"
show

# --- (3) two substitutes racing ---

# a is down; nobody has polled or checked: b and c check at the same
# instant, neither knows the other's checks yet: the race closure, not
# the preference, decides, five times over; after that b, which comes
# before c, polls.
CASE=race
setup 60s "a, b" "failback_after = 0"
down a
races=
for i in 1 2 3 4 5; do
	fresh
	round
	races+=$POLLERS
	[ "$i" = 5 ] || TABLE5+=$TABLE
done
if [[ $races =~ ^[bc]{5}$ ]]; then
	ok "(3) b and c race five times on an empty cluster: one goes ($races)"
else
	not_ok "(3) b and c race five times on an empty cluster: one" \
	    "goes ($races)"
fi
rounds 4
# c, if it won, hands over to b, which comes first, as to a preferred node.
if [[ ${POLLERS:1} =~ ^(b+|c{1,2}b+)$ ]]; then
	ok "(3) then b polls, c skips (${POLLERS:1})"
else
	not_ok "(3) then b polls, c skips (${POLLERS:1})"
fi
is "$DOUBLES" 0 "(3) no round with two pollers"
TABLE=$TABLE5$TABLE
show
up a

# --- (4) disagreement ---

# c's config says c, b: every node that sees another order says so
# loudly and applies no preference: the plain, sticky rules. c, the
# poller, stays.
CASE=disagree
setup 60s "a, b" "failback_after = 0"
fresh
"$PGSTATE" -c "$T/c.conf" write mail 1000 || bail "pgstate write c"
rounds 3
setup 60s "c, b" "failback_after = 0"
rounds 4
if same "${POLLERS:3}" && [ "${#POLLERS}" = 7 ]; then
	ok "(4) another order on c: the poller stays (${POLLERS:3})"
else
	not_ok "(4) another order on c: the poller stays (${POLLERS:3})"
fi
is "$DOUBLES" 0 "(4) no round with two pollers"
is "$EMPTY" 0 "(4) no round without a poller"
assert "(4) a warns: c announces another prefer" grep -q \
    'cluster mail: peer c announces prefer "c,b", this node "a,b": prefer is not applied' \
    "$T/last.a.err"
assert "(4) c warns too" grep -q \
    'cluster mail: peer a announces prefer "a,b", this node "c,b"' \
    "$T/last.c.err"
exit_is 1 "(4) the warning also without -v (cron mails it)" \
    "$CHECK" -c "$T/b.conf" mail
err_has 'peer c announces prefer "c,b"' "(4) without -v: on stderr"
exit_is 1 "(4) status: exit 1 while the orders disagree" \
    "$PG_BIN/pollguard-status" -c "$T/b.conf" mail
err_has 'node c announces prefer "c,b", this node "a,b": prefer is not applied' \
    "(4) status says so on stderr"
grep -q announces "$T/out" && not_ok "(4) ... and on stdout too" || ok "(4) ... not on stdout"
show

# --- (5) a daily job ---

# wait 1d (failback_after: the default, 1d), one round a day at 02:00,
# the job an hour long: its activity ends at 03:00, 23 hours before the
# next round, so the poller stays active across days (sticky). a is down
# on days 4-6 and back with a catch-up check at 10:00 on day 6 (after b
# ran at 02:00): it must not run the day again. Every day exactly one
# run.
CASE=daily
H=3600000
DAY=$((24 * H))
setup 1d "a, b"
fresh
round
rounds 2 $((DAY - H)) $DAY
down a
rounds 3 $((DAY - H)) $DAY
up a
later $((7 * H)) $((8 * H))
exit_is 1 "(5) a back at 10:00, b ran at 02:00: a's catch-up check skips" \
    "$CHECK" -v -c "$T/a.conf" mail
err_like "skip: b was active 7h" "(5) -v: b was active 7h ago"
later $((16 * H))
round
rounds 5 $((DAY - H)) $DAY
diag "(5) days: $POLLERS"
if [[ $POLLERS =~ ^...bbb(b|bb|bbb)a+$ ]]; then
	ok "(5) a daily: b while a is down, a again after failback_after"
else
	not_ok "(5) a daily: b while a is down, a again after failback_after"
fi
is "$DOUBLES" 0 "(5) no day with two runs"
is "$((EMPTY))" 0 "(5) no day without a run"
show

for n in "${NODES[@]}"; do
	serve_stop "${FLEET_SPID[$n]}"
	is "$?" 0 "serve $n: SIGTERM, exit 0"
done

finish
