#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   container.sh ROOT SRC WORK DEB
#
# The .deb in an unprivileged system container (issue 33): the Debian 13
# root ROOT (root.sh) run in a user namespace whose root is host uid
# 100000 (ids 0-65535 inside are 100000-165535 outside), with mount, PID,
# network, IPC and UTS namespaces of its own, as LXD or Incus run one. DEB
# (built in ROOT, tests/boot/deb.sh) comes in on standard input.
#
# Four stages, one file:
#   host   (this)      enter.sh: a private mount and PID namespace on the
#                      host, root pivoted into a throwaway overlay of ROOT,
#                      with ROOT itself read-only at /.lower
#   --outer            still the host's root (init user namespace), with
#                      Debian 13's util-linux 2.41: the container's tree is
#                      made, then "unshare --user --map-users" starts it.
#                      ROOT's files must look owned by the mapped ids: an
#                      idmapped mount of ROOT (mount -o X-mount.idmap, which
#                      the host's util-linux 2.38 lacks: 2.39 has it) is the
#                      lower layer of an overlay whose upper layer is a
#                      tmpfs, so nothing is copied or chowned (a chowned
#                      copy of ROOT's 900 MB would cost its time in every
#                      run). The tree is mounted before the user namespace
#                      exists, so the container gets it as locked mounts,
#                      as it gets what the host hands in (a disk device);
#                      /var/tmp is such a mount.
#   --guest            the container's pid 1, root mapped to 100000: its own
#                      /proc, devpts, /run and /tmp (a tmpfs, as
#                      systemd's tmp.mount makes it), pivot_root, then
#   --cases            inside: dpkg -i, pam-auth-update --enable
#                      namespace-ng, namespace.conf with /tmp and /var/tmp,
#                      the helper makes the instance parents; then the same
#                      cases with this module and with Linux-PAM 1.7.0's
#                      (the profile's line by hand): su root to alice, ssh
#                      to sshd on 127.0.0.1 (the container's own network
#                      namespace), alice's su - bob with bob's password on a
#                      terminal. Each: the session's /tmp is private (a
#                      file written lands in the user's instance), the next
#                      session finds it, nothing is left after (no mount
#                      in the container's namespace, no process of the
#                      user), and the module logged no error. Then su with
#                      method context (no SELinux here); a container
#                      without CAP_SYS_ADMIN (su under setpriv): one error
#                      line, nothing made or mounted; share_namespace's
#                      profile: su and ssh, no pin left. This module must
#                      pass; Linux-PAM's results are shown beside.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Host ids of the container's ids 0-65535.
CT_BASE=100000
CT_RANGE=65536
CT=/run/ct

# ------------------------------------------------------------ the host
if [[ ${1:-} != --* ]]; then
	[[ $# == 4 ]] || {
		echo "usage: container.sh ROOT SRC WORK DEB" >&2
		exit 2
	}
	NS_TRIXIE_LOWER=/.lower exec bash "$here/enter.sh" "$1" "$2" "$3" \
		'bash tests/trixie/container.sh --outer' <"$4"
fi

fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}

case $1 in
--outer)
	# The container's tree in a tmpfs of this (private) mount namespace.
	mkdir -p "$CT"
	mount -t tmpfs -o mode=0755 ns-ct "$CT"
	mkdir "$CT/lower" "$CT/upper" "$CT/root"
	unshare --user --map-users="0:$CT_BASE:1" --map-groups="0:$CT_BASE:1" --setuid 0 --setgid 0 true ||
		skip "cannot make a user namespace with a mapped id range here (unshare --user --map-users)"
	# Idmapped mounts: Linux 5.12, of an overlay's lower layer 5.19, and a
	# file system that has them (ext4, xfs, btrfs, tmpfs since 6.3).
	mount --bind -o ro,X-mount.idmap="b:0:$CT_BASE:$CT_RANGE" /.lower "$CT/lower" ||
		skip "no idmapped mount of the root here (mount -o X-mount.idmap on $(stat -f -c %T /.lower), kernel $(uname -r))"
	mkdir "$CT/upper/u" "$CT/upper/w"
	chown "$CT_BASE:$CT_BASE" "$CT/upper/u"
	mount -t overlay -o "lowerdir=$CT/lower,upperdir=$CT/upper/u,workdir=$CT/upper/w" \
		ns-ct-root "$CT/root" || skip "no overlay on an idmapped lower layer here (kernel $(uname -r))"
	r=$CT/root
	[[ $(stat -c %u "$r/etc/passwd") == "$CT_BASE" ]] ||
		fail "the root's files are not owned by the mapped ids: $(stat -c %u "$r/etc/passwd")"
	# /dev as a container manager makes it: a tmpfs the container's root
	# owns, the host's device nodes bound in (a user namespace may not
	# make them).
	mount -t tmpfs -o "mode=0755,nosuid,uid=$CT_BASE,gid=$CT_BASE" ns-ct-dev "$r/dev"
	for n in null zero full random urandom tty; do
		: >"$r/dev/$n"
		mount --bind "/dev/$n" "$r/dev/$n"
	done
	mount --rbind /sys "$r/sys"
	# /var/tmp a mount the host hands in (as a container manager's disk
	# device is): locked in the container, which may mount over it but not
	# unmount it or clear its flags.
	mount -t tmpfs -o "mode=1777,nosuid,nodev,uid=$CT_BASE,gid=$CT_BASE" ns-ct-vartmp "$r/var/tmp"
	# What the container runs: this script and the package.
	install -d -o "$CT_BASE" -g "$CT_BASE" "$r/ns-test"
	install -o "$CT_BASE" -g "$CT_BASE" -m 0755 "$0" "$r/ns-test/container.sh"
	install -o "$CT_BASE" -g "$CT_BASE" -m 0644 tests/lib/sandbox.sh "$r/ns-test/sandbox.sh"
	cat >"$r/ns-test/package.deb"
	chown "$CT_BASE:$CT_BASE" "$r/ns-test/package.deb"
	echo "# the container: ids 0-$((CT_RANGE - 1)) are host ids $CT_BASE-$((CT_BASE + CT_RANGE - 1)); its root is an overlay on an idmapped mount of the trixie root"
	exec unshare --user --map-users="0:$CT_BASE:$CT_RANGE" --map-groups="0:$CT_BASE:$CT_RANGE" \
		--setuid 0 --setgid 0 --mount --pid --net --ipc --uts --fork --kill-child \
		bash "$r/ns-test/container.sh" --guest
	;;
--guest)
	r=$CT/root
	[[ $(id -u) == 0 && $(awk '{ print $2 }' /proc/self/uid_map) == "$CT_BASE" ]] ||
		fail "not the container's root: uid $(id -u), map $(cat /proc/self/uid_map)"
	mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
	mkdir -m 0755 "$r/dev/pts" "$r/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 ns-ct-devpts "$r/dev/pts"
	ln -s pts/ptmx "$r/dev/ptmx"
	ln -s /proc/self/fd "$r/dev/fd"
	mount -t tmpfs -o mode=0755,nosuid,nodev ns-ct-run "$r/run"
	mount -t tmpfs -o mode=1777,nosuid,nodev ns-ct-tmp "$r/tmp"
	# The tree came from the host, so its mounts are locked: pivot_root
	# refuses a locked new root (EINVAL). A bind of it made here is the
	# container's own, as container managers do.
	mount --rbind "$r" "$r"
	mkdir "$r/.old"
	cd "$r"
	pivot_root . .old
	umount -l /.old || fail "the container may not detach the host's tree after pivot_root"
	rmdir /.old
	hostname ns-ct
	exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM=dumb LANG=C.UTF-8 bash /ns-test/container.sh --cases
	;;
--cases) ;;
*)
	echo "container.sh: unknown stage $1" >&2
	exit 2
	;;
esac

# ------------------------------------------------------------ the container
echo "# in the container: uid_map $(tr -s ' ' </proc/self/uid_map | sed 's/^ //'), $(grep -c . /proc/self/mountinfo) mounts, $(cat /etc/debian_version)"
# The sandbox's syslog listener (tests/lib/sandbox.sh) on the container's
# /dev/log: SB_LOG gets one message a line.
# shellcheck source=../lib/sandbox.sh
. /ns-test/sandbox.sh
mkdir -p "$SB_DIR"
sb_start_syslog
# Lines of the module at priority error or worse (<PRI>: PRI % 8 <= 3).
log_errors() {
	sandbox_log | awk -F'[<>]' '$2 % 8 <= 3'
}

# The host's /var/tmp mount is locked here: the container may not unmount it.
if umount /var/tmp 2>/dev/null; then fail "/var/tmp, the host's mount, was not locked in the container"; fi
dpkg -i /ns-test/package.deb >/run/dpkg.log 2>&1 || {
	cat /run/dpkg.log
	fail "dpkg -i"
}
DEBIAN_FRONTEND=noninteractive pam-auth-update --enable namespace-ng >/run/pam-auth-update.log 2>&1 || {
	cat /run/pam-auth-update.log
	fail "pam-auth-update --enable namespace-ng"
}
grep -q "pam_namespace_ng.so" /etc/pam.d/common-session || fail "common-session has no module line"
echo "# installed $(dpkg-query -W -f '${Package} ${Version}' libpam-namespace-ng); common-session: $(grep pam_namespace /etc/pam.d/common-session | tr -s '\t ' ' ')"
printf '%s\n' "/tmp     /tmp/tmp-inst/     user root" "/var/tmp /var/tmp/tmp-inst/ user root" \
	>/etc/security/namespace.conf
# What the helper unit does at boot (no systemd here).
pam_namespace_ng_helper || fail "pam_namespace_ng_helper"
PW=Ns-ct-pw-$RANDOM$RANDOM
for u in alice bob; do
	useradd -m -s /bin/bash "$u"
	touch "/home/$u/.hushlogin"
done
printf '%s\n' "alice:$PW" "bob:$PW" | chpasswd
# pty_answer PROMPT ANSWER COMMAND...: COMMAND on a terminal of its own,
# ANSWER typed once PROMPT shows; prints what the terminal showed.
cat >/ns-test/pty_answer.py <<'PY'
import os, pty, select, sys, time
prompt, answer = sys.argv[1].encode(), sys.argv[2].encode() + b"\n"
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[3], sys.argv[3:])
out, sent, end = b"", False, time.time() + 30
while time.time() < end:
    if fd in select.select([fd], [], [], 0.5)[0]:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        if not sent and prompt in out:
            os.write(fd, answer)
            sent = True
else:
    os.kill(pid, 9)
st = os.waitpid(pid, 0)[1]
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(st))
PY

# sshd on 127.0.0.1:22 of the container's own network namespace.
ip link set lo up
install -d -m 0755 /run/sshd /run/ns-ssh
ssh-keygen -q -t ed25519 -N '' -f /run/ns-ssh/host_ed25519 </dev/null
printf '%s\n' "ListenAddress 127.0.0.1:22" "HostKey /run/ns-ssh/host_ed25519" "UsePAM yes" \
	"PasswordAuthentication yes" "KbdInteractiveAuthentication no" "PrintMotd no" \
	"PrintLastLog no" "UseDNS no" >/run/ns-ssh/sshd_config
/usr/sbin/sshd -D -e -f /run/ns-ssh/sshd_config </dev/null >/run/ns-ssh/sshd.log 2>&1 &
for ((i = 0; i < 200; i++)); do
	(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && break
	sleep 0.05
done
(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null || fail "sshd does not listen: $(cat /run/ns-ssh/sshd.log)"

echo "# $SECONDS s in the container: installed, users made, sshd started"
ns_self=$(readlink /proc/self/ns/mnt)
# What is mounted where (mount points and sources, not ids).
# /run/pam_namespace is share_namespace's pin directory, made a private
# mount of its own once (kernel/pin.c); the pins below it are checked.
mounts() { awk '$5 != "/run/pam_namespace" { print $5, $4 }' /proc/self/mountinfo | sort; }
mounts_before=$(mounts)

# The sessions' command: session.sh write|read MARK CASE writes the case's
# files and says what it sees, or reads them.
cat >/ns-test/session.sh <<'SESSION'
if [ "$1" = write ]; then
	echo "$2" >"/tmp/f-$3" && echo "$2" >"/var/tmp/f-$3" &&
		echo "SEEN $(id -un) $(readlink /proc/self/ns/mnt) [$(ls -A /tmp | tr "\n" " ")]"
else
	echo "READ $(id -un) $(cat "/tmp/f-$3" "/var/tmp/f-$3" | tr "\n" " ")"
fi
SESSION
chmod 0755 /ns-test /ns-test/session.sh

# door CASE USER STEP MARK: one session of USER through CASE's door, its
# command session.sh STEP MARK CASE.
door() {
	local cmd="sh /ns-test/session.sh $3 $4 $1"
	case $1 in
	su | su-ctx) timeout -k 5 60 su "$2" -c "$cmd" </dev/null 2>&1 ;;
	ssh) timeout -k 5 60 sshpass -p "$PW" ssh -F /dev/null -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o PreferredAuthentications=password \
		-o PubkeyAuthentication=no "$2@127.0.0.1" "$cmd" </dev/null 2>&1 ;;
	su-l*) timeout -k 5 60 su alice -c "python3 /ns-test/pty_answer.py Password: $PW su - $2 -c '$cmd'" \
		</dev/null 2>&1 ;;
	esac
}

# one CASE USER SIDE [INSTANCE]: the case's two sessions and the checks;
# prints one result line; returns 1 when a check failed. INSTANCE: where
# under each instance parent USER's instance is (default USER).
one() {
	local c=$1 u=$2 side=$3 inst=${4:-$2} mark out got errs left n why=""
	mark=$side-$c-$RANDOM
	sandbox_log_clear
	out=$(door "$c" "$u" write "$mark") || why+="the first session failed ($?); "
	got=$(grep '^SEEN ' <<<"$out" || true)
	[[ -n $got ]] || why+="no command ran: $(tr '\n' ' ' <<<"$out" | cut -c1-300); "
	if [[ -n $got ]]; then
		[[ $got == "SEEN $u "* ]] || why+="ran as [$got]; "
		[[ $(cut -d' ' -f3 <<<"$got") != "$ns_self" ]] || why+="in the container's own mount namespace; "
	fi
	for d in /tmp /var/tmp; do
		[[ -e $d/f-$c ]] && why+="$d/f-$c in the real $d; "
		[[ $(cat "$d/tmp-inst/$inst/f-$c" 2>/dev/null) == "$mark" ]] ||
			why+="$d/f-$c not in $d/tmp-inst/$inst but [$(find "$d" -name "f-$c" | tr '\n' ' ')]; "
	done
	out=$(door "$c" "$u" read "$mark") || why+="the second session failed; "
	[[ $(grep '^READ ' <<<"$out") == "READ $u $mark $mark " ]] ||
		why+="the next session did not find the files: $(tr '\n' ' ' <<<"$out" | cut -c1-300); "
	for ((n = 0; n < 100; n++)); do
		left=$(pgrep -u "$u" | tr '\n' ' ')
		[[ -z $left ]] && break
		sleep 0.05
	done
	[[ -z $left ]] || why+="processes of $u left: $left; "
	n=$(comm -13 <(echo "$mounts_before") <(mounts) | tr '\n' ' ')
	[[ -z $n ]] || why+="mounted in the container's namespace after: $n; "
	errs=$(log_errors)
	[[ -z $errs ]] || why+="logged: $errs; "
	printf '%-9s %-11s %s\n' "$side" "$c" "${why:-ok: private /tmp and /var/tmp (in tmp-inst/$inst), found again, nothing left}"
	if [[ -n $(sandbox_log) ]]; then sandbox_log | sed -e 's/^<[0-9]*>//' -e 's/^/\t| /'; fi
	[[ -z $why ]]
}

# su-l's stack by hand, the README's way for su from one polyinstantiated
# user to another: su's lines with common-session's inline, the module's
# line given unmnt_remnt, so that bob's instances replace alice's in the
# namespace su - bob makes (with the profile's line alone, bob's instance
# parents are looked for in alice's /tmp: su-l-nested below).
su_l_remnt() {
	{
		grep -v '^session[[:space:]]*include[[:space:]]*su$' /etc/pam.d/su-l | grep -v '^#'
		grep '^session' /etc/pam.d/su
		grep -v '^#' /etc/pam.d/common-session | sed '/pam_namespace/s/$/ unmnt_remnt/'
	} | grep . >/run/su-l.pam
	cp /etc/pam.d/su-l /run/su-l.orig
	cp /run/su-l.pam /etc/pam.d/su-l
}

rc=0
cp /etc/pam.d/common-session /run/common-session.orig
for side in ours linux-pam; do
	cp /run/common-session.orig /etc/pam.d/common-session
	[[ -e /run/su-l.orig ]] && cp /run/su-l.orig /etc/pam.d/su-l
	if [[ $side == linux-pam ]]; then
		sed -i 's/pam_namespace_ng\.so/pam_namespace.so/' /etc/pam.d/common-session
		rm -rf /tmp/tmp-inst/* /var/tmp/tmp-inst/*
	fi
	echo "# $side: $(grep pam_namespace /etc/pam.d/common-session | tr -s '\t ' ' ')"
	one su alice "$side" || [[ $side != ours ]] || rc=1
	one ssh alice "$side" || [[ $side != ours ]] || rc=1
	one su-l-nested bob "$side" alice/tmp-inst/bob || [[ $side != ours ]] || rc=1
	su_l_remnt
	one su-l bob "$side" || [[ $side != ours ]] || rc=1
	# SELinux absent (a container has no policy of its own): the method
	# context, as method user.
	sed -i 's/ user root$/ context root/' /etc/security/namespace.conf
	one su-ctx alice "$side" || [[ $side != ours ]] || rc=1
	sed -i 's/ context root$/ user root/' /etc/security/namespace.conf
done

# refused SIDE: a container whose manager drops CAP_SYS_ADMIN (lxc.cap.drop,
# Docker's default): the module may not make a mount namespace. alice's
# su must fail with one log line naming why, her command not run, nothing
# made or mounted.
refused() {
	local side=$1 out st=0 why="" errs n
	rm -rf /tmp/tmp-inst/* /var/tmp/tmp-inst/*
	sandbox_log_clear
	out=$(timeout -k 5 60 setpriv --bounding-set=-sys_admin su alice -c "sh /ns-test/session.sh write x refused" \
		</dev/null 2>&1) || st=$?
	[[ $st != 0 ]] || why+="su succeeded; "
	! grep -q '^SEEN' <<<"$out" || why+="the command ran: $out; "
	n=$(find /tmp /var/tmp -mindepth 1 ! -path /tmp/tmp-inst ! -path /var/tmp/tmp-inst | tr '\n' ' ')
	[[ -z $n ]] || why+="left: $n; "
	n=$(comm -13 <(echo "$mounts_before") <(mounts) | tr '\n' ' ')
	[[ -z $n ]] || why+="mounted after: $n; "
	errs=$(log_errors)
	if [[ $side == ours ]]; then
		[[ $(grep -c . <<<"$errs") == 1 && $errs == *"Operation not permitted"* ]] ||
			why+="not one error line naming EPERM: [$errs]; "
	fi
	printf '%-9s %-11s %s\n' "$side" no-sysadmin "${why:-ok: refused (su status $st), nothing made or mounted}"
	sandbox_log | sed -e 's/^<[0-9]*>//' -e 's/^/\t| /'
	[[ -z $why ]]
}
cp /run/common-session.orig /etc/pam.d/common-session
cp /run/su-l.orig /etc/pam.d/su-l
refused ours || rc=1
sed -i 's/pam_namespace_ng\.so/pam_namespace.so/' /etc/pam.d/common-session
refused linux-pam || true

# share_namespace (the other profile): pins in /run/pam_namespace.
cp /run/common-session.orig /etc/pam.d/common-session
rm -rf /tmp/tmp-inst/* /var/tmp/tmp-inst/*
install -d -m 0700 /run/pam_namespace
DEBIAN_FRONTEND=noninteractive pam-auth-update --enable namespace-ng-shared >/run/pam-auth-update.log 2>&1 || {
	cat /run/pam-auth-update.log
	fail "pam-auth-update --enable namespace-ng-shared"
}
echo "# $SECONDS s in the container so far"
echo "# ours, shared: $(grep pam_namespace /etc/pam.d/common-session | tr -s '\t ' ' ')"
one su alice ours-shared || rc=1
one ssh alice ours-shared || rc=1
[[ -z $(find /run/pam_namespace -mindepth 2 ! -name lock) ]] ||
	{ echo "FAIL: a pin left: $(find /run/pam_namespace | tr '\n' ' ')"; rc=1; }
echo "# $SECONDS s in the container"
exit "$rc"
