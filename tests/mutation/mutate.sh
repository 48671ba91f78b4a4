#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   bash tests/mutation/mutate.sh [SCRATCH] [MUTATION...]
#
# Mutation checks: for each mutation, copy the tracked source into
# SCRATCH/NAME, break one thing there with sed, build only what the suite
# that must see it needs, and run that suite. The suite must FAIL on every
# mutant, by an assertion of its own (not by a build or setup error): a
# mutant it passes is a test that cannot see what it exists for. The
# mutants are patches in a throwaway copy, never build options, so no
# shipped source or build of the real tree can carry one.
#
#   security  the descriptor rules of SECURITY.md: O_NOFOLLOW,
#             RESOLVE_NO_SYMLINKS, the instance opened by descriptor, the
#             fsuid switch
#   bench     a session made to burn 300 us more CPU: bench_smoke's
#             ratios against Linux-PAM's module must fail it
#
# Exit 0 when every mutant was caught, 1 when one survived, 2 when a
# mutation no longer applies (the source it patches changed) or a mutant
# did not build.
set -euo pipefail
src=${NS_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
scratch=${1:-$src/build-mutation}
shift || true

# name@suite@file@sed -E script@what it breaks
mutations=(
	'nofollow@security@kernel/path.c@s/ \| O_NOFOLLOW//g@no O_NOFOLLOW: links in user directories followed'
	'nosymlinks@security@kernel/path.c@s/KN_RESOLVE_NO_SYMLINKS \| //g@openat2 without RESOLVE_NO_SYMLINKS'
	'instfollow@security@pam_namespace/apply.c@s/fd = kn_open_child_dir\(pfd, e->instance_name\);/fd = openat(pfd, e->instance_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC); if (fd < 0) fd = -errno;/@the instance opened with a plain openat, links followed'
	'nofsuid@security@kernel/path.c@s/if \(st->st_uid == 0 \|\| geteuid\(\) != 0\)/if (true)/@no fsuid switch: user directories searched as root'
	'slow@bench@pam_namespace/pam_namespace.c@s/^(#include <unistd.h>)$/\1\n#include <time.h>/; s/^(\tstruct ns_diag diag = \{\.report = diag_to_syslog, \.userdata = &g\};)$/\1 struct timespec burn0, burn1; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, \&burn0); do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, \&burn1); while ((burn1.tv_sec - burn0.tv_sec) * 1000000000L + burn1.tv_nsec - burn0.tv_nsec < 300000);/@300 us more CPU in each pam_open_session'
)
[[ $# -gt 0 ]] || set -- nofollow nosymlinks instfollow nofsuid slow

# What each suite needs built, and what its failed assertions look like.
declare -A targets=(
	[security]="pam_namespace:shared_module pam_driver attacker resolver_race"
	[bench]="pam_namespace:shared_module ns_bench"
)
declare -A evidence=(
	[security]='^FAIL: test_[a-z_]+\.sh:[0-9]+: '
	[bench]='BROKEN|past (its|their) bound'
)

survived=0
for want in "$@"; do
	found=
	for m in "${mutations[@]}"; do
		IFS='@' read -r name suite file expr what <<<"$m"
		[[ $name == "$want" ]] && found=1 && break
	done
	[[ -n $found ]] || { echo "mutate.sh: no mutation $want" >&2; exit 2; }
	dir=$scratch/$name
	rm -rf "$dir"
	install -d "$dir/src"
	git -C "$src" ls-files -z | tar -C "$src" --null -T - -cf - | tar -C "$dir/src" -xf -
	sed -i -E "$expr" "$dir/src/$file"
	if cmp -s "$src/$file" "$dir/src/$file"; then
		echo "mutate.sh: $name: '$expr' changed nothing in $file: the mutation is stale" >&2
		exit 2
	fi
	echo "=== mutant $name ($what): $(diff "$src/$file" "$dir/src/$file" | grep -c '^>') lines changed in $file; suite $suite must fail"
	meson setup -Dwerror=true -Dman=disabled "$dir/build" "$dir/src" >"$dir/setup.log" 2>&1 ||
		{ cat "$dir/setup.log"; exit 2; }
	# shellcheck disable=SC2086 # a list of targets
	meson compile -C "$dir/build" ${targets[$suite]} >"$dir/compile.log" 2>&1 ||
		{ cat "$dir/compile.log"; exit 2; }
	rc=0
	meson test -C "$dir/build" --no-rebuild --suite "$suite" >"$dir/test.log" 2>&1 || rc=$?
	caught=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$dir/test.log" | awk '{print $4}' | paste -sd, - || true)
	# The evidence: each failed assertion (a test that died otherwise,
	# such as of a build or setup error, shows none and kills nothing).
	asserts=$(grep -hE "${evidence[$suite]}" "$dir/build/meson-logs/testlog.txt" || true)
	if [[ $rc == 0 || -z $caught || -z $asserts ]]; then
		echo "SURVIVED: mutant $name passed the $suite suite (log: $dir/test.log)"
		survived=$((survived + 1))
	else
		echo "killed: mutant $name failed the $suite suite in: $caught"
		awk '{ print "    " $0 }' <<<"$asserts"
	fi
done
[[ $survived == 0 ]] || { echo "mutate.sh: $survived mutant(s) survived" >&2; exit 1; }
echo "mutation: every mutant ($*) failed its suite"
