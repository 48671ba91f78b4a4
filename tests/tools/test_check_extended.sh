#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# pam_namespace_check on extended lines (METHOD+): it shows the mount flags
# and each share= with what is on disk there, and reports as an error what
# would make the module refuse the session (a group the name service does
# not know), as a warning a shared directory that is a symbolic link, a
# user's own or missing, which the module leaves unshared (issue 27).
# A plain line with this module's flags gets the warning the module logs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}
conf=/etc/security/namespace.conf
install -d -m 1777 /tmp/.X11-unix
sandbox_inst_parent /tmp/tmp-inst

sb_note "flags and shares in the plan"
sandbox_conf '/tmp /tmp/tmp-inst/ user+:nosuid:nodev:noexec:share=/tmp/.X11-unix root'
out=$("$check" --user alice 2>&1) || fail "check --user alice: $out"
assert_contains "$out" "mount flags:     nosuid, nodev, noexec" "the mount flags"
assert_contains "$out" "shared:          /tmp/.X11-unix: owner root, group root, mode 1777" "the share"
"$check" --user alice --json >"$SB_OUT/plan.json"
python3 - "$SB_OUT/plan.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["entries"][0]
assert e["mount_flags"] == "nosuid, nodev, noexec", e
assert e["shares"].startswith("/tmp/.X11-unix: owner root"), e
assert e["would_fail"] is False, e
PY

sb_note "a share that is a user's directory, a symbolic link or missing would not be shared: a warning"
rmdir /tmp/.X11-unix
install -d -m 1777 -o alice -g alice /tmp/.X11-unix
out=$("$check" --user bob 2>&1) || fail "check --user bob with a user's share: $out"
assert_contains "$out" "$conf:1: warning: share /tmp/.X11-unix has owner alice, group alice, mode 1777; it must be owned by root or the polydir's owner and, if group or others may write it, sticky: it would not be shared, and the session opens without it" "the diagnostic"
assert_contains "$out" "shared:          /tmp/.X11-unix: WRONG, has owner alice" "the listing"
"$check" --user bob --json >"$SB_OUT/plan.json"
python3 - "$SB_OUT/plan.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["entries"][0]
assert e["shares"].endswith(", not shared"), e
assert e["would_fail"] is False, e
PY
rmdir /tmp/.X11-unix
ln -s /home/alice /tmp/.X11-unix
out=$("$check" --user bob 2>&1) || fail "check --user bob with a linked share: $out"
assert_contains "$out" "share /tmp/.X11-unix is a symbolic link: it would not be shared" "the diagnostic"
rm /tmp/.X11-unix
out=$("$check" --user bob 2>&1) || fail "check --user bob with a missing share: $out"
assert_contains "$out" "share /tmp/.X11-unix is missing: it would not be shared" "the diagnostic"
install -d -m 1777 /tmp/.X11-unix

sb_note "selectors: an unknown group is an error, a known one selects"
sandbox_conf '/tmp /tmp/tmp-inst/ user+ root,@nosuchgroup'
rc=0
out=$("$check" --user alice 2>&1) || rc=$?
assert_status 1 "$rc" "exit status for an unknown group: $out"
assert_contains "$out" "$conf:1: error: group @\"nosuchgroup\" in the list of users: unknown" "the diagnostic"
printf 'admins:x:3000:bob\n' >>/etc/group
sandbox_conf '/tmp /tmp/tmp-inst/ user+ @admins,uid<1000'
out=$("$check" --user alice 2>&1) || fail "check --user alice: $out"
assert_contains "$out" "instance:        /tmp/tmp-inst/alice" "alice is not excluded"
out=$("$check" --user bob 2>&1) || fail "check --user bob: $out"
assert_contains "$out" "no polyinstantiated directory" "bob, in admins, is excluded"

sb_note "per-line ignore_instance_parent_mode"
chmod 0755 /tmp/tmp-inst
sandbox_conf '/tmp /tmp/tmp-inst/ user+:ignore_instance_parent_mode root'
out=$("$check" --user alice 2>&1) || fail "check with the per-line flag: $out"
assert_contains "$out" "(accepted: ignore_instance_parent_mode)" "the parent"
sandbox_conf '/tmp /tmp/tmp-inst/ user root'
rc=0
out=$("$check" --user alice 2>&1) || rc=$?
assert_status 1 "$rc" "exit status without the flag: $out"

sb_note "this module's flags on a plain line: a warning, as the module logs"
chmod 000 /tmp/tmp-inst
sandbox_conf '/tmp /tmp/tmp-inst/ user:noexec root'
out=$("$check" 2>&1) || fail "check of a plain line with noexec: $out"
assert_contains "$out" "$conf:1:26: warning: unknown flag \"noexec\", ignored: this module's flag of that name needs the extended method form (\"user+\")" "the warning"
echo "ok: check_extended"
