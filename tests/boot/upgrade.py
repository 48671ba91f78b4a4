# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# boot_shared's upgrades with alice logged in (issue 27), called by
# boot.py's package_cycle with boot.py's module (its ssh, console and
# result helpers) while the share_namespace profile is enabled. Two later
# builds of the package (tests/boot/deb_next.sh) are installed with dpkg -i
# while alice's console session holds a pin of the installed version's
# format in /run/pam_namespace:
#   gen2: format 2, generation 2, which joins no earlier pin: her new ssh
#         login builds a namespace of its own (logged, not refused), root's
#         pam_namespace_check --shared (gen2's) shows the old pin as
#         another release's with her sessions in it, and the old pin goes
#         when her old sessions end;
#   next: format 2, which joins format 1's pins: her new ssh login is in
#         her console's namespace (her /tmp note, her tmpdir instance); the
#         pin it makes later says format 2.
# After each: nothing of alice's left in /run/pam_namespace (no pin, state
# or session record) nor her shared tmpdir instance, a later login works,
# and the package's own .deb is installed again (a downgrade), as the rest
# of package_cycle expects. gen2 runs first, from the version being
# tested, so that its old pin is of format 1.

import json
import time

ENV = "DEBIAN_FRONTEND=noninteractive "
DEBS = {"orig": "/root/libpam-namespace-ng.deb",
        "next": "/root/libpam-namespace-ng-next.deb",
        "gen2": "/root/libpam-namespace-ng-gen2.deb"}
UDIR = "/run/pam_namespace/2001"


def install(b, which):
    """dpkg -i of one of the .debs: (its last line, whether it succeeded
    and the version dpkg then has is the .deb's)."""
    out = b.root(ENV + "dpkg -i %s 2>&1; echo status $?" % DEBS[which]).strip()
    want = b.root("dpkg-deb -f %s Version" % DEBS[which]).strip()
    have = b.root("dpkg-query -W -f '${Version}' libpam-namespace-ng").strip()
    b.note("dpkg -i %s: the session lines now: %s" %
           (DEBS[which], b.common_lines().replace("\n", "; ")))
    return (out.endswith("status 0") and want == have,
            "%s; installed %s" % (out.split("\n")[-1], have))


def states(b):
    """alice's pins' keys and their state's first line."""
    out = b.root("for f in %s/*.state; do [ -e \"$f\" ] || continue; "
                 "echo \"$(basename \"$f\" .state) $(head -n 1 \"$f\")\"; done" % UDIR)
    return dict(x.split(" ", 1) for x in out.split("\n") if x)


def leftovers(b):
    """Pins, states and session records (KEY@PID...) in alice's directory."""
    out = b.root("ls -A %s 2>/dev/null || true" % UDIR).split()
    return [x for x in out if x.endswith((".ns", ".state", ".new")) or "@" in x]


def mark(b):
    out = b.root("journalctl -q -n 1 -o cat --show-cursor").strip()
    return out.rsplit("-- cursor: ", 1)[1]


def journal_since(b, cursor):
    out = b.root("journalctl -q --no-pager -o cat --after-cursor='%s' | "
                 "grep -F share_namespace: || true" % cursor)
    return [x for x in out.split("\n") if x]


def scratch_inode(where):
    return where("stat -c %i /var/scratch").strip()


def scratch_left(b):
    return b.root("stat -c %i /var/scratch-inst/* 2>/dev/null || true").split()


def wait_manager(b):
    """Waits until logind has stopped user@2001.service after alice's last
    session (UserStopDelaySec); returns the seconds it took, or None."""
    start = time.time()
    while time.time() - start < 120:
        state = b.root("systemctl show -p ActiveState --value "
                       "user@2001.service").strip()
        if state == "inactive":
            return time.time() - start
        time.sleep(3)
    return None


def refused(lines):
    return [x for x in lines if "of its own" in x or "refusing" in x]


def clean_after(b, when, scratch):
    """After alice's last session: nothing of hers in /run/pam_namespace, the
    shared tmpdir instance removed."""
    took = wait_manager(b)
    left = leftovers(b)
    scr = scratch_left(b)
    b.result(took is not None and not left and scratch not in scr,
             "%s: after alice's sessions and user manager end, no pin, state "
             "or record of hers is left and the shared tmpdir instance is "
             "removed" % when,
             "user@2001 stopped %s; %s holds %s; /var/scratch-inst inodes %s "
             "(the shared one was %s)" %
             ("after %.0f s" % took if took is not None else "not within 120 s",
              UDIR, " ".join(left) or "none of them", " ".join(scr) or "none",
              scratch))


def back_to_orig(b, when):
    """The package's own .deb again, alice's user manager stopped first (its
    ExecStopPost drops her pin with the tool of the build it ran with)."""
    b.root("systemctl stop user@2001.service")
    ok, what = install(b, "orig")
    left = leftovers(b)
    b.result(ok and not left, "%s: dpkg -i of the package's own .deb "
             "(a downgrade) with no session of alice's open" % when,
             "%s; %s: %s" % (what, UDIR, " ".join(left) or "nothing of hers"))


def gen2(b):
    con = b.Console("alice", "alicepw")
    con.run("echo gen1 >/var/scratch/gen1-note")
    c_ns, c_scr = b.ns_of(con.run), scratch_inode(con.run)
    old = states(b)
    b.note("alice's pin before the upgrade: %s" % old)
    ok, what = install(b, "gen2")
    cursor = mark(b)
    out = b.ssh("alice", "readlink /proc/self/ns/mnt; ls -A /var/scratch; echo works")
    log = journal_since(b, cursor)
    for x in log:
        b.note("journal: " + x)
    s_ns = out.split("\n")[0]
    b.result(ok and len(old) == 1 and
             list(old.values()) == ["pam_namespace-share 1"] and
             "works" in out and s_ns != c_ns and "gen1-note" not in out and
             any("pinned" in x for x in log) and not refused(log),
             "dpkg -i of an incompatible build (format 2, generation 2) while "
             "alice's console holds a format 1 pin: her ssh login builds a "
             "namespace of its own (logged, not refused)",
             "%s; console ns %s, ssh ns %s; the ssh login sees %s in "
             "/var/scratch; journal: %d lines, %d refusing" %
             (what, c_ns, s_ns, " ".join(out.split("\n")[1:-2]) or "nothing",
              len(log), len(refused(log))))

    listed = b.root("pam_namespace_check --shared 2>&1; echo status $?").strip()
    js = b.root("pam_namespace_check --shared --json 2>&1")
    try:
        pins = json.loads(js)["shared"]
    except (ValueError, KeyError, TypeError) as e:
        pins = "not JSON (%s)" % e
    key = next(iter(old), "none")
    b.result(listed.endswith("status 0") and key[:16] in listed and
             "another release's" in listed and "2 sessions open" in listed and
             isinstance(pins, list) and len(pins) == 1 and
             pins[0].get("key") == key and pins[0].get("sessions") == 2,
             "pam_namespace_check --shared (the new build's) lists alice's old "
             "pin as another release's, with her console session and user "
             "manager in it",
             "%s; --json: %s" % (listed.replace("\n", "; "), pins))
    con.logout()
    clean_after(b, "the incompatible build", c_scr)
    out = b.ssh("alice", "ls -A /var/scratch; echo works").split()
    b.result(out[-1:] == ["works"] and "gen1-note" not in out,
             "the incompatible build: alice's later login works (a new "
             "/var/scratch)", "it sees %s in /var/scratch" %
             (" ".join(out[:-1]) or "nothing"))
    back_to_orig(b, "after the incompatible build")


def next_format(b):
    con = b.Console("alice", "alicepw")
    con.run("echo before-upgrade >/tmp/upgrade-note")
    c_ns, c_scr = b.ns_of(con.run), scratch_inode(con.run)
    old = states(b)
    b.note("alice's pin before the upgrade: %s" % old)
    ok, what = install(b, "next")
    cursor = mark(b)
    out = b.ssh("alice", "readlink /proc/self/ns/mnt; cat /tmp/upgrade-note; "
                "stat -c %i /var/scratch").split()
    log = journal_since(b, cursor)
    for x in log:
        b.note("journal: " + x)
    b.result(ok and list(old.values()) == ["pam_namespace-share 1"] and
             out == [c_ns, "before-upgrade", c_scr] and
             any("joined" in x for x in log) and not refused(log),
             "dpkg -i of a later build (format 2, joins format 1) while alice "
             "is logged in on the console: her ssh login joins the console's "
             "namespace (her /tmp note, her tmpdir instance)",
             "%s; console ns %s, /var/scratch %s; ssh sees %s; journal: %d "
             "lines, %d refusing" % (what, c_ns, c_scr, " ".join(out), len(log),
                                     len(refused(log))))
    con.logout()
    clean_after(b, "the later build", c_scr)
    con = b.Console("alice", "alicepw")
    note = con.run("cat /tmp/upgrade-note").strip()
    now = states(b)
    con.logout()
    b.result(note == "before-upgrade" and
             list(now.values()) == ["pam_namespace-share 2"],
             "the later build: alice's later console login works, its pin's "
             "state says format 2", "reads %s; pins %s" % (note, now))
    back_to_orig(b, "after the later build")


def live_upgrades(b):
    start = time.time()
    gen2(b)
    next_format(b)
    b.note("the upgrades with alice logged in: %.0f s" % (time.time() - start))
