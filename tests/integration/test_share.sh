#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# share_namespace: every session of a user with one instance key is in one
# mount namespace, pinned in /run/pam_namespace; the last close unpins it.
# Real su and PAM driver sessions, held open concurrently with files as
# signals. Each case checks what a user sees: the same /tmp, a mount made
# in one session seen in the other, nothing of alice's for bob.
#
# The kernel binds a namespace's file only into a namespace with a smaller
# id, and hands ids out in per-CPU batches: the sandbox's namespace, made
# now, is not always older by id than a session's (the init namespace
# always is). The whole test runs on one CPU, where ids only grow.
# shellcheck disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
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

sandbox_pam_args share_namespace debug
sandbox_conf '/tmp tmpfs tmpfs root'

# shellcheck source=../lib/held.sh
. "$here/../lib/held.sh"

sb_note "two concurrent su sessions of alice share /tmp and its mounts"
hold a1 su alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/a1.ns; echo first >/tmp/from-a1; mkdir /tmp/sub'
# root mounts a tmpfs under alice's /tmp, inside her namespace, as FUSE or a portal would
nsenter -t "$(held_pid a1)" -m sh -c 'mount -t tmpfs inner /tmp/sub && echo in-sub >/tmp/sub/file'
assert_eq 1 "$(pins "$alice")" "a pin for alice while her session is open"
assert_eq 1 "$(grep -c " $PIN/$alice/.*\.ns " /proc/self/mountinfo)" "the pin is a mount here"
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; cat /tmp/from-a1; cat /tmp/sub/file')
assert_eq "$(cat "$SB_OUT/a1.ns")
first
in-sub" "$out" "the second session's namespace, /tmp and mount"
assert_log_contains "share_namespace: joined $PIN/$alice/"

sb_note "pam_namespace_check lists, enters and keeps the live pin"
out=$("$NS_CHECK" --shared)
assert_contains "$out" "alice (uid 2001)" "--shared"
assert_contains "$out" "1 session open, 0 stale; pin ok" "--shared"
assert_contains "$out" "    /tmp tmpfs" "--shared: the polydir's mount"
assert_contains "$out" "/tmp/sub tmpfs inner" "--shared: the mount made in the session"
"$NS_CHECK" --shared --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["shared"]
assert len(d) == 1 and d[0]["user"] == "alice" and d[0]["sessions"] == 1, d
assert [m["target"] for m in d[0]["mounts"]] == ["/tmp", "/tmp/sub"], d
' || fail "--shared --json: $("$NS_CHECK" --shared --json)"
assert_eq first "$("$NS_CHECK" --enter alice -- cat /tmp/from-a1)" "--enter alice"
assert_contains "$("$NS_CHECK" --user alice --share-namespace)" \
	"share_namespace: a session of alice would join $PIN/$alice/" "--user --share-namespace"
rc=0
out=$("$NS_CHECK" --drop alice) || rc=$?
assert_eq 1 "$rc" "--drop of a pin with a session open"
assert_contains "$out" "a session is open" "--drop keeps it"
assert_eq 1 "$(pins "$alice")" "the pin after a refused --drop"

sb_note "bob never joins alice's"
out=$(sandbox_su bob 'readlink /proc/self/ns/mnt; ls /tmp')
assert_ne "$(cat "$SB_OUT/a1.ns")" "$(head -1 <<<"$out")" "bob's namespace"
assert_not_contains "$out" from-a1 "bob's /tmp"
assert_eq 0 "$(pins 2002)" "no pin of bob's after his session"
release a1
assert_eq 0 "$(pins "$alice")" "alice's pin after her last close"
assert_eq 0 "$(grep -c " $PIN/" /proc/self/mountinfo)" "pin mounts after the last close"
[[ -z $(find "$PIN" -name '*.state*' -o -name '*@*') ]] || fail "state left: $(ls -R "$PIN")"

sb_note "a driver session and a su session share too; the first to close leaves the other in place"
hold d1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/d1.ns; echo d1 >/tmp/x'
hold d2 su alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/d2.ns'
assert_eq "$(cat "$SB_OUT/d1.ns")" "$(cat "$SB_OUT/d2.ns")" "driver and su sessions"
release d1
assert_eq 1 "$(pins "$alice")" "the pin while one session remains"
out=$(sandbox_su alice 'cat /tmp/x')
assert_eq d1 "$out" "a session after the first closed still joins"
release d2
assert_eq 0 "$(pins "$alice")" "the pin after the last close"

sb_note "eight sessions opened at once, then closed while four more open: one namespace, no pin left"
for i in 1 2 3 4 5 6 7 8; do
	rm -f "$sig/m$i".*
	sandbox_driver ns-driver alice -- /bin/sh -c "readlink /proc/self/ns/mnt >$SB_OUT/m$i.ns; : >$sig/m$i.up; while [ ! -e $sig/m$i.go ]; do sleep 0.05; done" >"$SB_OUT/m$i.out" 2>&1 &
	printf -v "pid_m$i" '%s' "$!"
done
for i in 1 2 3 4 5 6 7 8; do sandbox_wait_for "$sig/m$i.up"; done
for i in 9 10 11 12; do
	rm -f "$sig/m$i".*
	sandbox_driver ns-driver alice -- /bin/sh -c "readlink /proc/self/ns/mnt >$SB_OUT/m$i.ns; : >$sig/m$i.up; while [ ! -e $sig/m$i.go ]; do sleep 0.05; done" >"$SB_OUT/m$i.out" 2>&1 &
	printf -v "pid_m$i" '%s' "$!"
	: >"$sig/m$((i - 8)).go"
done
for i in 9 10 11 12; do sandbox_wait_for "$sig/m$i.up"; done
for i in 1 2 3 4; do release "m$i"; done
assert_eq 1 "$(sort -u "$SB_OUT"/m*.ns | wc -l)" "namespaces of twelve concurrent sessions"
out=$("$NS_CHECK" --shared)
for i in 5 6 7 8 9 10 11 12; do : >"$sig/m$i.go"; done
for i in 5 6 7 8 9 10 11 12; do release "m$i"; done
assert_contains "$out" "8 sessions open, 0 stale" "the count with eight open"
assert_eq 0 "$(pins "$alice")" "the pin after all twelve closed"
[[ -z $(find "$PIN" -name '*.state*' -o -name '*@*') ]] || fail "state left: $(ls -R "$PIN")"

sb_note "a session that fails to build leaves the caller as it was and pins nothing"
sandbox_conf '/tmp /srv/tmp-bad/ user root'
install -d -m 0755 /srv/tmp-bad
rc=0
out=$(sandbox_driver --show-ns ns-driver alice -- true) || rc=$?
assert_ne 0 "$rc" "the session must fail: its instance parent is 0755"
assert_eq "mnt_ns=$(sandbox_mnt_ns self)" "$(grep '^mnt_ns=' <<<"$out")" "the caller's namespace after the failure"
assert_eq 0 "$(pins "$alice")" "no pin after a failed build"
[[ -z $(find "$PIN" -name '*.state*' -o -name '*@*') ]] || fail "state left after a failed build: $(ls -R "$PIN")"
sandbox_conf '/tmp tmpfs tmpfs root'

sb_note "unmnt_remnt: sessions with another original user have another key"
sandbox_pam_args share_namespace unmnt_remnt debug
hold u1 ns-driver bob 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/u1.ns'
out=$(sandbox_driver --ruser alice ns-driver bob -- readlink /proc/self/ns/mnt)
assert_ne "$(cat "$SB_OUT/u1.ns")" "$out" "bob's session for alice is not bob's own"
hold u2 ns-driver bob 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/u2.ns'
assert_eq "$(cat "$SB_OUT/u1.ns")" "$(cat "$SB_OUT/u2.ns")" "bob's own sessions share"
release u1
release u2
assert_eq 0 "$(pins 2002)" "bob's pins after his sessions"
sandbox_pam_args share_namespace debug

sb_note "a session opened from inside another one (su within a session) is not pinned"
sandbox_log_clear
hold n1 ns-driver alice "$NS_DRIVER ns-driver bob -- readlink /proc/self/ns/mnt >$SB_OUT/n1.bob"
assert_ne "$(readlink "/proc/$(held_pid n1)/ns/mnt")" "$(cat "$SB_OUT/n1.bob")" "bob's session inside alice's"
assert_eq 0 "$(pins 2002)" "no pin of bob's made from alice's namespace"
assert_log_contains "share_namespace: the process is not in the init process's mount namespace"
release n1

sb_note "a changed namespace.conf gives a new namespace; the running session keeps its own"
hold c1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/c1.ns'
sandbox_conf '/tmp tmpfs tmpfs:mntopts=size=2m root'
out=$("$NS_CHECK" --user alice --share-namespace)
assert_contains "$out" "a session of alice would build and pin a namespace" "--share-namespace after the change"
assert_contains "$out" "alice has 1 other pinned namespace" "--share-namespace after the change"
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt')
assert_ne "$(cat "$SB_OUT/c1.ns")" "$out" "the session after the change"
hold c2 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/c2.ns'
assert_eq 2 "$(pins "$alice")" "one pin per key"
release c1
release c2
assert_eq 0 "$(pins "$alice")" "no pin after both closed"
sandbox_conf '/tmp tmpfs tmpfs root'

sb_note "tmpdir instances, the instance parent in /srv: they stay while a session uses them and go with the last"
sandbox_conf '/tmp /srv/tmp-inst/ tmpdir root'
sandbox_inst_parent /srv/tmp-inst
hold t1 ns-driver alice 'echo t >/tmp/t'
hold t2 ns-driver alice 'cat /tmp/t >'"$SB_OUT"'/t2.seen'
assert_eq t "$(cat "$SB_OUT/t2.seen")" "the second tmpdir session sees the first's file"
assert_eq 1 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "one tmpdir instance for both"
release t1
assert_eq 1 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the instance after the first close"
release t2
assert_eq 0 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the instance after the last close"
assert_eq 0 "$(grep -c " $PIN/" /proc/self/mountinfo)" "pin mounts after the last tmpdir close"
sb_note "the same with the instance parent in the real /tmp, which others can write"
sandbox_conf '/tmp /tmp/tmp-inst/ tmpdir root'
sandbox_inst_parent /tmp/tmp-inst
hold t3 ns-driver alice 'echo t >/tmp/t'
hold t4 ns-driver alice 'cat /tmp/t >'"$SB_OUT"'/t4.seen'
assert_eq t "$(cat "$SB_OUT/t4.seen")" "the second session sees the first's file"
release t3
assert_eq 1 "$(find /tmp/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the instance after the first close"
release t4
assert_eq 0 "$(find /tmp/tmp-inst -mindepth 1 -maxdepth 1 | wc -l)" "the instance after the last close"
sandbox_conf '/tmp tmpfs tmpfs root'

sb_note "a SIGKILLed session does not lock alice out"
hold k1 ns-driver alice 'echo k1 >/tmp/from-k1'
kill_held k1
sandbox_log_clear
out=$(sandbox_su alice 'ls /tmp; echo fine')
assert_contains "$out" fine "alice's login after a killed session"
# (the dead namespace's inode number may be the new one's: the kernel reuses them)
assert_not_contains "$out" from-k1 "a fresh /tmp, not the dead session's"
assert_log_contains "dropped 1 session gone"
assert_eq 0 "$(pins "$alice")" "no pin once that login closed"

sb_note "a pin file left without its state (a session killed while pinning) is replaced"
hold o1 ns-driver alice 'true'
key=$(find "$PIN/$alice" -name '*.state' -printf '%f\n' | sed 's/\.state$//')
release o1
: >"$PIN/$alice/$key.ns"
hold o2 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/o2.ns'
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt')
release o2
assert_eq "$(cat "$SB_OUT/o2.ns")" "$out" "sessions after an orphaned pin file"
assert_eq 0 "$(pins "$alice")" "no pin after they closed"

sb_note "pam_namespace_check shows a killed session as stale and drops its pin"
hold k2 ns-driver alice 'true'
kill_held k2
out=$("$NS_CHECK" --shared)
assert_contains "$out" "0 sessions open, 1 stale" "--shared after a kill"
out=$("$NS_CHECK" --drop alice)
assert_contains "$out" "dropped $PIN/$alice/" "--drop of a stale pin"
assert_eq 0 "$(pins "$alice")" "the pin after --drop"
assert_eq "no pinned namespace" "$("$NS_CHECK" --shared)" "--shared after --drop"

# A user manager's session: the manager (the process that opened it) exits,
# its "(sd-pam)" lives on in its session (setsid) to close it, and the
# unit's ExecStopPost (--drop) runs then. Linux 6.9 to 6.14 answer
# pidfd_open() of the manager's pid with EINVAL, not ESRCH, while it is
# still that session's id: the record was taken for a live session, and on
# Debian 13 (6.12) --drop kept the pin that the console's close had left to
# the manager (issue 26). strace gives that answer here, whatever this
# kernel says; valgrind's run leaves it out (the client is valgrind). In
# the sanitizers' run, LeakSanitizer cannot run in a traced process: leaks
# are not looked for in this part.
if command -v strace >/dev/null && [[ -z "${NS_DRIVER_VALGRIND:-}" ]]; then
	asan_saved=${ASAN_OPTIONS-}
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	sb_note "a session gone while its pid is still a session id (6.12's EINVAL) is gone for --drop and the last close"
	einval=(strace -qq -f -o "$SB_OUT/einval-drop.trace" -e trace=pidfd_open -e inject=pidfd_open:error=EINVAL)
	hold g1 ns-driver alice 'true'
	kill_held g1
	rc=0
	out=$("${einval[@]}" "$NS_CHECK" --drop alice) || rc=$?
	assert_eq 0 "$rc" "--drop with the gone session's pid answered EINVAL: $out"
	assert_contains "$(cat "$SB_OUT/einval-drop.trace")" "(INJECTED)" "strace's EINVAL for --drop"
	assert_contains "$out" "dropped $PIN/$alice/" "--drop with EINVAL for the gone session"
	assert_eq 0 "$(pins "$alice")" "the pin after that --drop"
	hold g2 ns-driver alice 'true'
	hold g3 ns-driver alice 'true'
	kill_held g3
	body=$(held_pid g2)
	client=$(ps -o ppid= -p "$body" | tr -d ' ')
	strace -qq -o "$SB_OUT/einval-close.trace" -e trace=pidfd_open -e inject=pidfd_open:error=EINVAL -p "$client" &
	tracer=$!
	for ((i = 0; i < 200; i++)); do
		[[ $(awk '/^TracerPid:/ {print $2}' "/proc/$client/status") != 0 ]] && break
		sleep 0.05
	done
	((i < 200)) || fail "strace did not attach to the client of g2"
	release g2
	rc=0
	wait "$tracer" || rc=$?
	assert_eq 0 "$rc" "strace's status, tracing the last close"
	assert_contains "$(cat "$SB_OUT/einval-close.trace")" "(INJECTED)" "strace's EINVAL in the last close"
	assert_eq 0 "$(pins "$alice")" "the pin after the last close, the other session's pid answered EINVAL"
	[[ -z $(find "$PIN" -name '*.state*' -o -name '*@*') ]] || fail "state left: $(ls -R "$PIN")"
	ASAN_OPTIONS=$asan_saved
	[[ -n $ASAN_OPTIONS ]] || unset ASAN_OPTIONS
elif [[ -n "${NS_DRIVER_VALGRIND:-}" ]]; then
	partial einval "6.12's EINVAL for a gone session: not under valgrind (the client is valgrind)"
else
	partial einval "6.12's EINVAL for a gone session: strace is not installed"
fi

# attack CASE: alice's two sessions must not share, her session must work,
# and the module must have said why.
refused() {
	local what=$1 log=$2
	sandbox_log_clear
	hold r1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/r1.ns'
	out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; echo works')
	release r1
	assert_contains "$out" works "$what: alice's session"
	assert_ne "$(cat "$SB_OUT/r1.ns")" "$(head -1 <<<"$out")" "$what: sessions must not share"
	assert_log_contains "$log" "$what"
}

sb_note "an untrusted pin directory is refused and logged"
umount -l "$PIN" 2>/dev/null || true
rm -rf "$PIN"
# (a root-owned one no one else can write is put right: test_share_attacks.sh)
install -d -m 0777 "$PIN"
refused "directory mode 0777" "checking $PIN: Operation not permitted"
rm -rf "$PIN"
install -d -m 0700 -o bob "$PIN"
refused "directory owned by bob" "checking $PIN: Operation not permitted"
rm -rf "$PIN"
install -d -m 0700 /run/elsewhere
ln -s /run/elsewhere "$PIN"
refused "directory a symlink" "opening $PIN"
rm -f "$PIN"
install -d -m 0700 "$PIN"
install -d -m 0700 -o alice "$PIN/$alice"
refused "alice's directory owned by alice" "opening the user's directory in $PIN: Operation not permitted"
rm -rf "${PIN:?}/$alice"

sb_note "a pin replaced by another namespace, or a planted file, is refused"
hold p1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/p1.ns'
pin=$(find "$PIN/$alice" -name '*.ns')
umount -l "$pin"
sandbox_bind_new_ns "$pin"
other=$SB_NS_HOLDER
sandbox_log_clear
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; echo works')
assert_contains "$out" works "alice's session with a swapped pin"
assert_ne "$(readlink "/proc/$other/ns/mnt")" "$(head -1 <<<"$out")" "must not join the swapped-in namespace"
assert_ne "$(cat "$SB_OUT/p1.ns")" "$(head -1 <<<"$out")" "nor share: the pin is not trusted"
assert_log_contains "refusing $pin: not the namespace that was pinned"
umount -l "$pin"
kill "$other"
: >"$pin.planted"
rm -f "$pin"
echo x >"$pin"
sandbox_log_clear
out=$(sandbox_su alice 'echo works')
assert_contains "$out" works "alice's session with a planted pin"
assert_log_contains "refusing $pin: not a mount namespace"
release p1
rm -f "$pin" "$pin.planted"

sb_note "the administrator adds noexec,nosuid,nodev to the /tmp line: alice's next session gets a new namespace with them"
# Issue 31, point 2: the key left out an extended line's mount flags (and
# quota=, share=, ignore_instance_parent_mode): her next sessions joined
# the namespace made without them and ran programs from /tmp.
sandbox_inst_parent /srv/inst-flags
sandbox_conf '/tmp /srv/inst-flags/ user root'
hold f1 ns-driver alice 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/f1.ns'
sandbox_conf '/tmp /srv/inst-flags/ user+:noexec:nosuid:nodev root'
out=$(sandbox_driver ns-driver alice -- /bin/sh -c 'readlink /proc/self/ns/mnt
printf "#!/bin/sh\necho ran\n" >/tmp/prog; chmod 0755 /tmp/prog; { /tmp/prog; } 2>/dev/null || echo refused
awk '"'"'$5 == "/tmp" { print $6 }'"'"' /proc/self/mountinfo')
assert_ne "$(cat "$SB_OUT/f1.ns")" "$(head -1 <<<"$out")" "alice's namespace after noexec was added"
assert_eq refused "$(sed -n 2p <<<"$out")" "a program in her /tmp after noexec was added: [$out]"
assert_contains "$(sed -n '$p' <<<"$out")" "nosuid,nodev,noexec" "her /tmp's flags"
assert_eq 1 "$(pins "$alice")" "alice's pins: the held session's; the new one's went with it"
release f1
assert_eq 0 "$(pins "$alice")" "alice's pins after her sessions"
sandbox_conf '/tmp tmpfs tmpfs root'

sb_note "a user name with a space shares like any other; with a tab or a newline it is refused as ever"
# Issue 31, point 13: ns_user_name_valid() allows a space, and the state
# was written with it and refused by its reader: every later session went
# unshared and the pin stayed until --drop. Names and paths are escaped in
# the state now; her tmpdir instance, whose name has the space, is found
# and removed by the last close. A tab or a newline the name check refuses
# before anything is made, with or without share_namespace (SPEC 8).
printf 'ann smith:x:2010:2010::/home/ann smith:/bin/sh\ntab\tuser:x:2011:2011::/home/tab:/bin/sh\n' \
	>>/etc/passwd
install -d -o 2010 -g 2010 "/home/ann smith"
sandbox_inst_parent /srv/tmp-inst
sandbox_conf '/tmp /srv/tmp-inst/$USER- tmpdir root'
sandbox_log_clear
hold s1 ns-driver "ann smith" 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/s1.ns; echo s1 >/tmp/f'
hold s2 ns-driver "ann smith" 'readlink /proc/self/ns/mnt >'"$SB_OUT"'/s2.ns; cat /tmp/f >'"$SB_OUT"'/s2.f'
assert_eq "$(cat "$SB_OUT/s1.ns")" "$(cat "$SB_OUT/s2.ns")" "the namespaces of two sessions of 'ann smith'"
assert_eq s1 "$(cat "$SB_OUT/s2.f")" "the second session's /tmp"
assert_contains "$(cat "$PIN"/2010/*.state)" 'user ann\040smith' "her name in the state"
assert_contains "$("$NS_CHECK" --shared)" "2 sessions open, 0 stale; pin ok" "--shared for 'ann smith'"
assert_not_contains "$(sandbox_log)" "refusing" "the sessions of 'ann smith'"
assert_eq 1 "$(find /srv/tmp-inst -mindepth 1 -maxdepth 1 -name 'ann smith*' | wc -l)" "her tmpdir instance"
release s1
release s2
assert_eq 0 "$(pins 2010)" "her pin after her last close"
assert_eq 0 "$(find /srv/tmp-inst -mindepth 1 | wc -l)" "her tmpdir instance after her last close"
[[ -z $(find "$PIN" -name '*.state*' -o -name '*@*') ]] || fail "state left: $(ls -R "$PIN")"
for name in "tab	user" "nl
user"; do
	rc=0
	sandbox_log_clear
	out=$(sandbox_driver ns-driver "$name" -- touch "$SB_OUT/ran") || rc=$?
	assert_ne 0 "$rc" "a session of a user whose name has a control character"
	assert_no_file "$SB_OUT/ran" "the session's command"
	assert_log_contains "refusing user name unfit for a path" "a name with a control character"
done
assert_eq 0 "$(find "$PIN" -mindepth 1 -maxdepth 1 -name '201[12]' | wc -l)" "pin directories of refused names"
sandbox_conf '/tmp tmpfs tmpfs root'

sb_note "users cannot write the pin directory"
out=$(sandbox_su bob "touch $PIN/x 2>&1 || echo refused")
assert_contains "$out" refused "bob writing $PIN"
echo "ok: share"
