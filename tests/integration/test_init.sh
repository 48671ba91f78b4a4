#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# namespace.init: when it runs, with what, and what a bad one does.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

log=$SB_OUT/init.log
caller_ns=$(sandbox_mnt_ns self)

# write_init PATH [EXIT]: an init script recording its arguments, its
# environment, its namespace and what it sees in the polydir.
write_init() {
	cat >"$1" <<SCRIPT
#!/bin/sh
echo "\$(basename "\$0") \$*" >>$log
echo "env \${SB_INSIDE-unset} \${HOME-unset}" >>$log
echo "ns \$(readlink /proc/self/ns/mnt)" >>$log
echo "sees [\$(ls -A "\$1")]" >>$log
exit ${2:-0}
SCRIPT
	chmod 0755 "$1"
}

sb_note "the default init script: arguments, an empty environment, the new namespace"
write_init /etc/security/namespace.init
sandbox_private_tmp root
out=$(sandbox_su alice 'echo x >/tmp/alice-file; readlink /proc/self/ns/mnt')
session_ns=$out
mapfile -t lines <"$log"
assert_eq "namespace.init /tmp /tmp/tmp-inst/alice 1 alice" "$(cut -d' ' -f1-5 <<<"${lines[0]}")" "init arguments"
assert_eq "env unset unset" "${lines[1]}" "init environment"
assert_ne "ns $caller_ns" "${lines[2]}" "init's mount namespace"
assert_eq "ns $session_ns" "${lines[2]}" "init's mount namespace"
assert_eq "sees []" "${lines[3]}" "what init sees in /tmp (the instance)"
assert_eq "namespace.init /var/tmp /var/tmp/tmp-inst/alice 1 alice" "$(cut -d' ' -f1-5 <<<"${lines[4]}")" "init arguments"
# The fifth argument: every component of /tmp but the last is root-owned
# and not writable by others (Linux-PAM before 1.7.1 passes only four).
if ! module_is_linux_pam || [[ $(wc -w <<<"${lines[0]}") == 7 ]]; then
	assert_eq 1 "$(cut -d' ' -f6 <<<"${lines[0]}")" "init's fifth argument, for /tmp"
fi
: >"$log"
sandbox_su alice true
assert_eq "namespace.init /tmp /tmp/tmp-inst/alice 0 alice" "$(head -n 1 "$log" | cut -d' ' -f1-5)" "init arguments, instance reused"

sb_note "iscript= (relative to namespace.d) and noinit"
: >"$log"
write_init /etc/security/namespace.d/vartmp.init
sandbox_conf "/tmp     /tmp/tmp-inst/     user:noinit root
/var/tmp /var/tmp/tmp-inst/ user:iscript=vartmp.init root"
sandbox_su bob true
assert_eq "vartmp.init /var/tmp /var/tmp/tmp-inst/bob 1 bob" "$(head -n 1 "$log" | cut -d' ' -f1-5)" "iscript= run"
assert_eq 4 "$(wc -l <"$log")" "init scripts run (only iscript=)"

sb_note "a non-zero exit status does not fail the session"
: >"$log"
write_init /etc/security/namespace.init 3
sandbox_private_tmp root
out=$(sandbox_su carol 'echo RAN') || fail "su - carol with an init exiting 3: $out"
assert_eq RAN "$out" "carol's session"
if ! module_is_linux_pam; then
	assert_log_contains "namespace.init /tmp exited with status 3" "init's exit status logged"
fi

sb_note "an init script that is not executable fails the session"
chmod 0644 /etc/security/namespace.init
rc=0
out=$(sandbox_su carol 'echo RAN') || rc=$?
assert_nonzero "$rc" "su - carol with a non-executable init"
assert_not_contains "$out" RAN "carol's command"

if ! module_is_linux_pam; then
	sb_note "an init script not owned by root, or group-writable, is refused"
	chmod 0755 /etc/security/namespace.init
	chown alice /etc/security/namespace.init
	rc=0
	out=$(sandbox_su carol 'echo RAN') || rc=$?
	assert_nonzero "$rc" "su - carol with an init owned by alice"
	assert_log_contains "/etc/security/namespace.init" "an init owned by alice"
	chown root /etc/security/namespace.init
	chmod 0775 /etc/security/namespace.init
	rc=0
	out=$(sandbox_su carol 'echo RAN') || rc=$?
	assert_nonzero "$rc" "su - carol with a group-writable init"
fi
# Issue 31 point 4: su opens the session with the calling user's real uid
# and effective uid 0; the script ran with that real uid, and dash dropped
# to it. It runs as root: real, effective and saved uid and gid 0.
sb_note "the init script runs as root under su run by a user, and from a client with another real uid"
ids=$SB_OUT/init-ids
cat >/etc/security/namespace.init <<SCRIPT
#!/bin/sh
echo "\$(id -u) \$(id -ru) \$(id -g) \$(id -rg)" >$ids
grep -E '^(Uid|Gid):' /proc/self/status | tr -s '\t ' ' ' >>$ids
SCRIPT
chmod 0755 /etc/security/namespace.init
sandbox_private_tmp root
# In the sandbox's own pam.d: alice may su to anyone, only the session matters.
printf '%s\n' 'auth sufficient pam_permit.so' 'account required pam_permit.so' \
	"session required $NS_MODULE" >"$SB_DIR/etc/pam.d/su-l"
cp "$SB_DIR/etc/pam.d/su-l" "$SB_DIR/etc/pam.d/su"
rm -f "$ids"
root_ids="0 0 0 0"$'\n'"Uid: 0 0 0 0"$'\n'"Gid: 0 0 0 0"
# In the sanitizer run (NS_ASAN_RT) the ASan-built module cannot be loaded
# into su run by alice, which is set-user-ID and ignores LD_PRELOAD; the
# driver's case below, real uid 1000, covers the same ids there.
if [[ -n "${NS_ASAN_RT:-}" ]]; then
	partial alice_su "alice's su - bob: not in the sanitizer run (su run by alice is set-user-ID)"
else
	out=$(cd / && timeout -k 5 "$SB_TIMEOUT" setpriv --reuid alice --regid alice --init-groups \
		su - bob -c 'id -u' 2>&1) || fail "alice's su - bob: $out"
	assert_eq 2002 "$out" "alice's su - bob runs as bob"
	sb_note "init script under alice's su - bob: $(tr '\n' ' ' <"$ids")"
	if module_is_linux_pam; then
		# Linux-PAM's setuid(geteuid()): uids 0, gids the caller's.
		assert_eq "0 0" "$(head -n 1 "$ids" | cut -d' ' -f1-2)" "init script's uids under alice's su"
	else
		assert_eq "$root_ids" "$(cat "$ids")" "init script's ids under alice's su - bob"
	fi
fi
sandbox_pam_args
rm -f "$ids"
out=$(sandbox_driver --caller 1000:1000 ns-driver carol -- true) ||
	fail "pam_driver --caller 1000:1000: $out"
sb_note "init script from a client with real uid 1000, effective 0: $(tr '\n' ' ' <"$ids")"
if module_is_linux_pam; then
	assert_eq "0 0" "$(head -n 1 "$ids" | cut -d' ' -f1-2)" "init script's uids (real uid 1000)"
else
	assert_eq "$root_ids" "$(cat "$ids")" "init script's ids (real uid 1000, effective 0)"
fi
echo "ok: init"
