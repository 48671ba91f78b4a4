#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Loads Debian's selinux-policy-default as an init would (load_policy -i:
# selinuxfs, the policy, the mode from /etc/selinux/config and the kernel
# command line), then labels the file system from the policy's
# file_contexts, since an initramfs carries no labels.
# shellcheck source=tests/vm/guest/guest.sh
. /vm/guest.sh

# Every AVC denial on the console: no auditd here, and printk's rate limit
# would hide all but the first few.
echo 0 >/proc/sys/kernel/printk_ratelimit
start=$(cut -d ' ' -f 1 /proc/uptime)
load_policy -i || fail "load_policy -i: status $?"
selinuxenabled || fail "SELinux is not enabled after load_policy"
note "policy loaded in $(awk -v a="$start" '{ printf "%.1f", $1 - a }' /proc/uptime)s, mode $(getenforce), init runs as $(cat /proc/1/attr/current)"
start=$(cut -d ' ' -f 1 /proc/uptime)
# Not /proc and /sys, which the kernel labels, and of /dev only what the
# sessions use (syslog's socket, null, the console).
restorecon / /init /bin /sbin /lib /lib64 /dev/log /dev/null /dev/console
restorecon -R /etc /usr /vm /tmp /run /home /root /var
note "restorecon took $(awk -v a="$start" '{ printf "%.1f", $1 - a }' /proc/uptime)s"
# pam_driver is this guest's login program.
setfilecon system_u:object_r:login_exec_t:s0 /usr/bin/pam_driver
# The policy's rules that let login programs polyinstantiate are behind
# this boolean, off by default.
if ! echo 1 >/sys/fs/selinux/booleans/allow_polyinstantiation ||
	! echo 1 >/sys/fs/selinux/commit_pending_bools; then
	fail "setting allow_polyinstantiation"
fi
note "allow_polyinstantiation: $(cut -d ' ' -f 1 /sys/fs/selinux/booleans/allow_polyinstantiation)"
note "labelled: / $(getfilecon / | cut -f 2), /tmp $(getfilecon /tmp | cut -f 2)"
