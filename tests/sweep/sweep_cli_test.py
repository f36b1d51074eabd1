#!/usr/bin/env python3
"""`ncp2 sweep` end to end, as a user runs it (issue 44, items 1 and 4).

A small real sweep (counter, 2 machines x 2 latencies x 1,2 nodes) and its outputs (table, JSON,
CSV, sweep.db against the points' own databases); resuming after one point's database is deleted
(only that point runs again); a sweep with nothing left to run; another sweep in the same folder
(refused, then --force: only that sweep's files go); a point that fails at run time (the sweep goes
on, exit 1, the failure named); Ctrl-C while a point runs (the finished points kept, the rest 'not
run', no process left, then the same command resumes); and the query of docs/schema.md, "which
setting makes the CP gain largest", run on the real sweep and checked against the points' virtual
times.

Usage: sweep_cli_test.py BIN_DIR SOURCE_DIR
"""
import json
import pathlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

BIN, SRC = sys.argv[1], sys.argv[2]
NCP2 = os.path.join(BIN, "ncp2")
ENV = dict(os.environ, NCP2_HISTORY="")
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def sweep(*args, out=None):
    proc = subprocess.run([NCP2, "sweep", *args], capture_output=True, text=True, env=ENV, timeout=240)
    return proc.returncode, proc.stdout, proc.stderr


def rows(db, query, *params):
    con = sqlite3.connect(db)
    try:
        return con.execute(query, params).fetchall()
    finally:
        con.close()


def grid_sweep(t):
    out = f"{t}/grid"
    base = ["counter", "--nodes", "1,2", "--machine", "ncp2,treadmarks", "--set",
            "network.link_latency=1us,20us", "--param", "iterations=20", "-j", "2", "--out", out]
    code, stdout, stderr = sweep(*base, "--json")
    check(code == 0, f"a sweep of 8 points exits 0 ({code}: {stderr.strip()[-300:]})")
    doc = json.loads(stdout)
    points = doc["points"]
    check(len(points) == 8 and all(p["status"] == "done" for p in points), "--json: 8 points, all done")
    db = f"{out}/sweep.db"
    # The plots (sweep/sweep_plots.hpp): written by the sweep itself, one curve per machine and setting.
    speedup_svg = pathlib.Path(f"{out}/speedup.svg")
    check(speedup_svg.exists() and pathlib.Path(f"{out}/categories.svg").exists(),
          "the sweep writes speedup.svg and categories.svg")
    check(speedup_svg.exists() and speedup_svg.read_text().count('class="curve"') == 4,
          "speedup.svg: 4 curves (2 machines x 2 latencies)")
    check("plots:" in stderr, "the sweep says where its plots are")
    stored = rows(db, "SELECT name, machine, nodes, settings, status, db_file, virtual_time_ps, speedup, verified "
                      "FROM points ORDER BY point_id")
    check([r[0] for r in stored] == [p["name"] for p in points], "sweep.db lists the points of --json, in order")
    check(stored[0][0] == "ncp2-n1-network.link_latency=1us" and stored[-1][0] == "treadmarks-n2-network.link_latency=20us",
          f"points named machine-nodes-key=value, grid order ({stored[0][0]} .. {stored[-1][0]})")
    # Each row against the point's own run database.
    agree = True
    for name, machine, nodes, settings, status, db_file, vt, speedup, verified in stored:
        run = rows(f"{out}/{db_file}", "SELECT machine, nodes, virtual_time_ps, verified, status FROM runs")[0]
        agree &= run == (machine, nodes, vt, verified, "complete")
        one = [r for r in stored if r[1] == machine and r[3] == settings and r[2] == 1][0]
        agree &= abs(speedup - one[6] / vt) < 1e-9
        comp = rows(db, "SELECT time_ps FROM point_categories c JOIN points p USING (point_id) "
                        "WHERE p.name = ? AND c.category = 'Comp'", name)[0][0]
        run_comp = rows(f"{out}/{db_file}", "SELECT sum(time_ps) FROM profile WHERE category = 'Comp'")[0][0]
        agree &= comp == run_comp
    check(agree, "every row's machine, nodes, virtual time, Comp time and speedup are its run database's")
    settings = rows(db, "SELECT count(*), count(DISTINCT value) FROM point_settings WHERE key = 'network.link_latency'")
    check(settings == [(8, 2)], f"point_settings: one row per point and key ({settings})")
    waits = rows(db, "SELECT count(*) FROM point_waits w JOIN points p USING (point_id) WHERE p.nodes = 2 AND w.kind = 'barrier'")
    check(waits[0][0] == 4, "point_waits: the barrier waits of each 2-node point")
    code, stdout, stderr = sweep(*base, "--csv")
    check(code == 0 and stdout.startswith("name,machine,nodes,settings,status,virtual_time_ps") and
          len(stdout.strip().splitlines()) == 9, "--csv: a header and 8 rows")
    check("8 of 8 points are complete" in stderr, f"the same sweep again runs nothing ({stderr.strip()[-200:]})")
    return out, base


def resume_after_delete(out, base):
    victim = f"{out}/points/treadmarks-n2-network.link_latency=1us.db"
    keep = f"{out}/points/ncp2-n2-network.link_latency=1us.db"
    before = os.stat(keep).st_mtime_ns
    os.remove(victim)
    code, stdout, stderr = sweep(*base)
    check(code == 0, f"resume exits 0 ({code})")
    check("7 of 8 points are complete and kept; 1 to run" in stderr, "resume runs only the point whose database is missing")
    check(os.path.exists(victim) and os.stat(keep).st_mtime_ns == before, "the missing database is back, the others untouched")
    check(re.search(r"treadmarks\s+2\s+network.link_latency=1us\s+[\d.]+ \w?s\s+[\d.]+\s+.*verified", stdout) is not None,
          "the table shows the point again")


def cp_gain_query(out):
    doc = open(f"{SRC}/docs/schema.md").read()
    match = re.search(r"<!-- query: cp-gain -->\s*```sql\n(.*?)```", doc, re.S)
    check(match is not None, "docs/schema.md has the CP-gain query")
    if not match:
        return
    got = rows(f"{out}/sweep.db", match.group(1))
    points = rows(f"{out}/sweep.db", "SELECT machine, nodes, settings, virtual_time_ps FROM points")
    time_of = {(m, n, s): t for m, n, s, t in points}
    expected = sorted(((s, n, time_of[("treadmarks", n, s)] / time_of[("ncp2", n, s)])
                       for (m, n, s) in time_of if m == "ncp2"), key=lambda r: (-r[2], -r[1], r[0]))
    check(len(got) == 4 and all(g[0] == e[0] and g[1] == e[1] and abs(g[2] - e[2]) < 1e-12
                                for g, e in zip(got, expected)),
          f"the query ranks every (settings, nodes) by treadmarks/ncp2 time: {got[:1]}")
    check(got[0][2] > 1, f"the CP gains somewhere ({got[0][2]:.2f}x)")


def other_sweep_and_force(t, out):
    other = ["counter", "--nodes", "1", "--param", "iterations=20", "--out", out]
    code, _, stderr = sweep(*other)
    check(code == 2 and "holds another sweep" in stderr and "--force" in stderr, "another sweep in the folder is refused")
    mine = f"{out}/points/notes.txt"
    open(mine, "w").write("mine\n")
    code, _, stderr = sweep(*other, "--force")
    names = sorted(os.listdir(f"{out}/points"))
    check(code == 0 and names == ["ncp2-n1.db", "ncp2-n1.json", "ncp2-n1.log", "notes.txt"],
          f"--force: the earlier sweep's files removed, another file kept ({names})")


def failing_point(t, program):
    out = f"{t}/fail"
    code, stdout, stderr = sweep(program, "--nodes", "1,2,3", "-j", "2", "--out", out, "--", "fail", "2")
    status = dict(rows(f"{out}/sweep.db", "SELECT name, status FROM points"))
    check(code == 1 and status == {"ncp2-n1": "done", "ncp2-n2": "failed", "ncp2-n3": "done"},
          f"a failing point is marked failed and the others run ({code}, {status})")
    message = rows(f"{out}/sweep.db", "SELECT message FROM points WHERE name = 'ncp2-n2'")[0][0]
    check("node 0 exits with status 1" in message, f"its message says why ({message})")
    check("failed  ncp2-n2:" in stdout and "points/ncp2-n2.log" in stdout, "the summary names it and its log")


def interrupt_and_resume(t, program):
    out = f"{t}/interrupt"
    hold = f"{t}/hold"
    open(hold, "w").close()
    args = [program, "--nodes", "1,2,3,8", "-j", "2", "--out", out, "--", "wait", "8", hold]
    proc = subprocess.Popen([NCP2, "sweep", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=ENV)
    done = 0
    for _ in range(300):  # the three small points finish while the 8-node one waits for `hold`
        time.sleep(0.1)
        try:
            done = rows(f"{out}/sweep.db", "SELECT count(*) FROM points WHERE status = 'done'")[0][0]
        except sqlite3.Error:
            continue
        if done == 3:
            break
    check(done == 3, f"3 points done while the 8-node point runs ({done})")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    check(proc.returncode == 1 and "run the same command again" in stderr,
          f"Ctrl-C: exit 1, saying how to resume ({proc.returncode}: {stderr.strip()[-200:]})")
    status = dict(rows(f"{out}/sweep.db", "SELECT name, status FROM points"))
    check(status == {"ncp2-n1": "done", "ncp2-n2": "done", "ncp2-n3": "done", "ncp2-n8": "not run"},
          f"the finished points kept, the rest 'not run' ({status})")
    left = subprocess.run(["pgrep", "-f", hold], capture_output=True, text=True).stdout.split()
    check(not left, f"no process of the sweep is left ({left})")
    os.remove(hold)
    code, _, stderr = sweep(*args)
    status = dict(rows(f"{out}/sweep.db", "SELECT name, status FROM points"))
    check(code == 0 and "3 of 4 points are complete and kept; 1 to run" in stderr and set(status.values()) == {"done"},
          f"the same command resumes and runs only the rest ({code}, {status})")


def main():
    with tempfile.TemporaryDirectory() as t:
        program = f"{t}/behave_on_nodes"
        subprocess.run([f"{BIN}/ncp2-cc", "-O1", "-o", program, f"{SRC}/tests/sweep/programs/behave_on_nodes.c"],
                       check=True)
        out, base = grid_sweep(t)
        resume_after_delete(out, base)
        cp_gain_query(out)
        other_sweep_and_force(t, out)
        failing_point(t, program)
        interrupt_and_resume(t, program)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
