# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
"""faults.py's worker: the scenarios, the errors each call fails with, and
one sandbox's run of the points (faults.py's docstring says what is
checked)."""

import json
import os
import re
import shutil
import subprocess
import time

SB_DIR = "/run/ns-sandbox"
SB_OUT = SB_DIR + "/out"
SB_LOG = SB_DIR + "/syslog"
PIN_DIR = "/run/pam_namespace"
USER, UID = "alice", 2001
OTHER, OTHER_UID = "bob", 2002
# Seconds a session may take (the VM's, traced with stacks under TCG, take longer).
TIMEOUT = int(os.environ.get("NS_FAULTS_TIMEOUT", "30"))

# The error each call fails with: one it can really return.
ERRORS = {}
for _n in ("mount umount2 open_tree move_mount fsopen fsconfig fsmount mount_setattr "
           "unshare setns chroot pivot_root").split():
    ERRORS[_n] = "EPERM"
for _n in "clone clone3 fork vfork".split():
    ERRORS[_n] = "EAGAIN"
for _n in "wait4 waitid poll ppoll getrandom".split():
    ERRORS[_n] = "EINTR"
for _n in "mkdir mkdirat write writev rename renameat renameat2 link linkat".split():
    ERRORS[_n] = "ENOSPC"
for _n in "brk mmap open openat openat2 newfstatat fstat stat lstat statx getcwd".split():
    ERRORS[_n] = "ENOMEM"
for _n in "fcntl dup dup2 dup3 pidfd_open socket".split():
    ERRORS[_n] = "EMFILE"
for _n in ("read pread64 getdents64 fchown fchownat fchmod fchmodat unlink unlinkat rmdir "
           "readlink readlinkat fstatfs statfs quotactl_fd").split():
    ERRORS[_n] = "EIO"
ERRORS.update({"ioctl": "ENOTTY", "flock": "ENOLCK", "connect": "ECONNREFUSED",
               "sendto": "ENOBUFS", "sendmsg": "ENOBUFS", "access": "EACCES",
               "faccessat": "EACCES", "faccessat2": "EACCES", "chdir": "EACCES",
               "fchdir": "EACCES", "kill": "EPERM", "pidfd_send_signal": "EPERM",
               "execve": "ENOMEM", "prctl": "EINVAL"})
# Calls that cannot fail, or whose failure the kernel does not let happen
# the way an injection would (close frees the descriptor whatever it returns).
NEVER = set(("close getpid gettid getppid getuid geteuid getgid getegid setfsuid setfsgid "
             "umask lseek rt_sigaction rt_sigprocmask rt_sigreturn exit exit_group munmap "
             "madvise futex restart_syscall sched_yield clock_gettime gettimeofday "
             "nanosleep clock_nanosleep rseq set_robust_list set_tid_address "
             "sched_getaffinity uname getrlimit prlimit64 mprotect").split())

# The close's first faults for two-fault points (double_points).
CLOSE_FIRSTS = "umount2 unlinkat getdents64 read setns openat2".split()

# syslog(3)'s calls, under the module's frames: when one fails, the line
# it sends is lost.
LOG_CALLS = set("socket connect sendto sendmsg".split())

# What ASan's allocator calls for itself (not failed under the sanitizers).
ALLOCATOR = set("mmap munmap mremap brk mprotect madvise".split())

BASE_CONF = "/tmp /tmp/tmp-inst/ user root\n"


def selinux_enabled():
    try:
        with open("/sys/fs/selinux/enforce"):
            return True
    except OSError:
        return False


def scenarios(linux_pam):
    """Each: namespace.conf, module arguments, setup, what the checks watch
    (tmpdirs: the instance parents of method tmpdir, whose instances go with
    the session)."""
    s = [
        dict(name="user",
             conf=BASE_CONF + "/var/tmp /var/tmp/tmp-inst/ user root\n"
                  "/home/made /home/inst/ user:create=0755,root,root root\n",
             polydirs=["/tmp", "/var/tmp", "/home/made"],
             parents=["/var/tmp/tmp-inst", "/home/inst"]),
        dict(name="tmpdir",
             conf="/tmp /tmp/tmp-inst/ tmpdir root\n/var/tmp /var/tmp/tmp-inst/ tmpdir root\n",
             polydirs=["/tmp", "/var/tmp"], parents=["/var/tmp/tmp-inst"],
             tmpdirs=["/tmp/tmp-inst", "/var/tmp/tmp-inst"]),
        dict(name="tmpfs", args="unmount_on_close",
             conf="/tmp tmpfs tmpfs:mntopts=size=1m root\n"
                  "/var/tmp /var/tmp/tmp-inst/ user root\n",
             polydirs=["/tmp", "/var/tmp"], parents=["/var/tmp/tmp-inst"]),
        dict(name="init", conf=BASE_CONF, init=True, polydirs=["/tmp"], parents=[]),
        # In a directory the user owns: made as the user, then handed to root.
        dict(name="home",
             conf="/home/alice/scratch /home/alice/.scratch-inst/ "
                  "user:create=0700,alice,alice root\n",
             polydirs=["/home/alice/scratch"], parents=["/home/alice/.scratch-inst"]),
    ]
    if selinux_enabled():
        # The driver sets no exec context: the session's is the caller's.
        s += [dict(name=m, conf="/tmp /tmp/tmp-inst/ %s root\n" % m, polydirs=["/tmp"],
                   parents=[]) for m in ("context", "level")]
    if not linux_pam:
        s += [
            dict(name="share_paths",
                 conf="/tmp /tmp/tmp-inst/ user+:share=/tmp/.X11-unix root\n"
                      "/var/tmp /var/tmp/tmp-inst/ user root\n",
                 polydirs=["/tmp", "/var/tmp"], parents=["/var/tmp/tmp-inst"],
                 x11=True),
            dict(name="share_build", args="share_namespace",
                 conf=BASE_CONF + "/var/tmp /var/tmp/tmp-inst/ tmpdir root\n",
                 polydirs=["/tmp", "/var/tmp"], parents=["/var/tmp/tmp-inst"], share=True,
                 tmpdirs=["/var/tmp/tmp-inst"]),
            dict(name="share_join", args="share_namespace",
                 conf=BASE_CONF + "/var/tmp /var/tmp/tmp-inst/ tmpdir root\n",
                 polydirs=["/tmp", "/var/tmp"], parents=["/var/tmp/tmp-inst"], share=True,
                 tmpdirs=["/var/tmp/tmp-inst"], held=True),
            # --kill only: not the module's calls but pam_namespace_check
            # --drop's, on what two killed sessions left (Worker.make_stale).
            dict(name="share_drop", args="share_namespace",
                 conf=BASE_CONF + "/var/tmp /var/tmp/tmp-inst/ tmpdir root\n",
                 polydirs=["/tmp", "/var/tmp"], parents=["/var/tmp/tmp-inst"], share=True,
                 tmpdirs=["/var/tmp/tmp-inst"], drop=True),
        ]
    return s


# ------------------------------------------------------------------ helpers

def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def mnt_ns(pid="self"):
    return os.readlink("/proc/%s/ns/mnt" % pid)


def mounts(path="/proc/self/mountinfo"):
    """Mount points with their source and root, in order."""
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            sep = p.index("-")
            out.append((p[4], p[3], p[sep + 2]))
    return out


def count_at(mlist, point):
    return sum(1 for m in mlist if m[0] == point)


def listing(path):
    try:
        return sorted(os.listdir(path))
    except FileNotFoundError:
        return None


def pins(uid=UID):
    """What share_namespace keeps for the user: name -> (inode of what is there)."""
    d = "%s/%d" % (PIN_DIR, uid)
    out = {}
    for n in listing(d) or []:
        if n == "lock":
            continue
        try:
            st = os.stat(os.path.join(d, n))
            out[n] = st.st_ino
        except OSError:
            out[n] = None
    return out


def traced_calls(log):
    """Each call of an strace -k log, with the stack lines under it."""
    with open(log) as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stack = []
        i += 1
        while i < len(lines) and lines[i].startswith(" > "):
            stack.append(lines[i])
            i += 1
        yield line, stack


def own_calls(seen):
    """From (call, ours, lost) in order, the calls that are ours. strace
    cannot unwind every call (clone3 of posix_spawn): such a call is ours
    when the next one is."""
    return [c for k, (c, ours, lost) in enumerate(seen)
            if ours or (lost and k + 1 < len(seen) and seen[k + 1][1])]


def injected_inside(trace, n):
    """n injections, each between a pair of the driver's markers."""
    inside, count = False, 0
    for line in trace.splitlines():
        m = re.match(r'^access\("/ns-fault-mark/(\w+)"', line)
        if m:
            inside = m.group(1) in ("open", "close")
        elif "(INJECTED)" in line:
            if not inside:
                return False
            count += 1
    return count == n


def killed_inside(trace):
    """The client died of the injected SIGKILL between the driver's markers."""
    inside = False
    for line in trace.splitlines():
        m = re.match(r'^access\("/ns-fault-mark/(\w+)"', line)
        if m:
            inside = m.group(1) in ("open", "close")
        elif "+++ killed by SIGKILL" in line:
            return inside
    return False


def norm_call(text):
    """A traced call as strace printed it at its entry, numbers and addresses
    blanked (a pid, an inode or a buffer's address differs between runs;
    the call, its flags and its names do not)."""
    text = re.sub(r"^\d+\s+", "", text)
    text = re.sub(r"\s*<unfinished \.\.\.>.*$|\s+= \?$", "", text)
    return re.sub(r"\d+", "N", re.sub(r"0x[0-9a-f]+", "X", text)).rstrip(", ")


def killed_at(trace, name, n, text, instance):
    """The process died of the injected SIGKILL at the n-th call name, and
    that call is the one calibration saw (text, its line there, with the
    tmpdir instance's random name as INSTANCE; instance, this run's)."""
    calls = [ln for ln in trace.splitlines() if re.match(r"^\d+\s+%s\(" % name, ln)]
    if "+++ killed by SIGKILL" not in trace or len(calls) != n:
        return False
    return norm_call(text).startswith(norm_call(calls[-1].replace(instance, "INSTANCE")))


def pin_dir_private():
    """share_namespace's own mount, where there is one, is private: a shared
    one would carry every pin into the host's namespace and refuse sharing."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            p = line.split()
            if p[4] == PIN_DIR and any(x.startswith("shared:") for x in p[6:p.index("-")]):
                return ["%s is a shared mount" % PIN_DIR]
    return []


SANDBOX_MOUNTS = {"/tmp": "ns-sandbox-tmp", "/var/tmp": "ns-sandbox-vartmp",
                  "/home": "ns-sandbox-home", "/run": "ns-sandbox-run"}


def sandbox_intact():
    """The sandbox's own tmpfs still cover what the worker cleans: a module
    that unmounted them in the caller's namespace would otherwise have it
    clean the machine's directories. Stops the worker if not."""
    top = {}
    for point, _, source in mounts():
        top[point] = source
    for point, source in SANDBOX_MOUNTS.items():
        if top.get(point) != source:
            print("BROKEN " + json.dumps("the sandbox's %s is no longer its own mount (%s): "
                                         "the last point unmounted it in the caller's namespace"
                                         % (point, top.get(point))), flush=True)
            os._exit(3)


def said(path, logged):
    """Whether a log line names what was left: its path or, for the pin
    directory's files, the instance key they share."""
    names = [path]
    if path.startswith(PIN_DIR + "/"):
        names.append(re.split(r"[.@]", os.path.basename(path))[0])
    # A tmpdir instance's marker (.pam_namespace-session.UID.NAME) goes with its instance.
    m = re.match(r"\.pam_namespace-session\.[0-9]+\.(.+)$", os.path.basename(path))
    if m:
        names.append(os.path.join(os.path.dirname(path), m.group(1)))
    return any(n in ln for n in names for ln in logged)


def log_sync():
    """Every message sent so far is in SB_LOG."""
    mark = "ns-fault-sync-%d-%f" % (os.getpid(), time.time())
    if subprocess.run(["logger", "-u", "/dev/log", "-t", "ns-fault", "--", mark]).returncode:
        return
    for _ in range(400):
        with open(SB_LOG, "rb") as f:
            if mark.encode() in f.read():
                return
        time.sleep(0.005)


def log_size():
    return os.path.getsize(SB_LOG)


def log_since(size):
    log_sync()
    with open(SB_LOG, "rb") as f:
        f.seek(size)
        return [ln for ln in f.read().decode(errors="replace").splitlines()
                if "pam_namespace" in ln]


# ------------------------------------------------------------------ a worker

class Worker:
    def __init__(self, module_is_ours):
        self.driver = os.environ["NS_DRIVER"]
        self.module = os.environ["NS_MODULE"]
        # How strace -k names its frames: the file's name (the VM installs
        # it as pam_namespace_ng.so).
        self.module_name = os.path.basename(self.module)
        # pam_namespace_check (scenario share_drop), and how its frames are named.
        self.tool = os.environ.get("NS_CHECK")
        self.tool_name = os.path.basename(self.tool or "pam_namespace_check")
        # The random name of the tmpdir instance make_stale left.
        self.stale_instance = None
        self.ours = module_is_ours
        self.caller_ns = mnt_ns()
        self.baseline = mounts()
        self.held = None
        self.held_ns = None
        self.never = NEVER | (ALLOCATOR if os.environ.get("NS_ASAN_RT") else set())
        # --frame: only the points whose failed call has this in a frame of
        # its stack (and, with two faults, whose second has).
        self.frame = None

    # -- scenario set-up and reset

    def setup(self, sc):
        self.sc = sc
        with open("/etc/security/namespace.conf", "w") as f:
            f.write(sc["conf"])
        os.chmod("/etc/security/namespace.conf", 0o644)
        args = sc.get("args", "")
        with open("/etc/pam.d/ns-driver", "w") as f:
            f.write("account required pam_permit.so\nsession required %s %s\n"
                    % (self.module, args))
        init = "/etc/security/namespace.init"
        if sc.get("init"):
            with open(init, "w") as f:
                # It takes a while, so that the module always waits for it
                # the same way (a first waitpid too early, then poll).
                f.write("#!/bin/sh\nsleep 0.1\n: >\"$2/.init-ran\"\nexit 0\n")
            os.chmod(init, 0o755)
        elif os.path.exists(init):
            os.unlink(init)
        # One session first: what any session leaves for the next (the
        # pin directory's own mount) is there before calibration too.
        self.sc = dict(sc, held=False)
        self.reset()
        subprocess.run([self.driver, "ns-driver", USER, "--", "true"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.sc = sc
        self.reset()
        self.baseline = mounts()

    def release_held(self):
        if self.held:
            self.held.stdin.close()
            try:
                self.held.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.held.kill()
                self.held.wait()
            self.held = None

    def reset(self):
        """Back to the scenario's first state: nothing of any session left."""
        self.release_held()
        sandbox_intact()
        for uid in (UID, OTHER_UID):
            d = "%s/%d" % (PIN_DIR, uid)
            for n in listing(d) or []:
                p = os.path.join(d, n)
                if n.endswith(".ns"):
                    subprocess.run(["umount", "-l", p], stderr=subprocess.DEVNULL)
                if n != "lock":
                    os.unlink(p)
        # Whatever a violation left mounted here goes, newest first.
        now = mounts()
        for m in reversed(now[len(self.baseline):]):
            if m[0] != PIN_DIR:
                subprocess.run(["umount", "-l", m[0]], stderr=subprocess.DEVNULL)
        for p in ("/tmp/tmp-inst", "/var/tmp/tmp-inst", "/home/inst", "/home/made",
                  "/tmp/.X11-unix", "/home/alice/scratch", "/home/alice/.scratch-inst"):
            if os.path.lexists(p):
                shutil.rmtree(p)
        for d in ("/tmp", "/home/alice"):
            for n in listing(d):
                if n.startswith("ns-fault-probe"):
                    os.unlink(os.path.join(d, n))
        # A staged directory a violation left (--kill) must not count again.
        for d in ("/tmp", "/var/tmp", "/home", "/home/alice"):
            for n in listing(d) or []:
                if n.startswith(".pam_namespace-new."):
                    shutil.rmtree(os.path.join(d, n))
        os.mkdir("/tmp/tmp-inst", 0)
        os.chmod("/tmp/tmp-inst", 0)
        if self.sc.get("x11"):
            os.mkdir("/tmp/.X11-unix")
            os.chmod("/tmp/.X11-unix", 0o1777)
        if self.sc.get("held"):
            self.hold()

    def hold(self):
        """A session of the user held open: it builds and pins the namespace."""
        f = SB_OUT + "/held.ns"
        if os.path.exists(f):
            os.unlink(f)
        self.held = subprocess.Popen(
            [self.driver, "ns-driver", USER, "--", "/bin/sh", "-c",
             "readlink /proc/self/ns/mnt >%s.tmp && mv %s.tmp %s; read x" % (f, f, f)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(2000):
            if os.path.exists(f):
                break
            time.sleep(0.005)
        with open(f) as fh:
            self.held_ns = fh.read().strip()
        self.held_pins = pins()

    # -- one session, with or without faults

    def session_cmd(self):
        return ["/bin/sh", "-c", "{ readlink /proc/self/ns/mnt; pwd -P; cat /proc/self/mountinfo; } "
                ">%s/sess.txt" % SB_OUT]

    def run_session(self, strace_args):
        sess = SB_OUT + "/sess.txt"
        if os.path.exists(sess):
            os.unlink(sess)
        # Where the client is after its close, from a child it starts then
        # (--after-close): its mount namespace and working directory, which
        # is SB_OUT when the session starts.
        cmd = ["timeout", "-k", "5", str(TIMEOUT)] + strace_args + [
            self.driver, "--markers", "--show-ns", "--after-close",
            'echo "after_ns=$(readlink /proc/self/ns/mnt) after_cwd=$(pwd -P)"',
            "ns-driver", USER, "--"] + self.session_cmd()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=SB_OUT)
        out = p.stdout.decode(errors="replace")
        m = re.search(r"^mnt_ns=(.*)$", out, re.M)
        res = dict(rc=p.returncode, out=out, ns=m.group(1) if m else None)
        m = re.search(r"^after_ns=(\S*) after_cwd=(.*)$", out, re.M)
        if m:
            res["after_ns"], res["after_cwd"] = m.group(1), m.group(2)
        if os.path.exists(sess):
            with open(sess) as f:
                lines = f.read().splitlines()
            res["sess_ns"] = lines[0] if lines else None
            res["sess_cwd"] = lines[1] if len(lines) > 1 else None
            res["sess_mounts"] = [(ln.split()[4], ln.split()[3]) for ln in lines[2:]]
        return res

    # -- calibration

    def calibrate(self, inject=None):
        """The module's calls in open and close, from a traced session."""
        log = SB_OUT + "/calibrate.txt"
        args = ["strace", "-qq", "-k", "-o", log]
        if inject:
            args += inject
        res = self.run_session(args)
        seen, counts, phase = [], {}, None
        for line, stack in traced_calls(log):
            m = re.match(r"^([a-z0-9_]+)\(", line)
            if not m:
                continue
            name = m.group(1)
            counts[name] = counts.get(name, 0) + 1
            mk = re.match(r'^access\("/ns-fault-mark/(\w+)"', line)
            if mk:
                phase = {"open": "open", "close": "close"}.get(mk.group(1))
                continue
            if phase:
                mod = any(self.module_name in s for s in stack)
                lost = any("unexpected_backtracing_error" in s for s in stack)
                seen.append((dict(phase=phase, name=name, n=counts[name],
                                  frame=bool(self.frame) and any(self.frame in s for s in stack),
                                  injected="(INJECTED)" in line, text=line[:160]), mod, lost))
        return own_calls(seen), res

    def points(self):
        if self.sc.get("drop"):
            return self.drop_points()
        calls, res = self.calibrate()
        self.check_clean_run(res)
        pts = []
        for c in calls:
            if c["name"] in self.never:
                continue
            pts.append(dict(phase=c["phase"], faults=[(c["name"], c["n"])], text=c["text"],
                            frame=c["frame"]))
        return pts, set(c["name"] for c in calls)

    def double_points(self, singles):
        """Two faults: a first that sends the open onto its rollback, or the
        close onto an error path (a step of the undo, of the last close of a
        shared namespace, failing), then each call of that path in turn."""
        heavy = [p for p in singles if p["phase"] == "open" and p["faults"][0][0] in
                 ("move_mount", "mount", "fsmount", "clone", "clone3", "setns")]
        firsts = []
        if heavy:
            firsts.append(heavy[-1])
            if len(heavy) > 1 and heavy[0]["faults"] != heavy[-1]["faults"]:
                firsts.append(heavy[0])
        # In the close: the first and the last of each kind of step that
        # can fail it (unmounting, removing a record, an instance, the pin
        # or the state, listing the sessions, reading the state, entering
        # process 1's namespace and coming back).
        for name in CLOSE_FIRSTS:
            these = [p for p in singles if p["phase"] == "close" and p["faults"][0][0] == name]
            for p in these[:1] + these[-1:] if len(these) > 1 else these:
                firsts.append(p)
        out = []
        for f1 in firsts:
            self.reset()
            calls, res = self.calibrate(self.injections(f1["faults"]))
            after = False
            for c in calls:
                if c["injected"]:
                    after = True
                    continue
                if after and c["phase"] == f1["phase"] and c["name"] not in self.never and \
                        (c["frame"] or not self.frame):
                    out.append(dict(phase="rollback" if f1["phase"] == "open" else "close-fail",
                                    faults=f1["faults"] + [(c["name"], c["n"])], text=c["text"]))
        return out

    def check_clean_run(self, res):
        if res["rc"] != 0:
            raise SystemExit("calibration: the clean session failed (%d): %s"
                             % (res["rc"], res["out"]))

    # -- a point

    @staticmethod
    def injections(faults):
        """strace's -e inject= options for faults, a list of (call, occurrence)."""
        by = {}
        for name, n in faults:
            by.setdefault(name, []).append(n)
        args = []
        for name, ns in sorted(by.items()):
            ns = sorted(ns)
            when = str(ns[0]) if len(ns) == 1 else "%d..%d+%d" % (ns[0], ns[1], ns[1] - ns[0])
            args += ["-e", "inject=%s:error=%s:when=%s" % (name, ERRORS.get(name, "EIO"), when)]
        return args

    def inject_args(self, faults):
        names = sorted(set(n for n, _ in faults) | {"access"})
        return (["strace", "-qq", "-o", SB_OUT + "/point.txt", "-e", "trace=" + ",".join(names)]
                + self.injections(faults))

    def watched(self):
        snap = {}
        for d in ["/tmp", "/tmp/tmp-inst", "/var/tmp", "/home", "/home/alice"] + self.sc["parents"]:
            snap[d] = listing(d)
        return snap

    def run_point(self, pt):
        v = []
        self.reset()
        before = self.watched()
        pins_before = pins()
        mounts_before = mounts()
        size = log_size()
        res = self.run_session(self.inject_args(pt["faults"]))
        sandbox_intact()
        # The injections happened where calibration said, inside the module's part.
        with open(SB_OUT + "/point.txt") as f:
            trace = f.read()
        if not injected_inside(trace, len(pt["faults"])):
            return dict(pt, outcome="drift",
                        violations=["the fault was not injected where calibration found the call"])
        rc = res["rc"]
        double = len(pt["faults"]) > 1
        logged = log_since(size)
        if rc in (124, 137) or rc >= 128 or rc < 0:
            v.append("the client crashed or hung (status %d)" % rc)
            outcome = "crash"
        elif rc == 67:
            outcome = "refused"
            if res["ns"] != self.caller_ns:
                if not (double and any("could not return" in ln for ln in logged)):
                    v.append("a refused open left the client in another mount namespace")
            after = self.watched()
            for d, names in after.items():
                new = sorted(set(names or []) - set(before.get(d) or []))
                for n in new:
                    p = os.path.join(d, n)
                    if p in self.sc["parents"] and self.parent_ok(p):
                        continue
                    if double and said(p, logged):
                        continue
                    v.append("a refused open left %s" % p)
            for m in mounts():
                if m not in mounts_before and not (double and said(m[0], logged)):
                    v.append("a refused open left a mount on %s in the caller's namespace"
                             % m[0])
            for k in sorted(set(pins()) - set(pins_before)):
                if not (double and said("%s/%d/%s" % (PIN_DIR, UID, k), logged)):
                    v.append("a refused open left %s" % k)
        elif rc in (0, 68):
            outcome = "opened" if rc == 0 else "close failed"
            sm = res.get("sess_mounts")
            if sm is None:
                v.append("the session's command did not run")
            else:
                base = mounts()
                for p in self.sc["polydirs"]:
                    if sum(1 for m in sm if m[0] == p) <= count_at(base, p):
                        v.append("an open that succeeded left %s unmounted" % p)
                if res.get("sess_ns") == self.caller_ns:
                    v.append("an open that succeeded left the session in the caller's namespace")
            v += self.check_closed(pt, res, before, pins_before, logged)
        else:
            outcome = "status %d" % rc
            v.append("unexpected client status %d: %s"
                     % (rc, " | ".join(res["out"].strip().splitlines())[-300:]))
        for ln in logged:
            if re.search(r"\S : ", ln):
                v.append("a log line has a blank before its colon: " + ln[-160:])
        v += self.check_after(pt)
        return dict(pt, outcome=outcome, violations=v,
                    log=logged[-3:] if v else [])

    # -- a point, killed there (--kill)

    def kill_args(self, faults):
        """strace's options that kill the client with SIGKILL at the point's
        call, before the call is made: a kill right after a call is the same
        as one at the call after it, so every state a crash can leave is
        reached."""
        (name, n), = faults
        return ["strace", "-qq", "-o", SB_OUT + "/point.txt", "-e",
                "trace=" + ",".join(sorted({name, "access"})),
                "-e", "inject=%s:signal=KILL:when=%d" % (name, n)]

    def run_kill_point(self, pt):
        if self.sc.get("drop"):
            return self.run_drop_kill_point(pt)
        return self.run_session_kill_point(pt)

    def run_session_kill_point(self, pt):
        """The client killed at one call of its open or close; then every
        later login must open private, nothing may stay mounted in the
        caller's namespace, and what the killed session left must be gone
        once the next steps that own it have run (a later session of the
        user, the helper at boot)."""
        v = []
        self.reset()
        before = self.watched()
        mounts_before = mounts()
        res = self.run_session(self.kill_args(pt["faults"]))
        sandbox_intact()
        with open(SB_OUT + "/point.txt") as f:
            trace = f.read()
        if not killed_inside(trace):
            return dict(pt, outcome="drift",
                        violations=["the client was not killed where calibration found the call"])
        if res["rc"] not in (137, -9):
            v.append("the client was not killed (status %d)" % res["rc"])
        time.sleep(0.05)  # the killed client's namespace goes with its last descriptor
        # A pin (share_namespace) is a mount in the caller's namespace by
        # design; one whose sessions are gone must be dropped by the next
        # open, so it is checked after those below.
        for m in mounts():
            if m not in mounts_before and not m[0].startswith(PIN_DIR + "/"):
                v.append("the killed session left a mount on %s in the caller's namespace" % m[0])
        v += pin_dir_private()
        v += self.check_after(pt)
        v += self.check_other_user()
        v += self.check_leftovers(before)
        for m in mounts():
            if m not in mounts_before:
                v.append("after the next sessions, a mount of the killed one is left on %s"
                         % m[0])
        return dict(pt, outcome="killed", violations=v, log=[])

    def check_other_user(self):
        """Another user's clean session after the kill: private, hers to
        write, and nothing of it pinned after its close."""
        v = []
        poly = self.sc["polydirs"][0]
        # A polydir in alice's home is hers: bob's session only has to open.
        mine = not poly.startswith("/home/%s/" % USER)
        probe = poly + "/ns-fault-probe-bob"
        cmd = ["timeout", "-k", "5", str(TIMEOUT), self.driver, "ns-driver", OTHER, "--",
               "setpriv", "--reuid=%d" % OTHER_UID, "--regid=%d" % OTHER_UID, "--clear-groups",
               "/bin/sh", "-c", "readlink /proc/self/ns/mnt" +
               ("; echo x >%s && echo wrote" % probe if mine else "")]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        if p.returncode != 0:
            v.append("%s's next session failed (%d): %s"
                     % (OTHER, p.returncode, " | ".join(out.strip().splitlines())[-200:]))
        else:
            if (out.splitlines() or [""])[0] == self.caller_ns:
                v.append("%s's next session is not private" % OTHER)
            if mine and "wrote" not in out:
                v.append("%s's next session cannot write its %s" % (OTHER, self.sc["polydirs"][0]))
            if os.path.exists(probe):
                v.append("%s's next session wrote into the caller's %s"
                         % (OTHER, self.sc["polydirs"][0]))
        left = pins(OTHER_UID)
        if left:
            v.append("%s's pins after the close: %s" % (OTHER, ", ".join(sorted(left))))
        return v

    def check_leftovers(self, before):
        """What no later step would remove: after the next sessions and the
        helper (run at boot), no tmpdir instance of the killed session is
        left."""
        v = []
        helper = os.environ.get("NS_HELPER")
        if self.sc.get("tmpdirs") and helper:
            # At once (--tmpdir-age 0): nothing is being made here now.
            p = subprocess.run(["timeout", "-k", "5", str(TIMEOUT), helper, "--tmpdir-age", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                v.append("the helper failed (%d): %s" % (p.returncode,
                                                         p.stdout.decode(errors="replace")[-200:]))
        for d in self.sc.get("tmpdirs", []):
            for n in sorted(set(listing(d) or []) - set(before.get(d) or [])):
                v.append("%s/%s is left, and neither the next session nor the helper removes it"
                         % (d, n))
        # A directory being made is staged under a name of its own until it
        # is finished; a kill leaves that, which the helper removes.
        if helper:
            subprocess.run(["timeout", "-k", "5", str(TIMEOUT), helper, "--tmpdir-age", "0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for d, names in self.watched().items():
            for n in names or []:
                if n.startswith(".pam_namespace-new."):
                    v.append("%s/%s, a staged directory, is left after the helper ran" % (d, n))
        return v

    def check_closed(self, pt, res, before, pins_before, logged):
        """After the close: the client where the session left it, and nothing
        the close removes (a tmpdir instance; with share_namespace, this
        session's record and, when it was the last, the pin and state) left
        unless a log line names it."""
        v = []
        if "after_ns" not in res:
            return ["the client's command after the close did not run"]
        if res["after_ns"] != res["ns"]:
            v.append("the close moved the client to another mount namespace (%s)"
                     % ("the caller's" if res["after_ns"] == self.caller_ns else res["after_ns"]))
        if res["after_cwd"] != res.get("sess_cwd"):
            v.append("the close moved the client's working directory from %s to %s"
                     % (res.get("sess_cwd"), res["after_cwd"]))
        # A shared namespace's close that failed before it read the state
        # does not know the instances: it says the next open drops them.
        later = self.sc.get("share") and any("left to the next open" in ln for ln in logged)
        # A fault in syslog's own calls loses the line that would say it.
        mute = any(f[0] in LOG_CALLS for f in pt["faults"])
        for d in self.sc.get("tmpdirs", []):
            for n in sorted(set(listing(d) or []) - set(before.get(d) or [])):
                p = os.path.join(d, n)
                if not (said(p, logged) or later or mute):
                    v.append("the close left %s, and no log line says so" % p)
        if self.sc.get("share"):
            for k in sorted(set(pins()) - set(pins_before)):
                if not (said("%s/%d/%s" % (PIN_DIR, UID, k), logged) or mute):
                    v.append("the close left %s/%d/%s, and no log line says so" % (PIN_DIR, UID, k))
        return v

    def parent_ok(self, p):
        st = os.lstat(p)
        return st.st_uid == 0 and (st.st_mode & 0o7777) == 0 and not os.listdir(p)

    def check_after(self, pt, records_later=False):
        """The next clean session, and the held one. records_later: a record
        of a session gone may stay after its close (a later --drop removes
        it); a pin or state may not."""
        v = []
        probe = self.sc["polydirs"][0] + "/ns-fault-probe"
        cmd = ["timeout", "-k", "5", str(TIMEOUT), self.driver, "ns-driver", USER, "--",
               "setpriv", "--reuid=%d" % UID, "--regid=%d" % UID, "--clear-groups", "/bin/sh",
               "-c", "readlink /proc/self/ns/mnt; echo x >%s && echo wrote" % probe]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        if p.returncode != 0:
            v.append("the next clean session failed (%d): %s"
                     % (p.returncode, " | ".join(out.strip().splitlines())[-200:]))
        else:
            ns = out.splitlines()[0] if out else ""
            if ns == self.caller_ns:
                v.append("the next clean session is not private")
            if "wrote" not in out:
                v.append("the next clean session cannot write its %s as the user"
                         % self.sc["polydirs"][0])
            if os.path.exists(probe):
                v.append("the next clean session wrote into the caller's %s"
                         % self.sc["polydirs"][0])
            if self.held and ns != self.held_ns:
                v.append("the next clean session did not join the held session's namespace")
        if self.held:
            now = pins()
            for k, ino in self.held_pins.items():
                if now.get(k) != ino:
                    v.append("the held session's %s is %s" % (
                        k, "gone" if k not in now else "another"))
            if self.held.poll() is not None:
                v.append("the held session ended")
            self.release_held()
        left = [k for k in pins() if not records_later or k.endswith((".ns", ".state"))]
        if left:
            v.append("stale after the last close: %s" % ", ".join(sorted(left)))
        return v

    # -- pam_namespace_check --drop, killed at each of its calls (share_drop)

    def make_stale(self):
        """What --drop is there for: sessions of the user whose close never
        ran, as when systemd kills a user manager's "(sd-pam)" at its stop
        timeout and then runs user@.service's ExecStopPost. Two sessions
        share one namespace (the second joins the first's while it is
        open), each writes into its tmpdir instance as the user (a file,
        a directory with a file in it), then kills its client before the
        close. Left: the pin, mounted here, the state, two records of
        processes gone and the tmpdir instance with the user's files:
        every step of --drop has something to do. Returns what is wrong
        with what was made, an empty list if nothing."""
        procs, v = [], []
        for i in (0, 1):
            ready = "%s/stale%d" % (SB_OUT, i)
            if os.path.exists(ready):
                os.unlink(ready)
            # The client is the session command's parent; root's shell
            # kills it once the test closes its input.
            script = ("setpriv --reuid=%d --regid=%d --clear-groups /bin/sh -c "
                      "'echo x >/var/tmp/f%d && mkdir -p /var/tmp/d && echo y >/var/tmp/d/g%d' "
                      "&& : >%s; read x; kill -KILL $PPID" % (UID, UID, i, i, ready))
            procs.append(subprocess.Popen(
                ["timeout", "-k", "5", str(TIMEOUT), self.driver, "ns-driver", USER, "--",
                 "/bin/sh", "-c", script],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            for _ in range(TIMEOUT * 200):
                if os.path.exists(ready) or procs[-1].poll() is not None:
                    break
                time.sleep(0.005)
            if not os.path.exists(ready):
                v.append("stale session %d did not open and write its /var/tmp" % i)
        for p in procs:
            p.stdin.close()
        for i, p in enumerate(procs):
            try:
                rc = p.wait(TIMEOUT + 10)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
            if rc not in (137, -9):  # timeout(1) dies of its child's signal
                v.append("stale session %d's client was not killed (status %d)" % (i, rc))
        left = pins()
        if (sum(1 for k in left if k.endswith(".ns")) != 1 or
                sum(1 for k in left if k.endswith(".state")) != 1 or
                sum(1 for k in left if "@" in k) != 2):
            v.append("the stale sessions left %s, not one pin, one state and two records"
                     % (", ".join(sorted(left)) or "nothing"))
        inst = listing("/var/tmp/tmp-inst") or []
        if len(inst) != 1:
            v.append("the stale sessions left %d tmpdir instances, not one" % len(inst))
        self.stale_instance = inst[0] if inst else None
        return v

    def drop_cmd(self):
        return [self.tool, "--drop", USER]

    def drop_points(self):
        """Calibration of share_drop: --drop run once under strace -f -k on
        what make_stale left. The tool is a process of its own, so all it
        calls is its own; but before its main() the dynamic loader maps
        libraries and libselinux's constructor probes for selinuxfs, none
        of which touches anything outside the process, so a kill there
        leaves exactly what a --drop never started leaves. The points are
        therefore, as for the module, the calls whose stack has a frame in
        the tool's binary (from main() to exit; a call strace could not
        unwind counts when the next one is the tool's), each occurrence
        numbered within the process as strace's when=N counts it. A clean
        --drop must remove all make_stale left, and fork nothing: a child's
        calls are counted apart by when=N, and would not be the points
        numbered here."""
        self.reset()
        bad = self.make_stale()
        if bad:
            raise SystemExit("calibration of share_drop: " + "; ".join(bad))
        log = SB_OUT + "/calibrate.txt"
        p = subprocess.run(["timeout", "-k", "5", str(TIMEOUT), "strace", "-qq", "-f", "-k",
                            "-o", log] + self.drop_cmd(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        left = sorted(pins()) + ["/var/tmp/tmp-inst/" + n
                                 for n in listing("/var/tmp/tmp-inst") or []]
        if p.returncode != 0 or left:
            raise SystemExit("calibration of share_drop: the clean --drop ended in %d and left "
                             "%s: %s" % (p.returncode, ", ".join(left) or "nothing", out))
        seen, counts, pids = [], {}, []
        for line, stack in traced_calls(log):
            m = re.match(r"^(\d+)\s+([a-z0-9_]+)\(", line)
            if not m:
                continue
            if m.group(1) not in pids:
                pids.append(m.group(1))
            name = m.group(2)
            counts[name] = counts.get(name, 0) + 1
            mine = any(self.tool_name in s for s in stack)
            lost = any("unexpected_backtracing_error" in s for s in stack)
            seen.append((dict(phase="drop", name=name, n=counts[name],
                              frame=bool(self.frame) and any(self.frame in s for s in stack),
                              text=re.sub(r"^\d+\s+", "", line).replace(
                                  self.stale_instance, "INSTANCE")), mine, lost))
        if len(pids) != 1:
            raise SystemExit("calibration of share_drop: --drop ran in %d processes (%s); "
                             "the points count one" % (len(pids), " ".join(pids)))
        calls = own_calls(seen)
        self.reset()
        pts = [dict(phase="drop", faults=[(c["name"], c["n"])], text=c["text"], frame=c["frame"])
               for c in calls if c["name"] not in self.never]
        return pts, set(c["name"] for c in calls)

    def run_drop_kill_point(self, pt):
        """--drop killed at one of its calls, twice. First as user@.service
        has it: the next sessions of alice and bob, then their manager's
        ExecStopPost, a second --drop. After the kill, as after a killed
        session: nothing new mounted in the caller's namespace, the pin
        directory private, the next sessions private, theirs to write, no
        pin or state after their close (an open drops a pin whose sessions
        are gone). Then with no session in between: a second --drop alone
        (run again by hand, or the user never logs in again) must finish
        what the killed one left. Each time, once the helper (at boot) has
        run too, nothing of the stale sessions may be left: no pin, state
        or record, no tmpdir instance, no staged directory, no mount."""
        v = []
        for then in ("sessions", "drop"):
            r = self.drop_killed_once(pt, then == "sessions")
            if r["outcome"] != "killed":
                return r
            v += ["then %s: %s" % ("the sessions, --drop" if then == "sessions"
                                   else "--drop alone", x) for x in r["violations"]]
        return dict(pt, outcome="killed", violations=v, log=[])

    def drop_killed_once(self, pt, sessions):
        """One kill of --drop at pt, then the next sessions (if sessions)
        and a second --drop."""
        v = []
        self.reset()
        before = self.watched()
        mounts_clean = mounts()
        bad = self.make_stale()
        if bad:
            return dict(pt, outcome="setup", violations=bad, log=[])
        mounts_before = mounts()
        (name, n), = pt["faults"]
        p = subprocess.run(["timeout", "-k", "5", str(TIMEOUT), "strace", "-qq", "-f", "-o",
                            SB_OUT + "/point.txt", "-e", "trace=" + name,
                            "-e", "inject=%s:signal=KILL:when=%d" % (name, n)] + self.drop_cmd(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        sandbox_intact()
        with open(SB_OUT + "/point.txt") as f:
            trace = f.read()
        if not killed_at(trace, name, n, pt["text"], self.stale_instance):
            return dict(pt, outcome="drift",
                        violations=["--drop was not killed where calibration found the call"],
                        log=trace.splitlines()[-3:])
        if p.returncode not in (137, -9):
            v.append("--drop was not killed (status %d)" % p.returncode)
        for m in mounts():
            if m not in mounts_before:
                v.append("the killed --drop left a mount on %s in the caller's namespace" % m[0])
        v += pin_dir_private()
        if sessions:
            v += self.check_after(pt, records_later=True)
            v += self.check_other_user()
        again = subprocess.run(["timeout", "-k", "5", str(TIMEOUT)] + self.drop_cmd(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if again.returncode != 0:
            v.append("a second --drop failed (%d): %s" % (
                again.returncode, " | ".join(again.stdout.decode(errors="replace")
                                             .strip().splitlines())[-200:]))
        v += self.check_leftovers(before)
        left = sorted(pins())
        if left:
            v.append("%s/%d/{%s} left after the later steps and the helper"
                     % (PIN_DIR, UID, ",".join(left)))
        for m in mounts():
            if m not in mounts_clean:
                v.append("a mount on %s left after the later steps" % m[0])
        return dict(pt, outcome="killed", violations=v, log=[])
