#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# The context and level methods with selinux-policy-default loaded: PAM
# sessions opened by pam_driver as a login program (local_login_t, from
# its login_exec_t label), with contexts set by pam_selinux, by
# use_current_context under runcon and by use_default_context. Each
# instance must be named <prefix><context>_<user> (<prefix><context> with
# shared) after the context security_compute_member gives, and labelled
# with it.
#
# In enforcing mode the confined domains cannot write to this script's
# pipes, so each session reports in its own /tmp: .seen holds the context
# its command ran in and what its /tmp held, mark the PAM_MARK it was given.
# shellcheck source=tests/vm/guest/guest.sh
. /vm/guest.sh

mode=$(getenforce)
echo "# SELinux mode: $mode"
login=system_u:system_r:local_login_t:s0

# The users' SELinux identities: alice user_u (level s0 only, as the
# policy allows), bob and carol staff_u with every MCS category.
cat >/etc/selinux/default/seusers <<EOT
root:unconfined_u:s0-s0:c0.c1023
alice:user_u:s0
bob:staff_u:s0-s0:c0.c1023
carol:staff_u:s0-s0:c0.c1023
__default__:unconfined_u:s0-s0:c0.c1023
EOT

# service NAME ARGS...: pam_selinux sets the user's context (with the
# level from SELINUX_LEVEL_REQUESTED), then the module with ARGS.
service() {
	name=$1
	shift
	{
		echo "session required pam_selinux.so open env_params"
		echo "session required $MODULE $*"
	} >"/etc/pam.d/$name"
}
service sel-login
service sel-require require_selinux
# use_default_context needs no pam_selinux: the module asks the policy.
printf 'session required %s use_default_context\n' "$MODULE" >/etc/pam.d/sel-default
printf 'session required %s use_current_context\n' "$MODULE" >/etc/pam.d/sel-current

conf() {
	printf '%s\n' "$1" >/etc/security/namespace.conf
}

# The script the module runs after each mount records, in the instance (at
# the polydir, where it is mounted by then),
# the context it ran in.
cat >/etc/security/namespace.init <<'EOT'
#!/bin/sh
cat /proc/self/attr/current >"$1/.init-context"
EOT
chmod 0755 /etc/security/namespace.init
restorecon /etc/security/namespace.init

# label PATH: its SELinux context.
label() {
	getfilecon "$1" | cut -f 2
}

# member CONTEXT [TARGET]: what the policy gives a directory made by
# CONTEXT in /tmp (or in a directory labelled TARGET).
member() {
	compute_member "$1" "${2:-$(label /tmp)}" dir
}

# at_range CONTEXT FROM: CONTEXT with the MLS range of context FROM.
at_range() {
	echo "$(echo "$1" | cut -d : -f 1-3):$(echo "$2" | cut -d : -f 4-)"
}

# The session's command. Its listing of /tmp leaves out namespace.init's
# record: in enforcing mode the script, in local_login_t, may not be allowed
# to write into every instance (it is checked where it can, below).
# shellcheck disable=SC2016 # expanded in the session
show='{ cat /proc/self/attr/current; echo; ls -A /tmp | grep -vx -e .seen -e .init-context; } >/tmp/.seen
echo "$PAM_MARK" >/tmp/mark'

# session [DRIVER-OPTIONS] SERVICE USER: a session opened by a login
# program (pam_driver enters local_login_t from this getty_t); what it says
# goes to /run/driver.log where the policy lets it.
session() {
	pam_driver "$@" -- sh -c "$show" >/run/driver.log 2>&1 ||
		fail "pam_driver $*: status $?: $(cat /run/driver.log)"
}

# seen INSTANCE: what the session that used INSTANCE saw: its context,
# then its /tmp.
seen() {
	[ -f "$1/.seen" ] || fail "no session reported in $1"
	cat "$1/.seen"
}

tmp_con=$(label /tmp)
note "/tmp is labelled $tmp_con"
u_alice=user_u:user_r:user_t:s0
assert_eq system_u:object_r:user_tmp_t:s0 "$(member $u_alice)" \
	"compute_member $u_alice $tmp_con dir"

note "context: alice with use_default_context (no pam_selinux: the command keeps the login program's context)"
conf '/tmp /tmp/tmp-inst/ context root'
m=$(member "$u_alice")
inst="/tmp/tmp-inst/${m}_alice"
session --env PAM_MARK=alice-default sel-default alice
note "instance $inst: $(label "$inst")"
assert_eq "$login" "$(seen "$inst")" "the command's context, and alice's /tmp"
assert_eq "$m" "$(label "$inst")" "the label of alice's instance"
assert_eq alice-default "$(cat "$inst/mark")" "the mark alice's session left in her /tmp"
assert_no_file /tmp/mark "alice's mark in the real /tmp"
note "instance parent /tmp/tmp-inst: $(label /tmp/tmp-inst), $(stat -c '%A %U' /tmp/tmp-inst)"

note "context: alice's context set by pam_selinux: the same context, the same instance"
session --env PAM_MARK=alice-login sel-login alice
assert_eq "$u_alice
mark" "$(seen "$inst")" "the context alice's command ran in, and her /tmp"
assert_eq alice-login "$(cat "$inst/mark")" "the mark in her instance"
init_con=$(cat "$inst/.init-context") || fail "namespace.init did not run"
note "namespace.init ran as $init_con"
assert_eq "$login" "$init_con" "namespace.init's context (the exec context reset, not alice's)"

note "context: bob (staff_u), set by pam_selinux"
u_bob=staff_u:staff_r:staff_t:s0-s0:c0.c1023
m_bob=$(member "$u_bob")
session --env PAM_MARK=bob-login sel-login bob
note "instance /tmp/tmp-inst/${m_bob}_bob: $(label "/tmp/tmp-inst/${m_bob}_bob")"
assert_eq "$u_bob" "$(seen "/tmp/tmp-inst/${m_bob}_bob")" "bob's context, and his /tmp"
assert_eq bob-login "$(cat "/tmp/tmp-inst/${m_bob}_bob/mark")" "bob's mark in his instance"
assert_eq "$m_bob" "$(label "/tmp/tmp-inst/${m_bob}_bob")" "the label of bob's instance"

note "context: alice with use_current_context under runcon at s0:c3"
cur=unconfined_u:unconfined_r:unconfined_t:s0:c3
m_cur=$(member "$cur")
inst_cur="/tmp/tmp-inst/${m_cur}_alice"
runcon "$cur" pam_driver --env PAM_MARK=alice-current sel-current alice -- sh -c "$show" \
	>/run/driver.log 2>&1 || fail "pam_driver under runcon $cur: status $?: $(cat /run/driver.log)"
note "instance $inst_cur: $(label "$inst_cur")"
assert_ne "$m" "$m_cur" "the member contexts of alice's two contexts"
assert_eq "$cur" "$(seen "$inst_cur")" "alice's context and /tmp under runcon"
assert_eq alice-current "$(cat "$inst_cur/mark")" "the mark in her other instance"
assert_eq "$m_cur" "$(label "$inst_cur")" "the label of that instance"

# level_instance NAME-SUFFIX: the one instance whose name ends with it.
level_instance() {
	n=0
	for f in /tmp/tmp-inst/*"$1"; do
		[ -d "$f" ] && n=$((n + 1)) && found=$f
	done
	[ "$n" = 1 ] || fail "$n instances named *$1 in /tmp/tmp-inst: $(ls /tmp/tmp-inst)"
	echo "$found"
}

# check_level_instance DIR CONTEXT SUFFIX: DIR is named after its label,
# which carries the level of the user's CONTEXT. Which label the policy's
# answer or the polydir's own context at that level (as Linux-PAM's
# module does) is said, not judged: the two modules differ there.
check_level_instance() {
	l=$(label "$1")
	note "instance $1: $l"
	assert_eq "/tmp/tmp-inst/$l$3" "$1" "the instance's name, after its label"
	assert_eq "$(echo "$2" | cut -d : -f 4-)" "$(echo "$l" | cut -d : -f 4-)" \
		"the level of the instance's label"
	if [ "$l" = "$(member "$2" "$(at_range "$tmp_con" "$2")")" ]; then
		note "the label is security_compute_member's answer for the polydir at that level"
	elif [ "$l" = "$(at_range "$tmp_con" "$2")" ]; then
		note "the label is the polydir's own context at that level"
	else
		fail "the label $l is neither the member context nor /tmp's at that level"
	fi
}

note "level: bob at s0:c1 and at s0:c2 gets two instances"
conf '/tmp /tmp/tmp-inst/ level root'
for lv in s0:c1 s0:c2; do
	session --env SELINUX_LEVEL_REQUESTED=$lv --env "PAM_MARK=bob-$lv" sel-login bob
	i=$(level_instance ":${lv}_bob") || exit 1
	ucon=staff_u:staff_r:staff_t:$lv
	assert_eq "$ucon" "$(seen "$i")" "bob's context at $lv, and his /tmp"
	check_level_instance "$i" "$ucon" _bob
	assert_eq "bob-$lv" "$(cat "$i/mark")" "bob's mark at $lv"
done

note "level:shared: no user in the name; carol at s0:c1 shares bob's instance"
conf '/tmp /tmp/tmp-inst/ level:shared root'
session --env SELINUX_LEVEL_REQUESTED=s0:c1 --env PAM_MARK=bob-shared sel-login bob
shared=$(level_instance ":s0:c1") || exit 1
check_level_instance "$shared" staff_u:staff_r:staff_t:s0:c1 ""
assert_eq bob-shared "$(cat "$shared/mark")" "the shared instance at s0:c1"
session --env SELINUX_LEVEL_REQUESTED=s0:c1 --env PAM_MARK=carol-shared sel-login carol
assert_eq "staff_u:staff_r:staff_t:s0:c1
mark" "$(seen "$shared")" "carol at s0:c1, and bob's mark in her /tmp"
assert_eq carol-shared "$(cat "$shared/mark")" "carol's mark in the shared instance"

note "require_selinux: SELinux is on, the session opens"
conf '/tmp /tmp/tmp-inst/ context root'
session --env PAM_MARK=alice-require sel-require alice
assert_eq alice-require "$(cat "$inst/mark")" "the mark of the require_selinux session"

# What an enforcing policy refuses the sessions' domains (the harness's own
# permissive domains left out).
echo "# AVC denials of the sessions' domains, $(getenforce) mode:"
dmesg | grep 'avc: *denied' | grep -v -E 'scontext=[^ ]*:(getty_t|kernel_t|setfiles_t):' |
	sed -e 's/^.*avc: *denied/#  /' -e 's/ pid=[0-9]*//' -e 's/ ino=[0-9]*//' \
		-e 's/ comm="[^"]*"//' | sort | uniq -c | head -n 40
echo "ok: selinux ($mode)"
