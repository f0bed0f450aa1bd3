#!/bin/bash
# SPDX-License-Identifier: ISC
# Two attacks a review of issue 33's trust found (both fixed since):
#
#	state symlink	a state directory named under a sticky directory
#			(which 33a and pollguard.conf(5) call fine) that
#			does not exist yet: user 65534 plants a symbolic
#			link there to a root directory of their choice;
#			root's pollguard-touch follows it and replaces a
#			file named after the cluster there.
#	pidfile link	a hard link (as an attacker makes where
#			fs.protected_hardlinks is 0) to a root file, planted
#			as pollguard-serve's pidfile in /tmp: the serve
#			truncates the root file.
. "${PG_TOP:-.}/tests/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "not root, or no setpriv" 4
	finish
fi
plan 4
as_attacker()
{
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
chmod 711 "$T"
SHARED=$T/tmp
mkdir "$SHARED" && chmod 1777 "$SHARED"
VICTIM=$T/victim
mkdir -m 755 "$VICTIM"
printf 'keep\n' >"$VICTIM/data"

# The state directory: $SHARED/pgstate, not made yet; the attacker is first.
as_attacker ln -s "$VICTIM" "$SHARED/pgstate"
STATE=$SHARED/pgstate mkconf "$T/sd.conf" <<CONF
[cluster data]
wait = 10s
CONF
"$TOUCH" -c "$T/sd.conf" data 2>"$T/touch.err"
rc=$?
is "$rc" 78 "a state directory reached through another user's symbolic link: touch exits 78"
is "$(cat "$VICTIM/data")" keep "... root's file named after the cluster keeps its content"

# The pidfile: a hard link to root's file, in a sticky directory.
printf 'keep\n' >"$VICTIM/data"
ln "$VICTIM/data" "$SHARED/serve.pid"	# the attacker's, where links are not protected
STATE=$T/state mkconf <<CONF
[cluster c]
wait = 10s
CONF
# Refused at once; one that starts runs until the bound (a loaded
# sanitizer build took over 3 s to refuse).
timeout -k 2 "$PG_CMD_TIMEOUT" "$SERVE" -c "$CONF" -p "$SHARED/serve.pid" -l 127.0.0.1:0 \
    2>"$T/serve.err"
rc=$?
[ "$rc" = 73 ] && ok "a pidfile with two links: serve -p refuses (73)" ||
    not_ok "a pidfile with two links: serve -p refuses (73), got $rc"
is "$(cat "$VICTIM/data")" keep "... root's file it links to keeps its content"
finish
