#!/usr/bin/env python3
"""A benchmark script prints the goal docs/performance.md states (issue 36, item 8): the SimGrid
comparison's default goal is the one issue 21 set (">= 20x in the worst of 4 runs").
Usage: bench_goals_test.py SOURCE_DIR"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
script = (root / "bench/compare-simgrid").read_text()
doc = (root / "docs/performance.md").read_text()
default = re.search(r"^goal=\$\{GOAL:-(\d+)\}$", script, re.M) or re.search(r"^goal=(\d+)$", script, re.M)
stated = re.search(r"goal 2 \(≥ (\d+)× in the worst of 4 runs\)", doc)
problems = []
if not default:
    problems.append("bench/compare-simgrid: no default goal found")
if not stated:
    problems.append("docs/performance.md: the SimGrid goal (issue 21, goal 2) is not stated")
if default and stated and default.group(1) != stated.group(1):
    problems.append(f"bench/compare-simgrid's goal is {default.group(1)}, docs/performance.md says {stated.group(1)}")
for p in problems:
    print("FAIL:", p)
print("ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
