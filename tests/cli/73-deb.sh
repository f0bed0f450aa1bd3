#!/bin/bash
# SPDX-License-Identifier: ISC
# The Debian package (make deb): lintian reports no error and no warning;
# installed into a throwaway root (a private mount namespace, an overlay
# over / with its upper layer on a tmpfs, chroot), the tools run,
# pollguard-check -n works with the shipped /etc/pollguard.conf, the user
# pollguard and /var/lib/pollguard exist, no unit is enabled; dpkg -r
# keeps the configuration (as changed) and the state, dpkg -P removes
# both and leaves no file of the package or the user behind. make deb
# works in the unpacked release tarball (make dist), outside git, to the
# same files; built there as an older version, it is the package that
# this one upgrades, over an /etc/pollguard.conf the operator changed,
# which the upgrade keeps (a conffile), asking nothing.
#
# The package is built once and reused while no file of the tree (tests/
# aside) is newer than build/pollguard_*.deb. Needs root, unshare, dpkg-buildpackage
# and lintian; skipped with the reason otherwise.
#
# pg-test: long (two package builds and lintian)
. "${PG_TOP:-.}/tests/lib.sh"

NTESTS=31
why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root (dpkg -i into an overlay root needs mounts and chroot)"
elif ! command -v dpkg-buildpackage >/dev/null 2>&1 ||
    ! [ -e /usr/share/perl5/Debian/Debhelper/Dh_Lib.pm ]; then
	why="dpkg-dev or debhelper not installed (scripts/deps installs them)"
elif ! command -v lintian >/dev/null 2>&1; then
	why="lintian not installed (scripts/deps installs it)"
elif ! unshare -m --propagation private true 2>/dev/null; then
	why="unshare -m is not allowed here"
fi
if [ -n "$why" ]; then
	skip "$why" "$NTESTS"
	finish
fi

# --- build, or reuse a package newer than every file of the tree ------

deb_newest()
{
	ls -t "$PG_TOP"/build/pollguard_*.deb 2>/dev/null | head -n 1
}
DEB=$(deb_newest)
stale=yes
if [ -n "$DEB" ] && command -v git >/dev/null 2>&1 &&
    git -C "$PG_TOP" rev-parse --git-dir >/dev/null 2>&1; then
	stale=$(cd "$PG_TOP" && git ls-files -co --exclude-standard |
	    grep -v '^build/\|^tests/' | while read -r f; do
		[ "$f" -nt "$DEB" ] && { echo yes; break; }
	done)
fi
if [ -n "$stale" ]; then
	timeout -k 5 600 make -s -C "$PG_TOP" deb >"$T/build.log" 2>&1
	rc=$?
	DEB=$(deb_newest)
	if [ "$rc" -eq 0 ] && [ -n "$DEB" ]; then
		ok "make deb built $(basename "$DEB")"
	else
		not_ok "make deb"
		tail -n 20 "$T/build.log" >"$T/build.tail"
		diag_file "$T/build.tail" "make deb"
		bail "no package to test"
	fi
else
	ok "make deb: $(basename "$DEB") is newer than the tree: reused"
fi

PG_VERSION=$(cat "$PG_TOP/VERSION")
V=$(dpkg-deb -f "$DEB" Version)
case ${V%-*} in
"$PG_VERSION"|"$PG_VERSION"[+~]*) ok "package version $V matches VERSION $PG_VERSION" ;;
*) not_ok "package version $V matches VERSION $PG_VERSION" ;;
esac

# The previous build: make deb in the unpacked tarball, outside git, as
# version VERSION~prev-1, lower than this one.
make -s -C "$PG_TOP" dist O="$T/dist" >/dev/null 2>"$T/dist.log" ||
    diag_file "$T/dist.log" "make dist"
mkdir "$T/export"
tar -xzf "$T/dist/pollguard-$PG_VERSION.tar.gz" -C "$T/export" 2>"$T/untar.log"
X=$T/export/pollguard-$PG_VERSION
sed -i '1s/^pollguard (\([^)]*\)-\([^)-]*\))/pollguard (\1~prev-\2)/' \
    "$X/debian/changelog" 2>>"$T/untar.log"
GIT_CEILING_DIRECTORIES=$T/export timeout -k 5 600 make -s -C "$X" deb \
    >"$T/export.log" 2>&1
rc=$?
PREV=$(ls "$X"/build/pollguard_*.deb 2>/dev/null | head -n 1)
PV=$(dpkg-deb -f "$PREV" Version 2>/dev/null)
if [ "$rc" -eq 0 ] && [ -n "$PREV" ] &&
    dpkg --compare-versions "$PV" lt "$V"; then
	ok "make deb in the unpacked tarball, outside git: $PV, before $V"
else
	not_ok "make deb in the unpacked tarball, outside git: a version before $V"
	diag "exit $rc, package '${PREV:-none}', version '$PV'"
	tail -n 20 "$T/export.log" >"$T/export.tail"
	diag_file "$T/export.tail" "make deb (tarball)"
	diag_file "$T/untar.log" "make dist and tar -x"
fi
is "$(dpkg-deb -c "$PREV" 2>&1 | awk '{ print $6 }')" \
    "$(dpkg-deb -c "$DEB" | awk '{ print $6 }')" \
    "... the same files as from the tree"

# lintian: no error, no warning (overrides carry their reasons).
timeout -k 5 300 lintian "$DEB" >"$T/lintian" 2>&1
grep -E '^[EW]: ' "$T/lintian" >"$T/lintian.bad"
if [ -s "$T/lintian.bad" ]; then
	not_ok "lintian: no error, no warning"
	diag_file "$T/lintian.bad" lintian
else
	ok "lintian: no error, no warning"
fi

# --- install, remove, purge in a throwaway root ------------------------

W=$T/ovl
mkdir -p "$W"
cp "$DEB" "$T/pollguard.deb"
cp "$PREV" "$T/prev.deb" 2>/dev/null || : >"$T/prev.deb"
# The commands run inside the chroot; each check prints "name=value".
cat >"$T/inside.sh" <<'EOF'
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
unset POLLGUARD_CONF
r() { echo "$1=$2"; }
# What exists of that name before: the host's own copies are not ours.
WHERE="/etc /var /usr /lib /opt /srv /root /home"
find $WHERE -name '*pollguard*' -print 2>/dev/null | sort >/tmp/before
dpkg -i /tmp/pollguard.deb >/tmp/dpkg-i.log 2>&1; r install $?
r status "$(dpkg-query -W -f '${Status}' pollguard)"
r conffile "$(dpkg-query -W -f '${Conffiles}' pollguard | awk '{print $1}' | tr '\n' ' ')"
r user "$(getent passwd pollguard | cut -d: -f6,7)"
r statedir "$(stat -c '%a %U' /var/lib/pollguard 2>&1)"
r enabled "$(find /etc/systemd -name 'pollguard*' 2>/dev/null | tr '\n' ' ')"
r units "$(cd /lib/systemd/system && ls pollguard* | tr '\n' ' ')"
r unitpath "$(sed -n 's/^ExecCondition=//p' /lib/systemd/system/pollguard-job@.service)"
pollguard-check -n mail >/tmp/check.out 2>&1; r check_n $?
r check_n_err "$(cat /tmp/check.out)"
pollguard-touch mail; r touch $?
printf 'GET /v1/elapsed/mail HTTP/1.0\r\n\r\n' | pollguard-serve -i >/tmp/serve.out 2>&1
r serve "$(head -n 1 /tmp/serve.out | tr -d '\r')"
pollguard-check mail; r check_after_touch $?
pollguard-run mail -- sh -c 'exit 7'; r run $?
# An etcd cluster: pollguard-touch execs /usr/lib/pollguard/pollguard-touch-curl,
# which alone says that this node does not hold the key (no etcd needed).
printf '[pollguard]\nstate = /tmp/etcd-state\n[etcd]\nendpoints = http://127.0.0.1:9\n[cluster strict]\nbackend = etcd\nwait = 1m\n' >/tmp/etcd.conf
pollguard-touch -c /tmp/etcd.conf strict >/tmp/touch-etcd.out 2>&1
r touch_etcd "$?:$(grep -c 'does not hold the key in etcd' /tmp/touch-etcd.out)"
r man "$(man -w pollguard-check pollguard.conf pollguard 2>&1 | tr '\n' ' ')"
r completion "$(bash -c '. /usr/share/bash-completion/completions/pollguard-touch && COMP_WORDS=(pollguard-touch m) COMP_CWORD=1 && _pollguard pollguard-touch m pollguard-touch && echo "${COMPREPLY[*]}"' 2>&1)"
r doc "$(cd /usr/share/doc/pollguard && ls README* changelog* copyright 2>&1 | tr '\n' ' ')"
echo '# changed by the operator' >>/etc/pollguard.conf
install -m 755 /bin/true /etc/pollguard/jobs/mail
dpkg -r pollguard >/tmp/dpkg-r.log 2>&1; r remove $?
r removed_bin "$(ls /usr/bin/pollguard-check 2>&1 >/dev/null | grep -c 'No such')"
r kept_conf "$(tail -n 1 /etc/pollguard.conf 2>&1)"
r kept_state "$(ls /var/lib/pollguard 2>&1 | tr '\n' ' ')"
dpkg -P pollguard >/tmp/dpkg-p.log 2>&1; r purge $?
r left "$(find $WHERE \( -name '*pollguard*' -o -user pollguard -o -group pollguard \) \
    -print 2>/dev/null | sort | comm -13 /tmp/before - |
    grep -v '^/etc/pollguard\(/jobs\)\{0,1\}$' | tr '\n' ' ')"
r jobs_kept "$(ls /etc/pollguard/jobs 2>&1)"
# The upgrade from the previous build, over a changed configuration.
dpkg -i /tmp/prev.deb >/tmp/dpkg-prev.log 2>&1; r prev_install $?
echo '# changed before the upgrade' >>/etc/pollguard.conf
dpkg -i /tmp/pollguard.deb </dev/null >/tmp/dpkg-upgrade.log 2>&1; r upgrade $?
r upgraded "$(dpkg-query -W -f '${Version} ${Status}' pollguard)"
r upgrade_conf "$(tail -n 1 /etc/pollguard.conf 2>&1)"
r upgrade_leftovers "$(ls -d /etc/pollguard.conf?* 2>/dev/null | tr '\n' ' ')"
pollguard-check -n mail >/tmp/check2.out 2>&1; r upgrade_check $?
dpkg -P pollguard >/tmp/dpkg-p2.log 2>&1; r purge2 $?
r left2 "$(find $WHERE \( -name '*pollguard*' -o -user pollguard -o -group pollguard \) \
    -print 2>/dev/null | sort | comm -13 /tmp/before - |
    grep -v '^/etc/pollguard\(/jobs\(/mail\)\{0,1\}\)\{0,1\}$' | tr '\n' ' ')"
EOF
timeout -k 5 300 unshare -m --propagation private sh -ec '
	W=$1
	mount -t tmpfs tmpfs "$W"
	mkdir "$W/upper" "$W/work" "$W/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$W/upper,workdir=$W/work" "$W/root"
	mount -t proc proc "$W/root/proc"
	mount --rbind /dev "$W/root/dev"
	mount -t tmpfs tmpfs "$W/root/tmp"
	mount -t tmpfs tmpfs "$W/root/run"
	cp "$2/pollguard.deb" "$2/prev.deb" "$2/inside.sh" "$W/root/tmp/"
	chroot "$W/root" /bin/sh /tmp/inside.sh
	cp "$W/root/tmp/"*.log "$2/" 2>/dev/null || true
' sh "$W" "$T" >"$T/inside.out" 2>"$T/inside.err"
declare -A R
while IFS= read -r l; do
	R[${l%%=*}]=${l#*=}
done <"$T/inside.out"
[ -s "$T/inside.err" ] && diag_file "$T/inside.err" "in the throwaway root"

is "${R[install]-}" 0 "dpkg -i: exit 0"
[ "${R[install]-}" = 0 ] || diag_file "$T/dpkg-i.log" "dpkg -i"
is "${R[status]-}" "install ok installed" "dpkg: installed"
is "${R[conffile]-}" "/etc/pollguard.conf " "/etc/pollguard.conf is the conffile"
is "${R[user]-}" "/:/usr/sbin/nologin" "the system user pollguard (sysusers.d): no home, no shell"
is "${R[statedir]-}" "755 root" "/var/lib/pollguard created (tmpfiles.d): 755 root"
is "${R[enabled]-}" "" "no unit enabled (README.Debian says why)"
is "${R[units]-}" "pollguard-job@.service pollguard-job@.timer pollguard.service pollguard.socket pollguard@.service " \
    "the serve units and the job templates in /lib/systemd/system"
is "${R[unitpath]-}" "/usr/bin/pollguard-check -E -c /etc/pollguard.conf %i" \
    "the units name /usr/bin"
is "${R[check_n]-}" 0 "pollguard-check -n mail with the shipped config: exit 0"
[ "${R[check_n]-}" = 0 ] || diag "pollguard-check -n: ${R[check_n_err]-}"
is "${R[touch]-}/${R[serve]-}/${R[check_after_touch]-}" "0/HTTP/1.0 200 OK/0" \
    "pollguard-touch, pollguard-serve -i and pollguard-check run"
is "${R[run]-}" 7 "pollguard-run mail -- job: runs it, exits with its status"
is "${R[touch_etcd]-}" 1:1 \
    "pollguard-touch on an etcd cluster runs /usr/lib/pollguard/pollguard-touch-curl"
case ${R[man]-} in
*/man1/pollguard-check.1.gz*/man5/pollguard.conf.5.gz*/man7/pollguard.7.gz*)
	ok "man finds the pages" ;;
*)	not_ok "man finds the pages"; diag "man -w: ${R[man]-}" ;;
esac
is "${R[completion]-}" "mail" "bash completion: the shipped config's cluster"
is "${R[doc]-}" "README.Debian README.gz changelog.Debian.gz changelog.gz copyright " \
    "/usr/share/doc/pollguard: README, CHANGES (changelog.gz), changelog.Debian"
is "${R[remove]-}/${R[removed_bin]-}" "0/1" "dpkg -r: exit 0, the tools gone"
is "${R[kept_conf]-}" "# changed by the operator" "dpkg -r keeps the changed /etc/pollguard.conf"
is "${R[kept_state]-}" "mail " "dpkg -r keeps the state (/var/lib/pollguard/mail)"
is "${R[purge]-}" 0 "dpkg -P: exit 0"
is "${R[left]-}" "" "dpkg -P leaves no file of the package, and none of the user pollguard"
is "${R[jobs_kept]-}" "mail" "dpkg -P leaves the operator's job in /etc/pollguard/jobs"
is "${R[prev_install]-}" 0 "dpkg -i of the previous build ($PV): exit 0"
[ "${R[prev_install]-}" = 0 ] || diag_file "$T/dpkg-prev.log" "dpkg -i (previous)"
is "${R[upgrade]-}" 0 "dpkg -i upgrades it over a changed /etc/pollguard.conf, asking nothing"
[ "${R[upgrade]-}" = 0 ] || diag_file "$T/dpkg-upgrade.log" "dpkg -i (upgrade)"
is "${R[upgraded]-}" "$V install ok installed" "... to $V"
is "${R[upgrade_conf]-}/${R[upgrade_leftovers]-}" "# changed before the upgrade/" \
    "... keeping the changed conffile, with no .dpkg-* copy beside it"
is "${R[upgrade_check]-}" 0 "... and pollguard-check -n runs with it"
is "${R[purge2]-}/${R[left2]-}" "0/" "dpkg -P after the upgrade leaves nothing"

finish
