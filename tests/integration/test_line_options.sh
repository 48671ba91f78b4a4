#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Per-line options of extended lines (METHOD+): ignore_instance_parent_mode
# for one line only, and backslash escapes of ':' and ',' inside mntopts
# values, which reach the kernel as one option (tmpfs's mpol=MODE:NODELIST,
# whose node list may hold commas).
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
module_is_linux_pam && skip "extended lines are this module's"

sb_note "ignore_instance_parent_mode on one line"
install -d -m 0755 /tmp/tmp-inst
install -d -m 0755 /var/tmp/tmp-inst
sandbox_conf '/tmp      /tmp/tmp-inst/      user  root'
sandbox_log_clear
rc=0
out=$(sandbox_su alice 'true') || rc=$?
assert_nonzero "$rc" "a plain line over a 0755 instance parent: $out"
assert_log_contains "instance parent /tmp/tmp-inst: owner root, group root, mode 0755; it must be owned by root with mode 000 (or use ignore_instance_parent_mode)"
sandbox_conf '/tmp      /tmp/tmp-inst/      user+:ignore_instance_parent_mode  root'
out=$(sandbox_su alice 'echo a >/tmp/a; ls -A /tmp') || fail "alice's session: $out"
assert_eq "a" "$out" "alice's /tmp with the per-line flag"
assert_file /tmp/tmp-inst/alice/a
sb_note "the next line, without the flag, is still checked"
sandbox_conf '/tmp      /tmp/tmp-inst/      user+:ignore_instance_parent_mode  root
/var/tmp  /var/tmp/tmp-inst/  user+  root'
sandbox_log_clear
rc=0
out=$(sandbox_su alice 'true') || rc=$?
assert_nonzero "$rc" "the second line over a 0755 instance parent: $out"
assert_log_contains "namespace.conf:2: instance parent /var/tmp/tmp-inst: owner root, group root, mode 0755"

# The tmpfs's options in the session, as mountinfo shows them (field 11 on).
super='awk '"'"'$5 == "/tmp" { o = $NF } END { print o }'"'"' /proc/self/mountinfo'
if ! unshare --mount sh -c 'mount -t tmpfs -o mpol=bind:0 ns-probe /mnt' 2>/dev/null; then
	echo "ok: line_options (this kernel has no tmpfs mpol=: escapes not tried)"
	exit 0
fi
sb_note "mntopts=mpol=bind\\:0: the ':' escaped, in quotes"
sandbox_conf '/tmp  -  "tmpfs+:mntopts=size=1M,mpol=bind\:0:nosuid"  root'
out=$(sandbox_su alice "$super") || fail "alice's session: $out"
assert_contains "$out" "mpol=bind:0" "the tmpfs's options"
assert_contains "$out" "size=1024k" "the tmpfs's options"
sb_note "mntopts=mpol=bind\\\\:0\\\\,0 outside quotes: one option, its node list 0,0"
sandbox_conf '/tmp  -  tmpfs+:mntopts=mpol=bind\\:0\\,0,size=2M  root'
out=$(sandbox_su alice "$super") || fail "alice's session: $out"
assert_contains "$out" "mpol=bind:0" "the tmpfs's options"
assert_contains "$out" "size=2048k" "the tmpfs's options"
sb_note "unescaped, the same comma splits the option and the kernel refuses the rest"
sandbox_conf '/tmp  -  "tmpfs+:mntopts=mpol=bind\:0,0"  root'
sandbox_log_clear
rc=0
out=$(sandbox_su alice 'true') || rc=$?
assert_nonzero "$rc" "mpol=bind:0,0 with the comma unescaped: $out"
assert_log_contains "mounting tmpfs on /tmp"
echo "ok: line_options"
