#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Loads Debian's selinux-policy-default as an init would (load_policy -i:
# selinuxfs, the policy, the mode from /etc/selinux/config and the kernel
# command line), then labels the file system from the policy's
# file_contexts, since an initramfs carries no labels.
# shellcheck source=tests/vm/guest/guest.sh
. /vm/guest.sh

start=$(cut -d ' ' -f 1 /proc/uptime)
load_policy -i || fail "load_policy -i: status $?"
selinuxenabled || fail "SELinux is not enabled after load_policy"
note "policy loaded in $(awk -v a="$start" '{ printf "%.1f", $1 - a }' /proc/uptime)s, mode $(getenforce), init runs as $(cat /proc/1/attr/current)"
start=$(cut -d ' ' -f 1 /proc/uptime)
# Not /proc, /sys, /dev: the kernel labels those itself.
restorecon / /init
restorecon -R /etc /usr /vm /tmp /run /home /root /var
note "restorecon took $(awk -v a="$start" '{ printf "%.1f", $1 - a }' /proc/uptime)s"
note "labelled: / $(getfilecon / | cut -f 2), /tmp $(getfilecon /tmp | cut -f 2)"
