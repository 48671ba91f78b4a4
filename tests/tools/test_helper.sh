#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# pam_namespace_helper at boot: creates the missing instance parents of every
# line (main file and namespace.d), root-owned mode 000, leaves per-user and
# tmpfs lines alone, fails (exit 1, naming the path) on an existing parent
# the module would refuse, and the module then works without anyone
# running mkdir. share= directories (issue 27): one sessions will not share
# is a warning naming the line and path, never changed by the helper.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

helper=${NS_HELPER:?NS_HELPER names the built pam_namespace_helper}

# shellcheck disable=SC2016 # $HOME is for the module to expand
sandbox_conf '/tmp     /tmp/tmp-inst/      user root
$HOME    $HOME/.inst/        user root
/srv     -                   tmpfs root'
sandbox_conf_d 10-var.conf '/var/tmp /var/tmp/tmp-inst/ user:noinit root'
out=$("$helper" --verbose 2>&1) || fail "helper: $out"
assert_eq "0000 root" "$(stat -c '%04a %U' /tmp/tmp-inst)" "/tmp/tmp-inst"
assert_eq "0000 root" "$(stat -c '%04a %U' /var/tmp/tmp-inst)" "/var/tmp/tmp-inst from namespace.d"
assert_contains "$out" "depends on the user" "the \$HOME line is left to the module"

sb_note "a second run changes nothing"
out=$("$helper" --verbose 2>&1) || fail "second run: $out"
assert_contains "$out" "/tmp/tmp-inst: exists, root, mode 0000" "second run"

sb_note "the module works on what the helper made"
out=$(sandbox_su alice 'echo hi >/tmp/f; ls -A /tmp') || fail "su: $out"
assert_eq "f" "$out" "alice's /tmp"
assert_file /tmp/tmp-inst/alice/f "alice's instance"

sb_note "a wrong existing parent fails the helper (and its unit), naming the path"
chmod 0755 /var/tmp/tmp-inst
rc=0
out=$("$helper" 2>&1) || rc=$?
assert_status 1 "$rc" "exit status with a parent of mode 0755"
assert_contains "$out" "10-var.conf:1: error: instance parent /var/tmp/tmp-inst: owner root, group root, mode 0755; it must be owned by root with mode 000" "error"
assert_eq "755" "$(stat -c '%a' /var/tmp/tmp-inst)" "the helper does not change it"
assert_eq "0000 root" "$(stat -c '%04a %U' /tmp/tmp-inst)" "the other parent, still there"
sandbox_refused alice "instance parent /var/tmp/tmp-inst" "the module, on the parent the helper refused"
chown 2001 /tmp/tmp-inst
chmod 0755 /var/tmp/tmp-inst
rc=0
out=$("$helper" 2>&1) || rc=$?
assert_status 1 "$rc" "exit status with a parent owned by a user"
assert_contains "$out" "instance parent /tmp/tmp-inst: owner alice, group root, mode 0000" "the user's parent"
chown 0 /tmp/tmp-inst

sb_note "the line's ignore_instance_parent_mode allows the parent, as in the module"
sandbox_conf_d 10-var.conf '/var/tmp /var/tmp/tmp-inst/ user+:noinit:ignore_instance_parent_mode root'
out=$("$helper" --verbose 2>&1) || fail "helper with ignore_instance_parent_mode: $out"
assert_contains "$out" "/var/tmp/tmp-inst: exists, owner uid 0, mode 0755, allowed" "verbose"
chmod 000 /var/tmp/tmp-inst

sb_note "a bad line does not cost the other lines their parents"
# shellcheck disable=SC2016 # $USER is for the module to expand
sandbox_conf '/tmp     /tmp/other-inst/   user root
/var/tmp /var/tmp/x/        frob root
/tmp     /tmp/peruser/$USER- user root'
rc=0
out=$("$helper" 2>&1) || rc=$?
assert_status 1 "$rc" "exit status with a bad line"
assert_contains "$out" "namespace.conf:2:" "the bad line is named"
assert_eq "0000 root" "$(stat -c '%04a %U' /tmp/other-inst)" "the good line's parent"
assert_eq "0000 root" "$(stat -c '%04a %U' /tmp/peruser)" "\$USER only in the last component"
sb_note "share=: a directory sessions will not share is a warning, left as it is"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+:share=/tmp/.X11-unix:share=/tmp/.ICE-unix  root'
install -d -m 1777 /tmp/.X11-unix
rm -rf /tmp/.ICE-unix
out=$("$helper" --verbose 2>&1) || fail "helper with share=: $out"
assert_contains "$out" "/tmp/.X11-unix: shared, owner uid 0, mode 1777" "a right share, verbose"
assert_contains "$out" "namespace.conf:1: warning: share /tmp/.ICE-unix: No such file or directory; sessions through this line will not share it" "a missing share"
assert_no_file /tmp/.ICE-unix "a missing share, not made by the helper"
rmdir /tmp/.X11-unix
setpriv --reuid=alice --regid=alice --clear-groups mkdir -m 1777 /tmp/.X11-unix
setpriv --reuid=alice --regid=alice --clear-groups ln -s /home/alice /tmp/.ICE-unix
out=$("$helper" 2>&1) || fail "helper with alice's shares: $out"
assert_contains "$out" "namespace.conf:1: warning: share /tmp/.X11-unix has owner uid 2001 and mode 1777; it must be owned by root and, if group or others may write it, sticky; sessions through this line will not share it" "alice's directory"
assert_contains "$out" "namespace.conf:1: warning: share /tmp/.ICE-unix: a symbolic link, not a directory; sessions through this line will not share it" "alice's link"
assert_eq "alice 1777" "$(stat -c '%U %a' /tmp/.X11-unix)" "alice's directory, not changed"
out=$(sandbox_su bob 'echo in') || fail "bob's session: $out"
assert_eq "in" "$out" "bob's session opens, as the warning says"
sb_note "ok"
