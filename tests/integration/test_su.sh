#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# "su - USER" sessions of two users get private /tmp and /var/tmp.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
# shellcheck source=private_tmp.sh
. "$here/private_tmp.sh"
sandbox_enter "$@"

check_private_tmp sandbox_su

sb_note "a session's namespace is not the caller's"
out=$(sandbox_su alice 'readlink /proc/self/ns/mnt')
assert_ne "$(sandbox_mnt_ns self)" "$out" "alice's mount namespace"
echo "ok: su"
