#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# A checkout in /tmp, as many people try a new project: every test sandbox
# lays a tmpfs over /tmp (tests/lib/sandbox.sh), which would hide the cases
# the suites read from the tree, so tests/run refuses such a checkout at
# once, with one line saying why, before it installs or builds anything.
# In a private mount namespace with a tmpfs of its own on /tmp (nothing
# here reaches the host's /tmp), tests/run is run from /tmp/clone and from
# /home/x/clone; a checkout elsewhere (/srv is covered too, /opt is not) is
# checked to pass the same test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${NS_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}

[[ $(id -u) == 0 ]] || { echo "SKIP: needs root" && exit 77; }

if [[ -z "${CK_INSIDE:-}" ]]; then
	export CK_INSIDE=1
	exec unshare --mount --propagation private -- "$BASH" "$0" "$@"
fi

fails=0
for top in /tmp /home; do
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-checkout "$top"
	clone=$top/x/clone
	mkdir -p "$clone/tests"
	cp -r "$src/tests/run" "$src/tests/lib" "$clone/tests/"
	rc=0
	out=$(env -u SB_INSIDE -u NS_SOURCE_ROOT timeout 30 bash "$clone/tests/run" test 2>&1) || rc=$?
	if [[ $rc == 2 && $(wc -l <<<"$out") == 1 && "$out" == *"checkout is in $top ($clone)"* &&
		! -e "$clone/build" ]]; then
		echo "ok: tests/run refuses a checkout in $top at once: $out"
	else
		echo "FAIL: tests/run from $clone: status $rc, printed:"
		printf '%s\n' "$out" | head -n 10 | sed 's/^/#   /'
		fails=$((fails + 1))
	fi
	umount "$top"
done
# The same check passes a checkout outside the covered directories: it is
# the run's first step, so a usage error (no argument) shows it went on.
rc=0
out=$(env -u SB_INSIDE bash "$src/tests/run" 2>&1) || rc=$?
if [[ $rc == 2 && "$out" == usage:* ]]; then
	echo "ok: a checkout in $src goes past the check"
else
	echo "FAIL: tests/run from $src: status $rc: $out"
	fails=$((fails + 1))
fi
[[ $fails == 0 ]]
