# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# shellcheck shell=bash disable=SC2154 # mode, root, work, img: test_boot.sh's
#
# Sourced by test_boot.sh for the SELinux images (modes selinux and mls):
# its mode, root, work, img and in_root are used here. The root file system
# has selinux-basics and both of Debian's policies (their postinst built
# each binary policy with semodule when mmdebstrap installed them); this
# picks one, maps the users, and labels the tree when the image is made
# (setfiles in its chroot, the security.selinux attributes carried into the
# ext4 image by mkfs.ext4 -d) instead of an autorelabel boot, which takes
# minutes under TCG.
#
#   selinux:  selinux-policy-default (MCS), the context method; alice is
#             user_u, bob staff_u.
#   mls:      Debian 12's selinux-policy-mls (NS_BOOT_MLS_RELEASE: 13's),
#             the level method; alice is staff_u at s2 (semanage login:
#             ssh) and at s0 for login, the console, and for systemd-user,
#             her user manager (the policy's per-service file logins/alice,
#             which pam_selinux reads through getseuser; sshd sets the
#             shell's context itself from seusers alone, so a logins/alice
#             line for sshd gave the session pam_selinux's level and the
#             shell seusers'; a manager at s2 may not write to systemd's
#             notify socket, at s0, and each of her logins waited for its
#             start). A local module, mls_trusted.cil, gives system domains
#             MLS privileges the policy lacks (below), without which it does
#             not boot enforcing and no login above s0 opens. Debian 13's
#             tmp.mount is masked: the root of its tmpfs /tmp is tmpfs_t:s0,
#             not the policy's tmp_t, and alice's console login was refused
#             ("private /tmp could not be set up"); /tmp is the image's
#             directory, labelled tmp_t:s0-s15:c0.c1023, as on Debian 12.

case $mode in
selinux)
	se_type=default
	se_method=context
	;;
mls)
	se_type=mls
	se_method=level
	;;
esac

# In the chroot: the policy chosen, namespace.conf with the method, the
# users mapped by semanage on the policy's store.
selinux_conf() {
	compgen -G "$root/etc/selinux/$se_type/policy/policy.[0-9]*" >/dev/null || {
		echo "FAIL: the image has no binary policy /etc/selinux/$se_type/policy/policy.*"
		exit 1
	}
	printf 'SELINUX=enforcing\nSELINUXTYPE=%s\n' "$se_type" >"$root/etc/selinux/config"
	cat >"$root/etc/security/namespace.conf" <<CONF
/tmp          /tmp/tmp-inst/        $se_method    root
/var/tmp      /var/tmp/tmp-inst/    $se_method    root
CONF
	# The package's init script (its example) in place of Debian's, which
	# runs restorecon on every new instance and so undoes the policy's
	# label of a context instance where the login program may relabel.
	local init=$root/usr/share/doc/libpam-namespace-ng/examples/namespace.init
	[[ -s $init ]] || {
		echo "FAIL: the package has no example namespace.init"
		exit 1
	}
	install -m 755 "$init" "$root/etc/security/namespace.init"
	local maps=()
	if [[ $mode == selinux ]]; then
		maps=("-s user_u -r s0 alice" "-s staff_u -r s0-s0:c0.c1023 bob")
	else
		maps=("-s staff_u -r s2 alice" "-s staff_u -r s0 bob")
	fi
	for m in "${maps[@]}"; do
		# shellcheck disable=SC2086 # the words of m
		in_root semanage login -a $m >>"$work/semanage.log" 2>&1 || {
			cat "$work/semanage.log"
			echo "FAIL: semanage login -a $m in the image"
			exit 1
		}
	done
	if [[ $mode == mls ]]; then
		# root's ssh logins, the checks' eyes, in sysadm_r.
		# allow_polyinstantiation on here: sysadm_r may not set booleans
		# under this policy (boot_selinux turns it off and on).
		for b in ssh_sysadm_login allow_polyinstantiation; do
			in_root semanage boolean -m --on $b >>"$work/semanage.log" 2>&1 || {
				cat "$work/semanage.log"
				echo "FAIL: semanage boolean -m --on $b in the image"
				exit 1
			}
		done
		# ... which the policy's users/root file gives sshd_t once its
		# line for it is uncommented, as the file says.
		sed -i 's/^#\(system_r:sshd_t:s0\)/\1/' "$root/etc/selinux/mls/contexts/users/root"
		grep -q '^system_r:sshd_t:s0' "$root/etc/selinux/mls/contexts/users/root" || {
			echo "FAIL: no sshd_t line to uncomment in the mls policy's contexts/users/root"
			exit 1
		}
		if [[ -e $root/usr/lib/systemd/system/tmp.mount ]]; then
			ln -sfn /dev/null "$root/etc/systemd/system/tmp.mount"
		fi
		install -d "$root/etc/selinux/mls/logins"
		printf 'login:staff_u:s0\nsystemd-user:staff_u:s0\n' >"$root/etc/selinux/mls/logins/alice"
		mls_trusted
	fi
	echo "# SELinux: SELINUXTYPE=$se_type, namespace.conf's method $se_method; seusers:"
	grep -v '^#' "$root/etc/selinux/$se_type/seusers" | sed 's/^/#   /'
}

# MLS privileges (attributes of the policy's mls constraints) that
# Debian's selinux-policy-mls does not give:
#   local_login_t and sshd_t, mlskeywritetoclr: pam_selinux sets the
#     session's key creation context to the user's, and at any level but s0
#     the "key create" rule needs it. Without it every login above s0 fails
#     ("Setting key creation context staff_u:staff_r:staff_t:s2 failed:
#     Permission denied").
#   syslogd_t, mlsnetwriteranged: journald runs at s15 and may not send to
#     systemd's notify socket (s0-s15): its watchdog kills it.
#   init_t, mlsfileupgrade and mlsfiledowngrade: what the kernel and the
#     initramfs made before the policy was loaded is at s15:c0.c1023 (/dev,
#     /run), and systemd may not relabel it to the policy's labels
#     ("security_validate_transition seresult=denied ... device_t:s15:c0.c1023
#     -> device_t:s0"; Debian 12's freezes: "Failed to mount tmpfs at
#     /run/lock ... Freezing execution"; Debian 13's leaves /dev at s15,
#     which dhclient may not search, and networking never starts).
#   init_t, mlskeywritetoclr: systemd links the user keyring, made at s15,
#     into each service's session keyring; without it every mount unit
#     fails ("Failed at step KEYRING spawning /usr/bin/mount: Required key
#     not available").
#   init_t, mlsfdshare: services at another level than s0-s15 may not use
#     the descriptors systemd hands them (fd use: /dev/null, the sockets,
#     the program's own); journald (s15) crashed with SIGSEGV at each start.
#   Debian 13's systemd_journal_init_t (journalctl --flush),
#     mlsfilereadtoclr, mlsfilewritetoclr and mlsnetwritetoclr: it may not
#     reach journald's varlink socket in /run/systemd/journal (s15), the
#     flush unit fails and the journal stays in /run, where nothing but
#     journald may read it.
# The users' domains are not changed: staff_t stays bound by every MLS
# rule.
mls_trusted() {
	cat >"$root/root/mls_trusted.cil" <<'CIL'
(typeattributeset mlskeywritetoclr (local_login_t sshd_t init_t))
(typeattributeset mlsnetwriteranged (syslogd_t))
(typeattributeset mlsfileupgrade (init_t))
(typeattributeset mlsfiledowngrade (init_t))
(typeattributeset mlsfdshare (init_t))
CIL
	# shellcheck disable=SC2154 # release: test_boot.sh's
	[[ $release == bookworm ]] || cat >>"$root/root/mls_trusted.cil" <<'CIL'
(typeattributeset mlsfilereadtoclr (systemd_journal_init_t))
(typeattributeset mlsfilewritetoclr (systemd_journal_init_t))
(typeattributeset mlsnetwritetoclr (systemd_journal_init_t))
CIL
	in_root semodule -s mls -i /root/mls_trusted.cil >>"$work/semanage.log" 2>&1 || {
		cat "$work/semanage.log"
		echo "FAIL: semodule -i mls_trusted.cil in the image"
		exit 1
	}
	mv "$root/root/mls_trusted.cil" "$work/mls_trusted.cil"
	echo "# the mls policy's local module mls_trusted: $(in_root semodule -s mls -l | grep -c '^mls_trusted') installed, $(grep -c '^(' "$work/mls_trusted.cil") lines:"
	sed 's/^/#   /' "$work/mls_trusted.cil"
}

# The whole tree labelled with the policy's file_contexts (the chroot's
# own /proc left out).
selinux_label() {
	local fc=/etc/selinux/$se_type/contexts/files/file_contexts
	local t=$SECONDS
	in_root setfiles -e /proc -F "$fc" / >"$work/setfiles.log" 2>&1 || {
		tail -n 20 "$work/setfiles.log"
		echo "FAIL: setfiles -F $fc / in the image"
		exit 1
	}
	echo "# setfiles -F $fc /: $((SECONDS - t)) s"
}

# The labels are in the ext4 image (mke2fs -d copies extended attributes).
selinux_image_check() {
	local f want got
	for f in /usr/bin/login:login_exec_t /usr/sbin/sshd:sshd_exec_t \
		/usr/lib/x86_64-linux-gnu/security/pam_namespace_ng.so:lib_t /tmp:tmp_t; do
		want=${f#*:}
		f=${f%%:*}
		got=$(debugfs -R "ea_get $f security.selinux" "$img" 2>/dev/null |
			grep -o '"[^"\\]*' | tr -d '"') || true
		[[ $got == *":$want:"* ]] || {
			echo "FAIL: $f in the ext4 image is labelled '$got', not $want"
			exit 1
		}
		echo "# in the image: $f $got"
	done
}
