#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# pam_namespace_check as an administrator uses it: compiler-style errors with
# exit 1, the plan for a user, JSON that parses, refusal of a file others can
# write. Runs in a sandbox: its configuration and users are throwaway.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}
conf=/etc/security/namespace.conf

sb_note "a good configuration"
sandbox_private_tmp root
out=$("$check" 2>&1) || fail "check of a good configuration: $out"
assert_contains "$out" "configuration OK: 2 entries" "summary"

sb_note "a bad second line"
sandbox_conf "/tmp     /tmp/tmp-inst/ user root
/var/tmp /var/tmp/i/    frob root"
rc=0
out=$("$check" 2>&1) || rc=$?
assert_status 1 "$rc" "exit status for a bad line"
assert_contains "$out" "$conf:2:25: error: unknown method \"frob\"" "diagnostic"

sb_note "--user prints the instance path"
sandbox_private_tmp root
out=$("$check" --user alice 2>&1) || fail "check --user: $out"
assert_contains "$out" "instance:        /tmp/tmp-inst/alice" "the /tmp instance"
assert_contains "$out" "instance:        /var/tmp/tmp-inst/alice" "the /var/tmp instance"
out=$("$check" --user root 2>&1)
assert_contains "$out" "no polyinstantiated directory" "root is excluded"

sb_note "--json parses as JSON"
"$check" --user alice --json >"$SB_OUT/plan.json"
python3 - "$SB_OUT/plan.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
assert plan["ok"] is True, plan
assert [e["instance"] for e in plan["entries"]] == ["/tmp/tmp-inst/alice", "/var/tmp/tmp-inst/alice"], plan
PY
sandbox_conf '/tmp "/tmp/a\"b/" bogus'
rc=0
"$check" --json >"$SB_OUT/bad.json" 2>/dev/null || rc=$?
assert_status 1 "$rc" "exit status with --json"
python3 - "$SB_OUT/bad.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
assert plan["ok"] is False and plan["diagnostics"][0]["line"] == 1, plan
PY

sb_note "a configuration others can write is refused"
sandbox_private_tmp root
chmod 0666 "$conf"
rc=0
out=$("$check" 2>&1) || rc=$?
assert_status 1 "$rc" "exit status for a writable file"
assert_contains "$out" "$conf: error: refusing" "diagnostic"
chmod 0644 "$conf"

sb_note "--config and --confdir"
mkdir -p "$SB_OUT/alt/namespace.d"
printf '/srv /srv/inst/ user\n' >"$SB_OUT/alt/main.conf"
printf '/opt /opt/i/ nosuch\n' >"$SB_OUT/alt/namespace.d/10-x.conf"
chmod 0755 "$SB_OUT/alt" "$SB_OUT/alt/namespace.d"
rc=0
out=$("$check" --config "$SB_OUT/alt/main.conf" --confdir "$SB_OUT/alt/namespace.d" 2>&1) || rc=$?
assert_status 1 "$rc" "exit status for a bad namespace.d file"
assert_contains "$out" "10-x.conf:1:14: error: unknown method \"nosuch\"" "namespace.d diagnostic"
sb_note "ok"
