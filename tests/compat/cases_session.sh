# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Differential cases, sourced by cases.sh (which has the helpers they use):
# init scripts, unmnt_remnt and unmnt_only, the working directory, mount
# propagation and flags, trust of files and more of the session. Each
# c_NAME is case NAME.
# shellcheck shell=bash disable=SC2016 # session commands are single-quoted on purpose

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
