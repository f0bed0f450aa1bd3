#!/bin/bash
# SPDX-License-Identifier: ISC
# Loud when unsafe (issue 34): under cron (no terminal: here stderr is a
# file), a peer that cannot be reached is said on stderr, so that cron
# mails it, once an hour per peer and cluster: the first time with what
# it means, then not again within the hour; every time with -v, never
# with -q; a record that is missing, damaged or over an hour old means
# say it, and so does a peer that answered in between. And a fresh peer, a real 0.5 serve without a state directory
# yet, is not called "before 0.4, or a proxy".
. "${PG_TOP:-.}/tests/lib.sh"

free_port || bail "no free port"
B=$FREE_PORT
free_port || bail "no free port"
C=$FREE_PORT
REC=$STATE/.mail.unreachable

# conf PEERS: node a, clusters mail and news of these peers (b: a closed
# port; c: another), settle 200ms.
conf()
{
	mkconf <<EOF
settle = 200ms
[cluster mail]
wait = 60s
peers = $1
[cluster news]
wait = 60s
peers = b
[peer b]
url = http://127.0.0.1:$B/
[peer c]
url = http://127.0.0.1:$C/
EOF
}
conf b
mkdir -m 755 "$STATE"

exit_is 0 "b unreachable, under cron: the check goes (counts as never)" \
    "$CHECK" -c "$CONF" mail
err_has "cluster mail: peer b (http://127.0.0.1:$B/) unreachable" \
    "... and says so on stderr, for cron to mail"
err_has "counts as never: this node may poll beside it" "... what it means"
err_has "'pollguard-status -t' checks the fleet" "... what to run"
err_has "(said once an hour)" "... and how often it is said"
is "$(grep -c unreachable "$T/err")" 1 "... once"
assert "the record .mail.unreachable is there" test -f "$REC"
assert "... and is 0644" test "$(stat -c %a "$REC")" = 644

exit_is 0 "again within the hour: go" "$CHECK" -n -c "$CONF" mail
err_empty "... and silent"

exit_is 0 "-v: go" "$CHECK" -n -v -c "$CONF" mail
err_has "peer b (http://127.0.0.1:$B/) unreachable" "-v: said every time"
err_lacks "(said once an hour)" "-v: not as the hourly line"

exit_is 0 "another cluster, news, with the same peer" "$CHECK" -n -c "$CONF" news
err_has "cluster news: peer b" "... said for that cluster too"
exit_is 0 "news again" "$CHECK" -n -c "$CONF" news
err_empty "... silent"

conf "b, c"
exit_is 0 "mail with a second unreachable peer c" "$CHECK" -n -c "$CONF" mail
err_has "peer c (http://127.0.0.1:$C/) unreachable" "... c is said"
err_lacks "peer b" "... b is not, within its hour"
conf b

rm -f "$REC"
exit_is 0 "-q, no record: go" "$CHECK" -n -q -c "$CONF" mail
err_empty "-q: never said"
assert "-q: nothing recorded" test ! -e "$REC"
exit_is 0 "then without -q: said" "$CHECK" -n -c "$CONF" mail
err_has "peer b (http://127.0.0.1:$B/) unreachable" "... on stderr"

printf 'garbage\n' >"$REC"
exit_is 0 "a damaged record: go" "$CHECK" -n -c "$CONF" mail
err_has "peer b (http://127.0.0.1:$B/) unreachable" "... and said"
exit_is 0 "the record written anew: go" "$CHECK" -n -c "$CONF" mail
err_empty "... and silent"
: >"$REC"
exit_is 0 "an empty record: said" "$CHECK" -n -c "$CONF" mail
err_has "peer b (" "... on stderr"

# Said more than an hour ago: a stamp of another boot, two hours back.
wall=$(($(date +%s) - 7200))000000000
printf 'pollguard-unreachable 1\nb 00000000-0000-0000-0000-000000000000 1 %s\n' \
    "$wall" >"$REC"
exit_is 0 "said two hours ago: go" "$CHECK" -n -c "$CONF" mail
err_has "peer b (" "... and said again"

# b answers again, then fails again: said at once, not an hour after the
# last time.
exit_is 0 "b unreachable: go" "$CHECK" -n -c "$CONF" mail
err_lacks "peer b (" "... silent, said within the hour"
{
	printf '[pollguard]\nnode = b\nstate = %s\n' "$T/b.state"
	printf '[cluster mail]\nwait = 60s\npeers = a\n'
	printf '[peer a]\nurl = http://127.0.0.1:9/\n'
} >"$T/b.conf"
chmod 600 "$T/b.conf"
serve_again sb "$T/b.conf" "$B" || bail "b's serve did not start on $B"
exit_is 0 "b answers (never): go" "$CHECK" -n -c "$CONF" mail
err_lacks "unreachable" "... nothing said"
assert "... and b's line is gone from the record" \
    sh -c '! grep -q "^b " "$1"' sh "$REC"
serve_stop "$SERVE_PID" >/dev/null
exit_is 0 "b unreachable again: go" "$CHECK" -n -c "$CONF" mail
err_has "peer b (http://127.0.0.1:$B/) unreachable" \
    "... said at once, not an hour after the last time"

# A fresh peer: a 0.5 serve whose state directory is not there yet.
{
	printf '[pollguard]\nnode = f\nstate = %s\n' "$T/f.state"
	printf 'settle = 200ms\n[cluster mail]\nwait = 60s\npeers = a\n'
	printf '[peer a]\nurl = http://127.0.0.1:9/\n'
} >"$T/f.conf"
chmod 600 "$T/f.conf"
serve_start sf "$T/f.conf" || bail "f's serve did not start"
sed -i "s|^peers = b\$|peers = f|" "$CONF"
printf '[peer f]\nurl = http://127.0.0.1:%s/\n' "$PORT" >>"$CONF"
sed -n '/^\[cluster mail\]/,/^\[/p' "$CONF" | grep -q '^peers = f$' ||
    bail "mail's peers are not f"
# The first check's claim, which may still be within its horizon.
rm -f "$STATE/mail"
exit_is 0 "a fresh peer f (no state directory): go" \
    "$CHECK" -v -c "$CONF" mail
err_has "f has no state directory yet (it has never checked)" \
    "-v: f is said to be fresh"
err_lacks "before 0.4" "... not called old"
err_lacks "shows no status" "... nor said to show no status"

finish
