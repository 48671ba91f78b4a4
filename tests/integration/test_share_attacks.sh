#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# share_namespace against its own users (issue 27): no user can stall,
# fill or switch off another's sessions. Each attack is made as the user
# where a user can make it, with real su sessions:
# 1. alice kills her own su once its record is written, keeping a newer
#    session open: the stale records must not pile up in /run, and
#    pam_namespace_check --drop removes them without --force.
# 2. alice's "umask 0277; su - alice" is the first shared session after
#    boot: /run/pam_namespace and her directory are root:root 0700 all the
#    same, and one left dr-x------ root:alice is put right.
# 3. alice stops (SIGSTOP) her own su while it holds her lock: her next
#    login comes within the bound, with a namespace of its own.
# 5. alice's /tmp/work is a link to /etc/security where root's working
#    directory was /tmp/work: root's su into her namespace does not start
#    there.
# 6. a stale pin found by a session opened in another mount namespace is
#    left to one opened from process 1's, which removes its tmpdir instance.
# And an upgrade with alice logged in: a module of a later, compatible share
# format joins the pin of this one; one of an incompatible format builds its
# own; no login refused, no pin left; this build's --drop removes a later
# format's pin whole, its tmpdir instance too; the cap on recorded sessions; and
# quick logins on every CPU each pin (the ELOOP of per-CPU namespace ids).
# shellcheck disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
# One CPU, as test_share.sh says why (namespace ids and pin binds).
if [[ -z "${SB_INSIDE:-}" && -z "${NS_SHARE_PINNED_CPU:-}" ]] && command -v taskset >/dev/null; then
	export NS_SHARE_PINNED_CPU=1
	exec taskset -c 0 bash "$0" "$@"
fi
# Before the sandbox's namespaces are made (on CPU 0): 4096 namespace ids
# used up on CPU 0, so that it takes the newest batch of ids and the
# sandbox's namespace is newer by id than what the other CPUs hand out now
# (attack_cpus; perl's syscall, unshare(CLONE_NEWUTS) = 272 on x86-64).
if [[ -z "${SB_INSIDE:-}" && $(uname -m) == x86_64 ]] && command -v perl >/dev/null; then
	perl -e 'for (1 .. 4097) { syscall(272, 0x04000000) == 0 or last }'
fi
# The later builds of the module, held open across sandbox_enter's exec:
# the sandbox covers /tmp (where a scratch build may lie) and copies only
# NS_MODULE in.
if [[ -z "${SB_INSIDE:-}" && -r "${NS_MODULE_SHARE_NEXT:-}" && -r "${NS_MODULE_SHARE_GEN2:-}" ]]; then
	exec 7<"$NS_MODULE_SHARE_NEXT" 8<"$NS_MODULE_SHARE_GEN2"
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

module_is_linux_pam && skip "share_namespace is this module's; Linux-PAM's has none"
[[ -x "${NS_CHECK:-}" ]] || fail "no pam_namespace_check (set NS_CHECK)"
sb_have_pidns || skip "share_namespace pins only from process 1's namespace: the sandbox needs a PID namespace"
alice=2001

sandbox_pam_args share_namespace debug
sandbox_conf '/tmp tmpfs tmpfs root'
# shellcheck source=../lib/held.sh
. "$here/../lib/held.sh"
# alice knows her own password: su to herself needs none here.
for f in su su-l; do
	sed -i '1i auth     sufficient pam_succeed_if.so quiet user = alice ruser = alice' \
		"$SB_DIR/etc/pam.d/$f"
done

# The sanitizer run's preload for su (sandbox.sh's sandbox_su says why).
# shellcheck disable=SC2206 # NS_SU_ENV is a list of words
su_env=(${NS_SU_ENV:-})

# root_su ARGS...: su run by root.
root_su() {
	env "${su_env[@]}" su "$@"
}

# alice_su ARGS...: su run by alice, as she would. In the sanitizer run
# (NS_ASAN_RT) su run by her is set-user-ID and ignores the preload the
# ASan-built module needs: there root runs it with her group, and root
# sends the signals she would (the module sees the same sessions).
alice_su() {
	if [[ -n "${NS_ASAN_RT:-}" ]]; then
		setpriv --regid=alice --clear-groups -- env "${su_env[@]}" su "$@"
	else
		as_alice su "$@"
	fi
}

# alice_kill ARGS...: kill(1) as alice (as root in the sanitizer run).
alice_kill() {
	if [[ -n "${NS_ASAN_RT:-}" ]]; then
		kill "$@"
	else
		as_alice kill "$@"
	fi
}

# A fresh /run/pam_namespace, as at boot before anyone logged in.
fresh_pin_dir() {
	umount -l "$PIN" 2>/dev/null || true
	rm -rf "$PIN"
}

# su_alice_bg NAME: alice's own "su - alice", started by her, left running
# (sleeping) until killed; its pid (that of su, which recorded the session)
# in $sig/NAME.su.
su_alice_bg() {
	alice_su - alice -c "echo \$PPID >$sig/$1.su.tmp && mv $sig/$1.su.tmp $sig/$1.su; exec sleep 120" \
		>"$SB_OUT/$1.out" 2>&1 &
	printf -v "bg_$1" '%s' "$!"
	sandbox_wait_for "$sig/$1.su"
}

# kill_su NAME: alice SIGKILLs her own su, then the shell it started.
kill_su() {
	local su child var="bg_$1"
	su=$(cat "$sig/$1.su")
	child=$(ps -o pid= --ppid "$su" | tr -d ' ' || true)
	alice_kill -KILL "$su" || fail "alice cannot kill her own su $su"
	[[ -z "$child" ]] || alice_kill -KILL "$child" 2>/dev/null || true
	wait "${!var}" 2>/dev/null || true
}

# Each attack a function; NS_SHARE_ATTACKS="cwd stop" runs only those (to
# show each fails alone with an older module: NS_MODULE=old.so).
attack_records() {
	sb_note "1. stale records: alice kills her su once recorded, a newer one always open"
	hold base ns-driver alice 'true'
	su_alice_bg r0
	n=30
	for ((i = 1; i <= n; i++)); do
		su_alice_bg "r$i"
		kill_su "r$((i - 1))"
	done
	# Records: the live su and the one killed after it opened, at most.
	left=$(records "$alice")
	sb_note "after $n logins, each killed once a newer one had opened: $left records"
	[[ $left -le 3 ]] || fail "stale records pile up: $left in $PIN/$alice after $n logins"
	kill_su "r$n"
	release base
	# Every session is gone now; the last close may have found a killed su's record.
	out=$("$NS_CHECK" --drop alice)
	assert_eq 0 "$(records "$alice")" "records after --drop (without --force): $out"
	assert_eq 0 "$(pins "$alice")" "pins after --drop"

	sb_note "1. a stale record of a key no session opens again goes with the next open of another"
	hold k1 ns-driver alice 'true'
	kill_held k1
	sandbox_conf '/tmp tmpfs tmpfs:mntopts=size=3m root'
	sandbox_log_clear
	out=$(sandbox_su alice 'echo works')
	assert_contains "$out" works "alice's login under another key"
	assert_eq 0 "$(records "$alice")" "the other key's stale record"
	sandbox_conf '/tmp tmpfs tmpfs root'
	"$NS_CHECK" --drop alice >/dev/null
	assert_eq 0 "$(pins "$alice")" "pins after --drop"
}

attack_umask() {
	sb_note "2. alice's umask 0277 and group in the first shared session after boot"
	fresh_pin_dir
	out=$(umask 0277 && alice_su - alice -c "echo works" 2>&1)
	assert_contains "$out" works "alice's su under umask 0277"
	assert_eq "700 root root" "$(stat -c '%a %U %G' "$PIN")" "$PIN after it"
	assert_eq "700 root root" "$(stat -c '%a %U %G' "$PIN/$alice")" "$PIN/$alice after it"
	hold u1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/u1.ns'
	out=$(sandbox_su alice 'readlink /proc/self/ns/mnt')
	release u1
	assert_eq "$(cat "$SB_OUT/u1.ns")" "$out" "alice's sessions after the umask 0277 one share"

	sb_note "2. a pin directory left dr-x------ root:alice is put right, one writable by others refused"
	fresh_pin_dir
	install -d -m 0500 -o root -g alice "$PIN"
	sandbox_log_clear
	hold u2 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/u2.ns'
	out=$(sandbox_su alice 'readlink /proc/self/ns/mnt')
	release u2
	assert_eq "$(cat "$SB_OUT/u2.ns")" "$out" "sessions share once the directory is put right"
	assert_eq "700 root root" "$(stat -c '%a %U %G' "$PIN")" "$PIN put right"
	assert_log_contains "$PIN was not root:root 0700: made so" "the repair"
	install -d -m 0500 -o root -g alice "$PIN/$alice"
	chmod 0500 "$PIN/$alice"
	chgrp alice "$PIN/$alice"
	sandbox_log_clear
	out=$(sandbox_su alice 'echo works')
	assert_contains "$out" works "alice's session"
	assert_eq "700 root root" "$(stat -c '%a %U %G' "$PIN/$alice")" "$PIN/$alice put right"
	assert_log_contains "$PIN/$alice was not root:root 0700: made so" "the repair of alice's"
	chmod 0777 "$PIN/$alice"
	sandbox_log_clear
	hold u3 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/u3.ns'
	out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; echo works')
	release u3
	assert_contains "$out" works "alice's session beside a 0777 directory"
	assert_ne "$(cat "$SB_OUT/u3.ns")" "$(head -1 <<<"$out")" "no sharing through a 0777 directory"
	assert_log_contains "Operation not permitted" "the refusal"
	# pam_namespace_check reads only trusted directories, and repairs none
	chmod 0700 "$PIN/$alice"
	hold u4 ns-driver alice 'true'
	chmod 0777 "$PIN/$alice"
	out=$("$NS_CHECK" --shared)
	chmod 0700 "$PIN/$alice"
	release u4
	assert_eq "no pinned namespace" "$out" "--shared with alice's directory 0777"
	fresh_pin_dir
}

attack_stop() {
	sb_note "3. alice stops her own su while it holds her lock: her next login comes within the bound"
	cat >/etc/security/namespace.init <<-EOF
	#!/bin/sh
	if [ -e $sig/init.hold ]; then
		echo \$PPID >$sig/init.pid && mv $sig/init.pid $sig/init.up
		i=0
		while [ ! -e $sig/init.go ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
	fi
	exit 0
	EOF
	chmod 0755 /etc/security/namespace.init
	# A session of alice's under another key, to be closed while the lock is held.
	sandbox_conf '/tmp tmpfs tmpfs:mntopts=size=2m root'
	hold h1 ns-driver alice 'true'
	sandbox_conf '/tmp tmpfs tmpfs root'
	: >"$sig/init.hold"
	alice_su - alice -c "echo su-done" >"$SB_OUT/stopped.out" 2>&1 &
	client_pid=$!
	sandbox_wait_for "$sig/init.up" 20
	su_pid=$(cat "$sig/init.up")
	alice_kill -STOP "$su_pid" || fail "alice cannot stop her own su"
	: >"$sig/init.go"
	rm -f "$sig/init.hold"
	sleep 0.3
	[[ $(ps -o stat= -p "$su_pid") == T* ]] || fail "su is not stopped: $(ps -o stat= -p "$su_pid")"
	sandbox_log_clear
	rc=0
	t0=$(now_ms)
	out=$(timeout -k 5 30 env "${su_env[@]}" su - alice -c 'echo works' 2>&1) || rc=$?
	elapsed=$(($(now_ms) - t0))
	sb_note "alice's login while her stopped su holds the lock: status $rc after $elapsed ms"
	assert_eq 0 "$rc" "alice's login while the lock is held: $out"
	assert_contains "$out" works "alice's login while the lock is held"
	[[ $elapsed -lt 10000 ]] || fail "alice's login waited $elapsed ms for a stopped holder"
	assert_log_contains "lock held for over 3000 ms by a stopped or stuck session" "the wait given up"
	# A close cannot wait for ever either: it removes its own record and leaves the pin.
	sandbox_log_clear
	t0=$(now_ms)
	release h1
	elapsed=$(($(now_ms) - t0))
	sb_note "a close of alice's while her stopped su holds the lock: $elapsed ms"
	[[ $elapsed -lt 10000 ]] || fail "the close waited $elapsed ms for a stopped holder"
	assert_log_contains "is left to the next open" "the close's wait given up"
	alice_kill -CONT "$su_pid"
	wait "$client_pid" || fail "alice's su after SIGCONT: $(cat "$SB_OUT/stopped.out")"
	assert_contains "$(cat "$SB_OUT/stopped.out")" su-done "alice's su once continued"
	rm -f /etc/security/namespace.init "$sig"/init.*
	# h1's pin, its last session closed without the lock: --drop, no --force
	assert_eq 1 "$(pins "$alice")" "the pin the close could not drop"
	out=$("$NS_CHECK" --drop alice)
	assert_eq 0 "$(pins "$alice")" "no pin after --drop: $out"
	assert_eq 0 "$(records "$alice")" "no record after --drop"
}

attack_cwd() {
	sb_note "5. root's su into alice's namespace does not follow her link named like root's working directory"
	install -d -m 0755 /tmp/work /srv/real
	hold c1 ns-driver alice 'true'
	# as_alice_in_c1 CMD: CMD as alice in the held session's namespace
	as_alice_in_c1() {
		nsenter -t "$(held_pid c1)" -m -- \
			setpriv --reuid=alice --regid=alice --init-groups -- sh -c "$1"
	}
	as_alice_in_c1 'ln -s /etc/security /tmp/work && stat -c %U /tmp/work' >"$SB_OUT/c1.link"
	assert_eq alice "$(cat "$SB_OUT/c1.link")" "alice's link /tmp/work in her namespace"
	[[ -L /tmp/work ]] && fail "alice's link is in the real /tmp"
	out=$(cd /tmp/work && root_su alice -c 'readlink /proc/self/cwd; readlink /proc/self/ns/mnt')
	assert_eq "$(sandbox_mnt_ns "$(held_pid c1)")" "$(sed -n 2p <<<"$out")" "root's su joined alice's namespace"
	assert_eq / "$(head -1 <<<"$out")" "the working directory after the join"
	# Her own directory of that name, reached without a link, is entered, as
	# a plain session enters its instance's (one rule: ns_cwd_restore).
	as_alice_in_c1 'rm /tmp/work && mkdir /tmp/work'
	out=$(cd /tmp/work && root_su alice -c 'readlink /proc/self/cwd; stat -c %U .')
	assert_eq "/tmp/work alice" "$(tr '\n' ' ' <<<"$out" | sed 's/ $//')" "the working directory, alice's directory of that name"
	# A directory that is the same one in her namespace is kept.
	out=$(cd /srv/real && root_su alice -c 'readlink /proc/self/cwd')
	assert_eq /srv/real "$out" "a working directory that is the same in alice's namespace"
	release c1
	rmdir /tmp/work /srv/real
}

attack_elsewhere() {
	sb_note "6. a stale pin seen from another mount namespace is left for one opened from process 1's"
	sandbox_conf '/tmp /srv/tmp-inst/ tmpdir root'
	sandbox_inst_parent /srv/tmp-inst
	hold t1 ns-driver alice 'echo t >/tmp/t'
	kill_held t1
	assert_eq 1 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the killed session's tmpdir instance"
	sandbox_log_clear
	# Another namespace, where /srv/tmp-inst is another directory.
	out=$(unshare -m --propagation private sh -c 'mount -t tmpfs none /srv/tmp-inst && chmod 000 /srv/tmp-inst && exec env "$@" su - alice -c "echo works"' sh "${su_env[@]}" 2>&1)
	assert_contains "$out" works "alice's session from another namespace"
	assert_eq 1 "$(pins "$alice")" "the stale pin, left"
	assert_eq 1 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "its tmpdir instance, left"
	assert_log_contains "is left to a session opened from there" "the stale pin left"
	out=$(sandbox_su alice 'echo works')
	assert_contains "$out" works "alice's session from process 1's namespace"
	assert_eq 0 "$(pins "$alice")" "pins once that one closed"
	assert_eq 0 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the killed session's tmpdir instance, removed"
	sandbox_conf '/tmp tmpfs tmpfs root'
}

attack_upgrade() {
	sb_note "upgrade: a later compatible format joins this one's pin; an incompatible one builds its own"
	[[ -r /dev/fd/7 && -r /dev/fd/8 ]] ||
		fail "no later builds of the module (set NS_MODULE_SHARE_NEXT, NS_MODULE_SHARE_GEN2)"
	install -m 0644 /dev/fd/7 "$SB_DIR/bin/pam_namespace_share_next.so"
	install -m 0644 /dev/fd/8 "$SB_DIR/bin/pam_namespace_share_gen2.so"
	for s in next gen2; do
		printf 'account  required pam_permit.so\nsession  required %s share_namespace debug\n' \
			"$SB_DIR/bin/pam_namespace_share_$s.so" >"$SB_DIR/etc/pam.d/ns-$s"
		chmod 0644 "$SB_DIR/etc/pam.d/ns-$s"
	done
	hold old ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/old.ns'
	assert_eq "pam_namespace-share 1" "$(head -1 "$PIN/$alice"/*.state)" "this build's state format"
	sandbox_log_clear
	hold next ns-next alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/next.ns'
	assert_eq "$(cat "$SB_OUT/old.ns")" "$(cat "$SB_OUT/next.ns")" "the later compatible build joined the pin"
	hold gen2 ns-gen2 alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/gen2.ns'
	assert_ne "$(cat "$SB_OUT/old.ns")" "$(cat "$SB_OUT/gen2.ns")" "the incompatible build joined nothing"
	assert_eq 2 "$(pins "$alice")" "the old pin and the incompatible build's"
	# the old session closes first: the later build's session keeps the pin alive
	release old
	assert_eq 2 "$(pins "$alice")" "pins while a later build's session is in the old one"
	release next
	release gen2
	assert_eq 0 "$(pins "$alice")" "no pin left after the upgrade"
	assert_eq 0 "$(records "$alice")" "no record left after the upgrade"
	# The other way round: this build meets a newer format's pin.
	hold next2 ns-next alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/next2.ns'
	assert_eq "pam_namespace-share 2" "$(head -1 "$PIN/$alice"/*.state)" "the later build's state format"
	sandbox_log_clear
	out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; echo works')
	assert_contains "$out" works "this build's session beside a later format's pin"
	assert_ne "$(cat "$SB_OUT/next2.ns")" "$(head -1 <<<"$out")" "this build does not join a format it does not know"
	assert_log_contains "of a format this build cannot join" "the refusal"
	# this build's --drop keeps a later format's pin while its session is open
	rc=0
	out=$("$NS_CHECK" --drop alice) || rc=$?
	assert_contains "$out" "kept $PIN/$alice/" "--drop beside a later format's live pin"
	assert_eq 1 "$(pins "$alice")" "the later format's pin after --drop"
	release next2
	assert_eq 0 "$(pins "$alice")" "no pin left"
	# A later format's pin whose sessions all ended without closing it (as
	# user@.service's does, closed as the user): this build's --drop, which
	# the unit's ExecStopPost runs, removes it whole, its tmpdir instance too.
	sandbox_conf '/tmp /srv/tmp-inst/ tmpdir root'
	sandbox_inst_parent /srv/tmp-inst
	hold next3 ns-next alice 'echo t >/tmp/t'
	assert_eq "pam_namespace-share 2" "$(head -1 "$PIN/$alice"/*.state)" "the later build's state format"
	kill_held next3
	assert_eq 1 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the killed session's tmpdir instance"
	out=$("$NS_CHECK" --drop alice)
	assert_contains "$out" "dropped $PIN/$alice/" "--drop of a later format's pin without a session"
	assert_eq 0 "$(pins "$alice")" "no pin left"
	assert_eq 0 "$(records "$alice")" "no record left"
	assert_eq 0 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the later format's tmpdir instance, removed"
	sandbox_conf '/tmp tmpfs tmpfs root'
}

attack_cpus() {
	sb_note "quick logins on every CPU: each pins, whatever CPU made the sandbox's namespace"
	# The sandbox's namespace, process 1's here, was made on CPU 0. The
	# kernel binds a namespace's file only into an older one by id, and ids
	# come in per-CPU batches: a session built on another CPU may be older
	# by id (2 of 8 quick logins failed to pin, ELOOP). The module pins a
	# copy made on each CPU in turn until one is newer.
	local n=24 i out ncpu
	# not nproc, which counts only the CPUs this test is pinned to
	ncpu=$(getconf _NPROCESSORS_ONLN)
	for ((i = 0; i < n; i++)); do
		sandbox_log_clear
		out=$(taskset -c $((i % ncpu)) env "${su_env[@]}" su - alice -c 'touch /tmp/mine && echo works' 2>&1)
		assert_contains "$out" works "login $i on any CPU"
		assert_no_file /tmp/mine "login $i's file in the real /tmp"
		assert_log_contains "share_namespace: pinned" "login $i on any CPU"
		[[ "$(sandbox_log)" != *"cannot pin"* ]] || fail "login $i could not pin: $(sandbox_log)"
	done
	assert_eq 0 "$(pins "$alice")" "no pin left"
	# a session built on the last CPU is joined from CPU 0
	rm -f "$sig"/p1.*
	taskset -c $((ncpu - 1)) "$NS_DRIVER" ns-driver alice -- /bin/sh -c \
		"readlink /proc/self/ns/mnt >$SB_OUT/p1.ns; : >$sig/p1.up; while [ ! -e $sig/p1.go ]; do sleep 0.05; done" \
		>"$SB_OUT/p1.out" 2>&1 &
	# shellcheck disable=SC2034 # release reads it by name
	pid_p1=$!
	sandbox_wait_for "$sig/p1.up"
	out=$(taskset -c 0 env "${su_env[@]}" su - alice -c 'readlink /proc/self/ns/mnt')
	release p1
	assert_eq "$(cat "$SB_OUT/p1.ns")" "$out" "a session on CPU 0 joins the one built on CPU $((ncpu - 1))"
	assert_eq 0 "$(pins "$alice")" "no pin left"
}

attack_cap() {
	sb_note "the cap on a user's recorded sessions (4 in the later build)"
	for i in 1 2 3 4; do
		hold "cap$i" ns-next alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/cap'"$i"'.ns'
	done
	sandbox_log_clear
	out=$(sandbox_driver ns-next alice -- readlink /proc/self/ns/mnt)
	assert_ne "$(cat "$SB_OUT/cap1.ns")" "$out" "a fifth session gets a namespace of its own"
	assert_eq 4 "$(records "$alice")" "records at the cap"
	assert_log_contains "the user has 4 sessions recorded, the most there may be" "the cap"
	for i in 1 2 3 4; do
		release "cap$i"
	done
	assert_eq 0 "$(pins "$alice")" "no pin left"
}

fresh_pin_dir
for a in ${NS_SHARE_ATTACKS:-records umask stop cwd elsewhere upgrade cap cpus}; do
	"attack_$a"
done
sb_note "all share_namespace attacks held"
