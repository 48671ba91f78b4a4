#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   selinux_policy.sh CACHE
#
# Debian's selinux-policy-default, built for the selinux suite's guest under
# CACHE/root, never on the host: the package ships policy modules, and its
# postinst builds the binary policy with semodule. This does the same with
# semodule from the unpacked policycoreutils, on a store under CACHE/root
# (semodule -p), with the package's list of modules and the ones its
# postinst disables, plus vm_harness.cil (the guest's own kernel_t made a
# permissive domain). The result is CACHE/root/etc/selinux/default
# (policy.33, contexts, seusers). About 40 s, once for each version of
# vm_harness.cil (CACHE/stamps/policy-<its hash>).
set -euo pipefail

[[ $# == 1 ]] || {
	echo "usage: selinux_policy.sh CACHE" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
packages=(selinux-policy-default policycoreutils selinux-utils libsemanage-common)
bash "$here/fetch.sh" "$cache" "${packages[@]}"
cache=$(cd "$cache" && pwd)
root=$cache/root

exec 9>"$cache/lock"
flock 9
stamp=$cache/stamps/policy-$(md5sum <"$here/vm_harness.cil" | cut -c 1-12)
[[ -e "$stamp" ]] && exit 0

# Where the policy's own postinst would look on an installed system, here
# under root; semodule -p prefixes the store and the configuration with it,
# but not the programs it runs.
mkdir -p "$root/var/lib/selinux"
printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$root/etc/selinux/config"
cat >"$root/etc/selinux/semanage.conf" <<EOF
module-store = direct
expand-check = 0
compiler-directory = $root/usr/libexec/selinux/hll
[setfiles]
path = $root/sbin/setfiles
args = -q -c \$@ \$<
[end]
[sefcontext_compile]
path = $root/usr/sbin/sefcontext_compile
args = -r \$@
[end]
EOF

modules=()
while read -r m; do
	modules+=("-i$root/usr/share/selinux/default/$m.pp.bz2")
done <"$root/usr/share/selinux/default/.modules"
# The modules the package's postinst leaves disabled on a Debian system.
for m in amtu bugzilla cobbler condor cyphesis git ksmtuned likewise livecd nessus numad \
	oddjob openca soundserver thunderbird updfstab usernetctl; do
	modules+=("-d$m")
done
modules+=("-i$here/vm_harness.cil")
echo "selinux_policy.sh: building selinux-policy-default (${#modules[@]} modules) in $root"
start=$(date +%s)
# semodule warns about policy users missing from the host's passwd; harmless.
status=0
"$root/usr/sbin/semodule" -p "$root" -X 100 -n -s default "${modules[@]}" 2>&1 |
	grep -v 'not in password file' >&2 || status=${PIPESTATUS[0]}
[[ $status == 0 && -s "$root/etc/selinux/default/policy/policy.33" ]] || {
	echo "selinux_policy.sh: semodule failed (status $status)" >&2
	exit 1
}
echo "selinux_policy.sh: built in $(($(date +%s) - start))s"
touch "$stamp"
