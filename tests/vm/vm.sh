# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The VM suites' host side: Debian 12's own kernel (linux-image-cloud-amd64,
# downloaded and unpacked by fetch.sh, never installed) booted under
# qemu-system-x86_64 with TCG, on an initramfs built here from busybox-static,
# the built programs and the shared libraries they need. Nothing but qemu
# runs on the host; the guest has no disk and no network.
#
# A test sources this file, then:
#   vm_setup NAME [PACKAGE...]  checks qemu, fetches the kernel (and PACKAGEs),
#                               starts an empty root in $VM_ROOT
#   vm_copy FILE [DEST]         FILE (and the libraries ldd lists) into the root
#   vm_copy_tree DIR DEST       a directory of data files into the root
#   vm_step NAME FILE           a guest step: the guest's /init runs every step
#                               in name order; exit 0 passes, 77 skips
#   vm_boot [CMDLINE...]        packs the root, boots it, shows the console,
#                               returns 0 when every step passed
# Inside the guest: /vm/guest.sh has the steps' helpers, users alice (2001),
# bob (2002) and carol (2003) exist, /tmp and /run are tmpfs, syslogd writes
# /var/log/messages.
#
#   NS_VM_CACHE    where fetch.sh keeps packages (default: build/tests/vm/cache)
#   NS_VM_TIMEOUT  seconds the VM may run (default 150)
#   VM_STEP_TIMEOUT  seconds each guest step may run (default 100)

VM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TIMEOUT=${NS_VM_TIMEOUT:-150}
VM_LIBDIR=/usr/lib/x86_64-linux-gnu
VM_MODULE=$VM_LIBDIR/security/pam_namespace_ng.so

vm_note() {
	printf '# %s\n' "$*"
}

vm_skip() {
	printf 'SKIP: %s\n' "$*"
	exit 77
}

vm_fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

# vm_setup NAME [PACKAGE...]
vm_setup() {
	local name=$1 qemu_out
	shift
	VM_QEMU=$(command -v qemu-system-x86_64) ||
		vm_skip "qemu-system-x86_64 is not installed (Debian package qemu-system-x86)"
	# Only a qemu that cannot start at all is a reason to skip.
	qemu_out=$("$VM_QEMU" -accel tcg -machine q35 -display none -S -nodefaults \
		-monitor none -serial none -no-user-config -version 2>&1) ||
		vm_skip "qemu-system-x86_64 does not run: $qemu_out"
	# The guest has busybox's commands only where it is the static build.
	VM_BUSYBOX=$(command -v busybox) ||
		vm_fail "busybox is not installed (Debian package busybox-static)"
	if ldd "$VM_BUSYBOX" 2>&1 | grep -q '=>'; then
		vm_fail "$VM_BUSYBOX is not the static build (Debian package busybox-static)"
	fi

	VM_CACHE=${NS_VM_CACHE:-$VM_LIB_DIR/../../build/tests/vm/cache}
	bash "$VM_LIB_DIR/fetch.sh" "$VM_CACHE" linux-image-cloud-amd64 "$@" ||
		vm_fail "could not fetch the packages with apt-get download (run tests/run test, or apt-get update)"
	VM_CACHE=$(cd "$VM_CACHE" && pwd)
	# shellcheck disable=SC2012 # the newest kernel: version sort
	VM_KERNEL=$(ls -v "$VM_CACHE"/root/boot/vmlinuz-* 2>/dev/null | tail -n 1)
	[[ -n "$VM_KERNEL" ]] || vm_fail "no kernel in $VM_CACHE/root/boot"

	VM_WORK=$(dirname "$VM_CACHE")/work-$name
	rm -rf "$VM_WORK"
	mkdir -p "$VM_WORK"
	VM_ROOT=$VM_WORK/root
	vm_root_base
}

# The guest's file system: busybox for every command, usr-merged like Debian
# 12, minimal /etc, the init and its helpers.
vm_root_base() {
	local d applet
	for d in usr/bin usr/sbin "${VM_LIBDIR#/}" usr/lib64 etc/pam.d etc/security proc sys dev \
		tmp run var/log home root vm/steps; do
		mkdir -p "$VM_ROOT/$d"
	done
	ln -s usr/bin "$VM_ROOT/bin"
	ln -s usr/sbin "$VM_ROOT/sbin"
	ln -s usr/lib "$VM_ROOT/lib"
	ln -s usr/lib64 "$VM_ROOT/lib64"
	ln -s ../run "$VM_ROOT/var/run"
	# The console init starts on, before devtmpfs is mounted (only root can
	# make it; without it the first lines of stage 1 are lost, nothing more).
	mknod -m 0600 "$VM_ROOT/dev/console" c 5 1 2>/dev/null || true
	chmod 1777 "$VM_ROOT/tmp"
	chmod 0700 "$VM_ROOT/root"
	cp "$VM_BUSYBOX" "$VM_ROOT/usr/bin/busybox"
	for applet in $("$VM_BUSYBOX" --list); do
		[[ $applet == busybox ]] || ln -s busybox "$VM_ROOT/usr/bin/$applet"
	done

	cat >"$VM_ROOT/etc/passwd" <<-EOF
		root:x:0:0:root:/root:/bin/sh
		alice:x:2001:2001:alice:/home/alice:/bin/sh
		bob:x:2002:2002:bob:/home/bob:/bin/sh
		carol:x:2003:2003:carol:/home/carol:/bin/sh
	EOF
	cat >"$VM_ROOT/etc/group" <<-EOF
		root:x:0:
		alice:x:2001:
		bob:x:2002:
		carol:x:2003:
	EOF
	cat >"$VM_ROOT/etc/shadow" <<-EOF
		root:*:19000:0:99999:7:::
		alice:*:19000:0:99999:7:::
		bob:*:19000:0:99999:7:::
		carol:*:19000:0:99999:7:::
	EOF
	chmod 0640 "$VM_ROOT/etc/shadow"
	printf 'passwd: files\ngroup: files\nshadow: files\n' >"$VM_ROOT/etc/nsswitch.conf"
	install -m 0755 "$VM_LIB_DIR/guest/init" "$VM_ROOT/init"
	install -m 0644 "$VM_LIB_DIR/guest/guest.sh" "$VM_ROOT/vm/guest.sh"
}

# vm_libs FILE: the shared libraries FILE needs, at the paths ldd names
# (they resolve through the usr-merge links). Libraries unpacked by
# fetch.sh are found there first.
vm_libs() {
	local lib
	while read -r lib; do
		[[ -e "$VM_ROOT$lib" ]] && continue
		mkdir -p "$VM_ROOT$(dirname "$lib")"
		cp -L "$lib" "$VM_ROOT$lib"
	done < <(LD_LIBRARY_PATH=$VM_CACHE/root$VM_LIBDIR ldd "$1" 2>/dev/null |
		sed -n -e 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*$/\1/p')
	# glibc dlopens libgcc_s for pthread_exit and pthread_cancel: ldd
	# does not list it.
	if [[ ! -e "$VM_ROOT$VM_LIBDIR/libgcc_s.so.1" && -e "$VM_LIBDIR/libgcc_s.so.1" ]]; then
		mkdir -p "$VM_ROOT$VM_LIBDIR"
		cp -L "$VM_LIBDIR/libgcc_s.so.1" "$VM_ROOT$VM_LIBDIR/"
	fi
	if LD_LIBRARY_PATH=$VM_CACHE/root$VM_LIBDIR ldd "$1" 2>/dev/null | grep -q 'not found'; then
		vm_fail "$1: libraries not found: $(ldd "$1" | grep 'not found' | tr -s ' \t\n' ' ')"
	fi
}

# vm_copy FILE [DEST]: DEST defaults to FILE's own path.
vm_copy() {
	local src=$1 dest=${2:-$1}
	[[ -e "$src" ]] || vm_fail "$src does not exist"
	mkdir -p "$VM_ROOT$(dirname "$dest")"
	cp -L --remove-destination "$src" "$VM_ROOT$dest"
	if [[ -f "$src" ]] && [[ "$(head -c 4 "$src" | tail -c 3)" == ELF ]]; then
		vm_libs "$src"
	fi
}

# vm_copy_tree DIR DEST: a directory of data files, as it is.
vm_copy_tree() {
	mkdir -p "$VM_ROOT$2"
	cp -a "$1/." "$VM_ROOT$2/"
}

# vm_step NAME FILE: FILE (a script or a program) becomes step NAME.
vm_step() {
	install -m 0755 "$2" "$VM_ROOT/vm/steps/$1"
}

# vm_pam_stack [ARG...]: the built module as $VM_MODULE (where Debian's
# package puts it, so that it gets the label of a PAM module), the
# PAM driver as pam_driver, Linux-PAM with pam_permit and pam_unix, and
# service vm-session whose session ends with the module (by absolute path)
# and ARGs; service other denies everything.
vm_pam_stack() {
	local m secdir=$VM_LIBDIR/security
	# shellcheck disable=SC2153 # set by the test (meson's environment)
	vm_copy "$NS_MODULE" "$VM_MODULE"
	vm_copy "$NS_DRIVER" /usr/bin/pam_driver
	for m in pam_permit.so pam_deny.so pam_unix.so; do
		vm_copy "$secdir/$m"
	done
	cat >"$VM_ROOT/etc/pam.d/vm-session" <<-EOF
		auth required pam_permit.so
		account required pam_permit.so
		session optional pam_unix.so
		session required $VM_MODULE $*
	EOF
	printf '%s required pam_deny.so\n' auth account password session >"$VM_ROOT/etc/pam.d/other"
}

# vm_boot [CMDLINE...]: boots the root and judges the console.
vm_boot() {
	local initrd=$VM_WORK/initrd.cpio log=$VM_WORK/console.log rc=0 kver host start
	local v
	# The sanitizer run's settings reach the guest's programs too.
	: >"$VM_ROOT/vm/env"
	for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS NS_DRIVER_KEEP_MODULES VM_STEP_TIMEOUT; do
		[[ -z "${!v:-}" ]] || printf 'export %s=%q\n' "$v" "${!v}" >>"$VM_ROOT/vm/env"
	done
	(cd "$VM_ROOT" && find . | "$VM_BUSYBOX" cpio -o -H newc -R 0:0 2>/dev/null) >"$initrd"
	vm_note "kernel ${VM_KERNEL##*/}, initramfs $(($(stat -c %s "$initrd") / 1024)) KiB, timeout ${VM_TIMEOUT}s"
	start=$(date +%s)
	# TCG only: nested KVM is not to be relied on. -no-reboot turns the
	# guest's poweroff, reboot or panic into qemu's exit. no_timer_check:
	# on a loaded host the kernel's IO-APIC timer check can miss its ticks
	# under TCG and panic; the emulated timer works.
	timeout -k 5 "$VM_TIMEOUT" "$VM_QEMU" -accel tcg -machine q35 -cpu max -smp 2 -m 768 \
		-nodefaults -no-user-config -display none -monitor none -no-reboot \
		-serial "file:$log" \
		-kernel "$VM_KERNEL" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 no_timer_check $*" </dev/null || rc=$?
	tr -d '\r' <"$log" >"$log.txt"
	cat "$log.txt"
	vm_note "the VM ran $(($(date +%s) - start))s"
	[[ $rc == 0 ]] || vm_fail "qemu exited with status $rc (124: killed after ${VM_TIMEOUT}s)"
	kver=$(sed -n 's/^VM-KERNEL: //p' "$log.txt" | head -n 1)
	host=$(uname -r)
	[[ -n "$kver" ]] || vm_fail "the guest did not report its kernel: it did not reach /init"
	[[ "$kver" != "$host" ]] || vm_fail "the guest ran the host's kernel $host"
	grep -q '^VM-RESULT: PASS' "$log.txt" || vm_fail "the guest's steps did not all pass"
	# A step that skipped did not pass: the test shows as SKIP, naming it.
	skipped=$(sed -n 's/^VM-STEP: \(.*\): SKIP .*/\1/p' "$log.txt" | paste -sd ' ' -)
	[[ -z "$skipped" ]] || vm_skip "the guest skipped: $skipped ($(sed -n 's/^VM-RESULT: PASS: //p' "$log.txt"))"
	echo "ok: kernel $kver (the host runs $host): $(sed -n 's/^VM-RESULT: PASS: //p' "$log.txt")"
}
