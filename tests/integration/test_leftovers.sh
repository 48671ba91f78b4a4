#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Issue 31's last gap: a tmpdir session that never closed (its client
# SIGKILLed) leaves its instance; the user's next open removes it, once
# the session's opener is gone and no mount namespace has it mounted
# (pam_namespace(8), "tmpdir"). With "/tmp /tmp/tmp-inst/ tmpdir root":
# (a) alice's su killed: her next open (su, then a threaded pam_driver)
#     removes the instance and its marker, with one log line naming it;
# (b) an instance of a live session of hers, held open by another client,
#     is kept by her next open;
# (c) her su killed while a process of hers still runs in that session's
#     namespace: kept, and removed by her next open after that process ended;
# (d) bob's open leaves alice's leftovers alone;
# (e) the helper removes a marker whose instance is gone, never taking a
#     marker for an instance;
# (f) a close run without root (systemd's (sd-pam) drops to the user's ids
#     before pam_close_session) succeeds and logs that the instance is left;
#     the user's next open removes it.
# Linux-PAM's module runs (a) and (d) too, shown only: it never removes a
# leftover.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

sandbox_inst_parent /tmp/tmp-inst
sandbox_conf "/tmp /tmp/tmp-inst/ tmpdir root"
alice=$(id -u alice)
bob=$(id -u bob)

# The instances (names) and the markers in the instance parent.
instances() {
	find /tmp/tmp-inst -mindepth 1 -maxdepth 1 ! -name '.pam_namespace-session.*' -printf '%f\n' | sort
}
markers() {
	find /tmp/tmp-inst -mindepth 1 -maxdepth 1 -name '.pam_namespace-session.*' -printf '%f\n' | sort
}

# held NAME USER CMD: a "su - USER" session in the background whose shell
# writes its pid to $SB_OUT/NAME, then runs CMD (default: sleep).
held() {
	rm -f "$SB_OUT/$1"
	(sandbox_su "$2" "echo \$\$ >$SB_OUT/$1.tmp; mv $SB_OUT/$1.tmp $SB_OUT/$1; ${3:-exec sleep 120}" >/dev/null 2>&1 || true) &
	sandbox_wait_for "$SB_OUT/$1"
}

# kill_client NAME: SIGKILL the session's su (its client), and its shell.
kill_client() {
	local shell su
	shell=$(cat "$SB_OUT/$1")
	su=$(ps -o ppid= -p "$shell" | tr -d ' ')
	[[ $(ps -o comm= -p "$su") == su ]] || fail "$1: the shell's parent is no su"
	kill -KILL "$su" "$shell"
	gone "$su"
	gone "$shell"
}

# gone PID: until process PID has ended.
gone() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ -e /proc/$1 ]] || return 0
		sleep 0.05
	done
	fail "process $1 did not end"
}

# leftover NAME: alice's su session, killed; prints its instance.
leftover() {
	local before after
	before=$(instances)
	held "$1" alice
	after=$(instances)
	kill_client "$1"
	comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep .
}

sb_note "(a) a session whose client was killed: its instance and marker are left"
a=$(leftover a)
[[ -d /tmp/tmp-inst/$a ]] || fail "(a): no instance left"
assert_eq ".pam_namespace-session.$alice.$a" "$(markers)" "(a): its marker"
assert_eq "0600 root" "$(stat -c '%04a %U' "/tmp/tmp-inst/.pam_namespace-session.$alice.$a")" \
	"(a): the marker's mode"

sb_note "(d) bob's open leaves alice's leftover alone"
sandbox_log_clear
out=$(sandbox_su bob 'echo ok') || fail "(d): bob's su: $out"
[[ -d /tmp/tmp-inst/$a ]] || fail "(d): bob's open removed alice's leftover"
assert_eq ".pam_namespace-session.$alice.$a" "$(markers)" "(d): alice's marker after bob's open"
assert_eq "" "$(sandbox_log | grep removed || true)" "(d): removal logged by bob's open"

sb_note "(a) alice's next open removes it"
out=$(sandbox_su alice 'echo ok') || fail "(a): alice's su: $out"
[[ ! -e /tmp/tmp-inst/$a ]] || fail "(a): alice's next open kept her leftover $a"
assert_eq "" "$(markers)" "(a): markers after alice's next open"
assert_eq "" "$(instances)" "(a): instances after alice's next open"
assert_log_contains "removed /tmp/tmp-inst/$a, the tmpdir instance of a session that never closed: its process" "(a)"
assert_log_contains "is gone and no mount namespace has it mounted" "(a)"
assert_eq 1 "$(sandbox_log | grep -c "tmp-inst/$a")" "(a): log lines naming the leftover"

sb_note "(a) the same for a threaded client's open (pam_driver --threaded): no fork"
a=$(leftover a2)
sandbox_log_clear
out=$(sandbox_driver --threaded ns-driver alice -- true) || fail "(a): pam_driver --threaded: $out"
assert_eq "" "$(instances)" "(a): instances after the threaded open"
assert_eq "" "$(markers)" "(a): markers after the threaded open"
assert_log_contains "removed /tmp/tmp-inst/$a," "(a): threaded"

sb_note "(b) a live session's instance, held by another client, is kept"
held b alice
live=$(instances)
[[ -n $live ]] || fail "(b): no instance for the live session"
a=$(leftover b2)
out=$(sandbox_su alice 'echo ok') || fail "(b): alice's su: $out"
assert_eq "$live" "$(instances)" "(b): the live session's instance after alice's next open"
assert_eq ".pam_namespace-session.$alice.$live" "$(markers)" "(b): its marker"
[[ ! -e /tmp/tmp-inst/$a ]] || fail "(b): the killed session's leftover beside it was kept"
kill "$(cat "$SB_OUT/b")"
for ((i = 0; i < 100; i++)); do
	[[ -z $(instances) && -z $(markers) ]] && break
	sleep 0.05
done
assert_eq "" "$(instances)$(markers)" "(b): after the live session's close"

sb_note "(c) the client killed while a process of alice's still runs in the session's namespace"
held c alice 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! >'"$SB_OUT"'/c.bg; exec sleep 120'
sandbox_wait_for "$SB_OUT/c.bg"
bg=$(cat "$SB_OUT/c.bg")
c=$(instances)
kill_client c
out=$(sandbox_su alice 'echo ok') || fail "(c): alice's su: $out"
assert_eq "$c" "$(instances)" "(c): the instance her process's namespace still has mounted"
assert_eq ".pam_namespace-session.$alice.$c" "$(markers)" "(c): its marker"
kill -KILL "$bg"
gone "$bg"
sandbox_log_clear
out=$(sandbox_su alice 'echo ok') || fail "(c): alice's su after her process ended: $out"
assert_eq "" "$(instances)$(markers)" "(c): after her process ended, her next open"
assert_log_contains "removed /tmp/tmp-inst/$c," "(c)"

sb_note "(f) a close without root, as systemd's (sd-pam) makes it: the session does not fail"
sandbox_log_clear
before=$(instances)
out=$(sandbox_driver --close-as "$alice:$(id -g alice)" ns-driver alice -- true) ||
	fail "(f): a close run as alice failed the session: $out"
f=$(comm -13 <(printf '%s\n' "$before") <(instances) | grep .) || fail "(f): no instance left by the close"
assert_eq ".pam_namespace-session.$alice.$f" "$(markers)" "(f): its marker, kept"
assert_log_contains "the close runs as uid $alice, not root: the tmpdir instance /tmp/tmp-inst/$f is left for its user's next open to remove" "(f)"
out=$(sandbox_su alice 'echo ok') || fail "(f): alice's su: $out"
assert_eq "" "$(instances)$(markers)" "(f): after alice's next open"
assert_log_contains "removed /tmp/tmp-inst/$f," "(f)"

if [[ -x "${NS_HELPER:-}" ]]; then
	sb_note "(e) the helper: a marker whose instance is gone is removed, none is an instance"
	install -m 0600 /dev/null "/tmp/tmp-inst/.pam_namespace-session.$alice.tmpAbc123"
	install -m 0600 /dev/null "/tmp/tmp-inst/.pam_namespace-session.$bob.Abc123"
	out=$("$NS_HELPER" --tmpdir-age 0 2>&1) || fail "(e): helper: $out"
	assert_eq "" "$(markers)" "(e): markers after the helper"
	assert_not_contains "$out" "pam_namespace-session" "(e): the helper's output"
	a=$(leftover e)
	out=$("$NS_HELPER" --tmpdir-age 0 2>&1) || fail "(e): helper: $out"
	assert_contains "$out" "/tmp/tmp-inst/$a: tmpdir instance no session uses, removed" "(e)"
	assert_eq "" "$(instances)$(markers)" "(e): the helper, with a killed session's leftover"
fi

linux_pam=$(sb_linux_pam_module)
if [[ -n "$linux_pam" ]]; then
	sb_note "Linux-PAM's module, (a) and (d) (shown, not asserted)"
	# shellcheck disable=SC2034 # read by sandbox_pam_args
	NS_MODULE=$linux_pam
	sandbox_pam_args
	a=$(leftover lp || true)
	sandbox_su bob 'true' >/dev/null 2>&1 || true
	sandbox_su alice 'true' >/dev/null 2>&1 || true
	sb_note "Linux-PAM: the killed session's instance ${a:-?} after bob's and alice's next opens: $(
		[[ -n $a && -e /tmp/tmp-inst/$a ]] && echo left || echo gone
	); in the parent: $(find /tmp/tmp-inst -mindepth 1 -maxdepth 1 | wc -l) entries"
fi
echo "ok: leftovers of sessions that never closed"
