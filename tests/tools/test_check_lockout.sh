#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Mistakes that lock every user out, each found by plain pam_namespace_check
# before anyone logs in: the check exits 1 naming the file:line and the
# path, and then a real "su - alice" is indeed refused. And what is only
# worth a warning (unknown names in a list, no entry) is said, with exit 0;
# and every example line of the documentation passes --strict on a stock
# Debian 12 and a stock Debian 13 user list (debian13/: trixie's users).
# Runs in a sandbox: configuration, users and PAM services are throwaway.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}
conf=/etc/security/namespace.conf

# found_then_refused WHAT TEXT...: the plain check exits 1 and says each
# TEXT; then su - alice fails and alice's command does not run.
found_then_refused() {
	local what=$1 rc=0 out t
	shift
	out=$("$check" 2>&1) || rc=$?
	assert_status 1 "$rc" "$what: exit status of the plain check: $out"
	for t in "$@"; do
		assert_contains "$out" "$t" "$what: the check's diagnostic"
	done
	rm -f "$SB_OUT/ran"
	rc=0
	out=$(sandbox_su alice "touch $SB_OUT/ran") || rc=$?
	assert_nonzero "$rc" "$what: su - alice: $out"
	assert_no_file "$SB_OUT/ran" "$what: alice's command"
}

# fine: the plain check exits 0 and su - alice works.
fine() {
	local out
	out=$("$check" 2>&1) || fail "$1: the plain check: $out"
	rm -f "$SB_OUT/ran"
	out=$(sandbox_su alice "touch $SB_OUT/ran") || fail "$1: su - alice: $out"
	assert_file "$SB_OUT/ran" "$1: alice's command"
}

sb_note "the setup that works"
sandbox_private_tmp root
fine "the usual /tmp and /var/tmp"

sb_note "an instance parent with mode 0755"
chmod 0755 /tmp/tmp-inst
found_then_refused "parent 0755" \
	"$conf:1: error: instance parent /tmp/tmp-inst: owner root, group root, mode 0755; it must be owned by root with mode 000 (or use ignore_instance_parent_mode): the session would fail"
sb_note "... which ignore_instance_parent_mode accepts, in the check as in the module"
out=$("$check" --ignore-instance-parent-mode 2>&1) || fail "relaxed: $out"
sandbox_pam_args ignore_instance_parent_mode
out=$(sandbox_su alice "touch $SB_OUT/ran") || fail "relaxed: su - alice: $out"
sandbox_pam_args
chmod 000 /tmp/tmp-inst

sb_note "an instance parent owned by a user"
chown alice /var/tmp/tmp-inst
found_then_refused "parent owned by alice" \
	"$conf:2: error: instance parent /var/tmp/tmp-inst: owner alice"
chown root /var/tmp/tmp-inst

sb_note "a missing directory above the instance parent"
sandbox_conf "/tmp /tmp/inst/parent/ user root"
found_then_refused "missing grandparent" \
	"$conf:1: error: instance parent /tmp/inst/parent is missing and so is a directory above it"
sb_note "... while a missing last component is fine: the module makes it"
sandbox_conf "/tmp /tmp/inst/ user root"
fine "missing parent, one mkdir away"
assert_eq "0 root" "$(stat -c '%a %U' /tmp/inst)" "the parent the module made"

sb_note "... or the polydir, when create makes it first"
sandbox_conf "/tmp/made /tmp/made/.inst/ user:create root"
fine "parent under a polydir create makes"
assert_eq "0 root" "$(stat -c '%a %U' /tmp/made/.inst)" "the parent under the new polydir"
rm -rf /tmp/made

sb_note "an instance prefix without its trailing slash"
sandbox_conf "/tmp /tmp/tmp-inst user root"
found_then_refused "no trailing slash" \
	"$conf:1: error: instance parent /tmp: owner root, group root, mode 1777" \
	"the instance prefix /tmp/tmp-inst has no trailing slash"
sandbox_private_tmp root

sb_note "a namespace.init that is not executable"
printf '#!/bin/sh\nexit 0\n' >/etc/security/namespace.init
chmod 0644 /etc/security/namespace.init
found_then_refused "init not executable" \
	"$conf:1: error: init script /etc/security/namespace.init is not executable"
sb_note "... or that others can write"
chmod 0757 /etc/security/namespace.init
found_then_refused "init writable by others" \
	"$conf:1: error: init script /etc/security/namespace.init (owner root, group root, mode 0757) must be a regular file owned by root and not writable by group or others"
sb_note "... reported once, though both lines run it"
rc=0
out=$("$check" 2>&1) || rc=$?
assert_status 1 "$rc" "the check with the script writable by others: $out"
assert_eq 1 "$(grep -c 'namespace.init' <<<"$out")" "one diagnostic for the script: $out"
chmod 0755 /etc/security/namespace.init
fine "an executable namespace.init"

sb_note "an iscript= owned by a user"
printf '#!/bin/sh\nexit 0\n' >/etc/security/alice.init
chmod 0755 /etc/security/alice.init
chown alice /etc/security/alice.init
sandbox_conf "/tmp /tmp/tmp-inst/ user:iscript=/etc/security/alice.init root"
found_then_refused "iscript owned by alice" \
	"$conf:1: error: init script /etc/security/alice.init (owner alice"
sandbox_private_tmp root

sb_note "an iscript= that does not exist: a warning (no script runs, as in Linux-PAM)"
sandbox_conf "/tmp /tmp/tmp-inst/ user:iscript=/etc/security/no-such.init root"
out=$("$check" 2>&1) || fail "a missing iscript=: $out"
assert_contains "$out" "$conf:1: warning: iscript=/etc/security/no-such.init does not exist: no init script runs for this line" \
	"the missing iscript="
rm -f "$SB_OUT/ran"
out=$(sandbox_su alice "touch $SB_OUT/ran") || fail "su - alice, a missing iscript=: $out"
assert_file "$SB_OUT/ran" "alice's command, a missing iscript="
sandbox_private_tmp root

sb_note "a polydir that does not exist, without create"
sandbox_conf "/tmp/none /tmp/tmp-inst/ user root"
found_then_refused "missing polydir" \
	"$conf:1: error: polydir /tmp/none does not exist and the line has no create flag"

sb_note "a namespace.d file others can write"
sandbox_private_tmp root
sandbox_conf_d 50-x.conf "/var/tmp /var/tmp/tmp-inst/ user root"
chmod 0666 /etc/security/namespace.d/50-x.conf
found_then_refused "namespace.d file 0666" \
	"/etc/security/namespace.d/50-x.conf: error: refusing"
rm /etc/security/namespace.d/50-x.conf

sb_note "an extended line whose list names a group nobody knows"
sandbox_conf "/tmp /tmp/tmp-inst/ user+ @nosuchgroup"
found_then_refused "unknown group" \
	"$conf:1: error: group @\"nosuchgroup\" in the list of users is unknown"

sb_note "\$HOME lines: what depends on the user, the plain check finds as --all-users does"
sandbox_conf "\$HOME \$HOME/.ns/inst/ user ~alice,bob"
rc=0
out=$("$check" 2>&1) || rc=$?
assert_status 1 "$rc" "the plain check, no \$HOME/.ns: $out"
assert_contains "$out" "error: 2 of $(getent passwd | wc -l) users would be refused a session: alice (home /home/alice: $conf:1: instance parent /home/alice/.ns/inst is missing and so is a directory above it" \
	"the plain check's summary"
assert_not_contains "$out" "configuration OK" "a \$HOME line that refuses alice and bob"
rc=0
out=$("$check" --all-users 2>&1) || rc=$?
assert_status 1 "$rc" "--all-users, no \$HOME/.ns: $out"
assert_contains "$out" "alice: REFUSED: $conf:1: instance parent /home/alice/.ns/inst is missing and so is a directory above it" \
	"alice's line"
assert_contains "$out" "bob: REFUSED" "bob's line"
assert_not_contains "$out" "carol" "carol, whom the line does not select"
assert_contains "$out" "2 with a polyinstantiated directory, 2 would be refused" "the summary"
rc=0
out=$(sandbox_su alice "touch $SB_OUT/ran") || rc=$?
assert_nonzero "$rc" "su - alice without \$HOME/.ns: $out"
install -d -o alice -m 0755 /home/alice/.ns
rc=0
out=$("$check" --all-users 2>&1) || rc=$?
assert_status 1 "$rc" "--all-users, bob still without \$HOME/.ns: $out"
assert_not_contains "$out" "alice: REFUSED" "alice, with her \$HOME/.ns"
assert_contains "$out" "2 with a polyinstantiated directory, 1 would be refused" "the summary"
out=$(sandbox_su alice "touch $SB_OUT/ran") || fail "su - alice with \$HOME/.ns: $out"

sb_note "warnings: unknown names, no entry; exit 0"
sandbox_private_tmp "root,nosuchuser"
out=$("$check" 2>&1) || fail "unknown name: $out"
assert_contains "$out" "$conf:1: warning: unknown user \"nosuchuser\" in the list of users: the module ignores it" \
	"the unknown name"
sandbox_private_tmp "~nosuchuser"
out=$("$check" 2>&1) || fail "~unknown: $out"
assert_contains "$out" "$conf:1: warning: the line applies only to the users of its list, and the name service knows none of them" \
	"a ~ list of unknown names"
sandbox_conf "# nothing"
out=$("$check" 2>&1) || fail "no entry: $out"
assert_contains "$out" "warning: no active entry" "no entry"

sb_note "a stock Debian 12 user list (base-passwd, _apt, systemd's, messagebus, sshd) and ours"
# The sandbox's /etc/passwd is the host's copy, which may hold users of its
# own (a cloud image's, a database's): the documentation's examples are
# checked against the users every Debian 12 system has.
cp /etc/passwd "$SB_DIR/passwd.host"
{
	grep '^root:' "$SB_DIR/passwd.host"
	grep -v '^root:' /usr/share/base-passwd/passwd.master 2>/dev/null ||
		printf '%s\n' 'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin' \
			'www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin' \
			'_apt:x:42:65534::/nonexistent:/usr/sbin/nologin' \
			'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin'
	printf '%s\n' 'systemd-network:x:998:998:systemd Network Management:/:/usr/sbin/nologin' \
		'systemd-timesync:x:997:997:systemd Time Synchronization:/:/usr/sbin/nologin' \
		'messagebus:x:100:107::/nonexistent:/usr/sbin/nologin' \
		'sshd:x:101:65534::/run/sshd:/usr/sbin/nologin'
	grep -E '^(alice|bob|carol):' "$SB_DIR/passwd.host"
} | sed 's/^\([^:]*\):\*:/\1:x:/' >"$SB_DIR/etc/passwd"
n_users=$(getent passwd | wc -l)
[[ $n_users -ge 20 ]] || fail "the stock user list: only $n_users users"

sb_note "the old example of namespace.conf(5), \$HOME for all but root: refused system users are an error"
install -d -m 0755 /home/alice /home/bob /home/carol
sandbox_conf "\$HOME \$HOME/\$USER.inst/ user root"
rc=0
out=$("$check" 2>&1) || rc=$?
assert_status 1 "$rc" "the plain check on the old example: $out"
assert_contains "$out" "users would be refused a session: " "the summary"
assert_contains "$out" "www-data (home /var/www: $conf:1: polydir /var/www does not exist" "www-data, whose home Debian does not make"
assert_not_contains "$out" "configuration OK" "the old example"
plain=$(sed -n 's/.*error: \([0-9]*\) of \([0-9]*\) users would be refused.*/\1 \2/p' <<<"$out")
rc=0
out=$("$check" --all-users 2>&1) || rc=$?
assert_status 1 "$rc" "--all-users on the old example: $out"
all=$(sed -n 's/.*error: \([0-9]*\) of \([0-9]*\) users would be refused.*/\1 \2/p' <<<"$out")
assert_eq "$all" "$plain" "users refused by the plain check and by --all-users"
assert_contains "$out" "nobody: REFUSED: $conf:1: polydir /nonexistent does not exist and the line has no create flag" "nobody, in --all-users"
rc=0
out=$("$check" -q 2>&1) || rc=$?
assert_status 1 "$rc" "-q on the old example: $out"
sb_note "... and the new one leaves them out: clean, even with --strict"
sandbox_conf "\$HOME \$HOME/\$USER.inst/ user+ uid<1000,nobody"
out=$("$check" --strict 2>&1) || fail "the new \$HOME example with --strict: $out"

# docs_examples LIST: every example line of namespace.conf (commented or
# not) in the README, the installed default configuration (the .deb's
# example), README.Debian and the man pages, with a list of users: the
# plain check, which looks its names up as the module does and plans every
# user of the stock list LIST, finds nothing to say, with /tmp's and
# /var/tmp's instance parents made as the documentation says (Debian's adm
# is a group: no plain list names it). A line that names lightdm, LightDM's
# own example (README "Graphical logins"), is checked with the system user
# LightDM's package adds; the others without it.
docs_examples() {
	local list=$1 src=$SB_SOURCE_ROOT p f l rc out n=0
	sb_note "the documentation's example lines pass the plain check with --strict ($list)"
	sandbox_private_tmp root
	for p in "$src"/README.md "$src"/conf/namespace.conf "$src"/debian/README.Debian "$src"/pam_namespace/man/*.scd; do
		f=${p#"$src"/}
		while IFS= read -r l; do
			n=$((n + 1))
			sandbox_conf "$l"
			cp "$SB_DIR/etc/passwd" "$SB_DIR/passwd.docs"
			[[ $l != *lightdm* ]] ||
				echo 'lightdm:x:990:990:Light Display Manager:/var/lib/lightdm:/bin/false' >>"$SB_DIR/etc/passwd"
			rc=0
			out=$("$check" --strict 2>&1) || rc=$?
			cp "$SB_DIR/passwd.docs" "$SB_DIR/etc/passwd"
			[[ $rc == 0 ]] || fail "$f: the example line [$l] fails pam_namespace_check --strict on $list (exit $rc): $out"
		done < <(awk '{ l = $0; sub(/^[#\t ]*/, "", l); k = split(l, a, /[ \t]+/)
			if ((a[1] ~ /^\// || a[1] ~ /^\$HOME/) && k >= 4 &&
			    a[3] ~ /^(user|tmpfs|tmpdir|context|level)\+?(:|$)/) print l }' "$p")
	done
	[[ $n -ge 8 ]] || fail "only $n example lines found in the documentation"
	sb_note "... $n example lines"
}
docs_examples "Debian 12's users"

sb_note "the plain check on 1,000 more users: how long it takes"
for i in $(seq 1 1000); do
	printf 'load%04d:x:%d:%d::/home/load%04d:/bin/sh\n' "$i" $((10000 + i)) $((10000 + i)) "$i"
done >>"$SB_DIR/etc/passwd"
sandbox_conf "/tmp /tmp/tmp-inst/ user root
/var/tmp /var/tmp/tmp-inst/ user root"
start=$(date +%s%N)
out=$("$check" 2>&1) || fail "the plain check with 1,000 more users: $out"
ms=$((($(date +%s%N) - start) / 1000000))
sb_note "... $((n_users + 1000)) users: ${ms} ms"
[[ $ms -lt 5000 ]] || fail "the plain check took ${ms} ms on $((n_users + 1000)) users"

sb_note "a stock Debian 13 user list (debian13/passwd and group: base-passwd 3.6, systemd's, messagebus, sshd) and ours"
cp /etc/group "$SB_DIR/group.host"
{
	grep '^root:' "$SB_DIR/passwd.host"
	grep -v -e '^#' -e '^root:' "$here/debian13/passwd"
	grep -E '^(alice|bob|carol):' "$SB_DIR/passwd.host"
} >"$SB_DIR/etc/passwd"
{
	grep -v '^#' "$here/debian13/group"
	grep -E '^(alice|bob|carol):' "$SB_DIR/group.host"
} >"$SB_DIR/etc/group"
assert_eq 3 "$(getent passwd systemd-timesync www-data sshd | wc -l)" "Debian 13's users in the sandbox"
rc=0
sandbox_conf "\$HOME \$HOME/\$USER.inst/ user root"
out=$("$check" 2>&1) || rc=$?
assert_status 1 "$rc" "the plain check on the old example, Debian 13's users: $out"
assert_contains "$out" "error: 12 of 25 users would be refused a session: lp (home /var/spool/lpd: $conf:1: polydir /var/spool/lpd does not exist" \
	"the old example, Debian 13's users"
docs_examples "Debian 13's users"
cp "$SB_DIR/group.host" "$SB_DIR/etc/group"
cp "$SB_DIR/passwd.host" "$SB_DIR/etc/passwd"
sb_note "ok"
