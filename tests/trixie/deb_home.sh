#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   deb_home.sh ROOT SRC WORK DEB
#
# The .deb on Debian 13, as an administrator deploys it, inside the trixie
# root ROOT (under enter.sh's throwaway overlay, so the root's /etc may be
# written): DEB, built in ROOT from SRC by dpkg-buildpackage -b
# (tests/boot/deb.sh), comes in on standard input, dpkg -i installs it,
# namespace.conf polyinstantiates $HOME, and Debian's own
# /etc/security/namespace.init and /etc/login.defs (which has no UMASK
# line on Debian 13) stay as libpam-modules and login ship them. Then
# alice and bob log in with util-linux's login(1) on a terminal
# (tests/driver/pty_run), once with this package's pam_namespace_ng.so in
# /etc/pam.d/login, once with Linux-PAM 1.7.0's pam_namespace.so. Debian's
# script chmods a new home instance to 0777 & ~UMASK, that is 0777: with
# Linux-PAM's module the home is left writable by everyone; with this
# module it must not be writable by group or others.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# == 4 ]] || {
	echo "usage: deb_home.sh ROOT SRC WORK DEB" >&2
	exit 2
}
exec bash "$here/enter.sh" "$1" "$2" "$3" '
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
deb=/root/'"${4##*/}"'
cat >"$deb"
dpkg -i "$deb" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -i $deb"; }
echo "ok: installed ${deb#/root/}"
ours=$(dpkg -L libpam-namespace-ng | grep "/pam_namespace_ng\.so$")
meson setup build >/dev/null && meson compile -C build pty_run >/dev/null
pty=build/tests/driver/pty_run
grep -q "^UMASK" /etc/login.defs && fail "this /etc/login.defs has a UMASK line: not Debian 13'"'"'s"
dpkg -S /etc/security/namespace.init
echo "# /etc/login.defs has no UMASK line; namespace.init is libpam-modules'"'"' $(dpkg-query -W -f "\${Version}" libpam-modules)"

for u in alice bob; do
	useradd -m -s /bin/sh "$u"
	touch "/home/$u/.hushlogin"
done
printf "%s\n" "\$HOME /home/inst/ user root" >/etc/security/namespace.conf
install -d -m 000 /home/inst
cp /etc/pam.d/login /tmp/login.pam

# session MODULE USER: a console login of USER with MODULE at the end of
# /etc/pam.d/login; prints the home mode the session saw.
session() {
	{ cat /tmp/login.pam; echo "session required $1"; } >/etc/pam.d/login
	timeout -k 5 60 "$pty" login -f "$2" </dev/null >/tmp/login.out 2>&1 || true
	tr -d "\r" </tmp/login.out | grep -E "^home " || { cat /tmp/login.out; fail "$2: no session with $1"; }
}
# The login shell prints what it sees and leaves (nobody types at it).
cat >/etc/profile.d/zz-ns-test.sh <<"PROFILE"
echo "home $(stat -c "%a %U" "$HOME") $(ls -A "$HOME" | tr "\n" " ")"
exit 0
PROFILE
trap "rm -f /etc/profile.d/zz-ns-test.sh" EXIT

for side in ours reference; do
	rm -rf /home/inst/*
	if [[ $side == ours ]]; then m=$ours; else m=/usr/lib/x86_64-linux-gnu/security/pam_namespace.so; fi
	echo "# $side: $m"
	for u in alice bob; do
		out=$(session "$m" "$u")
		echo "$u: $out; on disk: $(stat -c "%a %U" /home/inst/$u)"
		mode=$(stat -c %a "/home/inst/$u")
		[[ $out == "home $mode $u "*".profile"* ]] || fail "$u ($side): the session did not get its new home instance from /etc/skel"
		if [[ $side == ours ]]; then
			(( (8#$mode & 8#022) == 0 )) || fail "$u: the home instance is mode $mode, writable by group or others"
		else
			[[ $mode == 777 ]] || fail "$u: Linux-PAM 1.7.0 left mode $mode, not 777: the condition was not reproduced"
		fi
	done
done
echo "ok: with pam_namespace_ng.so a new home is not writable by group or others; Linux-PAM 1.7.0 leaves it 0777"
' <"$4"
