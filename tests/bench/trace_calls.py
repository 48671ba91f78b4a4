#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
"""Where a session's time goes, from an ftrace of raw_syscalls (trace.sh).

    trace_calls.py TRACE TSC_MHZ SERVICE...

TRACE holds sys_enter and sys_exit events of pam_driver processes, with
trace_clock x86-tsc (raw counts, TSC_MHZ of them a microsecond). Each
process is one session, of the SERVICEs in turn (trace.sh runs them so);
its open and close are the calls between its last four access() calls,
pam_driver's markers. For each service every call of the open and of the
close is printed with the median of its time in the kernel and of the time
in user space before it, so that what a step costs can be read off. Last,
each service's own part: its calls, and the sums of those medians, less the
same of the service without the module (SERVICE-permit where given, else
ns-permit), in the kernel and in user space.
"""
import collections
import re
import statistics
import sys

ACCESS = 21  # x86_64


def syscall_names():
    names = {}
    try:
        with open('/usr/include/x86_64-linux-gnu/asm/unistd_64.h') as f:
            for line in f:
                m = re.match(r'#define __NR_(\w+) (\d+)', line)
                if m:
                    names[int(m.group(2))] = m.group(1)
    except OSError:
        pass
    return names


def sessions(path, mhz):
    events = {}
    pat = re.compile(r'\s*\S+-(\d+)\s+\[\d+\]\s+\S+\s+(\d+): sys_(enter|exit): NR (\d+)')
    with open(path) as f:
        for line in f:
            m = pat.match(line)
            if m:
                pid, ts, kind, nr = m.groups()
                events.setdefault(pid, []).append((int(ts) / mhz, kind, int(nr)))
    # in the order the sessions ran (pids may wrap)
    for evs in sorted(events.values(), key=lambda e: e[0][0]):
        calls, open_call = [], None
        for ts, kind, nr in evs:
            if kind == 'enter':
                open_call = [nr, ts]
            elif open_call and open_call[0] == nr:
                calls.append((nr, open_call[1], ts))
                open_call = None
        marks = [i for i, c in enumerate(calls) if c[0] == ACCESS][-4:]
        if len(marks) < 4:
            sys.exit('a session without its four markers: was the trace buffer too small?')
        yield calls[marks[0]:marks[1] + 1], calls[marks[2]:marks[3] + 1]


def report(title, group, names):
    n = collections.Counter(len(s) for s in group).most_common(1)[0][0]
    odd = len(group)
    group = [s for s in group if len(s) == n]
    odd -= len(group)
    total = statistics.median(s[-1][1] - s[0][2] for s in group)
    print(f'{title}: {n - 2} calls, median {total:.1f} us in {len(group)} sessions'
          + (f' ({odd} with another count left out)' if odd else ''))
    print('    call                kernel us  user us before')
    sums = [n - 2, 0.0, 0.0]
    for i in range(1, n):
        kern = statistics.median(s[i][2] - s[i][1] for s in group)
        user = statistics.median(s[i][1] - s[i - 1][2] for s in group)
        name = names.get(group[0][i][0], str(group[0][i][0]))
        print(f'{i:3} {name:18} {kern:9.1f} {user:9.1f}')
        if i < n - 1:  # the closing marker's own access() is not the session's
            sums[1] += kern
            sums[2] += user
    return sums


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    names = syscall_names()
    services = sys.argv[3:]
    runs = list(sessions(sys.argv[1], float(sys.argv[2])))
    totals = {}
    for k, service in enumerate(services):
        mine = runs[k::len(services)]
        a = report(f'== {service}: open', [o for o, _ in mine], names)
        b = report(f'== {service}: close', [c for _, c in mine], names)
        totals[service] = [x + y for x, y in zip(a, b)]
    for service, t in totals.items():
        base = service + '-permit' if service + '-permit' in totals else 'ns-permit'
        if service.endswith('permit') or base not in totals:
            continue
        own = [x - y for x, y in zip(t, totals[base])]
        print(f'== {service} less {base}: {own[0]} calls, {own[1]:.1f} us in the kernel, '
              f'{own[2]:.1f} us in user space (sums of the medians, open and close)')


if __name__ == '__main__':
    main()
