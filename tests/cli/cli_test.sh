#!/usr/bin/env bash
# The ncp2 command as a user meets it: help, exit codes (0 ok, 1 run failure, 2 usage/config),
# and messages that name the file and key.
set -u
ncp2="$1"
src="$2"
fixture="${3:-}"  # carnival_fixture: writes a synthetic CARNIVAL database
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
export NCP2_HISTORY="$tmp/history.jsonl"  # never the user's own run history

# expect CODE PATTERN -- ARGS...: runs ncp2 ARGS, checks the exit code and that PATTERN occurs in
# stdout+stderr (fixed string).
expect() {
  local code="$1" pattern="$2"
  shift 3
  local out status
  out=$("$ncp2" "$@" 2>&1)
  status=$?
  if [ "$status" -ne "$code" ]; then
    echo "FAIL: ncp2 $* exited $status, expected $code"; echo "$out" | head -20; failures=$((failures + 1)); return
  fi
  if ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: ncp2 $*: output lacks '$pattern'"; echo "$out" | head -20; failures=$((failures + 1)); return
  fi
  echo "ok: ncp2 $*"
}

expect 0 "Subcommands:" -- --help
expect 0 "--machine" -- config --help
expect 0 "--pattern" -- demo-network --help
expect 2 "no command given" --
expect 2 "teleport" -- teleport
expect 0 'kind = "ncp2"' -- config
expect 0 'kind = "treadmarks"' -- config --machine treadmarks
expect 0 'link_latency = "250 ns"' -- config --set network.link_latency=250ns
expect 0 'nodes = 16' -- config --nodes 16
# The largest machine (issue 21 goal 6: bench/scale runs the barrier workload on it).
expect 0 'nodes = 16384' -- config --nodes 16384
expect 2 "16385 is out of range (expected 1 to 16384)" -- config --nodes 16385
expect 0 "network.link_bandwidth" -- config --keys
expect 2 "did you mean 'network.link_latency'" -- config --set network.latency=1us
expect 2 "cannot connect 9 nodes" -- config --nodes 9 --set network.topology=star
expect 2 "no such configuration file" -- config --config "$tmp/missing.toml"
printf '[network]\nlink_bandwith = "1 GB/s"\n' >"$tmp/typo.toml"
expect 2 "$tmp/typo.toml:2:1: unknown key 'network.link_bandwith'; did you mean 'network.link_bandwidth'?" -- config --config "$tmp/typo.toml"
printf '[network]\nlink_bandwidth = "0 MB/s"\n' >"$tmp/zero.toml"
expect 2 "0 MB/s is out of range: allowed 1 kB/s" -- config --config "$tmp/zero.toml"
expect 2 "machine" -- config --machine vax
expect 0 'kind = "treadmarks"' -- config --config "$src/configs/treadmarks.toml"
expect 0 "cp-queued" -- demo-network --nodes 3
expect 0 "pp-handler-start" -- demo-network --machine treadmarks --nodes 3
expect 0 "12 messages" -- demo-network --pattern ping-pong --rounds 6 --summary
expect 2 "at least 2 nodes" -- demo-network --pattern ping-pong --nodes 1
expect 2 "rounds" -- demo-network --rounds 0

# Workloads: listing, running, exit codes, statistics file.
expect 0 "preset small" -- workloads
expect 0 '"presets"' -- workloads --json
expect 0 "--stats-json" -- run --help
expect 0 "verified  yes" -- run counter --nodes 4
expect 0 "verified  yes: 6 nodes passed 10 barrier episodes together" -- run barrier --nodes 6
expect 0 "KiB per node" -- run barrier --nodes 6 --preset small
# The run history: speedup unknown, then measured with --baseline, then known from the history.
expect 0 "add --baseline" -- run phases --nodes 4 --preset small
expect 0 "baseline  measuring phases on 1 node" -- run phases --nodes 4 --preset small --baseline
expect 0 "speedup   " -- run phases --nodes 2 --preset small
if [ "$(grep -c '"nodes":1' "$NCP2_HISTORY")" -ne 1 ]; then
  echo "FAIL: the 1-node baseline should be recorded once"; failures=$((failures + 1))
fi
expect 0 "speedup   " -- run phases --nodes 4 --preset small --progress always
expect 0 "speedup   unknown (no run history" -- run phases --nodes 4 --preset small --no-history
NCP2_HISTORY= expect 0 "speedup   unknown (no run history" -- run phases --nodes 4 --preset small
expect 2 "--progress" -- run phases --progress sometimes
echo 'not json' >>"$NCP2_HISTORY"
expect 0 "speedup   " -- run phases --nodes 2 --preset small
expect 0 "verified  yes" -- run phases --machine treadmarks --nodes 3 --preset small
expect 0 "verified  yes" -- run false-sharing --nodes 8 --preset small --seed 9 --param rounds=2
expect 2 "workloads: counter, phases, false-sharing" -- run nosuch
expect 2 "did you mean 'iterations'?" -- run counter --param itertions=5
expect 2 "parameter 'iterations' of workload 'counter' expects an integer, got 'x'" -- run counter --param iterations=x
expect 2 "needs at least one element per node: n=4 < nodes=8" -- run phases --nodes 8 --param n=4
expect 2 "parameter 'n' must be at least 1, got 0" -- run phases --param n=0
expect 2 "no preset 'huge'" -- run counter --preset huge
expect 2 "did you mean 'network.link_latency'" -- run counter --set network.latency=1us
expect 2 "workload is missing; see ncp2 run --help" -- run
expect 0 "barriers 5" -- run phases --nodes 4 --preset small --stats-json "$tmp/stats.json"
if [ -f "$tmp/stats.json" ] && [ ! -e "$tmp/stats.json.tmp" ] && grep -qF '"verified": true' "$tmp/stats.json" \
   && grep -qF '"barrier_release":' "$tmp/stats.json"; then
  echo "ok: --stats-json wrote $tmp/stats.json"
else
  echo "FAIL: --stats-json did not write the expected file"; failures=$((failures + 1))
fi
expect 2 "no such directory" -- run counter --nodes 2 --stats-json "$tmp/no/such/dir/stats.json"

# An interrupted run (SIGINT) stops cleanly: exit 1, and its database is kept, marked incomplete.
"$ncp2" run phases --nodes 8 --param n=4000000 --param phases=200 --db "$tmp/interrupted.db" >"$tmp/int.out" 2>&1 &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
status=$?
if [ "$status" -ne 1 ]; then
  echo "FAIL: interrupted run exited $status, expected 1"; cat "$tmp/int.out"; failures=$((failures + 1))
elif ! "$ncp2" report "$tmp/interrupted.db" --view nodes 2>&1 | grep -qi "incomplete"; then
  echo "FAIL: the interrupted run's database is not marked incomplete"; failures=$((failures + 1))
else
  echo "ok: SIGINT during ncp2 run leaves an incomplete database"
fi
expect 2 "already exists" -- run counter --nodes 2 --db "$tmp/interrupted.db"
expect 2 "no such directory" -- run counter --nodes 2 --db "$tmp/no/such/dir/x.db"

# CARNIVAL databases: reports, export-trace, and the errors on files that are not ours.
expect 0 "--view" -- report --help
expect 2 "file is missing; see ncp2 report --help" -- report
expect 2 "$tmp/none.db: no such file" -- report "$tmp/none.db"
expect 2 "$tmp/typo.toml is not an SQLite database" -- report "$tmp/typo.toml"
expect 2 "$tmp/stats.json is not an SQLite database" -- export-trace "$tmp/stats.json" "$tmp/trace.json"
expect 2 "--format: 'xml' is not one of: text, markdown" -- report "$tmp/none.db" --format xml
expect 2 "--view" -- report "$tmp/none.db" --view everything
if [ -n "$fixture" ]; then
  "$fixture" "$tmp/run.db" && "$fixture" "$tmp/incomplete.db" --incomplete
  expect 0 "CPWait Map" -- report "$tmp/run.db"
  expect 0 "virtual time 2.00 ms" -- report "$tmp/run.db" --view nodes
  expect 0 "| Location | Category | Operation |" -- report "$tmp/run.db" --view cpwait --format markdown
  expect 0 "# cpwait" -- report "$tmp/run.db" --view scopes,cpwait --format csv
  expect 0 '"cpwait"' -- report "$tmp/run.db" --view cpwait --format json
  expect 0 "2 more source(s) not shown" -- report "$tmp/run.db" --view cpwait --top 2
  expect 0 "WARNING: this run is INCOMPLETE" -- report "$tmp/incomplete.db"
  expect 0 "status 'incomplete': the results are partial" -- report "$tmp/incomplete.db" --format json
  expect 0 "55 events (2 nodes" -- export-trace "$tmp/run.db" "$tmp/trace.json"
  if python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert len(t["traceEvents"]) == 55' "$tmp/trace.json" \
     && [ -z "$(ls "$tmp" | grep -F .tmp-)" ]; then
    echo "ok: export-trace wrote $tmp/trace.json"
  else
    echo "FAIL: export-trace did not write the expected file"; failures=$((failures + 1))
  fi
  expect 2 "no such directory" -- export-trace "$tmp/run.db" "$tmp/no/such/dir/trace.json"
  # A truncated database is recognised as such.
  head -c 4096 "$tmp/run.db" >"$tmp/truncated.db"
  expect 2 "$tmp/truncated.db is corrupt" -- report "$tmp/truncated.db"
  # Two runs compared: the same run against itself, against an interrupted copy; bad files.
  expect 0 "B/A" -- compare "$tmp/run.db" "$tmp/run.db"
  expect 0 "1.00x" -- compare "$tmp/run.db" "$tmp/run.db"
  expect 0 "B's run is incomplete" -- compare "$tmp/run.db" "$tmp/incomplete.db"
  expect 0 "section,what,a_ps,b_ps,diff_ps,ratio" -- compare "$tmp/run.db" "$tmp/run.db" --csv
  if "$ncp2" compare "$tmp/run.db" "$tmp/incomplete.db" --json |
     python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["a"]["status"] == "complete" and j["b"]["status"] == "incomplete" and len(j["rows"]) > 10 and all("ratio" in r for r in j["rows"])'; then
    echo "ok: compare --json parses, with a, b and rows"
  else
    echo "FAIL: compare --json"; failures=$((failures + 1))
  fi
  expect 2 "$tmp/none.db: no such file" -- compare "$tmp/run.db" "$tmp/none.db"
  expect 2 "$tmp/truncated.db is corrupt" -- compare "$tmp/truncated.db" "$tmp/run.db"
  expect 2 "choose one of --json and --csv" -- compare "$tmp/run.db" "$tmp/run.db" --json --csv
fi
expect 2 "b is missing" -- compare "$tmp/none.db"

# Counters of a command (`ncp2 counters`): software events work on any Linux; hardware ones are
# reported as not counted where the machine has no PMU (virtual machines).
expect 0 "--period" -- counters --help
expect 2 "no command to run" -- counters
expect 2 "the unit must be us, ms or s" -- counters --period 3 -- true
expect 2 "empty event name" -- counters --events task-clock,,page-faults -- true
expect 127 "cannot execute '$tmp/no-such-program'" -- counters --events task-clock -- "$tmp/no-such-program"
expect 3 "exited with status 3" -- counters --events task-clock --summary -- sh -c 'exit 3'
expect 1 "unknown event 'no-such-event'" -- counters --events no-such-event -- true
expect 0 "task-clock" -- counters --list-events
expect 0 "totals:" -- counters --period 10ms --db "$tmp/counters.db" -- sleep 0.05
expect 2 "already exists; use --force" -- counters --db "$tmp/counters.db" -- true
expect 0 "totals:" -- counters --db "$tmp/counters.db" --force --summary -- true
if out=$("$ncp2" counters --json -o "$tmp/counters.json" --period 10ms -- echo from-the-command 2>/dev/null) \
   && [ "$out" = "from-the-command" ] \
   && python3 - "$tmp/counters.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["exit_code"] == 0 and j["period_ms"] == 10
assert all({"name", "available", "reason"} <= set(e) for e in j["events"])
assert j["samples"] and all("t_s" in s and "values" in s for s in j["samples"])
counted = [e["name"] for e in j["events"] if e["available"]]
assert "task-clock" in counted and j["totals"]["task-clock"] > 0
for e in j["events"]:  # an event not counted never gets a number
    assert e["available"] or (j["totals"][e["name"]] is None and e["reason"])
PY
then
  echo "ok: ncp2 counters --json -o FILE (the command keeps stdout; fields present)"
else
  echo "FAIL: ncp2 counters --json -o FILE"; failures=$((failures + 1))
fi
plot_out=$("$ncp2" counters --events task-clock --summary --plot "$tmp/counters.png" -- true 2>&1)
plot_status=$?
if { [ $plot_status -eq 0 ] && [ "$(head -c 4 "$tmp/counters.png" | tail -c 3)" = "PNG" ]; } \
   || { [ $plot_status -eq 2 ] && grep -qF "built without Qt" <<<"$plot_out"; }; then
  echo "ok: ncp2 counters --plot (a PNG, or a clear 'built without Qt')"
else
  echo "FAIL: ncp2 counters --plot exited $plot_status"; echo "$plot_out" | head -5; failures=$((failures + 1))
fi
if ls "$tmp" | grep -qF .tmp-; then echo "FAIL: counters left a temporary file"; failures=$((failures + 1)); fi
# As an unprivileged user, perf_event_paranoid decides: 2 allows user-space counting only (said as
# a note), 3 and more forbid it (said with the setting and what to change).
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo none)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ "$paranoid" != none ]; then
  chmod 755 "$tmp"
  as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups "$(realpath "$ncp2")" counters --events task-clock --summary -- true)
  nobody_out=$(cd "$tmp" && "${as_nobody[@]}" 2>&1)
  nobody_status=$?
  if { [ "$paranoid" -le 2 ] && [ $nobody_status -eq 0 ] && { [ "$paranoid" -lt 2 ] || grep -qF "user space only (kernel.perf_event_paranoid is 2)" <<<"$nobody_out"; }; } \
     || { [ "$paranoid" -ge 3 ] && [ $nobody_status -eq 1 ] && grep -qF "kernel.perf_event_paranoid is $paranoid" <<<"$nobody_out"; }; then
    echo "ok: ncp2 counters as an unprivileged user (perf_event_paranoid $paranoid)"
  elif [ $nobody_status -ge 126 ] && grep -qF "setpriv:" <<<"$nobody_out"; then
    echo "skip: ncp2 counters as an unprivileged user: nobody cannot execute $ncp2"
  else
    echo "FAIL: ncp2 counters as nobody (perf_event_paranoid $paranoid) exited $nobody_status"; echo "$nobody_out" | head -5
    failures=$((failures + 1))
  fi
fi

# Per-scope host counters in the measured time model, stored with the profile.
expect 2 "--scope-counters needs --time-model measured and --db FILE" -- run counter --nodes 2 --scope-counters task-clock
expect 2 "--scope-counters: empty event name" -- run counter --nodes 2 --time-model measured --db "$tmp/x.db" --scope-counters ,
expect 0 "counters  per scope in $tmp/scoped.db (table scope_counters): task-clock, page-faults" -- \
  run phases --nodes 2 --preset small --time-model measured --db "$tmp/scoped.db" --scope-counters task-clock,page-faults,no-such-event --progress never
if python3 - "$tmp/scoped.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT c.event, sum(c.value) FROM scope_counters c JOIN scopes s "
                  "ON s.run_id = c.run_id AND s.id = c.scope_id GROUP BY c.event").fetchall()
totals = dict(rows)
assert totals.get("task-clock", 0) > 0 and "page-faults" in totals and "no-such-event" not in totals, rows
events = dict(db.execute("SELECT event, available FROM scope_counter_events").fetchall())
assert events == {"task-clock": 1, "page-faults": 1, "no-such-event": 0}, events
PY
then echo "ok: scope_counters stored with the profile"; else echo "FAIL: scope_counters table"; failures=$((failures + 1)); fi

# Host timing: bad flags are usage errors; JSON parses; the measured time model runs and verifies.
expect 2 "--samples" -- timing --samples 0
expect 2 "--calibrate" -- timing --calibrate -1
expect 2 "--procs" -- clocksync --procs 1
expect 2 "--transport" -- clocksync --transport tcp
expect 2 "--exchanges" -- clocksync --exchanges 0
expect 2 "need --time-model measured" -- run counter --nodes 2 --target-mhz 100
expect 2 "--time-model" -- run counter --time-model wallclock
expect 2 "cannot be used with" -- run counter --time-model measured --target-mhz 100 --scale 2
expect 0 "measured  " -- run counter --nodes 4 --time-model measured
expect 0 "verified  yes" -- run phases --nodes 3 --preset small --time-model measured --scale 5
expect 0 "unavailable" -- timing --samples 200 --cold 2 --calibrate 0.01
if "$ncp2" timing --json --samples 200 --cold 2 --calibrate 0.01 >"$tmp/timing.json" 2>/dev/null \
   && python3 - "$tmp/timing.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert {"name", "available", "reason", "overhead_ns", "resolution_ns"} <= set(j["sources"][0])
assert {"invariant", "frequency_hz", "calibration_interval_s", "error_bound_ppm"} <= set(j["tsc"])
PY
then echo "ok: ncp2 timing --json parses"; else echo "FAIL: ncp2 timing --json"; failures=$((failures + 1)); fi
if "$ncp2" clocksync --procs 2 --exchanges 20 --interval-ms 20 --json >"$tmp/sync.json" 2>/dev/null \
   && python3 - "$tmp/sync.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = j["followers"][0]
assert j["transport"] == "shm" and f["ok"] and abs(f["error_ns"]) <= f["error_bound_ns"]
PY
then echo "ok: ncp2 clocksync --json parses, error within bound"; else echo "FAIL: ncp2 clocksync --json"; failures=$((failures + 1)); fi

# ncp2 reproduce: a table's rows with the issue's JSON fields; refusals.
expect 2 "usenix94" -- reproduce nope
expect 2 "give node counts from 1 to 4096" -- reproduce sc95 --nodes 2,x
expect 2 "cannot read configuration" -- reproduce sc95 --configs "$tmp/no-such-dir"
if "$ncp2" reproduce sc95 --nodes 2 --json >"$tmp/reproduce.json" 2>/dev/null \
   && python3 - "$tmp/reproduce.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 4  # SOR non-zero, SOR zero, QSORT (issue 34), Barnes-Hut
for r in rows:
    for key in ("paper", "network", "workload", "machine", "nodes", "published", "emulated", "ratio", "source",
                "provenance", "read_at", "sequential_s", "published_sequential_s"):
        assert key in r, key
    assert r["paper"] == "sc95" and r["nodes"] == 2 and r["emulated"] > 0
    assert abs(r["ratio"] - r["emulated"] / r["published"]) < 1e-9
    assert r["provenance"] == "paper" and r["sequential_s"] > 0
assert [r["published_sequential_s"] for r in rows] == [68, 79, 53, None]
PY
then echo "ok: ncp2 reproduce --json"; else echo "FAIL: ncp2 reproduce --json"; failures=$((failures + 1)); fi

if "$ncp2" reproduce basic-costs --json >"$tmp/costs.json" 2>/dev/null \
   && python3 - "$tmp/costs.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 8
for r in rows:
    assert r["quantity"] == "microseconds" and r["network"] == "atm" and r["emulated"] > 0, r
    assert abs(r["ratio"] - 1) <= 0.10, r
PY
then echo "ok: ncp2 reproduce basic-costs --json"; else echo "FAIL: ncp2 reproduce basic-costs --json"; failures=$((failures + 1)); fi

if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
