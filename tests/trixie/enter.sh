#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   enter.sh ROOT SRC WORK COMMAND...
#
# Runs COMMAND (a bash command line) as root inside the Debian 13 root ROOT
# (root.sh), with a copy of the source tree SRC at /src, and returns its
# status. Nothing is written into ROOT and nothing is mounted on the host:
# in a private mount and PID namespace an overlay puts a throwaway tmpfs
# over ROOT (mounted at WORK/mnt), with a /proc of that PID namespace, a
# devpts of its own, a tmpfs on /run (the tests' sandboxes cover /tmp
# themselves) and the host's /sys bound read-only (without its submounts);
# the overlay is made the namespace's root and the host's tree detached.
# All of it ends with COMMAND. The environment is emptied but for PATH,
# HOME, TERM and LANG.
#
#   NS_TRIXIE_LOWER=DIR  ROOT itself is bound read-only at DIR inside too
#                        (container.sh makes an idmapped mount of it)
set -euo pipefail

[[ $# -ge 4 ]] || {
	echo "usage: enter.sh ROOT SRC WORK COMMAND..." >&2
	exit 2
}
if [[ -z "${NS_TRIXIE_INSIDE:-}" ]]; then
	[[ $(id -u) == 0 ]] || {
		echo "enter.sh: needs root" >&2
		exit 77
	}
	mkdir -p "$3/mnt"
	export NS_TRIXIE_INSIDE=1
	exec unshare --mount --pid --fork --kill-child --propagation private bash "$0" "$@"
fi

root=$(readlink -f "$1")
src=$(readlink -f "$2")
mnt=$(readlink -f "$3")/mnt
shift 3
[[ "$(readlink /proc/1/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]] || {
	echo "enter.sh: refusing to mount in the host's mount namespace" >&2
	exit 1
}

mount -t tmpfs -o mode=0755 ns-trixie "$mnt"
mkdir "$mnt/upper" "$mnt/work" "$mnt/root"
mount -t overlay -o "lowerdir=$root,upperdir=$mnt/upper,workdir=$mnt/work" ns-trixie-root "$mnt/root"
r=$mnt/root
mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
mount --bind -o ro /sys "$r/sys"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 ns-trixie-devpts "$r/dev/pts"
mount --bind "$r/dev/pts/ptmx" "$r/dev/ptmx"
mount -t tmpfs -o mode=0755,nosuid,nodev ns-trixie-run "$r/run"
if [[ -n ${NS_TRIXIE_LOWER:-} ]]; then
	mkdir -p "$r$NS_TRIXIE_LOWER"
	mount --bind -o ro "$root" "$r$NS_TRIXIE_LOWER"
fi

# The source tree without its build directories.
mkdir "$r/src"
tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$r/src" -xf -

# The overlay becomes the root of this mount namespace (pivot_root, not
# chroot): a process that enters a mount namespace made from it (setns, as
# nsenter, share_namespace and a failed session's way back do) gets that
# namespace's root, which would be the host's tree after a chroot. The
# host's tree is then detached. Nothing of the caller's environment goes in:
# paths in it name the host's tree.
mkdir "$r/.host"
cd "$r"
pivot_root . .host
exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 /bin/bash -c "umount -l /.host && rmdir /.host && cd /src && $*"
