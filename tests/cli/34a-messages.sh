#!/bin/bash
# SPDX-License-Identifier: ISC
# Messages for the person at the terminal (issue 34): an unknown key gets
# the nearest key when one is near ("wiat": wait); an unknown cluster,
# the clusters there are and the nearest; a missing configuration, -c
# and POLLGUARD_CONF; pollguard-serve at a terminal with no listen says
# at once that it is in inetd mode and how to listen.
. "${PG_TOP:-.}/tests/lib.sh"
STATUS=$PG_BIN/pollguard-status

mkconf <<EOF2
[cluster mail]
wait = 10s
[cluster orders.db]
wait = 10s
EOF2

# --- unknown keys ---
mkconf "$T/typo.conf" <<EOF2
[cluster mail]
wiat = 10s
EOF2
exit_is 78 "wiat: exit 78" "$CHECK" -c "$T/typo.conf" mail
err_has "typo.conf:5: unknown key 'wiat' in [cluster mail]; did you mean 'wait'?" \
    "wiat: did you mean 'wait'"
mkconf "$T/far.conf" <<EOF2
[cluster mail]
wait = 10s
color = red
EOF2
exit_is 78 "color: exit 78" "$CHECK" -c "$T/far.conf" mail
err_has "unknown key 'color' in [cluster mail]" "color: unknown key"
err_lacks "did you mean" "color: nothing near, no suggestion"

# --- unknown clusters ---
CONF=$T/pollguard.conf
for tool in "$CHECK" "$TOUCH" "$STATUS"; do
	n=${tool##*/}
	exit_is 78 "$n nosuch: exit 78" "$tool" -c "$CONF" nosuch
	err_has "no [cluster nosuch] (clusters: mail, orders.db)" \
	    "$n nosuch: the clusters there are"
	err_lacks "did you mean" "$n nosuch: nothing near"
	exit_is 78 "$n mial: exit 78" "$tool" -c "$CONF" mial
	err_has "no [cluster mial]; did you mean 'mail'? (clusters: mail, orders.db)" \
	    "$n mial: did you mean 'mail', and the list"
done
exit_is 3 "status -p mial: UNKNOWN" "$STATUS" -p -c "$CONF" mial
grep -qF "did you mean 'mail'?" "$T/out" && ok "status -p mial: the plugin line suggests mail" ||
    not_ok "status -p mial: the plugin line suggests mail"

# --- a missing configuration ---
exit_is 78 "-c missing: exit 78" "$CHECK" -c "$T/none.conf" mail
err_has "$T/none.conf: No such file or directory" "-c missing: names the file"
err_has "-c" "-c missing: mentions -c"
err_has POLLGUARD_CONF "-c missing: mentions POLLGUARD_CONF"
POLLGUARD_CONF=$T/none.conf exit_is 78 "POLLGUARD_CONF missing: exit 78" "$STATUS"
err_has POLLGUARD_CONF "POLLGUARD_CONF missing: mentions it"
POLLGUARD_CONF=$T/none.conf exit_is 78 "touch, POLLGUARD_CONF missing: exit 78" "$TOUCH" mail
err_has "with -c file or POLLGUARD_CONF" "touch, POLLGUARD_CONF missing: says how to name one"

# --- pollguard-serve at a terminal, no listen ---
if ! command -v script >/dev/null 2>&1; then
	skip "script(1) (util-linux) not installed: no terminal to test with" 5
elif ! timeout 10 script -qec 'test -t 0' /dev/null >/dev/null 2>&1; then
	skip "script(1) cannot give a terminal here (no pseudo-terminals?)" 5
else
	# A terminal on stdin that stays open, as a person's does, 5 s.
	start=$(now_ms)
	sleep 5 | timeout -k 5 20 script -qec \
	    "$SERVE -c $CONF; echo rc=\$?" /dev/null >"$T/tty" 2>&1 &
	wait_for 10 grep -q 'rc=' "$T/tty"
	took=$(($(now_ms) - start))
	tr -d '\r' <"$T/tty" >"$T/tty.txt"
	grep -q '^rc=64$' "$T/tty.txt" && ok "serve at a terminal: exit 64" ||
	    { not_ok "serve at a terminal: exit 64"; diag_file "$T/tty.txt" terminal; }
	grep -q 'inetd mode' "$T/tty.txt" && ok "serve at a terminal: says inetd mode" ||
	    not_ok "serve at a terminal: says inetd mode"
	grep -qF -- '-l [addr]:port' "$T/tty.txt" && grep -q 'set listen' "$T/tty.txt" &&
	    ok "serve at a terminal: says how to listen" ||
	    not_ok "serve at a terminal: says how to listen"
	grep -q 408 "$T/tty.txt" && not_ok "serve at a terminal: no 408" ||
	    ok "serve at a terminal: no 408"
	num_between "$took" 0 1900 "serve at a terminal: at once, not after 2 s"
	wait
fi
finish
