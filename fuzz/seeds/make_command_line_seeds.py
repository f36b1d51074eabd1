"""Seeds of the command-line fuzz target (fuzz/command_line_fuzz.cpp): ncp2's arguments, one per
line, from the README's examples and a few refusals."""
import pathlib
import sys

SEEDS = {
    "config": ["config", "--machine", "treadmarks", "--set", "network.link_latency=200ns"],
    "config_keys": ["config", "--keys", "--markdown"],
    "demo_network": ["demo-network", "--machine", "treadmarks", "--pattern", "ping-pong", "--rounds", "3"],
    "run_sor": ["run", "sor", "--preset", "paper", "--nodes", "8", "--baseline"],
    "run_phases": ["run", "phases", "--machine", "treadmarks", "--nodes", "8", "--preset", "small", "--param",
                   "phases=6", "--db", "runs/phases.db"],
    "run_seed": ["run", "false-sharing", "--nodes", "8", "--preset", "paper", "--seed", "7", "--stats-json",
                 "stats.json"],
    "run_program": ["run", "./prog", "--nodes", "4", "--detect-races", "--", "arg1", "-x"],
    "report": ["report", "runs/phases.db", "--view", "cpwait,causes", "--format", "markdown", "--top", "5"],
    "export_trace": ["export-trace", "runs/phases.db", "trace.json"],
    "workloads": ["workloads", "--json"],
    "timing": ["timing"],
    "clocksync": ["clocksync", "--procs", "3", "--inject-offset-us", "500"],
    "counters": ["counters", "--period", "10ms", "--plot", "c.png", "--", "true"],
    "help": ["run", "--help"],
    "version": ["--version"],
    "unknown": ["rnu", "sor"],
}
out = pathlib.Path(sys.argv[1])
for name, args in SEEDS.items():
    (out / name).write_text("\n".join(args))
