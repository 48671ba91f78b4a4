#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The other half of require_selinux, on this host where SELinux is off: the
# session fails and says why; without the argument the same session opens.
# Runs in the integration tests' sandbox (tests/lib/sandbox.sh).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

if [[ -e /sys/fs/selinux/enforce ]]; then
	skip "SELinux is enabled on this host"
fi
sandbox_private_tmp root

sandbox_pam_args require_selinux
rc=0
out=$(sandbox_driver ns-driver alice -- touch "$SB_OUT/ran") || rc=$?
assert_status 67 "$rc" "a require_selinux session without SELinux: $out"
assert_no_file "$SB_OUT/ran" "the command of that session"
assert_contains "$(sandbox_log)" "require_selinux given, but SELinux is not enabled" \
	"the module's log line"

sandbox_pam_args
out=$(sandbox_driver ns-driver alice -- ls -A /tmp) || fail "the same session without require_selinux: $out"
assert_eq "" "$out" "alice's private /tmp"
echo "ok: require_selinux fails without SELinux"
