#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# share= on an extended line: /tmp polyinstantiated, /tmp/.X11-unix and
# /tmp/.ICE-unix kept the system's. A real X server (Xvfb) listens only on
# its socket in /tmp/.X11-unix and a real X client (xdpyinfo) in a su
# session connects to it: with share= it works, without it it cannot, and
# Linux-PAM's module refuses the extended line (so a configuration written
# for this module is never half-applied there) and, given the flag on a
# plain line, ignores it and the client fails as well. A user who puts a
# symbolic link, or a directory of their own, where the real
# /tmp/.X11-unix should be locks nobody out: sessions open with that path
# not shared (one log line naming it and why), never the user's directory
# mounted, each session seeing its own instance's directory there, and its
# X client failing (the safe failure).
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
module_is_linux_pam && skip "share= is this module's extension"
command -v Xvfb >/dev/null || skip "Xvfb is not installed (xvfb)"
command -v xdpyinfo >/dev/null || skip "xdpyinfo is not installed (x11-utils)"
linux_pam=$(sb_linux_pam_module)

# The X server: its socket in /tmp/.X11-unix only. No TCP, and no abstract
# socket (-nolisten local): that one lives in the network namespace, which
# a private /tmp does not hide, so a client would reach the server through
# it whatever /tmp shows. -ac: the test is about paths, not X authority.
install -d -m 1777 /tmp/.X11-unix /tmp/.ICE-unix
Xvfb :57 -nolisten tcp -nolisten local -ac >"$SB_DIR/xvfb.log" 2>&1 &
xvfb=$!
stop_x() {
	local rc=$?
	kill "$xvfb" 2>/dev/null || true
	wait "$xvfb" 2>/dev/null || true
	sb_cleanup
	return "$rc"
}
trap stop_x EXIT
for ((i = 0; i < 200; i++)); do
	[[ -S /tmp/.X11-unix/X57 ]] && break
	sleep 0.05
done
[[ -S /tmp/.X11-unix/X57 ]] || fail "Xvfb did not start: $(cat "$SB_DIR/xvfb.log")"
xdpyinfo -display :57 >/dev/null || fail "xdpyinfo from outside any session"

# The X client in USER's session; prints x-ok when it reached the server.
x_client='if xdpyinfo -display :57 >/dev/null 2>&1; then echo x-ok; else echo x-failed; fi'

share_line='/tmp  /tmp/tmp-inst/  user+:share=/tmp/.X11-unix:share=/tmp/.ICE-unix  root'
sandbox_inst_parent /tmp/tmp-inst

sb_note "without share=, the private /tmp hides the X socket"
sandbox_conf '/tmp  /tmp/tmp-inst/  user  root'
out=$(sandbox_su alice "$x_client; ls -A /tmp") || fail "alice's session: $out"
assert_eq "x-failed" "$out" "the X client in a private /tmp"

sb_note "with share=, the X client reaches the server; /tmp stays private"
sandbox_conf "$share_line"
out=$(sandbox_su alice "$x_client; echo a >/tmp/mine; ls -A /tmp; ls -A /tmp/.X11-unix
awk '\$5 ~ /^\\/tmp/ { print \$5 }' /proc/self/mountinfo") || fail "alice's session: $out"
assert_eq "x-ok
.ICE-unix
.X11-unix
mine
X57
/tmp
/tmp
/tmp/.X11-unix
/tmp/.ICE-unix" "$out" "alice's session with share="
assert_file /tmp/tmp-inst/alice/mine
assert_no_file /tmp/mine
assert_eq "1777 root" "$(stat -c '%a %U' /tmp/tmp-inst/alice/.X11-unix)" "the mount point in alice's instance"
out=$(sandbox_su bob "$x_client; ls -A /tmp") || fail "bob's session: $out"
assert_eq "x-ok
.ICE-unix
.X11-unix" "$out" "bob's session with share="
sb_note "the line's nosuid, nodev, noexec hold on the shared mounts too; ro does not"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+:share=/tmp/.X11-unix:nosuid:nodev:noexec:ro  root'
out=$(sandbox_su alice "$x_client; awk '\$5 ~ /^\\/tmp/ { print \$5, \$6 }' /proc/self/mountinfo") ||
	fail "alice's session: $out"
assert_eq "x-ok
/tmp rw,nosuid,nodev,relatime
/tmp ro,nosuid,nodev,noexec,relatime
/tmp/.X11-unix rw,nosuid,nodev,noexec,relatime" "$out" "alice's mounts with the flags"
sandbox_conf "$share_line"

sb_note "a socket made in the session's /tmp/.ICE-unix is the system's"
out=$(sandbox_su alice 'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"/tmp/.ICE-unix/123\")" && echo bound') ||
	fail "alice's session: $out"
assert_eq bound "$out" "binding a socket in /tmp/.ICE-unix"
[[ -S /tmp/.ICE-unix/123 ]] || fail "the ICE socket is not in the real /tmp/.ICE-unix"
rm -f /tmp/.ICE-unix/123

if [[ -n "$linux_pam" ]]; then
	module=$NS_MODULE
	NS_MODULE=$linux_pam
	sandbox_pam_args
	sb_note "Linux-PAM's module refuses the extended line"
	sandbox_log_clear
	rc=0
	out=$(sandbox_su alice "$x_client") || rc=$?
	assert_nonzero "$rc" "su through Linux-PAM's module with the extended line: $out"
	assert_not_contains "$out" "x-ok" "Linux-PAM's session"
	assert_log_contains "Unknown method" "Linux-PAM's log"
	sb_note "Linux-PAM's module ignores share= on a plain line: the client fails"
	sandbox_conf '/tmp  /tmp/tmp-inst/  user:share=/tmp/.X11-unix  root'
	out=$(sandbox_su carol "$x_client") || fail "carol's session through Linux-PAM: $out"
	assert_eq "x-failed" "$out" "the X client under Linux-PAM's module"
	NS_MODULE=$module
	sandbox_pam_args
	sb_note "this module warns about the flag on a plain line and ignores it too"
	sandbox_log_clear
	out=$(sandbox_su carol "$x_client") || fail "carol's session: $out"
	assert_eq "x-failed" "$out" "the X client, share= on a plain line"
	assert_log_contains 'unknown flag "share=/tmp/.X11-unix", ignored: this module'"'"'s flag of that name needs the extended method form ("user+")'
else
	sb_note "no Linux-PAM pam_namespace.so installed: not comparing"
fi

sandbox_conf "$share_line"
# not_shared WHAT LOGGED [USER [SEES]]: USER's session (default bob) opens
# with LOGGED, one line, in the log; /tmp/.X11-unix is not mounted in it,
# and the session sees SEES there (default: bob's instance's own mount
# point, root's, 1777, empty, from his earlier share= session), never
# alice's directory or what she left in it. /tmp/.ICE-unix stays shared.
not_shared() {
	local out user=${3:-bob}
	local sees=${4:-"root 1777 
"}
	sandbox_log_clear
	out=$(sandbox_su "$user" "$x_client
if [ -e /tmp/.X11-unix ]; then echo \"\$(stat -c '%U %a' /tmp/.X11-unix) \$(ls -A /tmp/.X11-unix)\"; else echo absent; fi
awk '\$5 ~ /^\\/tmp/ || \$5 == \"/home/alice/fake-x\" { print \$5 }' /proc/self/mountinfo") ||
		fail "$1: $user's session: $out"
	assert_eq "x-failed
${sees}/tmp
/tmp
/tmp/.ICE-unix" "$out" "$1: $user's session"
	assert_log_contains "$2" "$1"
	assert_eq 1 "$(sandbox_log | grep -c 'not sharing')" "$1: log lines about share="
	assert_eq 1 "$(sandbox_mounts_at /tmp)" "$1: mounts on /tmp here"
	assert_eq 0 "$(sandbox_mounts_at /tmp/.X11-unix)" "$1: mounts on /tmp/.X11-unix here"
}

sb_note "attack: /tmp/.X11-unix replaced by a symbolic link to alice's directory"
kill "$xvfb"
wait "$xvfb" 2>/dev/null || true
rm -rf /tmp/.X11-unix
install -d -m 0755 -o alice -g alice /home/alice/fake-x
touch /home/alice/fake-x/alice-was-here
setpriv --reuid=alice --regid=alice --clear-groups ln -s /home/alice/fake-x /tmp/.X11-unix
not_shared "a symbolic link" "not sharing /tmp/.X11-unix: it is a symbolic link, not a directory, in the real polydir; the session sees its own instance's directory there"

sb_note "attack: /tmp/.X11-unix made by alice before the X server"
# No X server is started here: one running as root chowns the directory to
# root when it starts (Xvfb does), after which it is shared as root's; a
# rootless one cannot, and until then the path is alice's.
rm /tmp/.X11-unix
setpriv --reuid=alice --regid=alice --clear-groups mkdir -m 1777 /tmp/.X11-unix
setpriv --reuid=alice --regid=alice --clear-groups touch /tmp/.X11-unix/X57
not_shared "a user's directory" "not sharing /tmp/.X11-unix: owner uid 2001, mode 1777; it must be owned by root"
sb_note "the same for carol, whose instance has no mount point there: nothing is made"
rm -rf /tmp/tmp-inst/carol
not_shared "a user's directory, carol" "not sharing /tmp/.X11-unix: owner uid 2001" carol "absent
"
assert_no_file /tmp/tmp-inst/carol/.X11-unix "a mount point in carol's instance"
assert_eq "alice 1777 X57" "$(stat -c '%U %a' /tmp/.X11-unix) $(ls -A /tmp/.X11-unix)" "alice's directory, left as it was"

sb_note "attack: /tmp/.X11-unix root's but writable by all and not sticky, where alice may replace the sockets"
rm -rf /tmp/.X11-unix
install -d -m 0777 /tmp/.X11-unix
touch /tmp/.X11-unix/alice-was-here
not_shared "a world-writable directory" "not sharing /tmp/.X11-unix: owner uid 0, mode 0777; it must be owned by root and, if group or others may write it, sticky"

sb_note "a shared directory that does not exist: not shared, the others are"
rm -rf /tmp/.X11-unix
install -d -m 1777 /tmp/.X11-unix
rmdir /tmp/.ICE-unix
sandbox_log_clear
out=$(sandbox_su bob "ls -A /tmp/.ICE-unix | wc -l; awk '\$5 ~ /^\\/tmp/ { print \$5 }' /proc/self/mountinfo") ||
	fail "a missing directory: bob's session: $out"
assert_eq "0
/tmp
/tmp
/tmp/.X11-unix" "$out" "a missing /tmp/.ICE-unix: bob's session"
assert_log_contains "not sharing /tmp/.ICE-unix: it is missing in the real polydir" "a missing directory"
assert_no_file /tmp/.ICE-unix "the real /tmp/.ICE-unix, not made by a session"
install -d -m 1777 /tmp/.ICE-unix

sb_note "attack: a symbolic link at the mount point in alice's own instance"
rmdir /tmp/tmp-inst/alice/.X11-unix
ln -s /etc /tmp/tmp-inst/alice/.X11-unix
chown -h alice:alice /tmp/tmp-inst/alice/.X11-unix
sandbox_log_clear
out=$(sandbox_su alice "readlink /tmp/.X11-unix; awk '\$5 ~ /^\\/tmp/ || \$5 == \"/etc\" { print \$5 }' /proc/self/mountinfo") ||
	fail "a link in alice's instance: alice's session: $out"
assert_eq "/etc
/tmp
/tmp
/tmp/.ICE-unix" "$out" "alice's session with a link in her instance: nothing mounted through it"
assert_log_contains "not sharing /tmp/.X11-unix: the instance has a symbolic link at its place" \
	"a link in alice's instance"
assert_eq "/etc" "$(readlink /tmp/tmp-inst/alice/.X11-unix)" "the link, left as it was"
echo "ok: share"
