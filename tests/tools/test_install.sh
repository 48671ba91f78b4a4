#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# DESTDIR=... meson install places the module, the configuration, an empty
# namespace.d, the tools, the unit and the man pages, and each page renders.
set -euo pipefail
build=${NS_BUILD_ROOT:?NS_BUILD_ROOT names the build directory}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

DESTDIR=$dest meson install -C "$build" --quiet --no-rebuild >"$dest.log" 2>&1 ||
	{ cat "$dest.log" >&2; rm -f "$dest.log"; fail "meson install"; }
rm -f "$dest.log"

want() {
	local n
	n=$(find "$dest" -path "$dest$1" -print | wc -l)
	[[ $n -ge 1 ]] || fail "not installed: $1"
	echo "# installed: $(find "$dest" -path "$dest$1" -print | sed "s|^$dest||" | head -n 1)"
}
want '*/security/pam_namespace.so'
want '/etc/security/namespace.conf'
want '/etc/security/namespace.init'
want '*/sbin/pam_namespace_check'
want '*/sbin/pam_namespace_helper'
want '*/systemd/system/pam_namespace_helper.service'
want '*/tmpfiles.d/pam_namespace.conf'
[[ -d $dest/etc/security/namespace.d ]] || fail "no namespace.d"
[[ -z $(ls -A "$dest/etc/security/namespace.d") ]] || fail "namespace.d is not empty"
[[ -x $dest/etc/security/namespace.init ]] || fail "namespace.init is not executable"
unit=$(find "$dest" -name pam_namespace_helper.service -print | head -n 1)
grep -q '^\[Install\]' "$unit" || fail "no [Install]"
grep -q '^ExecStart=/.*/pam_namespace_helper$' "$unit" || fail "ExecStart not configured"
! grep -q @ "$unit" || fail "a placeholder left in the unit"
if command -v systemd-analyze >/dev/null; then
	# verify wants the ExecStart binary where the unit says: point it at the staged one.
	helper=$(find "$dest" -path '*/sbin/pam_namespace_helper' -print | head -n 1)
	sed "s|^ExecStart=.*|ExecStart=$helper|" "$unit" >"$dest/pam_namespace_helper.service"
	out=$(systemd-analyze verify "$dest/pam_namespace_helper.service" 2>&1) ||
		fail "systemd-analyze verify: $out"
	rm "$dest/pam_namespace_helper.service"
fi

if ! command -v scdoc >/dev/null; then
	echo "# scdoc not installed: man pages not built"
	exit 77
fi
for page in man5/namespace.conf.5 man8/pam_namespace.8 man8/pam_namespace_check.8 \
	man8/pam_namespace_helper.8; do
	f=$(find "$dest" -path "*/man/$page" -print | head -n 1)
	[[ -n $f ]] || fail "man page not installed: $page"
	text=$(MANWIDTH=80 man -l "$f" 2>&1) || fail "man -l $page: $text"
	grep -q NAME <<<"$text" || fail "man -l $page shows no NAME section"
	! grep -q '@[A-Z]*@' "$f" || fail "a placeholder left in $page"
	echo "# renders: $page ($(wc -l <<<"$text") lines)"
done
