#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Symlinks a user plants on the module's path are never followed below a
# directory the user controls; a root-owned symlink above is legitimate.
# tmpdir removal at close does not follow links either.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
# The victims live on a tmpfs of the sandbox, never on the host's /srv.
mount -t tmpfs -o mode=0755 ns-victims /srv

install -d -m 0755 /srv /srv/victim
install -d -m 0000 /srv/victim000
echo precious >/srv/victim/file
state() { stat -c '%u %g %a' "$1"; ls -lAn --time-style=+ "$1"; }
victim=$(state /srv/victim)
victim000=$(state /srv/victim000)
as_alice() { setpriv --reuid=2001 --regid=2001 --clear-groups "$@"; }

expect_refused() {
	local what=$1 rc=0 out
	sandbox_log_clear
	out=$(sandbox_driver ns-driver alice -- \
		awk '$5 ~ "^/srv/victim" { print "MOUNTED " $5 }' /proc/self/mountinfo) || rc=$?
	assert_status 67 "$rc" "$what: pam_open_session must fail"
	assert_not_contains "$out" MOUNTED "$what"
	assert_eq "$victim" "$(state /srv/victim)" "$what: /srv/victim"
	assert_eq "$victim000" "$(state /srv/victim000)" "$what: /srv/victim000"
	assert_eq 0 "$(sandbox_mounts_at /srv/victim)" "$what: mounts on /srv/victim"
}

sb_note "a polydir that is alice's symlink to a root directory"
as_alice ln -s /srv/victim /home/alice/poly
sandbox_conf "/home/alice/poly /tmp/tmp-inst/ user:noinit root"
sandbox_inst_parent /tmp/tmp-inst
expect_refused "symlinked polydir"
assert_log_contains "polydir is a symbolic link" "symlinked polydir"

sb_note "a symlink in the middle of the polydir path"
as_alice ln -s /srv /home/alice/mid
sandbox_conf "/home/alice/mid/victim /tmp/tmp-inst/ user:noinit root"
expect_refused "symlink in the path"

sb_note "an instance parent that is alice's symlink to a root-owned mode 000 directory"
as_alice ln -s /srv/victim000 /home/alice/inst
sandbox_conf "/tmp /home/alice/inst/ user:noinit root"
expect_refused "symlinked instance parent"
assert_no_file /srv/victim000/alice "an instance in the victim"

sb_note "a polydir below a directory of alice's she may not search: the module reaches only what she can"
# The walk below a directory alice owns runs with her filesystem identity
# (and without root's capabilities): her own mode 0000 directory stops it
# as it would stop her, with openat2 and with the O_NOFOLLOW walk that
# kernels without openat2 (and valgrind) get. As root it would go through.
install -d -o alice -g alice -m 0755 /home/alice/locked
install -d -m 0755 /home/alice/locked/x /home/alice/locked/x/poly
chmod 0000 /home/alice/locked
locked=$(stat -c %d:%i /home/alice/locked/x/poly)
sandbox_conf "/home/alice/locked/x/poly /tmp/tmp-inst/ user:noinit root"
rc=0
out=$(sandbox_driver ns-driver alice -- stat -c %d:%i /home/alice/locked/x/poly) || rc=$?
assert_status 67 "$rc" "polydir alice cannot reach: pam_open_session must fail"
assert_not_contains "$out" "$(stat -c %d:%i /tmp/tmp-inst/alice 2>/dev/null || echo no-instance)" \
	"polydir alice cannot reach: an instance on it"
assert_eq "$locked" "$(stat -c %d:%i /home/alice/locked/x/poly)" "polydir alice cannot reach"
assert_no_file /tmp/tmp-inst/alice "an instance made for a polydir alice cannot reach"

sb_note "an instance that is a symlink, in alice's own parent"
as_alice mkdir /home/alice/parent
as_alice ln -s /srv/victim /home/alice/parent/alice
sandbox_pam_args ignore_instance_parent_mode
sandbox_conf "/tmp /home/alice/parent/ user:noinit root"
expect_refused "symlinked instance"
assert_log_contains "instance is a symbolic link" "symlinked instance"
sandbox_pam_args

sb_note "a polydir that is a file"
as_alice touch /home/alice/afile
sandbox_conf "/home/alice/afile /tmp/tmp-inst/ user:noinit root"
expect_refused "polydir is a file"

sb_note "tmpdir removal at close does not follow links"
sandbox_conf "/tmp /tmp/tmp-inst/ tmpdir:noinit root"
out=$(sandbox_driver ns-driver alice -- setpriv --reuid=2001 --regid=2001 --clear-groups sh -c '
	ln -s /srv/victim /tmp/link-to-victim
	ln -s /srv/victim/file /tmp/link-to-file
	mkdir /tmp/sub && ln -s /srv/victim /tmp/sub/deeper
	echo mine >/tmp/own-file
	ls -A /tmp | wc -l') || fail "tmpdir session: $out"
assert_eq 4 "$out" "alice's tmpdir entries"
assert_eq "" "$(ls -A /tmp/tmp-inst)" "tmpdir instances left after close"
assert_eq "$victim" "$(state /srv/victim)" "tmpdir removal: /srv/victim"
assert_eq precious "$(cat /srv/victim/file)" "tmpdir removal: the victim's file"

sb_note "legitimate: a root-owned symlink on the way to \$HOME"
install -d -m 0755 /srv/real-users
install -d -o carol -g carol -m 0700 /srv/real-users/carol
ln -s /srv/real-users /srv/users
awk -F: -v OFS=: '$1 == "carol" { $6 = "/srv/users/carol" } 1' /etc/passwd >"$SB_OUT/passwd"
cat "$SB_OUT/passwd" >/etc/passwd
install -d -m 000 /srv/home-inst
sandbox_conf '$HOME /srv/home-inst/ user:noinit root'
out=$(sandbox_driver ns-driver carol -- sh -c 'touch /srv/users/carol/in-session; awk '"'"'$5 == "/srv/real-users/carol" { print "mounted" }'"'"' /proc/self/mountinfo') ||
	fail "carol's session: $out"
assert_eq mounted "$out" "carol's home instance is mounted"
assert_file /srv/home-inst/carol/in-session "carol's file, in her instance"
assert_eq carol "$(stat -c %U /srv/home-inst/carol)" "the instance's owner"

sb_note "legitimate: an existing instance is reused as it is"
sandbox_conf "/tmp /tmp/tmp-inst/ user:noinit root"
install -d -m 1777 /tmp/tmp-inst/alice
echo kept >/tmp/tmp-inst/alice/from-before
inode=$(stat -c %i /tmp/tmp-inst/alice)
out=$(sandbox_driver ns-driver alice -- sh -c 'cat /tmp/from-before; touch /tmp/now') ||
	fail "alice's session on an existing instance: $out"
assert_eq kept "$out" "what alice finds in /tmp"
assert_eq "$inode" "$(stat -c %i /tmp/tmp-inst/alice)" "the instance (same directory)"
assert_file /tmp/tmp-inst/alice/now "alice's new file, in the existing instance"
sb_note "ok"
