#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# quota=SIZE[,INODES] on an extended line: the user's hard limits on the
# tmpfs that holds the instances, set at each session through
# quotactl_fd(2). Where that tmpfs keeps no user quotas (mounted without
# usrquota, or a kernel without tmpfs quotas: Linux 6.6 built with
# CONFIG_TMPFS_QUOTA) the session is refused with a log line saying which,
# and nothing is mounted. Where the kernel has them, a user's writes stop
# at the limit with EDQUOT and another user's limit is their own; where it
# has none, the test skips (77) once the refusals are checked.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
module_is_linux_pam && skip "quota= is this module's extension"

# refused LOGGED: alice's session fails with LOGGED in the log, nothing mounted.
refused() {
	sandbox_refused alice "$1" "quota="
	assert_no_file /srv/inst/alice "the instance made by the refused session"
}

sb_note "a tmpfs mounted without usrquota: refused"
mount -t tmpfs -o mode=0755,size=8M ns-test-noquota /srv
sandbox_inst_parent /srv/inst
sandbox_conf '/tmp  /srv/inst/  user+:quota=1M  root'
if mount -t tmpfs -o usrquota ns-test-probe /mnt 2>/dev/null; then
	umount /mnt
	kernel_has_quota=true
	refused "refusing quota= for /srv/inst/alice: its tmpfs is mounted without usrquota"
else
	kernel_has_quota=false
	sb_note "this kernel refuses tmpfs usrquota ($(uname -r)): the refusal is all there is to see"
	refused "refusing quota= for /srv/inst/alice: this kernel has no tmpfs user quotas (Linux 6.6 or later built with CONFIG_TMPFS_QUOTA)"
fi
umount /srv

sb_note "not a tmpfs: refused"
if mount -t ramfs -o mode=0755 ns-test-ramfs /srv 2>/dev/null; then
	sandbox_inst_parent /srv/inst
	refused "refusing quota= for /srv/inst/alice: the instance is not on a tmpfs; quota= needs a tmpfs mounted with usrquota"
	umount /srv
fi

sb_note "the check tool says the same before any login"
if [[ -x "${NS_CHECK:-}" ]]; then
	mount -t tmpfs -o mode=0755,size=8M ns-test-noquota /srv
	sandbox_inst_parent /srv/inst
	rc=0
	out=$("$NS_CHECK" --user alice 2>&1) || rc=$?
	assert_status 1 "$rc" "pam_namespace_check: $out"
	assert_contains "$out" "quota= on /srv/inst:" "pam_namespace_check"
	umount /srv
fi

# The limits themselves never ran here: a skip with its reason, not a pass
# (the refusals above were checked, and would have failed the test).
$kernel_has_quota || skip "the limits: no tmpfs user quotas in kernel $(uname -r)" \
	"(CONFIG_TMPFS_QUOTA; no Debian kernel has it); only the refusals were checked"
sb_note "a tmpfs with usrquota: writes stop at the user's limit"
mount -t tmpfs -o mode=0755,size=64M,usrquota ns-test-quota /srv
sandbox_inst_parent /srv/inst
sandbox_conf '/tmp  /srv/inst/  user+:quota=1M,100  root'
out=$(sandbox_su alice 'dd if=/dev/zero of=/tmp/big bs=64k count=64 2>&1; echo "status $?"') || true
assert_contains "$out" "Disk quota exceeded" "alice writing 4 MiB with a 1 MiB quota"
size=$(stat -c %s /srv/inst/alice/big)
[[ $size -le 1048576 ]] || fail "alice's file grew to $size bytes past a 1 MiB quota"
out=$(sandbox_su bob 'dd if=/dev/zero of=/tmp/big bs=64k count=8 2>&1 && echo wrote') ||
	fail "bob's session: $out"
assert_contains "$out" "wrote" "bob writing 512 KiB with his own 1 MiB quota"
umount /srv
echo "ok: quota"
