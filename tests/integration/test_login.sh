#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# "login -f USER" sessions on a terminal get private /tmp and /var/tmp.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
# shellcheck source=private_tmp.sh
. "$here/private_tmp.sh"
sandbox_enter "$@"
command -v script >/dev/null || skip "script(1) is not installed"

sb_note "login runs on a terminal"
out=$(sandbox_login alice 'test -t 0 && echo tty; id -un')
assert_eq "tty"$'\n'"alice" "$out" "alice's login"

check_private_tmp sandbox_login
echo "ok: login"
