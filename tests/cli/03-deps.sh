#!/bin/bash
# SPDX-License-Identifier: ISC
# scripts/deps around the install of a daemon's package: while it runs,
# a policy-rc.d of its own keeps services from starting; afterwards, on
# a failed install, or when a signal stops it, that file is gone and the
# daemon's service is disabled. A marked file left by a killed run is
# removed by the next; one of somebody else's stays.
#
# apt-get, dpkg, dpkg-query and systemctl are stand-ins on PATH: a real
# install would change this host. Each case runs in a mount namespace
# whose /usr/sbin is $T/sbin, bound over it, so the host's policy-rc.d is
# never touched. Needs root and unshare -m; skipped otherwise.
. "$PG_TOP/tests/lib.sh"

NTESTS=16
if [ "$(id -u)" -ne 0 ]; then
	skip "not root (a policy-rc.d in /usr/sbin, in a mount namespace)" "$NTESTS"
	finish
fi
if ! unshare -m sh -c "mount -t tmpfs tmpfs /usr/sbin" 2>"$T/unshare.err"; then
	skip "no mount namespace: $(head -n 1 "$T/unshare.err")" "$NTESTS"
	finish
fi

# A copy of the script, so that its tests/.cache is $T's.
mkdir -p "$T/src/scripts" "$T/bin" "$T/sbin"
cp "$PG_TOP/scripts/deps" "$T/src/scripts/deps"

# cron is the one package missing; every other reads as installed.
cat >"$T/bin/dpkg-query" <<'EOF'
#!/bin/sh
eval "p=\${$#}"
[ "$p" = cron ] && [ ! -e "$STUB/installed" ] && exit 1
printf 'install ok installed'
EOF
# apt-get install: notes whether policy-rc.d forbids starting services,
# then does what $STUB/mode says: ok, fail, or hang (until killed).
cat >"$T/bin/apt-get" <<'EOF'
#!/bin/sh
case "$1" in
update) exit 0 ;;
download) exit 1 ;;
install) ;;
*) exit 2 ;;
esac
if [ -x /usr/sbin/policy-rc.d ]; then
	/usr/sbin/policy-rc.d cron start
	echo "policy $?" >>"$STUB/log"
else
	echo "policy none" >>"$STUB/log"
fi
case $(cat "$STUB/mode") in
fail) exit 100 ;;
hang) echo $$ >"$STUB/apt.pid"; exec sleep 60 ;;
esac
: >"$STUB/installed"
EOF
cat >"$T/bin/dpkg" <<'EOF'
#!/bin/sh
[ "$1" = -L ] && [ "$2" = cron ] && echo /lib/systemd/system/cron.service
exit 0
EOF
cat >"$T/bin/systemctl" <<'EOF'
#!/bin/sh
echo "systemctl $*" >>"$STUB/log"
EOF
chmod 755 "$T"/bin/*
export STUB=$T/stub

# deps MODE [SIGNAL]: run the copy in a mount namespace whose /usr/sbin
# is $T/sbin; with SIGNAL, send it once apt-get hangs. Sets RC; the log
# of the stand-ins is $STUB/log, what is left in /usr/sbin is $T/sbin.
deps()
{
	rm -rf "$STUB"
	mkdir -p "$STUB"
	echo "$1" >"$STUB/mode"
	# perl: a background job starts with SIGINT ignored; it resets it.
	bg deps unshare -m perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' sh -c '
		mount --bind "$1" /usr/sbin || exit 99
		exec env PATH="$2:$PATH" sh "$3"' sh "$T/sbin" "$T/bin" \
	    "$T/src/scripts/deps"
	local pid=$BGPID
	# As a terminal's Ctrl-C does: to the script and to apt-get, which
	# the script waits for before its trap runs.
	if [ -n "${2:-}" ]; then
		if wait_for 20 test -s "$STUB/apt.pid"; then
			kill -"$2" "$pid" "$(cat "$STUB/apt.pid")"
		else
			diag "apt-get did not start"
		fi
	fi
	wait_exit "$pid" 60
	RC=$?
}

deps ok
is "$RC" 0 "an install: exit 0"
is "$(grep policy "$STUB/log")" "policy 101" \
    "... during which policy-rc.d forbids starting services"
assert "... and after which cron's service is disabled" \
    grep -qx "systemctl disable -q cron.service" "$STUB/log"
is "$(ls -A "$T/sbin")" "" "... and policy-rc.d is gone"

deps fail
is "$RC" 100 "a failed install: apt-get's exit status"
assert "... cron's service is disabled all the same" \
    grep -qx "systemctl disable -q cron.service" "$STUB/log"
is "$(ls -A "$T/sbin")" "" "... and policy-rc.d is gone"

for sig in INT TERM; do
	deps hang "$sig"
	is "$RC" "$((128 + $(kill -l "$sig")))" "SIG$sig during the install: dies of it"
	is "$(ls -A "$T/sbin")" "" "... and policy-rc.d is gone"
	[ -s "$STUB/apt.pid" ] && kill "$(cat "$STUB/apt.pid")" 2>/dev/null
done

# One of ours left behind (a SIGKILL): the next run removes it, even
# with nothing to install.
printf "#!/bin/sh\n# pollguard's scripts/deps: removed when it ends\nexit 101\n" \
    >"$T/sbin/policy-rc.d"
chmod 755 "$T/sbin/policy-rc.d"
deps ok
is "$RC" 0 "a marked policy-rc.d left by a killed run: exit 0"
is "$(ls -A "$T/sbin")" "" "... and it is removed"
printf "#!/bin/sh\n# pollguard's scripts/deps: removed when it ends\nexit 101\n" \
    >"$T/sbin/policy-rc.d"
mkdir -p "$STUB"
: >"$STUB/installed"
PATH="$T/bin:$PATH" unshare -m sh -c 'mount --bind "$1" /usr/sbin &&
    sh "$2"' sh "$T/sbin" "$T/src/scripts/deps" >/dev/null 2>&1
is "$(ls -A "$T/sbin")" "" "... also when nothing is missing"

# Somebody else's stays, through an install and after it.
printf '#!/bin/sh\nexit 101\n' >"$T/sbin/policy-rc.d"
chmod 755 "$T/sbin/policy-rc.d"
deps ok
is "$RC" 0 "somebody else's policy-rc.d: exit 0"
is "$(cat "$T/sbin/policy-rc.d")" "$(printf '#!/bin/sh\nexit 101')" \
    "... and it stays as it was"
finish
