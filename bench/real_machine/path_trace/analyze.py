#!/usr/bin/env python3
"""Where a page miss's time goes, from the marks apply.py inserted (README.md): for every page
miss node 1 took from node 0, the time between consecutive steps; prints median, minimum and 90th
percentile of each step in microseconds."""
import sys

def read(node):
    with open(f'/tmp/trace-{node}.txt') as f:
        for line in f:
            t, n, label = line.split(' ', 2)
            yield int(t), int(n), label.split()[0]

events = sorted(list(read(0)) + list(read(1)))
steps = [('L0', 1, 'the agent takes the program\'s request'), ('L1', 1, 'the fault reaches the protocol'),
         ('L2', 1, 'the page request is sent'), ('S1', 0, 'the home\'s service thread has it'),
         ('S2', 0, 'the home has copied and sent the page'), ('S3', 1, 'the requester\'s service thread has it'),
         ('L3', 1, 'the local thread has it'), ('L4', 1, 'the program\'s reply is written')]
rows = []
for i, (t, node, label) in enumerate(events):
    if node != 1 or label != 'L2':
        continue
    before = [e for e in events[max(0, i - 12):i] if e[1] == 1]
    at = {}
    for name in ('L0', 'L1'):
        found = [e[0] for e in before if e[2] == name]
        if found:
            at[name] = found[-1]
    at['L2'] = t
    for e in events[i + 1:i + 60]:
        key = e[2]
        if key in ('S1', 'S2') and e[1] == 0 and key not in at:
            at[key] = e[0]
        if key in ('S3', 'L3', 'L4') and e[1] == 1 and key not in at:
            at[key] = e[0]
        if key == 'L4' and e[1] == 1:
            break
    if all(s[0] in at for s in steps):
        rows.append([at[steps[k + 1][0]] - at[steps[k][0]] for k in range(len(steps) - 1)] +
                    [at['L4'] - at['L0']])
if not rows:
    sys.exit('no complete page miss in /tmp/trace-0.txt and /tmp/trace-1.txt')
print(f'{len(rows)} page misses of node 1 from node 0 (us)')
names = [f'{steps[k][0]}->{steps[k + 1][0]}  {steps[k + 1][2]}' for k in range(len(steps) - 1)] + ['L0->L4  in all']
for k, name in enumerate(names):
    col = sorted(r[k] for r in rows)
    print(f'{name:58s} median {col[len(col) // 2] / 1e3:7.1f}  min {col[0] / 1e3:7.1f}  '
          f'p90 {col[min(len(col) - 1, int(len(col) * 0.9))] / 1e3:7.1f}')
