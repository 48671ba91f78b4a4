#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Suite boot: the system an administrator deploys. A Debian 12 image built
# by mmdebstrap (rootfs.sh, cached), with the project's .deb (deb.sh)
# installed by dpkg, namespace.conf, the pam.d lines of README "Deploying
# it" and the helper unit enabled, booted with systemd as PID 1 under
# qemu-system-x86_64 (TCG). boot.py then logs in on the serial console and
# over ssh, reboots, and prints one PASS or FAIL line per check.
#
#   NS_SOURCE_ROOT  the source tree (default: this file's ../..)
#   NS_BOOT_WORK    where the image is built (default: build/tests/boot)
#   NS_BOOT_SHARED  1 or 0: check share_namespace or not (default: 1 when
#                   the module's file names it)
#
# Everything is written below NS_BOOT_WORK; the host's /etc, /tmp and
# network are not touched (qemu's user-mode network forwards one free port
# on 127.0.0.1 to the guest's sshd).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=${NS_SOURCE_ROOT:-$here/../..}
work=${NS_BOOT_WORK:-$src/build/tests/boot}

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 is not installed (Debian package qemu-system-x86)"
command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed"
[[ $(id -u) == 0 ]] || skip "needs root (mmdebstrap --mode=root, the image's owners)"
for t in python3 dpkg-buildpackage mkfs.ext4 ssh ssh-keygen; do
	command -v $t >/dev/null || {
		echo "FAIL: $t is missing (bash tests/run test installs it)"
		exit 1
	}
done
python3 -c 'import pexpect' 2>/dev/null || {
	echo "FAIL: python3-pexpect is missing (bash tests/run test installs it)"
	exit 1
}

mkdir -p "$work"
work=$(cd "$work" && pwd)
start=$SECONDS
rc=0
tarball=$(bash "$here/rootfs.sh" "$work/cache") || rc=$?
[[ $rc == 0 ]] || {
	[[ $rc == 77 ]] && skip "mmdebstrap could not run"
	echo "FAIL: building the root file system (rootfs.sh)"
	exit 1
}
deb=$(bash "$here/deb.sh" "$src" "$work/deb") || {
	echo "FAIL: building the .deb with dpkg-buildpackage"
	exit 1
}
echo "# root file system: $tarball"
echo "# package: $deb ($((SECONDS - start)) s so far)"

root=$work/root
img=$work/image.raw
rm -rf "$root" "$img" "$work/debx"
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$tarball"

# In the image's chroot, in a private mount and PID namespace with its own
# /proc, so that nothing mounted for dpkg stays behind.
in_root() {
	unshare --mount --pid --fork --kill-child --propagation private \
		sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
}

cp "$deb" "$root/root/"
in_root dpkg -i "/root/$(basename "$deb")" >"$work/dpkg.log" 2>&1 || {
	cat "$work/dpkg.log"
	echo "FAIL: dpkg -i of the package in the image"
	exit 1
}
rm "$root/root/$(basename "$deb")"
echo "# dpkg -i $(basename "$deb"): $(grep -c '' "$work/dpkg.log") lines of output, status 0"

# Does this module know issue 15's share_namespace? boot.py checks the
# shared mode only then.
dpkg-deb -x "$deb" "$work/debx"
so=$(find "$work/debx" -name pam_namespace_ng.so | head -n 1)
if grep -q share_namespace "$so"; then shared=1; else shared=0; fi
shared=${NS_BOOT_SHARED:-$shared}

echo bootvm >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 bootvm\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
printf 'auto lo\niface lo inet loopback\nauto eth0\niface eth0 inet dhcp\n' \
	>"$root/etc/network/interfaces"
in_root useradd -m -s /bin/bash -u 2001 alice
in_root useradd -m -s /bin/bash -u 2002 bob
printf 'root:rootpw\nalice:alicepw\nbob:bobpw\n' | in_root chpasswd
rm -f "$work/id_ed25519" "$work/id_ed25519.pub"
ssh-keygen -q -t ed25519 -N '' -C boot-suite -f "$work/id_ed25519"
for u in root alice bob; do
	h=/home/$u
	[[ $u == root ]] && h=/root
	install -d -m 700 "$root$h/.ssh"
	install -m 600 "$work/id_ed25519.pub" "$root$h/.ssh/authorized_keys"
	in_root chown -R "$u:$u" "$h/.ssh"
done

# README "Deploying it", 1: namespace.conf (root excluded), plus a tmpdir
# line for a directory of the image's own.
install -d -m 1777 "$root/var/scratch"
cat >"$root/etc/security/namespace.conf" <<'CONF'
/tmp          /tmp/tmp-inst/        user    root
/var/tmp      /var/tmp/tmp-inst/    user    root
/var/scratch  /var/scratch-inst/    tmpdir  root
CONF
chmod 644 "$root/etc/security/namespace.conf"
# 3: the helper unit, enabled.
in_root systemctl enable pam_namespace_ng_helper.service 2>&1 | sed 's/^/# /'
# 4: the session line at the end of each service's session stack (after
# common-session's pam_unix). cron's stack includes
# common-session-noninteractive; it gets the line too.
grep -q '^@include common-session-noninteractive' "$root/etc/pam.d/cron" || {
	echo "FAIL: /etc/pam.d/cron does not include common-session-noninteractive"
	exit 1
}
# Debian 12's systemd-user stack is the vendor file /usr/lib/pam.d/systemd-user:
# an administrator's change is a copy in /etc/pam.d, which then hides it.
[[ -e "$root/etc/pam.d/systemd-user" ]] ||
	cp "$root/usr/lib/pam.d/systemd-user" "$root/etc/pam.d/systemd-user"
for s in login sshd cron su su-l systemd-user; do
	[[ -s "$root/etc/pam.d/$s" ]] || {
		echo "FAIL: the image has no /etc/pam.d/$s"
		exit 1
	}
	echo 'session    required   pam_namespace_ng.so debug' >>"$root/etc/pam.d/$s"
done
for s in login sshd cron systemd-user; do
	echo "# /etc/pam.d/$s session lines:"
	grep -E '^(session|@include common-session)' "$root/etc/pam.d/$s" | sed 's/^/#   /'
done
if [[ $shared == 1 ]]; then
	echo "# the module knows share_namespace"
fi
in_root pam_namespace_check 2>&1 | sed 's/^/# pam_namespace_check: /'
in_root pam_namespace_check --user alice >"$work/check-alice.txt" 2>&1 || {
	cat "$work/check-alice.txt"
	echo "FAIL: pam_namespace_check --user alice in the image"
	exit 1
}

kernel=$(ls -v "$root"/boot/vmlinuz-* | tail -n 1)
initrd=$(ls -v "$root"/boot/initrd.img-* | tail -n 1)
cp "$kernel" "$work/vmlinuz"
cp "$initrd" "$work/initrd.img"
mkfs.ext4 -q -F -L root -d "$root" "$img" 2G
rm -rf "$root"
echo "# image ready in $((SECONDS - start)) s: $img"

NS_BOOT_SHARED=$shared exec python3 "$here/boot.py" "$work"
