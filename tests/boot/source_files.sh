# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# shellcheck shell=bash
#
# source_files SRC: the files of the source tree SRC that deb.sh and
# deb_next.sh build from and hash, NUL-terminated, relative to SRC: those
# git knows (tracked, or new and not ignored) and that exist, or outside a
# git checkout every file but the build directories' and .git's.
source_files() {
	local src=$1 f
	if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[[ -e "$src/$f" ]] && printf '%s\0' "$f"
			done
	else
		(cd "$src" && find . -path './build*' -prune -o -path ./.git -prune -o \
			-type f -print0)
	fi
}
