# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Differential cases, sourced by cases.sh (which has the helpers they use):
# the configuration file and arguments, user lists, the methods, instance
# parents and instances, this module's extension words. Each c_NAME is
# case NAME.
# shellcheck shell=bash disable=SC2016 # session commands are single-quoted on purpose

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

# This module's extension words on plain lines: read as Linux-PAM reads
# them (unknown flags ignored, unknown names dropped), the same sessions.
c_extended_words_plain() {
	tmp_line '/tmp /tmp/tmp-inst/ user:nosuid:nodev:noexec:ro:share=/tmp/.X11-unix:quota=1M:ignore_unknown root,@admins,uid<1000,1000-1999'
}

# An extended line: Linux-PAM refuses the method, this module applies it.
c_extended_line() {
	tmp_line '/tmp /tmp/tmp-inst/ user+:nosuid:nodev:noexec root'
}
