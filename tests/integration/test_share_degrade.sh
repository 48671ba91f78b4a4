#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# share_namespace's own troubles never refuse a login, and a crash leaves
# nothing that degrades a later one (issue 31, points 8, 9 and 12):
# - threaded: a PAM client with a second thread (as gdm's GLib session
#   worker has) joins alice's held session: same namespace, same /tmp
#   (setns() refuses a thread whose fs_struct other threads share);
# - record: with /run/pam_namespace full, a session that cannot write its
#   record builds a namespace of its own, with one log line, as a build
#   that cannot pin does, instead of being refused;
# - crash: with /run shared (as systemd makes it), a first session killed
#   at each mount(2) call (strace) while /run/pam_namespace becomes a
#   private mount: the next sessions of alice and of bob pin and share,
#   and the directory's mount is private.
# - pinreturn: a build whose way back into its namespace after pinning
#   fails (strace) is built again unshared, with one log line.
# - joinfail: a join whose setns() fails (strace) builds its own.
# NS_DEGRADE_CASES names the cases to run (default: all).
# shellcheck disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
# One CPU, as test_share.sh says why (namespace ids and pin binds).
if [[ -z "${SB_INSIDE:-}" && -z "${NS_SHARE_PINNED_CPU:-}" ]] && command -v taskset >/dev/null; then
	export NS_SHARE_PINNED_CPU=1
	exec taskset -c 0 bash "$0" "$@"
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

module_is_linux_pam && skip "share_namespace is this module's; Linux-PAM's has none"
alice=2001
bob=2002

sandbox_pam_args share_namespace debug
sandbox_conf '/tmp tmpfs tmpfs root'
# shellcheck source=../lib/held.sh
. "$here/../lib/held.sh"

# No pin left, and /run/pam_namespace gone with every mount on it.
pin_dir_reset() {
	local i
	for ((i = 0; i < 8; i++)); do
		mountpoint -q "$PIN" || break
		umount -l "$PIN"
	done
	rm -rf "$PIN"
}

# can_strace CASE: whether strace may drive the client here, saying so if
# not: LeakSanitizer cannot run in a traced process (leaks are not looked
# for from here on), and valgrind's run would trace valgrind (test_share.sh).
can_strace() {
	if ! command -v strace >/dev/null || [[ -n "${NS_DRIVER_VALGRIND:-}" ]]; then
		sb_note "no strace (or valgrind's run): $1 is not run"
		return 1
	fi
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
}

# strace_driver INJECT ARGS...: the PAM driver with strace's -e inject=INJECT.
strace_driver() {
	local inject=$1
	shift
	timeout -k 5 "$SB_TIMEOUT" strace -f -qq -o /dev/null -e trace="${inject%%:*}" \
		-e inject="$inject" "$NS_DRIVER" "$@" 2>&1
}

# opens_anyway WHAT INJECT CMD: alice's driver session under strace's
# -e inject=INJECT opens (status 0) and runs CMD; what it printed in $out.
opens_anyway() {
	local rc=0
	sandbox_log_clear
	out=$(strace_driver "$2" ns-driver alice -- /bin/sh -c "$3; echo works") || rc=$?
	assert_eq 0 "$rc" "$1: alice's session: $out"
	assert_contains "$out" works "$1: alice's session"
}

# The propagation of the mount on /run/pam_namespace ("" if none).
pin_dir_propagation() {
	findmnt -n -o PROPAGATION --mountpoint "$PIN" || true
}

case_threaded() {
	sb_note "threaded: a client with a second thread, as gdm's worker, joins alice's session"
	hold a1 su alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/a1.ns; echo a1 >/tmp/from-a1'
	assert_eq 1 "$(pins "$alice")" "a pin for alice's held session"
	sandbox_log_clear
	rc=0
	out=$(sandbox_driver --threaded ns-driver alice -- /bin/sh -c 'readlink /proc/self/ns/mnt; cat /tmp/from-a1') || rc=$?
	assert_eq 0 "$rc" "the threaded client's session: $out"
	assert_eq "$(cat "$SB_OUT/a1.ns")"$'\n'a1 "$out" "the threaded client's namespace and /tmp are the held session's"
	assert_log_contains "share_namespace: joined $PIN/$alice/" "the threaded client's join"
	out=$(sandbox_driver ns-driver alice -- readlink /proc/self/ns/mnt)
	assert_eq "$(cat "$SB_OUT/a1.ns")" "$out" "a single-threaded client's session, the same"
	release a1
	assert_eq 0 "$(pins "$alice")" "no pin after the last close"
	# the first session from a threaded client builds and pins (unshare
	# gives the thread its own fs_struct, and the way back after pinning is
	# a setns() too)
	sandbox_log_clear
	out=$(sandbox_driver --threaded ns-driver alice -- /bin/sh -c "find $PIN/$alice -name '*.ns' | wc -l")
	assert_eq 1 "$out" "a pin while the threaded client's first session is open"
	assert_log_contains "share_namespace: pinned $PIN/$alice/" "the threaded client's build"
}

case_record() {
	sb_note "record: a join that cannot write its record ($PIN full) builds its own namespace"
	pin_dir_reset
	install -d -m 0700 "$PIN"
	# a tiny file system of its own, private as the module would make it
	mount -t tmpfs -o mode=0700,nr_inodes=16 ns-pin-full "$PIN"
	mount --make-private "$PIN"
	hold f1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/f1.ns; echo f1 >/tmp/from-f1'
	assert_eq 1 "$(pins "$alice")" "a pin for alice's held session on the small $PIN"
	i=0
	while { : >"$PIN/fill.$i"; } 2>/dev/null; do
		i=$((i + 1))
		((i < 64)) || fail "$PIN did not fill up"
	done
	sandbox_log_clear
	rc=0
	out=$(sandbox_driver ns-driver alice -- /bin/sh -c 'readlink /proc/self/ns/mnt; ls /tmp; echo works') || rc=$?
	assert_eq 0 "$rc" "alice's session with $PIN full: $out"
	assert_contains "$out" works "alice's session with $PIN full"
	assert_ne "$(cat "$SB_OUT/f1.ns")" "$(head -1 <<<"$out")" "a namespace of its own"
	assert_not_contains "$out" from-f1 "a /tmp of its own"
	assert_log_contains "recording this session for $PIN/$alice/" "the reason logged"
	assert_log_contains "No space left on device: this session gets a namespace of its own" "the reason logged"
	assert_eq 1 "$(sandbox_log | grep -c 'gets a namespace of its own')" "one log line"
	assert_eq 1 "$(records "$alice")" "only the held session's record"
	rm -f "$PIN"/fill.*
	out=$(sandbox_driver ns-driver alice -- readlink /proc/self/ns/mnt)
	assert_eq "$(cat "$SB_OUT/f1.ns")" "$out" "with room again, a session joins"
	release f1
	assert_eq 0 "$(pins "$alice")" "no pin after the last close"
	pin_dir_reset
}

case_crash() {
	can_strace crash || return 0
	mount --make-shared /run
	assert_contains "$(findmnt -n -o PROPAGATION --mountpoint /run)" shared "propagation of /run"
	# The first session's mount(2) calls: the bind of the directory onto
	# itself, making it private, and none after (or one of the session's).
	for n in 1 2 3; do
		sb_note "crash: the first session killed at its mount(2) call $n; later sessions of alice and bob share"
		pin_dir_reset
		# as conf/pam_namespace.tmpfiles makes it at boot
		install -d -m 0700 "$PIN"
		rc=0
		# (in a subshell: the shell's "Killed" notice goes with its output)
		(strace_driver mount:error=EINTR:signal=KILL:when="$n" ns-driver alice -- true) \
			>/dev/null 2>&1 || rc=$?
		sb_note "  the killed session: status $rc, $PIN: [$(pin_dir_propagation)]"
		sandbox_log_clear
		hold c1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/c1.ns; echo c1 >/tmp/from-c1'
		hold c2 ns-driver bob 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/c2.ns'
		assert_eq 1 "$(pins "$alice")" "kill at mount $n: alice's session pins"
		assert_eq 1 "$(pins "$bob")" "kill at mount $n: bob's session pins"
		assert_eq private "$(pin_dir_propagation)" "kill at mount $n: the mount on $PIN"
		out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; cat /tmp/from-c1')
		assert_eq "$(cat "$SB_OUT/c1.ns")"$'\n'c1 "$out" "kill at mount $n: alice's next session joins"
		out=$(sandbox_driver ns-driver bob -- readlink /proc/self/ns/mnt)
		assert_eq "$(cat "$SB_OUT/c2.ns")" "$out" "kill at mount $n: bob's next session joins"
		assert_not_contains "$(sandbox_log)" "not shared" "kill at mount $n: the log"
		release c1
		release c2
		assert_eq "0 0" "$(pins "$alice") $(pins "$bob")" "kill at mount $n: no pin after the last closes"
	done
}

# A build's trip out to pin and back into the namespace built: its second
# setns() (back in) fails; the attempt is rolled back and built again,
# unshared, instead of refusing the login.
case_pinreturn() {
	can_strace pinreturn || return 0
	sb_note "pinreturn: a build that cannot return into its namespace after pinning goes unshared"
	opens_anyway pinreturn setns:error=ENOMEM:when=2 'echo mine >/tmp/pinreturn'
	assert_no_file /tmp/pinreturn "the session's /tmp is its own, not the caller's"
	assert_log_contains "entering the new namespace again: Cannot allocate memory: this session gets a namespace of its own"
	assert_eq "0 0" "$(pins "$alice") $(records "$alice")" "no pin or record of the attempt"
	out=$(sandbox_driver ns-driver alice -- readlink /proc/self/ns/mnt)
	assert_contains "$(sandbox_log)" "share_namespace: pinned $PIN/$alice/" "the next session pins"
}

# A join whose setns() fails (a policy, the kernel: strace says EPERM).
case_joinfail() {
	can_strace joinfail || return 0
	sb_note "joinfail: a join whose setns() fails builds its own namespace"
	hold j1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/j1.ns; echo j1 >/tmp/from-j1'
	opens_anyway joinfail setns:error=EPERM:when=1 'readlink /proc/self/ns/mnt; ls /tmp'
	assert_ne "$(cat "$SB_OUT/j1.ns")" "$(head -1 <<<"$out")" "a namespace of its own"
	assert_not_contains "$out" from-j1 "a /tmp of its own"
	assert_log_contains "joining $PIN/$alice/" "the reason logged"
	assert_log_contains "Operation not permitted: this session gets a namespace of its own" "the reason logged"
	assert_eq 1 "$(records "$alice")" "only the held session's record"
	release j1
	assert_eq 0 "$(pins "$alice")" "no pin after the last close"
}

for c in ${NS_DEGRADE_CASES:-threaded record crash pinreturn joinfail}; do
	"case_$c"
done
echo "ok: share_degrade"
