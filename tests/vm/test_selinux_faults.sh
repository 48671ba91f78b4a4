#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Suite selinux: suite faults' scenarios for the methods context and level,
# which need SELinux, in the selinux suite's VM (Debian 12's kernel under
# qemu, security=selinux, selinux-policy-default, enforcing). The guest gets
# strace, python3 with the few standard modules faults.py imports,
# util-linux's logger and setpriv, the module and pam_driver; its step
# (guest/faults.sh) runs one worker over every point of those scenarios,
# and this script sums its lines up as faults.py does for the host's
# workers: points tried, system calls covered, violations; any violation
# fails.
#
#   NS_MODULE, NS_DRIVER  the built module and PAM driver
#   NS_FAULTS_VM_ARGS     more arguments for the guest's workers (--no-double,
#                         --only CALL: a shorter run while debugging)
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vm.sh
. "$here/vm.sh"

NS_MODULE=${NS_MODULE:-$here/../../build/pam_namespace/module/pam_namespace.so}
NS_DRIVER=${NS_DRIVER:-$here/../../build/tests/driver/pam_driver}
faults=$here/../faults
python=/usr/bin/python3
[[ -x $python ]] || vm_skip "$python is not installed"
command -v strace >/dev/null || vm_skip "strace is not installed"
[[ -z ${NS_DRIVER_VALGRIND:-} ]] || vm_skip "not under valgrind (faults.py says why)"
# Suite faults runs under the sanitizers on the host; here, ASan under TCG
# would take several times the few minutes this takes.
[[ -z ${NS_ASAN_RT:-} ]] || vm_skip "not under the sanitizers (suite faults runs there)"

vm_setup selinux_faults
bash "$here/selinux_policy.sh" "$VM_CACHE" || vm_fail "could not build the SELinux policy"
vm_pam_stack ""

pol=$VM_CACHE/root
vm_copy_tree "$pol/etc/selinux/default" /etc/selinux/default
printf 'SELINUX=enforcing\nSELINUXTYPE=default\n' >"$VM_ROOT/etc/selinux/config"
for t in sbin/load_policy sbin/setfiles; do
	vm_copy "$pol/$t" "/usr/$t"
done
vm_copy "$pol/sbin/setfiles" /usr/sbin/restorecon
for t in getenforce getfilecon setfilecon selinuxenabled; do
	vm_copy "$pol/usr/sbin/$t" "/usr/sbin/$t"
done
vm_copy /usr/bin/runcon

# The worker's tools: strace (with the libunwind it shows stacks with),
# util-linux's logger (-u) and setpriv (--reuid), which busybox's lack.
vm_copy "$(command -v strace)" /usr/bin/strace
vm_copy /usr/bin/logger
vm_copy /usr/bin/setpriv
# python3 and the standard modules faults.py loads, as the host's python3
# lists them: about 8 MB.
real=$(readlink -f "$python")
vm_copy "$real" "$real"
ln -sf "${real##*/}" "$VM_ROOT/usr/bin/python3"
while read -r f; do
	vm_copy "$f" "$f"
done < <(FAULTS_DIR=$faults "$python" -S -B -c '
import os, sys
sys.path.insert(0, os.environ["FAULTS_DIR"])
import faults  # noqa: F401
import encodings.ascii, encodings.latin_1, encodings.utf_8  # noqa: F401
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f and f.startswith(sys.prefix + "/lib/"):
        print(f)
')
vm_copy "$faults/faults.py" /vm/faults/faults.py
vm_copy "$faults/fault_worker.py" /vm/faults/fault_worker.py

vm_step 05-load-policy "$here/guest/selinux_load.sh"
vm_step 30-faults "$here/guest/faults.sh"
printf '%s\n' "${NS_FAULTS_VM_ARGS:-}" >"$VM_ROOT/vm/faults.args"
export VM_STEP_TIMEOUT=${VM_STEP_TIMEOUT:-600}
export NS_VM_TIMEOUT=${NS_VM_TIMEOUT:-660}
VM_TIMEOUT=$NS_VM_TIMEOUT
status=0
# In a subshell: its failure exits there, and the worker's lines are still summed up.
(vm_boot security=selinux selinux=1 enforcing=1) || status=$?
sed -n 's/^FAULTS: //p' "$VM_WORK/console.log.txt" >"$VM_WORK/faults.out"
"$python" "$faults/faults.py" --summarize "$VM_WORK/faults.out" || status=1
exit "$status"
