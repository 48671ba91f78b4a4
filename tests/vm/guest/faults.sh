#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# Suite faults' scenarios for the context and level methods, with the
# policy loaded (step 05): the guest stands in for faults.py's sandbox
# (tests/lib/sandbox.sh), with its own tmpfs on /tmp, /var/tmp, /home and
# /run named as the sandbox names them, syslog collected in
# /run/ns-sandbox/syslog, and one worker (faults.py --worker 0/1) running
# the points of those scenarios in libselinux's calls. The worker's lines go to the console,
# each prefixed "FAULTS: ", for the host to sum up (faults.py --summarize):
# first "WORKERS 1", and "EXIT STATUS" when the worker ends.
#
# It runs in unconfined_t, enforcing: a login program's domain
# (local_login_t) is refused its own namespace file by the policy, so the
# module cannot go back after a refused open there (suite selinux checks
# that the module says so); the rules checked here need the way back.
# shellcheck source=tests/vm/guest/guest.sh
. /vm/guest.sh

con=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023
if [ "$(cat /proc/self/attr/current)" != "$con" ]; then
	exec runcon "$con" /bin/sh "$0" "$@"
fi
note "SELinux $(getenforce), running as $(cat /proc/self/attr/current)"

# The sandbox's tmpfs, labelled as the policy labels those directories.
mkdir -p /var/tmp
mount -t tmpfs -o mode=1777 ns-sandbox-tmp /tmp || fail "mounting /tmp"
mount -t tmpfs -o mode=1777 ns-sandbox-vartmp /var/tmp || fail "mounting /var/tmp"
mount -t tmpfs -o mode=0755 ns-sandbox-home /home || fail "mounting /home"
mount -t tmpfs -o mode=0755 ns-sandbox-run /run || fail "mounting /run"
for u in alice:2001 bob:2002 carol:2003; do
	mkdir -m 0700 "/home/${u%%:*}"
	chown "${u#*:}:${u#*:}" "/home/${u%%:*}"
done
mkdir -p /run/ns-sandbox/out
chmod 1777 /run/ns-sandbox/out
restorecon -R /tmp /var/tmp /home /run
# One syslogd, writing where the worker reads (Debian's busybox never rotates).
for pid in $(pidof syslogd); do
	kill "$pid"
done
sleep 0.2
: >/run/ns-sandbox/syslog
syslogd -O /run/ns-sandbox/syslog || fail "starting syslogd"
sleep 0.2
for t in /etc/pam.d /etc/security; do
	[ -w "$t" ] || fail "$t is not writable"
done

# One worker: two would share the guest's /tmp and syslog. The points are
# those of libselinux's calls (the rest of these methods' calls are those
# of method user, run on the host). Its lines go to the console as they
# come (a step the guest's timeout stops still shows how far it got).
start=$(cut -d ' ' -f 1 /proc/uptime)
# What the host adds to the worker's arguments (NS_FAULTS_VM_ARGS there).
args=$(cat /vm/faults.args 2>/dev/null)
echo "FAULTS: WORKERS 1"
# shellcheck disable=SC2086 # $args: words
{
	NS_FAULTS_TIMEOUT=150 NS_MODULE=$MODULE NS_DRIVER=/usr/bin/pam_driver python3 -S -B /vm/faults/faults.py \
		--worker 0/1 --ours --scenario context --scenario level --frame libselinux $args 2>&1
	echo "EXIT $?"
} | sed "s/^/FAULTS: /"
note "the worker took $(awk -v a="$start" '{ printf "%.0f", $1 - a }' /proc/uptime)s"
