#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   bash tests/mutation/mutate.sh [SCRATCH] [MUTATION...]
#
# Mutation checks of the descriptor rules (SECURITY.md): for each mutation,
# copy the tracked source into SCRATCH, break one rule there with sed, build
# only what the security suite needs and run it. The suite must FAIL on every
# mutant: a mutant it passes is a test that cannot see the attack. The
# mutants are patches in a throwaway copy, never build options, so no
# shipped source or build of the real tree can carry a broken rule.
# Exit 0 when every mutant was caught, 1 when one survived.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${1:-$src/build-mutation}
shift || true

# name#file#sed -E expression#what it breaks
mutations=(
	'nofollow#kernel/path.c#s/ \| O_NOFOLLOW//g#no O_NOFOLLOW: links in user directories followed'
	'nosymlinks#kernel/path.c#s/KN_RESOLVE_NO_SYMLINKS \| //g#openat2 without RESOLVE_NO_SYMLINKS'
	'nofsuid#kernel/path.c#s/if \(st->st_uid == 0 \|\| geteuid\(\) != 0\)/if (true)/#no fsuid switch: user directories searched as root'
)
[[ $# -gt 0 ]] || set -- nofollow nosymlinks nofsuid

survived=0
for want in "$@"; do
	found=
	for m in "${mutations[@]}"; do
		IFS='#' read -r name file expr what <<<"$m"
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
	echo "=== mutant $name ($what): $(diff "$src/$file" "$dir/src/$file" | grep -c '^>') lines changed in $file"
	meson setup -Dwerror=true -Dman=disabled "$dir/build" "$dir/src" >"$dir/setup.log" 2>&1 ||
		{ cat "$dir/setup.log"; exit 2; }
	meson compile -C "$dir/build" pam_namespace:shared_module pam_driver \
		attacker resolver_race >"$dir/compile.log" 2>&1 ||
		{ cat "$dir/compile.log"; exit 2; }
	rc=0
	meson test -C "$dir/build" --no-rebuild --suite security >"$dir/test.log" 2>&1 || rc=$?
	caught=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$dir/test.log" | awk '{print $4}' | paste -sd, - || true)
	if [[ $rc == 0 || -z $caught ]]; then
		echo "SURVIVED: mutant $name passed the security suite (log: $dir/test.log)"
		survived=$((survived + 1))
	else
		echo "killed: mutant $name failed the security suite in: $caught"
	fi
done
[[ $survived == 0 ]] || { echo "mutate.sh: $survived mutant(s) survived" >&2; exit 1; }
echo "mutation: every mutant ($*) failed the security suite"
