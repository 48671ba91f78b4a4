# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# What the test suites must leave as they found it on the host: the entries
# at /, the directories the sandbox covers or binds over (a test that wrote
# there before its tmpfs was mounted, or after it was gone, wrote the
# host's), the files it binds over, and the host's mount table. tests/run
# takes this before the suites and compares after them; "Nothing a test
# does may outlive it."
#
#   host_state             print the state (sorted lines, stable between runs)
#   host_state_changed OLD print what differs from OLD ("- " gone, "+ " new);
#                          status 1 when something does
#
# Run directly, "host_state.sh" prints the state.

# Directories whose entries (not their contents' contents) are listed; /tmp,
# /var/tmp and /run are left out, as the host's own programs write there,
# and so are the dot files of /root (caches of the tools the run uses).
HOST_STATE_DIRS=(/ /etc /etc/security /etc/security/namespace.d /etc/pam.d /srv /home /opt
	/mnt /media /root /var /var/log /usr/local)
# Paths whose existence counts: what a test makes inside the sandbox, which
# the host must never have.
HOST_STATE_PATHS=(/run/pam_namespace /run/ns-sandbox /run/ns-bench /tmp/tmp-inst /var/tmp/tmp-inst)
# Files whose contents count: those the sandbox binds its copies over.
HOST_STATE_FILES=(/etc/passwd /etc/group /etc/shadow /etc/nsswitch.conf
	/etc/security/namespace.conf /etc/security/namespace.init)

host_state() {
	local d f
	for d in "${HOST_STATE_DIRS[@]}"; do
		[[ -d $d ]] || continue
		# Type, mode and owner of each entry, and a link's target; no
		# times or sizes, which the host's own programs change.
		find "$d" -mindepth 1 -maxdepth 1 ! -path '/root/.*' \
			-printf 'entry %p %y %m %u:%g %l\n' 2>/dev/null
	done
	for f in "${HOST_STATE_PATHS[@]}"; do
		[[ -e $f || -L $f ]] && printf 'exists %s\n' "$f"
	done
	for f in "${HOST_STATE_FILES[@]}"; do
		[[ -f $f ]] && printf 'file %s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)"
	done
	# Each mount: its mount point, root, options and propagation (the
	# optional fields: making / shared or private is a change too), type
	# and source; not the mount and parent ids, which say nothing a test
	# could have changed without the rest.
	awk '{
		for (i = 7; i <= NF && $i != "-"; i++)
			opt = opt " " $i
		printf "mount %s %s %s%s - %s %s\n", $5, $4, $6, opt, $(i + 1), $(i + 2)
		opt = ""
	}' /proc/self/mountinfo
}

# host_state_changed OLD: compare the host now with OLD (host_state's output).
host_state_changed() {
	local now changed
	now=$(host_state | LC_ALL=C sort)
	# (diff's status is 1 on a difference: only its output counts)
	changed=$(diff <(LC_ALL=C sort <<<"$1") <(printf '%s\n' "$now") |
		sed -n 's/^< /- /p; s/^> /+ /p' || true)
	[[ -n $changed ]] || return 0
	printf '%s\n' "$changed"
	return 1
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	host_state | LC_ALL=C sort
fi
