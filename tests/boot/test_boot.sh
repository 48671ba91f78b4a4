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
#   test_boot.sh [default|shared|selinux|mls|trixie|trixie_shared|autopkgtest]
#   test_boot.sh --prepare MODE
#
# --prepare builds only what MODE's image is made from, the root file
# system and the .deb (and for Debian 12's default and shared the two later
# .debs of deb_next.sh), into their caches, and exits: tests/run starts it in
# the background for every mode before the suites, so that the downloads
# and builds (several minutes each on a cold run) overlap the other suites
# instead of holding the machine while a boot test waits for them. The
# caches' locks make a boot test that starts meanwhile wait for the build.
#
# default: the module line of "Deploying it", two boots (boot.py default),
# then, in the same image, shared's checks on a third boot (boot.py
# default+shared): the guest's module lines switched by /root/shared-mode.sh,
# which this script writes, the profile's pam-auth-update included. When the
# packaged module does not know share_namespace, the third boot is left out
# with a PARTIAL line saying so.
# shared: only shared's boot, of an image made with those lines (the same
# script run in its chroot): the same line with share_namespace (issue 15),
# put in place by the package's pam-auth-update profile, one boot (boot.py
# shared), which then goes through the package's life: the plain profile,
# an upgrade, a refused and a real removal; skipped, saying so, when the
# packaged module does not know that argument. Not a test of its own: suite
# boot runs it as default's third boot; by hand, for a shorter cycle.
# selinux, mls: an image with Debian's SELinux policies, labelled when it is
# made and booted enforcing (selinux_image.sh, boot_selinux.py): selinux
# with Debian 12's selinux-policy-default and the context method, mls with
# Debian 12's selinux-policy-mls and the level method (Debian 13's with
# NS_BOOT_MLS_RELEASE=trixie, its .deb built as trixie's, below).
# autopkgtest: by hand, not a test of the suite (issue 35): the package's
# autopkgtest, debian/tests/integration, run as autopkgtest would (as root,
# in the source tree) in a booted Debian 12 image with the .deb installed
# and the test's Depends (debian/tests/control, the Build-Depends for
# @builddeps@) in its root file system (autopkgtest_image.sh).
# NS_AUTOPKGTEST_TESTS limits it to some tests of the suite.
# trixie, trixie_shared: default (with its third, shared boot) and shared on
# a Debian 13 image, with the .deb built by dpkg-buildpackage inside the
# Debian 13 root of suite trixie (tests/trixie/root.sh, shared with that
# suite's cache); the shared boot goes through the package's life too, but
# without the upgrades to later builds (deb_next.sh, upgrade.py), which are
# bookworm's only: their two .debs would be built in the Debian 13 root at
# every change of the source.
#
#   NS_SOURCE_ROOT  the source tree (default: this file's ../..)
#   NS_BOOT_WORK    where the images are built (default: build/tests/boot);
#                   the root file system and the .deb, kept in its cache
#                   and deb, are shared by both modes, the rest is in MODE/
#   NS_TRIXIE_WORK  suite trixie's work directory, whose cache holds the
#                   Debian 13 root (default: NS_BOOT_WORK/../trixie)
#
# Everything is written below NS_BOOT_WORK; the host's /etc, /tmp and
# network are not touched (qemu's user-mode network forwards one free port
# on 127.0.0.1 to the guest's sshd).
set -euo pipefail

prepare=
if [[ ${1:-} == --prepare ]]; then
	prepare=1
	shift
fi
mode=${1:-default}
[[ $mode =~ ^(default|shared|selinux|mls|trixie|trixie_shared|autopkgtest)$ ]] || {
	echo "usage: test_boot.sh [--prepare] [default|shared|selinux|mls|trixie|trixie_shared|autopkgtest]" >&2
	exit 2
}
# trixie_shared is shared on Debian 13: MODE says which checks, release
# which Debian, name the work directory.
name=$mode
release=bookworm
if [[ $mode == trixie* ]]; then
	release=trixie
	mode=default
	[[ $name == trixie_shared ]] && mode=shared
fi
# mls: Debian 12's MLS policy, or with NS_BOOT_MLS_RELEASE=trixie Debian
# 13's; both boot enforcing with a local module (tests/README.md, boot_mls).
[[ $mode == mls ]] && release=${NS_BOOT_MLS_RELEASE:-bookworm}
# default: shared's boot follows default's two, in the same image.
both=
[[ $mode == default ]] && both=1
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
tools=(python3 dpkg-buildpackage mkfs.ext4 ssh ssh-keygen)
# The SELinux images: labels checked, and MLS's journal read, on the host.
[[ $mode == selinux || $mode == mls ]] && tools+=(debugfs journalctl)
for t in "${tools[@]}"; do
	command -v "$t" >/dev/null || {
		echo "FAIL: $t is missing (bash tests/run test installs it)"
		exit 1
	}
done
python3 -c 'import pexpect' 2>/dev/null || {
	echo "FAIL: python3-pexpect is missing (bash tests/run test installs it)"
	exit 1
}

mkdir -p "$work"
base=$(cd "$work" && pwd)
work=$base/$name
mkdir -p "$work"
start=$SECONDS
rc=0
# The SELinux images share one root file system with both policies.
extra=()
[[ $mode == selinux || $mode == mls ]] &&
	extra=(selinux-basics selinux-policy-default selinux-policy-mls policycoreutils-python-utils)
# Issue 33's display manager (display.py, in the shared boot's package
# cycle): LightDM, Xorg on the dummy driver and xdpyinfo, in the images
# whose boots run it only; lightdm-autologin-greeter answers LightDM's
# Depends on a greeter without GTK's (display.py's greeter is its own, on
# the same python3-gi and LightDM bindings).
[[ $mode == default || $mode == shared ]] &&
	extra=(lightdm lightdm-autologin-greeter xserver-xorg-core xserver-xorg-video-dummy x11-utils)
if [[ $mode == autopkgtest ]]; then
	# shellcheck source=tests/boot/autopkgtest_image.sh
	. "$here/autopkgtest_image.sh"
	read -ra extra < <(autopkgtest_packages "$src")
fi
tarball=$(NS_BOOT_SUITE=$release bash "$here/rootfs.sh" "$base/cache" "${extra[@]}") || rc=$?
[[ $rc == 0 ]] || {
	[[ $rc == 77 ]] && skip "mmdebstrap could not run"
	echo "FAIL: building the root file system (rootfs.sh)"
	exit 1
}
if [[ $release == trixie ]]; then
	# The .deb of Debian 13, built in suite trixie's root, not bookworm's,
	# and kept in that suite's work directory: its deb part installs the same.
	tw=${NS_TRIXIE_WORK:-$base/../trixie}
	troot=$(bash "$here/../trixie/root.sh" "$tw/cache") || {
		echo "FAIL: making the Debian 13 root (tests/trixie/root.sh)"
		exit 1
	}
	echo "# the .deb is built in $troot"
	deb=$(bash "$here/deb.sh" "$src" "$tw/deb" "$troot") || {
		echo "FAIL: building the .deb with dpkg-buildpackage in the Debian 13 root"
		exit 1
	}
else
	deb=$(bash "$here/deb.sh" "$src" "$base/deb") || {
		echo "FAIL: building the .deb with dpkg-buildpackage"
		exit 1
	}
fi
echo "# root file system: $tarball"
echo "# package: $deb ($((SECONDS - start)) s so far)"
# Debian 12's shared boot: two later builds, for upgrades with alice logged
# in (upgrade.py; Debian 12's only: on Debian 13 boot.py's package life
# skips them), cached by deb_next.sh; the lock keeps --prepare's build and
# a test's apart.
next_debs() {
	[[ $release == bookworm && ($mode == shared || -n $both) ]] || return 0
	flock "$base/deb/next.lock" bash "$here/deb_next.sh" "$src" "$base/deb" "$1" ||
		{ echo "FAIL: building the later .debs (deb_next.sh)"; exit 1; }
}
if [[ -n $prepare ]]; then
	next_debs "$work/next"
	rm -rf "$work/next"
	exit 0
fi

# Does the packaged module know issue 15's share_namespace? Its argument
# table holds every argument's name, so the name is in the .so exactly when
# the module parses it.
rm -rf "$work/debx"
dpkg-deb -x "$deb" "$work/debx"
so=$(find "$work/debx" -name pam_namespace_ng.so | head -n 1)
[[ -n $so ]] || {
	echo "FAIL: $(basename "$deb") has no pam_namespace_ng.so"
	exit 1
}
if grep -aq share_namespace "$so"; then shared=1; else shared=0; fi
rm -rf "$work/debx"
if [[ $mode == shared && $shared == 0 ]]; then
	skip "the packaged module (${so#"$work/debx"}) does not know the argument" \
		"share_namespace (issue 15): its shared-mode checks were not run"
fi
if [[ -n $both && $shared == 0 ]]; then
	echo "PARTIAL shared: the packaged module (${so#"$work/debx"}) does not know the" \
		"argument share_namespace (issue 15): the shared boot was not run"
	both=
fi

root=$work/root
img=$work/image.raw
rm -rf "$root" "$img" "$work"/console-*.log
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$tarball"

# In the image's chroot, in a private mount and PID namespace with its own
# /proc, so that nothing mounted for dpkg stays behind.
# shellcheck disable=SC2016 # $0 and $@ are the inner sh's
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
# shared's boot: the same .deb stays in the image for boot.py's upgrade
# (the same version installed again) and removal, with the later builds.
if [[ $mode == shared || -n $both ]]; then
	mv "$root/root/$(basename "$deb")" "$root/root/libpam-namespace-ng.deb"
	next_debs "$root/root"
else
	rm "$root/root/$(basename "$deb")"
fi
echo "# dpkg -i $(basename "$deb"): $(grep -c '' "$work/dpkg.log") lines of output, status 0"

echo bootvm >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 bootvm\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
printf 'auto lo\niface lo inet loopback\nauto eth0\niface eth0 inet dhcp\n' \
	>"$root/etc/network/interfaces"
# autopkgtest: a testbed with the package installed and nothing else done.
[[ $mode != autopkgtest ]] || autopkgtest_image
# logind stops a user's manager UserStopDelaySec after her last session
# ends, 10 s by default; the checks that nothing is left wait for that stop
# after every door and logout: 1 s here, the same stop, sooner; only in the
# images that open the doors: in boot_mls a manager that stopped 1 s after
# an ssh login wrote "Activating special unit exit.target..." on the
# console into the output of the console login's next command (boot_mls
# failed on it), and the autopkgtest's testbed is left as installed.
if [[ $mode == default || $mode == shared ]]; then
	install -d "$root/etc/systemd/logind.conf.d"
	printf '[Login]\nUserStopDelaySec=1\n' >"$root/etc/systemd/logind.conf.d/boot-suite.conf"
fi
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
if [[ $mode == selinux || $mode == mls ]]; then
	# shellcheck source=tests/boot/selinux_image.sh
	. "$here/selinux_image.sh"
	selinux_conf
fi
# 3: the helper unit, enabled.
in_root systemctl enable pam_namespace_ng_helper.service 2>&1 | sed 's/^/# /'
# LightDM (in the image for boot.py's display.py) starts only when
# display.py starts it: a graphical login of alice's at every boot would
# change what the other checks see.
rm -f "$root/etc/systemd/system/display-manager.service"
# 4: the session line at the end of each service's session stack (after
# common-session's pam_unix). cron's stack includes
# common-session-noninteractive; it gets the line too.
grep -q '^@include common-session-noninteractive' "$root/etc/pam.d/cron" || {
	echo "FAIL: /etc/pam.d/cron does not include common-session-noninteractive"
	exit 1
}
# Debian 12's systemd-user stack is the vendor file /usr/lib/pam.d/systemd-user:
# an administrator's change is a copy in /etc/pam.d, which then hides it.
stacks=(login sshd cron su su-l systemd-user)
[[ -e "$root/etc/pam.d/systemd-user" ]] ||
	cp "$root/usr/lib/pam.d/systemd-user" "$root/etc/pam.d/systemd-user"
for p in namespace-ng namespace-ng-shared; do
	[[ -e $root/usr/share/pam-configs/$p ]] || {
		echo "FAIL: the package has no pam-auth-update profile $p"
		exit 1
	}
done
line='session    required   pam_namespace_ng.so debug'
for s in "${stacks[@]}"; do
	[[ -s "$root/etc/pam.d/$s" ]] || {
		echo "FAIL: the image has no /etc/pam.d/$s"
		exit 1
	}
	echo "$line" >>"$root/etc/pam.d/$s"
done
# shared's lines: share_namespace as README "One namespace per user"
# deploys it with the package: its pam-auth-update profile puts the line in
# common-session and common-session-noninteractive, which every stack above
# includes (systemd-user's vendor file too: no copy of it), and the lines
# above go. debug, for the journal's lines. Run in the shared image's
# chroot now, or by boot.py in the guest before default's third boot.
if [[ $mode == shared || -n $both ]]; then
	{
		echo '#!/bin/sh'
		echo '# Written by tests/boot/test_boot.sh: the module lines of README'
		echo '# "Deploying it" out, the package'"'"'s share_namespace profile in.'
		echo 'set -e'
		echo 'cd /etc/pam.d'
		for s in "${stacks[@]}"; do
			echo "sed -i '/^${line//./\\.}\$/d' $s"
		done
		echo 'rm -f systemd-user'
		if [[ $release == trixie ]]; then
			# Debian 13 (Linux 6.12): the user manager's "(sd-pam)", which
			# outlives the manager in its session to close the PAM session,
			# sleeps 3 s after that close (pam_exec, last), so that the
			# unit's ExecStopPost (pam_namespace_check --drop) always runs
			# while it is there: the manager's pid is then still a session
			# id, which 6.12's pidfd_open() answers with EINVAL (issue 26:
			# taken for a live session, the pin was kept in one run of
			# five). The vendor file's copy, with its @include of
			# common-session-noninteractive, gets the profile's line as the
			# vendor file does.
			echo '{ cat /usr/lib/pam.d/systemd-user; echo "session optional pam_exec.so type=close_session quiet /bin/sleep 3"; } >systemd-user'
		fi
		echo 'DEBIAN_FRONTEND=noninteractive pam-auth-update --enable namespace-ng-shared'
		echo "sed -i 's/pam_namespace_ng\.so share_namespace\$/& debug/' common-session common-session-noninteractive"
		echo 'for s in common-session common-session-noninteractive; do'
		echo '	grep -q "^session.*pam_namespace_ng\.so share_namespace debug\$" $s || {'
		echo '		echo "pam-auth-update --enable namespace-ng-shared left /etc/pam.d/$s without the line"'
		echo '		exit 1'
		echo '	}'
		echo 'done'
		echo "if grep -sH pam_namespace_ng ${stacks[*]}; then"
		echo '	echo "the lines above still name the module"'
		echo '	exit 1'
		echo 'fi'
		echo '# default'"'"'s aged_clean (boot.py) left upstream'"'"'s aging here'
		echo 'rm -f /etc/tmpfiles.d/tmp.conf'
	} >"$root/root/shared-mode.sh"
	if [[ $mode == shared ]]; then
		in_root sh /root/shared-mode.sh >"$work/shared-mode.log" 2>&1 || {
			cat "$work/shared-mode.log"
			echo "FAIL: /root/shared-mode.sh (pam-auth-update --enable namespace-ng-shared) in the image"
			exit 1
		}
	fi
fi
for s in common-session common-session-noninteractive login sshd cron systemd-user; do
	f=/etc/pam.d/$s
	[[ -e $root$f ]] || f=/usr/lib/pam.d/$s
	echo "# $f session lines:"
	grep -E '^(session|@include common-session)' "$root$f" | sed 's/^/#   /'
done
if [[ $shared == 1 ]]; then
	echo "# the packaged module knows share_namespace"
else
	echo "# the packaged module does not know share_namespace"
fi
in_root pam_namespace_check >"$work/check.txt" 2>&1 || {
	cat "$work/check.txt"
	echo "FAIL: pam_namespace_check in the image"
	exit 1
}
sed 's/^/# pam_namespace_check: /' "$work/check.txt"
in_root pam_namespace_check --user alice >"$work/check-alice.txt" 2>&1 || {
	cat "$work/check-alice.txt"
	echo "FAIL: pam_namespace_check --user alice in the image"
	exit 1
}

# shellcheck disable=SC2012 # ls -v sorts the versions
kernel=$(ls -v "$root"/boot/vmlinuz-* | tail -n 1)
# shellcheck disable=SC2012
initrd=$(ls -v "$root"/boot/initrd.img-* | tail -n 1)
cp "$kernel" "$work/vmlinuz"
cp "$initrd" "$work/initrd.img"
[[ $mode == selinux || $mode == mls ]] && selinux_label
mkfs.ext4 -q -F -L root -d "$root" "$img" 2G
rm -rf "$root"
[[ $mode == selinux || $mode == mls ]] && selinux_image_check
echo "# image ready in $((SECONDS - start)) s: $img"

# Both booted enforcing. mls: the kernel's notices (the audit records of
# the boot's denials, as no auditd takes them) kept off the serial console,
# whose output the checks read. root's commands stay a login each
# (NS_BOOT_ROOT_MUX=0): sshd_t's denials are reviewed, and one connection
# for all of them has not been run under these policies yet.
if [[ $mode == selinux ]]; then
	NS_BOOT_ROOT_MUX=0 NS_BOOT_APPEND="security=selinux selinux=1 enforcing=1" \
		exec python3 "$here/boot_selinux.py" "$work" "$mode"
elif [[ $mode == mls ]]; then
	NS_BOOT_ROOT_MUX=0 NS_BOOT_RELEASE=$release \
		NS_BOOT_APPEND="security=selinux selinux=1 enforcing=1 loglevel=4" \
		exec python3 "$here/boot_selinux.py" "$work" "$mode"
fi
[[ -z $both ]] || mode=default+shared
NS_BOOT_RELEASE=$release exec python3 "$here/boot.py" "$work" "$mode"
