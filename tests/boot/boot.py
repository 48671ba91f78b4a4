# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   python3 boot.py WORK
#
# Boots WORK/image.raw (made by test_boot.sh) twice under qemu with TCG and
# checks, as a user would see it, what the module does on a system booted
# with systemd: a console login (agetty, login) and ssh logins through a
# forwarded port, root's view of the real directories, a cron job, tmpfiles
# cleaning, a reboot, and (when the module has it) issue 15's
# share_namespace. Each check prints one PASS or FAIL line; any FAIL makes
# the exit status 1. qemu is killed by its pid on any way out.
#
#   NS_BOOT_SHARED=1   the module knows share_namespace: check it too
#   NS_BOOT_TIMEOUT    seconds a boot may take to reach the login prompt (600)

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pexpect

WORK = sys.argv[1]
BOOT_TIMEOUT = int(os.environ.get("NS_BOOT_TIMEOUT", "600"))
SHARED = os.environ.get("NS_BOOT_SHARED") == "1"
failures = []
qemu = None


def result(ok, what, detail=""):
    line = ("PASS " if ok else "FAIL ") + what
    if detail:
        line += ": " + detail
    print(line, flush=True)
    if not ok:
        failures.append(what)
    return ok


def note(text):
    print("# " + text, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PORT = free_port()
SSH = ["ssh", "-q", "-p", str(PORT), "-i", os.path.join(WORK, "id_ed25519"),
       "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
       "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "-o", "LogLevel=ERROR"]


def ssh(user, cmd, timeout=120, check=True):
    """Runs cmd in an ssh login of user; returns its stdout."""
    p = subprocess.run(SSH + [user + "@127.0.0.1", cmd], capture_output=True,
                       text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("ssh %s %r: status %d: %s" %
                           (user, cmd, p.returncode, p.stderr.strip()))
    return p.stdout


def kill_qemu(*_):
    global qemu
    if qemu is not None and qemu.isalive():
        os.kill(qemu.pid, signal.SIGKILL)
        qemu.wait()
    qemu = None


def on_signal(signum, _frame):
    kill_qemu()
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)


def boot(n):
    """Starts qemu on the image; returns when sshd answers and the console
    shows its login prompt."""
    global qemu
    start = time.time()
    args = ["-accel", "tcg", "-cpu", "max", "-m", "2G", "-smp", "2",
            "-nographic", "-no-reboot",
            "-kernel", os.path.join(WORK, "vmlinuz"),
            "-initrd", os.path.join(WORK, "initrd.img"),
            "-append", "root=/dev/vda rw console=ttyS0 net.ifnames=0",
            "-drive", "file=%s,format=raw,if=virtio" %
            os.path.join(WORK, "image.raw"),
            "-netdev", "user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22" % PORT,
            "-device", "virtio-net-pci,netdev=n0"]
    log = open(os.path.join(WORK, "console-%d.log" % n), "w")
    qemu = pexpect.spawn("qemu-system-x86_64", args, encoding="utf-8",
                         codec_errors="replace", timeout=BOOT_TIMEOUT,
                         logfile=log, dimensions=(50, 200))
    qemu.expect(r"bootvm login: ")
    deadline = time.time() + 180
    while subprocess.run(SSH + ["root@127.0.0.1", "true"], timeout=60,
                         stdin=subprocess.DEVNULL).returncode != 0:
        if time.time() > deadline:
            raise RuntimeError("sshd did not answer on port %d" % PORT)
        time.sleep(3)
    note("boot %d: login prompt and sshd after %.0f s" %
         (n, time.time() - start))


class Console:
    """A shell logged in on the serial console; run() returns a command's
    output, found between markers the echoed command line cannot match."""

    def __init__(self, user, password):
        self.n = 0
        qemu.sendline(user)
        qemu.expect(r"Password: ", timeout=60)
        qemu.sendline(password)
        qemu.expect(r"[$#] ", timeout=120)
        self.run("stty -echo; PS1='> '; bind 'set enable-bracketed-paste off'")

    def run(self, cmd, timeout=60):
        self.n += 1
        qemu.sendline("echo B%d""_; %s; echo E%d""_$?" %
                      (self.n, cmd, self.n))
        qemu.expect(r"(?s)B%d_\r*\n(.*?)E%d_(\d+)" % (self.n, self.n),
                    timeout=timeout)
        out = re.sub(r"\x1b\[[?0-9;]*[a-zA-Z]|\r", "", qemu.match.group(1))
        if qemu.match.group(2) != "0":
            raise RuntimeError("console %r: status %s: %s" %
                               (cmd, qemu.match.group(2), out))
        return out

    def logout(self):
        qemu.sendline("exit")
        qemu.expect(r"bootvm login: ", timeout=60)


def poweroff(n):
    start = time.time()
    subprocess.run(SSH + ["root@127.0.0.1", "systemctl poweroff"], timeout=60)
    qemu.expect(pexpect.EOF, timeout=300)
    kill_qemu()
    note("boot %d: powered off in %.0f s" % (n, time.time() - start))


def stat(where, path):
    return where("stat -c '%d:%i %a %U' " + path).strip()


def root(cmd):
    return ssh("root", cmd)


def check_parents(when):
    out = root("stat -c '%n %a %U' /tmp/tmp-inst /var/tmp/tmp-inst "
               "/var/scratch-inst")
    ok = all(line.endswith(" 0 root") for line in out.split("\n") if line)
    result(ok and out.count("\n") == 3,
           "instance parents mode 000 root " + when,
           out.strip().replace("\n", "; "))


def check_common(n):
    out = root("systemctl --failed --no-legend --plain")
    result(out.strip() == "", "systemctl --failed is empty (boot %d)" % n,
           out.strip() or "0 units")
    out = root("journalctl -b --no-pager -o cat | grep -F pam_namespace_ng "
               "|| true")
    lines = [x for x in out.split("\n") if x]
    for x in lines[:4]:
        note("journal: " + x)
    errors = [x for x in lines if re.search(r"error|fail|refus", x, re.I)]
    for x in errors:
        note("journal, an error: " + x)
    result(len(lines) > 0 and not errors,
           "the module's log lines in the journal (boot %d)" % n,
           "%d lines, %d naming an error" % (len(lines), len(errors)))


def ns_of(where):
    return where("readlink /proc/self/ns/mnt").strip()


def first_boot():
    boot(1)
    out = root("systemctl show -p ActiveState -p Result -p ExecMainStatus "
               "pam_namespace_ng_helper.service")
    result("ActiveState=active" in out and "Result=success" in out and
           "ExecMainStatus=0" in out,
           "pam_namespace_ng_helper.service ran at boot",
           out.strip().replace("\n", " "))
    check_parents("after boot 1")

    con = Console("alice", "alicepw")
    c_tmp = stat(con.run, "/tmp")
    con.run("echo console >/tmp/console-note; echo persist >/var/tmp/persist-note; "
            "echo scratch >/var/scratch/scratch-note")
    inst = stat(root, "/tmp/tmp-inst/alice")
    real = stat(root, "/tmp")
    result(c_tmp.split()[0] == inst.split()[0] and c_tmp != real,
           "alice's console login (agetty, login) has /tmp = /tmp/tmp-inst/alice",
           "session /tmp %s, instance %s, real /tmp %s" % (c_tmp, inst, real))

    s_tmp = stat(lambda c: ssh("alice", c), "/tmp")
    s_ls = ssh("alice", "ls -A /tmp").split()
    result(s_tmp.split()[0] == inst.split()[0] and "console-note" in s_ls,
           "alice's ssh login has the same instance as her console login",
           "ssh /tmp %s, holds %s" % (s_tmp, " ".join(s_ls)))
    c_ns, s_ns = ns_of(con.run), ns_of(lambda c: ssh("alice", c))
    result(c_ns != s_ns, "without share_namespace, console and ssh sessions "
           "have mount namespaces of their own", "%s, %s" % (c_ns, s_ns))

    r_ls = root("ls -A /tmp").split()
    result(stat(root, "/tmp") == real and "console-note" not in r_ls and
           "tmp-inst" in r_ls, "root's ssh login sees the real /tmp",
           "holds " + " ".join(r_ls))
    b_tmp = stat(lambda c: ssh("bob", c), "/tmp")
    b_ls = ssh("bob", "ls -A /tmp /var/tmp /var/scratch").split()
    b_inst = stat(root, "/tmp/tmp-inst/bob")
    result(b_tmp.split()[0] == b_inst.split()[0] and
           not any(x.endswith("-note") for x in b_ls) and "tmp-inst" not in b_ls,
           "bob sees neither alice's instance nor the real /tmp",
           "bob's /tmp %s = /tmp/tmp-inst/bob; sees %s" % (b_tmp, " ".join(b_ls)))

    # The cron job writes the identity of the /tmp it sees into it.
    ssh("alice", "echo '* * * * * stat -c \\%d:\\%i /tmp >/tmp/cron-stat' | crontab -")
    cron_started = time.time()

    # tmpdir: each session has an instance of its own, removed at its close.
    c_scr = con.run("stat -c %i /var/scratch").strip()
    s_scr = ssh("alice", "stat -c %i /var/scratch").strip()
    scratch = root("stat -c '%i %n' /var/scratch-inst/*").split("\n")
    inodes = [x.split()[0] for x in scratch if x]
    result(c_scr in inodes and s_scr not in inodes and s_scr != c_scr,
           "tmpdir: the console session's instance is in /var/scratch-inst, "
           "the closed ssh session's is removed",
           "console %s, ssh %s; left: %s" % (c_scr, s_scr, "; ".join(scratch)))
    scratch = [os.path.basename(x.split()[1]) for x in scratch
               if x.startswith(c_scr + " ")] or ["none"]

    out = root("systemd-tmpfiles --clean 2>&1; echo status $?")
    note("systemd-tmpfiles --clean: " + out.strip().replace("\n", "; "))
    check_parents("after systemd-tmpfiles --clean")
    left = root("ls -A /tmp/tmp-inst/alice /var/tmp/tmp-inst/alice "
                "/var/scratch-inst").split()
    result(all(x in left for x in ("console-note", "persist-note")) and
           scratch[0] in left and "console" in con.run("cat /tmp/console-note"),
           "systemd-tmpfiles --clean removed no live instance", " ".join(left))

    while True:
        out = root("cat /tmp/tmp-inst/alice/cron-stat 2>/dev/null || true")
        if out or time.time() - cron_started > 150:
            break
        time.sleep(5)
    real_cron = root("ls /tmp/cron-stat 2>/dev/null || true")
    result(out.strip() == inst.split()[0] and not real_cron,
           "alice's cron job ran in her namespace (/tmp = her instance)",
           "the job saw /tmp %s after %.0f s; the real /tmp has %s" %
           (out.strip() or "nothing", time.time() - cron_started,
            "cron-stat" if real_cron else "no cron-stat"))
    ssh("alice", "crontab -r")

    check_common(1)
    # Powered off with alice still logged in on the console.
    poweroff(1)
    return scratch[0]


def second_boot(old_scratch):
    boot(2)
    out = root("systemctl show -p ActiveState -p Result "
               "pam_namespace_ng_helper.service")
    result("ActiveState=active" in out and "Result=success" in out,
           "pam_namespace_ng_helper.service ran at the second boot",
           out.strip().replace("\n", " "))
    check_parents("after the reboot")
    # Debian's tmp.conf says "D /tmp": /tmp is emptied at every boot, the
    # instances in it with it; the helper then makes the parent again.
    cleaned = root("cat /etc/tmpfiles.d/tmp.conf /usr/lib/tmpfiles.d/tmp.conf "
                   "2>/dev/null | grep -c '^D /tmp ' || true").strip() != "0"
    s_ls = ssh("alice", "ls -A /tmp /var/tmp /var/scratch").split()
    if cleaned:
        result("console-note" not in s_ls,
               "reboot, /tmp (user): emptied at boot as Debian's tmp.conf "
               "(D /tmp) says, the parent made again by the helper",
               "alice sees " + " ".join(s_ls))
    else:
        result("console-note" in s_ls,
               "reboot, /tmp (user): the file is in alice's instance",
               " ".join(s_ls))
    result("persist-note" in s_ls and "persist" in
           ssh("alice", "cat /var/tmp/persist-note"),
           "reboot, /var/tmp (user): the file written before it is in "
           "alice's instance", "alice sees " + " ".join(s_ls))
    left = root("ls -A /var/scratch-inst").split()
    result("scratch-note" not in s_ls,
           "reboot, /var/scratch (tmpdir): the file is gone for the new session",
           "/var/scratch-inst holds %s (the instance of the session cut by the "
           "poweroff: %s)" % (" ".join(left) or "nothing",
                              "left" if old_scratch in left else "removed"))
    root("systemd-tmpfiles --clean")
    check_parents("after the reboot and systemd-tmpfiles --clean")
    check_common(2)
    if SHARED:
        shared_mode()
    else:
        print("SKIP shared mode: module lacks share_namespace", flush=True)
    poweroff(2)


def shared_mode():
    """Issue 15: all of alice's sessions with share_namespace share one
    mount namespace pinned under /run/pam_namespace/."""
    root("sed -i 's/^session    required   pam_namespace_ng.so debug$/& "
         "share_namespace/' /etc/pam.d/login /etc/pam.d/sshd "
         "/etc/pam.d/systemd-user /etc/pam.d/cron")
    note("pam.d lines: " + root("grep -h pam_namespace_ng /etc/pam.d/login "
                                "/etc/pam.d/systemd-user").strip()
         .replace("\n", "; "))
    con = Console("alice", "alicepw")
    con.run("echo shared >/var/scratch/shared-note")
    c_ns, c_scr = ns_of(con.run), stat(con.run, "/var/scratch")
    s = lambda c: ssh("alice", c)
    s_ns, s_scr = ns_of(s), stat(s, "/var/scratch")
    u_ns = ssh("alice", "systemd-run --user --wait --pipe -q "
               "readlink /proc/self/ns/mnt").strip()
    u_ls = ssh("alice", "systemd-run --user --wait --pipe -q "
               "ls -A /var/scratch").split()
    result(c_ns == s_ns == u_ns and c_scr == s_scr and "shared-note" in u_ls,
           "share_namespace: console, ssh and systemd-run --user share one "
           "mount namespace and tmpdir instance",
           "ns %s / %s / %s; /var/scratch %s / %s; the service sees %s" %
           (c_ns, s_ns, u_ns, c_scr, s_scr, " ".join(u_ls)))
    pins = root("find /run/pam_namespace -mindepth 1 2>/dev/null || true").split()
    listed = root("pam_namespace_check --shared 2>&1 || true").strip()
    result(len(pins) > 0 and listed != "",
           "share_namespace: a pin under /run/pam_namespace while alice is "
           "logged in, listed by pam_namespace_check --shared",
           "%s; --shared: %s" % (" ".join(pins), listed.replace("\n", "; ")))
    con.logout()
    deadline = time.time() + 60
    while True:
        pins = root("find /run/pam_namespace -mindepth 1 2>/dev/null || true").split()
        if not pins or time.time() > deadline:
            break
        time.sleep(5)
    result(not pins, "share_namespace: no pin left after alice's last logout "
           "(and her user manager's end)", " ".join(pins) or "nothing left")


def main():
    start = time.time()
    try:
        second_boot(first_boot())
    except (RuntimeError, pexpect.ExceptionPexpect, subprocess.SubprocessError,
            IndexError) as e:
        result(False, "the boot cycle ran to its end", "%s: %s" %
               (type(e).__name__, str(e)[:2000]))
        if qemu is not None and qemu.before:
            note("console: " + qemu.before[-1500:].replace("\n", "\n# "))
    finally:
        kill_qemu()
    note("both boots and checks: %.0f s; console logs in %s/console-*.log" %
         (time.time() - start, WORK))
    if failures:
        print("%d checks failed: %s" % (len(failures), "; ".join(failures)))
        return 1
    return 0


sys.exit(main())
