#!/usr/bin/env python3
"""Every published value in the documentation's tables carries its provenance (issue 34).

Reads every Markdown table of docs/results.md and docs/reproduced.md that has a column whose header
contains "published": a row with a published value must say `paper`, `secondary` or `unverified`,
in a `provenance` column or in the published cell itself. Also checks that the labels agree with
`ncp2 reproduce basic-costs --json` (the code's rows) when the binary is given.
Usage: provenance_test.py SOURCE_DIR [NCP2]"""
import json
import re
import subprocess
import sys
from pathlib import Path

LABEL = re.compile(r"\b(paper|secondary|unverified)\b")


def tables(text):
    """(header cells, [row cells]) for every table, with the line number of its header."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-| :]+\|$", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip("|").split("|")]
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append((j + 1, [c.strip() for c in lines[j].strip("|").split("|")]))
                j += 1
            yield i + 1, header, rows
            i = j
        else:
            i += 1


def check_file(path):
    problems, checked = [], 0
    for line, header, rows in tables(path.read_text()):
        published = [k for k, h in enumerate(header) if "published" in h.lower()]
        if not published:
            continue
        provenance = [k for k, h in enumerate(header) if h.lower() == "provenance"]
        for row_line, cells in rows:
            for k in published:
                value = cells[k] if k < len(cells) else ""
                if not value or value == "-":
                    continue  # no published value on this row
                checked += 1
                where = cells[provenance[0]] if provenance and provenance[0] < len(cells) else value
                if not LABEL.search(where):
                    problems.append(f"{path.name}:{row_line}: published value '{value}' without a provenance label")
    return problems, checked


def main():
    root = Path(sys.argv[1])
    problems, checked = [], 0
    for name in ("docs/results.md", "docs/reproduced.md"):
        p, c = check_file(root / name)
        problems += p
        checked += c
    if checked < 30:
        problems.append(f"only {checked} published values found in the tables: has their layout changed?")
    if len(sys.argv) > 2:
        out = subprocess.run([sys.argv[2], "reproduce", "basic-costs", "--json"], check=True, capture_output=True,
                             text=True).stdout
        labels = {r["workload"]: r["provenance"] for r in json.loads(out)["rows"]}
        expected = {"lock-from-manager": "secondary", "lock-forwarded": "secondary", "barrier": "unverified",
                    "page-miss": "unverified", "twin": "unverified", "diff-unchanged-page": "unverified",
                    "diff-changed-page": "unverified", "diff-every-other-word": "unverified"}
        if labels != expected:
            problems.append(f"ncp2 reproduce basic-costs: provenance {labels}, expected {expected}")
        for r in json.loads(out)["rows"]:
            if not r.get("read_at"):
                problems.append(f"ncp2 reproduce basic-costs: {r['workload']} does not say where it was read")
    for p in problems:
        print("FAIL:", p)
    print(f"{checked} published values in the tables; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
