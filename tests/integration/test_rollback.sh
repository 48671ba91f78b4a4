#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# A failed session removes only what that attempt made: an instance from an
# earlier session, with the user's files, stays (SPEC 7; test_transaction
# covers the namespace and mounts).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
[[ -x "$NS_DRIVER" ]] || skip "no PAM driver at $NS_DRIVER"
module_is_linux_pam && skip "Linux-PAM's module is not transactional"

caller_ns=$(sandbox_mnt_ns self)

# failed_open USER: open a session that must fail; print the namespace the
# driver was left in.
failed_open() {
	local out rc=0
	out=$(sandbox_driver --show-ns ns-driver "$1" -- touch "$SB_OUT/ran") || rc=$?
	assert_status 67 "$rc" "pam_driver for $1: $out"
	assert_no_file "$SB_OUT/ran" "$1's command"
	sed -n 's/^mnt_ns=//p' <<<"$out"
}

sandbox_inst_parent /var/tmp/tmp-inst
install -d -m 0755 /tmp/tmp-inst
good="/var/tmp /var/tmp/tmp-inst/ user root"
bad="/tmp     /tmp/tmp-inst/     user root"

sb_note "a first session that fails on line 2 leaves no instance for line 1"
sandbox_conf "$good"$'\n'"$bad"
sandbox_log_clear
assert_eq "$caller_ns" "$(failed_open alice)" "the namespace after a failed open"
assert_no_file /var/tmp/tmp-inst/alice "the instance the failed attempt made"
assert_log_contains "namespace.conf:2" "the failing line"

sb_note "an instance made by an earlier session stays, with its files"
sandbox_conf "$good"
sandbox_driver ns-driver alice -- sh -c 'echo x >/var/tmp/kept' >/dev/null
assert_file /var/tmp/tmp-inst/alice/kept
sandbox_conf "$good"$'\n'"$bad"
assert_eq "$caller_ns" "$(failed_open alice)" "the namespace after a failed open"
assert_file /var/tmp/tmp-inst/alice/kept "alice's file from the earlier session"
# Issue 31 point 11: two first logins of alice at once; the one that made
# her instance fails later (its init script killed by a signal), and its
# rollback removed the instance the other had mounted meanwhile: the
# other's /tmp became ".../alice//deleted" and writes to it failed.
sb_note "a failed first login does not remove the instance a concurrent login of the user mounted"
sandbox_private_tmp root
rm -rf /tmp/tmp-inst/alice /var/tmp/tmp-inst/alice "$SB_OUT/first-made"
cat >/etc/security/namespace.init <<SCRIPT
#!/bin/sh
# The first attempt that makes alice's /tmp instance dies, by a signal, 2 s later.
if [ "\$1" = /tmp ] && [ "\$3" = 1 ] && mkdir $SB_OUT/first-made 2>/dev/null; then
	sleep 2
	kill -KILL \$\$
fi
exit 0
SCRIPT
chmod 0755 /etc/security/namespace.init
(
	rc=0
	sandbox_driver ns-driver alice -- touch "$SB_OUT/a-ran" >"$SB_OUT/a.out" || rc=$?
	echo "$rc" >"$SB_OUT/a.rc"
) &
first=$!
sandbox_wait_for "$SB_OUT/first-made"
start=$(date +%s%N)
rc=0
out=$(sandbox_driver ns-driver alice -- sh -c 'sleep 3; echo works >/tmp/f && cat /tmp/f; readlink -f /tmp/f') || rc=$?
wait "$first"
sb_note "the other login took $((($(date +%s%N) - start) / 1000000)) ms; its output: $(tr '\n' ' ' <<<"$out")"
assert_eq 67 "$(cat "$SB_OUT/a.rc")" "the login whose init script was killed: $(cat "$SB_OUT/a.out")"
assert_no_file "$SB_OUT/a-ran" "the failed login's command"
assert_eq 0 "$rc" "the concurrent login: $out"
assert_eq "works"$'\n'"/tmp/f" "$out" "the concurrent login's /tmp"
assert_eq works "$(cat /tmp/tmp-inst/alice/f)" "alice's instance, kept"
rm -f /etc/security/namespace.init
echo "ok: rollback"
