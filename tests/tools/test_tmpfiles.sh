#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# conf/pam_namespace.tmpfiles under the real systemd-tmpfiles --clean, next
# to the ageing of /tmp and /var/tmp that systemd's own tmp.conf sets up
# (10 and 30 days; Debian's ages nothing, so it is written out here). Files
# inside instances age; the instance parents and the instances, old and
# empty, stay, and so does a live session's /tmp. Without the snippet the
# same cleaning removes old, empty instances: the control. A file's age
# counts its birth and change times too, which no test can set back, so
# the copies run here age by access and modification times only (amAM:,
# tmpfiles.d(5)); the rules are otherwise the installed ones.
# share= (issue 27): systemd's own x11.conf makes /tmp/.X11-unix and
# /tmp/.ICE-unix root's, 1777, at boot, also where a user made one first;
# the snippet adds no line of its own for them (a second line for a path
# is a warning at every boot), and the two run together without one.
# shellcheck source-path=SCRIPTDIR disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
# The snippet as text: the sandbox covers /tmp, where the tree may lie.
if [[ -z "${SB_INSIDE:-}" ]]; then
	snippet=$SB_SOURCE_ROOT/conf/pam_namespace.tmpfiles
	[[ -f $snippet ]] || fail "no $snippet"
	NS_TMPFILES_SNIPPET=$(cat "$snippet")
	export NS_TMPFILES_SNIPPET
fi
sandbox_enter "$@"
command -v systemd-tmpfiles >/dev/null || skip "systemd-tmpfiles is not installed"
snippet=conf/pam_namespace.tmpfiles
sed -E 's/ ([0-9]+d)$/ amAM:\1/' <<<"$NS_TMPFILES_SNIPPET" >"$SB_DIR/pam_namespace.conf"
# The snippet as installed, for the boot run.
installed_snippet=$SB_DIR/pam_namespace-installed.conf
printf '%s\n' "$NS_TMPFILES_SNIPPET" >"$installed_snippet"
grep -q 'amAM:10d$' "$SB_DIR/pam_namespace.conf" || fail "no age in $snippet"
printf 'q /tmp 1777 root root amAM:10d\nq /var/tmp 1777 root root amAM:30d\n' >"$SB_DIR/tmp.conf"

# layout: instance parents, an instance each for alice and bob, and what
# users left in them, aged with touch -d.
layout() {
	rm -rf /tmp/* /var/tmp/* 2>/dev/null || true
	sandbox_inst_parent /tmp/tmp-inst /var/tmp/tmp-inst
	install -d -m 1777 /tmp/tmp-inst/alice /tmp/tmp-inst/bob /var/tmp/tmp-inst/alice
	touch -d '20 days ago' /tmp/tmp-inst/alice/old /tmp/old-in-real-tmp
	touch -d '40 days ago' /var/tmp/old-in-real-var-tmp
	touch /tmp/tmp-inst/alice/new
	install -d -m 0755 /tmp/tmp-inst/alice/olddir
	touch -d '20 days ago' /var/tmp/tmp-inst/alice/twenty-days
	touch -d '40 days ago' /var/tmp/tmp-inst/alice/forty-days
	touch -h -a -m -d '40 days ago' /tmp/tmp-inst/alice/olddir /tmp/tmp-inst/bob \
		/tmp/tmp-inst /var/tmp/tmp-inst/alice /var/tmp/tmp-inst /tmp/tmp-inst/alice
}
clean() {
	systemd-tmpfiles --clean "$@" >"$SB_DIR/tmpfiles.log" 2>&1 ||
		fail "systemd-tmpfiles --clean $*: $(cat "$SB_DIR/tmpfiles.log")"
}
left() {
	(cd "$1" && find . -mindepth 1 | sort | tr '\n' ' ')
}

sb_note "control: /tmp's and /var/tmp's ageing alone removes old, empty instances"
layout
clean "$SB_DIR/tmp.conf"
assert_no_file /tmp/old-in-real-tmp
assert_no_file /tmp/tmp-inst/bob "bob's old, empty instance, without the snippet"

sb_note "with the snippet: contents age, parents and instances stay"
layout
clean "$SB_DIR/tmp.conf" "$SB_DIR/pam_namespace.conf"
assert_no_file /tmp/old-in-real-tmp
assert_no_file /var/tmp/old-in-real-var-tmp "an old file in /var/tmp, with the snippet"
assert_eq "./alice ./alice/new ./bob " "$(left /tmp/tmp-inst)" "what is left in /tmp/tmp-inst"
assert_eq "./alice ./alice/twenty-days " "$(left /var/tmp/tmp-inst)" "what is left in /var/tmp/tmp-inst"
assert_eq "0 root" "$(stat -c '%a %U' /tmp/tmp-inst)" "the /tmp instance parent"
assert_eq "1777" "$(stat -c '%a' /tmp/tmp-inst/bob)" "bob's old, empty instance"

sb_note "a live session's /tmp, old and empty, survives the cleaning and stays usable"
layout
rm -rf /tmp/tmp-inst/alice
sandbox_conf '/tmp  /tmp/tmp-inst/  user  root'
(sandbox_driver ns-driver alice -- sh -c 'touch /tmp/ready; while [ ! -e '"$SB_OUT"'/go ]; do sleep 0.05; done; echo after >/tmp/after && echo wrote' >"$SB_OUT/session.out" 2>&1) &
session=$!
for ((i = 0; i < 200; i++)); do
	[[ -e /tmp/tmp-inst/alice/ready ]] && break
	sleep 0.05
done
assert_file /tmp/tmp-inst/alice/ready "alice's session started"
rm /tmp/tmp-inst/alice/ready
touch -h -a -m -d '40 days ago' /tmp/tmp-inst/alice
clean "$SB_DIR/tmp.conf" "$SB_DIR/pam_namespace.conf"
assert_file /tmp/tmp-inst/alice "the live instance after the cleaning"
touch "$SB_OUT/go"
wait "$session" || fail "alice's session: $(cat "$SB_OUT/session.out")"
assert_eq "wrote" "$(cat "$SB_OUT/session.out")" "the session, writing to /tmp after the cleaning"
assert_file /tmp/tmp-inst/alice/after

sb_note "share=: at boot, systemd's x11.conf takes /tmp/.X11-unix back from alice; sessions share it again"
x11_conf=/usr/lib/tmpfiles.d/x11.conf
if [[ -f $x11_conf ]]; then
	rm -rf /tmp/.X11-unix /tmp/.ICE-unix
	sandbox_inst_parent /tmp/tmp-inst
	setpriv --reuid=alice --regid=alice --clear-groups mkdir -m 1777 /tmp/.X11-unix
	setpriv --reuid=alice --regid=alice --clear-groups touch /tmp/.X11-unix/X0
	sandbox_conf '/tmp  /tmp/tmp-inst/  user+:share=/tmp/.X11-unix:share=/tmp/.ICE-unix  root'
	mounts='awk '"'"'$5 ~ /^\/tmp/ { print $5 }'"'"' /proc/self/mountinfo'
	sandbox_log_clear
	out=$(sandbox_su bob "$mounts") || fail "bob's session before the boot: $out"
	assert_eq "/tmp
/tmp" "$out" "bob's mounts, alice's /tmp/.X11-unix and no /tmp/.ICE-unix"
	assert_log_contains "not sharing /tmp/.X11-unix: owner uid 2001" "before the boot"
	assert_log_contains "not sharing /tmp/.ICE-unix: it is missing" "before the boot"
	systemd-tmpfiles --boot --create --remove "$x11_conf" "$installed_snippet" \
		>"$SB_DIR/tmpfiles.log" 2>&1 || fail "systemd-tmpfiles --boot: $(cat "$SB_DIR/tmpfiles.log")"
	assert_not_contains "$(cat "$SB_DIR/tmpfiles.log")" "uplicate" "systemd-tmpfiles on x11.conf and the snippet"
	assert_eq "root 1777 directory" "$(stat -c '%U %a %F' /tmp/.X11-unix)" "/tmp/.X11-unix after the boot"
	assert_eq "" "$(ls -A /tmp/.X11-unix)" "what alice left in it"
	assert_eq "root 1777 directory" "$(stat -c '%U %a %F' /tmp/.ICE-unix)" "/tmp/.ICE-unix after the boot"
	sandbox_log_clear
	out=$(sandbox_su bob "$mounts") || fail "bob's session after the boot: $out"
	assert_eq "/tmp
/tmp
/tmp/.X11-unix
/tmp/.ICE-unix" "$out" "bob's mounts after the boot"
	assert_not_contains "$(sandbox_log)" "not sharing" "the log after the boot"
else
	sb_note "no $x11_conf on this host: not checked"
fi
echo "ok: tmpfiles"
