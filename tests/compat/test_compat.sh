#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The differential suite: every case of cases.sh runs once through our
# module and once through the system's Linux-PAM pam_namespace.so, each in
# a sandbox of its own (the two run side by side), and what the sessions saw
# is compared case by case. A case must give the same output, unless it is
# one of the deliberate differences below: then the outputs must differ,
# ours must show the fixed behaviour, and COMPATIBILITY.md must list it by
# name.
#
#   bash tests/compat/test_compat.sh [CASE...]
#
#   NS_MODULE     our module (default: build/pam_namespace/module/pam_namespace.so)
#   NS_REFERENCE  the module to compare with (default: the system's)
#   NS_DRIVER     the PAM driver
#   COMPAT_KEEP   a directory to keep both outputs in
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

# case -> the name of the deliberate difference (a heading in
# COMPATIBILITY.md) and text our output must contain.
# case -> the name of the deliberate difference (a "### `name`" heading in
# COMPATIBILITY.md) and an extended regular expression our output must match.
declare -A deliberate=(
	[context_current_no_selinux]="null-context"
	[context_default_no_selinux]="null-context"
	[context_shared_current_no_selinux]="null-context"
	[create_decimal]="create-mode-octal"
	[tmpdir_basic]="tmpdir-removed"
	[cwd_in_polydir]="cwd-reentered"
	[unmnt_remnt_cwd_prefix]="cwd-prefix"
	[ruser_unknown_plain]="ruser-only-when-asked"
	[mount_private_shared_root]="mount-private"
	[init_contract]="init-descriptors"
	[flag_prefix]="flags-whole-words"
	[config_untrusted]="config-trust"
	[init_untrusted]="init-trust"
	[init_timeout]="init-timeout"
	[shared_submount]="always-slave"
	[dotdot_in_name]="dotdot-components"
	[polydir_in_user_dir]="no-protect-mounts"
	[extended_line]="extended-lines"
	[instance_mode_home]="instance-mode"
	[instance_mode_script]="instance-mode"
)
declare -A ours_shows=(
	[context_current_no_selinux]=$'\n/tmp/tmp-inst/alice d 1777 root:root\n'
	[context_default_no_selinux]=$'\n/tmp/tmp-inst/alice d 1777 root:root\n'
	[context_shared_current_no_selinux]=$'files: tmp-inst \nstatus 0\n'
	[create_decimal]=$'\n/run/pd/a d 755 alice:alice\n'
	[tmpdir_basic]=$'\n/tmp/tmp-inst d 0 root:root$'
	[cwd_in_polydir]=$'^status 0$'
	[unmnt_remnt_cwd_prefix]=$'^/run/pd/tfoo\nstatus 0'
	[ruser_unknown_plain]=$'mounts: 2\n  files: \nstatus 0$'
	[mount_private_shared_root]=$'/run/pd/later: directory 755 root:root\n  mount: \n'
	[init_contract]=$'fd 7 closed\nstdin /dev/null\n'
	[flag_prefix]=$'-- init\ninit namespace.init /tmp /tmp/tmp-inst/alice 1 alice'
	[config_untrusted]=$'^pam_open_session: Cannot make/remove an entry for the specified session\nstatus 67$'
	[init_untrusted]=$'^pam_open_session: Cannot make/remove an entry for the specified session\nstatus 67\n-- init$'
	[init_timeout]=$'^pam_open_session: Cannot make/remove an entry for the specified session\nstatus 67\n'
	[shared_submount]=$'-- leaked: none$'
	[dotdot_in_name]=$'^/run/pd/a..b: directory 755 root:root\n'
	[polydir_in_user_dir]=$'\n  mounts: 1\n'
	[extended_line]=$'^/tmp: directory 1777 root:root\n  mount: tmpfs rw,nosuid,nodev,noexec,relatime private\n'
	[instance_mode_home]=$'^755 alice:alice\nstatus 0\n755 bob:bob\n'
	[instance_mode_script]=$'^/tmp: directory 1777 root:root\n(.*\n)*/run/pd/a: directory 755 root:root\n(.*\n)*/run/pd/g: directory 775 root:bob\n'
)

# The lines a deliberate difference may change (an extended regular
# expression); every other line must still be the same as Linux-PAM's.
session='^(/[^ ]*: |  [a-z]+: |status |pam_open_session: )'
declare -A differs_in=(
	[context_current_no_selinux]='^/tmp/tmp-inst/'
	[context_default_no_selinux]='^/tmp/tmp-inst/'
	[context_shared_current_no_selinux]=$session
	[create_decimal]='^/run/pd/(a|inst/alice)(: | d )'
	[tmpdir_basic]='^/tmp/tmp-inst/td-'
	[cwd_in_polydir]='^(real|tmp-inst)$'
	[unmnt_remnt_cwd_prefix]='^/run/pd'
	[ruser_unknown_plain]=$session
	[mount_private_shared_root]='^  (mount|mounts|fsopts): |^/run/pd/later: '
	[init_contract]='^(fd 7|stdin) '
	[flag_prefix]='^init '
	[config_untrusted]=$session
	[init_untrusted]="$session|^init "
	[init_timeout]="$session|^init "
	[shared_submount]='^-- leaked: '
	[dotdot_in_name]=$session
	[polydir_in_user_dir]='^  mounts: '
	[extended_line]="$session|^/tmp/tmp-inst/alice "
	[instance_mode_home]='^[0-9]+ [a-z]+:[a-z]+$|^/home/inst/[a-z]+ d '
	[instance_mode_script]='^/(tmp|run/pd/[ag]): directory |^/run/pd/inst/[a-z-]+ d |^/tmp/tmp-inst/alice d '
)

reference=${NS_REFERENCE:-/lib/x86_64-linux-gnu/security/pam_namespace.so}
ours=${NS_MODULE:-$root/build/pam_namespace/module/pam_namespace.so}
driver=${NS_DRIVER:-$root/build/tests/driver/pam_driver}
skip() {
	echo "SKIP: $*"
	exit 77
}
[[ $(id -u) == 0 ]] || skip "needs root"
[[ -f "$reference" ]] || skip "no Linux-PAM module at $reference"
[[ -f "$ours" && -x "$driver" ]] || {
	echo "FAIL: build the module and the driver first" >&2
	exit 1
}

out=${COMPAT_KEEP:-}
if [[ -z "$out" ]]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

# run MODULE SIDE [CASE...]: the cases with MODULE, output in $out/SIDE.*.
# In the sanitizer and valgrind runs only ours is looked at: Linux-PAM's
# module leaks memory on some error paths, and where it crashes
# (null-context) it must die of the plain SIGSEGV that it dies of elsewhere.
run() {
	local rc=0 asan=${ASAN_OPTIONS:-} valgrind=${NS_DRIVER_VALGRIND:-}
	if [[ $2 != ours ]]; then
		[[ -z "$asan" ]] || asan+=:detect_leaks=0:handle_segv=0
		valgrind=
	fi
	ASAN_OPTIONS=$asan NS_DRIVER_VALGRIND=$valgrind NS_MODULE=$1 NS_DRIVER=$driver bash "$here/cases.sh" "${@:3}" >"$out/$2.out" 2>"$out/$2.err" ||
		rc=$?
	echo "$rc" >"$out/$2.rc"
}
run "$ours" ours "$@" &
ours_pid=$!
run "$reference" linux-pam "$@"
wait "$ours_pid"
for side in ours linux-pam; do
	rc=$(cat "$out/$side.rc")
	if [[ $rc == 77 ]]; then
		cat "$out/$side.out"
		exit 77
	fi
	if [[ $rc != 0 ]] || ! grep -qx '== end' "$out/$side.out"; then
		echo "FAIL: the cases did not all run with $side's module (status $rc):" >&2
		tail -n 20 "$out/$side.out" "$out/$side.err" >&2
		exit 1
	fi
done

# split FILE DIR: one file per case.
split_cases() {
	rm -rf "$2"
	mkdir -p "$2"
	awk -v d="$2" '/^== / { f = d "/" $2; printf "" >f; next } f { print >>f }' "$1"
}
split_cases "$out/ours.out" "$out/ours"
split_cases "$out/linux-pam.out" "$out/linux-pam"

# Under valgrind (our side only), cases whose outcome valgrind itself
# changes: it checks an executable's mode before the kernel does, by the
# owner's bits for root too, and so refuses a script only its group may run.
declare -A not_under_valgrind=(
	[init_group_executable]=1
)

n=0 same=0 differ=0 failed=0 skipped=0
for f in "$out/ours"/*; do
	c=${f##*/}
	[[ $c != end ]] || continue
	if [[ -n "${NS_DRIVER_VALGRIND:-}" && -n "${not_under_valgrind[$c]:-}" ]]; then
		echo "PARTIAL $c: not under valgrind, which refuses a script only its group may run"
		skipped=$((skipped + 1))
		continue
	fi
	n=$((n + 1))
	if [[ ! -e "$out/linux-pam/$c" ]]; then
		echo "FAIL: $c: no output from Linux-PAM's run" >&2
		failed=$((failed + 1))
		continue
	fi
	if [[ -z "${deliberate[$c]:-}" ]]; then
		if cmp -s "$f" "$out/linux-pam/$c"; then
			same=$((same + 1))
			echo "ok: $c"
		else
			echo "FAIL: $c: differs from Linux-PAM (< ours, > Linux-PAM):" >&2
			diff "$f" "$out/linux-pam/$c" >&2 || true
			failed=$((failed + 1))
		fi
		continue
	fi
	name=${deliberate[$c]}
	if cmp -s "$f" "$out/linux-pam/$c"; then
		echo "FAIL: $c: the deliberate difference \"$name\" was not seen" >&2
		failed=$((failed + 1))
	elif ! [[ "$(cat "$f")" =~ ${ours_shows[$c]} ]]; then
		echo "FAIL: $c: ours does not show [${ours_shows[$c]}]:" >&2
		cat "$f" >&2
		failed=$((failed + 1))
	elif ! cmp -s <(grep -vE "${differs_in[$c]}" "$f") \
		<(grep -vE "${differs_in[$c]}" "$out/linux-pam/$c"); then
		echo "FAIL: $c: differs from Linux-PAM beyond \"$name\" (< ours, > Linux-PAM):" >&2
		diff <(grep -vE "${differs_in[$c]}" "$f") \
			<(grep -vE "${differs_in[$c]}" "$out/linux-pam/$c") >&2 || true
		failed=$((failed + 1))
	elif ! grep -q "^### \`$name\`" "$root/COMPATIBILITY.md"; then
		echo "FAIL: $c: \"$name\" is not listed in COMPATIBILITY.md" >&2
		failed=$((failed + 1))
	else
		differ=$((differ + 1))
		echo "ok: $c (deliberate difference: $name)"
		diff "$f" "$out/linux-pam/$c" | sed 's/^/#   /' || true
	fi
done
summary="# $n cases: $same as Linux-PAM, $differ deliberate differences, $failed failed"
[[ $skipped == 0 ]] || summary+=", $skipped not compared under valgrind"
echo "$summary"
[[ $failed == 0 && $n -gt 0 ]]
