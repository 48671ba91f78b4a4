#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# A user races the module: while sessions open in a loop, alice swaps a
# directory on the module's path with a symlink to a root-owned victim
# directory, with renameat2(RENAME_EXCHANGE) as fast as she can. Whatever
# the timing, nothing may be mounted on, created in or changed in the
# victim: zero escapes. Sessions that lose the race fail; that is fine.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
SB_PROGRAMS+=(NS_RESOLVER_RACE)
sandbox_enter "$@"
# The victims live on a tmpfs of the sandbox, never on the host's /srv.
mount -t tmpfs -o mode=0755 ns-victims /srv
attacker=${NS_ATTACKER:?NS_ATTACKER names the built attacker}
rounds=${NS_RACE_SESSIONS:-300}

# Two victims: a root directory, and one with mode 000 that would pass
# the instance parent check if the module were fooled into it.
install -d -m 0755 /srv /srv/victim
install -d -m 0000 /srv/victim000
echo precious >/srv/victim/file
victim_state() {
	stat -c '%u %g %a %i' "$1"
	ls -lAn --time-style=+ "$1"
}

# race NAME VICTIM CONF: alice swaps /home/alice/NAME (a directory) with a
# link to VICTIM while $rounds sessions open; counts sessions and escapes.
race() {
	local name=$1 victim=$2 conf=$3 ok=0 failed=0 escapes=0 i out swaps before
	before=$(victim_state "$victim")
	install -d -o alice -g alice -m 0755 "/home/alice/$name"
	ln -sfn "$victim" "/home/alice/$name-link"
	chown -h alice:alice "/home/alice/$name-link"
	sandbox_conf "$conf"
	# From a mount namespace of her own, as from another session.
	unshare --mount --propagation private \
		"$attacker" 2001 2001 "/home/alice/$name" "/home/alice/$name-link" >"$SB_OUT/swaps" &
	local apid=$!
	for ((i = 0; i < rounds; i++)); do
		if out=$(sandbox_driver ns-driver alice -- \
			awk -v v="$victim" '$5 == v { print "MOUNTED" }' /proc/self/mountinfo); then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
		fi
		[[ "$out" == *MOUNTED* ]] && escapes=$((escapes + 1))
	done
	kill "$apid"
	wait "$apid" 2>/dev/null || true
	swaps=$(cat "$SB_OUT/swaps")
	sb_note "$name: $rounds sessions ($ok opened, $failed refused) against $swaps swaps, escapes: $escapes"
	[[ $swaps -gt 10000 ]] || fail "$name: only $swaps swaps: the race means nothing"
	assert_eq 0 "$escapes" "$name: sessions that mounted on the victim"
	assert_eq "$before" "$(victim_state "$victim")" "$name: the victim directory"
	assert_eq 0 "$(sandbox_mounts_at "$victim")" "$name: mounts on the victim"
}

sb_note "the polydir under alice's home is swapped with a link"
race poly /srv/victim "/home/alice/poly /tmp/tmp-inst/ user:noinit root"

sb_note "the instance parent under alice's home is swapped with a link"
race inst /srv/victim000 "/tmp /home/alice/inst/ user:noinit root"

sb_note "the instance itself is swapped with a link"
install -d -m 000 /tmp/tmp-inst
sandbox_pam_args ignore_instance_parent_mode
install -d -o alice -g alice -m 0755 /home/alice/parent
race parent/alice /srv/victim "/tmp /home/alice/parent/ user:noinit root"
sandbox_pam_args

# tmpdir removal at close: inside her session alice leaves the attacker
# swapping a directory of her tmpdir with a link to /srv/victim, so that
# the module's removal meets both; it must unlink the link, never follow it.
sb_note "tmpdir removal while alice swaps a directory and a link in it"
echo precious >/srv/victim/keep
before=$(victim_state /srv/victim)
sandbox_conf "/tmp /tmp/tmp-inst/ tmpdir:noinit root"
closes=${NS_RACE_CLOSES:-40}
instances=$(ls -A /tmp/tmp-inst)
for ((i = 0; i < closes; i++)); do
	sandbox_driver ns-driver alice -- sh -c "
		mkdir /tmp/d && : >/tmp/d/f && ln -s /srv/victim /tmp/l &&
		chown -hR 2001:2001 /tmp/d /tmp/l &&
		{ $attacker 2001 2001 /tmp/d /tmp/l >/dev/null 2>&1 & } && sleep 0.02" >/dev/null 2>&1 || true
done
assert_eq "$before" "$(victim_state /srv/victim)" "tmpdir removal: /srv/victim"
assert_eq precious "$(cat /srv/victim/keep)" "tmpdir removal: the victim's file"
assert_eq "$instances" "$(ls -A /tmp/tmp-inst)" "tmpdir instances left"
sb_note "tmpdir removal: $closes sessions closed during the swaps, the victim intact"

# The resolver alone, many more times than sessions can: with openat2
# (RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH) and with the O_NOFOLLOW walk that
# kernels without openat2 get. Each round opens DIR and DIR/x and creates
# DIR/x/n while alice swaps DIR with a link to /srv/victim.
install -d -m 0755 /srv/victim/x
install -d -o alice -g alice -m 0755 /home/alice/rd /home/alice/rd/x
ln -sfn /srv/victim /home/alice/rd-link
chown -h alice:alice /home/alice/rd-link
before=$(victim_state /srv/victim/x)
for mode in openat2 walk; do
	"$attacker" 2001 2001 /home/alice/rd /home/alice/rd-link >"$SB_OUT/swaps" &
	apid=$!
	rc=0
	out=$("$NS_RESOLVER_RACE" "$mode" "${NS_RACE_RESOLUTIONS:-3000}" /home/alice/rd /srv/victim) ||
		rc=$?
	kill "$apid"
	wait "$apid" 2>/dev/null || true
	[[ $rc != 77 ]] || {
		sb_note "$mode: $out"
		continue
	}
	read -r opened refused escapes <<<"$out"
	swaps=$(cat "$SB_OUT/swaps")
	sb_note "resolver, $mode: $((opened + refused)) operations ($opened done, $refused refused) against $swaps swaps, escapes: $escapes"
	assert_eq 0 "$rc" "resolver, $mode: exit status"
	assert_eq 0 "$escapes" "resolver, $mode: escapes"
	[[ $swaps -gt 10000 ]] || fail "resolver, $mode: only $swaps swaps: the race means nothing"
	((opened > 0 && refused > 0)) || fail "resolver, $mode: $opened done, $refused refused: no race happened"
done
assert_eq "$before" "$(victim_state /srv/victim/x)" "resolver: /srv/victim/x"
sb_note "ok"
