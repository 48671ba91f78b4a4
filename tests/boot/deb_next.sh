#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   deb_next.sh SOURCE_ROOT WORK DEST
#
# Test-only: two later releases of the project's Debian package, for
# boot.py's upgrades with alice logged in (tests/boot/upgrade.py, issue 27),
# copied into DEST as libpam-namespace-ng-next.deb and
# libpam-namespace-ng-gen2.deb. Each is built as deb.sh builds the package
# (dpkg-buildpackage -us -uc -b, nocheck, from a copy of the source in
# WORK), with two differences made in the copy only:
#   - a changelog entry on top of debian/changelog's, version V+upgrade1
#     (next) or V+upgrade2 (gen2), so that dpkg -i is an upgrade;
#   - share_namespace's state format defines (pam_namespace/share/store.c)
#     through dpkg-buildflags' DEB_CFLAGS_APPEND, as
#     pam_namespace/module/meson.build builds pam_namespace_share_next.so and
#     pam_namespace_share_gen2.so for tests/integration/test_share_attacks.sh:
#     next is format 2 and joins format 1's pins, gen2 is format 2 and
#     generation 2 and joins none of them. The whole package is built so,
#     pam_namespace_check too, as a later release would be.
# No build option of the project is involved: debian/rules is as shipped.
# A pair built from the same files is reused (WORK/next-HASH); a cold
# build takes two package builds.
set -euo pipefail

[[ $# == 3 ]] || {
	echo "usage: deb_next.sh SOURCE_ROOT WORK DEST" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
work=$2
dest=$3
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=source_files.sh
. "$here/source_files.sh"

declare -A flags=(
	[next]="-DNS_SHARE_FORMAT=2 -DNS_SHARE_FORMAT_MIN=1"
	[gen2]="-DNS_SHARE_FORMAT=2 -DNS_SHARE_FORMAT_MIN=2 -DNS_SHARE_GENERATION=2"
)
declare -A serial=([next]=1 [gen2]=2)

list=$work/next-files
source_files "$src" | LC_ALL=C sort -z >"$list"
key=$( (cd "$src" && xargs -0 sha256sum <"$list"; declare -p flags serial) |
	sha256sum | cut -c1-16)
out=$work/next-$key
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
date=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Date)
source=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Source)
maint=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Maintainer)

build() {
	local v=$1 dir=$out/$1 tree=$out/$1/tree
	rm -rf "$dir"
	mkdir -p "$tree"
	(cd "$src" && tar --null -T "$list" -cf -) | tar -C "$tree" -xf -
	{
		printf '%s (%s+upgrade%s) unstable; urgency=medium\n\n' "$source" "$version" \
			"${serial[$v]}"
		printf '  * Test build (tests/boot/deb_next.sh): %s.\n\n' "${flags[$v]}"
		printf ' -- %s  %s\n\n' "$maint" "$date"
		cat "$src/debian/changelog"
	} >"$tree/debian/changelog"
	echo "deb_next.sh: dpkg-buildpackage -us -uc -b in $tree (${flags[$v]})" >&2
	(cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=2" DEB_CFLAGS_APPEND="${flags[$v]}" \
		dpkg-buildpackage -us -uc -b >"$dir/build.log" 2>&1) || {
		tail -n 40 "$dir/build.log" >&2
		echo "deb_next.sh: dpkg-buildpackage failed; the log is $dir/build.log" >&2
		exit 1
	}
	rm -rf "$tree"
}

for v in next gen2; do
	ls "$out/$v"/libpam-namespace-ng_*.deb >/dev/null 2>&1 || build "$v"
done
mkdir -p "$dest"
for v in next gen2; do
	cp "$out/$v"/libpam-namespace-ng_*.deb "$dest/libpam-namespace-ng-$v.deb"
done
echo "# later .debs: $dest/libpam-namespace-ng-{next,gen2}.deb (deb_next.sh: $SECONDS s)"
