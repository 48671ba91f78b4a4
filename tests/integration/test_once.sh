#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# One polyinstantiation per login, deployed as an administrator would: the
# host's own Debian pam.d files (su, su-l including su, login, sshd, the
# common-* files they include) with the module line added
#   - by hand, as README.md's "Turn it on" says: to su (not su-l, which
#     includes it), login and sshd (at the end, after "pam_selinux.so open"),
#   - as README.md's pam-auth-update way does: to common-session and
#     common-session-noninteractive, in pam-auth-update's block,
#   - double-stacked: to su and su-l (su - runs it twice), and to
#     common-session as well as to each service (two or three times).
# su -, su, login and an sshd login each get exactly one mount on /tmp and
# on /var/tmp and no root-owned tmp-inst inside the instance, and
# pam_namespace_check --service says, for each stack, that the module runs
# once, or where it runs again (the double-stacked ones). Then the
# nested cases: su - alice inside alice's session finds her namespace and
# mounts nothing (its close leaves it alone), su - bob inside it gets his
# own, and a namespace whose /tmp is no longer a mount of her instance is set up
# anew; with share_namespace the same through share.c's pin.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"

# shellcheck source=../lib/sshd.sh
. "$here/../lib/sshd.sh"
HAVE_SSH=1
[[ -z "$(sshd_missing)" ]] || HAVE_SSH=
# Debian's sshd stack, from the openssh-server package tests/run unpacks.
SSHD_PAM=$(dirname "$(dirname "$(dirname "$NS_SSHD")")")/etc/pam.d/sshd
[[ -f "$SSHD_PAM" ]] || SSHD_PAM=/etc/pam.d/sshd
[[ -f "$SSHD_PAM" ]] || HAVE_SSH=

# sshd listens in a network namespace of the test's own.
if [[ -z "${SB_INSIDE:-}" && -z "${NS_ONCE_NETNS:-}" && -n "$HAVE_SSH" ]] &&
	[[ $(id -u) == 0 ]] && unshare --net true 2>/dev/null; then
	export NS_ONCE_NETNS=1
	exec unshare --net bash "$0" "$@"
fi

# The host's files, read before the sandbox covers /etc/pam.d and /etc/security.
declare -A HOST_PAM HOST_SEC
for f in su su-l login common-session common-session-noninteractive common-auth common-account \
	common-password; do
	[[ -f /etc/pam.d/$f ]] || skip "/etc/pam.d/$f: not a Debian system's pam.d"
	HOST_PAM[$f]=$(cat "/etc/pam.d/$f")
done
[[ -n "$HAVE_SSH" ]] && HOST_PAM[sshd]=$(cat "$SSHD_PAM")
for f in limits.conf pam_env.conf; do
	[[ -f /etc/security/$f ]] && HOST_SEC[$f]=$(cat "/etc/security/$f")
done
grep -q 'include.*su$' /etc/pam.d/su-l || skip "this system's su-l does not include su"

sandbox_enter "$@"
for f in "${!HOST_SEC[@]}"; do
	printf '%s\n' "${HOST_SEC[$f]}" >"/etc/security/$f"
done
chmod 0644 /etc/security/*.conf
sandbox_private_tmp root
# The ns-driver service the sandbox wrote stays; Debian's replace the rest.
deploy() {
	local f line
	for f in "${!HOST_PAM[@]}"; do
		printf '%s\n' "${HOST_PAM[$f]}" >"/etc/pam.d/$f"
	done
	for f in "$@"; do
		line=$(printf 'session    required   %s%s' "$NS_MODULE" "${LINE_ARGS:+ $LINE_ARGS}")
		if grep -q '^# end of pam-auth-update config' "/etc/pam.d/$f"; then
			# where pam-auth-update puts a profile's line: the end of its block
			awk -v line="$line" '/^# end of pam-auth-update config/ { print line } { print }' \
				"/etc/pam.d/$f" >"/etc/pam.d/$f.new"
			mv "/etc/pam.d/$f.new" "/etc/pam.d/$f"
		else
			printf '%s\n' "$line" >>"/etc/pam.d/$f"
		fi
	done
	# alice and bob may su to anyone without a password (pam_wheel trust, as
	# Debian's su offers), for the nested cases.
	sed -i 's/^auth *sufficient *pam_rootok.so$/&\nauth       sufficient pam_wheel.so trust use_uid group=nswheel/' \
		/etc/pam.d/su
	chmod 0644 /etc/pam.d/*
}
grep -q '^nswheel:' /etc/group || printf 'nswheel:x:2999:alice,bob\n' >>"$SB_DIR/etc/group"

# What a session sees: mounts on /tmp and /var/tmp, a stray instance
# parent inside its instance, its namespace, the user.
cat >"$SB_DIR/bin/once-probe" <<'EOF'
#!/bin/sh
t=$(awk '$5 == "/tmp"' /proc/self/mountinfo | wc -l)
v=$(awk '$5 == "/var/tmp"' /proc/self/mountinfo | wc -l)
s=no
if [ -e /tmp/tmp-inst ] || [ -e /var/tmp/tmp-inst ]; then s=yes; fi
echo "$(id -un) tmp=$t vartmp=$v stray=$s"
EOF
chmod 0755 "$SB_DIR/bin/once-probe"
PROBE=$SB_DIR/bin/once-probe
# Outside, the sandbox's own tmpfs on each; a session adds exactly one.
BASE_T=$(sandbox_mounts_at /tmp)
BASE_V=$(sandbox_mounts_at /var/tmp)
want() {
	printf '%s tmp=%d vartmp=%d stray=no' "$1" $((BASE_T + 1)) $((BASE_V + 1))
}

# expect_once WHAT OUTPUT USER: one polyinstantiation, and the stack's
# later lines said so in the log when RAN_TWICE is set.
expect_once() {
	assert_eq "$(want "$3")" "$(grep -a ' tmp=' <<<"$2" | tail -n 1)" "$1"
	assert_no_file "/tmp/tmp-inst/$3/tmp-inst" "$1: instance parent in the instance"
	assert_no_file "/var/tmp/tmp-inst/$3/tmp-inst" "$1: instance parent in the instance"
	if [[ -n "${RAN_TWICE:-}" ]]; then
		assert_log_contains "nothing mounted" "$1"
	fi
}

# ---------------------------------------------------------------- sshd

trap 'rc=$?; sshd_stop; (exit $rc); sb_cleanup' EXIT

ssh_alice() {
	ssh_password alice "$1"
}

if [[ -n "$HAVE_SSH" && -n "${NS_ONCE_NETNS:-}" ]]; then
	sshd_set_passwords alice
	sshd_start
else
	partial sshd "the sshd logins: no sshd here (openssh-server, sshpass, a network namespace)"
	HAVE_SSH=
fi

# ---------------------------------------------------------------- logins

# every_login WHAT SU_L_TWICE OTHERS_TWICE: su -, su, login and ssh as
# alice, each polyinstantiated once; where SU_L_TWICE (for su -) or
# OTHERS_TWICE (the others) is set, the stack runs the module more than once.
every_login() {
	local out
	sb_note "$1: su - alice"
	sandbox_log_clear
	out=$(sandbox_su alice "$PROBE") || fail "$1: su - alice: $out"
	RAN_TWICE=$2 expect_once "$1: su -" "$out" alice

	sb_note "$1: su alice"
	sandbox_log_clear
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	out=$(timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} su alice -c "$PROBE" 2>&1) ||
		fail "$1: su alice: $out"
	RAN_TWICE=$3 expect_once "$1: su" "$out" alice

	if command -v script >/dev/null; then
		sb_note "$1: login -f alice"
		sandbox_log_clear
		out=$(sandbox_login alice "$PROBE") || fail "$1: login: $out"
		RAN_TWICE=$3 expect_once "$1: login" "$out" alice
	fi

	if [[ -n "$HAVE_SSH" ]]; then
		sb_note "$1: ssh alice@"
		sandbox_log_clear
		out=$(ssh_alice "$PROBE") || fail "$1: ssh: $out"
		RAN_TWICE=$3 expect_once "$1: sshd" "$out" alice
	fi
	assert_eq "$BASE_T" "$(sandbox_mounts_at /tmp)" "$1: mounts left on the real /tmp"
}

# services WHAT: the stacks the logins above went through.
services() {
	local s
	for s in su su-l login sshd; do
		[[ $s != sshd || -n "$HAVE_SSH" ]] && printf '%s\n' "$s"
	done
}
# service_once WHAT: pam_namespace_check --service says each stack runs the
# module once, and warns about nothing.
service_once() {
	local s out
	for s in $(services); do
		out=$("$NS_CHECK" --service "$s" 2>&1) || fail "$1: --service $s: $out"
		assert_contains "$out" "$s: pam_namespace runs once at session open" "$1: --service $s"
		assert_not_contains "$out" "warning" "$1: --service $s"
	done
}
# service_again WHAT SERVICE...: it says each SERVICE runs the module again,
# naming the line.
service_again() {
	local what=$1 s out
	shift
	for s; do
		out=$("$NS_CHECK" --service "$s" 2>&1) || fail "$what: --service $s: $out"
		assert_contains "$out" "warning: pam_namespace runs again for service $s (run 2; the first is /etc/pam.d/" \
			"$what: --service $s"
		assert_not_contains "$out" "$s: pam_namespace runs once" "$what: --service $s"
	done
}

deploy su login sshd
every_login "by hand, as the README says (su, login, sshd)" "" ""
service_once "by hand, as the README says"

deploy common-session common-session-noninteractive
every_login "pam-auth-update's way (common-session, common-session-noninteractive)" "" ""
service_once "pam-auth-update's way"

deploy su su-l login sshd
every_login "su and su-l (su-l includes su)" 1 ""
service_again "su and su-l" su-l
out=$("$NS_CHECK" --service su 2>&1) || fail "su and su-l: --service su: $out"
assert_contains "$out" "su: pam_namespace runs once" "su and su-l: --service su"

deploy common-session su su-l login sshd
every_login "common-session and each service" 1 1
# shellcheck disable=SC2046 # one word a service
service_again "common-session and each service" $(services)

sb_note "the PAM driver, its service naming the module twice (in-process, for valgrind)"
printf 'account  required   pam_permit.so\nsession  required   %s\nsession  required   %s debug\n' \
	"$NS_MODULE" "$NS_MODULE" >/etc/pam.d/ns-driver
sandbox_log_clear
out=$(sandbox_driver ns-driver alice -- "$PROBE") || fail "pam_driver: $out"
# (the driver runs the command as itself, root, in alice's session)
assert_eq "$(want root)" "$(grep -a ' tmp=' <<<"$out")" "pam_driver"
assert_no_file /tmp/tmp-inst/alice/tmp-inst "pam_driver: instance parent in the instance"
assert_log_contains "nothing mounted" "pam_driver"

# ---------------------------------------------------------------- nested

# su run by alice is set-user-ID: it ignores LD_PRELOAD, so in the sanitizer
# run (NS_ASAN_RT) the ASan-built module cannot be loaded into it.
if [[ -n "${NS_ASAN_RT:-}" ]]; then
	partial nested "nested sessions: not in the sanitizer run (su run by alice is set-user-ID)"
	echo "ok: once (partly)"
	exit 0
fi
# The proof compares with the instances as process 1 sees them: the
# sandbox's own init, where it has a PID namespace.
if [[ "$(readlink /proc/1/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]]; then
	partial nested "nested sessions: not here (no PID namespace for the sandbox)"
	echo "ok: once (partly)"
	exit 0
fi

deploy su su-l login sshd
sb_note "su - alice inside alice's session: her namespace, nothing mounted"
sandbox_log_clear
out=$(sandbox_su alice 'echo mine >/tmp/alice-file
outer=$(readlink /proc/self/ns/mnt)
su - alice -c "readlink /proc/self/ns/mnt; cat /tmp/alice-file; '"$PROBE"'"
echo "after: $(cat /tmp/alice-file) $(awk "\$5 == \"/tmp\"" /proc/self/mountinfo | wc -l) $outer"') ||
	fail "su - alice, then su - alice: $out"
inner_ns=$(sed -n 1p <<<"$out")
outer_ns=$(sed -n 's/^after: .* //p' <<<"$out")
assert_eq "$inner_ns" "$outer_ns" "the nested session's namespace"
assert_eq "mine" "$(sed -n 2p <<<"$out")" "alice's file, seen from the nested session"
assert_eq "$(want alice)" "$(sed -n 3p <<<"$out")" "the nested su - alice"
assert_eq "after: mine $((BASE_T + 1)) $outer_ns" "$(sed -n 4p <<<"$out")" \
	"alice's session after the nested one closed"
assert_log_contains "in the namespace set up for alice already" "the nested su - alice"
rm -f /tmp/tmp-inst/alice/alice-file

sb_note "su - bob inside alice's session (unmnt_remnt): a namespace of his own"
LINE_ARGS=unmnt_remnt deploy su su-l login sshd
install -d -m 1777 /tmp/tmp-inst/bob
echo bob >/tmp/tmp-inst/bob/bob-file
echo alice >/tmp/tmp-inst/alice/alice-file
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt
su - bob -c "readlink /proc/self/ns/mnt; ls -A /tmp; '"$PROBE"'"') || fail "su - alice, then su - bob: $out"
assert_ne "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" "bob's namespace inside alice's"
assert_eq "bob-file" "$(sed -n 3p <<<"$out")" "what bob sees in /tmp"
assert_eq "$(want bob)" "$(sed -n 4p <<<"$out")" "su - bob inside alice's session"

sb_note "bob's links in his /tmp do not make it pass for alice's instance"
# In bob's namespace /tmp/tmp-inst/alice would lead back to /tmp, his
# instance, through his links; the proof follows none of a user's links.
echo alice >/tmp/tmp-inst/alice/alice-file
sandbox_log_clear
out=$(sandbox_su bob 'ln -s . /tmp/tmp-inst && ln -s . /tmp/alice
readlink /proc/self/ns/mnt
su - alice -c "readlink /proc/self/ns/mnt; ls -A /tmp"') || fail "su - bob, then su - alice: $out"
assert_ne "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" "alice's namespace inside bob's"
assert_eq "alice-file" "$(sed -n '3,$p' <<<"$out")" "what alice sees in /tmp: [$out]"
assert_not_contains "$(sandbox_log)" "in the namespace set up for alice already" \
	"su - alice inside bob's session"
rm -f /tmp/tmp-inst/bob/tmp-inst /tmp/tmp-inst/bob/alice

sb_note "a namespace whose /tmp is no longer a mount of her instance is set up anew"
# root in alice's session (root is not polyinstantiated: it stays in her
# namespace) covers her /tmp and /var/tmp with tmpfs of its own: her
# polydirs no longer show her instances.
deploy su su-l login sshd
sandbox_log_clear
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt
su -c "mount -t tmpfs ns-once-cover /tmp && mount -t tmpfs ns-once-cover /var/tmp && su - alice -c \"readlink /proc/self/ns/mnt\""') ||
	fail "su - alice, su, mount, su - alice: $out"
assert_ne "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" "su - alice over a covered /tmp"
assert_not_contains "$(sandbox_log)" "in the namespace set up for alice already" \
	"su - alice over a covered /tmp"

sb_note "share_namespace: su - alice inside alice's shared session joins nothing new"
LINE_ARGS=share_namespace deploy su su-l
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt; su - alice -c "readlink /proc/self/ns/mnt; '"$PROBE"'"') ||
	fail "share_namespace: su - alice, then su - alice: $out"
assert_eq "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" "share_namespace: the nested session's namespace"
assert_eq "$(want alice)" "$(sed -n 3p <<<"$out")" "share_namespace: the nested su - alice"

sb_note "share_namespace: a stale state whose number is the caller's namespace proves nothing"
# Issue 31, point 3: alice's pin is gone (a close killed, say) and its state
# left, naming the very namespace her next session is opened from, as the
# kernel hands a freed namespace's number to the next one at once. Her
# session is set up all the same; before, the numbers were taken for the
# pin and she got the real /tmp.
rm -f "$SB_OUT"/stale.*
sandbox_su alice ': >'"$SB_OUT"'/stale.up; while [ ! -e '"$SB_OUT"'/stale.go ]; do sleep 0.05; done' \
	>"$SB_OUT/stale.out" &
held=$!
sandbox_wait_for "$SB_OUT/stale.up"
state=$(ls /run/pam_namespace/2001/*.state)
: >"$SB_OUT/stale.go"
wait "$held" || fail "alice's held session: $(cat "$SB_OUT/stale.out")"
assert_no_file "$state" "alice's state after her last close"
printf 'pam_namespace-share 1\nns %s\nroot %s\nuser alice\npolydir /tmp\npolydir /var/tmp\n' \
	"$(stat -L -c '%d %i' /proc/self/ns/mnt)" "$(stat -c '%d %i' /)" >"$state"
chmod 0600 "$state"
sandbox_log_clear
out=$(sandbox_su alice "$PROBE") || fail "share_namespace: su - alice over a stale state: $out"
assert_eq "$(want alice)" "$(tail -n 1 <<<"$out")" "share_namespace: su - alice over a stale state"
assert_not_contains "$(sandbox_log)" "in the namespace set up for alice already" \
	"share_namespace: su - alice over a stale state"
assert_no_file "$state" "the stale state after the session that replaced it"

sb_note "a tmpfs line has no instance to compare: the nested session gets its own (as Linux-PAM)"
sandbox_conf "/tmp /tmp/tmp-inst/ tmpfs root"
deploy su su-l
out=$(sandbox_su alice 'echo outer >/tmp/f; readlink /proc/self/ns/mnt; su - alice -c "readlink /proc/self/ns/mnt; ls -A /tmp"; cat /tmp/f') ||
	fail "tmpfs: su - alice, then su - alice: $out"
assert_ne "$(sed -n 1p <<<"$out")" "$(sed -n 2p <<<"$out")" "tmpfs: the nested session's namespace"
assert_eq "outer" "$(sed -n '$p' <<<"$out")" "tmpfs: the outer session's /tmp after the nested one"
assert_eq "$BASE_T" "$(sandbox_mounts_at /tmp)" "mounts left on the real /tmp"
echo "ok: once"
