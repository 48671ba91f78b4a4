#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The layers as the linker left them (ARCHITECTURE.md): pam_namespace_check
# and pam_namespace_helper hold none of apply/'s code or share/'s session
# code, only core, host, share's store and kernel/; the module holds them
# all, and none of the tools' code (issue 34: whatever the module's text
# holds is its own). Read from the binaries' symbol tables with nm.
set -euo pipefail
check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}
helper=${NS_HELPER:?NS_HELPER names the built pam_namespace_helper}
module=${NS_MODULE:?NS_MODULE names the built module}
command -v nm >/dev/null || { echo "# no nm"; exit 77; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# Every defined function of a binary, one a line (static ones too: nm -a
# reads .symtab, which meson's debugoptimized build keeps).
functions() {
	nm "$1" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u
}
apply_or_session='^(ns_apply|apply_|ns_share_open$|ns_share_join|ns_share_close$|share_pin_built$|ns_session_close$|ns_fail$|share_enter$|share_join$)'

check_fns=$(functions "$check")
helper_fns=$(functions "$helper")
module_fns=$(functions "$module")
[[ -n "$check_fns" && -n "$module_fns" ]] || fail "nm found no functions (a stripped build?)"

for pair in "pam_namespace_check:$check_fns" "pam_namespace_helper:$helper_fns"; do
	name=${pair%%:*}
	found=$(grep -E "$apply_or_session" <<<"${pair#*:}" || true)
	[[ -z "$found" ]] || fail "$name links apply or session code: $(tr '\n' ' ' <<<"$found")"
done
# What the check tool needs of share/ it has: the store, records and pins.
for fn in ns_share_key ns_share_state_read ns_share_sessions ns_share_pin_open_pid1 \
	ns_share_drop_from ns_host_lookup ns_plan_build ns_instance_parent_ok; do
	grep -qx "$fn" <<<"$check_fns" || fail "pam_namespace_check lacks $fn"
done
# And the module has what the tools lack, so that the pattern above is not empty by mistake.
for fn in ns_apply apply_remember_made ns_share_open ns_share_close share_pin_built ns_fail; do
	grep -qx "$fn" <<<"$module_fns" || fail "the module lacks $fn: the symbol names changed"
done
# No tool's function is in the module: every one is named ck_ (ARCHITECTURE.md),
# and main is the tools'; nor does it need libmount, which only the check tool uses.
found=$(grep -E '^(ck_|main$)' <<<"$module_fns" || true)
[[ -z "$found" ]] || fail "the module links the tools' code: $(tr '\n' ' ' <<<"$found")"
if command -v readelf >/dev/null && readelf -d "$module" | grep -q 'NEEDED.*libmount'; then
	fail "the module needs libmount, which only the check tool uses"
fi
echo "ok: pam_namespace_check and pam_namespace_helper hold no apply or session code, the module no tool's code"
