#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# "su - USER" sessions of two users get private /tmp and /var/tmp.
# shellcheck source-path=SCRIPTDIR disable=SC2016,SC2086 # session commands are single-quoted on purpose; NS_SU_ENV is a list of words
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
# shellcheck source=private_tmp.sh
. "$here/private_tmp.sh"
sandbox_enter "$@"

check_private_tmp sandbox_su

sb_note "a session's namespace is not the caller's"
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt')
assert_ne "$(sandbox_mnt_ns self)" "$out" "alice's mount namespace"
# Issue 31 point 6: root's su from /tmp/work, which in alice's instance is
# her link to /etc/security, re-entered the directory by name after the
# mounts and ran in /etc/security. Linux-PAM's stays in root's /tmp/work
# (it never changes directory); so does this module where the name, walked
# without following her link, leads nowhere.
sb_note "su from a working directory that is a link of the user's in her instance"
install -d -m 0755 /tmp/work /srv/real
echo root >/tmp/work/root-file
sandbox_su alice 'ln -s /etc/security /tmp/work'
out=$(cd /tmp/work && timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} su alice -c 'ls .; readlink /proc/self/cwd' 2>&1)
sb_note "from /tmp/work: $(tr '\n' ' ' <<<"$out")"
assert_eq "root-file"$'\n'"/tmp/work" "$out" "the working directory of su from /tmp/work (alice's link)"
out=$(cd /srv/real && timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} su alice -c 'readlink /proc/self/cwd' 2>&1)
assert_eq /srv/real "$out" "a working directory outside the polydirs"
if ! module_is_linux_pam; then
	# COMPATIBILITY.md cwd-reentered: in /tmp itself, the instance.
	out=$(cd /tmp && timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} su alice -c 'ls -A .' 2>&1)
	assert_contains "$out" alice-file "su from /tmp sees alice's instance"
	assert_not_contains "$out" tmp-inst "su from /tmp sees alice's instance, not the real /tmp"
	# Her own directory of that name is entered (ns_cwd_restore).
	sandbox_su alice 'rm /tmp/work && mkdir /tmp/work && touch /tmp/work/alice-file'
	out=$(cd /tmp/work && timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} su alice -c 'ls .; stat -c %U .' 2>&1)
	assert_eq "alice-file"$'\n'"alice" "$out" "su from /tmp/work, alice's directory there"
fi
rm -rf /tmp/work /srv/real
echo "ok: su"
