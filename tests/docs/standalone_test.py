#!/usr/bin/env python3
"""The repository stands alone (issue 36, item 6): no file points outside it at the workspace's shared folder (the
workspace the project was built in, which a user's clone does not have); the papers are cited by
reference in docs/references.md, which the README links.
Usage: standalone_test.py SOURCE_DIR"""
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1])
try:
    files = subprocess.run(["git", "-C", str(root), "ls-files"], check=True, capture_output=True,
                           text=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    files = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "build" not in p.parts]
problems = []
needle = "../" + "shared"  # split so that this file does not find itself
for name in files:
    path = root / name
    try:
        text = path.read_text(errors="strict")
    except (UnicodeDecodeError, OSError):
        continue  # binary files
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            problems.append(f"{name}:{number}: points outside the repository: {line.strip()[:100]}")
readme = (root / "README.md").read_text()
if "docs/references.md" not in readme or not (root / "docs/references.md").exists():
    problems.append("README.md does not link docs/references.md (the papers, cited by reference)")
for p in problems:
    print("FAIL:", p)
print(f"{len(files)} files; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
