#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# tests/lib/results.py, which tests/run's table relies on: a skip, a
# PARTIAL line and a cmocka skip() in a meson test log are each shown, and
# the run fails on any that the expected list does not name; --relay
# passes a log's skips on as PARTIAL lines. No root needed.
set -euo pipefail
results=$(dirname "$0")/results.py
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A meson log: one test skipped, one partial, one cmocka skip, one clean.
python3 - "$dir/log.json" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for name, result, out in [
            ("integration / quota", "SKIP", "# a note\nSKIP: no quotas here\n"),
            ("kernel / quota_limits", "OK", "ok 1 a\nPARTIAL rounded: no quotas\n"),
            ("unit / config", "OK", "[  SKIPPED ] test_trust_checks\n"
                                    "[  SKIPPED ] 1 test(s), listed below:\n"
                                    "[  SKIPPED ] test_trust_checks\n"),
            ("unit / plan", "OK", "[       OK ] test_x\n")]:
        f.write(json.dumps({"name": "pam_namespace:" + name, "result": result,
                            "stdout": out}) + "\n")
PY

# check WANT_RC EXPECTED_LINES...: results.py against a list of those lines.
check() {
	local want=$1 rc=0
	shift
	printf '%s\n' "# the list" "$@" >"$dir/expected"
	out=$(python3 "$results" "$dir/expected" suites "$dir/log.json") || rc=$?
	[[ $rc == "$want" ]] || fail "status $rc, not $want, for list [$*]: $out"
}

check 0 "* integration/quota skip why" "suites kernel/quota_limits rounded why" \
	"* unit/config test_trust_* why"
grep -qx "integration/quota skipped: no quotas here (expected)" <<<"$out" || fail "the skip: $out"
grep -qx "kernel/quota_limits partial, rounded left out: no quotas (expected)" <<<"$out" ||
	fail "the partial: $out"
[[ $(grep -c "unit/config partial, test_trust_checks" <<<"$out") == 1 ]] || fail "cmocka's skip: $out"
! grep -q "unit/plan" <<<"$out" || fail "a clean test shown: $out"
echo "ok: listed skips, partial results and cmocka skips pass, each shown once"

check 1 "* integration/quota skip why" "suites kernel/quota_limits rounded why"
grep -q "unit/config partial, test_trust_checks left out.*NOT EXPECTED" <<<"$out" ||
	fail "an unlisted cmocka skip: $out"
check 1 "* unit/config * why" "* kernel/quota_limits * why"
grep -q "integration/quota skipped: no quotas here (NOT EXPECTED" <<<"$out" || fail "an unlisted skip: $out"
check 1 "valgrind * * why"
echo "ok: a skip, partial or cmocka skip missing from the list, or listed for another phase, fails"

out=$(python3 "$results" --relay trixie: "$dir/log.json")
grep -qx "PARTIAL trixie:integration/quota:skip: no quotas here" <<<"$out" || fail "--relay: $out"
grep -qx "PARTIAL trixie:kernel/quota_limits:rounded: no quotas" <<<"$out" || fail "--relay: $out"
echo "ok: --relay"
