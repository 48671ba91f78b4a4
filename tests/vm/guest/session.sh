#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# An end-to-end login session on the guest's kernel: pam_driver opens a
# PAM session (service vm-session, the built module by absolute path) and
# the user's shell, run with su, finds a private /tmp; the instance is
# created under the root-only instance parent.
# shellcheck source=tests/vm/guest/guest.sh
. /vm/guest.sh

printf '/tmp /tmp/tmp-inst/ user root\n' >/etc/security/namespace.conf
chmod 0644 /etc/security/namespace.conf
caller=$(readlink /proc/self/ns/mnt)
echo real >/tmp/real-file

note "alice logs in: a namespace of her own and an empty /tmp"
out=$(pam_driver vm-session alice -- su -s /bin/sh alice -c \
	'id -un; readlink /proc/self/ns/mnt; ls -A /tmp; echo "alice was here" >/tmp/note') ||
	fail "alice's session: status $?: $out"
echo "$out" | sed 's/^/#   /'
assert_eq alice "$(echo "$out" | sed -n 1p)" "the session's user"
assert_ne "$caller" "$(echo "$out" | sed -n 2p)" "alice's mount namespace"
assert_eq 2 "$(echo "$out" | wc -l)" "alice's /tmp is empty (no line after the namespace)"

note "the instance parent and alice's instance, as the module made them"
assert_eq "d--------- 0 0" "$(stat -c '%A %u %g' /tmp/tmp-inst)" "the instance parent"
assert_eq "drwxrwxrwt 0 0" "$(stat -c '%A %u %g' /tmp/tmp-inst/alice)" "alice's instance (as /tmp)"
assert_eq "alice was here" "$(cat /tmp/tmp-inst/alice/note)" "the note in alice's instance"
assert_eq "alice" "$(stat -c %U /tmp/tmp-inst/alice/note)" "the note's owner"
assert_no_file /tmp/note "alice's note in the real /tmp"

note "bob logs in: his own /tmp, without alice's note"
out=$(pam_driver vm-session bob -- su -s /bin/sh bob -c \
	'ls -A /tmp; cat /tmp/note 2>&1; echo "bob was here" >/tmp/note; cat /tmp/note') ||
	true
assert_eq "cat: can't open '/tmp/note': No such file or directory
bob was here" "$out" "bob's session"

note "alice again: her note, and only hers"
out=$(pam_driver vm-session alice -- su -s /bin/sh alice -c 'ls -A /tmp; cat /tmp/note') ||
	fail "alice's second session: status $?"
assert_eq "note
alice was here" "$out" "alice's second session"

note "root is excluded: the caller's namespace and the real /tmp"
out=$(pam_driver vm-session root -- sh -c 'readlink /proc/self/ns/mnt; cat /tmp/real-file')
assert_eq "$caller
real" "$out" "root's session"

note "the sessions left nothing mounted here"
assert_eq 1 "$(mounts_at /tmp)" "mounts on /tmp"
assert_eq "bob was here" "$(cat /tmp/tmp-inst/bob/note)" "bob's note in his instance"
echo "ok: session"
