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
rounds=${NS_RACE_SESSIONS:-150}

# Three victims: a root directory, one with mode 000 that would pass the
# instance parent check if the module were fooled into it, and a root
# directory inside alice's home, reached by a relative link that stays
# beneath the directory openat2 resolves from (RESOLVE_BENEATH alone
# would not refuse it; RESOLVE_NO_SYMLINKS must).
install -d -m 0755 /srv /srv/victim
install -d -m 0000 /srv/victim000
install -d -m 0755 /home/alice/vict /home/alice/vict/sub
echo precious >/srv/victim/file
victims=(/srv/victim /srv/victim000 /home/alice/vict/sub)
victim_state() {
	stat -c '%u %g %a %i' "$1"
	ls -lAn --time-style=+ "$1"
}
dev_ino() {
	stat -L -c '%d:%i' "$1"
}

# race NAME LINK POLY INSTANCE OPENED CONF [THROUGH]: alice swaps /home/alice/NAME (a
# directory) with a link to LINK while $rounds sessions open. Inside each
# session the device and inode of POLY must be INSTANCE's (a path, read
# after the race when empty: the instance the module made) and no
# victim's, and every victim must still be itself, nothing mounted on it.
# OPENED: "none" where only a fooled module could open a session, "some"
# where the sessions that won the race open and the others are refused.
# THROUGH: the victim POLY's path reaches while alice's link is in its
# middle; seen so, it is the victim itself (checked), not a session's.
race() {
	local name=$1 link=$2 poly=$3 instance=$4 opened=$5 conf=$6 through=${7:-}
	local ok=0 failed=0 escapes=0 wrong=0 i out swaps v line seen want=() ids=()
	for v in "${victims[@]}"; do
		want+=("$(victim_state "$v")")
		ids+=("$(dev_ino "$v")")
	done
	install -d -o alice -g alice -m 0755 "/home/alice/$name"
	ln -sfn "$link" "/home/alice/$name-link"
	chown -h alice:alice "/home/alice/$name-link"
	sandbox_conf "$conf"
	# From a mount namespace of her own, as from another session.
	unshare --mount --propagation private \
		"$attacker" 2001 2001 "/home/alice/$name" "/home/alice/$name-link" >"$SB_OUT/swaps" &
	local apid=$!
	: >"$SB_OUT/seen"
	for ((i = 0; i < rounds; i++)); do
		# What the session sees: POLY, then each victim (device:inode:type,
		# links not followed: a name alice is swapping may be the link just
		# then), then the mount points.
		if out=$(sandbox_driver ns-driver alice -- sh -c \
			'stat -c %d:%i:%F "$@"; awk "{ print \$5 }" /proc/self/mountinfo' \
			- "$poly" "${victims[@]}"); then
			ok=$((ok + 1))
			seen=$(head -n 1 <<<"$out")
			[[ $seen != *:"symbolic link" ]] || seen="link"
			[[ -z $through || ${seen%:*} != "$(dev_ino "$through")" ]] || seen="link"
			printf '%s\n' "${seen%:*}" >>"$SB_OUT/seen"
			for ((v = 0; v < ${#victims[@]}; v++)); do
				line=$(sed -n "$((v + 2))p" <<<"$out")
				[[ "${line%:*}" == "${ids[v]}" ]] ||
					{ escapes=$((escapes + 1)) && sb_note "$name: session $i: ${victims[v]} is $line"; }
				[[ "${seen%:*}" != "${ids[v]}" ]] ||
					{ escapes=$((escapes + 1)) && sb_note "$name: session $i: $poly is ${victims[v]}"; }
				! grep -qxF "${victims[v]}" <<<"$out" ||
					{ escapes=$((escapes + 1)) && sb_note "$name: session $i: a mount on ${victims[v]}"; }
			done
		else
			failed=$((failed + 1))
		fi
	done
	kill "$apid"
	wait "$apid" 2>/dev/null || true
	swaps=$(cat "$SB_OUT/swaps")
	sb_note "$name: $rounds sessions ($ok opened, $failed refused) against $swaps swaps, escapes: $escapes"
	[[ $swaps -gt 10000 ]] || fail "$name: only $swaps swaps: the race means nothing"
	assert_eq 0 "$escapes" "$name: sessions that saw a victim"
	assert_eq "$rounds" "$((ok + failed))" "$name: sessions run"
	if [[ $opened == none ]]; then
		assert_eq 0 "$ok" "$name: sessions opened (only a fooled module opens one)"
	else
		# A few sessions (valgrind's run) may all lose the race by chance.
		((ok > 0 || rounds < 20)) || fail "$name: no session opened: the case tests nothing"
		# "link": the session looked while alice had the link in place.
		wrong=$(grep -cvxF -e "$(dev_ino "$instance")" -e link "$SB_OUT/seen" || true)
		assert_eq 0 "$wrong" "$name: opened sessions whose $poly was not $instance"
	fi
	for ((v = 0; v < ${#victims[@]}; v++)); do
		assert_eq "${want[v]}" "$(victim_state "${victims[v]}")" "$name: victim ${victims[v]}"
		assert_eq 0 "$(sandbox_mounts_at "${victims[v]}")" "$name: mounts on ${victims[v]}"
	done
}

sb_note "the polydir under alice's home is swapped with a link"
race poly /srv/victim /home/alice/poly /tmp/tmp-inst/alice some \
	"/home/alice/poly /tmp/tmp-inst/ user:noinit root"

sb_note "a directory on the polydir's path is swapped with a relative link to a root directory beside it"
install -d -o alice -g alice -m 0755 /home/alice/rpoly /home/alice/rpoly/sub
race rpoly vict /home/alice/rpoly/sub /tmp/tmp-inst/alice some \
	"/home/alice/rpoly/sub /tmp/tmp-inst/ user:noinit root" /home/alice/vict/sub

sb_note "the instance parent under alice's home is swapped with a link"
race inst /srv/victim000 /tmp "" none "/tmp /home/alice/inst/ user:noinit root"

sb_note "the instance itself is swapped with a link"
install -d -m 000 /tmp/tmp-inst
sandbox_pam_args ignore_instance_parent_mode
install -d -o alice -g alice -m 0755 /home/alice/parent /home/alice/parent/alice
race parent/alice /srv/victim /tmp /home/alice/parent/alice some \
	"/tmp /home/alice/parent/ user:noinit root"
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
opened=0
for ((i = 0; i < closes; i++)); do
	# The attacker outlives the session and swaps until the removal takes
	# the names away; its count goes to $SB_OUT/close-$i. The session ends
	# once it has seen a swap (/tmp/d a link), not after a fixed time: a
	# slow start (a sanitizer build, a loaded machine) must not let the
	# close come first.
	rc=0
	sandbox_driver ns-driver alice -- sh -c "
		mkdir /tmp/d && : >/tmp/d/f && ln -s /srv/victim /tmp/l &&
		chown -hR 2001:2001 /tmp/d /tmp/l &&
		{ $attacker 2001 2001 /tmp/d /tmp/l >$SB_OUT/close-$i 2>/dev/null & } &&
		n=0 && while [ ! -L /tmp/d ] && [ \$n -lt 400 ]; do sleep 0.005; n=\$((n + 1)); done &&
		sleep 0.01" >"$SB_OUT/session-$i" 2>&1 || rc=$?
	[[ $rc != 0 ]] || opened=$((opened + 1))
done
# Every attacker has stopped once its names were removed.
for ((i = 0; i < 100; i++)); do
	[[ $(find "$SB_OUT" -name 'close-*' -empty | wc -l) == 0 ]] && break
	sleep 0.1
done
swapped=0 swaps=0
for ((i = 0; i < closes; i++)); do
	n=$(cat "$SB_OUT/close-$i")
	[[ $n =~ ^[0-9]+$ ]] || fail "tmpdir removal: session $i: attacker said [$n]"
	swaps=$((swaps + n))
	((n == 0)) || swapped=$((swapped + 1))
done
sb_note "tmpdir removal: $opened of $closes sessions opened and closed; $swapped had the attacker swapping at close, $swaps swaps in all"
assert_eq "$closes" "$opened" "tmpdir removal: sessions opened and closed"
((swapped * 2 >= closes)) || fail "tmpdir removal: only $swapped of $closes closes met the swapping: the race means nothing"
assert_eq "$before" "$(victim_state /srv/victim)" "tmpdir removal: /srv/victim"
assert_eq precious "$(cat /srv/victim/keep)" "tmpdir removal: the victim's file"
assert_eq "$instances" "$(ls -A /tmp/tmp-inst)" "tmpdir instances left"

# The resolver alone, many more times than sessions can: with openat2
# (RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH) and with the O_NOFOLLOW walk that
# kernels without openat2 get. Each round opens DIR and DIR/x and creates
# DIR/x/n while alice swaps DIR with a link to /home/alice/rvict.
# The link is relative and stays beneath alice's home, where openat2
# resolves from: RESOLVE_BENEATH alone would follow it.
install -d -m 0755 /home/alice/rvict /home/alice/rvict/x
install -d -o alice -g alice -m 0755 /home/alice/rd /home/alice/rd/x
ln -sfn rvict /home/alice/rd-link
chown -h alice:alice /home/alice/rd-link
before=$(victim_state /home/alice/rvict/x)
for mode in openat2 walk; do
	"$attacker" 2001 2001 /home/alice/rd /home/alice/rd-link >"$SB_OUT/swaps" &
	apid=$!
	rc=0
	out=$("$NS_RESOLVER_RACE" "$mode" "${NS_RACE_RESOLUTIONS:-3000}" /home/alice/rd /home/alice/rvict) ||
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
assert_eq "$before" "$(victim_state /home/alice/rvict/x)" "resolver: /home/alice/rvict/x"
sb_note "ok"
