# shellcheck shell=sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Helpers for the guest's steps (busybox sh): a step sources this file,
# checks what a user would see, and exits 0, 1 (fail) or 77 (skip).

# The module under test (vm.sh's VM_MODULE).
# shellcheck disable=SC2034 # for the steps
MODULE=/usr/lib/x86_64-linux-gnu/security/pam_namespace_ng.so

note() {
	echo "# $*"
}

fail() {
	echo "FAIL: $*"
	echo "# the module's log lines:"
	grep -i namespace /var/log/messages 2>/dev/null | tail -n 20 | sed 's/^/#   /'
	echo "# the kernel's last words on crashes and denials:"
	dmesg | grep -E 'segfault|trap|avc: *denied' | tail -n 15 | sed 's/^/#   /'
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected [$1], got [$2]"
}

# assert_ne UNEXPECTED ACTUAL WHAT
assert_ne() {
	[ "$1" != "$2" ] || fail "$3: both are [$1]"
}

assert_file() {
	[ -e "$1" ] || fail "$2: $1 does not exist"
}

assert_no_file() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		fail "$2: $1 exists"
	fi
}

# mounts_at PATH: how many mounts sit on PATH in this namespace.
mounts_at() {
	awk -v p="$1" '$5 == p { n++ } END { print n + 0 }' /proc/self/mountinfo
}
