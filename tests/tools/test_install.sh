#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# DESTDIR=... meson install, as an administrator installs and upgrades:
# the module, the tools, the unit, the tmpfiles snippet and the default
# configuration (the vendor copies) land under the prefix, and only
# namespace.d in /etc; a namespace.init already in /etc (Debian's, a
# conffile of libpam-modules) is kept, and so is a namespace.conf edited
# between two installs, which the check tool then still reads; each man
# page renders, or none is installed when the build has them disabled.
# With prefix /usr/local and no directory given by hand (tests/run's build),
# nothing lands outside DESTDIR/usr/local and DESTDIR/etc; a build configured
# otherwise is checked so, and that case in a build of its own
# (build/tests/tools/install-usr-local).
set -euo pipefail
build=${NS_BUILD_ROOT:?NS_BUILD_ROOT names the build directory}
check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}
dest=$(mktemp -d)
trap 'rm -rf "$dest" "$dest.log"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

install_once() {
	DESTDIR=$dest meson install -C "$build" --quiet --no-rebuild >"$dest.log" 2>&1 ||
		{ cat "$dest.log" >&2; fail "meson install ($1)"; }
}

# The build's prefix and the directories given as absolute options: the
# only places, with /etc, where anything may be installed.
read -r prefix roots < <(meson introspect --buildoptions "$build" | python3 -c '
import json, sys
opts = {o["name"]: o["value"] for o in json.load(sys.stdin)}
roots = [opts[n] for n in ("pamlibdir", "systemdsystemunitdir", "tmpfilesdir")
         if str(opts[n]).startswith("/")]
print(opts["prefix"], " ".join(roots))')
echo "# prefix $prefix; absolute directory options: ${roots:-none}"
vendor=$prefix/share/pam/security

# Debian's namespace.init is there before the first install.
mkdir -p "$dest/etc/security"
printf '#!/bin/sh\n# Debian: libpam-modules\nexit 0\n' >"$dest/etc/security/namespace.init"
chmod 755 "$dest/etc/security/namespace.init"
cp -p "$dest/etc/security/namespace.init" "$dest/debian-namespace.init"

install_once "first"

want() {
	local n
	n=$(find "$dest" -path "$dest$1" -print | wc -l)
	[[ $n -ge 1 ]] || fail "not installed: $1"
	echo "# installed: $(find "$dest" -path "$dest$1" -print | sed "s|^$dest||" | head -n 1)"
}
want '*/security/pam_namespace.so'
want "$vendor/namespace.conf"
want "$vendor/namespace.init"
want '*/sbin/pam_namespace_check'
want '*/sbin/pam_namespace_helper'
want '*/systemd/system/pam_namespace_helper.service'
want '*/tmpfiles.d/pam_namespace.conf'
[[ -x $dest$vendor/namespace.init ]] || fail "$vendor/namespace.init is not executable"
[[ ! -e $dest/etc/security/namespace.conf ]] ||
	fail "the install wrote /etc/security/namespace.conf"
cmp -s "$dest/debian-namespace.init" "$dest/etc/security/namespace.init" ||
	fail "the install replaced /etc/security/namespace.init"
echo "# /etc/security/namespace.init (Debian's) kept by the first install"
[[ -d $dest/etc/security/namespace.d ]] || fail "no namespace.d"
[[ -z $(ls -A "$dest/etc/security/namespace.d") ]] || fail "namespace.d is not empty"

# stray DEST PREFIX [ROOT...]: what DEST holds outside PREFIX, /etc and the ROOTs.
stray() {
	local d=$1 p=$2
	shift 2
	(cd "$d" && find . \( -type f -o -type l \) -print) | sed 's|^\.||' |
		while IFS= read -r f; do
			ok=0
			for r in "$p" /etc "$@"; do
				[[ $f == "${r%/}"/* ]] && ok=1
			done
			[[ $f == /debian-namespace.init ]] && ok=1
			[[ $ok == 1 ]] || echo "$f"
		done
}
# Nothing outside the prefix and /etc (nor the absolute options' directories).
# shellcheck disable=SC2086 # roots: a list of words
out=$(stray "$dest" "$prefix" $roots)
[[ -z $out ]] || fail "installed outside $prefix and /etc: $(tr '\n' ' ' <<<"$out")"
echo "# $(cd "$dest" && find . -type f | wc -l) files, all under $prefix or /etc"

# The same for prefix /usr/local and no directory given by hand, in a build
# of its own where this one is configured otherwise.
if [[ $prefix != /usr/local || -n $roots ]]; then
	side=$build/tests/tools/install-usr-local
	if ! { [[ -e $side/build.ninja ]] ||
		meson setup "$side" "$NS_SOURCE_ROOT" --prefix=/usr/local -Dtests=false -Dman=disabled; } \
		>"$dest.log" 2>&1 || ! ninja -C "$side" >>"$dest.log" 2>&1; then
		cat "$dest.log" >&2
		fail "a build with prefix /usr/local"
	fi
	mkdir "$dest/local"
	DESTDIR=$dest/local meson install -C "$side" --quiet --no-rebuild >"$dest.log" 2>&1 ||
		{ cat "$dest.log" >&2; fail "meson install (prefix /usr/local)"; }
	out=$(stray "$dest/local" /usr/local)
	[[ -z $out ]] || fail "prefix /usr/local: installed outside /usr/local and /etc: $(tr '\n' ' ' <<<"$out")"
	[[ -n $(find "$dest/local/usr/local" -name pam_namespace_helper.service) ]] ||
		fail "prefix /usr/local: no unit under /usr/local"
	echo "# prefix /usr/local (a build of its own): $(cd "$dest/local" && find . -type f | wc -l) files, all under /usr/local or /etc"
	rm -rf "$dest/local"
fi

unit=$(find "$dest" -name pam_namespace_helper.service -print | head -n 1)
grep -q '^\[Install\]' "$unit" || fail "no [Install]"
grep -q "^ExecStart=$prefix/.*/pam_namespace_helper$" "$unit" || fail "ExecStart not configured"
grep -q "^ConditionPathExists=|$vendor/namespace.conf$" "$unit" ||
	fail "the unit does not look for $vendor/namespace.conf"
! grep -q @ "$unit" || fail "a placeholder left in the unit"
if command -v systemd-analyze >/dev/null; then
	# verify wants the ExecStart binary where the unit says: point it at the staged one.
	helper=$(find "$dest" -path '*/sbin/pam_namespace_helper' -print | head -n 1)
	sed "s|^ExecStart=.*|ExecStart=$helper|" "$unit" >"$dest/pam_namespace_helper.service"
	out=$(systemd-analyze verify "$dest/pam_namespace_helper.service" 2>&1) ||
		fail "systemd-analyze verify: $out"
	rm "$dest/pam_namespace_helper.service"
fi

# The administrator configures, then upgrades: a second install keeps it.
cat >"$dest/etc/security/namespace.conf" <<'EOF'
/tmp      /tmp/tmp-inst/      user   root
/var/tmp  /var/tmp/tmp-inst/  user   root
EOF
chmod 644 "$dest/etc/security/namespace.conf"
printf '/srv  /srv/inst/  user  root\n' >"$dest/etc/security/namespace.d/50-site.conf"
chmod 644 "$dest/etc/security/namespace.d/50-site.conf"
cp -p "$dest/etc/security/namespace.conf" "$dest/edited.conf"
cp -p "$dest/etc/security/namespace.d/50-site.conf" "$dest/edited-50-site.conf"
install_once "second"
cmp -s "$dest/edited.conf" "$dest/etc/security/namespace.conf" ||
	fail "the second install changed the edited /etc/security/namespace.conf"
cmp -s "$dest/edited-50-site.conf" "$dest/etc/security/namespace.d/50-site.conf" ||
	fail "the second install changed namespace.d/50-site.conf"
cmp -s "$dest/debian-namespace.init" "$dest/etc/security/namespace.init" ||
	fail "the second install replaced /etc/security/namespace.init"
echo "# a second install kept the edited namespace.conf, namespace.d and namespace.init"
if [[ $(id -u) == 0 ]]; then
	# What the administrator runs after the upgrade (root: the files are root's).
	out=$("$check" --config "$dest/etc/security/namespace.conf" \
		--confdir "$dest/etc/security/namespace.d" 2>&1) || fail "check: $out"
	grep -q 'configuration OK: 3 entries' <<<"$out" ||
		fail "the check after the second install: $out"
	echo "# pam_namespace_check after the second install: $out"
fi

pages=(man5/namespace.conf.5 man8/pam_namespace.8 man8/pam_namespace_check.8
	man8/pam_namespace_helper.8)
if [[ ${NS_MAN:-} != enabled ]]; then
	# -Dman=disabled, or no scdoc with man=auto: no page is built or installed.
	n=$(find "$dest" -path '*/man/man[58]/*' -print | wc -l)
	[[ $n == 0 ]] || fail "man pages disabled, but $n installed"
	echo "# man pages disabled in this build: none installed"
	exit 0
fi
for page in "${pages[@]}"; do
	f=$(find "$dest" -path "*/man/$page" -print | head -n 1)
	[[ -n $f ]] || fail "man page not installed: $page"
	text=$(MANWIDTH=80 man -l "$f" 2>&1) || fail "man -l $page: $text"
	grep -q NAME <<<"$text" || fail "man -l $page shows no NAME section"
	! grep -q '@[A-Z]*@' "$f" || fail "a placeholder left in $page"
	echo "# renders: $page ($(wc -l <<<"$text") lines)"
done
