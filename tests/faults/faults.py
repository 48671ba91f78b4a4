#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
"""Fault injection: every system call the module makes while a session
opens and closes, made to fail one at a time with an error it can really
return, and the outcome checked from outside.

Outside a sandbox (the default) this starts --jobs workers, each a
sandbox of its own (tests/lib/sandbox.sh) pinned to one CPU, hands each
every --jobs-th point, and prints the figures: points tried, system calls
covered, violations. Exit status 1 on any violation (0 with --report-only,
for another module such as Linux-PAM's), 77 when it cannot run here.

A worker (--worker I/N, inside its sandbox) does, for each scenario:
  calibrate  one clean session under strace -k, with pam_driver's markers
             around pam_open_session and pam_close_session: the calls
             between them whose stack has a frame in the module are its
             points (each occurrence of each system call, numbered within
             the process, as strace's inject=...:when=N counts them);
  run        each point: strace makes that one call fail; then the
             invariants below are checked;
  double     two faults: the first sends the open onto its rollback
             path, the second fails each call of that rollback in turn;
             and a first that fails a step of the close (an unmount, the
             removal of a record, an instance, the pin or the state, the
             listing of the sessions, the reading of the state, the walk
             to an instance), the second each later call of the close.

Invariants, after each point:
  - the client ends by itself (no crash, no hang);
  - a refused open left it in the caller's mount namespace, and left no
    instance, polydir, mount, pin, state or record of the attempt's (an
    instance parent it made, root's, mode 000 and empty, may stay);
  - an open that succeeded had every polydir mounted over;
  - after the close, the client is in the namespace and working directory
    the open left it in (a child it starts then says so, --after-close);
    and a tmpdir instance, this session's record and, after the last
    close, the pin and state are gone, or a log line names them (or, for
    a shared namespace's close that failed before reading its state, says
    the next open drops them); a fault in syslog's own calls loses that
    line, and is let off it;
  - the next clean session of the user opens in a private namespace, can
    write its first polydir as the user, and after its close leaves no pin, state
    or record (share_namespace);
  - a held shared session keeps its pin, its namespace and its record;
  - no log line of the module has a blank before its colon.
With two faults, a rollback step that failed may leave the client in
another namespace or an instance behind only if a log line says so.

With --kill, the client is killed by SIGKILL at each point instead (single
points only), as a crash or the OOM killer would, and after each:
  - nothing the killed session did stays mounted in the caller's
    namespace, and share_namespace's own mount is private;
  - the next clean sessions of the user and of another user open in
    private namespaces they can write, and leave no pin or state after
    their close (a stale one is repaired by the next open);
  - no tmpdir instance of the killed session is left once those sessions
    and the helper (NS_HELPER, run at boot) have run.
With --kill, scenario share_drop kills pam_namespace_check --drop (NS_CHECK,
user@.service's ExecStopPost) instead, at each of its own calls: those
whose stack has a frame in the tool's binary, from its main() to its exit
(the dynamic loader's and libselinux's constructor's calls before main()
touch nothing outside the process: a kill there leaves what a --drop that
never ran leaves). What it drops is what two sessions sharing a namespace
leave when their client is killed before the close: the pin, the state,
two records of processes gone and a tmpdir instance holding the user's
files. After each kill, the checks above, with a second --drop (their
manager's ExecStopPost) after those next sessions; and, in a second run of
the point, a second --drop alone, with no session in between. Each time,
once the helper has run too, nothing of the stale sessions may be left:
no pin, state or record, tmpdir instance, staged directory or mount.

In the selinux suite's VM (tests/vm/test_selinux_faults.sh) one worker
runs the context and level scenarios, and --summarize sums its lines up.

NS_MODULE names the module, NS_DRIVER pam_driver. A module that is not
this build's pam_namespace/module/pam_namespace.so gets only the lines that
Linux-PAM's accepts, unless NS_FAULTS_OURS=1 says it is this module.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_worker import ERRORS, ALLOCATOR, Worker, scenarios, mnt_ns, selinux_enabled  # noqa: E402


def worker_main(a):
    ours = a.ours
    w = Worker(ours)
    w.frame = a.frame
    idx, n = map(int, a.worker.split("/"))
    if a.frame and idx == 0:
        print("NOTE " + json.dumps("only the points whose failed call has %s in its stack; the "
                                   "others are listed as never failed" % a.frame), flush=True)
    k = 0
    selects = [x.split(":", 1) for x in a.select or []]
    for sc in scenarios(not ours):
        if a.scenario and sc["name"] not in a.scenario:
            continue
        if selects and sc["name"] not in [x[0] for x in selects]:
            continue
        if sc.get("drop") and not a.kill:
            continue
        if sc.get("share") and mnt_ns("1") != mnt_ns():
            # Without a PID namespace of its own the sandbox is not where
            # process 1 is, and share_namespace pins only from there.
            print("NOT_RUN " + json.dumps(dict(
                scenario=sc["name"], why="the sandbox has no PID namespace of its own, and "
                "share_namespace pins only from process 1's mount namespace")), flush=True)
            continue
        w.setup(sc)
        singles, names = w.points()
        doubles = w.double_points(singles) if not (a.no_double or a.kill) else []
        if a.frame:
            singles = [p for p in singles if p["frame"]]
        print("CALIBRATED " + json.dumps(dict(
            scenario=sc["name"], points=len(singles),
            doubles=sum(1 for p in doubles if p["phase"] == "rollback"),
            close_doubles=sum(1 for p in doubles if p["phase"] == "close-fail"),
            calls=sorted(names), injected=sorted(set(p["faults"][0][0] for p in singles)))),
            flush=True)
        for pt in singles + doubles:
            k += 1
            if (k - 1) % n != idx:
                continue
            if a.only and not any(o in json.dumps(pt["faults"]) + pt["phase"] for o in a.only):
                continue
            if selects and not any(x[0] == sc["name"] and x[1] in [f[0] for f in pt["faults"]]
                                   for x in selects):
                continue
            r = w.run_kill_point(pt) if a.kill else w.run_point(pt)
            r["scenario"] = sc["name"]
            print("RESULT " + json.dumps(r), flush=True)
        w.reset()
        w.release_held()


# ------------------------------------------------------------------ the parent

def fmt_point(r):
    f = " then ".join("%s #%d %s" % (nm, n, "SIGKILL" if r["outcome"] == "killed"
                                     else ERRORS.get(nm, "EIO")) for nm, n in r["faults"])
    return "%s %s: %s" % (r["scenario"], r["phase"], f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--ours", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--scenario", action="append", help="only these scenarios")
    ap.add_argument("--only", action="append", help="only points whose faults mention this")
    ap.add_argument("--select", action="append", metavar="SCENARIO:CALL",
                    help="only the points of SCENARIO whose faults include the system call CALL")
    ap.add_argument("--min-points", type=int, default=1, metavar="N",
                    help="fail when a scenario that ran, or a --select, tried fewer than N "
                         "points (default 1: a run of zero points proves nothing)")
    ap.add_argument("--no-double", action="store_true",
                    default=os.environ.get("NS_FAULTS_NO_DOUBLE") == "1",
                    help="single faults only (also NS_FAULTS_NO_DOUBLE=1: the sanitizer "
                         "run, tests/meson.build)")
    ap.add_argument("--kill", action="store_true",
                    help="kill the client with SIGKILL at each point instead of failing the call")
    ap.add_argument("--frame", metavar="TEXT",
                    help="only points whose failed call (the second, of two) has TEXT in a "
                         "frame of its stack (the VM: libselinux)")
    ap.add_argument("--report-only", action="store_true",
                    help="print the figures, exit 0 whatever they are")
    ap.add_argument("--results", help="every point's result into this file, as JSON lines")
    ap.add_argument("--show", type=int, default=40, help="violations printed in full")
    ap.add_argument("--summarize", metavar="FILE",
                    help="the figures of a worker's output in FILE (run in the VM)")
    a = ap.parse_args()
    if a.worker:
        return worker_main(a)
    if a.summarize:
        return summarize(a)
    unknown = unknown_names(a)
    if unknown:
        print("ERROR: no such scenario: %s (there are: %s)"
              % (" ".join(unknown), " ".join(all_scenario_names())))
        return 1
    kill_only = sorted(set(n for n in kill_only_names() if n in (a.scenario or []) or
                           n in [x.split(":", 1)[0] for x in a.select or []]))
    if kill_only and not a.kill:
        print("ERROR: scenario %s runs only with --kill" % " ".join(kill_only))
        return 1

    if os.geteuid() != 0:
        print("SKIP: needs root")
        return 77
    if os.environ.get("NS_ASAN_RT"):
        # Under the sanitizers (meson test --setup sanitizers): ASan's
        # allocator maps its memory itself, from inside the module's frames,
        # and aborts by design when that fails, so memory calls are not
        # failed; LeakSanitizer cannot run under ptrace, so leaks are left
        # to the other suites. Every other point runs, with ASan and UBSan
        # watching the error paths.
        os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        print("PARTIAL allocator: under the sanitizers the memory calls (%s) are not failed, "
              "and leaks not looked for" % " ".join(sorted(ALLOCATOR)))
    if a.no_double and not a.kill and not a.select:
        print("PARTIAL double: single faults only (--no-double or NS_FAULTS_NO_DOUBLE=1), "
              "no second fault in a rollback or a close")
    if os.environ.get("NS_DRIVER_VALGRIND"):
        print("SKIP: not under valgrind (the driver would run inside it, and the trace be "
              "valgrind's)")
        return 77
    if not shutil.which("strace"):
        print("SKIP: strace is not installed")
        return 77
    probe = subprocess.run(["strace", "-qq", "-k", "-e", "trace=getpid", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if probe.returncode != 0:
        print("SKIP: strace cannot trace or show stacks here: %s" % probe.stderr.decode())
        return 77
    module = os.environ.get("NS_MODULE", "")
    ours = "pam_namespace/module/pam_namespace.so" in module or os.environ.get("NS_FAULTS_OURS")
    drops = [n for n in kill_only_names() if a.kill and ours and wanted(a, n)]
    if drops and not os.environ.get("NS_CHECK"):
        print("ERROR: scenario %s needs NS_CHECK, the pam_namespace_check to kill (or leave "
              "it out with --scenario)" % " ".join(drops))
        return 1
    a.ours_module = bool(ours)
    print("# module: %s" % module)
    not_run = {}
    if not selinux_enabled():
        for sc in ("context", "level"):
            not_run[sc] = ("SELinux is not enabled on this host (the selinux suite's VM runs "
                           "them: selinux_faults)")
    here = os.path.dirname(os.path.abspath(__file__))
    sandbox = os.path.join(os.environ.get("NS_SOURCE_ROOT", os.path.join(here, "..", "..")),
                           "tests", "lib", "sandbox.sh")
    ncpu = len(os.sched_getaffinity(0))
    cpus = sorted(os.sched_getaffinity(0))
    procs = []
    start = time.time()
    for i in range(a.jobs):
        cmd = ["taskset", "-c", str(cpus[i % ncpu]), "bash", sandbox, "python3",
               os.path.abspath(__file__), "--worker", "%d/%d" % (i, a.jobs)]
        if ours:
            cmd.append("--ours")
        for s in a.scenario or []:
            cmd += ["--scenario", s]
        for o in a.only or []:
            cmd += ["--only", o]
        for o in a.select or []:
            cmd += ["--select", o]
        if a.no_double:
            cmd.append("--no-double")
        if a.kill:
            cmd.append("--kill")
        if a.frame:
            cmd += ["--frame", a.frame]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    results, calib, errors = [], {}, []
    for i, p in enumerate(procs):
        out, err = p.communicate()
        if parse_worker(i, out.decode(errors="replace"), results, calib, errors, not_run):
            return 77
        if p.returncode != 0:
            errors.append("worker %d exited with %d: %s" % (i, p.returncode,
                                                             err.decode(errors="replace")[-2000:]))
    errors += too_few(a, results, calib, not_run)
    return report(a, results, calib, errors, start, not_run)


def kill_only_names():
    """The scenarios only --kill runs (share_drop: what is checked after a
    failed call of the module does not apply to a tool)."""
    return [sc["name"] for sc in scenarios(False) if sc.get("drop")]


def all_scenario_names():
    """Every scenario's name, whether or not it can run here."""
    names = [sc["name"] for sc in scenarios(False)]
    return names + [n for n in ("context", "level") if n not in names]


def unknown_names(a):
    """The names given to --scenario and --select that name no scenario."""
    named = (a.scenario or []) + [x.split(":", 1)[0] for x in a.select or []]
    return sorted(set(n for n in named if n not in all_scenario_names()))


def wanted(a, name):
    """Whether the scenario name is one this run was asked for."""
    if a.select:
        return name in [x.split(":", 1)[0] for x in a.select]
    return not a.scenario or name in a.scenario


def too_few(a, results, calib, not_run):
    """A minimum for every sampler: each --select SCENARIO:CALL, or else each
    scenario that ran, tried at least --min-points points, and each scenario
    asked for ran or said why not. A renamed system call (fchown becoming
    fchownat) or a lost scenario fails here instead of testing nothing."""
    errors = []
    if a.select:
        for sel in a.select:
            scen, call = (sel.split(":", 1) + [""])[:2]
            if scen in not_run:
                continue
            n = sum(1 for r in results if r["scenario"] == scen and call in
                    [f[0] for f in r["faults"]])
            if n < a.min_points:
                errors.append("--select %s tried %d points, fewer than %d: the scenario makes "
                              "no such call between the markers (calls it makes: %s)"
                              % (sel, n, a.min_points,
                                 " ".join(calib.get(scen, {}).get("calls", [])) or "none"))
        return errors
    if a.only:
        if len(results) < a.min_points:
            errors.append("--only matched %d points, fewer than %d" % (len(results), a.min_points))
        return errors
    for name in all_scenario_names():
        if not wanted(a, name) or name in not_run or (name in kill_only_names() and not a.kill):
            continue
        n = sum(1 for r in results if r["scenario"] == name)
        if name not in calib:
            if name in [sc["name"] for sc in scenarios(not a.ours_module)]:
                errors.append("scenario %s did not run, and no worker said why" % name)
            elif a.scenario or a.select:
                errors.append("scenario %s is not run for this module" % name)
        elif n < a.min_points:
            errors.append("scenario %s tried %d points, fewer than %d" % (name, n, a.min_points))
    return errors


def parse_worker(i, text, results, calib, errors, not_run):
    """A worker's lines into results, calib, errors and not_run; True if it
    skipped."""
    for line in text.splitlines():
        if line.startswith("RESULT "):
            results.append(json.loads(line[7:]))
        elif line.startswith("CALIBRATED "):
            c = json.loads(line[11:])
            calib[c["scenario"]] = c
        elif line.startswith("NOTE ") and i == 0:
            print("# " + json.loads(line[5:]))
        elif line.startswith("NOT_RUN "):
            n = json.loads(line[8:])
            not_run[n["scenario"]] = n["why"]
        elif line.startswith("BROKEN "):
            errors.append("worker %d stopped: %s" % (i, json.loads(line[7:])))
        elif line.startswith("SKIP"):
            print(line)
            return True
    return False


def summarize(a):
    """--summarize FILE: the figures of workers run elsewhere (the VM), from
    their lines, after "WORKERS N" and up to each one's "EXIT STATUS"."""
    with open(a.summarize, errors="replace") as f:
        text = f.read()
    results, calib, errors, not_run = [], {}, [], {}
    if parse_worker(0, text, results, calib, errors, not_run):
        return 77
    lines = text.splitlines()
    workers = [int(ln.split()[1]) for ln in lines if ln.startswith("WORKERS ")]
    exits = [ln.split()[1] for ln in lines if ln.startswith("EXIT ")]
    if not calib:
        errors.append("no worker calibrated a scenario; what they printed:\n" + text[-3000:])
    if not workers or len(exits) != workers[0]:
        errors.append("%d of %s workers ended (the guest's step timed out?)"
                      % (len(exits), workers[0] if workers else "?"))
    elif any(x != "0" for x in exits):
        errors.append("a worker's exit status: %s" % " ".join(exits))
    other = [ln for ln in lines if ln.strip() and not ln.startswith(
        ("RESULT ", "CALIBRATED ", "NOTE ", "NOT_RUN ", "WORKERS ", "EXIT "))]
    if other:
        errors.append("the workers printed:\n" + "\n".join(other[-40:]))
    for name in calib:
        n = sum(1 for r in results if r["scenario"] == name)
        if n < a.min_points:
            errors.append("scenario %s tried %d points, fewer than %d" % (name, n, a.min_points))
    return report(a, results, calib, errors, None, not_run)


def report(a, results, calib, errors, start, not_run):
    for e in errors:
        print("ERROR: " + e)
    # What did not run, for tests/run's table (tests/expected-skips).
    for name in sorted(not_run):
        if wanted(a, name):
            print("PARTIAL %s: scenario %s not run: %s" % (name, name, not_run[name]))
    bad = [r for r in results if r["violations"]]
    if a.results:
        with open(a.results, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    names, injected = set(), set()
    for c in calib.values():
        names |= set(c["calls"])
        injected |= set(c["injected"])
    print("# %-12s %6s %8s %8s %8s %8s %10s" % ("scenario", "calls", "covered", "points",
                                                  "rollback", "close2", "violations"))
    for s, c in calib.items():
        rs = [r for r in results if r["scenario"] == s]
        print("# %-12s %6d %8d %8d %8d %8d %10d"
              % (s, len(c["calls"]), len(c["injected"]), c["points"], c["doubles"],
                 c.get("close_doubles", 0), sum(1 for r in rs if r["violations"])))
    outcomes = {}
    for r in results:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    print("# outcomes: " + ", ".join("%s %d" % kv for kv in sorted(outcomes.items())))
    for r in bad[:a.show]:
        print("VIOLATION %s: %s" % (fmt_point(r), "; ".join(r["violations"])))
        for ln in r.get("log", []):
            print("    log: " + ln[-200:])
    if len(bad) > a.show:
        print("# ... and %d more" % (len(bad) - a.show))
    print("# system calls made (%d): %s" % (len(names), " ".join(sorted(names))))
    print("# never failed on purpose (cannot fail, or not as an injection would): %s"
          % " ".join(sorted(names - injected)))
    print("faults: %d points tried (%d single, %d double), %d system calls covered, "
          "%d violations%s"
          % (len(results), sum(1 for r in results if len(r["faults"]) == 1),
             sum(1 for r in results if len(r["faults"]) > 1), len(injected), len(bad),
             ", %.0f s" % (time.time() - start) if start else ""))
    if not a.report_only:
        print("%d passed, %d failed" % (len(results) - len(bad), len(bad)))
    if errors:
        return 1
    return 0 if a.report_only or not bad else 1


if __name__ == "__main__":
    sys.exit(main())
