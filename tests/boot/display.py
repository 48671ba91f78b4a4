# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Issue 33's display manager, booted in the boot suites' guest (boot and
# boot_trixie): LightDM starting Xorg (as root, outside every session) on
# the dummy video driver, and alice logging in through a greeter with her
# password, as a person would. Called by boot.py's package cycle with its
# own module (ssh, result helpers) while the package's plain profile is
# enabled (pam-auth-update --enable namespace-ng), with the /tmp line of
# namespace.conf extended by share=/tmp/.X11-unix:share=/tmp/.ICE-unix
# and lightdm excluded on every line (README "Graphical logins") for the
# checks' time; or on one boot of its own (NS_BOOT_DISPLAY=1,
# display_boot).
#
# The greeter is a few lines of Python on LightDM's bindings
# (gir1.2-lightdm-1): it answers LightDM's password prompt for alice and
# starts the session "probe", an xsessions entry of this file whose script
# writes what the session sees and stays until logout. The greeter runs as
# user lightdm (PAM service lightdm-greeter) and is left out: Debian 12's
# stack has no common-session, so the profile never reaches it; Debian
# 13's has, and every line names lightdm among its excluded users, so the
# module changes nothing there. It stays in PID 1's namespace and shares
# the real /tmp with the X server it draws on.
#
# Checks: the greeter reaches the X server and sees the real /tmp; alice's
# session (PAM service lightdm) reaches it and has her instance on /tmp;
# an X client from her ssh login (DISPLAY=:0, her ~/.Xauthority) reaches
# it; pam_namespace_check --service says as many runs as the journal shows
# for lightdm and lightdm-greeter; her logout (loginctl terminate-session)
# brings the greeter back and leaves nothing of hers, and stopping LightDM
# leaves no process of user lightdm.

import base64
import re
import time

import doors

XORG_CONF = """Section "ServerFlags"
	Option "AutoAddDevices" "false"
EndSection
Section "Device"
	Identifier "dummy"
	Driver "dummy"
	VideoRam 16384
EndSection
Section "Monitor"
	Identifier "monitor"
	HorizSync 5.0-1000.0
	VertRefresh 5.0-200.0
EndSection
Section "Screen"
	Identifier "screen"
	Device "dummy"
	Monitor "monitor"
	DefaultDepth 24
	SubSection "Display"
		Depth 24
		Modes "1024x768"
	EndSubSection
EndSection
"""
LIGHTDM_CONF = """[LightDM]
logind-check-graphical=false
[Seat:*]
xserver-command=Xorg
greeter-session=probe-greeter
user-session=probe
"""
# What a process of the session or the greeter sees, one line.
VIEW = r"""view() {
	t=$(awk '$5 == "/tmp"' /proc/self/mountinfo | wc -l)
	r=$(awk '$5 == "/tmp" { r = $4 } END { print r }' /proc/self/mountinfo)
	s=no
	[ -e /tmp/tmp-inst ] && s=yes
	if d=$(xdpyinfo 2>&1); then
		x="ok $(echo "$d" | awk '/^name of display/ { print $4 }')"
	else
		x="failed $(echo "$d" | head -n 1)"
	fi
	echo "$1: $(id -un) tmp=$t root=$r stray=$s ns=$(readlink /proc/self/ns/mnt) x=$x"
}
"""
SESSION = "#!/bin/sh\n# display.py's X session: its view, a file in /tmp, then alive.\n" + \
    VIEW + """view session >"$HOME/x-session.part" 2>&1
echo graphical >/tmp/x-session-note
mv "$HOME/x-session.part" "$HOME/x-session.txt"
exec sleep 100000
"""
GREETER = "#!/bin/sh\n# display.py's greeter: its view, then the login.\n" + \
    VIEW + """view greeter >>/var/lib/lightdm/greeter.txt 2>&1
exec python3 /usr/local/lib/probe-greeter.py alice alicepw probe \\
	>>/var/lib/lightdm/greeter.txt 2>&1
"""
GREETER_PY = '''"""display.py's greeter: logs USER in with PASSWORD into SESSION, once
(after her logout it waits, as a greeter showing its prompt would)."""
import os
import sys

import gi
gi.require_version("LightDM", "1")
from gi.repository import GLib, LightDM  # noqa: E402

USER, PASSWORD, SESSION = sys.argv[1:4]
DONE = "/var/lib/lightdm/greeter-login-done"


def log(text):
    print("greeter: " + text, flush=True)


def prompt(greeter, text, kind):
    greeter.respond(PASSWORD)


def complete(greeter):
    if not greeter.get_is_authenticated():
        log("authentication failed")
        return
    open(DONE, "w").close()
    log("authenticated, starting " + SESSION)
    greeter.start_session_sync(SESSION)


g = LightDM.Greeter()
g.connect("show-prompt", prompt)
g.connect("show-message", lambda gr, text, kind: log("message: " + text))
g.connect("authentication-complete", complete)
g.connect_to_daemon_sync()
if os.path.exists(DONE):
    log("logged in once already: waiting")
else:
    g.authenticate(USER)
GLib.MainLoop().run()
'''
FILES = [("/etc/X11/xorg.conf.d/10-dummy.conf", 644, XORG_CONF),
         ("/etc/lightdm/lightdm.conf.d/50-probe.conf", 644, LIGHTDM_CONF),
         ("/usr/share/xsessions/probe.desktop", 644,
          "[Desktop Entry]\nName=probe\nExec=/usr/local/bin/x-probe-session\n"
          "Type=Application\n"),
         ("/usr/share/xgreeters/probe-greeter.desktop", 644,
          "[Desktop Entry]\nName=probe-greeter\n"
          "Exec=/usr/local/bin/probe-greeter\nType=Application\n"),
         ("/usr/local/bin/x-probe-session", 755, SESSION),
         ("/usr/local/bin/probe-greeter", 755, GREETER),
         ("/usr/local/lib/probe-greeter.py", 644, GREETER_PY)]
TMP_LINE = ("/tmp  /tmp/tmp-inst/  "
            "user+:share=/tmp/.X11-unix:share=/tmp/.ICE-unix  root,lightdm")
CONF = "/etc/security/namespace.conf"
SETUP = " && ".join(
    ["mkdir -p /etc/X11/xorg.conf.d /etc/lightdm/lightdm.conf.d "
     "/usr/share/xsessions /usr/share/xgreeters",
     "cp -p %s /root/display.namespace.conf" % CONF,
     "sed -i -e 's|^/tmp .*|%s|' -e 's|^\\(/var/.*\\) root$|\\1 root,lightdm|' %s"
     % (TMP_LINE, CONF),
     "rm -f /home/alice/x-session.txt /var/lib/lightdm/greeter.txt "
     "/var/lib/lightdm/greeter-login-done"] +
    ["printf %%s %s | base64 -d >%s && chmod %d %s" %
     (base64.b64encode(text.encode()).decode(), path, mode, path)
     for path, mode, text in FILES])
RESTORE = ("systemctl stop lightdm.service; "
           "mv /root/display.namespace.conf %s" % CONF)
SESSION_OF = ("for s in $(loginctl show-user alice -p Sessions --value); do "
              "[ \"$(loginctl show-session $s -p Service --value)\" = lightdm ] "
              "&& echo $s; done; true")


# A run of the module: its plan for alice's /tmp, or nothing mounted.
RUN = r"plan: \S+ on /tmp, instance /tmp/tmp-inst/+alice\b|nothing mounted"


def count(lines, service, pattern):
    """How many of doors.module_lines' lines for service match pattern."""
    return sum(1 for s, text, _ in lines
               if s == service and re.search(pattern, text))


def wait_for(b, cmd, limit=180):
    """cmd's output once it is not empty, or "" after limit seconds."""
    start = time.time()
    while True:
        out = b.root(cmd + " 2>/dev/null || true").strip()
        if out or time.time() - start > limit:
            return out
        time.sleep(3)


def greeter_lines(b):
    return [x for x in b.root("cat /var/lib/lightdm/greeter.txt 2>/dev/null "
                              "|| true").split("\n") if x]


def xorg_log(b):
    return b.root("grep -E '\\((EE|WW)\\)' /var/log/Xorg.0.log 2>/dev/null | "
                  "head -n 5; journalctl -q --no-pager -o cat -u "
                  "lightdm.service | tail -n 5; true").replace("\n", "; ")


def display_manager(b):
    """LightDM, as the module's plain profile is enabled."""
    start = time.time()
    b.root(SETUP)
    b.root(doors.DEBUG_ON)
    try:
        check_display(b)
    finally:
        b.root(doors.DEBUG_OFF)
        b.root(RESTORE)
    b.note("LightDM (the greeter's login, the checks, the logout): %.0f s" %
           (time.time() - start))


def check_display(b):
    base = int(b.root("awk '$5 == \"/tmp\"' /proc/self/mountinfo | wc -l"))
    init_ns = b.root("readlink /proc/1/ns/mnt").strip()
    doors.wait_manager(b, "alice")
    begin = doors.mark(b, "display-begin")
    began = time.time()
    b.root("systemctl start lightdm.service")
    session = wait_for(b, "cat /home/alice/x-session.txt")
    b.note("LightDM started, alice's session up after %.0f s" %
           (time.time() - began))
    greeter = greeter_lines(b)
    first = greeter[0] if greeter else ""
    b.result(first.startswith("greeter: lightdm tmp=%d " % base) and
             "stray=yes" in first and " x=ok :0" in first and
             " ns=%s " % init_ns in first and
             "greeter: authenticated" in " ".join(greeter),
             "LightDM: the greeter (user lightdm, service lightdm-greeter, "
             "left out: PID 1's namespace) draws on Xorg's dummy display "
             "with the real /tmp, and logs alice in with her password",
             "%s; root's /tmp has %d mounts, PID 1's namespace %s; %s" %
             ("; ".join(greeter) or "no greeter line", base, init_ns,
              "" if session else xorg_log(b)))
    real = b.root("ls /tmp/tmp-inst/alice/x-session-note /tmp/x-session-note "
                  "2>/dev/null; true").split()
    b.result(session.startswith("session: alice tmp=%d " % (base + 1)) and
             "root=" in session and "/tmp-inst/alice " in session and
             "stray=no" in session and " x=ok :0" in session and
             real == ["/tmp/tmp-inst/alice/x-session-note"],
             "LightDM: alice's session (service lightdm) reaches the X server "
             "(xdpyinfo) through the shared /tmp/.X11-unix, its /tmp is her "
             "instance (the file it wrote is there, not in the real /tmp)",
             "%s; found: %s" % (session or "no session line",
                                " ".join(real) or "nothing"))
    # Her session is up (its line written): the greeter's and her
    # session's opens are before this marker.
    end = doors.mark(b, "display-end")
    lines = doors.module_lines(b, begin, end)
    seen = count(lines, "lightdm", RUN)
    told = {s: doors.runs_told(b, s) for s in
            ("lightdm", "lightdm-greeter", "lightdm-autologin")}
    # The greeter's runs, where its stack has the module: nothing for it.
    none, plans = (count(lines, "lightdm-greeter", x)
                   for x in ("no polyinstantiated directory for lightdm$",
                             "plan: "))
    b.result(seen == 1 and told["lightdm"][0] == 1 and plans == 0 and
             none == told["lightdm-greeter"][0],
             "LightDM: pam_namespace_check --service says what the journal "
             "shows (lightdm: once; lightdm-greeter: as its stack says, "
             "and nothing for user lightdm)",
             "lightdm: the journal %d, %s; lightdm-greeter: the journal %d "
             "without a directory, %d plans, %s; %s" %
             (seen, told["lightdm"][1], none, plans,
              told["lightdm-greeter"][1], told["lightdm-autologin"][1]))
    out = b.ssh("alice", "DISPLAY=:0 XAUTHORITY=$HOME/.Xauthority xdpyinfo "
                "2>&1 | head -n 2; ls /tmp/.X11-unix; ls /tmp/x-session-note",
                check=False)
    b.result(re.search(r"name of display:\s+:0", out) is not None and
             "X0" in out and
             "x-session-note" in out,
             "LightDM: an X client from alice's ssh login (DISPLAY=:0, her "
             "~/.Xauthority) reaches the server; her ssh login sees her "
             "instance", out.strip().replace("\n", "; "))
    logout(b, base)


def logout(b, base):
    """Her session terminated as a logout would end it; then LightDM
    stopped."""
    sid = b.root(SESSION_OF).strip()
    b.root("loginctl terminate-session %s" % sid if sid else "true")
    back = wait_for(b, "grep -c '^greeter: lightdm' "
                    "/var/lib/lightdm/greeter.txt | grep -x 2", 120)
    views = [x for x in greeter_lines(b) if x.startswith("greeter: lightdm")]
    b.result(sid != "" and back == "2" and len(views) == 2 and
             views[-1].startswith("greeter: lightdm tmp=%d " % base) and
             " x=ok :0" in views[-1],
             "LightDM: after alice's logout (loginctl terminate-session) the "
             "greeter is back on the X server",
             "session %s; %s" % (sid or "not found", "; ".join(views)))
    bad, waited = doors.leftovers(b, "alice")
    b.result(not bad, "LightDM: nothing left of alice's graphical session "
             "once logind stopped her manager",
             "after %.0f s: %s" % (waited, "; ".join(bad) or "no process of "
                                   "alice, no mount of her instance, no pin"))
    b.root("systemctl stop lightdm.service")
    # The greeter's user manager (pam_systemd in lightdm-greeter) stops
    # as alice's does, UserStopDelaySec after its last session.
    mgr = wait_for(b, "systemctl show -p ActiveState --value "
                   "user@$(id -u lightdm).service | grep -x inactive", 120)
    left = b.root("pgrep -u lightdm -a; pgrep -a -x Xorg; "
                  "grep -l 'tmp-inst/alice ' /proc/[0-9]*/mountinfo 2>/dev/null; "
                  "true").strip()
    b.result(left == "" and mgr == "inactive", "LightDM stopped: no "
             "process of user lightdm (its user manager stopped), no Xorg, "
             "no instance of alice's mounted in any namespace",
             left.replace("\n", "; ") or "nothing left")


def display_boot(b):
    """NS_BOOT_DISPLAY=1 (by hand, a shorter cycle): one boot of a default
    image, the package's plain profile in place of the stacks' lines
    (/root/shared-mode.sh, as the third boot has it), then LightDM."""
    b.boot(1)
    b.versions()
    out = b.root("sh /root/shared-mode.sh >/dev/null 2>&1 && "
                 "DEBIAN_FRONTEND=noninteractive pam-auth-update --disable "
                 "namespace-ng-shared --enable namespace-ng; echo status $?")
    b.result(out.strip().endswith("status 0"), "the plain profile enabled "
             "(pam-auth-update --enable namespace-ng)", out.strip())
    display_manager(b)
    b.poweroff(1)
