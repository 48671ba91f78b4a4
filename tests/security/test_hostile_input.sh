#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Hostile or broken input: huge, NUL-laden and non-UTF-8 configurations,
# FIFOs where files or directories belong, user names that are paths,
# configuration and init scripts a user can write. Each must end quickly in
# a clean refusal (or a working session), never a crash or a hang.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
conf=/etc/security/namespace.conf
SB_TIMEOUT=20

# session_status WHAT: run a session for alice; print its exit status.
session_status() {
	local rc=0
	sandbox_driver ns-driver alice -- true >/dev/null 2>&1 || rc=$?
	[[ $rc -lt 124 ]] || fail "$1: the session crashed or hung (status $rc)"
	echo "$rc"
}
refused() {
	local what=$1 rc
	sandbox_log_clear
	rc=$(session_status "$what")
	assert_status 67 "$rc" "$what: pam_open_session must fail"
	[[ -z "${2:-}" ]] || assert_log_contains "$2" "$what"
}
sandbox_inst_parent /tmp/tmp-inst

sb_note "20,000 lines, 10,001 of them entries"
awk 'BEGIN { for (i = 0; i < 20000; i++) print (i % 2 ? "# comment " i : "/srv/p" i " /tmp/tmp-inst/ user root") ; print "/tmp /tmp/tmp-inst/ user root" }' >$conf
refused "20,000-line configuration" "more than 10000 entries"

sb_note "20,000 lines within the limits"
awk 'BEGIN { for (i = 0; i < 20000; i++) print "# comment " i; print "/tmp /tmp/tmp-inst/ user root" }' >$conf
assert_status 0 "$(session_status "20,000 comment lines")" "20,000 comment lines"

sb_note "a 1 MB line"
head -c 1048576 /dev/zero | tr '\0' a >$conf
refused "1 MB line" "namespace.conf:1: line longer than"

sb_note "a NUL byte"
printf '/tmp /tmp/tmp-inst/ user root\n/var/tmp\0 /x/ user\n' >$conf
refused "NUL byte" "namespace.conf:2: NUL byte"

sb_note "invalid UTF-8"
printf '/tmp/\xff\xfe /tmp/tmp-inst/\xc3 user root\n' >$conf
refused "invalid UTF-8 (the polydir does not exist)" "opening polydir"
install -d -m 1777 "$(printf '/tmp/\xff\xfe')"
assert_status 0 "$(session_status "invalid UTF-8, existing polydir")" "invalid UTF-8, existing polydir"

sb_note "a FIFO as namespace.conf"
rm -f $conf
mkfifo -m 0644 $conf
refused "FIFO configuration" "not a regular file"
rm -f $conf

sb_note "a FIFO as polydir, instance parent and namespace.init"
mkfifo /tmp/fifo-poly
install -d -o alice -m 0755 /home/alice/p
setpriv --reuid=2001 --regid=2001 --clear-groups mkfifo /home/alice/p/fifo
sandbox_conf "/tmp/fifo-poly /tmp/tmp-inst/ user root"
refused "FIFO polydir"
sandbox_conf "/tmp /home/alice/p/fifo/ user root"
refused "FIFO instance parent"
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
mkfifo -m 0755 /etc/security/namespace.init
refused "FIFO init script" "refusing the init script"
rm -f /etc/security/namespace.init

sb_note "user names that are paths"
# The instance parent lies two levels down in /tmp's tmpfs, so that a
# module fooled by ../../evil makes its directory there, where the test
# sees it and it ends with the sandbox, not at the host's /.
install -d -m 0755 /tmp/deep /tmp/deep/er
sandbox_inst_parent /tmp/deep/er/tmp-inst
sandbox_conf "/tmp /tmp/deep/er/tmp-inst/ user root"
printf '../../evil:x:2100:2100::/home/evil:/bin/sh\nev/il:x:2101:2101::/home/evil:/bin/sh\n' >>/etc/passwd
for u in ../../evil ev/il; do
	rc=0
	sandbox_driver ns-driver "$u" -- true >/dev/null 2>&1 || rc=$?
	assert_status 67 "$rc" "user $u"
done
assert_eq "" "$(ls -A /tmp/deep/er/tmp-inst)" "instances made for path-like names"
assert_eq "er" "$(ls -A /tmp/deep)" "a directory named by the user"

sb_note "a configuration file alice can write"
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
chown alice $conf
refused "namespace.conf owned by alice" "owned by uid 2001"
chown root $conf
chmod 0646 $conf
refused "world-writable namespace.conf" "refusing"
chmod 0644 $conf
sandbox_conf_d 10-x.conf "/var/tmp /tmp/tmp-inst/ user root"
chmod 0777 /etc/security/namespace.d
refused "world-writable namespace.d" "refusing: directory"
chmod 0755 /etc/security/namespace.d
rm -f /etc/security/namespace.d/10-x.conf

sb_note "an init script alice can write"
# The script would run in the session's namespace, where /tmp is alice's
# instance: it leaves its mark in \$SB_OUT, which every namespace sees.
printf '#!/bin/sh\ntouch %s/init-ran\n' "$SB_OUT" >/etc/security/namespace.init
chmod 0755 /etc/security/namespace.init
chown alice /etc/security/namespace.init
refused "init script owned by alice" "refusing the init script"
chown root /etc/security/namespace.init
chmod 0777 /etc/security/namespace.init
refused "world-writable init script" "refusing the init script"
assert_no_file "$SB_OUT/init-ran" "the refused script ran"

sb_note "a root-owned init script in a directory alice can write, or reached by her symlink"
chmod 0755 /etc/security/namespace.init
install -d -o alice -g alice -m 0755 /home/alice/scripts
install -m 0755 /etc/security/namespace.init /home/alice/scripts/ns.init
sandbox_conf "/tmp /tmp/tmp-inst/ user:iscript=/home/alice/scripts/ns.init root"
refused "init script in alice's directory" "refusing the init script"
setpriv --reuid=2001 --regid=2001 --clear-groups ln -s /etc/security/namespace.init /var/tmp/alice-init
sandbox_conf "/tmp /tmp/tmp-inst/ user:iscript=/var/tmp/alice-init root"
refused "init script through alice's symlink in /var/tmp" "refusing the init script"
assert_no_file "$SB_OUT/init-ran" "a refused script ran"

sb_note "legitimate: a root-owned symlink to a root-owned init script"
mv /etc/security/namespace.init /etc/security/namespace.init.real
ln -s namespace.init.real /etc/security/namespace.init
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
assert_status 0 "$(session_status "init script behind root's symlink")" "init script behind root's symlink"
assert_file "$SB_OUT/init-ran" "the init script behind root's symlink ran"
sb_note "ok"
