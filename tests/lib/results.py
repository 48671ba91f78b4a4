#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
"""What each test of a meson test log left out, against the one list of what
this machine may leave out (tests/expected-skips).

    results.py EXPECTED PHASE TESTLOG.json
    results.py --relay PREFIX TESTLOG.json

A test leaves something out in two ways: it skipped (meson's SKIP, exit
status 77; its reason is the last "SKIP: ..." or "# SKIP ..." line it
printed), or it ran partly and printed, for each part it left out, a line

    PARTIAL PART: what was left out, and why

(tests/lib/sandbox.sh's partial, kt.c for a kernel test that skipped,
faults.py for a scenario, test_trixie.sh for a test inside the Debian 13
root); a cmocka test that called skip() (a root-only unit test run without
root) is one too, by cmocka's own "[  SKIPPED ] name" line. Each is
printed, one line, marked "expected" when EXPECTED has a line

    PHASE  SUITE/TEST  PART  why

matching it (shell patterns; PART "skip" for a skipped test; PHASE "*" for
every phase), or "NOT EXPECTED". Exit status 1 when any is not expected:
a skip nobody listed is no pass.

--relay passes what the tests of a log run elsewhere (the Debian 13 root
of suite trixie) left out on to the test that ran them, as its own
"PARTIAL PREFIXSUITE/TEST:PART: ..." lines.
"""

import fnmatch
import json
import re
import sys


def expected_list(path):
    """EXPECTED's entries: (phase, test, part) patterns."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split(None, 3)
            if len(words) < 4:
                raise SystemExit("%s:%d: want PHASE SUITE/TEST PART WHY" % (path, n))
            out.append(tuple(words[:3]))
    return out


def left_out(log):
    """(suite/test, part, text) for each skip and partial part in the log."""
    out = []
    with open(log) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            # "faults+once / faults_kill": a test in several suites is
            # named by its first (tests/faults/meson.build).
            suite, _, test = d["name"].split(":", 1)[-1].partition(" / ")
            name = suite.split("+")[0] + "/" + test
            text = (d.get("stdout") or "") + "\n" + (d.get("stderr") or "")
            if d["result"] == "SKIP":
                why = re.findall(r"^(?:1\.\.0 )?#? ?SKIP:? (.*)$", text, re.M)
                out.append((name, "skip", why[-1] if why else "(no reason printed)"))
            for part, what in re.findall(r"^PARTIAL (\S+): (.*)$", text, re.M):
                out.append((name, part, what))
            for part in sorted(set(re.findall(r"^\[  SKIPPED \] (\w+)$", text, re.M))):
                out.append((name, part, "cmocka's skip() (a test that needs root)"))
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--relay":
        for name, part, what in left_out(sys.argv[3]):
            print("PARTIAL %s%s:%s: %s" % (sys.argv[2], name, part, what))
        return 0
    if len(sys.argv) != 4:
        raise SystemExit("usage: results.py EXPECTED PHASE TESTLOG.json")
    expected, phase, log = sys.argv[1:]
    allowed = expected_list(expected)
    bad = 0
    for name, part, what in left_out(log):
        ok = any(fnmatch.fnmatchcase(phase, p) and fnmatch.fnmatchcase(name, t) and
                 fnmatch.fnmatchcase(part, w) for p, t, w in allowed)
        bad += not ok
        kind = "skipped" if part == "skip" else "partial, %s left out" % part
        print("%s %s: %s (%s)" % (name, kind, what, "expected" if ok else
                                  "NOT EXPECTED: not in tests/expected-skips"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
