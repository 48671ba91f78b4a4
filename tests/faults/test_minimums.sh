#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# faults.py's own guards: a run that tried too few points fails instead of
# passing with nothing tested. A --select naming a call the scenario never
# makes (as fchown would once renamed fchownat), a minimum above what a
# scenario has, and an unknown scenario must each end in status 1 naming
# why; a --select that matches passes (the control). The same for --kill's
# share_drop, which also must fail without --kill or without NS_CHECK.
# Skipped (77) where faults.py is (no root, no strace, valgrind).
set -euo pipefail
faults=$(dirname "$0")/faults.py

# expect STATUS TEXT ARGS...: faults.py ARGS ends in STATUS and says TEXT.
expect() {
	local want=$1 text=$2 out rc=0
	shift 2
	out=$(python3 "$faults" --no-double "$@" 2>&1) || rc=$?
	if [[ $rc == 77 ]]; then
		printf '%s\n' "$out"
		exit 77
	fi
	if [[ $rc != "$want" ]] || ! grep -qF -- "$text" <<<"$out"; then
		printf '%s\n' "$out"
		echo "FAIL: faults.py $* ended in $rc, not $want saying \"$text\"" >&2
		exit 1
	fi
	echo "ok: faults.py $*: status $rc, \"$text\""
}

expect 1 "--select user:fchownat tried 0 points, fewer than 1" --select user:fchownat
expect 1 "--select user:fchown tried" --select user:fchown --min-points 100000
expect 1 "no such scenario: nosuch" --scenario nosuch
expect 0 "0 violations" --select init:unshare
# --kill's scenario share_drop (pam_namespace_check --drop killed at each
# of its calls): the same guards, and it needs --kill and NS_CHECK.
expect 1 "scenario share_drop runs only with --kill" --scenario share_drop
NS_CHECK='' expect 1 "scenario share_drop needs NS_CHECK" --kill --scenario share_drop
expect 1 "--select share_drop:fchownat tried 0 points, fewer than 1" --kill \
	--select share_drop:fchownat
expect 0 "0 violations" --kill --select share_drop:flock
