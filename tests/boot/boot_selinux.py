# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   python3 boot_selinux.py WORK selinux|mls
#
# Boots the SELinux images made by test_boot.sh (selinux_image.sh) with
# boot.py's machinery, enforcing, and checks what a user and an
# administrator see. selinux (selinux-policy-default, the context method):
# the policy's polyinstantiation boolean off refuses alice's login with
# one log line naming it and pam_namespace_check warns about it; on, the
# console and ssh logins of alice (user_u) and an ssh login of bob
# (staff_u) get the instances named and labelled after what the policy's
# compute_member gives, whichever login program made them. mls
# (selinux-policy-mls, Debian 12's or 13's, the level method), booted enforcing
# (enforcing=1) with no unit failed, the helper's instance parent labelled
# as it says: alice logged in on the console at s0 and at the same time
# over ssh at s2 has two instances, each labelled at its level; s0 may not
# read up into the s2 one, s2 may not write down into the s0 one, root's
# s0 login may not read the s2 one. Both: the
# AVC denials of the boot, those of the login programs' domains explained
# or failed. One PASS or FAIL line per check, as boot.py.

import os
import re
import subprocess
import sys
import time

import boot
from boot import Console, note, result, root, ssh, stat

MODE = sys.argv[2]
# The login programs' domains: a denial there, or one of the helper's (its
# command name; it runs in init_t with PID 1) or naming an instance or its
# parent, is the module's unless explained below.
LOGIN_DOMAINS = ("local_login_t", "sshd_t", "cronjob_t", "crond_t")


def the_modules(k):
    return k[0] in LOGIN_DOMAINS or k[4].startswith("pam_namespace") or \
        k[5] == "tmp-inst" or k[5].endswith(("_alice", "_bob"))
# (source type, target type, class): why the denial is expected.
EXPLAINED = {
    ("local_login_t", "nsfs_t", "file"):
        "the module's way back for a failed session (the policy refuses a "
        "login program its namespace file; the module logs a notice and goes on)",
    ("sshd_t", "nsfs_t", "file"):
        "the same for sshd: no way back kept, a notice logged",
    ("local_login_t", "sshd_t", "key"):
        "pam_keyinit (force revoke) in login searching the user's keyring "
        "that an ssh session made: not the module's",
}
# boot_mls's own: what its checks provoke, and what the s2 session brings.
if MODE == "mls":
    EXPLAINED.update({
        ("staff_t", "tmp_t", "dir"):
            "MLS: alice's s2 session writing into her s0 instance, the check "
            "that it may not",
        ("sshd_t", "staff_t", "key"):
            "sshd searching the keyring of alice's s2 session, above its "
            "level (the module makes no keyring call): not the module's",
        ("sshd_t", "var_log_t", "file"):
            "Debian 13's sshd creating /var/log/wtmp.db (wtmpdb), which "
            "the policy has no label for: not the module's",
        ("initrc_t", "tmp_t", "dir"):
            "the helper's first try, making the instance parent with /tmp's "
            "range, which the policy refuses; the label it then set is "
            "checked above",
        ("sysadm_t", "tmp_t", "dir"):
            "MLS: root's s0 login reading alice's s2 instance, the check "
            "that it may not",
    })
AVC = re.compile(r"avc:\s+denied\s+\{ ([^}]*) \}")


def field(line, name):
    m = re.search(r"\b%s=(\"[^\"]*\"|\S+)" % name, line)
    return m.group(1).strip('"') if m else ""


def denials():
    """The AVC denials of this boot, from the journal (its audit records,
    or the kernel's lines where it has none), each as (source type, target
    type, class, perms, comm, name)."""
    return journal_denials(root(
        "{ journalctl -b --no-pager -o cat _TRANSPORT=audit | grep -E "
        "'avc: +denied' || journalctl -b --no-pager -o cat -k | grep -E "
        "'avc: +denied'; } || true"))


def journal_denials(out):
    """The denials in journal lines: the audit records, or the kernel's
    lines where there are none."""
    seen, found = set(), []
    lines = out.split("\n")
    if any(x.startswith("AVC ") for x in lines):
        lines = [x for x in lines if x.startswith("AVC ")]
    for line in lines:
        m = AVC.search(line)
        if not m:
            continue
        key = (field(line, "scontext").split(":")[2:3] or [""])[0], \
            (field(line, "tcontext").split(":")[2:3] or [""])[0], \
            field(line, "tclass"), m.group(1).strip(), field(line, "comm"), \
            field(line, "name")
        serial = re.search(r"audit\([0-9.]+:(\d+)\)", line)
        ident = (serial.group(1) if serial else line, key)
        if ident not in seen:
            seen.add(ident)
            found.append(key)
    return found


def review(avcs, boolean_off):
    """Every denial printed; those of the login domains after the boolean
    was turned on must be explained."""
    unexplained = []
    counts = {}
    for i, k in enumerate(avcs):
        counts.setdefault(k, [0, i >= boolean_off])[0] += 1
    for k, (n, after) in counts.items():
        why = EXPLAINED.get(k[:3])
        if not after and the_modules(k):
            why = why or "while the boolean was off"
        elif why is None and the_modules(k):
            unexplained.append(k)
            why = "UNEXPLAINED"
        note("avc: %dx %s -> %s %s { %s } comm=%s name=%s: %s" %
             (n, k[0], k[1], k[2], k[3], k[4], k[5], why or
              "neither a login program's nor the helper's"))
    result(not unexplained, "no AVC denial of the login programs' domains, "
           "the helper or an instance goes unexplained", "%d denials, %d distinct; unexplained: %s" %
           (len(avcs), len(counts), "; ".join(" ".join(k) for k in unexplained)
            or "none"))


def booted(policy, how="booted enforcing"):
    st = root("getenforce; sestatus | grep -E '^(Loaded policy name|Policy MLS)'; id -Z")
    lines = [x.strip() for x in st.split("\n") if x.strip()]
    result(lines[0] == "Enforcing" and policy in st,
           "%s with the %s policy" % (how, policy),
           "; ".join(lines))
    out = root("systemctl --failed --no-legend --plain")
    note("systemctl --failed: " + (out.strip().replace("\n", "; ") or "0 units"))
    out = root("systemctl show -p ActiveState -p Result "
               "pam_namespace_ng_helper.service")
    result("ActiveState=active" in out and "Result=success" in out,
           "pam_namespace_ng_helper.service ran at boot",
           out.strip().replace("\n", " ") + "; " +
           root("ls -dZ /tmp/tmp-inst /var/tmp/tmp-inst; "
                "stat -c '%n %a %U' /tmp/tmp-inst").strip().replace("\n", "; "))


def module_lines():
    return [x for x in root("journalctl -b --no-pager -o cat | grep -F "
                            "pam_namespace_ng || true").split("\n") if x]


def boolean_name():
    out = root("getsebool -a | grep -E '^(allow_polyinstantiation|"
               "polyinstantiation_enabled) ' || true").split()
    return out[0] if out else "allow_polyinstantiation"


def boolean_checks():
    """The boolean off: pam_namespace_check warns, alice's ssh login is
    refused with one log line naming the boolean. Then on: no warning.
    Returns the number of AVC denials seen before it was turned on."""
    name = boolean_name()
    root("setsebool %s off" % name)
    chk = root("pam_namespace_check 2>&1; echo status $?").strip()
    warn = [x for x in chk.split("\n") if name in x]
    result(len(warn) == 1 and "off" in warn[0],
           "pam_namespace_check warns that %s is off" % name,
           chk.replace("\n", "; "))
    before = module_lines()
    p = ssh("alice", "echo session-ran", check=False)
    time.sleep(3)
    new = module_lines()[len(before):]
    for x in new:
        note("journal: " + x)
    naming = [x for x in new if name in x]
    result("session-ran" not in p and len(naming) == 1,
           "%s off: alice's ssh login is refused, one log line names the "
           "boolean" % name, "session saw %r; %d new lines of the module, "
           "%d naming %s" % (p.strip()[-40:], len(new), len(naming), name))
    off = len(denials())
    root("setsebool %s on" % name)
    chk = root("pam_namespace_check 2>&1; echo status $?").strip()
    result(name not in chk and chk.endswith("status 0"),
           "%s on: pam_namespace_check has no warning about it" % name,
           chk.replace("\n", "; "))
    return off


def label(path):
    return root("stat -c %C " + path).strip()


def labelled_ok(path, member):
    """The instance keeps compute_member's label, whichever login program
    made it: the package's namespace.init (installed in the image) does
    not relabel it, where Debian's runs restorecon on the polydir and
    local_login_t, unlike sshd_t, may relabel it to /tmp's tmp_t."""
    got = label(path)
    if got == member:
        return True, "%s (compute_member's)" % got
    return False, "%s, not compute_member's %s (restorecon's would be %s)" % (
        got, member, root("matchpathcon -n %s" % os.path.dirname(
            os.path.dirname(path))).strip())


def selinux_boot():
    boot.boot(1)
    booted("default")
    off = boolean_checks()
    alice = "user_u:user_r:user_t:s0"
    con = Console("alice", "alicepw")
    c_id = con.run("id -Z").strip()
    c_tmp, c_vtmp = stat(con.run, "/tmp"), stat(con.run, "/var/tmp")
    con.run("echo console >/tmp/console-note")
    tmp_con, vtmp_con = label("/tmp"), label("/var/tmp")
    member = root("compute_member %s %s dir" % (alice, tmp_con)).strip()
    vmember = root("compute_member %s %s dir" % (alice, vtmp_con)).strip()
    inst = "/tmp/tmp-inst/%s_alice" % member
    vinst = "/var/tmp/tmp-inst/%s_alice" % vmember
    i_st = root("stat -c %%d:%%i %s %s" % (inst, vinst)).split()
    note("root sees: " + root("ls -Z /tmp/tmp-inst /var/tmp/tmp-inst")
         .strip().replace("\n", "; "))
    ok1, l1 = labelled_ok(inst, member)
    ok2, l2 = labelled_ok(vinst, vmember)
    result(c_id == alice and c_tmp.split()[0] == i_st[0] and
           c_vtmp.split()[0] == i_st[1] and ok1 and ok2,
           "context: alice's console login (user_u) has /tmp = %s and "
           "/var/tmp = %s, named after compute_member's context" % (inst, vinst),
           "id -Z %s; /tmp %s, /var/tmp %s; instances %s labelled %s; %s" %
           (c_id, c_tmp, c_vtmp, " ".join(i_st), l1, l2))

    # With a terminal: the shell at s2 may not write to the pipes sshd
    # (s0-s15) gives a command without one (staff_t -> sshd_t fifo_file
    # write), and its output would be lost.
    def s(c):
        return ssh_tty("alice", c)
    s_id, s_tmp = s("id -Z").strip(), stat(s, "/tmp")
    s_ls = s("ls -A /tmp").split()
    result(s_id == alice and s_tmp == c_tmp and "console-note" in s_ls,
           "context: alice's ssh login has the same context and instance",
           "id -Z %s; /tmp %s; holds %s" % (s_id, s_tmp, " ".join(s_ls)))

    bob = root("getseuser bob sshd 2>/dev/null | sed -n 's/^Context [0-9]* //p'"
               " | head -n 1").strip() or "staff_u:staff_r:staff_t:s0-s0:c0.c1023"

    def b(c):
        return ssh("bob", c)
    b_id, b_tmp = b("id -Z").strip(), stat(b, "/tmp")
    b_ls = b("ls -A /tmp").split()
    b_member = root("compute_member %s %s dir" % (b_id, tmp_con)).strip()
    b_inst = "/tmp/tmp-inst/%s_bob" % b_member
    b_st = root("stat -c %%d:%%i %s" % b_inst).strip()
    ok1, l1 = labelled_ok(b_inst, b_member)
    result(b_id.startswith("staff_u:staff_r:staff_t:") and
           b_tmp.split()[0] == b_st and ok1 and "console-note" not in b_ls,
           "context: bob's ssh login (staff_u) has his own instance %s, "
           "named after compute_member's context" % b_inst,
           "id -Z %s (getseuser: %s); /tmp %s; instance %s labelled %s; sees %s" %
           (b_id, bob, b_tmp, b_st, l1, " ".join(b_ls) or "nothing"))
    r_ls = root("ls -A /tmp").split()
    result("console-note" not in r_ls and "tmp-inst" in r_ls,
           "root's ssh login (unconfined_u) sees the real /tmp", " ".join(r_ls))
    # Her user manager (user@2001.service, the systemd-user stack) runs in
    # a context of its own: what compute_member gives for it names its
    # instance.
    mgr = root("systemctl show -p MainPID --value user@2001.service").strip()
    m_id = root("cat /proc/%s/attr/current" % mgr).strip("\0\n ")
    m_tmp = root("nsenter -t %s -m stat -c %%d:%%i /tmp" % mgr).strip()
    note("alice's systemd --user manager: pid %s, %s, /tmp %s; "
         "compute_member gives %s" % (mgr, m_id, m_tmp, root(
             "compute_member %s %s dir" % (m_id, tmp_con)).strip()))
    con.logout()
    review(denials(), off)
    boot.poweroff(1)


def host_journal():
    """The journal of the powered-off image, read on the host: under the
    MLS policy root's s0 login may not read journald's files (s15)."""
    out = os.path.join(boot.WORK, "journal")
    subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    subprocess.run(["debugfs", "-c", "-R", "rdump /var/log/journal " + out,
                    os.path.join(boot.WORK, "image.raw")],
                   capture_output=True, check=True)
    files = subprocess.run(["find", out, "-name", "system*.journal*"],
                           capture_output=True, text=True).stdout.split()
    p = subprocess.run(["journalctl", "-b", "-o", "cat", "--no-pager"] +
                       ["--file=" + f for f in files],
                       capture_output=True, text=True)
    subprocess.run(["rm", "-rf", out], check=True)
    return p.stdout


def console_login(user, password):
    """A Console logged in as user. agetty may be restarted under this
    policy (a new prompt) while the name is typed: then it is typed again."""
    q = boot.qemu
    for _ in range(4):
        q.sendline(user)
        if q.expect([r"Password: ", r"bootvm login: "], timeout=90) == 0:
            break
    else:
        raise RuntimeError("the console never asked for %s's password" % user)
    q.sendline(password)
    q.expect(r"[$#] ", timeout=120)
    con = Console.__new__(Console)
    con.n = 0
    con.run("stty -echo; PS1='> '; bind 'set enable-bracketed-paste off'")
    return con


def ssh_tty(user, cmd):
    """ssh with a terminal (-tt): the command's output, without the
    terminal's carriage returns."""
    p = subprocess.run(boot.SSH + ["-tt", user + "@127.0.0.1", cmd],
                       capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError("ssh -tt %s %r: status %d: %s" %
                           (user, cmd, p.returncode, p.stdout.strip()))
    return p.stdout.replace("\r", "")


def denied(where, cmd):
    """Runs cmd (a shell's words) where; True with its message if it
    failed with Permission denied."""
    out = where("%s 2>&1 && echo ALLOWED || true" % cmd).strip()
    return "Permission denied" in out and "ALLOWED" not in out, out


def mls_boot():
    """alice on the console at s0 (the policy's logins/alice for login)
    and, at the same time, over ssh at s2 (semanage login): two instances,
    each labelled at its session's level; the s0 session may not read the
    s2 one, the s2 session may not write into the s0 one, and root's s0
    login, whom DAC does not stop, may list the s0 instance but not the
    s2 one."""
    boot.boot(1)
    system = root(". /etc/os-release; echo \"$PRETTY_NAME, selinux-policy-mls "
                  "$(dpkg-query -W -f '${Version}' selinux-policy-mls)\"").strip()
    booted("mls", "booted enforcing (enforcing=1, %s)" % system)
    failed = root("systemctl --failed --no-legend --plain").strip()
    result(failed == "", "the enforcing boot left no unit failed",
           failed.replace("\n", "; ") or "0 units")
    note("the local module: " + root("semodule -l | grep -x mls_trusted || "
                                     "echo none").strip())
    parents = {p: label(p) for p in ("/tmp/tmp-inst", "/var/tmp/tmp-inst")}
    poly = label("/tmp")
    want = {lv: "%s:%s_alice" % (":".join(poly.split(":")[:3]), lv)
            for lv in ("s0", "s2")}

    con = console_login("alice", "alicepw")
    c_id = con.run("id -Z").strip()
    c_tmp = stat(con.run, "/tmp")
    c_lab = con.run("stat -c %C /tmp").strip()
    con.run("echo low >/tmp/low-note")
    c_pid = con.run("echo $$").strip()
    st0 = root("stat -c %%d:%%i /tmp/tmp-inst/%s 2>&1 || true" % want["s0"]).strip()
    result(c_id == "staff_u:staff_r:staff_t:s0" and c_lab + "_alice" == want["s0"]
           and c_tmp.split()[0] == st0,
           "level: alice's console login at s0 has /tmp = /tmp/tmp-inst/%s, "
           "labelled with /tmp's context at s0" % want["s0"],
           "id -Z %s; /tmp %s labelled %s; instance %s" % (c_id, c_tmp, c_lab, st0))

    # With a terminal: the shell at s2 may not write to the pipes sshd
    # (s0-s15) gives a command without one (staff_t -> sshd_t fifo_file
    # write), and its output would be lost.
    def s(c):
        return ssh_tty("alice", c)
    s_id, s_tmp = s("id -Z").strip(), stat(s, "/tmp")
    s_lab = s("stat -c %C /tmp").strip()
    s("echo high >/tmp/high-note")
    s_ls = s("ls -A /tmp").split()
    names = root("ls /tmp/tmp-inst").split()
    result(s_id == "staff_u:staff_r:staff_t:s2" and s_lab + "_alice" == want["s2"]
           and s_tmp != c_tmp and s_ls == ["high-note"] and want["s2"] in names,
           "level: alice's ssh login at s2, while the console one is open, has "
           "an instance of its own, /tmp/tmp-inst/%s, labelled at s2" % want["s2"],
           "id -Z %s; /tmp %s labelled %s, holds %s; root sees in "
           "/tmp/tmp-inst: %s" % (s_id, s_tmp, s_lab, " ".join(s_ls),
                                  " ".join(names)))

    # Through /proc/PID/root, which DAC allows her (both are her
    # processes), each session's /tmp is reachable from the other: MLS
    # decides. An s2 process held open for the s0 console to try.
    hold = subprocess.Popen(boot.SSH + ["-tt", "alice@127.0.0.1",
                                        "echo $$; exec sleep 300"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            text=True)
    try:
        h_pid = hold.stdout.readline().strip()
        c_ls = con.run("ls -A /tmp").split()
        up_ok, up = denied(con.run, "cat /proc/%s/root/tmp/high-note" % h_pid)
        result(c_ls == ["low-note"] and h_pid != "" and up_ok,
               "level: from s0 (the console), alice sees only the s0 instance "
               "and may not read the s2 session's /tmp (/proc/%s/root/tmp)" % h_pid,
               "ls /tmp: %s; cat /proc/%s/root/tmp/high-note: %s" %
               (" ".join(c_ls), h_pid, up))
    finally:
        hold.kill()
        hold.wait()
    down_ok, down = denied(s, "touch /proc/%s/root/tmp/down-note" % c_pid)
    read = s("cat /proc/%s/root/tmp/low-note 2>&1 || true" % c_pid).strip()
    left = con.run("ls -A /tmp").split()
    result(down_ok and "down-note" not in left,
           "level: from s2 (ssh), alice may not write into the s0 session's "
           "/tmp (/proc/%s/root/tmp)" % c_pid,
           "touch: %s; the s0 instance holds %s" % (down, " ".join(left)))
    note("from s2, reading the s0 instance (MLS allows reading down): "
         "cat /proc/%s/root/tmp/low-note: %s" % (c_pid, read))
    r0_ok = root("ls -A /tmp/tmp-inst/%s 2>&1 || true" % want["s0"]).split()
    r2_ok, r2 = denied(root, "ls -A /tmp/tmp-inst/%s" % want["s2"])
    result(r0_ok == ["low-note"] and r2_ok,
           "level: root's s0 login (DAC overridden) lists the s0 instance "
           "but may not read the s2 one", "s0: %s; s2: %s" %
           (" ".join(r0_ok), r2))
    con.logout()
    boot.poweroff(1)
    journal = host_journal()
    mine = [x for x in journal.split("\n") if "pam_namespace_ng(" in x and
            "_alice" in x and ("login:session" in x or "sshd:session" in x)]
    for x in mine:
        note("journal: " + x)
    # The helper prints the label each parent got (the unit's journal).
    said = {p: [x for x in journal.split("\n") if x.startswith(p + ": created")]
            for p in parents}
    result(all(len(said[p]) == 1 and ("labelled %s" % parents[p]) in said[p][0]
               for p in parents),
           "the helper made the instance parents and says the labels they "
           "have, which both levels' logins made their instances in",
           "; ".join("%s is %s, the helper said: %s" %
                     (p, parents[p], " | ".join(said[p]) or "nothing")
                     for p in parents))
    review(journal_denials(journal), 0)
    if not boot.failures:
        note("PROVEN on %s: booted enforcing with the local module "
             "mls_trusted, no unit failed; the helper's instance parents "
             "(%s) took alice's s0 console and s2 ssh instances, each "
             "labelled at its level; s0 may not read the s2 one, s2 may not "
             "write into the s0 one, root's s0 login may not read the s2 one" %
             (system, ", ".join("%s %s" % kv for kv in parents.items())))


def main():
    start = time.time()
    try:
        selinux_boot() if MODE == "selinux" else mls_boot()
    except Exception as e:  # noqa: BLE001 - any error is a failed cycle
        result(False, "the boot cycle ran to its end", "%s: %s" %
               (type(e).__name__, str(e)[:2000]))
        if boot.qemu is not None and boot.qemu.before:
            note("console: " + boot.qemu.before[-1500:].replace("\n", "\n# "))
        try:
            for x in root("journalctl -b -o cat --no-pager | grep -E "
                          "'pam_namespace_ng|pam_selinux|error: PAM' | tail -n 15"
                          ).split("\n"):
                note("journal: " + x)
        except Exception:  # noqa: BLE001 - the machine may be gone
            pass
    finally:
        boot.kill_qemu()
    note("boot and checks: %.0f s; console log in %s/console-1.log" %
         (time.time() - start, boot.WORK))
    if boot.failures:
        print("%d checks failed: %s" % (len(boot.failures),
                                        "; ".join(boot.failures)))
        return 1
    return 0


sys.exit(main())
