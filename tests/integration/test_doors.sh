#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The doors of README.md's deployment table no other test opens, with the
# real programs and the host's own Debian pam.d files: sudo (alice to bob,
# root to alice), sudo -i, runuser -u, runuser -l, and an at job run by
# atd. Each is enabled the two ways the README gives:
#   - by hand: the module's line at the end of the door's own file (sudo,
#     sudo-i, runuser, atd; runuser-l includes runuser, so not there: put
#     there too, it runs twice, the tool warns, and the second run mounts
#     nothing),
#   - pam-auth-update --enable namespace-ng, the package's profile (its
#     module named by this test's path), into common-session and
#     common-session-noninteractive,
# and for each it is shown what the user sees: a private /tmp (a file
# written there is in the user's instance, not in the real /tmp, and her
# next session finds it), exactly one mount of the module on /tmp and on
# /var/tmp, nothing left when it ends (no mount in the caller's namespace,
# no process of the user, nothing in /run/pam_namespace), and
# pam_namespace_check --service NAME saying how many times the stack runs
# the module, which matches what happened: runuser's stacks include
# neither common file, so pam-auth-update leaves its sessions with the
# real /tmp, as the README says. cron runs jobs only at minute boundaries:
# it is left to the boot suites (a PARTIAL line). Linux-PAM's module goes
# through the by-hand doors too, shown, not judged.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"

DOOR_SERVICES=(sudo sudo-i runuser runuser-l atd)
# The host's files, read before the sandbox covers /etc/pam.d.
declare -A HOST_PAM
for f in common-session common-session-noninteractive common-auth common-account \
	common-password "${DOOR_SERVICES[@]}"; do
	[[ -f /etc/pam.d/$f ]] && HOST_PAM[$f]=$(cat "/etc/pam.d/$f")
done
declare -A HOST_SEC
for f in limits.conf pam_env.conf; do
	[[ -f /etc/security/$f ]] && HOST_SEC[$f]=$(cat "/etc/security/$f")
done
for f in common-session common-session-noninteractive common-auth common-account; do
	[[ -n "${HOST_PAM[$f]:-}" ]] || skip "/etc/pam.d/$f: not a Debian system's pam.d"
done

sandbox_enter "$@"
T0=$SECONDS
for f in "${!HOST_SEC[@]}"; do
	printf '%s\n' "${HOST_SEC[$f]}" >"/etc/security/$f"
	chmod 0644 "/etc/security/$f"
done
sandbox_private_tmp root

# Which doors this system has: the program and its pam.d file.
HAVE_SUDO=1 HAVE_RUNUSER=1 HAVE_AT=1
if ! command -v sudo >/dev/null || [[ -z "${HOST_PAM[sudo]:-}" || -z "${HOST_PAM[sudo-i]:-}" ]]; then
	partial sudo "sudo and sudo -i: sudo is not installed (tests/run installs it)"
	HAVE_SUDO=
fi
if ! command -v runuser >/dev/null || [[ -z "${HOST_PAM[runuser]:-}" || -z "${HOST_PAM[runuser-l]:-}" ]]; then
	partial runuser "runuser and runuser -l: no runuser or its pam.d files"
	HAVE_RUNUSER=
fi
if ! command -v at >/dev/null || ! command -v atd >/dev/null || [[ -z "${HOST_PAM[atd]:-}" ]]; then
	partial at "at jobs: at is not installed (tests/run installs it)"
	HAVE_AT=
fi
partial cron "cron jobs: cron starts a job only at a minute boundary, up to a minute's wait; the boot suites (boot, boot_trixie) log in through cron"

# sudoers: throwaway copies over the host's (read-only here in any case).
# alice may run anything as bob without a password; root anything.
install -d -m 0750 "$SB_DIR/etc/sudoers.d"
cat >"$SB_DIR/etc/sudoers" <<'EOF'
Defaults	env_reset
Defaults	!fqdn
root	ALL=(ALL:ALL) ALL
alice	ALL=(bob) NOPASSWD: ALL
EOF
chmod 0440 "$SB_DIR/etc/sudoers"
if [[ -e /etc/sudoers ]]; then
	mount --bind "$SB_DIR/etc/sudoers" /etc/sudoers
	[[ -d /etc/sudoers.d ]] && mount --bind "$SB_DIR/etc/sudoers.d" /etc/sudoers.d
fi

# at's spool: a throwaway tmpfs over /var/spool/cron, made as the package
# makes it (daemon's, sticky, group-writable).
if [[ -n "$HAVE_AT" ]]; then
	[[ -d /var/spool/cron ]] || fail "at is installed but /var/spool/cron is missing"
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-doors-spool /var/spool/cron
	install -d -m 1770 -o daemon -g daemon /var/spool/cron/atjobs /var/spool/cron/atspool
	install -m 0600 -o daemon -g daemon /dev/null /var/spool/cron/atjobs/.SEQ
fi

# pam-auth-update's own files, throwaway: its state in /var/lib/pam, the
# profiles (the host's and the package's, this build's module by path),
# debconf's database, which it writes.
pam_auth_update_setup() {
	local d
	for d in /var/lib/pam /usr/share/pam-configs /var/cache/debconf; do
		install -d -m 0755 "$SB_DIR/copy$d"
		[[ -d $d ]] && cp -a "$d/." "$SB_DIR/copy$d/"
		mount --bind "$SB_DIR/copy$d" "$d"
		mount -o remount,bind,rw "$d"
	done
	sed "s|pam_namespace_ng\.so|$NS_MODULE|" "$SB_SOURCE_ROOT/debian/pam-configs/namespace-ng" \
		>/usr/share/pam-configs/namespace-ng
	chmod 0644 /usr/share/pam-configs/namespace-ng
}

# deploy by-hand|pam-auth-update [MODULE]: the host's pam.d files back,
# then MODULE (default the one under test) added as the README says.
deploy() {
	local how=$1 module=${2:-$NS_MODULE} f out
	for f in "${!HOST_PAM[@]}"; do
		printf '%s\n' "${HOST_PAM[$f]}" >"/etc/pam.d/$f"
	done
	chmod 0644 /etc/pam.d/*
	case $how in
	by-hand)
		for f in sudo sudo-i runuser atd; do
			[[ -n "${HOST_PAM[$f]:-}" ]] || continue
			printf 'session    required   %s\n' "$module" >>"/etc/pam.d/$f"
		done
		;;
	pam-auth-update)
		out=$(DEBIAN_FRONTEND=noninteractive pam-auth-update --enable namespace-ng 2>&1) ||
			fail "pam-auth-update --enable namespace-ng: $out"
		for f in common-session common-session-noninteractive; do
			grep -q "^session.*$module" "/etc/pam.d/$f" ||
				fail "pam-auth-update left /etc/pam.d/$f without the module: $(cat "/etc/pam.d/$f") $out"
		done
		;;
	esac
}

# The session's view: the user, mounts on /tmp and /var/tmp, a stray
# instance parent, what /tmp held, then a file written there. $1 names it.
PROBE=$SB_DIR/bin/door-probe
cat >"$PROBE" <<'EOF'
#!/bin/sh
t=$(awk '$5 == "/tmp"' /proc/self/mountinfo | wc -l)
v=$(awk '$5 == "/var/tmp"' /proc/self/mountinfo | wc -l)
s=no
if [ -e /tmp/tmp-inst ] || [ -e /var/tmp/tmp-inst ]; then s=yes; fi
r=$(awk '$5 == "/tmp" { r = $4 } END { print r }' /proc/self/mountinfo)
echo "$(id -un) tmp=$t vartmp=$v stray=$s"
echo "root:$r"
echo "before:[$(ls -A /tmp | tr '\n' ' ')]"
echo "$1" >"/tmp/$1"
EOF
chmod 0755 "$PROBE"
BASE_T=$(sandbox_mounts_at /tmp)
BASE_V=$(sandbox_mounts_at /var/tmp)

# With a PID namespace of the sandbox's own, pgrep sees its processes alone.
PIDNS=
[[ "$(readlink /proc/1/ns/mnt)" == "$(readlink /proc/self/ns/mnt)" ]] && PIDNS=1

# The doors: "RUNNER TAG" runs the probe through the door, prints what it
# printed.
as_alice() {
	setpriv --reuid=2001 --regid=2001 --init-groups "$@"
}
door_sudo_alice_bob() {
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} setpriv --reuid=2001 --regid=2001 --init-groups \
		sudo -n -u bob "$PROBE" "$1" 2>&1
}
door_sudo_alice() {
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} sudo -n -u alice "$PROBE" "$1" 2>&1
}
door_sudo_i_alice() {
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} sudo -n -i -u alice "$PROBE" "$1" 2>&1
}
door_runuser() {
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} runuser -u alice -- "$PROBE" "$1" 2>&1
}
door_runuser_l() {
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} runuser -l alice -c "$PROBE $1" 2>&1
}
# alice submits the job with at (set-user-ID daemon: no PAM), atd -s runs
# the queue once, and the test waits for the job's session to end: atd's
# child closes it after the job (pam_unix logs that); with a PID namespace,
# until no atd is left at all.
at_session_closed() {
	if [[ -n "$PIDNS" ]]; then
		[[ -z "$(pgrep -x atd)" ]]
	else
		sandbox_log_sync
		grep -q 'pam_unix(atd:session): session closed for user alice' "$SB_LOG"
	fi
}
door_at() {
	local out=$SB_OUT/at-$1 i
	rm -f "$out"
	sandbox_log_clear
	printf '%s %s >%s 2>&1\n' "$PROBE" "$1" "$out" |
		(cd / && as_alice at -M now 2>&1) >"$SB_OUT/at-submit" ||
		{ cat "$SB_OUT/at-submit" && return 1; }
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} atd -s || return 1
	for ((i = 0; i < 200; i++)); do
		if [[ -s "$out" ]] && at_session_closed; then
			cat "$out"
			return 0
		fi
		sleep 0.05
	done
	echo "the at job did not run: $(cat "$out" 2>/dev/null)"
	return 1
}

# no_leftovers WHAT: nothing of a session remains in this namespace.
no_leftovers() {
	assert_eq "$BASE_T" "$(sandbox_mounts_at /tmp)" "$1: mounts left on the real /tmp"
	assert_eq "$BASE_V" "$(sandbox_mounts_at /var/tmp)" "$1: mounts left on the real /var/tmp"
	if [[ -n "$PIDNS" ]]; then
		assert_eq "" "$(pgrep -u alice,bob -a || true)" "$1: processes of the users left"
	fi
	assert_eq "" "$(find /run/pam_namespace -mindepth 1 2>/dev/null || true)" "$1: state left in /run/pam_namespace"
}

# private WHAT RUNNER USER TAG: two sessions through the door: the first
# writes /tmp/TAG into USER's instance, the next finds it there; one mount
# each on /tmp and /var/tmp; nothing left.
private() {
	local what=$1 run=$2 user=$3 tag=$4 out t=$SECONDS
	sandbox_log_clear
	out=$("$run" "$tag") || fail "$what: $out"
	assert_eq "$user tmp=$((BASE_T + 1)) vartmp=$((BASE_V + 1)) stray=no" \
		"$(grep -a ' tmp=' <<<"$out")" "$what: the session's mounts"
	assert_eq "root:/tmp-inst/$user" "$(grep -a '^root:' <<<"$out")" "$what: what is mounted on /tmp"
	assert_not_contains "$(grep -a '^before:' <<<"$out")" "tmp-inst" "$what: the session saw the real /tmp"
	assert_file "/tmp/tmp-inst/$user/$tag" "$what: the file written in the session's /tmp"
	assert_no_file "/tmp/$tag" "$what: the real /tmp"
	no_leftovers "$what"
	out=$("$run" "$tag-next") || fail "$what, again: $out"
	assert_contains "$(grep -a '^before:' <<<"$out" | sed 's/^before:\[/ /')" " $tag " \
		"$what: the next session's /tmp"
	assert_file "/tmp/tmp-inst/$user/$tag-next" "$what, again"
	no_leftovers "$what, again"
	sb_note "$what: private, two sessions ($((SECONDS - t)) s)"
}

# not_private WHAT RUNNER USER TAG: the door's stack does not run the
# module: the session is in the caller's namespace with the real /tmp.
not_private() {
	local what=$1 run=$2 user=$3 tag=$4 out
	sb_note "$what: not private"
	out=$("$run" "$tag") || fail "$what: $out"
	assert_eq "$user tmp=$BASE_T vartmp=$BASE_V stray=yes" "$(grep -a ' tmp=' <<<"$out")" \
		"$what: the session's mounts"
	assert_file "/tmp/$tag" "$what: the file written in the real /tmp"
	rm -f "/tmp/$tag"
	no_leftovers "$what"
}

# runs SERVICE N: pam_namespace_check --service says the stack runs the
# module N times (0 or 1), and warns about nothing.
runs() {
	local out
	out=$("$NS_CHECK" --service "$1" 2>&1) || fail "--service $1: $out"
	case $2 in
	0) assert_contains "$out" "$1: pam_namespace does not run at session open" "--service $1" ;;
	1) assert_contains "$out" "$1: pam_namespace runs once at session open" "--service $1" ;;
	esac
	assert_not_contains "$out" "warning" "--service $1"
	sb_note "--service $1: $(grep -a "^$1: pam_namespace" <<<"$out" | cut -d, -f1)"
}

# every_door HOW: each door, as HOW enabled it.
every_door() {
	local how=$1 ru=private rn=1
	if [[ $how == pam-auth-update ]]; then
		ru=not_private rn=0
	fi
	if [[ -n "$HAVE_SUDO" ]]; then
		runs sudo 1
		runs sudo-i 1
		if [[ -n "${NS_ASAN_RT:-}" ]]; then
			[[ $how == by-hand ]] &&
				partial alice_sudo "alice's sudo: not in the sanitizer run (sudo run by alice is set-user-ID)"
		else
			private "$how: alice: sudo -u bob" door_sudo_alice_bob bob "sudo-bob-$how"
		fi
		private "$how: root: sudo -u alice" door_sudo_alice alice "sudo-alice-$how"
		private "$how: root: sudo -i -u alice" door_sudo_i_alice alice "sudo-i-$how"
	fi
	if [[ -n "$HAVE_RUNUSER" ]]; then
		runs runuser $rn
		runs runuser-l $rn
		$ru "$how: root: runuser -u alice" door_runuser alice "runuser-$how"
		$ru "$how: root: runuser -l alice" door_runuser_l alice "runuser-l-$how"
	fi
	if [[ -n "$HAVE_AT" ]]; then
		runs atd 1
		private "$how: alice: at now, atd -s" door_at alice "at-$how"
	fi
}

deploy by-hand
every_door by-hand

# The README puts the line in runuser only, as runuser-l includes it; put
# in both, the stack runs the module twice: the tool says so, and the
# second run mounts nothing (one mount on /tmp all the same).
if [[ -n "$HAVE_RUNUSER" ]]; then
	printf 'session    required   %s\n' "$NS_MODULE" >>/etc/pam.d/runuser-l
	out=$("$NS_CHECK" --service runuser-l 2>&1) || fail "--service runuser-l: $out"
	assert_contains "$out" "runuser-l: pam_namespace runs 2 times at session open" "--service runuser-l, twice"
	assert_contains "$out" "warning: pam_namespace runs again for service runuser-l (run 2; the first is /etc/pam.d/runuser:" \
		"--service runuser-l, twice"
	sb_note "--service runuser-l, the line in runuser and runuser-l: runs 2 times, warned"
	private "by-hand, in runuser and runuser-l: root: runuser -l alice" door_runuser_l alice runuser-l-twice
	assert_log_contains "nothing mounted" "runuser -l, the module twice in its stack"
fi

pam_auth_update_setup
deploy pam-auth-update
every_door pam-auth-update

sb_note "pam-auth-update --disable namespace-ng takes the line out again"
out=$(DEBIAN_FRONTEND=noninteractive pam-auth-update --disable namespace-ng 2>&1) ||
	fail "pam-auth-update --disable namespace-ng: $out"
for f in common-session common-session-noninteractive; do
	assert_not_contains "$(cat "/etc/pam.d/$f")" "$NS_MODULE" "/etc/pam.d/$f after --disable"
done
for s in ${HAVE_SUDO:+sudo sudo-i} ${HAVE_AT:+atd}; do
	runs "$s" 0
done
if [[ -n "$HAVE_SUDO" ]]; then
	not_private "disabled: root: sudo -u alice" door_sudo_alice alice sudo-alice-disabled
fi

# Linux-PAM's module through the same doors, by hand: shown, not judged.
LP=$(sb_linux_pam_module)
if [[ -n "$LP" && -z "${NS_ASAN_RT:-}" ]]; then
	sb_note "Linux-PAM's $LP through the same doors (shown, not judged):"
	deploy by-hand "$LP"
	for d in ${HAVE_SUDO:+door_sudo_alice door_sudo_i_alice} \
		${HAVE_RUNUSER:+door_runuser door_runuser_l} ${HAVE_AT:+door_at}; do
		out=$("$d" "lp-$d" 2>&1) || true
		sb_note "  $d: $(grep -a ' tmp=' <<<"$out" || echo "failed: $out"); in alice's instance: $(
			[[ -e /tmp/tmp-inst/alice/lp-$d ]] && echo yes || echo no
		); mounts left on /tmp: $(($(sandbox_mounts_at /tmp) - BASE_T))"
	done
fi
sb_note "took $((SECONDS - T0)) s"
echo "ok: doors"
