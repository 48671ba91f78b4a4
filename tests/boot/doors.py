# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Issue 33's doors that need a booted system, opened with the real programs
# in the boot suites' guest (boot and boot_trixie): called by boot.py with
# its own module (its ssh and result helpers), once with the module lines
# of README "Deploying it" in each stack (by hand, default's second boot)
# and once with the package's plain pam-auth-update profile (the shared
# boot's package_cycle):
#   machinectl shell alice@   (systemd-container; machined's transient
#                              unit, PAMName=login)
#   systemd-run --uid=alice --pty -p PAMName=login
#   sftp as carol, an sftp-only account (sshd_config: Match User carol,
#                              ForceCommand internal-sftp)
#   systemd --user             (alice's user manager, service systemd-user,
#                              started by her ssh login; a systemd-run
#                              --user service of hers runs in it)
#   cron                       (a job of bob's every minute, its crontab
#                              written before the other doors and removed
#                              after them, once it has run: cron starts
#                              jobs only at a minute's turn; each run is a
#                              session of service cron)
# For each: the session's /tmp is private (what it writes there is in the
# user's instance, not in the real /tmp), the module's mount on /tmp is
# there once (one mount more on /tmp than root's namespace has, of the
# instance), nothing is left once logind has stopped the user's manager (no
# process of the user, no mount of the instance in any process's
# namespace, nothing in /run/pam_namespace), and for each service whose
# stack ran in the door (the journal's lines of the module, debug, name
# it, between two markers logged before and after the door, MARK)
# pam_namespace_check --service says as many runs as the journal shows.

import base64
import json
import os
import re
import subprocess
import threading
import time

PROBE = "/usr/local/bin/door-probe"
# The session's view, one line: the user, the mounts on /tmp, the root of
# the last one, the namespace, whether the instance parent shows (the real
# /tmp); then a file written in /tmp.
PROBE_TEXT = r"""#!/bin/sh
t=$(awk '$5 == "/tmp"' /proc/self/mountinfo | wc -l)
r=$(awk '$5 == "/tmp" { r = $4 } END { print r }' /proc/self/mountinfo)
s=no
[ -e /tmp/tmp-inst ] && s=yes
echo "probe: $(id -un) tmp=$t root=$r stray=$s ns=$(readlink /proc/self/ns/mnt)"
echo "$1" >"/tmp/$1"
"""
SETUP = (
    "printf %%s %s | base64 -d >%s && chmod 755 %s && "
    "if ! id carol >/dev/null 2>&1; then "
    "useradd -m -s /bin/bash -u 2003 carol && "
    "install -d -m 700 -o carol -g carol /home/carol/.ssh && "
    "install -m 600 -o carol -g carol /root/.ssh/authorized_keys /home/carol/.ssh/ && "
    "printf 'Match User carol\\n\\tForceCommand internal-sftp\\n' "
    ">>/etc/ssh/sshd_config && systemctl reload ssh.service; fi" %
    (base64.b64encode(PROBE_TEXT.encode()).decode(), PROBE, PROBE))
# A marker sent to /dev/log, as the module's pam_syslog lines are: journald
# reads that one socket in the order its lines were sent, so once the
# marker is in the journal every line sent before it is too, and the
# marker's cursor is where the lines sent after it begin (a cursor of the
# journal's last line, taken while journald was a minute behind, let an
# earlier session's lines in after it: 7 and 8 login lines for one door).
# Prints the marker's cursor, or nothing after 120 s without it.
MARK = ("m=%s; logger -t doors-mark \"$m\"; t=$(date +%%s); until journalctl "
        "-q --no-pager -o cat -t doors-mark | grep -qxF \"$m\"; do "
        "[ $(($(date +%%s) - t)) -lt 120 ] || exit 0; sleep 1; done; "
        "journalctl -q --no-pager -o cat --show-cursor -t doors-mark "
        "MESSAGE=\"$m\" | sed -n 's/^-- cursor: //p' | tail -n 1")
UIDS = {"alice": 2001, "bob": 2002, "carol": 2003}


def wait_manager(b, user, limit=120):
    """Until logind has stopped user's manager (UserStopDelaySec after
    the last session); its ActiveState."""
    unit = "user@%d.service" % UIDS[user]
    start = time.time()
    while True:
        state = b.root("systemctl show -p ActiveState --value " + unit).strip()
        if state == "inactive" or time.time() - start > limit:
            return state
        time.sleep(2)


def leftovers(b, user):
    """What is left of user's sessions once her manager has stopped: its
    state, her processes, the processes whose namespace mounts her
    instance, her pins; a list of what is wrong, and the seconds waited."""
    start = time.time()
    state = wait_manager(b, user)
    out = b.root("pgrep -u %s -a || true; echo @@; grep -l 'tmp-inst/%s ' "
                 "/proc/[0-9]*/mountinfo 2>/dev/null || true" %
                 (user, user)).split("@@")
    procs, mounts = ([x for x in part.strip().split("\n") if x]
                     for part in out)
    pins = b.pins(UIDS[user])
    bad = []
    if state != "inactive":
        bad.append("user@%d.service %s" % (UIDS[user], state))
    if procs:
        bad.append("processes: " + "; ".join(procs))
    if mounts:
        bad.append("her instance mounted in " + " ".join(mounts))
    if pins:
        bad.append("pins " + " ".join(pins))
    return bad, time.time() - start


def mark(b, text):
    """The cursor of marker text, once journald has logged it (MARK);
    "" when it had not after 120 s."""
    return b.ssh("root", MARK % text, timeout=240).strip()


def module_lines(b, begin, end):
    """The module's journal lines between the markers begin and end (their
    cursors; this boot's journal only), as (service, text, _PID) each:
    journald logs what /dev/log gets in the order it was sent, so every
    line sent before the end marker is in the journal once that marker is,
    and none sent before begin comes after it."""
    out = b.root("journalctl -b -q --no-pager -o json --output-fields="
                 "_PID,SYSLOG_IDENTIFIER,MESSAGE --after-cursor='%s' | "
                 "grep -F -e 'pam_namespace_ng(' -e doors-mark || true" % begin)
    lines = []
    for x in out.split("\n"):
        try:
            e = json.loads(x)
        except ValueError:
            continue
        if e.get("__CURSOR") == end:
            break
        msg = e.get("MESSAGE")
        m = re.search(r"pam_namespace_ng\(([^:]+):session\): (.*)",
                      msg) if isinstance(msg, str) else None
        if m:
            lines.append((m.group(1), m.group(2), e.get("_PID")))
    return lines


def runs_seen(b, begin, end, user):
    """The module's runs between the markers begin and end, per service,
    from its debug lines: a plan for /tmp with user's instance, and a
    second run ("nothing mounted") of a process that made such a plan, its
    _PID (another session's second run, of whatever user, is not this
    door's)."""
    plans, seconds = {}, []
    for service, text, pid in module_lines(b, begin, end):
        if re.search(r"plan: \S+ on /tmp, instance /tmp/tmp-inst/+%s\b" %
                     user, text):
            plans.setdefault(service, []).append(pid)
        elif "nothing mounted" in text:
            seconds.append((service, pid))
    seen = {s: len(p) for s, p in plans.items()}
    pids = {p for ps in plans.values() for p in ps}
    for s, p in seconds:
        if p in pids:
            seen[s] = seen.get(s, 0) + 1
    return seen


def runs_told(b, service):
    """How many times pam_namespace_check --service says service's stack
    runs the module at session open, and its line."""
    out = b.root("pam_namespace_check --service %s 2>&1 || true" % service)
    line = next((x for x in out.split("\n")
                 if x.startswith(service + ": pam_namespace")), out.strip())
    if "does not run" in line:
        return 0, line
    if "runs once" in line:
        return 1, line
    m = re.search(r"runs (\d+) times", line)
    return (int(m.group(1)) if m else -1), line


def root_tty(b, cmd, timeout=180):
    """cmd as root with a terminal (ssh -tt), for machinectl shell and
    systemd-run --pty; its output without carriage returns."""
    p = subprocess.run(b.ROOT_SSH + ["-tt", "root@127.0.0.1", cmd],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=timeout)
    return p.stdout.replace("\r", "") + p.stderr.replace("\r", "")


def probe_line(out):
    """The probe's line, after what a terminal's title escape put before it
    (systemd-run --pty of Debian 13)."""
    for x in out.split("\n"):
        if "probe: " in x:
            return re.sub(r"\x1b\[[?0-9;]*[a-zA-Z]", "", x[x.index("probe: "):])
    return ""


def door_machinectl(b, tag):
    return probe_line(root_tty(b, "machinectl shell -q alice@ %s %s" %
                               (PROBE, tag))), ""


def door_systemd_run(b, tag):
    return probe_line(root_tty(b, "systemd-run -q --uid=alice --pty "
                               "-p PAMName=login %s %s" % (PROBE, tag))), ""


def door_user_manager(b, tag):
    """alice's ssh login starts her user manager (service systemd-user);
    the probe runs as a service of that manager; root reads the manager's
    namespace while her login waits on its input."""
    p = subprocess.Popen(
        b.SSH + ["alice@127.0.0.1", "readlink /proc/self/ns/mnt; systemd-run "
                 "--user --wait --pipe -q %s %s </dev/null; echo manager "
                 "$(systemctl show -p MainPID --value user@2001.service); "
                 "read x" % (PROBE, tag)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    timer = threading.Timer(240, p.kill)
    timer.start()
    out, m_ns = "", "none"
    try:
        for x in p.stdout:
            out += x
            if x.startswith("manager "):
                m_ns = b.root("readlink /proc/%s/ns/mnt" % x.split()[1]).strip()
                break
        p.stdin.close()
        p.wait()
    finally:
        timer.cancel()
    s_ns = out.split("\n")[0].strip()
    line = probe_line(out)
    ns = re.search(r"ns=(\S+)", line)
    ok = ns is not None and ns.group(1) == m_ns and m_ns != s_ns
    return line, ("" if ok else "the service's namespace is not its "
                  "manager's (%s) or is the ssh login's (%s)" % (m_ns, s_ns))


def door_sftp(b, tag):
    """carol puts a file into /tmp over sftp; while her sftp session is
    open, root reads its sshd's mounts (no shell to run the probe)."""
    local = os.path.join(b.WORK, "sftp-" + tag)
    with open(local, "w") as f:
        f.write(tag + "\n")
    ssh = b.SSH[1:]
    ssh[ssh.index("-p")] = "-P"
    p = subprocess.Popen(["sftp", "-b", "-"] + ssh + ["carol@127.0.0.1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        p.stdin.write("put %s /tmp/%s\n" % (local, tag))
        p.stdin.flush()
        start = time.time()
        while b.root("test -e /tmp/tmp-inst/carol/%s && echo yes || true" %
                     tag).strip() != "yes":
            if time.time() - start > 90 or p.poll() is not None:
                break
            time.sleep(2)
        # Her session's sshd (sshd, or Debian 13's sshd-session): its
        # view, as the probe prints it.
        line = b.root(
            "p=$(pgrep -u carol -x sshd || pgrep -u carol -x sshd-session); "
            "p=$(echo $p | cut -d' ' -f1); m=/proc/$p/mountinfo; "
            "t=$(awk '$5 == \"/tmp\"' $m | wc -l); "
            "r=$(awk '$5 == \"/tmp\" { r = $4 } END { print r }' $m); "
            "s=$(nsenter -t $p -m sh -c '[ -e /tmp/tmp-inst ] && echo yes "
            "|| echo no'); echo \"probe: carol tmp=$t root=$r stray=$s "
            "ns=$(readlink /proc/$p/ns/mnt)\"").strip()
        p.stdin.write("bye\n")
        p.stdin.close()
        out = p.stdout.read()
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.unlink(local)
    return line, ("" if p.returncode == 0 else
                  "sftp: status %d: %s" % (p.returncode, out.strip()))


# name, the door, the user, the service whose stack the door is.
DOORS = [("machinectl shell alice@", door_machinectl, "alice", "login"),
         ("systemd-run --uid=alice --pty -p PAMName=login", door_systemd_run,
          "alice", "login"),
         ("sftp-only carol (ForceCommand internal-sftp)", door_sftp, "carol",
          "sshd"),
         ("systemd --user (alice's user manager)", door_user_manager, "alice",
          "systemd-user")]


# The profile's line gets debug for the door's journal lines (runs_seen),
# where it has none; the files are put back as they were after them.
COMMON = "/etc/pam.d/common-session /etc/pam.d/common-session-noninteractive"
DEBUG_ON = ("for f in %s; do cp -p $f /root/doors.$(basename $f); done; "
            r"sed -i 's/^\(session.*pam_namespace_ng\.so\)$/\1 debug/' %s" %
            (COMMON, COMMON))
DEBUG_OFF = ("for f in %s; do mv /root/doors.$(basename $f) $f; done" % COMMON)


def every_door(b, how):
    """Each door, as how (by hand, or pam-auth-update) enabled the
    module."""
    b.root(SETUP)
    if how == "pam-auth-update":
        b.root(DEBUG_ON)
    try:
        doors(b, how)
    finally:
        if how == "pam-auth-update":
            b.root(DEBUG_OFF)


def doors(b, how):
    """Debian 13's systemd (257) sets syslog(3)'s mask to its own log
    level, which the processes it forks to open PAM sessions (a transient
    unit's, the user manager's) inherit: at info, the module's debug lines
    of those sessions never reach the journal. PID 1 logs at debug while
    the doors are open."""
    level = b.root("systemctl log-level").strip()
    b.root("systemctl log-level debug")
    try:
        each_door(b, how)
    finally:
        b.root("systemctl log-level " + level)


def each_door(b, how):
    base = int(b.root("awk '$5 == \"/tmp\"' /proc/self/mountinfo | wc -l"))
    began = time.time()
    first = mark(b, re.sub(r"\W+", "-", how) + "-doors")
    cron = cron_start(b, how)
    for name, door, user, service in DOORS:
        what = "%s: %s" % (how, name)
        start = time.time()
        wait_manager(b, user)
        tag = re.sub(r"\W+", "-", "%s-%s" % (how, door.__name__))
        begin = mark(b, tag + "-begin")
        try:
            line, err = door(b, tag)
        except (RuntimeError, subprocess.SubprocessError) as e:
            line, err = "", "%s: %s" % (type(e).__name__, str(e)[:500])
        end = mark(b, tag + "-end")
        real = b.root("ls -A /tmp/%s 2>/dev/null; ls -A /tmp/tmp-inst/%s/%s "
                      "2>/dev/null; true" % (tag, user, tag)).split()
        want = "probe: %s tmp=%d " % (user, base + 1)
        root_of = re.search(r"root=(\S*)", line)
        b.result(not err and line.startswith(want) and "stray=no" in line and
                 root_of is not None and
                 root_of.group(1).endswith("/tmp-inst/" + user) and
                 real == ["/tmp/tmp-inst/%s/%s" % (user, tag)],
                 "%s: /tmp private (the file written is in %s's instance, "
                 "not the real /tmp), the module's mount on it once" %
                 (what, user), "%s%s; root's /tmp has %d mounts; found: %s" %
                 (line or "no probe line", "; " + err if err else "", base,
                  " ".join(real) or "nothing"))
        seen = runs_seen(b, begin, end, user) if begin and end else {}
        told = {s: runs_told(b, s) for s in sorted(set(seen) | {service})}
        b.result(begin and end and seen.get(service, 0) == 1 and
                 all(told[s][0] == seen.get(s, 0) for s in told),
                 "%s: pam_namespace_check --service says what the journal "
                 "shows (%s: once)" % (what, service),
                 ("" if begin and end else "journald had not logged the "
                  "door's %s marker after 120 s; " %
                  ("begin" if not begin else "end")) +
                 "; ".join("%s: the journal %d, %s" %
                           (s, seen.get(s, 0), told[s][1]) for s in told))
        bad, waited = leftovers(b, user)
        b.result(not bad, "%s: nothing left once logind stopped %s's "
                 "manager" % (what, user), "after %.0f s: %s" %
                 (waited, "; ".join(bad) or "no process of %s, no mount of "
                  "her instance, no pin" % user))
        b.note("%s: %.0f s" % (what, time.time() - start))
    cron_end(b, how, base, *cron)
    b.note("the doors (%s): %.0f s" % (how, time.time() - began))
    closes_refused(b, first)


def cron_start(b, how):
    """The cron door, opened while the others run (cron starts a job only
    at a minute's turn): a job of bob's every minute, which appends the
    probe's line to a file in his /tmp. Its begin marker's cursor, the tag
    and the time."""
    tag = re.sub(r"\W+", "-", how) + "-cron"
    begin = mark(b, tag + "-begin")
    b.root("echo '* * * * * %s %s >>/tmp/%s.lines 2>&1' | crontab -u bob -" %
           (PROBE, tag, tag))
    return begin, tag, time.time()


def cron_end(b, how, base, begin, tag, started):
    """Once the job has run (up to 150 s after its crontab), the crontab
    goes, and once no process of bob's is left: the job's view each time
    it ran, the module's runs of service cron against what
    pam_namespace_check says, and nothing left."""
    what = "%s: cron (a job of bob's, every minute)" % how
    lines = "/tmp/tmp-inst/bob/%s.lines" % tag
    while (not b.root("cat %s 2>/dev/null || true" % lines).strip() and
           time.time() - started < 150):
        time.sleep(3)
    # A job cron had begun is root's until its PAM session is open: 3 s
    # for it to become bob's, then until none of bob's is left.
    b.root("crontab -u bob -r; sleep 3; t=$(date +%s); while pgrep -u bob >/dev/null "
           "&& [ $(($(date +%s) - t)) -lt 60 ]; do sleep 1; done")
    end = mark(b, tag + "-end")
    runs = [x for x in b.root("cat %s 2>/dev/null || true" %
                              lines).split("\n") if "probe: " in x]
    real = b.root("ls -A /tmp/%s /tmp/%s.lines 2>/dev/null; true" %
                  (tag, tag)).split()
    want = "probe: bob tmp=%d " % (base + 1)
    b.result(bool(runs) and not real and all(
        x.startswith(want) and "stray=no" in x and
        re.search(r"root=\S*/tmp-inst/bob ", x) for x in runs),
        "%s: /tmp private each time it ran (its file in bob's instance, not "
        "the real /tmp), the module's mount on it once" % what,
        "%d runs after %.0f s: %s; root's /tmp has %d mounts; in the real "
        "/tmp: %s" % (len(runs), time.time() - started,
                      " | ".join(runs) or "no probe line", base,
                      " ".join(real) or "nothing"))
    seen = runs_seen(b, begin, end, "bob") if begin and end else {}
    told = runs_told(b, "cron")
    b.result(bool(runs and begin and end) and told[0] == 1 and
             seen.get("cron", 0) == len(runs),
             "%s: pam_namespace_check --service cron says once a job, and "
             "the journal shows a run of the module for each" % what,
             "%d jobs ran; the journal: %s; %s" %
             (len(runs), ", ".join("%s %d" % x for x in sorted(seen.items()))
              or "nothing", told[1]))
    bad, waited = leftovers(b, "bob")
    b.result(not bad, "%s: nothing left once the jobs ended" % what,
             "after %.0f s: %s" % (waited, "; ".join(bad) or
                                   "no process of bob, no mount of his "
                                   "instance, no pin"))


def closes_refused(b, cursor):
    """Shown, not judged: the module's closes that could not remove a
    tmpdir instance since cursor, with the process and the ids it ran as
    (systemd's (sd-pam) closes the user manager's session after dropping
    to the user's ids)."""
    if not cursor:
        return
    out = b.root("journalctl -q --no-pager -o json --output-fields=_PID,_UID,"
                 "_GID,_COMM,MESSAGE --after-cursor='%s' | grep -F -e "
                 "'removing the tmpdir instance' -e 'not root: the tmpdir "
                 "instance' || true" % cursor)
    for x in out.split("\n"):
        try:
            e = json.loads(x)
        except ValueError:
            continue
        b.note("close: %s (pid %s, uid %s, gid %s): %s" %
               (e.get("_COMM"), e.get("_PID"), e.get("_UID"), e.get("_GID"),
                e.get("MESSAGE")))


def doors_boot(b):
    """NS_BOOT_DOORS=1 (by hand, a shorter cycle): one boot of a default
    image, the doors by hand, then the package's plain profile in place of
    the stacks' lines (/root/shared-mode.sh, as the third boot has it) and
    the doors again."""
    b.boot(1)
    b.versions()
    every_door(b, "by hand")
    out = b.root("sh /root/shared-mode.sh >/dev/null 2>&1 && "
                 "DEBIAN_FRONTEND=noninteractive pam-auth-update --disable "
                 "namespace-ng-shared --enable namespace-ng; echo status $?")
    b.result(out.strip().endswith("status 0"), "the plain profile enabled "
             "(pam-auth-update --enable namespace-ng)", out.strip())
    every_door(b, "pam-auth-update")
    b.poweroff(1)
