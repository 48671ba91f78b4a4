# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The shared boot's end (suites boot and boot_trixie), called by boot.py's
# shared_boot with boot.py's module b (its ssh, console and result
# helpers): a helper unit failing on an unsafe instance parent, then the
# package's life on the booted system: the upgrades to later builds
# (upgrade.py, Debian 12's), the plain pam-auth-update profile with issue
# 33's doors (doors.py) opened through it, the same version installed
# again, a removal refused while a pam.d file names the module, and the
# removal, with logins at each step; with the plain profile, issue 33's
# display manager (display.py). Moved out of boot.py as it was.

import display
import doors
import upgrade


def helper_fails(b):
    """An instance parent the module would refuse fails the helper's unit,
    with the path in the journal (systemctl --failed shows it), instead of
    a clean boot behind failing logins; fixed, the unit starts again."""
    unit = "pam_namespace_ng_helper.service"
    b.root("chmod 755 /var/tmp/tmp-inst; systemctl restart %s || true" % unit)
    state = b.root("systemctl is-failed %s || true" % unit).strip()
    failed = b.root("systemctl --failed --no-legend --plain").strip()
    journal = b.root("journalctl -b -u %s -o cat --no-pager | grep -F "
                   "/var/tmp/tmp-inst || true" % unit).strip()
    b.result(state == "failed" and unit in failed and
           "instance parent /var/tmp/tmp-inst" in journal,
           "a parent of mode 0755 fails %s, the path in the journal" % unit,
           "is-failed: %s; journal: %s" % (state, journal.split("\n")[-1]))
    b.root("chmod 000 /var/tmp/tmp-inst; systemctl restart %s" % unit)
    state = b.root("systemctl is-active %s || true" % unit).strip()
    failed = b.root("systemctl --failed --no-legend --plain").strip()
    b.result(state == "active" and not failed,
           "the parent made safe, %s starts again" % unit,
           "%s; systemctl --failed: %s" % (state, failed or "0 units"))


def logins_work(b, when, private):
    """alice's console and ssh logins and bob's ssh login succeed; with
    private, alice's /tmp is her instance, else the real /tmp."""
    real = b.stat(b.root, "/tmp")
    con = b.Console("alice", "alicepw")
    c_tmp = b.stat(con.run, "/tmp")
    con.logout()
    s_tmp = b.stat(lambda c: b.ssh("alice", c), "/tmp")
    b_tmp = b.stat(lambda c: b.ssh("bob", c), "/tmp")
    want = real
    if private:
        want = b.stat(b.root, "/tmp/tmp-inst/alice")
    b.result(c_tmp == want and s_tmp == want and
           (b_tmp != real) == private,
           "%s: alice's console and ssh logins and bob's ssh login work, "
           "with %s /tmp" % (when, "a private" if private else "the real"),
           "alice console %s, ssh %s; bob %s; real /tmp %s" %
           (c_tmp, s_tmp, b_tmp, real))


def common_lines(b):
    return b.root("grep -h pam_namespace_ng /etc/pam.d/common-session "
                "/etc/pam.d/common-session-noninteractive || true").strip()


def package_cycle(b):
    """The package's life on the booted system: later builds installed
    with alice logged in (upgrade.py), the plain pam-auth-update
    profile instead of the shared one, an upgrade (the same .deb installed
    again), a removal refused while a pam.d file names the module, and the
    removal. Logins work at every step. The upgrades to later builds are
    Debian 12's only: on Debian 13 their two .debs would be built in suite
    trixie's root at every change of the source (tests/README.md)."""
    if b.RELEASE == "bookworm":
        upgrade.live_upgrades(b)
    else:
        b.note("the upgrades to later builds (upgrade.py) are Debian 12's "
             "(suite boot)")
    env = "DEBIAN_FRONTEND=noninteractive "
    deb = "/root/libpam-namespace-ng.deb"
    # The shared profile's last logins (alice's next login above) end
    # first: her user manager holds her pin until logind stops it, and the
    # plain profile's check below says none is pinned. (On Debian 12 the
    # upgrades above take longer than that wait.)
    mgr = b.managers_stopped()
    if mgr != ["inactive"] * 2:
        b.note("user managers still running before the plain profile: %s" %
             " ".join(mgr))
    b.root(env + "pam-auth-update --disable namespace-ng-shared "
         "--enable namespace-ng")
    lines = common_lines(b)
    ok = [x.split() for x in lines.split("\n")]
    b.result(len(ok) == 2 and all(x[:3] == ["session", "required",
                                          "pam_namespace_ng.so"] and
                                "share_namespace" not in x for x in ok),
           "pam-auth-update --enable namespace-ng (plain) replaces the "
           "share_namespace line in common-session(-noninteractive)",
           lines.replace("\n", "; "))
    logins_work(b, "the plain profile", True)
    # Two sessions open at once: a closed session's namespace number may be
    # given to the next one.
    con = b.Console("alice", "alicepw")
    c_ns = b.ns_of(con.run)
    s_ns = b.ns_of(lambda c: b.ssh("alice", c))
    held = b.pins(2001)
    con.logout()
    b.result(c_ns != s_ns and not held,
           "the plain profile: alice's console and ssh sessions have "
           "namespaces of their own, none is pinned",
           "%s, %s; pins: %s" % (c_ns, s_ns, " ".join(held) or "none"))
    doors.every_door(b, "pam-auth-update")
    # Issue 33's display manager (display.py): LightDM, with this profile.
    display.display_manager(b)

    out = b.root(env + "dpkg -i %s 2>&1; echo status $?" % deb)
    after = common_lines(b)
    b.result(out.strip().endswith("status 0") and after == lines,
           "upgrade (the same version installed again): dpkg -i succeeds, "
           "the plain profile stays enabled", "%s; %s" %
           (out.strip().split("\n")[-1], after.replace("\n", "; ")))
    logins_work(b, "after the upgrade", True)

    b.root("printf 'session required pam_namespace_ng.so\\n' "
         ">/etc/pam.d/ns-local")
    out = b.root(env + "dpkg -r libpam-namespace-ng 2>&1; echo status $?")
    state = b.root("dpkg-query -W -f '${db:Status-Status}\\n' libpam-namespace-ng; "
                 "ls /lib/x86_64-linux-gnu/security/pam_namespace_ng.so"
                 ).split()
    b.result(not out.strip().endswith("status 0") and
           "/etc/pam.d/ns-local:1:" in out and state[0] == "installed" and
           common_lines(b) == lines,
           "dpkg -r is refused while /etc/pam.d/ns-local names the module; "
           "the package and the profile's lines stay",
           "%s; %s" % (" ".join(x for x in out.split("\n")
                                if "ns-local" in x or "status" in x),
                       " ".join(state)))
    logins_work(b, "after the refused removal", True)

    b.root("rm /etc/pam.d/ns-local")
    out = b.root(env + "dpkg -r libpam-namespace-ng 2>&1; echo status $?")
    named = b.root("grep -rlE '^[^#]*pam_namespace_ng[.]so' /etc/pam.d "
                 "/usr/lib/pam.d /etc/pam.conf 2>/dev/null || true").strip()
    gone = b.root("ls /lib/x86_64-linux-gnu/security/pam_namespace_ng.so 2>&1 "
                "|| true")
    b.result(out.strip().endswith("status 0") and not named and
           "No such file" in gone,
           "dpkg -r libpam-namespace-ng: removed, and no pam.d file names "
           "the module", "%s; files naming it: %s" %
           (out.strip().split("\n")[-1], named or "none"))
    logins_work(b, "after the removal", False)
    b.note("systemctl --failed after the removal: %s" % (
        b.root("systemctl --failed --no-legend --plain").strip() or "0 units"))
