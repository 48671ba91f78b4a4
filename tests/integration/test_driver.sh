#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Sessions opened and closed by a plain PAM client (tests/driver/pam_driver).
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
[[ -x "$NS_DRIVER" ]] || skip "no PAM driver at $NS_DRIVER"

caller_ns=$(sandbox_mnt_ns self)
echo real >/tmp/real-file
sandbox_private_tmp root,bob

sb_note "alice: a session of her own"
out=$(sandbox_driver ns-driver alice -- sh -c 'readlink /proc/self/ns/mnt; ls -A1 /tmp; echo x >/tmp/drv-file')
assert_ne "$caller_ns" "$(head -n 1 <<<"$out")" "alice's mount namespace"
assert_eq 1 "$(wc -l <<<"$out")" "alice's /tmp is empty: $out"
assert_file /tmp/tmp-inst/alice/drv-file "the file alice's session wrote"
assert_no_file /tmp/drv-file "the file alice's session wrote, in the real /tmp"
out=$(sandbox_driver ns-driver alice -- ls -A /tmp)
assert_eq drv-file "$out" "alice's next session"

sb_note "bob: no line applies, the caller's namespace is kept"
out=$(sandbox_driver ns-driver bob -- sh -c 'readlink /proc/self/ns/mnt; ls -A1 /tmp')
assert_eq "$caller_ns"$'\n'"real-file"$'\n'"tmp-inst" "$out" "bob's session"

sb_note "the command's exit status and environment"
rc=0
sandbox_driver ns-driver alice -- sh -c 'exit 7' || rc=$?
assert_status 7 "$rc" "the command's status"
out=$(sandbox_driver --env NS_TEST=hello ns-driver alice -- sh -c 'echo "$NS_TEST"')
assert_eq hello "$out" "the PAM environment"

# unmnt_remnt looks the original user up by PAM_RUSER when it is set: an
# unknown one is refused, naming PAM_RUSER; a known one, or none (root, by
# the real uid), opens.
sb_note "PAM_RUSER reaches the module (unmnt_remnt's original user)"
sandbox_pam_args unmnt_remnt
sandbox_log_clear
rc=0
out=$(sandbox_driver --ruser nosuchuser ns-driver alice -- touch "$SB_OUT/ruser-ran") || rc=$?
assert_status 67 "$rc" "--ruser nosuchuser: $out"
assert_no_file "$SB_OUT/ruser-ran" "the command of the session with an unknown PAM_RUSER"
assert_log_contains "unknown original user (PAM_RUSER)" "an unknown PAM_RUSER"
out=$(sandbox_driver --ruser bob ns-driver alice -- ls -A /tmp)
assert_eq drv-file "$out" "alice's session with PAM_RUSER bob"
out=$(sandbox_driver ns-driver alice -- ls -A /tmp)
assert_eq drv-file "$out" "alice's session without PAM_RUSER"
sandbox_pam_args

sb_note "a PAM configuration directory of our own (pam_start_confdir)"
confdir=$SB_DIR/confdir
install -d -m 0755 "$confdir"
printf 'session required %s\n' "$NS_MODULE" >"$confdir/custom"
out=$(sandbox_driver --confdir "$confdir" custom alice -- ls -A /tmp)
assert_eq drv-file "$out" "a session from --confdir"

sb_note "an unknown user fails"
rc=0
out=$(sandbox_driver ns-driver nosuchuser -- touch "$SB_OUT/ran") || rc=$?
assert_status 67 "$rc" "the driver's status for a failed session"
assert_contains "$out" "pam_open_session:" "what the driver says"
assert_no_file "$SB_OUT/ran" "the command of a failed session"

sb_note "the sessions left nothing mounted"
assert_eq 1 "$(sandbox_mounts_at /tmp)" "mounts on /tmp"
assert_eq 1 "$(sandbox_mounts_at /var/tmp)" "mounts on /var/tmp"
echo "ok: driver"
