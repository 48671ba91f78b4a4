#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   deb.sh SOURCE_ROOT WORK [TRIXIE_ROOT]
#
# Builds the project's Debian package as the README says
# (dpkg-buildpackage -us -uc -b), from a copy of the source tree in WORK so
# that nothing is written into the tree or next to it, and prints the path
# of the libpam-namespace-ng .deb. The copy holds the files git knows
# (tracked, and untracked ones not ignored, as they are now on disk), or,
# outside a git checkout, the tree without build directories. A .deb built
# from the same files is reused (WORK/deb-HASH). The unit suite, which
# dh_auto_test would run, is left out (DEB_BUILD_OPTIONS=nocheck): the unit
# suite of the build runs it.
#
# With TRIXIE_ROOT, a Debian 13 root made by tests/trixie/root.sh, the
# package is built inside that root (tests/trixie/enter.sh: a throwaway
# overlay over it, in a private mount namespace), against trixie's
# libraries, for the Debian 13 boot image; the root's name, which is made
# of its package list's hash, is part of the key.
set -euo pipefail

[[ $# == 2 || $# == 3 ]] || {
	echo "usage: deb.sh SOURCE_ROOT WORK [TRIXIE_ROOT]" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
work=$2
troot=${3:-}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=source_files.sh
. "$here/source_files.sh"

exec 9>"$work/lock"
flock 9
list=$work/files
source_files "$src" | LC_ALL=C sort -z >"$list"
key=$( (
	cd "$src" && xargs -0 sha256sum <"$list"
	[[ -z $troot ]] || echo "${troot##*/}"
) | sha256sum | cut -c1-16)
out=$work/deb-$key
if ! ls "$out"/libpam-namespace-ng_*.deb >/dev/null 2>&1; then
	echo "deb.sh: dpkg-buildpackage -us -uc -b in $out/tree" >&2
	rm -rf "$out"
	mkdir -p "$out/tree"
	(cd "$src" && tar --null -T "$list" -cf -) | tar -C "$out/tree" -xf -
	if [[ -n $troot ]]; then
		# The .deb comes out of the root as a tar on enter.sh's stdout.
		bash "$here/../trixie/enter.sh" "$troot" "$out/tree" "$out" \
			'DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b >&2 &&
			cd / && tar -cf - libpam-namespace-ng_*.deb' 2>"$out/build.log" |
			tar -C "$out" -xf -
	else
		(cd "$out/tree" && DEB_BUILD_OPTIONS="nocheck parallel=2" \
			dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1)
	fi || {
		tail -n 40 "$out/build.log" >&2
		echo "deb.sh: dpkg-buildpackage failed; the log is $out/build.log" >&2
		exit 1
	}
	rm -rf "$out/tree"
	rmdir "$out/mnt" 2>/dev/null || true
fi
ls "$out"/libpam-namespace-ng_*.deb
