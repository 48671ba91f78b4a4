#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Suite trixie: this module where users are now, Debian 13 (trixie) with
# Linux-PAM 1.7.0, util-linux 2.41 and glibc 2.41. Trixie's own
# pam_namespace.so needs glibc 2.38, so everything runs inside a trixie root
# made by mmdebstrap (root.sh, cached in the build tree by package list),
# under a throwaway overlay in a private mount and PID namespace
# (enter.sh): nothing is written to the root or to the host's /etc.
#
#   test_trixie.sh build          the README's build (-Dwerror=true), the
#                                 unit suite, every package tests/run
#                                 installs resolved in trixie's archive,
#                                 debian/control's Build-Depends satisfied,
#                                 and "bash tests/run demo"
#   test_trixie.sh compat K/N     shard K of N of tests/compat against
#                                 trixie's Linux-PAM 1.7.0 module
#   test_trixie.sh login          the login(1) tests (util-linux 2.41's
#                                 login, which hangs up its terminal) and
#                                 su's, driven by tests/driver/pty_run
#   test_trixie.sh suites         the unit, kernel, security and integration
#                                 suites, all of them, run in the root
#   test_trixie.sh deb            the .deb built by dpkg-buildpackage in
#                                 the root (tests/boot/deb.sh, cached in
#                                 NS_TRIXIE_WORK/deb and installed in
#                                 boot_trixie's image too) and
#                                 installed by dpkg, with Debian's own
#                                 namespace.init and login.defs: a new
#                                 $HOME instance is not writable by others
#                                 (Linux-PAM 1.7.0's is, side by side)
#
#   test_trixie.sh container     the same .deb (cached) in an unprivileged
#                                 system container: the root run in a user
#                                 namespace whose root is host uid 100000
#                                 (container.sh): su, sshd, su - between two
#                                 users, method context without SELinux, a
#                                 container without CAP_SYS_ADMIN,
#                                 share_namespace; Linux-PAM 1.7.0 beside
#
#   test_trixie.sh bench [ARGS]   the benchmark (tests/bench) with Linux-PAM
#                                 1.7.0 as the Linux-PAM contestant; ARGS go
#                                 to ns_bench (the suite: --smoke
#                                 --no-bounds, the ratios shown; "meson test
#                                 --benchmark": the full run, bounds enforced)
#
#   NS_SOURCE_ROOT  the source tree (default: this file's ../..)
#   NS_TRIXIE_WORK  where the root is cached and mounted (default:
#                   build/tests/trixie)
set -euo pipefail

part=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${NS_SOURCE_ROOT:-$here/../..}" && pwd)
work=${NS_TRIXIE_WORK:-$src/build/tests/trixie}

skip() {
	echo "SKIP: $*"
	exit 77
}
[[ $(id -u) == 0 ]] || skip "needs root (mmdebstrap --mode=root, mounts in a private namespace)"
command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (Debian package mmdebstrap)"
command -v unshare >/dev/null || skip "unshare(1) is not installed"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
	skip "the kernel has no overlay filesystem"

start=$SECONDS
rc=0
root=$(bash "$here/root.sh" "$work/cache") || rc=$?
[[ $rc == 0 ]] || {
	echo "FAIL: making the trixie root (root.sh, status $rc)"
	exit 1
}
echo "# trixie root: $root ($((SECONDS - start)) s)"

# in_root COMMAND: COMMAND in the root, with this part's own mount point.
in_root() {
	bash "$here/enter.sh" "$root" "$src" "$work/run-${part}${shard:+-${shard%/*}}" "$1"
}

# What is compared with, and the build of only what a part needs.
ref=/usr/lib/x86_64-linux-gnu/security/pam_namespace.so
quick_build='meson setup build >/dev/null && meson compile -C build pam_namespace pam_driver pty_run >/dev/null'
# shellcheck disable=SC2016 # expanded in the root
versions='echo "# Debian $(cat /etc/debian_version), libpam-modules $(dpkg-query -W -f "\${Version}" libpam-modules), util-linux $(dpkg-query -W -f "\${Version}" util-linux), glibc $(dpkg-query -W -f "\${Version}" libc6), kernel $(uname -r)"'

case $part in
build)
	# shellcheck disable=SC2016 # expanded in the root
	in_root "$versions"'
set -e
echo "# meson setup build -Dwerror=true && meson compile -C build (README)"
meson setup build -Dwerror=true >setup.log || { cat setup.log; exit 1; }
grep -E "^ *Run-time dependency (pam|mount|libselinux|cmocka) found" setup.log
meson compile -C build >compile.log || { tail -n 40 compile.log; exit 1; }
test -f build/pam_namespace/module/pam_namespace.so
echo "ok: the README build, $(grep -c "^\[" compile.log) steps"
meson test -C build --suite unit --print-errorlogs >test.log || { cat test.log; exit 1; }
grep -E "^(Ok|Fail|Skipped):" test.log
echo "# the packages of tests/run, resolved in trixie'"'"'s archive (apt-get -s)"
mapfile -t pkgs < <(bash tests/run packages)
apt-get install -s --no-install-recommends "${pkgs[@]}" >apt.log 2>&1 || { tail -n 20 apt.log; exit 1; }
echo "ok: ${#pkgs[@]} packages: $(grep -c "^Inst " apt.log) to install, none unknown"
echo "# debian/control Build-Depends"
sed -n "/^Build-Depends:/,/^[A-Z]/p" debian/control | sed "1s/^Build-Depends://;\$d" | tr -d " \n" |
	tr "," "\n" | sed -e "s/\[.*\]//" -e "s/<[^>]*>//g" >bd.list
grep -q "^libaudit-dev$" bd.list || { echo "FAIL: libaudit-dev not in Build-Depends"; exit 1; }
apt-get install -s --no-install-recommends $(grep -v debhelper-compat bd.list) >apt-bd.log 2>&1 ||
	{ tail -n 20 apt-bd.log; exit 1; }
echo "ok: Build-Depends resolve: $(tr "\n" " " <bd.list)"
echo "# bash tests/run demo (its packages are in the root: nothing to install)"
bash tests/run demo >demo.log 2>&1 || { tail -n 40 demo.log; exit 1; }
grep -q "^=== installing" demo.log && { echo "FAIL: the demo installed packages"; exit 1; }
grep "^=== done" demo.log
'
	;;
compat)
	shard=${2:-0/1}
	# shellcheck disable=SC2016 # expanded in the root
	in_root "$versions
set -e
$quick_build
"'echo "# tests/compat shard '"$shard"': this module against $(readlink -f '"$ref"')"
NS_REFERENCE='"$ref"' NS_MODULE=build/pam_namespace/module/pam_namespace.so NS_DRIVER=build/tests/driver/pam_driver \
	COMPAT_SHARD='"$shard"' bash tests/compat/test_compat.sh
'
	;;
login)
	# shellcheck disable=SC2016 # expanded in the root
	in_root "$versions
set -e
$quick_build"'
export NS_MODULE=build/pam_namespace/module/pam_namespace.so NS_DRIVER=build/tests/driver/pam_driver
for t in login su failures; do
	bash tests/integration/test_$t.sh
done
echo "# the login case of tests/compat, with Linux-PAM 1.7.0 too"
NS_REFERENCE='"$ref"' COMPAT_KEEP=/run/k bash tests/compat/test_compat.sh login_session
grep -qx "/tmp/tmp-inst/alice/from-login f 644 alice:alice" /run/k/ours/login_session ||
	{ echo "FAIL: login did not run the session command"; cat /run/k/ours/login_session; exit 1; }
'
	;;
suites)
	# shellcheck disable=SC2016 # expanded in the root
	in_root "$versions"'
set -e
meson setup build >/dev/null && meson compile -C build >/dev/null
# sshd unpacked into the build tree, as tests/vm/fetch.sh does on the host.
c=build/tests/integration/cache
mkdir -p "$c/root" "$c/stamps"
dpkg-deb -x /opt/ns-debs/openssh-server_*.deb "$c/root"
echo /opt/ns-debs >"$c/stamps/openssh-server"
meson test -C build --suite unit --suite kernel --suite security --suite integration \
	--print-errorlogs >suites.log 2>&1 || rc=$?
grep -E "^ *[0-9]+/[0-9]+ " suites.log | grep -vE " OK " || true
grep -E "^(Ok|Fail|Skipped|Timeout):" suites.log
# What the tests in the root skipped or left out, as partial results of
# this test: the table of tests/run shows them, tests/expected-skips lists them.
python3 tests/lib/results.py --relay trixie: build/meson-logs/testlog.json
[[ ${rc:-0} == 0 ]] || {
	python3 -c "import json
for d in map(json.loads, open(\"build/meson-logs/testlog.json\")):
    if d[\"result\"] not in (\"OK\", \"SKIP\"):
        print(\"--- \" + d[\"name\"]); print(d[\"stdout\"][-4000:]); print((d.get(\"stderr\") or \"\")[-4000:])"
	exit 1
}
'
	;;
deb)
	# Built in the root by tests/boot/deb.sh, kept for boot_trixie too.
	deb=$(bash "$here/../boot/deb.sh" "$src" "$work/deb" "$root") || {
		echo "FAIL: dpkg-buildpackage -us -uc -b in the trixie root (tests/boot/deb.sh)"
		exit 1
	}
	echo "# built in the root by dpkg-buildpackage -us -uc -b: $deb"
	bash "$here/deb_home.sh" "$root" "$src" "$work/run-deb" "$deb"
	;;
container)
	unshare --user true 2>/dev/null || skip "cannot make a user namespace here"
	deb=$(bash "$here/../boot/deb.sh" "$src" "$work/deb" "$root") || {
		echo "FAIL: dpkg-buildpackage -us -uc -b in the trixie root (tests/boot/deb.sh)"
		exit 1
	}
	echo "# .deb: $deb ($((SECONDS - start)) s)"
	bash "$here/container.sh" "$root" "$src" "$work/run-container" "$deb"
	;;
bench)
	args=$(printf ' %q' "${@:2}")
	in_root "$versions
set -e
meson setup build >/dev/null && meson compile -C build pam_namespace ns_bench >/dev/null
NS_MODULE=build/pam_namespace/module/pam_namespace.so NS_BENCH=build/tests/bench/ns_bench \
	NS_LPAM_MODULE=$ref bash tests/bench/bench.sh$args"
	;;
*)
	echo "usage: test_trixie.sh build|compat K/N|login|suites|deb|container|bench [ARGS]" >&2
	exit 2
	;;
esac
echo "# $((SECONDS - start)) s"
