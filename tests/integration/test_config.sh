#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Configuration files as the module reads them: namespace.d, quoting and
# comments, and (ours) the trust checks on owner and mode.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

conf=/etc/security/namespace.conf
sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
echo real >/tmp/real-file
echo real >/var/tmp/real-file

sb_note "namespace.d/*.conf adds lines; other names there are ignored"
sandbox_conf '# only comments here'
sandbox_conf_d 10-tmp.conf '/tmp /tmp/tmp-inst/ user root # a comment'
sandbox_conf_d 20-vartmp.conf.disabled '/var/tmp /var/tmp/tmp-inst/ user root'
out=$(sandbox_su alice 'ls -A /tmp; ls -A1 /var/tmp')
assert_eq "real-file"$'\n'"tmp-inst" "$out" "alice sees (private /tmp, real /var/tmp)"
rm /etc/security/namespace.d/*

sb_note "quoted fields"
sandbox_conf '"/tmp" "/tmp/tmp-inst/" "user" "root,bob"'
out=$(sandbox_su alice 'ls -A /tmp')
assert_eq "" "$out" "alice's /tmp"
out=$(sandbox_su bob 'ls -A1 /tmp')
assert_eq "real-file"$'\n'"tmp-inst" "$out" "bob's /tmp"

if ! module_is_linux_pam; then
	sb_note "a group-writable namespace.conf is refused"
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	chmod 0664 "$conf"
	rc=0
	out=$(sandbox_su alice 'echo RAN') || rc=$?
	assert_nonzero "$rc" "su - alice with a group-writable $conf"
	assert_not_contains "$out" RAN "alice's command"
	assert_log_contains "$conf" "a group-writable $conf"
	chmod 0644 "$conf"

	sb_note "a namespace.d file not owned by root is refused"
	sandbox_conf_d 10-tmp.conf '/var/tmp /var/tmp/tmp-inst/ user root'
	chown alice /etc/security/namespace.d/10-tmp.conf
	sandbox_log_clear
	rc=0
	out=$(sandbox_su bob 'echo RAN') || rc=$?
	assert_nonzero "$rc" "su - bob with a namespace.d file owned by alice"
	assert_log_contains "/etc/security/namespace.d/10-tmp.conf" "a namespace.d file owned by alice"
	rm /etc/security/namespace.d/10-tmp.conf

	sb_note "a namespace.d owned by alice is refused, its files root's"
	sandbox_conf_d 10-tmp.conf '/var/tmp /var/tmp/tmp-inst/ user root'
	chown alice /etc/security/namespace.d
	sandbox_log_clear
	rc=0
	out=$(sandbox_su bob 'echo RAN') || rc=$?
	assert_nonzero "$rc" "su - bob with a namespace.d owned by alice"
	assert_not_contains "$out" RAN "bob's command"
	assert_log_contains "directory /etc/security/namespace.d is owned by uid 2001" \
		"a namespace.d owned by alice"
	chown root /etc/security/namespace.d
	rm /etc/security/namespace.d/10-tmp.conf

	sb_note "no namespace.conf at all fails the session"
	rm "$conf"
	rc=0
	out=$(sandbox_su alice 'echo RAN') || rc=$?
	assert_nonzero "$rc" "su - alice without a namespace.conf"
	assert_not_contains "$out" RAN "alice's command"
fi
echo "ok: config"
