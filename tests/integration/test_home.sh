#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# $HOME polyinstantiated: each user gets a home instance of their own,
# owned by them with the home's mode; the instance parent is made when only
# its last component is missing.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

sandbox_conf '$HOME /home/inst/ user root'
assert_no_file /home/inst

for u in alice bob; do
	sb_note "$u: an empty home of their own"
	out=$(sandbox_su "$u" 'pwd; echo "[$(ls -A ~)]"; echo "$USER" >~/note')
	assert_eq "/home/$u"$'\n'"[]" "$out" "$u's first session"
	out=$(sandbox_su "$u" 'cat ~/note; ls -A ~')
	assert_eq "$u"$'\n'"note" "$out" "$u's next session"
	assert_eq "700 $u $u" "$(stat -c '%a %U %G' "/home/inst/$u")" "$u's home instance"
	assert_eq ".hushlogin" "$(ls -A "/home/$u")" "$u's real home"
done

sb_note "carol: a passwd entry longer than the module's first lookup buffer"
long=$(printf '%05000d' 0)
awk -F: -v OFS=: -v g="$long" '$1 == "carol" { $5 = g } 1' /etc/passwd >"$SB_DIR/passwd.long"
cat "$SB_DIR/passwd.long" >/etc/passwd
out=$(sandbox_su carol 'pwd; echo "[$(ls -A ~)]"')
assert_eq "/home/carol"$'\n'"[]" "$out" "carol's session with a 5000-character GECOS"
assert_eq "700 carol carol" "$(stat -c '%a %U %G' /home/inst/carol)" "carol's home instance"

sb_note "the instance parent was made root-owned, mode 000"
assert_eq "0 root root" "$(stat -c '%a %U %G' /home/inst)" "the instance parent"

sb_note "a parent two levels deep is not made"
sandbox_conf '$HOME /home/deep/inst/ user root'
rc=0
out=$(sandbox_su carol 'echo RAN') || rc=$?
assert_nonzero "$rc" "su - carol with a missing /home/deep"
assert_not_contains "$out" RAN "carol's command"
assert_no_file /home/deep
echo "ok: home"
