#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# With / shared (as systemd makes it), a live session's mounts do not appear
# in the caller's mount namespace.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

mount --make-rshared /
assert_contains "$(findmnt -n -o PROPAGATION /)" shared "propagation of /"
sandbox_private_tmp root
before_tmp=$(sandbox_mounts_at /tmp)
before_vartmp=$(sandbox_mounts_at /var/tmp)
before_all=$(wc -l </proc/self/mountinfo)

# wait_for FILE: up to 20 s.
wait_for() {
	local i
	for ((i = 0; i < 400; i++)); do
		[[ -s "$1" ]] && return 0
		sleep 0.05
	done
	return 1
}

# check_live_session PID WHAT: PID is in the session's namespace, with its
# mounts, while ours has none of them.
check_live_session() {
	local pid=$1 what=$2
	assert_ne "$(sandbox_mnt_ns self)" "$(sandbox_mnt_ns "$pid")" "$what: its mount namespace"
	(($(sandbox_mounts_at /tmp "$pid") > before_tmp)) ||
		fail "$what: no mount on /tmp in the session: $(grep ' /tmp ' "/proc/$pid/mountinfo")"
	assert_eq "$before_tmp" "$(sandbox_mounts_at /tmp)" "$what: mounts on /tmp in the caller"
	assert_eq "$before_vartmp" "$(sandbox_mounts_at /var/tmp)" "$what: mounts on /var/tmp in the caller"
	assert_eq "$before_all" "$(wc -l </proc/self/mountinfo)" "$what: mount count in the caller"
	assert_eq "tmp-inst" "$(ls -A /tmp)" "$what: the caller's /tmp"
	assert_file /tmp/tmp-inst/alice/alice-live-file "$what: the file in alice's instance"
	assert_eq "alice-live-file" "$(ls -A "/proc/$pid/root/tmp")" "$what: /tmp seen in the session"
}

sb_note "a live su session"
# The session's shell writes its pid, then becomes the sleep.
sandbox_su alice "echo x >/tmp/alice-live-file; echo \$\$ >$SB_OUT/su-up; exec sleep 60" \
	>"$SB_OUT/su.log" &
su_job=$!
wait_for "$SB_OUT/su-up" || fail "the su session did not start: $(cat "$SB_OUT/su.log")"
session_pid=$(cat "$SB_OUT/su-up")
check_live_session "$session_pid" "su session"
rm /tmp/tmp-inst/alice/alice-live-file
kill "$session_pid"
wait "$su_job" || true

if [[ -x "$NS_DRIVER" ]]; then
	sb_note "a live driver session"
	sandbox_driver ns-driver alice -- \
		sh -c "echo x >/tmp/alice-live-file; echo \$\$ >$SB_OUT/drv-up; exec sleep 60" \
		>"$SB_OUT/drv.log" &
	drv_job=$!
	wait_for "$SB_OUT/drv-up" || fail "the driver session did not start: $(cat "$SB_OUT/drv.log")"
	session_pid=$(cat "$SB_OUT/drv-up")
	check_live_session "$session_pid" "driver session"
	kill "$session_pid"
	wait "$drv_job" || true
fi

sb_note "after the sessions"
sleep 0.2
assert_eq "$before_all" "$(wc -l </proc/self/mountinfo)" "mount count in the caller"
echo "ok: shared root"
