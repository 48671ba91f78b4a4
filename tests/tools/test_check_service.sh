#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# pam_namespace_check --service on Debian's own PAM stacks: the host's
# /etc/pam.d (su, su-l, login, common-session, other) copied into the
# sandbox, with sshd's from the openssh-server package where suite vm's
# cache has it, and the vendor's /usr/lib/pam.d/systemd-user as it is. The
# module line is added where an administrator would add it; the check must
# say where and how often the module runs, and warn where it runs twice
# (su-l including su, common-session plus a service's own line, sshd
# including a file that has it). Real su sessions show what it reported.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}
pamd=/etc/pam.d
line="session required $NS_MODULE"

# The host's /etc/pam.d is under the sandbox's: a child namespace lets go of
# the sandbox's bind mount to read it; nothing of the host is changed.
host=$SB_DIR/host-pam.d
mkdir "$host"
unshare --mount sh -c 'umount -l /etc/pam.d && tar -C /etc/pam.d -c .' | tar -C "$host" -x
for f in su su-l login common-session common-session-noninteractive other; do
	[[ -f $host/$f ]] || skip "the host has no /etc/pam.d/$f (not Debian?)"
done
grep -q '^session[[:space:]]*include[[:space:]]*su' "$host/su-l" || skip "su-l does not include su"
sshd_pamd=${NS_BUILD_ROOT:-$SB_SOURCE_ROOT/build}/tests/integration/cache/root/etc/pam.d/sshd

# reset: Debian's files, nothing added. The sandbox's su runs as root
# without a password through pam_rootok, as Debian's su does.
reset() {
	find "$pamd" -mindepth 1 -delete
	cp -a "$host/." "$pamd/"
	[[ ! -f $sshd_pamd ]] || install -m 0644 "$sshd_pamd" "$pamd/sshd"
}
# service NAME [ARGS]: run --service, $out its output, $rc its status
service() {
	rc=0
	out=$("$check" --service "$@" 2>&1) || rc=$?
}
# Debian's su-l session runs pam_limits and pam_env, which want their files
# in the sandbox's /etc/security: empty ones, as good as the host's here.
: >/etc/security/limits.conf
: >/etc/security/pam_env.conf
chmod 0644 /etc/security/limits.conf /etc/security/pam_env.conf
sandbox_private_tmp root

sb_note "Debian's stacks as they come: the module does not run"
reset
for s in su su-l login; do
	service "$s"
	assert_status 0 "$rc" "--service $s: $out"
	assert_contains "$out" "$s: pam_namespace does not run at session open" "$s"
done
service su-l
assert_contains "$out" "$pamd/su-l:" "su-l's own lines"
assert_contains "$out" "session required pam_unix.so  (included from $pamd/su:" \
	"pam_unix through su and common-session"
sb_note "... and a service with no file of its own gets other's"
service no-such-service
assert_contains "$out" "warning: no $pamd/no-such-service" "the missing file"
assert_contains "$out" "(included from $pamd/other:" "other's stack"

sb_note "the line in su only: su - (su-l) runs it once, through its include"
printf '%s\n' "$line" >>"$pamd/su"
n=$(wc -l <"$pamd/su")
service su-l
assert_status 0 "$rc" "--service su-l: $out"
assert_contains "$out" "su-l: pam_namespace runs once at session open, at $pamd/su:$n, arguments: (none)" \
	"su-l runs it through su"
assert_not_contains "$out" "warning" "no warning for one run"
out=$(sandbox_su alice 'findmnt -n -o SOURCE /tmp') || fail "su - alice: $out"
assert_contains "$out" "tmp-inst/alice" "su - alice has her /tmp instance"

sb_note "--user with --service: the plan only where the stack runs the module, with its arguments"
service login --user alice
assert_status 0 "$rc" "--service login --user alice: $out"
assert_contains "$out" "alice: alice's sessions of login keep their namespace: its stack does not run pam_namespace" \
	"login does not run it"
assert_not_contains "$out" "instance:" "no plan for login"
service su-l --user alice
assert_status 0 "$rc" "--service su-l --user alice: $out"
assert_contains "$out" "instance:        /tmp/tmp-inst/alice" "the plan for su -"
chmod 0755 /tmp/tmp-inst
service su-l --user alice
assert_status 1 "$rc" "a parent 0755: $out"
sed -i "\$s/\$/ ignore_instance_parent_mode/" "$pamd/su"
service su-l --user alice
assert_status 0 "$rc" "a parent 0755, with ignore_instance_parent_mode on the line: $out"
assert_contains "$out" "accepted: ignore_instance_parent_mode" "the line's argument used"
out=$(sandbox_su alice 'findmnt -n -o SOURCE /tmp') || fail "su - alice, relaxed: $out"
chmod 000 /tmp/tmp-inst
sed -i "\$s/ ignore_instance_parent_mode\$//" "$pamd/su"

sb_note "double stacking: the line in su and in su-l"
printf '%s unmount_on_close\n' "$line" >>"$pamd/su-l"
m=$(wc -l <"$pamd/su-l")
service su-l
assert_status 0 "$rc" "--service su-l, double: $out"
assert_contains "$out" "$pamd/su-l:$m: warning: pam_namespace runs again for service su-l (run 2; the first is $pamd/su:$n, included from $pamd/su-l:" \
	"the warning names both lines"
assert_contains "$out" "a second run in the same PAM handle does nothing" "what the second run does"
assert_contains "$out" "its arguments \"unmount_on_close\" are not used" "the ignored arguments"
assert_contains "$out" "su-l: pam_namespace runs 2 times at session open" "the count"
service su
assert_contains "$out" "su: pam_namespace runs once" "su itself runs it once"
out=$(sandbox_su alice 'findmnt -n -o SOURCE /tmp') || fail "su - alice, double: $out"
assert_contains "$out" "tmp-inst/alice" "su - alice, double, has her /tmp instance"

sb_note "double stacking: common-session and login's own line"
reset
printf '%s\n' "$line" >>"$pamd/common-session"
c=$(wc -l <"$pamd/common-session")
service login
assert_status 0 "$rc" "--service login, once: $out"
assert_contains "$out" "login: pam_namespace runs once at session open, at $pamd/common-session:$c" \
	"login through common-session"
assert_not_contains "$out" "runs before" "login opens pam_selinux before common-session"
printf '%s\n' "$line" >>"$pamd/login"
l=$(wc -l <"$pamd/login")
service login
assert_contains "$out" "$pamd/login:$l: warning: pam_namespace runs again for service login (run 2; the first is $pamd/common-session:$c, included from $pamd/login:" \
	"login double"
service su-l
assert_contains "$out" "su-l: pam_namespace runs once" "su-l through su and common-session"

if [[ -f $pamd/sshd ]]; then
	sb_note "sshd: Debian's stack includes common-session, which has it; and its own line"
	service sshd
	assert_contains "$out" "sshd: pam_namespace runs once at session open, at $pamd/common-session:$c" \
		"sshd through common-session"
	sb_note "... before its \"pam_selinux.so open\" (a warning where SELinux is on)"
	assert_contains "$out" 'pam_namespace runs before "pam_selinux.so open"' "the order"
	printf '%s\n' "$line" >>"$pamd/sshd"
	s=$(wc -l <"$pamd/sshd")
	service sshd
	assert_contains "$out" "$pamd/sshd:$s: warning: pam_namespace runs again for service sshd (run 2; the first is $pamd/common-session:$c, included from $pamd/sshd:" \
		"sshd double"
else
	sb_note "no sshd stack ($sshd_pamd): run tests/vm/fetch.sh CACHE openssh-server for it"
fi

sb_note "share_namespace without the user manager's stack"
reset
printf '%s share_namespace\n' "$line" >>"$pamd/common-session"
service login
assert_contains "$out" "warning: share_namespace, but the stack of the systemd --user manager (systemd-user) does not run pam_namespace with share_namespace" \
	"systemd-user without the line"
if [[ -f /usr/lib/pam.d/systemd-user ]] &&
	grep -q '@include common-session-noninteractive' /usr/lib/pam.d/systemd-user; then
	printf '%s share_namespace\n' "$line" >>"$pamd/common-session-noninteractive"
	service login
	assert_not_contains "$out" "systemd --user" "systemd-user, through common-session-noninteractive"
fi

sb_note "mount_private before pam_systemd"
reset
sed -i "/pam_systemd.so/i $line mount_private" "$pamd/common-session"
service login
assert_contains "$out" "warning: pam_namespace with mount_private runs before pam_systemd" \
	"mount_private before pam_systemd"

sb_note "what refuses every login: the module as an auth module, a missing include, a missing module"
reset
# first, before pam_rootok's "sufficient" ends the auth stack
sed -i "1i auth required $NS_MODULE" "$pamd/su"
service su
assert_status 1 "$rc" "auth line: $out"
assert_contains "$out" "$pamd/su:1: error: pam_namespace is a session module only" "auth line"
rc=0
out=$(sandbox_su alice true) || rc=$?
assert_nonzero "$rc" "su - alice with the module in auth: $out"
reset
printf 'session include no-such-file\n' >>"$pamd/su"
service su-l
assert_status 1 "$rc" "missing include: $out"
assert_contains "$out" "error: cannot read no-such-file (included from $pamd/su:" "missing include"
reset
printf 'session required /nonexistent/pam_namespace.so\n' >>"$pamd/su"
service su
assert_status 1 "$rc" "missing module: $out"
assert_contains "$out" "error: module /nonexistent/pam_namespace.so: No such file or directory" \
	"missing module"
reset
printf -- '-session required /nonexistent/pam_namespace.so\n' >>"$pamd/su"
service su
assert_status 0 "$rc" "a missing module with -: $out"

printf 'session include su\n' >>"$pamd/su"
service su-l
assert_status 1 "$rc" "a loop: $out"
assert_contains "$out" "error: $pamd/su includes itself (included from $pamd/su:" "a loop"

sb_note "a file with no session line: libpam runs other's session stack"
reset
printf '%s\n' "$line" >>"$pamd/common-session"
c=$(wc -l <"$pamd/common-session")
printf 'account required pam_permit.so\n' >"$pamd/ns-nosession"
service ns-nosession
assert_status 0 "$rc" "no session line: $out"
assert_contains "$out" "ns-nosession: no session line in $pamd/ns-nosession: libpam runs the session stack of \"other\"" \
	"the fallback said"
assert_contains "$out" "ns-nosession: pam_namespace runs once at session open, at $pamd/common-session:$c" \
	"the module through other and common-session"
out=$(sandbox_driver ns-nosession alice -- findmnt -n -o SOURCE /tmp) || fail "pam_driver ns-nosession: $out"
assert_contains "$out" "tmp-inst/alice" "the session libpam opened through other has alice's /tmp"
printf -- '-session optional pam_no_such_module.so\n' >>"$pamd/ns-nosession"
service ns-nosession
assert_contains "$out" "ns-nosession: pam_namespace does not run at session open" \
	"a \"-\" session line is a session stack of its own to libpam"
# (libpam runs that line's empty stack, which fails: not other's)
rc=0
out=$(sandbox_driver ns-nosession alice -- findmnt -n -o SOURCE /tmp) || rc=$?
assert_nonzero "$rc" "pam_driver ns-nosession, a \"-\" line alone: $out"
assert_not_contains "$out" "tmp-inst/alice" "the session through the service's own \"-\" line"
rm "$pamd/ns-nosession"

sb_note "module arguments: the module's parser, on the line"
reset
printf '%s frobnicate\n' "$line" >>"$pamd/su"
service su
assert_contains "$out" "$pamd/su:$(wc -l <"$pamd/su"): warning: module arguments: 1 the module does not know" \
	"an unknown argument"

sb_note "a jump over the line is pointed out, Debian's [default=1] over pam_deny is not"
reset
printf '%s\n' "$line" >>"$pamd/common-session"
service login
assert_not_contains "$out" "jumps" "common-session's own jump"
sed -i "/pam_systemd.so/i session [success=2 default=ignore] pam_succeed_if.so user = alice" \
	"$pamd/common-session"
service login
assert_contains "$out" "login: $pamd/common-session:" "the jump's line"
assert_contains "$out" "jumps ([success=2 default=ignore]): where it does, a run of pam_namespace after it may be skipped" \
	"the jump"

sb_note "--pam-dir: stacks in a directory of one's own, no vendor directory"
mkdir -m 0755 "$SB_DIR/alt"
printf 'session [success=ok default=bad] \\\n  %s  [debug]  # a comment\n@include more\n' \
	"$NS_MODULE" >"$SB_DIR/alt/svc"
printf -- '-session optional pam_permit.so\n' >"$SB_DIR/alt/more"
service svc --pam-dir "$SB_DIR/alt"
assert_status 0 "$rc" "--pam-dir: $out"
assert_contains "$out" "svc: pam_namespace runs once at session open, at $SB_DIR/alt/svc:1, arguments: debug" \
	"a continued line with a bracketed control"
assert_contains "$out" "$SB_DIR/alt/more:1: -session optional pam_permit.so  (included from $SB_DIR/alt/svc:3)" \
	"@include"
sb_note "ok"
