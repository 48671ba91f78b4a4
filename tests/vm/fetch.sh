#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   fetch.sh CACHE PACKAGE...
#
# Downloads Debian packages with "apt-get download" and unpacks each with
# "dpkg-deb -x" into CACHE/root, for the VM suites to boot and pack into
# their initramfs. Nothing is installed: a kernel or an SELinux policy
# installed on the host would change the host. A package unpacked once is
# not fetched again (CACHE/stamps/PACKAGE); missing or stale package lists
# are refreshed once with apt-get update (as root). The metapackage
# linux-image-cloud-amd64 is followed to the kernel package it names.
# Concurrent runs (the vm and selinux suites) take turns on CACHE/lock.
set -euo pipefail

[[ $# -ge 2 ]] || {
	echo "usage: fetch.sh CACHE PACKAGE..." >&2
	exit 2
}
cache=$1
shift
mkdir -p "$cache/debs" "$cache/root" "$cache/stamps"
cache=$(cd "$cache" && pwd)

exec 9>"$cache/lock"
flock 9

# The package a metapackage stands for: linux-image-cloud-amd64 depends on
# exactly one linux-image-<abi>-cloud-amd64.
resolve() {
	local dep
	case $1 in
	linux-image-cloud-amd64)
		dep=$(apt-cache depends "$1" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p')
		[[ -n "$dep" ]] || {
			echo "fetch.sh: apt-cache knows no kernel package behind $1 (apt-get update?)" >&2
			return 1
		}
		echo "$dep"
		;;
	*)
		echo "$1"
		;;
	esac
}

# apt-get download writes to the working directory; as root it warns that
# the _apt user cannot write there, which is harmless.
download() {
	(cd "$cache/debs" && apt-get download -q "$1") 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2
	return "${PIPESTATUS[0]}"
}

# fetch PACKAGE: the newest .deb of PACKAGE (or of the package it stands
# for) in CACHE/debs.
fetch() {
	local pkg
	pkg=$(resolve "$1") && download "$pkg" || return 1
	# shellcheck disable=SC2012 # our own file names, newest first
	ls -t "$cache/debs/${pkg}"_*.deb 2>/dev/null | head -n 1
}

updated=false
for want in "$@"; do
	[[ -e "$cache/stamps/$want" ]] && continue
	if ! deb=$(fetch "$want") && [[ $updated == false && $(id -u) == 0 ]]; then
		apt-get update -q >&2
		updated=true
		deb=$(fetch "$want") || true
	fi
	[[ -n "$deb" && -f "$deb" ]] || {
		echo "fetch.sh: could not download $want" >&2
		exit 1
	}
	dpkg-deb -x "$deb" "$cache/root"
	echo "$deb" >"$cache/stamps/$want"
	echo "fetch.sh: unpacked ${deb##*/}"
done
