# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The integration tests' sandbox: a private mount namespace (and, where the
# kernel allows it, a private PID namespace) in which throwaway copies of
# /etc/passwd, /etc/group, /etc/shadow, /etc/pam.d and /etc/security are
# bind-mounted over the real ones and tmpfs covers /tmp, /var/tmp, /home,
# /run, /var/log, /srv and /dev. Nothing done inside reaches the host, and
# everything inside ends with the test.
#
# Every mount of the host is made read-only in the sandbox first (but
# /proc, /sys and /dev), so a test, or a module it fools, writes only where
# the sandbox's own tmpfs and binds are: anywhere else, the build tree
# included, it gets EROFS instead of leaving something on the host. A
# directory a test needs outside /tmp (a root-owned instance parent others
# cannot write, a victim of an attack) goes under /srv. tests/run also
# fails a run that changed the host's / or mount table
# (tests/lib/host_state.sh).
#
# A test sources this file and calls sandbox_enter "$@" first: outside the
# namespace that re-executes the test inside it (or exits 77 when it cannot);
# inside, it builds the sandbox and returns to the test body.
#
#   NS_MODULE  the PAM module under test (default: build/pam_namespace/module/pam_namespace.so)
#   NS_DRIVER  the PAM driver program (default: build/tests/driver/pam_driver)
#   NS_PROBE, NS_CHECK, NS_HELPER, NS_ATTACKER, NS_SSHD: the other programs,
#   where a test uses them
#   (the module and every program named here are copied into the sandbox,
#   so they stay reachable wherever they were built, /tmp included)
#
# Run directly, "sandbox.sh COMMAND ARGS..." runs COMMAND inside a sandbox
# (COMMAND may source this file again for the helpers).
#
# Inside the sandbox:
#   users alice (2001), bob (2002), carol (2003), homes in /home
#   PAM services su, su-l, login and ns-driver, each ending with
#     "session required <module> <args>"; other denies everything
#   $SB_DIR (/run/ns-sandbox) holds the sandbox's own files; $SB_OUT is a
#   world-writable directory for files a session writes for the test to read
#   syslog messages (the module's pam_syslog lines) are collected in $SB_LOG

SB_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SB_SOURCE_ROOT=${NS_SOURCE_ROOT:-$(cd "$SB_LIB_DIR/../.." && pwd)}
SB_DIR=/run/ns-sandbox
SB_OUT=$SB_DIR/out
SB_LOG=$SB_DIR/syslog
SB_TIMEOUT=${SB_TIMEOUT:-60}
SB_USERS=(alice:2001 bob:2002 carol:2003)
# The built programs a test may name; each is copied into the sandbox.
SB_PROGRAMS=(NS_DRIVER NS_PROBE NS_CHECK NS_HELPER NS_ATTACKER NS_SSHD NS_BENCH NS_DENY_NSFS
	NS_NSS_BROKEN NS_PTY_RUN)
SB_SYSTEM_MODULE_DIRS=(/lib/x86_64-linux-gnu/security /usr/lib/x86_64-linux-gnu/security
	/lib/security /usr/lib/security)

# ---------------------------------------------------------------- messages

sb_note() {
	printf '# %s\n' "$*"
}

# Print a failure with the caller's location and end the test.
fail() {
	local where="${BASH_SOURCE[2]:-?}:${BASH_LINENO[1]:-?}"
	if [[ ${FUNCNAME[1]:-} != assert_* ]]; then
		where="${BASH_SOURCE[1]:-?}:${BASH_LINENO[0]:-?}"
	fi
	printf 'FAIL: %s: %s\n' "${where##*/}" "$*" >&2
	exit 1
}

skip() {
	printf 'SKIP: %s\n' "$*"
	exit 77
}

# partial PART WHY: this run leaves PART of the test out, and says so in a
# line tests/run's table shows for the test (tests/expected-skips lists the
# parts this machine may leave out; any other fails the run). The test goes
# on with the rest.
partial() {
	local part=$1
	shift
	printf 'PARTIAL %s: %s\n' "$part" "$*"
}

# ---------------------------------------------------------------- assertions

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	if [[ "$1" != "$2" ]]; then
		fail "${3:-values differ}: expected [$1], got [$2]"
	fi
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
	if [[ "$1" == "$2" ]]; then
		fail "${3:-values are equal}: both are [$1]"
	fi
}

# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
	if [[ "$1" != *"$2"* ]]; then
		fail "${3:-missing text}: [$2] not in [$1]"
	fi
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
	if [[ "$1" == *"$2"* ]]; then
		fail "${3:-unexpected text}: [$2] found in [$1]"
	fi
}

assert_file() {
	[[ -e "$1" ]] || fail "${2:-file missing}: $1 does not exist"
}

assert_no_file() {
	[[ ! -e "$1" && ! -L "$1" ]] || fail "${2:-unexpected file}: $1 exists"
}

# assert_status EXPECTED ACTUAL [WHAT]
assert_status() {
	if [[ "$1" != "$2" ]]; then
		fail "${3:-exit status}: expected $1, got $2"
	fi
}

assert_nonzero() {
	if [[ "$1" == 0 ]]; then
		fail "${2:-command}: succeeded, but should have failed"
	fi
}

# ---------------------------------------------------------------- entering

sb_have_pidns() {
	unshare --mount --pid --fork --mount-proc --kill-child true 2>/dev/null
}

# Re-execute the calling script (or $SB_SCRIPT) inside a fresh sandbox, or
# set the sandbox up when already inside. Exits 77 when not root or when namespaces are denied.
sandbox_enter() {
	if [[ -n "${SB_INSIDE:-}" ]]; then
		sb_setup
		return 0
	fi
	[[ $(id -u) == 0 ]] || skip "needs root"
	command -v unshare >/dev/null || skip "unshare(1) is not installed"
	unshare --mount --propagation private true 2>/dev/null ||
		skip "cannot create a mount namespace here"
	local script="${SB_SCRIPT:-${BASH_SOURCE[-1]}}"
	local -a flags=(--mount --propagation private --fork --kill-child)
	if sb_have_pidns; then
		flags+=(--pid --mount-proc)
	fi
	export SB_INSIDE=1 SB_LIB="$SB_LIB_DIR/sandbox.sh"
	export NS_MODULE NS_DRIVER
	NS_MODULE=$(sb_abspath "${NS_MODULE:-$SB_SOURCE_ROOT/build/pam_namespace/module/pam_namespace.so}")
	NS_DRIVER=${NS_DRIVER:-$SB_SOURCE_ROOT/build/tests/driver/pam_driver}
	# The pty driver for login(1) (sandbox_login), built beside pam_driver.
	NS_PTY_RUN=${NS_PTY_RUN:-${NS_DRIVER%/*}/pty_run}
	local var
	for var in "${SB_PROGRAMS[@]}"; do
		if [[ -n "${!var:-}" ]]; then
			export "${var?}"
			printf -v "$var" '%s' "$(sb_abspath "${!var}")"
		fi
	done
	[[ -f "$NS_MODULE" ]] || fail "no module at $NS_MODULE (set NS_MODULE)"
	exec unshare "${flags[@]}" bash "$script" "$@"
}

sb_abspath() {
	if [[ -e "$1" ]]; then
		readlink -f -- "$1"
	else
		printf '%s\n' "$1"
	fi
}

# True when the module under test is the system's Linux-PAM pam_namespace.
module_is_linux_pam() {
	local d
	for d in "${SB_SYSTEM_MODULE_DIRS[@]}"; do
		if [[ -e "$d/pam_namespace.so" &&
			"$(readlink -f "$d/pam_namespace.so")" == "$(readlink -f "$NS_MODULE_ORIG")" ]]; then
			return 0
		fi
	done
	return 1
}

# The system's Linux-PAM pam_namespace.so, or nothing when none is installed.
sb_linux_pam_module() {
	local d
	for d in "${SB_SYSTEM_MODULE_DIRS[@]}"; do
		if [[ -f "$d/pam_namespace.so" ]]; then
			printf '%s\n' "$d/pam_namespace.so"
			return 0
		fi
	done
}

# ---------------------------------------------------------------- setup

sb_setup() {
	# Belt and braces: never touch the host's mount table.
	[[ "$(readlink /proc/1/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]] ||
		[[ $$ == 1 ]] || fail "refusing to set up a sandbox in the initial mount namespace"

	NS_MODULE_ORIG=$NS_MODULE
	sb_readonly_host
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-sandbox-run /run
	install -d -m 0755 "$SB_DIR" "$SB_DIR/bin" "$SB_DIR/etc" "$SB_DIR/login-cmd"
	install -d -m 1777 "$SB_OUT" /run/lock
	: >"$SB_LOG"

	# Copies, so the module and the driver stay reachable whatever covers
	# the directories they were built in.
	install -m 0644 "$NS_MODULE" "$SB_DIR/bin/pam_namespace.so"
	NS_MODULE=$SB_DIR/bin/pam_namespace.so
	local var
	for var in "${SB_PROGRAMS[@]}"; do
		if [[ -x "${!var:-}" ]]; then
			install -m 0755 "${!var}" "$SB_DIR/bin/${!var##*/}"
			printf -v "$var" '%s' "$SB_DIR/bin/${!var##*/}"
		fi
	done
	# The valgrind run's log directory, bound here (it stays the same
	# directory, whatever covers the place it lies in), and its suppressions.
	if [[ -d "${NS_DRIVER_VALGRIND:-}" ]]; then
		install -d -m 1777 "$SB_DIR/valgrind"
		mount --bind "$NS_DRIVER_VALGRIND" "$SB_DIR/valgrind"
		# A bind of a read-only mount is read-only: this one is written.
		mount -o remount,bind,rw "$SB_DIR/valgrind"
		NS_DRIVER_VALGRIND=$SB_DIR/valgrind
		if [[ -f "${NS_DRIVER_VALGRIND_SUPP:-}" ]]; then
			install -m 0644 "$NS_DRIVER_VALGRIND_SUPP" "$SB_DIR/valgrind.supp"
			NS_DRIVER_VALGRIND_SUPP=$SB_DIR/valgrind.supp
		fi
	fi

	# login(1) writes wtmp, btmp and lastlog; let it write to nowhere.
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-sandbox-log /var/log

	sb_setup_etc
	mount -t tmpfs -o mode=1777,nosuid,nodev ns-sandbox-tmp /tmp
	mount -t tmpfs -o mode=1777,nosuid,nodev ns-sandbox-vartmp /var/tmp
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-sandbox-home /home
	# Root's own directories for tests, writable by root alone (Debian's
	# base-files ships /srv; / is read-only here, so none can be made).
	[[ -d /srv ]] || fail "no /srv to cover with the sandbox's tmpfs"
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-sandbox-srv /srv
	local u name uid
	for u in "${SB_USERS[@]}"; do
		name=${u%%:*}
		uid=${u##*:}
		install -d -m 0700 -o "$uid" -g "$uid" "/home/$name"
		install -m 0644 -o "$uid" -g "$uid" /dev/null "/home/$name/.hushlogin"
	done

	sb_setup_dev
	# A working directory under what the tmpfs now covers (meson runs the
	# tests in the build directory, which may be under /tmp) is gone by
	# name; programs that look it up by name (pyenv's shims) would fail.
	[[ -d "$PWD" && "$PWD" -ef . ]] || cd /
	sb_start_syslog
	trap sb_cleanup EXIT
}

# Every mount this namespace has from the host read-only here (a per-mount
# flag: the host's mounts stay as they are), but /proc, /sys and /dev, which
# hold no files a test could leave. What the sandbox mounts later is its
# own and writable.
sb_readonly_host() {
	local target
	while read -r target; do
		printf -v target '%b' "$target"
		mount -o remount,bind,ro "$target" ||
			fail "cannot make $target read-only in the sandbox"
	done < <(awk '$5 !~ "^/(proc|sys|dev)(/|$)" { print $5 }' /proc/self/mountinfo)
}

sb_cleanup() {
	local rc=$?
	if [[ -n "${SB_SYSLOG_PID:-}" ]]; then
		kill "$SB_SYSLOG_PID" 2>/dev/null || true
		wait "$SB_SYSLOG_PID" 2>/dev/null || true
	fi
	if [[ $rc != 0 && $rc != 77 && -s "$SB_LOG" ]]; then
		printf '# --- syslog in the sandbox ---\n' >&2
		sed 's/^/# /' "$SB_LOG" >&2
	fi
	return "$rc"
}

# The user's login shell: a plain /bin/sh, except that a login shell with no
# arguments runs the command sandbox_login left for the user, so a test can
# run commands in a real login(1) session without typing at a terminal.
sb_write_shell() {
	cat >"$SB_DIR/bin/ns-shell" <<EOF
#!/bin/sh
if [ "\$#" -gt 0 ]; then
	exec /bin/sh "\$@"
fi
cmd=$SB_DIR/login-cmd/\$(id -un)
if [ -r "\$cmd" ]; then
	exec /bin/sh "\$cmd"
fi
exec /bin/sh
EOF
	chmod 0755 "$SB_DIR/bin/ns-shell"
}

sb_setup_etc() {
	local e="$SB_DIR/etc" u name uid names_re
	names_re=""
	for u in "${SB_USERS[@]}"; do
		names_re+="${names_re:+|}${u%%:*}"
	done
	sb_write_shell
	# Copies of the real files without any users of ours, then ours.
	# root gets the sandbox's login shell too, so "login -f root" runs a
	# command instead of waiting at an interactive shell.
	grep -Ev "^($names_re):" /etc/passwd |
		awk -F: -v OFS=: -v sh="$SB_DIR/bin/ns-shell" '$1 == "root" { $7 = sh } 1' \
			>"$e/passwd"
	grep -Ev "^($names_re):" /etc/group >"$e/group" || true
	grep -Ev "^($names_re):" /etc/shadow >"$e/shadow" || true
	for u in "${SB_USERS[@]}"; do
		name=${u%%:*}
		uid=${u##*:}
		printf '%s:x:%s:%s:%s:/home/%s:%s\n' "$name" "$uid" "$uid" "$name" "$name" \
			"$SB_DIR/bin/ns-shell" >>"$e/passwd"
		printf '%s:x:%s:\n' "$name" "$uid" >>"$e/group"
		printf '%s:*:19700:0:99999:7:::\n' "$name" >>"$e/shadow"
	done
	chmod 0644 "$e/passwd" "$e/group"
	chmod 0640 "$e/shadow"
	chgrp shadow "$e/shadow" 2>/dev/null || true
	mount --bind "$e/passwd" /etc/passwd
	mount --bind "$e/group" /etc/group
	mount --bind "$e/shadow" /etc/shadow

	install -d -m 0755 "$e/pam.d" "$e/security" "$e/security/namespace.d"
	printf '# written by the test\n' >"$e/security/namespace.conf"
	chmod 0644 "$e/security/namespace.conf"
	mount --bind "$e/pam.d" /etc/pam.d
	mount --bind "$e/security" /etc/security
	# shellcheck disable=SC2119 # the default: no module arguments
	sandbox_pam_args
}

# A tmpfs over /dev with only what sessions need, a devpts instance of its
# own, and room for our /dev/log. The host's /dev is not touched.
sb_setup_dev() {
	local d="$SB_DIR/dev" n
	mkdir "$d"
	mount -t tmpfs -o mode=0755,nosuid ns-sandbox-dev "$d"
	for n in null zero full random urandom tty; do
		: >"$d/$n"
		mount --bind "/dev/$n" "$d/$n"
	done
	mkdir -m 0755 "$d/pts"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 ns-sandbox-devpts "$d/pts"
	ln -s pts/ptmx "$d/ptmx"
	mkdir -m 1777 "$d/shm"
	mount -t tmpfs -o mode=1777,nosuid,nodev ns-sandbox-shm "$d/shm"
	ln -s /proc/self/fd "$d/fd"
	ln -s /proc/self/fd/0 "$d/stdin"
	ln -s /proc/self/fd/1 "$d/stdout"
	ln -s /proc/self/fd/2 "$d/stderr"
	mount --move "$d" /dev
}

# A syslog listener on the sandbox's /dev/log, writing one message a line.
sb_start_syslog() {
	local py=/usr/bin/python3 ready="$SB_DIR/syslog.ready" i
	[[ -x "$py" ]] || py=$(command -v python3 || true)
	if [[ -z "$py" ]]; then
		sb_note "python3 not found: syslog messages are not captured"
		return 0
	fi
	"$py" -c '
import os, socket, sys
path, log, ready = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)
with open(log, "ab", buffering=0) as f:
    open(ready, "w").close()
    while True:
        msg = s.recv(65536).rstrip(b"\0\n")
        f.write(msg.replace(b"\n", b" ") + b"\n")
' /dev/log "$SB_LOG" "$ready" </dev/null &
	SB_SYSLOG_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -e "$ready" ]] && return 0
		sleep 0.05
	done
	fail "the syslog listener did not start"
}

# ---------------------------------------------------------------- configuring

# sandbox_pam_args [ARGS...]: (re)write the PAM services with the module
# given these arguments.
# shellcheck disable=SC2120 # arguments are optional
sandbox_pam_args() {
	local p="$SB_DIR/etc/pam.d" line
	line="session required $NS_MODULE${*:+ $*}"
	cat >"$p/su" <<EOF
auth     sufficient pam_rootok.so
auth     required   pam_deny.so
account  required   pam_unix.so
session  required   pam_unix.so
$line
EOF
	cp "$p/su" "$p/su-l"
	cat >"$p/login" <<EOF
auth     required   pam_unix.so
account  required   pam_unix.so
session  required   pam_unix.so
$line
EOF
	cat >"$p/ns-driver" <<EOF
account  required   pam_permit.so
$line
EOF
	cat >"$p/other" <<EOF
auth     required   pam_deny.so
account  required   pam_deny.so
password required   pam_deny.so
session  required   pam_deny.so
EOF
	chmod 0644 "$p"/*
}

# sandbox_conf TEXT: the sandbox's /etc/security/namespace.conf (root, 0644).
sandbox_conf() {
	printf '%s\n' "$1" >/etc/security/namespace.conf
	chmod 0644 /etc/security/namespace.conf
}

# sandbox_conf_d NAME TEXT: /etc/security/namespace.d/NAME.
sandbox_conf_d() {
	printf '%s\n' "$2" >"/etc/security/namespace.d/$1"
	chmod 0644 "/etc/security/namespace.d/$1"
}

# sandbox_inst_parent DIR...: instance parents, root-owned, mode 000.
sandbox_inst_parent() {
	local d
	for d in "$@"; do
		install -d -m 000 -o root -g root "$d"
	done
}

# sandbox_private_tmp [LIST]: the usual setup: /tmp and /var/tmp
# polyinstantiated by user, LIST (default root) excluded, the instance
# parents /tmp/tmp-inst and /var/tmp/tmp-inst made.
sandbox_private_tmp() {
	local list=${1-root}
	sandbox_conf "/tmp     /tmp/tmp-inst/     user ${list}
/var/tmp /var/tmp/tmp-inst/ user ${list}"
	sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
}

# sandbox_plain_services: the plain session that test_syscalls.sh counts and
# tests/bench/trace.sh times (/tmp and /var/tmp, user:noinit), and the
# services they set beside the sandbox's ns-driver: ns-permit (libpam
# alone), ns-limits and ns-limits-permit (the same after pam_limits, as
# Debian's su and login run it: it looks the user up through libpam first),
# and ns-linux-pam where the system has Linux-PAM's module, whose path is
# then in SB_LPAM_MODULE (else it is empty).
sandbox_plain_services() {
	sandbox_conf "/tmp     /tmp/tmp-inst/     user:noinit root
/var/tmp /var/tmp/tmp-inst/ user:noinit root"
	sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
	printf 'account required pam_permit.so\nsession required pam_permit.so\n' >/etc/pam.d/ns-permit
	printf 'account required pam_permit.so\nsession required pam_limits.so\nsession required %s\n' \
		"$NS_MODULE" >/etc/pam.d/ns-limits
	printf 'account required pam_permit.so\nsession required pam_limits.so\nsession required pam_permit.so\n' \
		>/etc/pam.d/ns-limits-permit
	echo '# no limits: pam_limits only reads it' >/etc/security/limits.conf
	SB_LPAM_MODULE=$(sb_linux_pam_module)
	if [[ -n "$SB_LPAM_MODULE" ]]; then
		printf 'account required pam_permit.so\nsession required %s\n' "$SB_LPAM_MODULE" \
			>/etc/pam.d/ns-linux-pam
	fi
	chmod 0644 /etc/pam.d/ns-* /etc/security/limits.conf
}

# sandbox_mounts_at PATH [PID]: how many mounts sit on PATH in the mount
# namespace of PID (default: this shell).
sandbox_mounts_at() {
	awk -v p="$1" '$5 == p { n++ } END { print n + 0 }' "/proc/${2:-self}/mountinfo"
}

# ---------------------------------------------------------------- sessions

# sandbox_su USER CMD: run CMD in a "su - USER" session; prints what the
# session printed (stdout and stderr), returns su's status.
# NS_SU_ENV: VAR=VALUE words for su and login only (the sanitizer run
# preloads the ASan runtime into them, as they load an ASan module).
sandbox_su() {
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	timeout -k 5 "$SB_TIMEOUT" env ${NS_SU_ENV:-} su - "$1" -c "$2" 2>&1
}

# sandbox_login USER CMD: a real "login -f USER" on a pseudo terminal; the
# user's login shell runs CMD. Prints what the terminal showed, without
# carriage returns; returns login's status. The terminal is pty_run's
# (NS_PTY_RUN, tests/driver) where it is built, else script's.
sandbox_login() {
	local user=$1 rc=0 out
	printf '%s\n' "$2" >"$SB_DIR/login-cmd/$user"
	chmod 0644 "$SB_DIR/login-cmd/$user"
	# pty_run outlives login's vhangup(), which script does not (Debian 13).
	if [[ -x "${NS_PTY_RUN:-}" ]]; then
		# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
		out=$(timeout -k 5 "$SB_TIMEOUT" "$NS_PTY_RUN" env ${NS_SU_ENV:-} login -f "$user" </dev/null 2>&1) ||
			rc=$?
	else
		out=$(timeout -k 5 "$SB_TIMEOUT" script -qec "env ${NS_SU_ENV:-} login -f $user" /dev/null </dev/null 2>&1) ||
			rc=$?
	fi
	rm -f "$SB_DIR/login-cmd/$user"
	printf '%s\n' "${out//$'\r'/}"
	return "$rc"
}

# sandbox_driver ARGS...: the PAM driver, service and user first.
sandbox_driver() {
	[[ -x "$NS_DRIVER" ]] || fail "no PAM driver at $NS_DRIVER (set NS_DRIVER)"
	timeout -k 5 "$SB_TIMEOUT" "$NS_DRIVER" "$@" 2>&1
}

# sandbox_refused USER LOGGED WHAT: a pam_driver session for USER fails to
# open (status 67), its command does not run, the driver is left in this
# shell's mount namespace (so nothing stays mounted) and LOGGED is logged.
sandbox_refused() {
	local rc=0 out
	sandbox_log_clear
	out=$(sandbox_driver --show-ns ns-driver "$1" -- touch "$SB_OUT/ran") || rc=$?
	assert_status 67 "$rc" "$3: pam_driver: $out"
	assert_no_file "$SB_OUT/ran" "$3: the session's command"
	assert_eq "$(sandbox_mnt_ns self)" "$(sed -n 's/^mnt_ns=//p' <<<"$out")" \
		"$3: pam_driver's namespace"
	assert_log_contains "$2" "$3"
}

# sandbox_wait_for FILE [SECONDS]: until FILE exists (default 10 s), or fail.
sandbox_wait_for() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		[[ -e "$1" ]] && return 0
		sleep 0.05
	done
	fail "timed out waiting for $1"
}

# sandbox_mnt_ns PID: the mount namespace of PID ("self": this shell).
sandbox_mnt_ns() {
	readlink "/proc/$1/ns/mnt"
}

# sandbox_bind_new_ns TARGET [SCRIPT]: a mount namespace made for it (its
# propagation private), where sh runs SCRIPT first, is bound onto TARGET,
# a file; the process holding it stays, its pid in SB_NS_HOLDER (the bind
# alone keeps the namespace once it is killed). The kernel binds a
# namespace only into one with a smaller id, and 6.18 hands ids out in
# per-CPU batches: a namespace made on another CPU than this shell's can
# have the smaller id (EINVAL: 81 binds of 100 refused in a loop here, the
# holder on either CPU). So it is made on each CPU in turn until the bind
# takes, as the module's share pin does (share/commit.c).
sandbox_bind_new_ns() {
	local cpu ready=$SB_OUT/.new-ns-ready
	SB_NS_HOLDER=
	for ((cpu = 0; cpu < $(nproc --all); cpu++)); do
		rm -f "$ready"
		taskset -c "$cpu" unshare --mount --propagation private sh -c \
			"${2:-:} && touch $ready && exec sleep 600" &
		SB_NS_HOLDER=$!
		sandbox_wait_for "$ready"
		mount --bind "/proc/$SB_NS_HOLDER/ns/mnt" "$1" 2>/dev/null && return 0
		kill "$SB_NS_HOLDER"
		wait "$SB_NS_HOLDER" || true
	done
	SB_NS_HOLDER=
	fail "cannot bind a new mount namespace onto $1 from any CPU"
}

# ---------------------------------------------------------------- syslog

# Wait until every message sent so far has reached $SB_LOG.
sandbox_log_sync() {
	local mark i
	[[ -n "${SB_SYSLOG_PID:-}" ]] || return 0
	mark="ns-sandbox-sync-$$-$RANDOM$RANDOM"
	logger -u /dev/log -t ns-sandbox -- "$mark" 2>/dev/null || return 0
	for ((i = 0; i < 200; i++)); do
		grep -qF -- "$mark" "$SB_LOG" && return 0
		sleep 0.05
	done
	fail "syslog messages did not arrive"
}

# Messages logged by pam_namespace so far.
sandbox_log() {
	sandbox_log_sync
	grep -aF 'pam_namespace' "$SB_LOG" || true
}

sandbox_log_clear() {
	sandbox_log_sync
	: >"$SB_LOG"
}

# assert_log_contains TEXT [WHAT]
assert_log_contains() {
	local log
	# No listener is no evidence: a check that cannot look fails.
	[[ -n "${SB_SYSLOG_PID:-}" ]] ||
		fail "${2:-log}: no syslog listener, cannot check for [$1]"
	log=$(sandbox_log)
	if [[ "$log" != *"$1"* ]]; then
		fail "${2:-log}: [$1] not logged; pam_namespace logged: [${log}]"
	fi
}

# ---------------------------------------------------------------- direct use

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	sandbox_enter "$@"
	[[ $# -gt 0 ]] || set -- bash
	"$@"
fi
