#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Where a plain session's time goes, system call by system call: the
# kernel's own trace of them (ftrace, raw_syscalls), no strace in between.
# By hand, as root, never in a test run:
#
#   bash tests/bench/trace.sh [--sessions N] [--mounts M]
#
# In a sandbox (tests/lib/sandbox.sh): /tmp and /var/tmp, user:noinit, as
# test_syscalls.sh has them; N sessions (default 200) of each service,
# interleaved: the module alone, pam_permit alone, each after pam_limits,
# and Linux-PAM's module; M extra mounts in the caller's namespace (default
# none). Prints, per service, every call of the open and the close with the
# median of its time in the kernel and of the user-space time before it,
# then each service's own calls and the sums of those medians, less the
# same service without the module (tests/bench/trace_calls.py). Tracing is
# the kernel's, not the sandbox's: its settings are read first and put back
# on exit, and nothing else should trace meanwhile.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
[[ -x "$NS_DRIVER" ]] || skip "no PAM driver at $NS_DRIVER"
sessions=200 mounts=0
while (($#)); do
	case $1 in
	--sessions) sessions=$2 ;;
	--mounts) mounts=$2 ;;
	*) fail "usage: trace.sh [--sessions N] [--mounts M]" ;;
	esac
	shift 2
done
mhz=$(awk -F': ' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
[[ -n "$mhz" ]] || skip "no TSC frequency in /proc/cpuinfo"

sandbox_plain_services
services=(ns-driver ns-permit ns-limits ns-limits-permit)
[[ -z "$SB_LPAM_MODULE" ]] || services+=(ns-linux-pam)
sandbox_driver ns-driver alice >/dev/null || fail "alice's first session"
if ((mounts > 0)); then
	mkdir -p /run/ns-trace-mounts
	mount -t tmpfs ns-trace /run/ns-trace-mounts
	for ((i = 0; i < mounts; i++)); do
		mkdir "/run/ns-trace-mounts/$i"
		mount -t tmpfs -o size=16k ns-trace-m "/run/ns-trace-mounts/$i"
	done
fi

# The kernel's tracing, seen through a tracefs of this sandbox's own.
t=/sys/kernel/tracing
mount -t tracefs nodev "$t"
ev=$t/events/raw_syscalls
saved=("$(cat "$t/tracing_on")" "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$t/trace_clock")"
	"$(cat "$t/buffer_size_kb")" "$(cat "$ev/enable")")
restore() {
	set +e
	echo 0 >"$t/tracing_on"
	echo "${saved[3]}" >"$ev/enable"
	echo 0 >"$ev/sys_enter/filter"
	echo 0 >"$ev/sys_exit/filter"
	echo "${saved[2]}" >"$t/buffer_size_kb"
	echo "${saved[1]}" >"$t/trace_clock"
	echo >"$t/trace"
	echo "${saved[0]}" >"$t/tracing_on"
	set -e
}
trap restore EXIT
echo 0 >"$t/tracing_on"
echo x86-tsc >"$t/trace_clock" || skip "no x86-tsc trace clock"
echo $((sessions * ${#services[@]} * 60 + 4096)) >"$t/buffer_size_kb"
echo >"$t/trace"
echo 'comm == "pam_driver"' >"$ev/sys_enter/filter"
echo 'comm == "pam_driver"' >"$ev/sys_exit/filter"
echo 1 >"$ev/enable"
echo 1 >"$t/tracing_on"
for ((i = 0; i < sessions; i++)); do
	for s in "${services[@]}"; do
		"$NS_DRIVER" --markers --lookup "$s" alice >/dev/null 2>&1 || fail "$s: the session failed"
	done
done
echo 0 >"$t/tracing_on"
cat "$t/trace" >"$SB_DIR/trace"
restore
trap - EXIT
python3 "$here/trace_calls.py" "$SB_DIR/trace" "$mhz" "${services[@]}"
