# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The shared boot's upgrades with alice logged in (issue 27; suite boot), called by
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
SPLIT = "@@upgrade.py@@"

# Shell commands run as root in the guest, several in one ssh login (each
# login costs seconds under TCG); guest() returns their outputs.
STATES = ('for f in %s/*.state; do [ -e "$f" ] || continue; '
          'echo "$(basename "$f" .state) $(head -n 1 "$f")"; done' % UDIR)
LEFT = "ls -A %s 2>/dev/null || true" % UDIR
SCRATCH = "stat -c %i /var/scratch-inst/* 2>/dev/null || true"
# The journal of this boot only (-b), here and in journal_since: these
# checks run in the third boot, after aged_clean had set the clock 40 days
# on in the second, whose lines then sort after this boot's, so that the
# whole journal's last line is one of them and a cursor there comes after
# every line this boot writes (2 of 3 whole runs once LightDM's packages
# were in the image).
CURSOR = "journalctl -b -q -n 1 -o cat --show-cursor | sed -n 's/^-- cursor: //p'"
LINES = ("grep -h pam_namespace_ng /etc/pam.d/common-session "
         "/etc/pam.d/common-session-noninteractive || true")
# Until logind has stopped user@2001.service after alice's last session
# (UserStopDelaySec), at most 120 s: its state and the seconds waited.
WAIT = ("t=$(date +%s); u=user@2001.service; "
        "while [ \"$(systemctl show -p ActiveState --value $u)\" != inactive ] && "
        "[ $(($(date +%s) - t)) -lt 120 ]; do sleep 1; done; "
        "echo \"$(systemctl show -p ActiveState --value $u) $(($(date +%s) - t))\"")


def dpkg_i(which):
    """dpkg -i of one of the .debs: its status (its output's end if not
    0), the .deb's version and the one dpkg then has."""
    deb = DEBS[which]
    return ("out=$(%sdpkg -i %s 2>&1); s=$?; [ $s = 0 ] || printf '%%s\\n' "
            "\"$out\" | tail -n 5; echo status $s; dpkg-deb -f %s Version; "
            "dpkg-query -W -f '${Version}\\n' libpam-namespace-ng" %
            (ENV, deb, deb))


def journal_since(cursor, want):
    """The module's share_namespace lines after the cursor, once one holding
    WANT is there or 90 s have passed: journald reads /dev/log on its own
    time, and after dpkg -i (a daemon-reload, triggers) the guest's journald
    was seen to be behind the ssh login that logged the line (the check
    found the lines of another session's close, not the login's own)."""
    return ("t=$(date +%%s); while ! journalctl -b -q --no-pager -o cat "
            "--after-cursor='%s' | grep -F share_namespace: | grep -qF '%s' && "
            "[ $(($(date +%%s) - t)) -lt 90 ]; do sleep 2; done; "
            "journalctl -b -q --no-pager -o cat --after-cursor='%s' | "
            "grep -F share_namespace: || true" % (cursor, want, cursor))


def guest(b, *cmds, timeout=120):
    script = ("; echo %s; " % SPLIT).join("{ %s; } 2>&1" % c for c in cmds)
    out = b.ssh("root", script + "; true", timeout=timeout)
    parts = out.split(SPLIT + "\n")
    if len(parts) != len(cmds):
        raise RuntimeError("guest: %d outputs for %d commands: %s" %
                           (len(parts), len(cmds), out[-500:]))
    return [x.strip() for x in parts]


def installed(b, which, out, lines):
    """(whether dpkg -i succeeded and dpkg now has the .deb's version, what
    it said)."""
    b.note("dpkg -i %s: the session lines now: %s" %
           (DEBS[which], lines.replace("\n", "; ")))
    tail = out.split("\n")[-3:]
    ok = len(tail) == 3 and tail[0] == "status 0" and tail[1] == tail[2]
    return ok, "%s; installed %s" % ("; ".join(out.split("\n")[:-2]),
                                     tail[-1])


def state_lines(text):
    """alice's pins' keys and their state's first line."""
    return dict(x.split(" ", 1) for x in text.split("\n") if x)


def leftovers(text):
    """Pins, states and session records (KEY@PID...) in alice's directory."""
    return [x for x in text.split() if x.endswith((".ns", ".state", ".new")) or
            "@" in x]


def refused(lines):
    return [x for x in lines if "of its own" in x or "refusing" in x]


def upgrade_to(b, which):
    """alice's pins, dpkg -i, the session lines, a journal cursor."""
    old, out, lines, cursor = guest(b, STATES, dpkg_i(which), LINES, CURSOR)
    ok, what = installed(b, which, out, lines)
    b.note("alice's pin before the upgrade: %s" % state_lines(old))
    return state_lines(old), ok, what, cursor


def log_since(b, cursor, want, *more):
    out = guest(b, journal_since(cursor, want), *more, timeout=240)
    log = [x for x in out[0].split("\n") if x]
    for x in log:
        b.note("journal: " + x)
    return log, out[1:]


def clean_after(b, when, scratch):
    """After alice's last session: nothing of hers in /run/pam_namespace, the
    shared tmpdir instance removed."""
    waited, left, scr = guest(b, WAIT, LEFT, SCRATCH, timeout=240)
    left, scr = leftovers(left), scr.split()
    b.result(waited.startswith("inactive ") and not left and scratch not in scr,
             "%s: after alice's sessions and user manager end, no pin, state "
             "or record of hers is left and the shared tmpdir instance is "
             "removed" % when,
             "user@2001 %s s after her logout; %s holds %s; /var/scratch-inst "
             "inodes %s (the shared one was %s)" %
             (waited, UDIR, " ".join(left) or "none of them",
              " ".join(scr) or "none", scratch))


def back_to_orig(b, when):
    """The package's own .deb again, alice's user manager stopped first (its
    ExecStopPost drops her pin with the tool of the build it ran with)."""
    out, lines, left = guest(b, "systemctl stop user@2001.service; " +
                             dpkg_i("orig"), LINES, LEFT)
    ok, what = installed(b, "orig", out, lines)
    left = leftovers(left)
    b.result(ok and not left, "%s: dpkg -i of the package's own .deb "
             "(a downgrade) with no session of alice's open" % when,
             "%s; %s: %s" % (what, UDIR, " ".join(left) or "nothing of hers"))


def gen2(b):
    con = b.Console("alice", "alicepw")
    c_ns, c_scr = con.run("echo gen1 >/var/scratch/gen1-note; readlink "
                          "/proc/self/ns/mnt; stat -c %i /var/scratch").split()
    old, ok, what, cursor = upgrade_to(b, "gen2")
    out = b.ssh("alice", "readlink /proc/self/ns/mnt; ls -A /var/scratch; echo works")
    log, (listed, js) = log_since(b, cursor, "pinned", "pam_namespace_check --shared; "
                                  "echo status $?", "pam_namespace_check --shared --json")
    s_ns = out.split("\n")[0]
    b.result(ok and list(old.values()) == ["pam_namespace-share 1"] and
             "works" in out and s_ns != c_ns and "gen1-note" not in out and
             any("pinned" in x for x in log) and not refused(log),
             "dpkg -i of an incompatible build (format 2, generation 2) while "
             "alice's console holds a format 1 pin: her ssh login builds a "
             "namespace of its own (logged, not refused)",
             "%s; console ns %s, ssh ns %s; the ssh login sees %s in "
             "/var/scratch; journal: %d lines, %d refusing" %
             (what, c_ns, s_ns, " ".join(out.split("\n")[1:-2]) or "nothing",
              len(log), len(refused(log))))
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
    c_ns, c_scr = con.run("echo before-upgrade >/tmp/upgrade-note; readlink "
                          "/proc/self/ns/mnt; stat -c %i /var/scratch").split()
    old, ok, what, cursor = upgrade_to(b, "next")
    out = b.ssh("alice", "readlink /proc/self/ns/mnt; cat /tmp/upgrade-note; "
                "stat -c %i /var/scratch").split()
    log, _ = log_since(b, cursor, "joined")
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
    now = state_lines(guest(b, STATES)[0])
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
