#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Suite vm: the end-to-end login session and the kernel suite, again on a
# second kernel, Debian 12's own (linux-image-cloud-amd64) under qemu (TCG).
#
#   NS_MODULE, NS_DRIVER  the built module and PAM driver
#   NS_VM_KERNEL_TESTS    the kernel suite's runs, separated by ";", each a
#                         program and its arguments ("test_api --deny openat2");
#                         unset: every executable test_* in NS_KERNEL_TEST_DIR
#                         (build/tests/kernel), run without arguments
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vm.sh
. "$here/vm.sh"

NS_MODULE=${NS_MODULE:-$here/../../build/pam_namespace/module/pam_namespace.so}
NS_DRIVER=${NS_DRIVER:-$here/../../build/tests/driver/pam_driver}
NS_KERNEL_TEST_DIR=${NS_KERNEL_TEST_DIR:-$here/../../build/tests/kernel}

vm_setup vm
vm_pam_stack ""
vm_step 10-session "$here/guest/session.sh"

# The kernel suite's programs, each run as a step of its own.
runs=()
if [[ -n "${NS_VM_KERNEL_TESTS:-}" ]]; then
	IFS=';' read -r -a runs <<<"$NS_VM_KERNEL_TESTS"
else
	for t in "$NS_KERNEL_TEST_DIR"/test_*; do
		[[ -f "$t" && -x "$t" ]] && runs+=("$t")
	done
fi
n=0
for run in "${runs[@]}"; do
	read -r -a argv <<<"$run"
	[[ ${#argv[@]} -gt 0 ]] || continue
	n=$((n + 1))
	name=${argv[0]##*/}
	vm_copy "${argv[0]}" "/vm/kernel/$name"
	line="exec /vm/kernel/$name"
	for a in "${argv[@]:1}"; do
		line+=" '$a'"
	done
	printf '#!/bin/sh\n%s\n' "$line" >"$VM_WORK/step"
	vm_step "$(printf '50-kernel-%02d-%s' "$n" "$name")" "$VM_WORK/step"
done
vm_note "kernel suite programs: $n"

vm_boot ""
