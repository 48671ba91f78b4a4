#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# A plain session's own system calls, counted (issue 34): /tmp and /var/tmp,
# user:noinit, the user looked up by the client first (as login programs
# do). The module's count is the session's (open and close, between
# pam_driver's markers) minus a pam_permit service's in the same sandbox,
# which is libpam's own (its audit messages). It must stay at most
# NS_MAX_SYSCALLS (tests/README.md says what they are), so that a change
# that adds one is seen. Linux-PAM's count is printed beside it. Where
# NS_BENCH is set (tests/bench/meson.build declares this test), the
# benchmark's replay of these calls (rules.c) must make the same ones.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
[[ -x "$NS_DRIVER" ]] || skip "no PAM driver at $NS_DRIVER"
command -v strace >/dev/null || skip "strace is not installed"

max=${NS_MAX_SYSCALLS:-67}
# An instrumented build's calls are the sanitizer runtime's as much as the
# module's (tests/run's sanitizer phase): the count is this build's, plain.
! grep -qaE '__(asan|ubsan)_' "$NS_MODULE" ||
	skip "built with the sanitizers: their runtime's calls are not the module's"

# ns-permit, ns-limits, ns-limits-permit and ns-linux-pam beside ns-driver.
sandbox_plain_services
lp=$SB_LPAM_MODULE

# calls SERVICE: the system calls of a session's open and close, one a
# line, the markers' own access() calls and strace's notes left out.
calls() {
	local trace=$SB_DIR/trace
	# Never under valgrind (tests/run's valgrind phase): its calls would be counted.
	env -u NS_DRIVER_VALGRIND strace -f -qq -o "$trace" "$NS_DRIVER" --markers --lookup "$1" alice \
		>/dev/null 2>&1 ||
		fail "$1: the session failed: $(tail -n 5 "$trace")"
	marked "$trace"
}

# marked TRACE: the calls of an strace output between pam_driver's markers
# (ns_bench --rules-once makes the same), the markers' own access() calls
# and strace's notes left out.
marked() {
	awk '/"\/ns-fault-mark\/(open|close)"/ { on = 1; next }
	     /"\/ns-fault-mark\/(opened|closed)"/ { on = 0; next }
	     on && !/^[0-9]+ +(\+\+\+|---)/' "$1"
}

count() {
	calls "$1" | wc -l
}

# Every count taken twice after a first session, which makes the instances.
sandbox_driver ns-driver alice >/dev/null || fail "alice's first session"
permit=$(count ns-permit)
ours=$(count ns-driver)
again=$(count ns-driver)
[[ $again == "$ours" ]] || sb_note "two sessions' counts differ: $ours and $again"
own=$((ours - permit))
line="ours $own (session $ours, libpam alone $permit)"
if [[ -n "$lp" ]]; then
	theirs=$(count ns-linux-pam)
	line+=", Linux-PAM's $((theirs - permit))"
fi
sb_note "a plain session's own system calls: $line; at most $max"
if ((own > max)); then
	sb_note "the session's calls:"
	calls ns-driver | cut -c1-120 >&2
	fail "a plain session makes $own system calls of its own, more than $max"
fi
((own > 0)) || fail "no system call of the module's counted ($line): is the trace right?"
# The benchmark's "rules' calls" (tests/bench/rules.c) are this module's
# calls made with nothing between them: the same calls in the same order,
# or the least the benchmark reports from them is not this module's.
if [[ -n "${NS_BENCH:-}" ]]; then
	names() { sed -E 's/^[0-9]+ +//; s/\(.*//'; }
	mine=$(calls ns-driver | sed '/^[0-9]* *socket(AF_NETLINK/,$d' | names)
	env -u NS_DRIVER_VALGRIND strace -f -qq -o "$SB_DIR/trace" "$NS_BENCH" --rules-once \
		>/dev/null 2>&1 || fail "ns_bench --rules-once failed: $(tail -n 5 "$SB_DIR/trace")"
	replayed=$(marked "$SB_DIR/trace" | names)
	if [[ "$mine" != "$replayed" ]]; then
		diff <(echo "$mine") <(echo "$replayed") >&2 || true
		fail "tests/bench/rules.c no longer makes this module's calls (above: < the module's, > rules.c's)"
	fi
	sb_note "tests/bench/rules.c makes the module's $(wc -l <<<"$mine") calls, in order"
fi
# The lookup through NSS that pam_limits' entry saves: six calls with
# glibc's files backend (nsswitch.conf's stat, open, fstat, lseek, read,
# close); at least five, whatever the backend's details.
after=$(($(count ns-limits) - $(count ns-limits-permit)))
sb_note "after pam_limits: ours $after"
((after <= own - 5)) ||
	fail "after pam_limits the module makes $after system calls of its own, alone $own: the user's entry that pam_limits looked up was not taken"
echo "PASS: $line; after pam_limits $after"
