#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Logins through a real OpenSSH server (UsePAM yes, the module in its pam.d
# service) get private /tmp and /var/tmp: password logins of two users with
# sshpass, a key-based login, and su with unmnt_remnt inside an ssh session.
# sshd listens on 127.0.0.1:22 of a network namespace of the test's own, so
# the host's sshd and ports are never involved.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
# shellcheck source=private_tmp.sh
. "$here/private_tmp.sh"

# shellcheck source=../lib/sshd.sh
. "$here/../lib/sshd.sh"
missing=$(sshd_missing)
[[ -z "$missing" ]] || skip "$missing"

# A network namespace first, then the sandbox inside it.
if [[ -z "${SB_INSIDE:-}" && -z "${NS_SSHD_NETNS:-}" ]]; then
	[[ $(id -u) == 0 ]] || skip "needs root"
	unshare --net true 2>/dev/null || skip "cannot create a network namespace here"
	export NS_SSHD_NETNS=1
	exec unshare --net bash "$0" "$@"
fi
sandbox_enter "$@"

# Stop sshd, show its log when the test failed, then the sandbox's cleanup.
sshd_cleanup() {
	local rc=$?
	sshd_stop
	if [[ $rc != 0 && $rc != 77 && -s "$SSH_DIR/sshd.log" ]]; then
		printf '# --- sshd -D -e ---\n' >&2
		sed 's/^/# /' "$SSH_DIR/sshd.log" >&2
	fi
	(exit "$rc")
	sb_cleanup
}
trap sshd_cleanup EXIT

# The sshd service: password checked by pam_unix, the module last.
write_pam_sshd() {
	cat >/etc/pam.d/sshd <<EOF
auth     required   pam_unix.so
account  required   pam_unix.so
session  required   pam_unix.so
session  required   $NS_MODULE
EOF
	chmod 0644 /etc/pam.d/sshd
}

# ssh_key USER CMD: a public key login, with no password to fall back to.
ssh_key() {
	timeout -k 5 "$SSH_TIMEOUT" ssh "${SSH_OPTS[@]}" -o BatchMode=yes \
		-o PreferredAuthentications=publickey -o IdentitiesOnly=yes \
		-i "$SSH_DIR/client_ed25519" "$1@127.0.0.1" "$2" </dev/null 2>&1
}

sshd_set_passwords "root|alice|bob|carol"
write_pam_sshd
sshd_start "PubkeyAuthentication yes" "AuthorizedKeysFile .ssh/authorized_keys" \
	"StrictModes yes" "PermitRootLogin yes" "LogLevel VERBOSE"

sb_note "a wrong password is refused"
rc=0
out=$(timeout -k 5 "$SSH_TIMEOUT" sshpass -p wrong ssh "${SSH_OPTS[@]}" -o NumberOfPasswordPrompts=1 \
	-o PreferredAuthentications=password alice@127.0.0.1 'echo RAN' </dev/null 2>&1) || rc=$?
assert_nonzero "$rc" "ssh alice with a wrong password"
assert_not_contains "$out" RAN "the command of a refused login"

sb_note "password logins: the session runs in a namespace of its own"
sandbox_private_tmp root
out=$(ssh_password alice 'id -un; readlink /proc/self/ns/mnt') || fail "ssh alice: $out"
assert_eq alice "$(head -n 1 <<<"$out")" "alice's ssh login"
assert_ne "$(sandbox_mnt_ns self)" "$(tail -n 1 <<<"$out")" "alice's mount namespace"

check_private_tmp ssh_password

sb_note "the module's mounts are in the session: sshd itself keeps the real /tmp"
assert_eq "$(sandbox_mnt_ns self)" "$(sandbox_mnt_ns "$SSHD_PID")" "sshd's mount namespace"

sb_note "key-based login (StrictModes on the sandbox's /home)"
ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/client_ed25519" </dev/null
install -d -m 0700 -o carol -g carol /home/carol/.ssh
install -m 0600 -o carol -g carol "$SSH_DIR/client_ed25519.pub" /home/carol/.ssh/authorized_keys
# carol has a password too; the key must be what lets her in.
out=$(ssh_key carol 'id -un; echo "[$(ls -A /tmp)]"; echo key >/tmp/carol-key') ||
	fail "ssh -i key carol: $out"
assert_eq "carol"$'\n'"[]" "$out" "carol's first key login"
out=$(ssh_key carol 'cat /tmp/carol-key; ls -A /tmp') || fail "ssh -i key carol: $out"
assert_eq "key"$'\n'"carol-key" "$out" "carol's next key login"
assert_file /tmp/tmp-inst/carol/carol-key
assert_no_file /tmp/carol-key "carol's file in the real /tmp"
rc=0
out=$(ssh_key alice 'echo RAN') || rc=$?
assert_nonzero "$rc" "ssh -i key alice (no authorized_keys)"
assert_not_contains "$out" RAN "a refused key login"
assert_contains "$(cat "$SSH_DIR/sshd.log")" "Accepted publickey for carol" "sshd's log"

# su is set-user-ID: run by alice it ignores LD_PRELOAD, so in the sanitizer
# run (NS_ASAN_RT) the ASan-built module cannot be loaded into it.
if [[ -n "${NS_ASAN_RT:-}" ]]; then
	partial su_in_ssh "su with unmnt_remnt inside an ssh session: not in the sanitizer run (su is setuid)"
else
	sb_note "su with unmnt_remnt inside an ssh session"
	# alice may become anyone without a password, as Debian's su offers with
	# pam_wheel trust; the session stack is that of su with the module last.
	printf 'nswheel:x:2999:alice\n' >>"$SB_DIR/etc/group"
	sandbox_pam_args unmnt_remnt
	sed -i 's/^auth     sufficient pam_rootok.so$/&\nauth     sufficient pam_wheel.so trust use_uid group=nswheel/' \
		"$SB_DIR/etc/pam.d/su" "$SB_DIR/etc/pam.d/su-l"
	grep -q pam_wheel /etc/pam.d/su-l || fail "the su-l service was not extended"
	out=$(ssh_password alice 'echo "alice:[$(ls -A /tmp)]"
	su - bob -c "echo \"bob:\$(id -un):[\$(ls -A /tmp)]\"; echo via-su >/tmp/bob-su" 2>&1
	echo "alice again:[$(ls -A /tmp)]"') || fail "ssh alice, then su - bob: $out"
	assert_eq "alice:[alice-file]"$'\n'"bob:bob:[bob-file]"$'\n'"alice again:[alice-file]" "$out" \
		"what alice and then bob see in /tmp"
	assert_file /tmp/tmp-inst/bob/bob-su "the file bob wrote after su"
	assert_no_file /tmp/tmp-inst/alice/bob-su "bob's file in alice's instance"
	assert_no_file /tmp/bob-su "bob's file in the real /tmp"
fi

sb_note "no session left a mount on the real /tmp"
assert_eq 1 "$(sandbox_mounts_at /tmp)" "mounts on /tmp"
sshd_stop
echo "ok: sshd"
