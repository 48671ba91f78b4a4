#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   rootfs.sh CACHE [PACKAGE...]
#
# Prints the path of a Debian 12 root file system tarball built by
# mmdebstrap with the packages below and the PACKAGEs named (the SELinux
# images' policies), from the mirror the host's apt uses; with
# NS_BOOT_SUITE=trixie, a Debian 13 one from the same mirror (only
# mmdebstrap reads it: trixie is never in the host's apt sources).
# The tarball is kept in CACHE under a name made of the hash of what goes
# into it, so that only a changed package list builds it again (about 7
# minutes on two cores; a warm run just prints the name). The build runs in
# a private mount and PID namespace, so that mmdebstrap's /proc, /sys and
# /dev mounts in its chroot cannot outlive it; policy-rc.d and mmdebstrap's
# start-stop-daemon stand-in keep the chroot's services from starting.
set -euo pipefail

[[ $# -ge 1 ]] || {
	echo "usage: rootfs.sh CACHE [PACKAGE...]" >&2
	exit 2
}
cache=$1
shift
suite=${NS_BOOT_SUITE:-bookworm}
[[ $suite =~ ^(bookworm|trixie)$ ]] || {
	echo "rootfs.sh: NS_BOOT_SUITE must be bookworm or trixie" >&2
	exit 2
}
# The mirror this host's apt takes bookworm's main from (deb.debian.org
# when it has none), or NS_BOOT_MIRROR.
# shellcheck disable=SC2016 # apt-get expands $(REPO_URI) itself
mirror=${NS_BOOT_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
	'Created-By: Packages' 2>/dev/null | awk '$2 == "bookworm" && $3 == "main" { print $1; exit }')}
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}
packages=systemd,systemd-sysv,udev,dbus,libpam-systemd,login,passwd,openssh-server
packages+=,libpam-modules,linux-image-cloud-amd64,initramfs-tools,iproute2,procps
packages+=,ifupdown,isc-dhcp-client,cron,dbus-user-session,libmd0,libmount1,libselinux1
# issue 33's doors (tests/boot/doors.py): machinectl shell, systemd-run.
packages+=,systemd-container
for p in "$@"; do
	packages+=,$p
done

key=$(printf '%s\n' "$suite" "$mirror" "$packages" minbase | sha256sum | cut -c1-16)
tarball=$cache/rootfs-$suite-$key.tar
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
if [[ ! -s "$tarball" ]]; then
	command -v mmdebstrap >/dev/null || {
		echo "rootfs.sh: mmdebstrap is not installed" >&2
		exit 77
	}
	echo "rootfs.sh: building $tarball with mmdebstrap (several minutes)" >&2
	rm -rf "$tarball.part" "$cache/tmp"
	mkdir -p "$cache/tmp"
	TMPDIR=$cache/tmp unshare --mount --pid --fork --kill-child --propagation private \
		mmdebstrap --mode=root --variant=minbase --format=tar --include="$packages" \
		"$suite" "$tarball.part" "$mirror" >&2
	mv "$tarball.part" "$tarball"
	rm -rf "$cache/tmp"
fi
echo "$tarball"
