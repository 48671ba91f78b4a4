#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The caller chooses its environment and descriptors; the init script, run
# as root, must get none of them (CVE-2010-3853): an empty environment and
# only descriptors 0, 1 and 2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

sandbox_inst_parent /tmp/tmp-inst
sandbox_conf "/tmp /tmp/tmp-inst/ user root"
cat >/etc/security/namespace.init <<SCRIPT
#!/bin/sh
/usr/bin/env >$SB_OUT/init.env
/bin/ls /proc/self/fd >$SB_OUT/init.fds
SCRIPT
chmod 0755 /etc/security/namespace.init
cat >"$SB_OUT/evil.sh" <<SCRIPT
#!/bin/sh
touch $SB_OUT/evil-ran
SCRIPT
chmod 0755 "$SB_OUT/evil.sh"

exec 7</etc/hostname 8>"$SB_OUT/leak"
out=$(env LD_PRELOAD=/nonexistent/evil.so BASH_ENV="$SB_OUT/evil.sh" ENV="$SB_OUT/evil.sh" \
	IFS=/ PATH="$SB_OUT:$PATH" SHELLOPTS=xtrace \
	"$NS_DRIVER" ns-driver alice -- true 2>&1) || fail "session: $out"
exec 7<&- 8>&-

assert_file "$SB_OUT/init.env" "the init script ran"
# The shell may add PWD and SHLVL of its own; nothing may come from the caller.
left=$(grep -Ev '^(PWD|SHLVL|OLDPWD|_)=' "$SB_OUT/init.env" || true)
assert_eq "" "$left" "environment the init script got"
# ls itself holds one descriptor on /proc/self/fd while it reads it.
assert_eq "0 1 2 3" "$(sort -n "$SB_OUT/init.fds" | tr '\n' ' ' | sed 's/ $//')" "descriptors of the init script"
assert_no_file "$SB_OUT/evil-ran" "BASH_ENV/ENV were honoured"

sb_note "an init script that does not end is killed after init_timeout"
printf '#!/bin/sh\necho $$ >%s/init.pid\nexec sleep 60\n' "$SB_OUT" >/etc/security/namespace.init
sandbox_pam_args init_timeout=1
sandbox_log_clear
start=$(date +%s%N)
rc=0
sandbox_driver ns-driver alice -- true >/dev/null 2>&1 || rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
assert_status 67 "$rc" "a session whose init script hangs"
((elapsed_ms < 10000)) || fail "the hanging init script held the login for $elapsed_ms ms"
assert_log_contains "still running after 1 s, killed" "the hanging init script"
assert_file "$SB_OUT/init.pid" "the hanging init script ran"
! kill -0 "$(cat "$SB_OUT/init.pid")" 2>/dev/null || fail "the init script's process is still running"
sandbox_pam_args
sb_note "ok"
