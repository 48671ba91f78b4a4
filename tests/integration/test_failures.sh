#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Sessions that must fail: a bad instance parent, an unknown method. The
# user's command never runs and the log names the file and line.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

conf=/etc/security/namespace.conf

# expect_failed_su WHAT: su - alice fails and its command does not run.
expect_failed_su() {
	local out rc=0
	rm -f "$SB_OUT/ran"
	out=$(sandbox_su alice "touch $SB_OUT/ran; echo RAN") || rc=$?
	assert_nonzero "$rc" "$1: su - alice"
	assert_not_contains "$out" RAN "$1: alice's command ran"
	assert_no_file "$SB_OUT/ran" "$1: alice's command ran"
	assert_contains "$out" "cannot open session" "$1: what su says"
	assert_eq 1 "$(sandbox_mounts_at /tmp)" "$1: mounts on /tmp"
}

sb_note "an instance parent of mode 755"
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
install -d -m 0755 /tmp/tmp-inst
sandbox_log_clear
expect_failed_su "parent mode 755"
if module_is_linux_pam; then
	assert_log_contains "inst parent" "parent mode 755"
else
	assert_log_contains "$conf:1" "parent mode 755"
	assert_log_contains "/tmp/tmp-inst" "parent mode 755"
fi
assert_no_file /tmp/tmp-inst/alice "parent mode 755: an instance"

sb_note "an instance parent of mode 000 not owned by root"
chmod 000 /tmp/tmp-inst
chown alice /tmp/tmp-inst
sandbox_log_clear
expect_failed_su "parent owned by alice"
if module_is_linux_pam; then
	assert_log_contains "inst parent" "parent owned by alice"
else
	assert_log_contains "$conf:1" "parent owned by alice"
	assert_log_contains "/tmp/tmp-inst" "parent owned by alice"
fi

sb_note "alice's own parent (mode 700) with ignore_instance_parent_mode"
# Inside a directory a user owns the module works as that user, so the
# parent must be one alice herself could create the instance in.
chmod 700 /tmp/tmp-inst
sandbox_pam_args ignore_instance_parent_mode
out=$(sandbox_su alice 'ls -A1 /tmp; echo RAN') || fail "su with ignore_instance_parent_mode: $out"
assert_eq "RAN" "$out" "su with ignore_instance_parent_mode"
sandbox_pam_args
rm -rf /tmp/tmp-inst

sb_note "an unknown method on line 3"
sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
sandbox_conf "# polyinstantiation for the test
/var/tmp /var/tmp/tmp-inst/ user root
/tmp     /tmp/tmp-inst/     bogus root"
sandbox_log_clear
expect_failed_su "unknown method"
if module_is_linux_pam; then
	assert_log_contains "Unknown method" "unknown method"
else
	assert_log_contains "$conf:3" "unknown method"
	assert_log_contains "bogus" "unknown method"
fi

sb_note "ignore_config_error skips that line and keeps the others"
sandbox_pam_args ignore_config_error
out=$(sandbox_su alice 'echo x >/var/tmp/alice-file; echo x >/tmp/alice-tmp; echo RAN') ||
	fail "su with ignore_config_error: $out"
assert_eq RAN "$out" "su with ignore_config_error"
assert_file /var/tmp/tmp-inst/alice/alice-file "the line kept"
assert_file /tmp/alice-tmp "the line skipped: alice's /tmp is the real one"
sandbox_pam_args

sb_note "a polydir that does not exist (in /srv: one made by mistake ends with the sandbox)"
sandbox_conf "/srv/nonexistent-polydir /tmp/tmp-inst/ user root"
sandbox_log_clear
expect_failed_su "missing polydir"
if ! module_is_linux_pam; then
	assert_log_contains "$conf:1" "missing polydir"
	assert_log_contains "/srv/nonexistent-polydir" "missing polydir"
fi
assert_no_file /srv/nonexistent-polydir "missing polydir created"

sb_note "login fails the same way"
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
chmod 0755 /tmp/tmp-inst
rm -f "$SB_OUT/ran"
rc=0
out=$(sandbox_login alice "touch $SB_OUT/ran; echo RAN") || rc=$?
assert_nonzero "$rc" "login -f alice"
assert_not_contains "$out" RAN "login: alice's command ran"
assert_no_file "$SB_OUT/ran" "login: alice's command ran"
echo "ok: failures"
