#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Suite selinux: the context and level methods with Debian's
# selinux-policy-default loaded, in the VM of suite vm (Debian 12's kernel
# under qemu, booted with security=selinux). The policy is built from the
# package under build/tests/vm/cache (selinux_policy.sh), never on the host.
# First, on the host (no SELinux), require_selinux must fail a session.
#
#   NS_MODULE, NS_DRIVER  the built module and PAM driver
#   NS_VM_ENFORCING       0: boot permissive (default 1: enforcing). The
#                         policy does not let local_login_t open its
#                         namespace file (nsfs_t): the module logs a notice
#                         and goes on without a way back for a failed session.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vm.sh
. "$here/vm.sh"

NS_MODULE=${NS_MODULE:-$here/../../build/pam_namespace/module/pam_namespace.so}
NS_DRIVER=${NS_DRIVER:-$here/../../build/tests/driver/pam_driver}

vm_note "require_selinux on this host, without SELinux"
bash "$here/host_no_selinux.sh" || vm_fail "require_selinux without SELinux"

vm_setup selinux
bash "$here/selinux_policy.sh" "$VM_CACHE" || vm_fail "could not build the SELinux policy"
vm_pam_stack ""
vm_copy "$VM_LIBDIR/security/pam_selinux.so"

# The policy and the tools that load it, label files and ask it questions:
# from the unpacked packages, plus runcon from the host's coreutils.
pol=$VM_CACHE/root
vm_copy_tree "$pol/etc/selinux/default" /etc/selinux/default
printf 'SELINUX=%s\nSELINUXTYPE=default\n' \
	"$([[ ${NS_VM_ENFORCING:-1} == 1 ]] && echo enforcing || echo permissive)" \
	>"$VM_ROOT/etc/selinux/config"
for t in sbin/load_policy sbin/setfiles; do
	vm_copy "$pol/$t" "/usr/$t"
done
vm_copy "$pol/sbin/setfiles" /usr/sbin/restorecon
for t in getenforce setenforce compute_member getfilecon setfilecon getseuser selinuxenabled; do
	vm_copy "$pol/usr/sbin/$t" "/usr/sbin/$t"
done
vm_copy /usr/bin/runcon
vm_copy /usr/bin/id /usr/bin/id.coreutils

vm_step 05-load-policy "$here/guest/selinux_load.sh"
# The test runs as a getty would (getty_t), so that pam_driver enters
# local_login_t as a login program does.
vm_copy "$here/guest/selinux.sh" /vm/selinux.sh
printf '#!/bin/sh\nexec runcon system_u:system_r:getty_t:s0 /vm/selinux.sh\n' >"$VM_WORK/step"
vm_step 20-selinux "$VM_WORK/step"
vm_boot security=selinux selinux=1 "enforcing=${NS_VM_ENFORCING:-1}"
