# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# shellcheck shell=bash
#
# Sessions held open in the background, for the share_namespace tests
# (tests/integration/test_share*.sh). Sourced after sandbox.sh's
# sandbox_enter, inside the sandbox:
#
#   hold NAME CLIENT USER CMD   open a session of USER that runs CMD, writes
#                               $sig/NAME.up and stays open until
#                               $sig/NAME.go exists; CLIENT is su, or the
#                               PAM service pam_driver opens
#   release NAME                let it close; fail unless its client ends 0
#   held_pid NAME               the pid of its command's shell (in the
#                               session's namespace; its parent is the client)
#   kill_held NAME              SIGKILL its PAM client, then its command:
#                               pam_close_session never runs
#   pins UID, records UID       how many namespaces of UID are pinned, how
#                               many session records it has
#   as_alice CMD...             CMD with alice's ids, no capability
#   now_ms                      milliseconds, monotonic enough for bounds
#                               of seconds

PIN=/run/pam_namespace
sig=$SB_OUT/sig
mkdir -p "$sig"
chmod 0777 "$sig"

hold() {
	local name=$1 client=$2 user=$3
	# The command's shell writes its own pid first, for held_pid.
	local body="echo \$\$ >$sig/$name.pid; $4; : >$sig/$name.up; while [ ! -e $sig/$name.go ]; do sleep 0.05; done"
	rm -f "$sig/$name".*
	if [[ $client == su ]]; then
		sandbox_su "$user" "$body" >"$SB_OUT/$name.out" 2>&1 &
	else
		sandbox_driver "$client" "$user" -- /bin/sh -c "$body" >"$SB_OUT/$name.out" 2>&1 &
	fi
	printf -v "pid_$name" '%s' "$!"
	sandbox_wait_for "$sig/$name.up"
}

release() {
	local var="pid_$1"
	: >"$sig/$1.go"
	wait "${!var}" || fail "session $1 ended with status $?: $(cat "$SB_OUT/$1.out")"
}

# The command's shell, by the pid it wrote. Not by a search of command
# lines (pgrep -n -f NAME.go): its loop forks a child for each sleep, which
# until it execs has the shell's command line and is the newest. Taken for
# the command, it made the shell the "client" kill_held killed, and the real
# client then closed the session as usual (a valgrind run, once).
held_pid() {
	local pid=""
	[[ -s "$sig/$1.pid" ]] && pid=$(<"$sig/$1.pid")
	[[ -n "$pid" ]] || fail "no command of session $1"
	echo "$pid"
}

kill_held() {
	local var="pid_$1" body client
	body=$(held_pid "$1")
	# The PAM client is the command's parent (valgrind's process under
	# meson's --setup valgrind).
	client=$(ps -o ppid= -p "$body" | tr -d ' ')
	[[ -n "$client" ]] || fail "session $1's command $body is not running"
	kill -KILL "$client" || fail "cannot kill session $1's client $client"
	kill -KILL "$body" 2>/dev/null || true
	wait "${!var}" 2>/dev/null || true
	# Under --setup valgrind the log of a client killed on purpose ends
	# without a summary: it goes (its name ends in the pid).
	if [[ -n "${NS_DRIVER_VALGRIND:-}" ]]; then
		rm -f "$NS_DRIVER_VALGRIND"/vg.*."$client"
	fi
}

pins() {
	find "$PIN/$1" -maxdepth 1 -name '*.ns' 2>/dev/null | wc -l
}

records() {
	find "$PIN/$1" -maxdepth 1 -name '*@*' 2>/dev/null | wc -l
}

as_alice() {
	setpriv --reuid=alice --regid=alice --init-groups -- "$@"
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}
