#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Configuration files in directories a user owns or may write (SPEC 1,
# SECURITY.md: "a configuration file a user can write"): the file itself is
# root's, 0644, but whoever owns a directory above it can replace it, so
# the session must fail, run nothing, and the log must name the directory.
# namespace.d and /etc/security owned by alice (0755, and sticky 1777,
# which is only fine when root owns it), a group-writable namespace.d, and
# config_dir= below alice's directories; then the legitimate setups beside
# them: root's sticky namespace.d, config_dir= on root's directories.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
module_is_linux_pam && skip "Linux-PAM's module checks no owner or mode"

SB_TIMEOUT=20
alice=2001
sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst

# refused WHAT DIR OWNER: alice's session fails, her command does not run, the
# caller keeps its namespace, and the log names DIR as owned by OWNER.
refused() {
	sandbox_refused alice "directory $2 is owned by uid $3" "$1"
}

# works WHAT: alice's session opens with a private /tmp.
works() {
	local out rc=0
	out=$(sandbox_driver ns-driver alice -- sh -c 'ls -A /tmp; echo RAN') || rc=$?
	assert_status 0 "$rc" "$1: alice's session: $out"
	assert_eq RAN "$out" "$1: alice's private /tmp"
}

sandbox_conf '/tmp /tmp/tmp-inst/ user root'
echo real >/tmp/real-file
works "root's directories"

sb_note "namespace.d owned by alice, mode 0755"
sandbox_conf_d 10-vartmp.conf '/var/tmp /var/tmp/tmp-inst/ user root'
chown alice /etc/security/namespace.d
refused "namespace.d owned by alice" /etc/security/namespace.d "$alice"

sb_note "namespace.d owned by alice, sticky and world-writable as /tmp"
chmod 1777 /etc/security/namespace.d
refused "alice's sticky namespace.d" /etc/security/namespace.d "$alice"

sb_note "legitimate: namespace.d owned by root, sticky and world-writable as /tmp"
chown root /etc/security/namespace.d
works "root's sticky namespace.d"

sb_note "a group-writable namespace.d of root's, not sticky"
chmod 0775 /etc/security/namespace.d
refused "group-writable namespace.d" /etc/security/namespace.d 0
chmod 0755 /etc/security/namespace.d
rm /etc/security/namespace.d/10-vartmp.conf

sb_note "/etc/security owned by alice: namespace.conf is root's, 0644"
chown alice /etc/security
refused "/etc/security owned by alice" /etc/security "$alice"
chown root /etc/security
works "/etc/security given back to root"

sb_note "config_dir= in alice's home, and two levels below a directory of alice's in /srv"
install -d -o alice -g alice -m 0755 /home/alice/cd
install -m 0644 /etc/security/namespace.conf /home/alice/cd/namespace.conf
sandbox_pam_args config_dir=/home/alice/cd
refused "config_dir= owned by alice" /home/alice/cd "$alice"
install -d -o alice -g alice -m 0755 /srv/alice
install -d -m 0755 /srv/alice/cd
install -m 0644 /etc/security/namespace.conf /srv/alice/cd/namespace.conf
sandbox_pam_args config_dir=/srv/alice/cd
refused "config_dir= below a directory of alice's" /srv/alice "$alice"

sb_note "legitimate: config_dir= on root's directories"
chown root:root /srv/alice
works "config_dir= of root's"
echo "ok: config_trust"
