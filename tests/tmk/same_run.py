#!/usr/bin/env python3
"""Two runs of one program are the same run: every table of their databases (every column, rows
in a canonical order) and their statistics JSON, apart from what records the host (wall time, when
it started, rates per host second). Used to check that the fiber runner gives exactly what the
process runner gives (tests/tmk/fiber_runner_test.sh).

Usage: same_run.py A.db B.db [A.json B.json]   (exit 0: the same; 1: a difference, printed)
"""
import json
import sqlite3
import sys

VOLATILE = {("runs", "started_at"), ("runs", "wall_seconds")}


def tables(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    names = [r[0] for r in db.execute("select name from sqlite_master where type = 'table' order by name")]
    for table in names:
        columns = [r[1] for r in db.execute(f'pragma table_info("{table}")') if (table, r[1]) not in VOLATILE]
        select = ", ".join(f'"{c}"' for c in columns)
        rows = db.execute(f'select {select} from "{table}"').fetchall()
        out[table] = (columns, sorted(rows, key=repr))
    db.close()
    return out


def without_host(value):
    if isinstance(value, dict):
        return {k: without_host(v) for k, v in value.items() if "wall" not in k and "per_second" not in k}
    if isinstance(value, list):
        return [without_host(v) for v in value]
    return value


def main(argv):
    if len(argv) not in (3, 5):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    a, b = tables(argv[1]), tables(argv[2])
    differences = []
    for table in sorted(set(a) | set(b)):
        if table not in a or table not in b:
            differences.append(f"table {table} only in {'the first' if table in a else 'the second'}")
            continue
        if a[table] != b[table]:
            rows_a, rows_b = set(a[table][1]), set(b[table][1])
            only_a = sorted(rows_a - rows_b, key=repr)[:3]
            only_b = sorted(rows_b - rows_a, key=repr)[:3]
            differences.append(f"table {table}: {len(a[table][1])} vs {len(b[table][1])} rows; "
                               f"columns {a[table][0]}; first only in A {only_a}; first only in B {only_b}")
    if len(argv) == 5:
        with open(argv[3]) as fa, open(argv[4]) as fb:
            ja, jb = without_host(json.load(fa)), without_host(json.load(fb))
        if ja != jb:
            keys = sorted(k for k in set(ja) | set(jb) if ja.get(k) != jb.get(k))
            differences.append(f"statistics JSON differs in {keys}")
    for d in differences:
        print(d)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
