#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Many simultaneous first logins of one user: all succeed and share one
# instance, whoever creates it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"
n=${NS_CONCURRENT:-20}

sandbox_private_tmp root
for round in 1 2 3; do
	rm -rf /tmp/tmp-inst/alice /var/tmp/tmp-inst/alice
	pids=()
	for ((i = 0; i < n; i++)); do
		"$NS_DRIVER" ns-driver alice -- sh -c "echo $i >/tmp/s$i" >"$SB_OUT/s$i.log" 2>&1 &
		pids+=($!)
	done
	failed=0
	for p in "${pids[@]}"; do
		wait "$p" || failed=$((failed + 1))
	done
	assert_eq 0 "$failed" "round $round: sessions that failed"
	assert_eq "$n" "$(find /tmp/tmp-inst/alice -name 's*' | wc -l)" "round $round: files in the one instance"
	assert_eq "alice" "$(ls -A /tmp/tmp-inst)" "round $round: instances"
done
sb_note "$((3 * n)) simultaneous first logins of alice: all opened, one instance each round"
