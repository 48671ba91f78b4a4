#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# A refused session tells its user one short line, naming the polydir where
# one line of namespace.conf failed, when someone is at the other end: su on
# a terminal, the PAM driver on one. The reason goes to the system log only.
# Nothing for su without a terminal, nor for the services of cron, at and
# the systemd --user manager.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
command -v script >/dev/null || skip "script(1) is not installed"

MSG_TMP="pam_namespace: private /tmp could not be set up; the system log has the reason"
MSG_ANY="pam_namespace: private directories could not be set up; the system log has the reason"

# on_tty CMD...: CMD on a pseudo terminal; what the terminal showed, without carriage returns.
on_tty() {
	local out rc=0 cmd
	printf -v cmd '%q ' "$@"
	out=$(timeout -k 5 "$SB_TIMEOUT" script -qec "env ${NS_SU_ENV:-} $cmd" /dev/null </dev/null 2>&1) ||
		rc=$?
	printf '%s\n' "${out//$'\r'/}"
	return "$rc"
}

# count TEXT NEEDLE: how many lines of TEXT hold NEEDLE.
count() {
	grep -cF -- "$2" <<<"$1" || true
}

sb_note "an instance parent that is not mode 000: su on a terminal hears one line"
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
install -d -m 0755 /tmp/tmp-inst
sandbox_log_clear
rc=0
out=$(on_tty su - alice -c 'echo RAN') || rc=$?
assert_nonzero "$rc" "su - alice with a bad instance parent"
assert_not_contains "$out" RAN "the refused session's command"
assert_eq 1 "$(count "$out" "$MSG_TMP")" "the user's line in [$out]"
assert_not_contains "$out" "0755" "the reason, on the user's terminal"
assert_log_contains "/tmp/tmp-inst" "the reason in the log"
assert_log_contains "0755" "the reason in the log"

sb_note "su without a terminal: the log only"
rc=0
out=$(sandbox_su alice 'echo RAN') || rc=$?
assert_nonzero "$rc" "su - alice without a terminal"
assert_not_contains "$out" "pam_namespace:" "su without a terminal"

sb_note "the PAM driver on a terminal hears it through its conversation"
rc=0
out=$(on_tty "$NS_DRIVER" ns-driver alice -- true) || rc=$?
assert_nonzero "$rc" "pam_driver ns-driver alice"
assert_eq 1 "$(count "$out" "$MSG_TMP")" "pam_driver's conversation in [$out]"

for s in cron crond atd systemd-user; do
	sb_note "a service named $s, on a terminal: nothing"
	cp /etc/pam.d/ns-driver "/etc/pam.d/$s"
	rc=0
	out=$(on_tty "$NS_DRIVER" "$s" alice -- true) || rc=$?
	assert_nonzero "$rc" "pam_driver $s alice"
	assert_not_contains "$out" "pam_namespace:" "the $s service's conversation"
	rm -f "/etc/pam.d/$s"
done

sb_note "a configuration error names no polydir"
chmod 000 /tmp/tmp-inst
sandbox_conf "/tmp /tmp/tmp-inst/ nosuchmethod root"
rc=0
out=$(on_tty su - alice -c 'echo RAN') || rc=$?
assert_nonzero "$rc" "su - alice with a bad line"
assert_eq 1 "$(count "$out" "$MSG_ANY")" "the user's line in [$out]"
assert_log_contains "nosuchmethod" "the reason in the log"

sb_note "a session that opens says nothing"
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
out=$(on_tty su - alice -c 'echo RAN') || fail "su - alice: $out"
assert_eq "RAN" "$(tr -d '\n' <<<"$out")" "what a working su - shows"
echo "ok: refused_message"
