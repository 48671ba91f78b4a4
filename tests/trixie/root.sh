#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   root.sh CACHE
#
# Prints the path of a Debian 13 (trixie) root directory made by mmdebstrap
# with the packages below: what building this module and its .deb needs
# (libaudit-dev among them: trixie's pam.pc requires audit) and what the
# tests run (Linux-PAM 1.7.0's libpam-modules, util-linux's su and login,
# python3 for the sandbox's syslog listener, the integration tests' tools).
# It is kept in CACHE under a name made of the hash of the suite, mirror
# and package list, so only a changed list makes it again (under a minute
# here); a warm run just prints the name. The tests never write into it:
# they mount an overlay over it in a private mount namespace (enter.sh).
#
# mmdebstrap runs in a private mount and PID namespace, so its chroot's
# /proc, /sys and /dev mounts cannot outlive it; apt's lists are kept in the
# root, so that apt-get can answer questions about trixie's packages inside
# it (test_trixie.sh build) without trixie ever being in the host's sources.
set -euo pipefail

[[ $# == 1 ]] || {
	echo "usage: root.sh CACHE" >&2
	exit 2
}
cache=$1
suite=trixie
mirror=${NS_TRIXIE_MIRROR:-http://deb.debian.org/debian}
mirror=${mirror%/}
packages=meson,ninja-build,gcc,libc6-dev,pkg-config,libpam0g-dev,libaudit-dev,libmount-dev
packages+=,libselinux1-dev,libmd-dev,libcmocka-dev,scdoc,build-essential,debhelper,dpkg-dev
packages+=,libpam-modules,libpam-runtime,libpam-systemd,login,util-linux,bsdutils,procps,python3,file
# The other integration tests (test_trixie.sh suites): sshd's, whose .deb is
# kept in /opt/ns-debs for them to unpack as tests/vm/fetch.sh does on the
# host, nss_wrapper's, and share='s X server and client.
packages+=,openssh-server,openssh-client,sshpass,openssl,iproute2,libnss-wrapper,xvfb,x11-utils
# strace: the EINVAL case of integration/share injects with it; sudo and at:
# the doors of integration/doors.
packages+=,strace,sudo,at

key=$(printf '%s\n' "$suite" "$mirror" "$packages" minbase lists | sha256sum | cut -c1-16)
root=$cache/root-$suite-$key
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
if [[ ! -e "$root/.complete" ]]; then
	command -v mmdebstrap >/dev/null || {
		echo "root.sh: mmdebstrap is not installed (Debian package mmdebstrap)" >&2
		exit 77
	}
	echo "root.sh: making $root with mmdebstrap" >&2
	rm -rf "$root" "$root.part" "$cache/tmp"
	mkdir -p "$cache/tmp"
	# shellcheck disable=SC2016 # the hook's $1 is mmdebstrap's
	TMPDIR=$cache/tmp unshare --mount --pid --fork --kill-child --propagation private \
		mmdebstrap --mode=root --variant=minbase --skip=cleanup/apt/lists \
		--include="$packages" \
		--customize-hook='mkdir -p "$1/opt/ns-debs" && cp "$1"/var/cache/apt/archives/openssh-server_*.deb "$1/opt/ns-debs/"' \
		"$suite" "$root.part" "$mirror" >&2
	touch "$root.part/.complete"
	mv "$root.part" "$root"
	rm -rf "$cache/tmp"
	# Roots made from an older package list.
	find "$cache" -maxdepth 1 -name "root-$suite-*" ! -name "${root##*/}" \
		-exec rm -rf {} + 2>/dev/null || true
fi
echo "$root"
