#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Users that are not in /etc/passwd, served through NSS as SSSD or LDAP
# would serve them on a fleet: here cwrap's nss_wrapper, preloaded into the
# PAM client (so into the module too). Their sessions get private /tmp and
# $HOME instances with the owners NSS gives, user lists and create= resolve
# NSS-only names, and without NSS the same users are unknown.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
[[ -x "$NS_DRIVER" ]] || skip "no PAM driver at $NS_DRIVER"
# (awk reads to the end: leaving early would kill ldconfig with SIGPIPE,
# which pipefail turns into a failure)
NSS_LIB=$(ldconfig -p | awk '$1 == "libnss_wrapper.so" && !lib { lib = $NF } END { print lib }')
[[ -n "$NSS_LIB" ]] || skip "libnss_wrapper.so is not installed (libnss-wrapper)"

# What "passwd: files sss" answers: the local files, then the directory's
# dave and erin, their groups and a team group, none of which are in the
# sandbox's /etc/passwd or /etc/group.
nss=$SB_DIR/nss
install -d -m 0755 "$nss"
cp /etc/passwd "$nss/passwd"
cp /etc/group "$nss/group"
cat >>"$nss/passwd" <<EOF
dave:*:3001:3001:Dave (directory):/home/dave:/bin/sh
erin:*:3002:3002:Erin (directory):/home/erin:/bin/sh
EOF
cat >>"$nss/group" <<EOF
dave:*:3001:
erin:*:3002:
fleet:*:3100:dave,erin
EOF
chmod 0644 "$nss/passwd" "$nss/group"
for u in dave:3001 erin:3002; do
	install -d -m 0700 -o "${u#*:}" -g "${u#*:}" "/home/${u%:*}"
done

# with_nss CMD...: CMD with nss_wrapper serving the directory's users.
with_nss() {
	NSS_WRAPPER_PASSWD=$nss/passwd NSS_WRAPPER_GROUP=$nss/group LD_PRELOAD=$NSS_LIB "$@"
}

# What a program that loads the module preloads: nss_wrapper, and in the
# sanitizer run the ASan runtime (NS_ASAN_RT) before it, as ASan must come
# first of all.
pam_preload="${NS_ASAN_RT:+$NS_ASAN_RT }$NSS_LIB"

# session USER CMD: a PAM session for USER through nss_wrapper, in which
# CMD runs as USER (uid, gid, groups and home as NSS gives them).
session() {
	local pw uid gid home groups
	pw=$(with_nss getent passwd "$1") || fail "$1 does not resolve through nss_wrapper"
	IFS=: read -r _ _ uid gid _ home _ <<<"$pw"
	# The groups as id(1) gets them through nss_wrapper: setpriv
	# --init-groups of util-linux 2.41 (Debian 13) does not see its groups.
	groups=$(with_nss id -G "$1" | tr ' ' ,)
	with_nss timeout -k 5 "$SB_TIMEOUT" env LD_PRELOAD="$pam_preload" \
		"$NS_DRIVER" ns-driver "$1" -- env LD_PRELOAD="$NSS_LIB" \
		setpriv --reuid="$uid" --regid="$gid" --groups="$groups" \
		env HOME="$home" sh -c 'cd && exec sh -c "$1"' sh "$2" 2>&1
}

sb_note "dave and erin exist only through NSS"
for u in dave erin; do
	! grep -q "^$u:" /etc/passwd || fail "$u is in /etc/passwd"
	! getent passwd "$u" >/dev/null || fail "$u resolves without nss_wrapper"
done
assert_eq "dave:*:3001:3001:Dave (directory):/home/dave:/bin/sh" \
	"$(with_nss getent passwd dave)" "dave through nss_wrapper"
assert_eq "3001 3100" "$(with_nss id -G dave)" "dave's groups through nss_wrapper"

sandbox_conf '/tmp      /tmp/tmp-inst/      user  root
$HOME     /home/inst/         user  root'
sandbox_inst_parent /tmp/tmp-inst

sb_note "without NSS, dave is an unknown user and gets no session"
rc=0
out=$(sandbox_driver ns-driver dave -- touch "$SB_OUT/ran") || rc=$?
assert_status 67 "$rc" "the driver's status for dave without nss_wrapper: $out"
assert_no_file "$SB_OUT/ran" "the command of the refused session"
assert_no_file /home/inst "the home instance parent, after the refused session"

for u in dave erin; do
	sb_note "$u: first session, empty private /tmp and home, written as $u"
	out=$(session "$u" 'id -u; echo "tmp:[$(ls -A /tmp)] home:[$(ls -A ~)]"
echo "$(id -un)" >/tmp/who; echo note >"$HOME/note"') || fail "$u's session: $out"
	assert_eq "$(with_nss id -u "$u")"$'\n'"tmp:[] home:[]" "$out" "$u's first session"
done

for u in dave erin; do
	sb_note "$u: next session finds only $u's own files"
	out=$(session "$u" 'cat /tmp/who; ls -A /tmp; ls -A ~') || fail "$u's session: $out"
	assert_eq "$u"$'\n'"who"$'\n'"note" "$out" "$u's next session"
done

sb_note "the instances have the owners NSS gives"
assert_eq "0 root root" "$(stat -c '%a %U %G' /tmp/tmp-inst)" "the /tmp instance parent"
assert_eq "0 root root" "$(stat -c '%a %U %G' /home/inst)" "the home instance parent"
for u in dave:3001 erin:3002; do
	n=${u%:*}
	id=${u#*:}
	assert_eq "1777 0 0" "$(stat -c '%a %u %g' "/tmp/tmp-inst/$n")" "$n's /tmp instance"
	assert_eq "644 $id $id" "$(stat -c '%a %u %g' "/tmp/tmp-inst/$n/who")" "the file $n wrote in /tmp"
	assert_eq "700 $id $id" "$(stat -c '%a %u %g' "/home/inst/$n")" "$n's home instance"
	assert_eq "$id $id" "$(stat -c '%u %g' "/home/inst/$n/note")" "the file $n wrote at home"
	assert_eq "" "$(ls -A "/home/$n")" "$n's real home"
done
assert_eq "tmp-inst" "$(ls -A /tmp)" "the real /tmp"

sb_note "create= with an NSS-only owner and group, a ~ list of NSS-only users"
sandbox_conf '/var/tmp/team  /var/tmp/team-inst/  user:create=0770,dave,fleet  ~dave,erin'
assert_no_file /var/tmp/team
out=$(session dave 'ls -ld /var/tmp/team >/dev/null && echo ok; echo d >/var/tmp/team/d') ||
	fail "dave's session: $out"
assert_eq ok "$out" "dave's session with the team directory"
assert_eq "770 3001 3100" "$(stat -c '%a %u %g' /var/tmp/team)" "the created team polydir"
assert_eq "770 3001 3100" "$(stat -c '%a %u %g' /var/tmp/team-inst/dave)" "dave's team instance"
out=$(session erin 'ls -A /var/tmp/team') || fail "erin's session: $out"
assert_eq "" "$out" "erin's team instance"
assert_file /var/tmp/team-inst/erin
out=$(session carol 'readlink /proc/self/ns/mnt') || fail "carol's session: $out"
assert_eq "$(sandbox_mnt_ns self)" "$out" "carol, not in the ~ list, keeps the caller's namespace"
assert_no_file /var/tmp/team-inst/carol

sb_note "an NSS-only name in the list excludes that user"
sandbox_conf '/tmp /tmp/tmp-inst/ user root,erin'
out=$(session erin 'ls -A /tmp') || fail "erin's session: $out"
assert_eq "tmp-inst" "$out" "erin, excluded by name, sees the real /tmp"
out=$(session dave 'ls -A /tmp') || fail "dave's session: $out"
assert_eq "who" "$out" "dave, not excluded"

sb_note "su - of an NSS-only user (root's su honours the preload)"
sandbox_conf '/tmp /tmp/tmp-inst/ user root'
# (NS_SU_ENV as for any su, with nss_wrapper added to its preload)
# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
out=$(with_nss timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} LD_PRELOAD="$pam_preload" \
	su - dave -c 'id -u; cat /tmp/who' 2>&1) ||
	fail "su - dave: $out"
assert_eq "3001"$'\n'"dave" "$out" "dave's su session"

sb_note "an extended line's @group, a group only NSS knows, resolved at the session"
sandbox_conf '/tmp /tmp/tmp-inst/ user+ root,@fleet'
out=$(session dave 'ls -A /tmp') || fail "dave's session: $out"
assert_eq "tmp-inst" "$out" "dave, in fleet through NSS, sees the real /tmp"
out=$(session carol 'ls -A /tmp') || fail "carol's session: $out"
assert_eq "" "$out" "carol, not in fleet, gets a private /tmp"
rc=0
out=$(sandbox_driver ns-driver carol -- true) || rc=$?
assert_status 67 "$rc" "carol without nss_wrapper, @fleet unknown: $out"

assert_eq 1 "$(sandbox_mounts_at /tmp)" "mounts on /tmp after the sessions"
echo "ok: nss"
