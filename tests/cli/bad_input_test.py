#!/usr/bin/env python3
"""Bad input never crashes and never loses data (issue 17, item 11).

A table of bad inputs -- command lines, configurations, database files, the GUI opening files,
programs built with ncp2-cc -- each with the exit code and a fragment of the message a user must
read. After every case, every fixture file (a complete run's database, a text file, a foreign
SQLite file, ...) must be byte for byte what it was: a refused command leaves earlier results
intact. A crash (a signal, exit code >= 128) fails every case.

Usage: bad_input_test.py BIN_DIR SOURCE_DIR [CASE_NAME_SUBSTRING]
BIN_DIR holds ncp2, ncp2-cc and carnival (the GUI's cases are skipped when it is missing).
"""
import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass
class Case:
    name: str
    args: list  # after the program; "{T}" is the fixture directory
    code: int
    message: str  # a fragment of stdout + stderr
    program: str = "ncp2"  # or "carnival"
    env: dict = field(default_factory=dict)
    interrupt: Optional[tuple] = None  # (signal, seconds after the start)
    check: Optional[Callable[[str], Optional[str]]] = None  # given T: None, or what is wrong


def cli_cases():
    return [
        Case("no command", [], 2, "no command given"),
        Case("unknown command", ["teleport"], 2, "unknown command 'teleport'"),
        Case("run without workload", ["run"], 2, "workload is missing; see ncp2 run --help"),
        Case("unknown workload", ["run", "nosuch"], 2, "workloads: counter"),
        Case("unknown option", ["run", "counter", "--bogus"], 2, "--bogus"),
        Case("negative seed", ["run", "counter", "--seed", "-1"], 2, "--seed"),
        Case("seed not a number", ["run", "counter", "--seed", "abc"], 2, "'abc' is not a whole number"),
        Case("seed too large", ["run", "counter", "--seed", "99999999999999999999999"], 2, "is out of range"),
        Case("negative max-wait-rows", ["run", "counter", "--max-wait-rows=-5"], 2, "'-5' is not a whole number"),
        Case("max-timeline with exponent", ["run", "counter", "--max-timeline", "1e3"], 2,
             "'1e3' is not a whole number"),
        Case("max-wait-rows too large", ["run", "counter", "--max-wait-rows", "99999999999"], 2, "is out of range"),
        Case("zero nodes", ["run", "counter", "--nodes", "0"], 2, "0 is out of range (expected 1 to 16384)"),
        Case("too many nodes", ["run", "counter", "--nodes", "16385"], 2, "16385 is out of range"),
        Case("negative nodes", ["run", "counter", "--nodes=-3"], 2, "'-3' is not a whole number"),
        Case("nodes not a number", ["run", "counter", "--nodes", "two"], 2, "'two' is not a whole number"),
        Case("nodes without value", ["run", "counter", "--nodes"], 2, "--nodes"),
        Case("progress unknown", ["run", "counter", "--progress", "sometimes"], 2,
             "'sometimes' is not one of: auto, always, never"),
        Case("machine unknown", ["run", "counter", "--machine", "vax"], 2, "'vax' is not one of"),
        Case("parameter misspelt", ["run", "counter", "--param", "itertions=5"], 2, "did you mean 'iterations'?"),
        Case("parameter not a number", ["run", "counter", "--param", "iterations=x"], 2, "expects an integer"),
        Case("parameter without value", ["run", "counter", "--param", "iterations"], 2, "iterations"),
        Case("parameter zero", ["run", "phases", "--param", "n=0"], 2, "must be at least 1"),
        Case("preset unknown", ["run", "counter", "--preset", "huge"], 2, "no preset 'huge'"),
        Case("db without value", ["run", "counter", "--db"], 2, "--db needs a value"),
        Case("program arguments to a workload", ["run", "counter", "--", "x"], 2, "is a built-in workload"),
        Case("node output for a workload", ["run", "counter", "--node-output", "{T}"], 2, "is a built-in workload"),
        Case("scope counters without measured model", ["run", "counter", "--scope-counters", "task-clock",
                                                       "--db", "{T}/new-scope.db"], 2,
             "--scope-counters needs --time-model measured"),
        Case("flag given a value", ["run", "counter", "--force=maybe"], 2, "--force"),
        Case("report without file", ["report"], 2, "file is missing; see ncp2 report --help"),
        Case("report view unknown", ["report", "{T}/good.db", "--view", "nosuch"], 2, "nosuch"),
        Case("report format unknown", ["report", "{T}/good.db", "--format", "yaml"], 2, "'yaml' is not one of"),
        Case("report negative top", ["report", "{T}/good.db", "--top=-1"], 2, "'-1' is not a whole number"),
        Case("workloads extra argument", ["workloads", "extra"], 2, "unexpected argument(s): extra"),
        Case("demo-network zero rounds", ["demo-network", "--rounds", "0"], 2, "out of range"),
        Case("demo-network one node", ["demo-network", "--pattern", "ping-pong", "--nodes", "1"], 2,
             "at least 2 nodes"),
        Case("demo-network unknown pattern", ["demo-network", "--pattern", "ring"], 2, "ring"),
        Case("clocksync one process", ["clocksync", "--procs", "1"], 2, "out of range"),
        Case("timing too few samples", ["timing", "--samples", "5"], 2, "out of range"),
        Case("counters without command", ["counters"], 2, "command"),
        Case("counters period too short", ["counters", "--period", "1ns", "--", "true"], 2, "period"),
        Case("counters trace into a directory", ["counters", "--trace", "{T}/dir.db", "--", "true"], 2,
             "is a directory"),
        Case("schedule unknown set", ["schedule", "--set", "D", "--policy", "native"], 2, "unknown set 'D'"),
        Case("schedule unknown policy", ["schedule", "--set", "A", "--policy", "fastest"], 2,
             "unknown policy 'fastest'"),
        Case("schedule no policy", ["schedule", "--set", "A"], 2, "which policy?"),
        Case("schedule quantum 0", ["schedule", "--set", "A", "--policy", "native", "--quantum", "0ms"], 2,
             "must be from 100us to 1 hour"),
        Case("schedule quantum without unit", ["schedule", "--set", "A", "--policy", "native", "--quantum", "100"], 2,
             "expected a duration with its unit"),
        Case("schedule bus 0", ["schedule", "--set", "A", "--policy", "native", "--bus", "0"], 2,
             "bus capacity (--bus) must be a number more than 0"),
        Case("schedule trace not a trace", ["schedule", "--set", "{T}/text.txt", "--policy", "native"], 2,
             "not a bandwidth trace"),
        Case("schedule trace is a database", ["schedule", "--set", "{T}/good.db", "--policy", "native"], 2,
             "not a bandwidth trace"),
        Case("schedule db exists", ["schedule", "--set", "A", "--policy", "native", "--db", "{T}/good.db"], 2,
             "already exists; use --force"),
        Case("schedule plot gif", ["schedule", "--set", "A", "--policy", "native", "--plot", "{T}/p.gif"], 2,
             "must end in .png or .svg"),
    ]


def config_cases():
    sets = [
        ("nokey=1", "unknown key 'nokey'"),
        ("network.latency=1us", "did you mean 'network.link_latency'"),
        ("network.link_latency", "expected key=value"),
        ("network.link_latency=fast", "'fast' is not a duration"),
        ("network.link_latency=1000000s", "1000000s is out of range: allowed 0 s .. 1 s"),
        ("network.link_latency=2s", "is out of range"),
        ("network.link_latency=-1us", "is negative"),
        ("network.link_latency=5", "needs a unit"),
        ("network.link_latency=5 fortnights", "unknown time unit"),
        ("network.link_bandwidth=0MB/s", "is out of range"),
        ("network.link_bandwidth=5", "needs a unit"),
        ("network.link_bandwidth=1e400 MB/s", "is not a bandwidth"),
        ("network.link_bandwidth=-3 MB/s", "is out of range"),
        ("pp.clock_mhz=inf", "is not a finite number"),
        ("pp.clock_mhz=nan", "is not a finite number"),
        ("pp.clock_mhz=0", "is out of range"),
        ("pp.clock_mhz=abc", "is not a number"),
        ("cp.clock_mhz=1e12", "is out of range"),
        ("emulator.fiber_stack_kb=99999999", "is out of range"),
        ("emulator.fiber_stack_kb=4", "is out of range"),
        ("emulator.fiber_stack_kb=99999999999", "is out of range"),
        ("machine.nodes=0", "is out of range"),
        ("machine.nodes=3.5", "is not an integer"),
        ("machine.kind=vax", "is not one of: ncp2, treadmarks"),
        ("memory.page_size=1000", "power of two"),
        ("memory.page_size=16", "is out of range"),
        ("memory.word_size=3", "power of two"),
        ("network.switch_ports=1", "is out of range"),
        ("network.header_bytes=-1", "is out of range"),
        ("network.topology=ring", "is not one of"),
        ("dsm.barrier_manager=9", "must be a node of the cluster"),
        ("dsm.gc_threshold_kb=0", "is out of range"),
        ("cost.flop=-1", "is out of range"),
        ("cost.load=1e7", "is out of range"),
        ("tmk.heap_mb=0", "is out of range"),
        ("tmk.sample_instructions=-1", "is out of range"),
    ]
    cases = [Case(f"--set {s}", ["config", "--set", s], 2, m) for s, m in sets]
    files = [
        ("syntax", "[network]\nlink_latency = \n", "syntax.toml:2:16: TOML syntax error"),
        ("typo", "[network]\nlink_bandwith = \"1 GB/s\"\n", "did you mean 'network.link_bandwidth'"),
        ("latency", "[network]\nlink_latency = \"1000000 s\"\n", "latency.toml:2:1: key 'network.link_latency'"),
        ("clock-inf", "[pp]\nclock_mhz = inf\n", "is not a finite number"),
        ("clock-nan", "[pp]\nclock_mhz = nan\n", "is not a finite number"),
        ("stack", "[emulator]\nfiber_stack_kb = 4000000000\n", "is out of range"),
        ("table", "[network.link_latency]\nx = 1\n", "expected a value, found a table"),
        ("wrong-type", "[machine]\nnodes = \"8\"\n", "expected an integer"),
        ("big-nodes", "[machine]\nnodes = 99999999999\n", "is out of range"),
        ("negative-cost", "[cost]\nflop = -2.0\n", "is out of range"),
        ("empty-key", "[network]\n\"\" = 1\n", "unknown key"),
        ("binary", "\x00\x01\x02SQLite\xff", "binary.toml"),
    ]
    for name, _, message in files:
        cases.append(Case(f"config file {name}", ["config", "--config", f"{{T}}/{name}.toml"], 2, message))
    cases += [
        Case("config file missing", ["config", "--config", "{T}/missing.toml"], 2, "no such configuration file"),
        Case("config file is a directory", ["config", "--config", "{T}/dir.db"], 2, "dir.db"),
        Case("star too small", ["config", "--nodes", "9", "--set", "network.topology=star"], 2,
             "cannot connect 9 nodes"),
        Case("run with out-of-range key", ["run", "counter", "--set", "network.link_latency=2s"], 2,
             "is out of range"),
        Case("run with bad config file", ["run", "counter", "--config", "{T}/latency.toml"], 2, "is out of range"),
    ]
    return cases, {f"{name}.toml": text for name, text, _ in files}


def database_cases():
    bad_files = [
        ("missing.db", "no such file"),
        ("text.txt", "is not an SQLite database"),
        ("foreign.db", "is not an NCP2-Carnival database"),
        ("empty.db", "is not an SQLite database"),
        ("truncated.db", "truncated.db"),
        ("garbage.db", "garbage.db"),
        ("dir.db", "is a directory"),
    ]
    cases = []
    for f, m in bad_files:
        cases.append(Case(f"report {f}", ["report", f"{{T}}/{f}"], 2, m))
        cases.append(Case(f"export-trace {f}", ["export-trace", f"{{T}}/{f}", "{T}/trace.json"], 2, m))
        cases.append(Case(f"compare with {f}", ["compare", "{T}/good.db", f"{{T}}/{f}"], 2, m))
    run = ["run", "counter", "--nodes", "2"]
    cases += [
        Case("db exists", run + ["--db", "{T}/good.db"], 2, "already exists; use --force"),
        Case("force over text", run + ["--db", "{T}/text.txt", "--force"], 2, "--force will not replace"),
        Case("force over foreign", run + ["--db", "{T}/foreign.db", "--force"], 2, "is not an NCP2-Carnival"),
        Case("force over empty", run + ["--db", "{T}/empty.db", "--force"], 2, "--force will not replace"),
        Case("force over truncated", run + ["--db", "{T}/truncated.db", "--force"], 2, "--force will not replace"),
        Case("force over directory", run + ["--db", "{T}/dir.db", "--force"], 2, "is a directory"),
        Case("db in missing directory", run + ["--db", "{T}/no/such/x.db"], 2, "no such directory"),
        Case("db where nothing can be created", run + ["--db", "/proc/ncp2-test.db"], 2, "cannot create files in"),
        Case("db in a file, not a directory", run + ["--db", "{T}/text.txt/x.db"], 2, "is not a directory"),
        Case("stats in missing directory", run + ["--stats-json", "{T}/no/such/s.json"], 2, "no such directory"),
        Case("stats into a directory", run + ["--stats-json", "{T}/dir.db"], 2, "is a directory"),
        Case("stats where nothing can be created", run + ["--stats-json", "/proc/s.json"], 2,
             "cannot create files in"),
        Case("trace into a directory", ["export-trace", "{T}/good.db", "{T}/dir.db"], 2, "is a directory"),
        Case("trace where nothing can be created", ["export-trace", "{T}/good.db", "/proc/t.json"], 2,
             "cannot create files in"),
    ]
    return cases


def lifecycle_cases():
    long_run = ["run", "counter", "--nodes", "2", "--param", "iterations=10000000", "--progress", "never"]

    def status_of(path, want):
        def check(t):
            p = path.format(T=t)
            if not os.path.exists(p):
                return f"{p} was not written"
            got = sqlite3.connect(p).execute("SELECT status FROM runs").fetchone()[0]
            return None if got == want else f"{p}: status {got}, expected {want}"
        return check

    def stale_removed(t):
        return f"{t}/stale.db.tmp-999999 still exists" if os.path.exists(f"{t}/stale.db.tmp-999999") else None

    def no_directory(t):
        return f"{t}/nodir was created" if os.path.exists(f"{t}/nodir") else None

    return [
        Case("SIGHUP keeps the partial run", long_run + ["--db", "{T}/hup.db"], 1, "interrupted",
             interrupt=(signal.SIGHUP, 2.0), check=status_of("{T}/hup.db", "incomplete")),
        Case("SIGTERM keeps the partial run", long_run + ["--db", "{T}/term.db"], 1, "interrupted",
             interrupt=(signal.SIGTERM, 2.0), check=status_of("{T}/term.db", "incomplete")),
        Case("SIGINT after --force keeps the complete run", long_run + ["--db", "{T}/complete.db", "--force"], 1,
             "holds a complete run", interrupt=(signal.SIGINT, 2.0),
             check=status_of("{T}/complete.db.incomplete", "incomplete")),
        Case("stale temporary file removed", ["run", "counter", "--nodes", "2", "--db", "{T}/stale.db"], 0,
             "removed", check=stale_removed),
        Case("history directory not created", ["run", "counter", "--nodes", "2"], 0,
             "the run history was not recorded", env={"NCP2_HISTORY": "{T}/nodir/history.jsonl"},
             check=no_directory),
    ]


def program_cases():
    return [
        Case("program is a text file", ["run", "{T}/text.txt"], 2, "text.txt"),
        Case("program missing", ["run", "{T}/nosuch-prog"], 2, "nosuch-prog"),
        Case("program not built with ncp2-cc", ["run", "/bin/true", "--nodes", "2"], 1,
             "is it a TreadMarks program built with ncp2-cc?"),
        Case("program crashes", ["run", "{T}/errors", "--nodes", "3", "--", "segv"], 1,
             "node 1: crashed: Segmentation fault"),
        Case("program aborts", ["run", "{T}/errors", "--nodes", "3", "--", "abort"], 1, "node 1: crashed: Aborted"),
        Case("program killed", ["run", "{T}/errors", "--nodes", "3", "--", "kill"], 1, "killed by SIGKILL"),
        Case("program misuses a lock", ["run", "{T}/errors", "--nodes", "2", "--", "release"], 1,
             "releases lock 3 which it does not hold"),
        Case("node output into a file", ["run", "{T}/errors", "--nodes", "2", "--node-output", "{T}/text.txt"], 2,
             "text.txt: is not a directory"),
        Case("node output into a missing directory", ["run", "{T}/errors", "--nodes", "2", "--node-output",
                                                      "{T}/no/dir"], 2, "no such directory (create it first)"),
        Case("program without race checks", ["run", "{T}/errors", "--nodes", "2", "--detect-races"], 2,
             "built without access checks"),
        Case("crashing program's database", ["run", "{T}/errors", "--nodes", "3", "--db", "{T}/crash.db", "--",
                                            "segv"], 1, "Segmentation fault",
             check=lambda t: None if sqlite3.connect(f"{t}/crash.db").execute(
                 "SELECT status FROM runs").fetchone()[0] == "failed" else "crash.db is not marked failed"),
    ]


def sweep_cases():
    """`ncp2 sweep` (issue 44 item 4): bad input refused before anything runs, naming the key, the
    value and the allowed range; another sweep's folder needs --force; a point failing at run time
    is marked failed and the sweep goes on."""
    def sweep(*args, out="{T}/sweep-new"):
        return ["sweep", "counter", "--nodes", "1,2", *args, "--out", out]

    def nothing_at(path):
        return lambda t: f"{path.format(T=t)} was created" if os.path.exists(path.format(T=t)) else None

    def sweep_intact(t):
        points = sqlite3.connect(f"{t}/sweep-old/sweep.db").execute("SELECT name, status FROM points").fetchall()
        ok = points == [("ncp2-n1", "done")] and os.path.exists(f"{t}/sweep-old/points/ncp2-n1.db")
        return None if ok else f"the earlier sweep changed: {points}"

    def not_a_sweep_intact(t):
        text = open(f"{t}/not-a-sweep/sweep.db").read()
        return None if text == "results of an earlier experiment\n" else "not-a-sweep/sweep.db changed"

    def failed_and_went_on(t):
        points = dict(sqlite3.connect(f"{t}/sweep-fail/sweep.db").execute("SELECT name, status FROM points"))
        return None if points == {"ncp2-n1": "done", "ncp2-n2": "failed"} else f"points: {points}"

    nothing = nothing_at("{T}/sweep-new")
    return [
        Case("sweep unknown key", sweep("--set", "network.latency=1us,2us"), 2,
             "--set network.latency=1us: unknown key 'network.latency'; did you mean 'network.link_latency'?",
             check=nothing),
        Case("sweep value out of range", sweep("--set", "network.link_latency=1us,2s"), 2,
             "--set network.link_latency=2s: key 'network.link_latency' (duration): 2s is out of range: allowed 0 s .. 1 s",
             check=nothing),
        Case("sweep value without unit", sweep("--set", "network.link_latency=1us,5"), 2,
             "--set network.link_latency=5: key 'network.link_latency' (duration): duration '5' needs a unit"),
        Case("sweep value of the wrong unit", sweep("--set", "network.link_bandwidth=1 GB/s,1us"), 2,
             "--set network.link_bandwidth=1us: key 'network.link_bandwidth' (bandwidth): unknown bandwidth unit 'us'"),
        Case("sweep empty node list", ["sweep", "counter", "--nodes", "", "--out", "{T}/sweep-new"], 2,
             "--nodes: the list is empty", check=nothing),
        Case("sweep empty value list", sweep("--set", "network.link_latency="), 2,
             "--set network.link_latency: the list is empty"),
        Case("sweep empty value in a list", sweep("--set", "network.link_latency=1us,,2us"), 2, "has an empty value"),
        Case("sweep empty machine list", sweep("--machine", ""), 2, "--machine: the list is empty"),
        Case("sweep node count twice", ["sweep", "counter", "--nodes", "1,2,2", "--out", "{T}/sweep-new"], 2,
             "--nodes: 2 is given twice"),
        Case("sweep value twice", sweep("--set", "network.link_latency=1us,1us"), 2,
             "--set network.link_latency: 1us is given twice"),
        Case("sweep one value written twice", sweep("--set", "network.link_latency=1us,1000ns"), 2,
             "--set network.link_latency: 1us and 1000ns are the same value"),
        Case("sweep zero nodes", ["sweep", "counter", "--nodes", "0,2", "--out", "{T}/sweep-new"], 2,
             "--nodes: 0 is out of range (expected 1 to 16384)", check=nothing),
        Case("sweep nodes not a number", ["sweep", "counter", "--nodes", "1,two", "--out", "{T}/sweep-new"], 2,
             "'two' is not a whole number"),
        Case("sweep too many nodes", ["sweep", "counter", "--nodes", "1,16385", "--out", "{T}/sweep-new"], 2,
             "16385 is out of range"),
        Case("sweep without nodes", ["sweep", "counter", "--out", "{T}/sweep-new"], 2, "--nodes is missing"),
        Case("sweep without out", ["sweep", "counter", "--nodes", "1"], 2, "--out is missing"),
        Case("sweep on the real machine", sweep("--machine", "ncp2,real"), 2, "real runs are measured, not emulated"),
        Case("sweep unknown machine", sweep("--machine", "ncp2,vax"), 2, "--machine: 'vax' is not one of: ncp2, treadmarks"),
        Case("sweep key given twice", sweep("--set", "cp.clock_mhz=25", "--set", "cp.clock_mhz=50"), 2,
             "--set cp.clock_mhz is given twice: give all its values in one list"),
        Case("sweep nodes through --set", sweep("--set", "machine.nodes=4,8"), 2,
             "--set machine.nodes: give the sweep's node counts with --nodes"),
        Case("sweep set without values", sweep("--set", "network.link_latency"), 2, "expected KEY=V1,V2"),
        Case("sweep point that cannot be", ["sweep", "counter", "--nodes", "1,9", "--set", "network.topology=star",
                                            "--out", "{T}/sweep-new"], 2, "cannot connect 9 nodes"),
        Case("sweep unknown workload", ["sweep", "nosuch", "--nodes", "1", "--out", "{T}/sweep-new"], 2,
             "workloads: counter"),
        Case("sweep parameter misspelt", sweep("--param", "itertions=5"), 2, "did you mean 'iterations'?"),
        Case("sweep program missing", ["sweep", "{T}/nosuch-prog", "--nodes", "1", "--out", "{T}/sweep-new"], 2,
             "nosuch-prog (build it with ncp2-cc)"),
        Case("sweep program not built with ncp2-cc", ["sweep", "/bin/true", "--nodes", "1", "--out", "{T}/sweep-new"],
             2, "/bin/true was not built with ncp2-cc", check=nothing),
        Case("sweep program is a text file", ["sweep", "{T}/text.txt", "--nodes", "1", "--out", "{T}/sweep-new"], 2,
             "text.txt was not built with ncp2-cc"),
        Case("sweep program arguments to a workload", sweep() + ["--", "x"], 2, "is a built-in workload"),
        Case("sweep target-mhz without the measured model", sweep("--target-mhz", "100"), 2,
             "--target-mhz and --scale need --time-model measured"),
        Case("sweep jobs 0", sweep("-j", "0"), 2, "--jobs: 0 is out of range"),
        Case("sweep json and csv", sweep("--json", "--csv"), 2, "choose one of --json and --csv"),
        Case("sweep out where nothing can be created", sweep(out="/proc/ncp2-sweep"), 2, "cannot create the folder"),
        Case("sweep out is a file", sweep(out="{T}/text.txt"), 2, "is not a folder"),
        Case("sweep folder of another sweep", sweep(out="{T}/sweep-old"), 2, "holds another sweep",
             check=sweep_intact),
        Case("sweep --force over a file that is not a sweep", sweep("--force", out="{T}/not-a-sweep"), 2,
             "not-a-sweep/sweep.db is not an SQLite database", check=not_a_sweep_intact),
        Case("sweep point failing at run time", ["sweep", "{T}/errors", "--nodes", "1,2", "--out", "{T}/sweep-fail",
                                                 "--", "segv"], 1, "failed  ncp2-n2: run error: node 1: crashed: Segmentation fault",
             check=failed_and_went_on),
    ]


def gui_cases():
    shot = ["--screenshot", "{T}/shot.png"]
    cases = []
    for f, m in [("text.txt", "is not an SQLite database"), ("foreign.db", "is not an NCP2-Carnival database"),
                 ("missing.db", "no such file"), ("truncated.db", "truncated.db"), ("dir.db", "is a directory"),
                 ("empty.db", "is not an SQLite database")]:
        cases.append(Case(f"GUI opens {f}", shot + [f"{{T}}/{f}"], 2, m, program="carnival"))
        cases.append(Case(f"GUI compares with {f}", shot + ["--view", "compare", "--compare", f"{{T}}/{f}", "{T}/good.db"],
                          2, m, program="carnival"))
    cases += [
        Case("GUI unknown view", shot + ["--view", "nosuch", "{T}/good.db"], 2, "unknown view 'nosuch'",
             program="carnival"),
        Case("GUI tiny size", shot + ["--size", "10x10", "{T}/good.db"], 2, "--size '10x10'", program="carnival"),
        Case("GUI two files", shot + ["{T}/good.db", "{T}/good.db"], 2, "one database at a time",
             program="carnival"),
        Case("GUI no such node", shot + ["--node", "9", "{T}/good.db"], 2, "has no node 9", program="carnival"),
        Case("GUI compare without B", shot + ["--view", "compare", "{T}/good.db"], 2, "--compare B.db",
             program="carnival"),
    ]
    return cases


def make_fixtures(t, bin_dir, src, config_files):
    env = dict(os.environ, NCP2_HISTORY="")
    subprocess.run([f"{bin_dir}/ncp2", "run", "counter", "--nodes", "2", "--db", f"{t}/good.db"], env=env,
                   check=True, capture_output=True)
    shutil.copy(f"{t}/good.db", f"{t}/complete.db")
    with open(f"{t}/text.txt", "w") as f:
        f.write("results of an earlier experiment\n")
    db = sqlite3.connect(f"{t}/foreign.db")
    db.execute("CREATE TABLE samples (x INTEGER)")
    db.execute("INSERT INTO samples VALUES (42)")
    db.commit()
    db.close()
    open(f"{t}/empty.db", "w").close()
    good = open(f"{t}/good.db", "rb").read()
    open(f"{t}/truncated.db", "wb").write(good[:3000])
    open(f"{t}/garbage.db", "wb").write(b"SQLite format 3\x00" + bytes((i * 37) % 256 for i in range(5000)))
    os.mkdir(f"{t}/dir.db")
    for name, text in config_files.items():
        with open(f"{t}/{name}", "w", encoding="latin-1") as f:
            f.write(text)
    open(f"{t}/stale.db.tmp-999999", "w").write("left by a killed run")
    subprocess.run([f"{bin_dir}/ncp2-cc", "-O1", "-o", f"{t}/errors", f"{src}/tests/tmk/programs/errors.c"],
                   check=True, capture_output=True)
    # A finished sweep, and a folder whose sweep.db is not a sweep's (ncp2 sweep's cases).
    subprocess.run([f"{bin_dir}/ncp2", "sweep", "counter", "--nodes", "1", "--param", "iterations=5", "--out",
                    f"{t}/sweep-old"], env=env, check=True, capture_output=True)
    os.mkdir(f"{t}/not-a-sweep")
    with open(f"{t}/not-a-sweep/sweep.db", "w") as f:
        f.write("results of an earlier experiment\n")


def fingerprints(t):
    """Every fixture file's digest (the files a case may create are not fixtures)."""
    out = {}
    for name in sorted(os.listdir(t)):
        p = os.path.join(t, name)
        if os.path.isfile(p):
            out[name] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


def run_case(case, t, bin_dir):
    args = [a.replace("{T}", t) for a in case.args]
    env = dict(os.environ, NCP2_HISTORY="", QT_QPA_PLATFORM="offscreen")
    env.update({k: v.replace("{T}", t) for k, v in case.env.items()})
    proc = subprocess.Popen([f"{bin_dir}/{case.program}"] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, text=True, errors="replace")
    if case.interrupt:
        sig, after = case.interrupt
        time.sleep(after)
        proc.send_signal(sig)
    try:
        out, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        return "did not finish in 120 s", ""
    if proc.returncode < 0 or proc.returncode >= 128:
        return f"crashed (exit {proc.returncode})", out
    if proc.returncode != case.code:
        return f"exit {proc.returncode}, expected {case.code}", out
    if case.message not in out:
        return f"no '{case.message}' in the output", out
    if case.check:
        problem = case.check(t)
        if problem:
            return problem, out
    return None, out


def main():
    bin_dir, src = sys.argv[1], sys.argv[2]
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    configs, config_files = config_cases()
    cases = cli_cases() + configs + database_cases() + lifecycle_cases() + program_cases() + sweep_cases()
    if os.path.exists(f"{bin_dir}/carnival"):
        cases += gui_cases()
    else:
        print("note: no carnival GUI in", bin_dir, "- its cases are skipped")
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    cases = [c for c in cases if only in c.name]
    failures = 0
    with tempfile.TemporaryDirectory() as t:
        make_fixtures(t, bin_dir, src, config_files)
        for case in cases:
            before = fingerprints(t)
            problem, out = run_case(case, t, bin_dir)
            after = fingerprints(t)
            changed = [n for n in before if after.get(n) != before[n] and not n.startswith("stale.db")]
            if not problem and changed:
                problem = "changed or removed earlier files: " + ", ".join(changed)
            if problem:
                failures += 1
                print(f"FAIL {case.name}: {problem}")
                print("  $", case.program, " ".join(case.args))
                print("  " + "\n  ".join(out.strip().splitlines()[-8:]))
            else:
                print(f"ok   {case.name}")
    print(f"{len(cases) - failures} of {len(cases)} bad-input cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
