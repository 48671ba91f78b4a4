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

c_user_basic() {
	usual_conf
	sess ns-driver alice -- nslook /tmp /var/tmp
	host_state
}

c_user_two_users() {
	usual_conf
	as alice 'echo a >/tmp/f; stat -c "%A %U %G %n" /tmp/*'
	as bob 'ls -A /tmp; echo b >/tmp/g'
	as alice 'cat /tmp/f; ls -A /tmp'
	host_state
}

c_user_excluded() {
	usual_conf
	echo real >/tmp/real
	sess ns-driver root -- sh -c 'nslook /tmp; [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ] && echo same-ns || echo new-ns'
}

c_user_only_listed() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user ~alice,carol'
	sandbox_inst_parent /tmp/tmp-inst
	sess ns-driver alice -- nslook /tmp
	sess ns-driver bob -- nslook /tmp
	host_state
}

c_user_unknown_in_list() {
	tmp_line '/tmp /tmp/tmp-inst/ user nosuchuser,root'
}

c_home_polydir() {
	sandbox_conf '$HOME /home/inst/$USER. user root'
	sandbox_inst_parent /home/inst
	echo mine >/home/alice/note
	chown alice: /home/alice/note
	as alice 'nslook $HOME; echo x >$HOME/new'
	host_state
}

c_variable_prefixes() {
	sandbox_conf '/tmp /tmp/tmp-inst/$USERx_ user root'
	sandbox_inst_parent /tmp/tmp-inst
	sess ns-driver bob -- nslook /tmp
	host_state
}

c_trailing_slashes_quotes() {
	tmp_line '"/tmp///"   "/tmp/tmp-\inst/"	user	"root" # comment'
}

c_comment_in_quotes() {
	tmp_line '"/tmp/a#b" /tmp/tmp-inst/ user root'
}

c_fifth_field() {
	tmp_line '/tmp /tmp/tmp-inst/ user root extra'
}

c_missing_fields() {
	tmp_line '/tmp /tmp/tmp-inst/'
}

c_unknown_method() {
	tmp_line '/tmp /tmp/tmp-inst/ bogus root'
}

c_ignore_config_error() {
	sandbox_conf '/tmp /tmp/tmp-inst/ bogus root
/var/tmp /var/tmp/tmp-inst/ user root'
	sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
	sandbox_pam_args ignore_config_error
	sess ns-driver alice -- nslook /tmp /var/tmp
	host_state
}

c_relative_polydir() {
	tmp_line 'tmp /tmp/tmp-inst/ user root'
}

c_dotdot_prefix() {
	tmp_line '/tmp /tmp/tmp-inst/../x/ user root'
}

c_no_config() {
	rm -f /etc/security/namespace.conf
	sess ns-driver alice -- nslook /tmp
}

c_empty_config() {
	sess ns-driver alice -- sh -c '[ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ] && echo same-ns || echo new-ns'
}

c_namespace_d() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	sandbox_conf_d 50-vartmp.conf '/var/tmp /var/tmp/tmp-inst/ user root'
	sandbox_conf_d 10-tmpfs.conf '/run/pd tmpfs tmpfs root'
	sandbox_conf_d ignored.txt '/home /home/x/ bogus root'
	sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
	write_init /etc/security/namespace.init
	sess ns-driver alice -- nslook /tmp /var/tmp /run/pd /home
	show_init
}

c_unknown_flag() {
	tmp_line '/tmp /tmp/tmp-inst/ user:bogus:other=1 root'
}

c_unknown_argument() {
	tmp_line '/tmp /tmp/tmp-inst/ user root
/var/tmp /var/tmp/tmp-inst/ user root' no_such_argument
}

c_debug() {
	tmp_line '/tmp /tmp/tmp-inst/ user root
/var/tmp /var/tmp/tmp-inst/ user root' debug
}

c_unknown_user() {
	usual_conf
	sess ns-driver nosuchuser -- true
}

c_require_selinux() {
	tmp_line '/tmp /tmp/tmp-inst/ user root
/var/tmp /var/tmp/tmp-inst/ user root' require_selinux
}

c_tmpfs_basic() {
	sandbox_conf '/tmp tmpfs tmpfs root'
	echo real >/tmp/real
	as alice 'nslook /tmp; echo x >/tmp/mine'
	as alice 'ls -A /tmp'
	host_state
}

c_tmpfs_mntopts() {
	tmp_line '/tmp tmpfs tmpfs:mntopts=size=2M,nr_inodes=100,mode=0700,uid=2001 root'
}

c_tmpfs_mount_flags() {
	sandbox_conf '/tmp tmpfs tmpfs:mntopts=nosuid,noexec,nodev root
/var/tmp tmpfs tmpfs:mntopts=size=1M,noexec root'
	sess ns-driver alice -- nslook /tmp /var/tmp
}

c_tmpfs_mntopts_twice() {
	tmp_line '/tmp tmpfs tmpfs:mntopts=noexec:mntopts=size=1M root'
}

c_tmpfs_bad_mntopts() {
	tmp_line '/tmp tmpfs tmpfs:mntopts=bogus=1 root'
}

c_tmpfs_create() {
	sandbox_conf '/run/pd/new tmpfs tmpfs:create=0750,bob root'
	sess ns-driver alice -- nslook /run/pd/new
	host_state
}

c_mntopts_on_user() {
	tmp_line '/tmp /tmp/tmp-inst/ user:mntopts=noexec root'
}

c_tmpdir_basic() {
	sandbox_conf '/tmp /tmp/tmp-inst/td- tmpdir root'
	sandbox_inst_parent /tmp/tmp-inst
	write_init /etc/security/namespace.init
	as alice 'nslook /tmp; echo x >/tmp/mine'
	as alice 'ls -A /tmp'
	show_init
	host_state
}

c_tmpdir_unmount_on_close() {
	sandbox_conf '/tmp /tmp/tmp-inst/td- tmpdir root'
	sandbox_inst_parent /tmp/tmp-inst
	sandbox_pam_args unmount_on_close
	sess --after-close 'nslook /tmp' ns-driver alice -- sh -c 'echo x >/tmp/mine; nslook /tmp'
	host_state
}

c_context_fallback() {
	usual_conf
	sandbox_conf '/tmp /tmp/tmp-inst/ context root
/var/tmp /var/tmp/tmp-inst/ level root'
	sess ns-driver alice -- nslook /tmp /var/tmp
	host_state
}

c_context_shared_fallback() {
	usual_conf
	sandbox_conf '/tmp /tmp/tmp-inst/ context:shared root
/var/tmp /var/tmp/tmp-inst/ user root'
	sess ns-driver alice -- nslook /tmp /var/tmp
	host_state
}

c_context_current_no_selinux() {
	tmp_line '/tmp /tmp/tmp-inst/ context root' use_current_context
}

c_context_default_no_selinux() {
	tmp_line '/tmp /tmp/tmp-inst/ level root' use_default_context
}

c_context_shared_current_no_selinux() {
	tmp_line '/tmp /tmp/tmp-inst/ context:shared root' use_current_context
}

c_gen_hash() {
	tmp_line '/tmp /tmp/tmp-inst/ user root
/var/tmp /var/tmp/tmp-inst/ user root' gen_hash
}

c_long_name_hash() {
	usual_conf
	add_long_user
	sess ns-driver "$LONG_USER" -- nslook /tmp
	host_state
}

c_create_octal() {
	pd_line '/run/pd/a' 'user:create=0750,alice,bob root'
}

c_create_decimal() {
	pd_line '/run/pd/a' 'user:create=755 root'
}

c_create_default() {
	sandbox_conf '/run/pd/a /run/pd/inst/ user:create root'
	sandbox_inst_parent /run/pd/inst
	(umask 027 && sess ns-driver alice -- nslook /run/pd/a)
	host_state
}

c_create_owner_only() {
	pd_line '/run/pd/a' 'user:create=0700,bob root'
}

c_create_unknown_owner() {
	pd_line '/run/pd/a' 'user:create=0700,nosuchuser root'
}

c_create_unknown_group() {
	pd_line '/run/pd/a' 'user:create=0700,alice,nosuchgroup root'
}

c_create_deep() {
	pd_line '/run/pd/a/b' 'user:create root'
}

c_polydir_missing() {
	pd_line '/run/pd/a' 'user root'
}

c_polydir_not_dir() {
	sandbox_conf '/run/pd/a /run/pd/inst/ user root'
	sandbox_inst_parent /run/pd/inst
	echo file >/run/pd/a
	sess ns-driver alice -- nslook /run/pd/a
}

c_polydir_root_symlink() {
	sandbox_conf '/run/pd/link /run/pd/inst/ user root'
	sandbox_inst_parent /run/pd/inst
	install -d -m 0755 /run/pd/real
	ln -s real /run/pd/link
	sess ns-driver alice -- nslook /run/pd/link /run/pd/real
}

c_inst_parent_mode() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	install -d -m 0755 /tmp/tmp-inst
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_inst_parent_not_root() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	install -d -m 0000 -o alice /tmp/tmp-inst
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_ignore_instance_parent_mode() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	install -d -m 0755 /tmp/tmp-inst
	sandbox_pam_args ignore_instance_parent_mode
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_inst_parent_created() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_inst_parent_deep() {
	tmp_line '/tmp /tmp/a/b/ user root'
}

c_instance_symlink() {
	usual_conf
	ln -s /etc /tmp/tmp-inst/alice
	sess ns-driver alice -- nslook /tmp
}

c_instance_is_file() {
	usual_conf
	echo x >/tmp/tmp-inst/alice
	sess ns-driver alice -- nslook /tmp
}

c_init_arguments() {
	usual_conf
	write_init /etc/security/namespace.init
	as alice true
	as alice true
	show_init
}

c_init_contract() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user root'
	sandbox_inst_parent /tmp/tmp-inst
	write_init /etc/security/namespace.init 0 "
{
	echo \"uid \$(id -u) gid \$(id -g)\"
	echo \"env [\$(env | sort | tr '\n' ' ')]\"
	echo \"fd 7 \$([ -e /proc/\$\$/fd/7 ] && echo open || echo closed)\"
	echo \"stdin \$(readlink /proc/\$\$/fd/0)\"
	echo \"sees [\$(ls -A \"\$1\" | tr '\n' ' ')]\"
	echo \"cwd \$(pwd)\"
} >>$INIT_LOG
readlink /proc/self/ns/mnt >$SB_OUT/init.ns"
	as alice 'echo x >/tmp/marker'
	: >"$INIT_LOG"
	# The caller's descriptor 7 and its standard input, a file: does the
	# script get them?
	echo input >"$SB_OUT/stdin"
	exec 7</dev/null
	sess --env FOO=bar ns-driver alice -- sh -c "readlink /proc/self/ns/mnt >$SB_OUT/session.ns" \
		<"$SB_OUT/stdin"
	exec 7<&-
	show_init
	cmp -s "$SB_OUT/init.ns" "$SB_OUT/session.ns" && echo "init ran in the session's namespace"
	[[ "$(cat "$SB_OUT/init.ns")" != "$(readlink /proc/self/ns/mnt)" ]] && echo "not in the caller's"
}

c_init_iscript() {
	sandbox_conf '/tmp /tmp/tmp-inst/ user:iscript=tmp.init root
/var/tmp /var/tmp/tmp-inst/ user:iscript=/run/pd/vartmp.init root
/run/pd tmpfs tmpfs:noinit root'
	sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
	write_init /etc/security/namespace.init
	write_init /etc/security/namespace.d/tmp.init
	write_init /run/pd/vartmp.init
	sess ns-driver alice -- true
	show_init
}

c_init_iscript_missing() {
	usual_conf
	sandbox_conf '/tmp /tmp/tmp-inst/ user:iscript=/run/pd/none.init root'
	write_init /etc/security/namespace.init
	sess ns-driver alice -- nslook /tmp
	show_init
}

c_init_tmpfs() {
	init_line '/tmp tmpfs tmpfs root'
}

c_init_exit_status() {
	init_case 0755 3
}

c_init_signal() {
	init_case 0755 0 'kill -9 $$'
}

c_init_not_executable() {
	init_case 0644
}

c_init_group_executable() {
	init_case 0654
}

c_unmnt_remnt() {
	usual_conf
	pam_service ns-remnt unmnt_remnt
	sess ns-driver alice -- sh -c "echo a >/tmp/a-mark; $NS_DRIVER --ruser alice ns-remnt bob -- nslook /tmp /var/tmp"
	host_state
}

c_unmnt_only() {
	usual_conf
	echo real >/tmp/real
	pam_service ns-remnt unmnt_only
	sess ns-driver alice -- sh -c "$NS_DRIVER --ruser alice ns-remnt bob -- nslook /tmp /var/tmp"
	host_state
}

c_unmnt_remnt_ruser_excluded() {
	remnt unmnt_remnt --ruser root ns-remnt bob
}

c_unmnt_remnt_no_ruser() {
	remnt unmnt_remnt ns-remnt bob
}

c_unmnt_remnt_empty_ruser() {
	remnt unmnt_remnt --ruser "''" ns-remnt bob
}

c_unmnt_remnt_new_user_excluded() {
	echo real >/tmp/real
	remnt unmnt_remnt --ruser alice ns-remnt root
}

c_unmnt_remnt_unknown_ruser() {
	remnt unmnt_remnt --ruser nosuchuser ns-remnt bob
}

c_unmnt_remnt_cwd_inside() {
	usual_conf
	pam_service ns-remnt unmnt_remnt
	sess ns-driver alice -- sh -c "mkdir /tmp/sub && cd /tmp/sub && $NS_DRIVER --ruser alice ns-remnt bob -- pwd"
}

c_unmnt_remnt_cwd_prefix() {
	usual_conf
	sandbox_conf '/run/pd/t /run/pd/inst/ user root'
	install -d -m 0755 /run/pd/t /run/pd/tfoo
	sandbox_inst_parent /run/pd/inst
	pam_service ns-remnt unmnt_remnt
	sess ns-driver alice -- sh -c "cd /run/pd/tfoo && $NS_DRIVER --ruser alice ns-remnt bob -- pwd"
}

c_ruser_unknown_plain() {
	usual_conf
	sess --ruser nosuchuser ns-driver alice -- nslook /tmp
}

c_cwd_in_polydir() {
	usual_conf
	echo real >/tmp/real
	(cd /tmp && sess ns-driver alice -- sh -c 'ls -A .')
}

c_unmount_on_close() {
	usual_conf
	echo real >/tmp/real
	sandbox_pam_args unmount_on_close
	sess --after-close 'nslook /tmp /var/tmp' ns-driver alice -- nslook /tmp
	host_state
}

c_no_unmount_on_close() {
	usual_conf
	sess --after-close 'nslook /tmp' ns-driver alice -- true
}

c_shared_root() {
	usual_conf
	mount --make-rshared /
	sess ns-driver alice -- sh -c 'nslook /tmp; mkdir /run/pd/m; mount -t tmpfs leak /run/pd/m'
	echo "-- leaked: $(findmnt -n -o SOURCE --mountpoint /run/pd/m || echo none)"
}

c_mount_private() {
	tmp_line '/tmp /tmp/tmp-inst/ user root
/var/tmp /var/tmp/tmp-inst/ user root' mount_private
}

c_mount_private_shared_root() {
	usual_conf
	mount --make-rshared /
	sandbox_pam_args mount_private
	sess ns-driver alice -- sh -c 'nslook /tmp; mkdir /run/pd/m; mount -t tmpfs leak /run/pd/m'
	echo "-- leaked: $(findmnt -n -o SOURCE --mountpoint /run/pd/m || echo none)"
	# A mount the host makes while the session is open: does the session get it?
	mkdir -p /run/pd/later
	sess ns-driver alice -- sh -c "touch $SB_OUT/opened; while [ ! -e $SB_OUT/mounted ]; do sleep 0.02; done; nslook /run/pd/later" &
	for _ in {1..250}; do
		[[ -e $SB_OUT/opened ]] && break
		sleep 0.02
	done
	mount -t tmpfs host-later /run/pd/later
	touch "$SB_OUT/mounted"
	wait $!
}

c_flag_prefix() {
	init_line '/tmp /tmp/tmp-inst/ user:noinitx root'
}

c_config_untrusted() {
	usual_conf
	chmod 0666 /etc/security/namespace.conf
	sess ns-driver alice -- nslook /tmp
}

c_init_untrusted() {
	usual_conf
	write_init /etc/security/namespace.init
	chown alice /etc/security/namespace.init
	sess ns-driver alice -- nslook /tmp
	show_init
}

c_init_timeout() {
	usual_conf
	sandbox_pam_args init_timeout=1
	write_init /etc/security/namespace.init 0 'sleep 2'
	sess ns-driver alice -- nslook /tmp
	show_init
}

c_shared_submount() {
	usual_conf
	mount -t tmpfs -o mode=0755 pd-shared /run/pd
	mount --make-shared /run/pd
	sess ns-driver alice -- sh -c 'mkdir /run/pd/m; mount -t tmpfs leak /run/pd/m'
	echo "-- leaked: $(findmnt -n -o SOURCE --mountpoint /run/pd/m || echo none)"
}

c_dotdot_in_name() {
	sandbox_conf '/run/pd/a..b /run/pd/inst/ user root'
	install -d -m 0755 /run/pd/a..b
	sandbox_inst_parent /run/pd/inst
	sess ns-driver alice -- nslook /run/pd/a..b
}

c_iscript_without_value() {
	init_line '/tmp /tmp/tmp-inst/ user:iscript root'
}

c_create_owner_no_mode() {
	pd_line /run/pd/a 'user:create=,bob root'
}

c_only_unknown_users() {
	tmp_line '/tmp /tmp/tmp-inst/ user ~nosuchuser'
}

c_uid_alias_in_list() {
	printf 'alias:x:2001:2001::/home/alice:/bin/sh\n' >>/etc/passwd
	tmp_line '/tmp /tmp/tmp-inst/ user alias'
}

c_polydir_symlink_in_tmp() {
	usual_conf
	install -d -m 0755 /tmp/real
	ln -s real /tmp/link
	sandbox_conf '/tmp/link /tmp/tmp-inst/ user root'
	sess ns-driver alice -- nslook /tmp/link /tmp/real
}

c_two_lines_same_polydir() {
	usual_conf
	sandbox_conf '/tmp tmpfs tmpfs root
/tmp /tmp/tmp-inst/ user root'
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_existing_instance_kept() {
	usual_conf
	install -d -m 0700 -o bob /tmp/tmp-inst/alice
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_gen_hash_tmpdir_tmpfs() {
	sandbox_conf '/tmp /tmp/tmp-inst/td- tmpdir root
/var/tmp tmpfs tmpfs root'
	sandbox_inst_parent /tmp/tmp-inst
	sandbox_pam_args gen_hash unmount_on_close
	sess ns-driver alice -- nslook /tmp /var/tmp
	host_state
}

c_ignore_config_error_create() {
	tmp_line '/run/pd/a /run/pd/inst/ user:create=0700,nosuchuser root
/tmp /tmp/tmp-inst/ user root' ignore_config_error
}

c_tmpfs_polydir_missing() {
	tmp_line '/run/pd/none tmpfs tmpfs root'
}

c_shared_level_fallback() {
	tmp_line '/tmp /tmp/tmp-inst/ level:shared root'
}

c_unmnt_only_cwd_inside() {
	usual_conf
	pam_service ns-remnt unmnt_only
	sess ns-driver alice -- sh -c "mkdir /tmp/sub && cd /tmp/sub && $NS_DRIVER --ruser alice ns-remnt bob -- sh -c 'pwd; ls -A /tmp'"
}

c_unmount_on_close_tmpfs() {
	sandbox_conf '/tmp tmpfs tmpfs root'
	sandbox_pam_args unmount_on_close
	sess --after-close 'nslook /tmp' ns-driver alice -- nslook /tmp
}

c_polydir_in_user_dir() {
	usual_conf
	install -d -m 0700 -o alice -g alice /home/alice/tmp
	sandbox_conf '$HOME/tmp /tmp/tmp-inst/$USER-home- user root'
	write_init /etc/security/namespace.init
	as alice 'nslook $HOME/tmp; echo x >$HOME/tmp/f'
	show_init
	host_state
}

c_inst_parent_root_symlink() {
	sandbox_inst_parent /run/pd/inst
	ln -s inst /run/pd/inst-link
	sandbox_conf '/tmp /run/pd/inst-link/ user root'
	sess ns-driver alice -- nslook /tmp
	host_state
}

c_setgid_polydir() {
	install -d -m 2775 -o root -g bob /run/pd/sg
	pd_line /run/pd/sg 'user root'
}

# The system's own namespace.init as /etc/security/namespace.init, and an
# /etc/login.defs without a UMASK line, as Debian 13's is (bound over the
# real one in the sandbox only).
system_init_no_umask() {
	[[ -n "${COMPAT_SYSTEM_INIT:-}" ]] || fail "no /etc/security/namespace.init on this system"
	printf '%s\n' "$COMPAT_SYSTEM_INIT" >/etc/security/namespace.init
	chmod 0755 /etc/security/namespace.init
	grep -v '^UMASK' /etc/login.defs >"$SB_DIR/login.defs" || true
	mountpoint -q /etc/login.defs || mount --bind "$SB_DIR/login.defs" /etc/login.defs
}

# A new $HOME instance under Debian's namespace.init where login.defs has
# no UMASK (Debian 13): the script chmods it to 0777.
c_instance_mode_home() {
	sandbox_conf '$HOME /home/inst/ user root'
	sandbox_inst_parent /home/inst
	system_init_no_umask
	as alice 'stat -c "%a %U:%G" $HOME; echo x >$HOME/f'
	as bob 'stat -c "%a %U:%G" $HOME'
	host_state
}

# An init script widening an instance: /run/pd/a (0755) made 0777, /tmp's
# (1777) made 0777; a polydir that is 0775 by its own mode lets its instance
# stay group-writable.
c_instance_mode_script() {
	usual_conf
	install -d -m 0755 /run/pd/a
	install -d -m 0775 -g bob /run/pd/g
	sandbox_conf '/tmp /tmp/tmp-inst/ user root
/run/pd/a /run/pd/inst/ user root
/run/pd/g /run/pd/inst/g- user root'
	sandbox_inst_parent /run/pd/inst
	write_init /etc/security/namespace.init 0 'chmod 0777 "$1"'
	sess ns-driver alice -- nslook /tmp /run/pd/a /run/pd/g
	host_state
}

c_tilde_alone() {
	tmp_line '/tmp /tmp/tmp-inst/ user ~'
}

c_login_session() {
	usual_conf
	sandbox_login alice "$SB_DIR/bin/nslook /tmp; echo x >/tmp/from-login" | grep -v '^$' | norm || true
	host_state
}

# ---------------------------------------------------------------- main

write_look
export PATH=$SB_DIR/bin:$PATH
# This module's extension words on plain lines: read as Linux-PAM reads
# them (unknown flags ignored, unknown names dropped), the same sessions.
c_extended_words_plain() {
	tmp_line '/tmp /tmp/tmp-inst/ user:nosuid:nodev:noexec:ro:share=/tmp/.X11-unix:quota=1M:ignore_unknown root,@admins,uid<1000,1000-1999'
}

# An extended line: Linux-PAM refuses the method, this module applies it.
c_extended_line() {
	tmp_line '/tmp /tmp/tmp-inst/ user+:nosuid:nodev:noexec root'
}

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
