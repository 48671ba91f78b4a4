# shellcheck shell=bash disable=SC2016 # session commands are single-quoted on purpose
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The private /tmp scenario shared by the su and login tests:
# check_private_tmp RUNNER, where "RUNNER USER CMD" runs CMD in a session.

check_private_tmp() {
	local run=$1 u out other
	sandbox_private_tmp root
	echo real >/tmp/real-file
	echo real >/var/tmp/real-file

	sb_note "first sessions: /tmp and /var/tmp are empty, files written there stay private"
	for u in alice bob; do
		out=$("$run" "$u" 'echo "tmp:[$(ls -A1 /tmp)]"; echo "vartmp:[$(ls -A1 /var/tmp)]"') ||
			fail "$run $u failed: $out"
		assert_eq "tmp:[]"$'\n'"vartmp:[]" "$out" "$u's first session"
		out=$("$run" "$u" "id -un; echo $u >/tmp/$u-file && echo $u >/var/tmp/$u-file && echo wrote") ||
			fail "$run $u failed: $out"
		assert_eq "$u"$'\n'"wrote" "$out" "$u writes to /tmp and /var/tmp"
	done

	sb_note "next sessions: each finds its own files, never the other's"
	for u in alice bob; do
		out=$("$run" "$u" 'echo "tmp:[$(ls -A1 /tmp)]"; echo "vartmp:[$(ls -A1 /var/tmp)]"; cat /tmp/*-file /var/tmp/*-file') ||
			fail "$run $u failed: $out"
		assert_eq "tmp:[$u-file]"$'\n'"vartmp:[$u-file]"$'\n'"$u"$'\n'"$u" "$out" "$u's next session"
	done

	sb_note "root is excluded and sees the real /tmp"
	out=$("$run" root 'ls -A1 /tmp; ls -A1 /var/tmp') || fail "$run root failed: $out"
	assert_eq "real-file"$'\n'"tmp-inst"$'\n'"real-file"$'\n'"tmp-inst" "$out" "root's session"

	sb_note "the real /tmp never got a session's files"
	assert_eq "real-file"$'\n'"tmp-inst" "$(ls -A1 /tmp)" "the real /tmp"
	assert_eq "real-file"$'\n'"tmp-inst" "$(ls -A1 /var/tmp)" "the real /var/tmp"
	for u in alice bob; do
		other=alice
		[[ $u == alice ]] && other=bob
		assert_file "/tmp/tmp-inst/$u/$u-file"
		assert_file "/var/tmp/tmp-inst/$u/$u-file"
		assert_no_file "/tmp/tmp-inst/$u/$other-file"
		assert_eq "1777 root root" "$(stat -c '%a %U %G' "/tmp/tmp-inst/$u")" "mode of $u's /tmp instance"
	done
	assert_eq "0 root root" "$(stat -c '%a %U %G' /tmp/tmp-inst)" "mode of the instance parent"
	assert_eq 1 "$(sandbox_mounts_at /tmp)" "mounts on /tmp after the sessions"
	assert_eq 1 "$(sandbox_mounts_at /var/tmp)" "mounts on /var/tmp after the sessions"
}
