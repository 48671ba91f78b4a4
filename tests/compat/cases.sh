#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The differential cases: each one sets up a configuration in the sandbox,
# opens sessions through $NS_MODULE and prints what the sessions and the
# system saw (files, modes, owners, filesystem types, mount flags, init
# script arguments, refusals), with everything that legitimately varies
# between runs (random names, mount and namespace IDs) replaced by
# placeholders. test_compat.sh runs this once with our module and once with
# Linux-PAM's and compares the output case by case.
#
#   bash cases.sh [CASE...]    (inside a sandbox of its own; default: all)
#
# Output: "== CASE" before each case's lines.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
[[ -z "${COMPAT_TRACE:-}" ]] || set -x
here=$(cd "$(dirname "$0")" && pwd)
# The system's own namespace.init (Debian's, of libpam-modules), read before
# the sandbox covers /etc/security: the instance_mode cases run it.
if [[ -z "${SB_INSIDE:-}" ]]; then
	COMPAT_SYSTEM_INIT=$(cat /etc/security/namespace.init 2>/dev/null || true)
	export COMPAT_SYSTEM_INIT
fi
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

INIT_LOG=$SB_OUT/init.log
LONG_USER=u$(printf 'x%.0s' {1..84})

# ---------------------------------------------------------------- helpers

# What varies between runs: tmpdir suffixes, namespace and peer group IDs.
norm() {
	sed -E -e 's/(td-)[A-Za-z0-9]{6}/\1XXXXXX/g' \
		-e 's/mnt:\[[0-9]+\]/mnt:[N]/g' \
		-e 's/(shared|master):[0-9]+/\1:N/g'
}

# nslook PATH...: what a session sees at each path (a script, so that it
# can run as the user too).
write_look() {
	cat >"$SB_DIR/bin/nslook" <<'EOF'
#!/bin/sh
for p in "$@"; do
	if [ -e "$p" ]; then
		printf '%s: %s\n' "$p" "$(stat -c '%F %a %U:%G' "$p")"
		printf '  mount: %s\n' "$(findmnt -n -o FSTYPE,VFS-OPTIONS,PROPAGATION --mountpoint "$p" | tail -n 1 | tr -s ' ')"
		printf '  fsopts: %s\n' "$(findmnt -n -o FS-OPTIONS --mountpoint "$p" | tail -n 1 | tr ',' '\n' | grep -E '^(size|nr_inodes|mode|uid|gid)=' | tr '\n' ',')"
		printf '  mounts: %s\n' "$(awk -v p="$p" '$5 == p { n++ } END { print n + 0 }' /proc/self/mountinfo)"
		printf '  files: %s\n' "$(ls -A "$p" 2>&1 | tr '\n' ' ')"
	else
		printf '%s: missing\n' "$p"
	fi
done
EOF
	chmod 0755 "$SB_DIR/bin/nslook"
}

nslook() {
	"$SB_DIR/bin/nslook" "$@"
}

# The directories a case may touch, as root sees them outside any session.
host_state() {
	echo "-- host"
	find /tmp /var/tmp /home /run/pd -mindepth 1 \
		-printf '%p %y %m %u:%g\n' 2>/dev/null | sort | norm
}

# sess [DRIVER-OPTIONS] SERVICE USER [-- CMD...]: a session through the PAM
# driver (CMD runs as root); prints what it printed and its status.
sess() {
	local rc=0 out
	out=$(timeout -k 5 30 "$NS_DRIVER" "$@" 2>&1) || rc=$?
	[[ -z "$out" ]] || printf '%s\n' "$out" | norm
	echo "status $rc"
}

# as USER CMD: a real "su - USER" session; prints its output and status.
as() {
	local rc=0 out
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words (tests/lib/sandbox.sh)
	out=$(timeout -k 5 30 env ${NS_SU_ENV:-} su - "$1" -c "${2//nslook /$SB_DIR/bin/nslook }" 2>&1) || rc=$?
	[[ -z "$out" ]] || printf '%s\n' "$out" | norm
	echo "status $rc"
}

# pam_service NAME ARGS...: another service using the module with ARGS.
pam_service() {
	local name=$1
	shift
	printf 'account  required   pam_permit.so\nsession  required   %s %s\n' \
		"$NS_MODULE" "$*" >"/etc/pam.d/$name"
	chmod 0644 "/etc/pam.d/$name"
}

# write_init PATH [EXIT] [EXTRA]: an init script recording its arguments.
write_init() {
	cat >"$1" <<EOF
#!/bin/sh
echo "init \$(basename "\$0") \$*" >>$INIT_LOG
${3:-}
exit ${2:-0}
EOF
	chmod 0755 "$1"
}

show_init() {
	echo "-- init"
	if [[ -e "$INIT_LOG" ]]; then
		norm <"$INIT_LOG"
		: >"$INIT_LOG"
	fi
}

usual_conf() {
	sandbox_private_tmp root
}

# Back to a clean sandbox: empty tmpfs directories, homes, no
# configuration, the default PAM services.
reset_sandbox() {
	local u name uid
	[[ "$(findmnt -n -o SOURCE --mountpoint /tmp | tail -n 1)" == ns-sandbox-tmp ]] ||
		fail "refusing to clean a /tmp that is not the sandbox's"
	mount --make-rprivate /
	findmnt -rn -o TARGET | awk '/^\/run\/pd(\/|$)/' | sort -r | xargs -r umount -l
	find /tmp /var/tmp /home -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	rm -rf /run/pd "${SB_OUT:?}"/* /etc/security/namespace.d/* /etc/security/namespace.init
	for u in "${SB_USERS[@]}"; do
		name=${u%%:*}
		uid=${u##*:}
		install -d -m 0700 -o "$uid" -g "$uid" "/home/$name"
	done
	install -d -m 0755 /run/pd
	sandbox_conf '# empty'
	sandbox_pam_args
	cd /
}

add_long_user() {
	grep -q "^$LONG_USER:" /etc/passwd && return 0
	printf '%s:x:2010:2010::/home/long:/bin/sh\n' "$LONG_USER" >>/etc/passwd
	printf '%s:x:2010:\n' "$LONG_USER" >>/etc/group
	install -d -m 0700 -o 2010 -g 2010 /home/long
}

# tmp_line CONF [ARGS...]: namespace.conf is CONF (the instance parents
# /tmp/tmp-inst and /var/tmp/tmp-inst exist), the module gets ARGS; alice's
# session looks at /tmp, then the host is shown.
tmp_line() {
	usual_conf
	sandbox_conf "$1"
	shift
	sandbox_pam_args "$@"
	sess ns-driver alice -- nslook /tmp
	host_state
}

# pd_line POLYDIR REST: the one line "POLYDIR /run/pd/inst/ REST" (the
# instance parent exists); alice's session looks at POLYDIR, then the host
# is shown.
pd_line() {
	sandbox_conf "$1 /run/pd/inst/ $2"
	sandbox_inst_parent /run/pd/inst
	sess ns-driver alice -- nslook "$1"
	host_state
}

# init_case MODE [EXIT [EXTRA]]: the usual lines and an init script of
# mode MODE that runs EXTRA and exits EXIT; alice's session looks at /tmp.
init_case() {
	usual_conf
	write_init /etc/security/namespace.init "${2:-0}" "${3:-}"
	chmod "$1" /etc/security/namespace.init
	sess ns-driver alice -- nslook /tmp
	show_init
}

# init_line CONF: namespace.conf is CONF, with the default init script;
# which scripts ran, with what, for a session of alice.
init_line() {
	usual_conf
	sandbox_conf "$1"
	write_init /etc/security/namespace.init
	sess ns-driver alice -- true
	show_init
}

# remnt ARG DRIVER-ARGUMENTS...: inside alice's session, a second session
# (such as su opens) through a service whose module has the argument ARG;
# it looks at /tmp.
remnt() {
	usual_conf
	pam_service ns-remnt "$1"
	shift
	sess ns-driver alice -- sh -c "$NS_DRIVER $* -- nslook /tmp"
}

# ---------------------------------------------------------------- cases
# One function per case, c_NAME. Keep each case about one feature or one
# error path.
# (cases_config.sh, cases_session.sh; the order does not matter: they
# run in the order of their names, sharded by COMPAT_SHARD below.)

# shellcheck source=cases_config.sh
. "$here/cases_config.sh"
# shellcheck source=cases_session.sh
. "$here/cases_session.sh"

# ---------------------------------------------------------------- main

write_look
export PATH=$SB_DIR/bin:$PATH
cases=("$@")
if [[ ${#cases[@]} == 0 ]]; then
	# COMPAT_SHARD=K/N: only every Nth case from the Kth (meson runs the
	# shards as separate tests, side by side and each within its timeout).
	shard=${COMPAT_SHARD:-0/1}
	mapfile -t cases < <(declare -F | awk -v k="${shard%/*}" -v n="${shard#*/}" \
		'$3 ~ /^c_/ && i++ % n == k { print substr($3, 3) }')
fi
for c in "${cases[@]}"; do
	reset_sandbox
	echo "== $c"
	start=$EPOCHREALTIME
	"c_$c" 2>&1
	[[ -z "${COMPAT_TIMING:-}" ]] ||
		awk -v c="$c" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%s %.2f\n", c, b - a }' >&2
done
echo "== end"
