#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The list of users of an extended line (METHOD+): @group and uid ranges,
# resolved through NSS when each session opens. A group that gains a member
# between two logins applies from the next one; a group the name service
# does not know, or cannot answer for (a broken NSS module standing for
# SSSD or LDAP down), fails the session with a log line unless the line
# says ignore_unknown. Linux-PAM's module refuses the line; given @admins
# on a plain line it drops the name as an unknown user, and so does this
# module, with a warning.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
module_is_linux_pam && skip "selectors are this module's extension"

sandbox_inst_parent /tmp/tmp-inst
# private USER: "private" if USER's /tmp is an instance, "real" if it is the real /tmp.
private() {
	local out
	out=$(sandbox_su "$1" 'ls -A /tmp') || fail "$1's session: $out"
	case $out in
	tmp-inst) echo real ;;
	"") echo private ;;
	*) fail "$1's /tmp: [$out]" ;;
	esac
}
# who: which of root, alice (2001), bob (2002), carol (2003) get a private /tmp.
who() {
	local u list=
	for u in root alice bob carol; do
		[[ $(private "$u") == private ]] && list+=${list:+,}$u
	done
	echo "[$list]"
}

printf 'admins:x:3000:bob\n' >>/etc/group
sb_note "@admins excluded: bob, a member, keeps the real /tmp"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  root,@admins'
assert_eq "[alice,carol]" "$(who)" "private /tmp with root,@admins excluded"

sb_note "by primary group: ~@carol applies to carol, whose primary group it is"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  ~@carol'
assert_eq "[carol]" "$(who)" "~@carol (carol's primary group)"

sb_note "uid ranges"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  uid<1000,2002-2002'
assert_eq "[alice,carol]" "$(who)" "uid<1000,2002-2002 excluded"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  ~uid>2001'
assert_eq "[bob,carol]" "$(who)" "~uid>2001"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  ~2001-2002'
assert_eq "[alice,bob]" "$(who)" "~2001-2002"

sb_note "a group gains a member between two logins"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  root,@admins'
assert_eq private "$(private carol)" "carol before joining admins"
# (rewritten in place: /etc/group is a bind mount of that very file)
set_admins() {
	local text
	text=$(sed "s/^admins:.*/admins:x:3000:$1/" /etc/group)
	printf '%s\n' "$text" >/etc/group
}
set_admins bob,carol
assert_eq "admins:x:3000:bob,carol" "$(getent group admins)" "the group after the change"
assert_eq real "$(private carol)" "carol after joining admins"
set_admins bob
assert_eq private "$(private carol)" "carol after leaving admins"

# refused WHAT LOGGED: alice's session fails with LOGGED in the log, nothing mounted.
refused() {
	local rc=0 out
	sandbox_refused alice "$2" "$1"
	rc=0
	out=$(sandbox_su alice 'ls -A /tmp') || rc=$?
	assert_nonzero "$rc" "$1: su - alice: $out"
}

sb_note "an unknown group or user fails the session, whoever it is for"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  root,@nosuchgroup'
refused "an unknown group" '/etc/security/namespace.conf:1: group @"nosuchgroup" in the list of users: unknown'
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  ~alice,ghost'
refused "an unknown user" 'user "ghost" in the list of users: unknown'
sb_note "unless the line says ignore_unknown"
sandbox_log_clear
sandbox_conf '/tmp  /tmp/tmp-inst/  user+:ignore_unknown  root,@nosuchgroup'
assert_eq private "$(private alice)" "alice with ignore_unknown"
assert_log_contains 'group @"nosuchgroup" in the list of users: unknown, ignored (ignore_unknown)'

sb_note "the name service failing: a broken NSS module after files"
[[ -f "${NS_NSS_BROKEN:-}" ]] || fail "NS_NSS_BROKEN names no NSS module"
install -d -m 0755 "$SB_DIR/lib"
install -m 0644 "$NS_NSS_BROKEN" "$SB_DIR/lib/libnss_broken.so.2"
sed 's/^group:.*/group: files broken/' /etc/nsswitch.conf >"$SB_DIR/nsswitch.conf"
mount --bind "$SB_DIR/nsswitch.conf" /etc/nsswitch.conf
export LD_LIBRARY_PATH=$SB_DIR/lib
rc=0
getent group ldapgroup >/dev/null || rc=$?
assert_eq 2 "$rc" "getent for a group only the broken module could answer"
assert_eq "admins:x:3000:bob" "$(getent group admins)" "a group in files"
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  root,@ldapgroup'
nss_failed='group @"ldapgroup" in the list of users: the name service failed: Resource temporarily unavailable'
refused "the name service failing" "$nss_failed"
sb_note "pam_namespace_check predicts it, from the module's own lookup (host/lookup.c)"
[[ -x "${NS_CHECK:-}" ]] || fail "NS_CHECK names no pam_namespace_check"
for args in "--user alice" ""; do
	rc=0
	# shellcheck disable=SC2086
	out=$("$NS_CHECK" $args 2>&1) || rc=$?
	assert_eq 1 "$rc" "pam_namespace_check $args with the name service failing: $out"
	assert_contains "$out" "$nss_failed" "pam_namespace_check $args names the failure"
done
sandbox_conf '/tmp  /tmp/tmp-inst/  user+  root,@admins'
assert_eq private "$(private alice)" "alice, with a group files knows"
assert_eq real "$(private bob)" "bob, in admins, with a group files knows"
out=$("$NS_CHECK" --user alice 2>&1) || fail "check --user alice, a group files knows: $out"
assert_contains "$out" "/tmp" "check --user alice plans her private /tmp"
out=$("$NS_CHECK" --user bob 2>&1) || fail "check --user bob, in admins: $out"
assert_contains "$out" "bob: no polyinstantiated directory" "check --user bob: excluded as the module found"
unset LD_LIBRARY_PATH
umount /etc/nsswitch.conf

linux_pam=$(sb_linux_pam_module)
if [[ -n "$linux_pam" ]]; then
	module=$NS_MODULE
	NS_MODULE=$linux_pam
	sandbox_pam_args
	sb_note "Linux-PAM's module refuses the extended line"
	sandbox_conf '/tmp  /tmp/tmp-inst/  user+  root,@admins'
	sandbox_log_clear
	rc=0
	out=$(sandbox_su bob 'ls -A /tmp') || rc=$?
	assert_nonzero "$rc" "su - bob through Linux-PAM with user+: $out"
	assert_log_contains "Unknown method"
	sb_note "and drops @admins on a plain line: bob, a member, gets a private /tmp"
	sandbox_conf '/tmp  /tmp/tmp-inst/  user  root,@admins'
	sandbox_log_clear
	assert_eq private "$(private bob)" "bob through Linux-PAM, @admins on a plain line"
	assert_log_contains "Unknown user @admins in configuration"
	NS_MODULE=$module
	sandbox_pam_args
fi
sb_note "this module reads the plain line the same way, with a warning"
sandbox_conf '/tmp  /tmp/tmp-inst/  user  root,@admins'
sandbox_log_clear
assert_eq private "$(private bob)" "bob, @admins on a plain line"
assert_log_contains 'unknown user "@admins" in the list of users, ignored (a group or uid selector needs the extended method form, e.g. "user+")'
echo "ok: selectors"
