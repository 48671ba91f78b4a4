#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# A session that fails part-way leaves the caller as it was (SPEC 7, new):
# the same mount namespace (inode of /proc/self/ns/mnt), no new mounts,
# no instance left behind. The system's Linux-PAM module, run on the same
# configuration, leaves the caller in a half-built namespace: that is shown,
# not required, since it is the defect this behaviour fixes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

[[ -x "${NS_PROBE:-}" ]] || fail "no ns_probe at NS_PROBE"
linux_pam=/lib/x86_64-linux-gnu/security/pam_namespace.so

# probe: before/after lines of ns_probe for alice on the driver service.
probe() {
	timeout -k 5 "$SB_TIMEOUT" "$NS_PROBE" ns-driver alice 2>&1 || true
}

# field WHEN KEY OUTPUT
field() {
	sed -n "s/^$1 .*$2=\([0-9]*\).*/\1/p" <<<"$3"
}

check_unchanged() {
	local what=$1 out=$2
	assert_contains "$out" "open rc=" "$what: ns_probe ran"
	assert_not_contains "$out" "open rc=0 " "$what: the session must fail"
	assert_eq "$(field before ns "$out")" "$(field after ns "$out")" "$what: mount namespace"
	assert_eq "$(field before mounts "$out")" "$(field after mounts "$out")" "$what: mounts"
}

sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst

sb_note "the second line names a polydir that does not exist"
sandbox_conf "/tmp          /tmp/tmp-inst/     user:noinit root
/no/such/dir  /var/tmp/tmp-inst/ user:noinit root"
sandbox_log_clear
out=$(probe)
check_unchanged "missing polydir" "$out"
assert_no_file /tmp/tmp-inst/alice "missing polydir: the first line's instance was removed"
assert_log_contains "namespace.conf:2" "missing polydir"

sb_note "the last line's instance parent is two levels missing"
sandbox_conf "/tmp      /tmp/tmp-inst/          user:noinit root
/var/tmp  /var/tmp/a/b/tmp-inst/  user:noinit root"
out=$(probe)
check_unchanged "bad last line" "$out"
assert_no_file /tmp/tmp-inst/alice "bad last line: the first line's instance was removed"

sb_note "an init script killed by a signal"
cat >/etc/security/namespace.init <<'SCRIPT'
#!/bin/sh
kill -KILL $$
SCRIPT
chmod 0755 /etc/security/namespace.init
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
sandbox_log_clear
out=$(probe)
check_unchanged "init killed" "$out"
assert_log_contains "killed by signal 9" "init killed"
rm -f /etc/security/namespace.init

sb_note "a full instance filesystem"
mkdir -p /var/tmp/full
mount -t tmpfs -o size=4k,nr_inodes=3 tmpfs /var/tmp/full
install -d -m 000 /var/tmp/full/inst
# Fill the inodes left so that the instance cannot be created.
while touch "/var/tmp/full/f$RANDOM$RANDOM" 2>/dev/null; do :; done
sandbox_conf "/tmp     /tmp/tmp-inst/        user:noinit root
/var/tmp /var/tmp/full/inst/   user:noinit root"
out=$(probe)
check_unchanged "full filesystem" "$out"
assert_no_file /tmp/tmp-inst/alice "full filesystem: the first line's instance was removed"
umount /var/tmp/full

if [[ -f "$linux_pam" && "$NS_MODULE" != "$linux_pam" ]]; then
	sb_note "the same missing polydir through Linux-PAM's module, for comparison"
	sandbox_conf "/tmp          /tmp/tmp-inst/     user:noinit root
/no/such/dir  /var/tmp/tmp-inst/ user:noinit root"
	module=$NS_MODULE
	NS_MODULE=$linux_pam
	sandbox_pam_args
	out=$(probe)
	NS_MODULE=$module
	sandbox_pam_args
	if [[ "$(field before ns "$out")" != "$(field after ns "$out")" ]]; then
		sb_note "Linux-PAM: the caller was left in a new namespace (ns $(field before ns "$out") -> $(field after ns "$out"), mounts $(field before mounts "$out") -> $(field after mounts "$out"))"
	else
		sb_note "Linux-PAM: the caller kept its namespace"
	fi
fi
sb_note "ok"
