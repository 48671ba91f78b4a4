#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The tmpfs and tmpdir methods, and the create flag.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
echo real >/tmp/real-file

sb_note "tmpfs: a fresh tmpfs on /tmp in every session, with the given options"
sandbox_conf '/tmp tmpfs tmpfs:mntopts=size=2M root'
out=$(sandbox_su alice 'findmnt -n -o FSTYPE,OPTIONS --mountpoint /tmp | tail -n 1; ls -A /tmp; echo x >/tmp/alice-file')
assert_contains "$out" tmpfs "alice's /tmp"
assert_contains "$out" size=2048k "alice's /tmp options"
assert_eq 1 "$(wc -l <<<"$out")" "alice's /tmp is empty: $out"
out=$(sandbox_su alice 'ls -A /tmp')
assert_eq "" "$out" "alice's next session (a new tmpfs)"
assert_eq "real-file" "$(ls -A /tmp)" "the real /tmp"

sb_note "tmpdir: a new instance in every session"
sandbox_conf '/tmp /tmp/tmp-inst/ tmpdir root'
sandbox_inst_parent /tmp/tmp-inst
out=$(sandbox_su alice 'ls -A /tmp; echo x >/tmp/alice-file')
assert_eq "" "$out" "alice's /tmp"
out=$(sandbox_su alice 'ls -A /tmp')
assert_eq "" "$out" "alice's next session"
if module_is_linux_pam; then
	sb_note "Linux-PAM leaves tmpdir instances behind: $(find /tmp/tmp-inst -mindepth 1 -maxdepth 1 -printf '%f ')"
else
	assert_eq "" "$(ls -A /tmp/tmp-inst)" "tmpdir instances after the sessions"
fi
assert_no_file /tmp/alice-file "alice's file in the real /tmp"

sb_note "create: a missing polydir is made with the mode, owner and group given"
sandbox_conf '/home/poly /home/poly-inst/ user:create=0770,root,alice root'
sandbox_inst_parent /home/poly-inst
out=$(sandbox_su alice 'echo x >/home/poly/f && echo wrote') || fail "su - alice: $out"
assert_eq wrote "$out" "alice writes in the created polydir"
assert_eq "770 root alice" "$(stat -c '%a %U %G' /home/poly)" "the created polydir"
assert_eq "770 root alice" "$(stat -c '%a %U %G' /home/poly-inst/alice)" "alice's instance"
echo "ok: methods"
