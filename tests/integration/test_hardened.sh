#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# nosuid, nodev, noexec and ro on extended lines (METHOD+): set on the
# instance's mount of every method, shown in mountinfo, and in effect. The
# instances live on a tmpfs mounted without those flags, so that the same
# files in the same instance do run set-user-ID, open as a device and
# execute through a plain line: the control that shows the flags, not the
# filesystem underneath, stop them.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
module_is_linux_pam && skip "nosuid, nodev, noexec and ro on bind instances are this module's"

mount -t tmpfs -o mode=0755 ns-test-inst /srv
sandbox_inst_parent /srv/inst

# The per-mount options of the mount on /tmp in the session: field 6 of mountinfo.
opts='awk '"'"'$5 == "/tmp" { o = $6 } END { print o }'"'"' /proc/self/mountinfo'
# What alice's session can do with the files root left in her instance.
probe='echo "euid $(/tmp/suid-id -u)"
if /tmp/true 2>/dev/null; then echo exec-ok; else echo exec-refused; fi
if echo x 2>/dev/null >/tmp/null; then echo dev-ok; else echo dev-refused; fi
if echo x 2>/dev/null >/tmp/new; then echo write-ok; else echo write-refused; fi'

sandbox_conf '/tmp  /srv/inst/  user  root'
out=$(sandbox_su alice 'true') || fail "alice's first session: $out"
assert_file /srv/inst/alice
install -m 4755 -o root -g root /usr/bin/id /srv/inst/alice/suid-id
install -m 0755 /bin/true /srv/inst/alice/true
mknod -m 0666 /srv/inst/alice/null c 1 3

sb_note "control: a plain line; the set-user-ID copy runs as root, exec and the device work"
out=$(sandbox_su alice "$probe; $opts") || fail "alice's session: $out"
assert_eq "euid 0
exec-ok
dev-ok
write-ok
rw,relatime" "$out" "alice's session through a plain line"
rm -f /srv/inst/alice/new

sb_note "user+:nosuid:nodev: the copy runs as alice, the device does not open"
sandbox_conf '/tmp  /srv/inst/  user+:nosuid:nodev  root'
out=$(sandbox_su alice "$probe; $opts") || fail "alice's session: $out"
assert_eq "euid 2001
exec-ok
dev-refused
write-ok
rw,nosuid,nodev,relatime" "$out" "alice's session with nosuid, nodev"
rm -f /srv/inst/alice/new

sb_note "user+:noexec: nothing in /tmp executes"
sandbox_conf '/tmp  /srv/inst/  user+:noexec  root'
out=$(sandbox_su alice '/tmp/true; echo "status $?"' 2>&1) || true
assert_contains "$out" "/tmp/true: Permission denied" "executing from /tmp with noexec"
assert_contains "$out" "status 126" "executing from /tmp with noexec"

sb_note "user+:nosuid:nodev:noexec: all three in mountinfo"
sandbox_conf '/tmp  /srv/inst/  user+:nosuid:nodev:noexec  root'
out=$(sandbox_su alice "$opts; /tmp/suid-id -u" 2>&1) || true
assert_contains "$out" "rw,nosuid,nodev,noexec,relatime" "alice's session with all three"
assert_contains "$out" "/tmp/suid-id: Permission denied" "the set-user-ID copy with all three"

sb_note "user+:ro: the instance is read-only"
sandbox_conf '/tmp  /srv/inst/  user+:ro:nosuid  root'
out=$(sandbox_su alice "$probe; $opts; echo x >/tmp/f" 2>&1) || true
assert_contains "$out" "euid 2001
exec-ok
dev-ok
write-refused
ro,nosuid,relatime" "alice's session with ro"
assert_contains "$out" "Read-only file system" "writing to a read-only instance"

sb_note "the other methods: tmpfs+ and tmpdir+ get the flags too"
install -d -m 000 /srv/tmpdir-inst
sandbox_conf '/tmp      /srv/inst/          tmpfs+:nosuid:noexec:mntopts=size=1M  root
/var/tmp  /srv/tmpdir-inst/   tmpdir+:nodev:noexec  root'
out=$(sandbox_su alice 'awk '"'"'$5 == "/tmp" || $5 == "/var/tmp" { print $5, $6 }'"'"' /proc/self/mountinfo') ||
	fail "alice's session: $out"
assert_contains "$out" "/tmp rw,nosuid,noexec,relatime" "the tmpfs+ instance"
assert_contains "$out" "/var/tmp rw,nodev,noexec,relatime" "the tmpdir+ instance"

sb_note "ro on a tmpfs instance is refused: it would be empty"
sandbox_conf '/tmp  /srv/inst/  tmpfs+:ro  root'
sandbox_log_clear
rc=0
out=$(sandbox_su alice 'true') || rc=$?
assert_nonzero "$rc" "su with tmpfs+:ro: $out"
assert_log_contains "ro: a tmpfs instance is new and empty"
echo "ok: hardened"
