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
if ! module_is_linux_pam; then
	# Issue 31 point 5: the repair of an existing instance went through its
	# O_PATH descriptor, where fchmod is always EBADF: every session after
	# the first was refused. Each repair, on a new instance and on one
	# that exists, first and later sessions.
	sb_note "a home instance widened by the init script is made private again, new or not"
	sandbox_conf '$HOME /home/inst/ user root'
	cat >/etc/security/namespace.init <<'SCRIPT'
#!/bin/sh
chmod 0777 "$2"
SCRIPT
	chmod 0755 /etc/security/namespace.init
	rm -rf /home/inst/bob
	for n in first second; do
		sandbox_log_clear
		rc=0
		out=$(sandbox_su bob 'stat -c %a ~; echo RAN') || rc=$?
		assert_eq 0 "$rc" "bob's $n session with an init script widening it: $out"
		assert_eq "755"$'\n'"RAN" "$out" "bob's $n session"
		assert_eq "755 bob" "$(stat -c '%a %U' /home/inst/bob)" "bob's instance after his $n session"
		assert_log_contains "instance /home/inst/bob was mode 0777" "the repair logged ($n session)"
	done
	rm -f /etc/security/namespace.init

	sb_note "a home instance left 0777 (Debian 13's namespace.init under Linux-PAM) does not lock out"
	chmod 0777 /home/inst/alice
	for n in first second; do
		rc=0
		out=$(sandbox_su alice 'stat -c %a ~; cat ~/note') || rc=$?
		assert_eq 0 "$rc" "alice's $n session after her instance was left 0777: $out"
		assert_eq "755"$'\n'"alice" "$out" "alice's $n session"
		assert_eq "755 alice" "$(stat -c '%a %U' /home/inst/alice)" "alice's instance"
		chmod 0777 /home/inst/alice
	done
fi
echo "ok: home"
