#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# A login program that may not open its own mount namespace, as Debian's
# SELinux policy refuses local_login_t the nsfs file: the module cannot
# keep a way back to the caller's namespace, says so once in the log, and
# the session works all the same. When such a session fails, the process
# stays in the new namespace, but what the session made is undone there:
# no mount of it left, no instance left. deny_nsfs.so (tests/driver),
# preloaded into the client, makes opening the namespace fail with EACCES.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

[[ -x "${NS_PROBE:-}" ]] || fail "no ns_probe at NS_PROBE"
[[ -x "${NS_DRIVER:-}" ]] || fail "no pam_driver at NS_DRIVER"
[[ -f "${NS_DENY_NSFS:-}" ]] || fail "no deny_nsfs.so at NS_DENY_NSFS"
module_is_linux_pam && skip "Linux-PAM's module never opens the namespace"
# In the sanitizer run the ASan runtime comes first of all (NS_ASAN_RT).
preload="${NS_ASAN_RT:+$NS_ASAN_RT }$NS_DENY_NSFS"
denied_log="cannot open this process's mount namespace (Permission denied)"

# denied CLIENT ARGS...: a PAM client (pam_driver, ns_probe) with
# deny_nsfs.so preloaded; commands it runs do without the preload.
denied() {
	timeout -k 5 "$SB_TIMEOUT" env LD_PRELOAD="$preload" "$@" 2>&1
}

# field WHEN KEY OUTPUT: a number from ns_probe's before/after lines.
field() {
	sed -n "s/^$1 .*$2=\([0-9]*\).*/\1/p" <<<"$3"
}

sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
sandbox_conf '/tmp      /tmp/tmp-inst/      user:noinit root
/var/tmp  /var/tmp/tmp-inst/  user:noinit root'

sb_note "the preload does what Debian's policy does: the namespace cannot be opened"
# (cat is not ours: NS_SU_ENV's settings for such programs, then the preload)
# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
out=$(env ${NS_SU_ENV:-} LD_PRELOAD="$preload" cat /proc/self/ns/mnt 2>&1) &&
	fail "cat opened its namespace: $out"
assert_contains "$out" "Permission denied" "cat /proc/self/ns/mnt under deny_nsfs.so"

sb_note "a session opens all the same, with private /tmp and /var/tmp"
sandbox_log_clear
rc=0
out=$(denied "$NS_DRIVER" ns-driver alice -- env -u LD_PRELOAD \
	sh -c 'echo alice >/tmp/who; echo alice >/var/tmp/who; ls -A /tmp /var/tmp') || rc=$?
assert_status 0 "$rc" "alice's session without access to the namespace: $out"
assert_eq "/tmp:"$'\n'"who"$'\n\n'"/var/tmp:"$'\n'"who" "$out" "what alice's session sees"
assert_eq alice "$(cat /tmp/tmp-inst/alice/who)" "alice's /tmp instance"
assert_eq alice "$(cat /var/tmp/tmp-inst/alice/who)" "alice's /var/tmp instance"
assert_no_file /tmp/who "alice's file in the real /tmp"
assert_log_contains "$denied_log" "the notice"

sb_note "a session whose second line fails: nothing of it is left where the process stays"
sandbox_conf '/tmp          /tmp/tmp-inst/      user:noinit root
/no/such/dir  /var/tmp/tmp-inst/  user:noinit root'
sandbox_log_clear
out=$(denied "$NS_PROBE" ns-driver bob) || true
assert_contains "$out" "open rc=" "ns_probe ran"
assert_not_contains "$out" "open rc=0 " "bob's session must fail"
assert_eq "$(field before mounts "$out")" "$(field after mounts "$out")" \
	"the number of mounts the failed session left (namespace $(field before ns "$out") -> $(field after ns "$out"))"
assert_no_file /tmp/tmp-inst/bob "bob's /tmp instance, after the failed session"
assert_log_contains "namespace.conf:2" "the failing line"
assert_log_contains "$denied_log" "the notice"

sb_note "the same through pam_driver: refused, the command never runs"
rc=0
out=$(denied "$NS_DRIVER" ns-driver bob -- env -u LD_PRELOAD touch "$SB_OUT/ran") || rc=$?
assert_status 67 "$rc" "bob's failing session through pam_driver: $out"
assert_no_file "$SB_OUT/ran" "the command after a failed open"
assert_no_file /tmp/tmp-inst/bob "bob's /tmp instance, after the failed session"
assert_eq 1 "$(sandbox_mounts_at /tmp)" "mounts on /tmp in the caller's namespace"
sb_note "share_namespace: a session that cannot open its namespace, to pin it, gets one of its own"
sandbox_conf '/tmp      /tmp/tmp-inst/      user:noinit root'
sandbox_pam_args share_namespace
sandbox_log_clear
rc=0
out=$(denied "$NS_DRIVER" ns-driver alice -- env -u LD_PRELOAD sh -c 'cat /tmp/who') || rc=$?
assert_status 0 "$rc" "alice's shared session without access to the namespace: $out"
assert_eq alice "$out" "what alice's session sees in /tmp"
assert_log_contains "share_namespace: $denied_log: this session gets a namespace of its own" \
	"the notice of share_namespace"
pins=$(find /run/pam_namespace -name '*.ns' 2>/dev/null || true)
assert_eq "" "$pins" "pins left by a session that could not pin"
sandbox_pam_args
echo "ok: ns_denied"
