#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The user list: excluded users see the real /tmp; with "~", only the listed
# users are polyinstantiated.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

echo real >/tmp/real-file
caller_ns=$(sandbox_mnt_ns self)

sb_note "root,carol excluded: carol sees and writes the real /tmp, alice does not"
sandbox_private_tmp root,carol
out=$(sandbox_su carol 'ls -A1 /tmp; echo carol >/tmp/carol-file; readlink /proc/self/ns/mnt')
assert_eq "real-file"$'\n'"tmp-inst"$'\n'"$caller_ns" "$out" "carol's session"
assert_file /tmp/carol-file "carol's file in the real /tmp"
out=$(sandbox_su alice 'ls -A1 /tmp; echo alice >/tmp/alice-file')
assert_eq "" "$out" "alice's /tmp"
assert_no_file /tmp/alice-file "alice's file in the real /tmp"
assert_file /tmp/tmp-inst/alice/alice-file
assert_no_file /tmp/tmp-inst/carol "an instance for carol"

sb_note "~alice: only alice is polyinstantiated"
rm -rf /tmp/tmp-inst /var/tmp/tmp-inst /tmp/alice-file /tmp/carol-file
sandbox_private_tmp '~alice'
out=$(sandbox_su alice 'ls -A1 /tmp; readlink /proc/self/ns/mnt')
assert_eq "" "$(head -n -1 <<<"$out")" "alice's /tmp"
assert_ne "$caller_ns" "$(tail -n 1 <<<"$out")" "alice's mount namespace"
for u in bob carol root; do
	out=$(sandbox_su "$u" 'ls -A1 /tmp; readlink /proc/self/ns/mnt')
	assert_eq "real-file"$'\n'"tmp-inst"$'\n'"$caller_ns" "$out" "$u's session"
done
assert_eq "alice" "$(ls -A /tmp/tmp-inst)" "instances made"

sb_note "~alice,bob: alice and bob are, carol is not"
sandbox_private_tmp '~alice,bob'
out=$(sandbox_su bob 'ls -A1 /tmp')
assert_eq "" "$out" "bob's /tmp"
out=$(sandbox_su carol 'ls -A1 /tmp')
assert_eq "real-file"$'\n'"tmp-inst" "$out" "carol's /tmp"
echo "ok: exclusion"
