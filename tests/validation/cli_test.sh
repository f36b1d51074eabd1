#!/usr/bin/env bash
# `ncp2 calibrate` and `ncp2 validate` as a user runs them (docs/validation.md): their errors say
# what is wrong, exit non-zero and leave earlier results intact; one calibration writes a preset
# that `ncp2 run --config` accepts; validate without --preset calibrates this host once, keeps it
# (in the test's own NCP2_CALIBRATION_CACHE), reuses it, and makes it again when it is damaged or
# asked; one validation stores its databases and prints the JSON the issue names.
# Usage: cli_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
export NCP2_CALIBRATION_CACHE="$tmp/cache"  # never the user's own
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
timeout=$(command -v timeout)

# expect CODE PATTERN ARGS...: ncp2 ARGS exits CODE (2: refused before running, 1: a run failed)
# and prints PATTERN (a fixed string).
expect() {
  local code="$1" pattern="$2"
  shift 2
  local status
  "$timeout" 600 "$bin/ncp2" "$@" >"$tmp/out" 2>&1
  status=$?
  if [ "$status" -ne "$code" ]; then fail "ncp2 $* exited $status, expected $code"; cat "$tmp/out"; return 1; fi
  if ! grep -qF -- "$pattern" "$tmp/out"; then fail "ncp2 $*: no '$pattern' in"; cat "$tmp/out"; return 1; fi
  echo "ok: ncp2 $*"
}

"$bin/ncp2-cc" -O1 -o "$tmp/jacobi" "$src/examples/jacobi.c" -lm || { echo "FAIL: ncp2-cc"; exit 1; }
cat >"$tmp/fails.c" <<'EOF'
#include <stdlib.h>
#include <tmk.h>
int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 1) abort();
  Tmk_barrier(0);
  Tmk_exit(0);
}
EOF
"$bin/ncp2-cc" -O1 -o "$tmp/fails" "$tmp/fails.c" || { echo "FAIL: ncp2-cc fails.c"; exit 1; }

# calibrate: its errors, before anything runs.
expect 2 "--machine" calibrate -o "$tmp/c.toml"
expect 2 "real" calibrate --machine emulated -o "$tmp/c.toml"
echo "keep me" >"$tmp/earlier.toml"
expect 2 "--force" calibrate --machine real -o "$tmp/earlier.toml"
grep -qx "keep me" "$tmp/earlier.toml" || fail "calibrate changed an existing preset without --force"
mkdir "$tmp/dir.toml"
expect 2 "directory" calibrate --machine real -o "$tmp/dir.toml"
expect 2 "same file" calibrate --machine real -o "$tmp/c.toml" --json "$tmp/c.toml"
expect 2 "--force" calibrate --machine real -o "$tmp/c.toml" --json "$tmp/earlier.toml"
expect 2 "directory" calibrate --machine real -o "$tmp/c.toml" --json "$tmp/dir.toml"
NCP2_MPIRUN="$tmp/no-such-mpirun" expect 2 "mpirun" calibrate --machine real -o "$tmp/c.toml"
echo "localhost slots=two" >"$tmp/bad-hosts"
expect 2 "hostfile" calibrate --machine real --hostfile "$tmp/bad-hosts" -o "$tmp/c.toml"
expect 2 "no-such-hosts" calibrate --machine real --hostfile "$tmp/no-such-hosts" -o "$tmp/c.toml"
[ -e "$tmp/c.toml" ] && fail "a failed calibration left $tmp/c.toml"

# calibrate: three rounds on 2 processes; every fitted value marked MEASURED; usable as a preset;
# --json: every basic cost with its median, min, max, 90th percentile (nearest rank: with 3 rounds
# the largest) and rounds, in order.
if expect 0 "fitted (treadmarks machine: a real node" calibrate --machine real --rounds 3 -o "$tmp/c.toml" --json "$tmp/c.json"; then
  grep -q "^# Calibrated by" "$tmp/c.toml" || fail "the preset does not say how it was made"
  [ "$(grep -c "MEASURED" "$tmp/c.toml")" -ge 5 ] || fail "fewer than 5 values marked MEASURED"
  expect 0 "status" run sor --nodes 2 --config "$tmp/c.toml" --preset small --no-history
  python3 - "$tmp/c.json" <<'PY' || fail "calibrate --json: $(cat "$tmp/c.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["nodes"] == 2 and j["command"].startswith("ncp2 calibrate") and j["fitted"], j
names = [c["operation"] for c in j["costs"]]
assert len(names) >= 5 and len(set(names)) == len(names), names
for c in j["costs"]:
    assert c["rounds"] == 3, c
    assert 0 < c["min_us"] <= c["median_us"] <= c["p90_us"] <= c["max_us"], c
    assert c["p90_us"] == c["max_us"], c  # ceil(0.9 * 3) = 3: the largest of three
assert j["load_factor"] == 1 and j["loaded_costs"] == [], j  # no node to load the host with
assert all(len(c["rounds_us"]) == 3 for c in j["costs"] if c["operation"].startswith("busy-request-")), j
PY
  # --refit: the kept measurements fitted again give the same preset, nothing measured; a file that
  # is no calibration's JSON, or a measurement option beside it, is refused before anything is written.
  NCP2_MPIRUN="$tmp/no-such-mpirun" expect 0 "nothing is measured" calibrate --machine real --refit "$tmp/c.json" \
    -o "$tmp/r.toml" && { diff <(grep -v "^#" "$tmp/c.toml") <(grep -v "^#" "$tmp/r.toml") >/dev/null ||
    fail "calibrate --refit: the preset differs from the one the measurements made"; }
  grep -q -- "--refit $tmp/c.json" "$tmp/r.toml" || fail "the refitted preset does not say it was refitted"
  echo '{"name": "not a calibration"}' >"$tmp/other.json"
  expect 2 "has no basic costs" calibrate --machine real --refit "$tmp/other.json" -o "$tmp/r2.toml"
  expect 2 "cannot be used with --refit" calibrate --machine real --refit "$tmp/c.json" --nodes 3 -o "$tmp/r2.toml"
  expect 2 "no-such.json" calibrate --machine real --refit "$tmp/no-such.json" -o "$tmp/r2.toml"
  [ -e "$tmp/r2.toml" ] && fail "a refused refit wrote $tmp/r2.toml"
fi

# calibrate on 3 processes: node 2 takes the forwarded lock, then loads the host while nodes 0 and
# 1 time the rest again (the loaded run); the preset's software costs carry the factor read off.
if expect 0 "the same beside 1 nodes that load the host" calibrate --machine real --nodes 3 --rounds 1 \
    -o "$tmp/c3.toml" --json "$tmp/c3.json"; then
  grep -q "for the host's load on 3 nodes" "$tmp/c3.toml" || fail "the 3-node preset does not carry the load"
  python3 - "$tmp/c.json" "$tmp/c3.json" <<'PY' || fail "calibrate --nodes 3 --json: $(cat "$tmp/c3.json")"
import json, sys
idle, j = (json.load(open(f)) for f in sys.argv[1:])
loaded = [c["operation"] for c in j["loaded_costs"]]
assert loaded == [c["operation"] for c in j["costs"]], (loaded, j["costs"])
assert "lock-forwarded" in loaded and "lock-forwarded" not in [c["operation"] for c in idle["costs"]], loaded
assert 1 <= j["load_factor"] <= 8, j["load_factor"]
assert any(c["read"] for c in j["loaded_costs"]) and not any(
    c["read"] for c in j["loaded_costs"] if c["operation"].startswith("busy-request-")), j["loaded_costs"]
PY
fi

# validate: its errors, before anything runs.
expect 2 "program" validate
expect 2 "no-such-prog" validate "$tmp/no-such-prog" --out "$tmp/v0"
expect 2 "no-such.toml" validate "$tmp/jacobi" --preset "$tmp/no-such.toml" --out "$tmp/v0" -- 66 66 2
NCP2_MPIRUN="$tmp/no-such-mpirun" expect 2 "mpirun" validate "$tmp/jacobi" --out "$tmp/v0" -- 66 66 2
expect 2 "hostfile" validate "$tmp/jacobi" --hostfile "$tmp/bad-hosts" --out "$tmp/v0" -- 66 66 2
[ -e "$tmp/v0" ] && fail "a refused validation created $tmp/v0"

expect 2 "cannot be used with" validate "$tmp/jacobi" --recalibrate --preset "$tmp/earlier.toml" --out "$tmp/v0"
[ -e "$tmp/cache" ] && fail "a refused validation created the calibration cache"

# validate without --preset: this host's calibration, made at the first validation (2 rounds: the
# test is about keeping it, not about its values), said, kept, reused.
cal=(--calibrate-rounds 2)
kept="$tmp/cache/$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')-2n"
if expect 0 "calibration: none is kept for this host and node count; calibrating this host on 2 real processes (2 rounds" \
    validate "$tmp/jacobi" --repeat 1 --predictions 2 "${cal[@]}" --out "$tmp/va" -- 66 66 2; then
  grep -qF "to keep in $kept.toml" "$tmp/out" || fail "validate did not say where it keeps the calibration"
  grep -qF "calibration $kept.toml, made " "$tmp/out" || fail "the comparison does not name the calibration"
  grep -qF "made now)" "$tmp/out" || fail "the comparison does not say the calibration was made now"
  grep -qF "median of 2 emulated runs" "$tmp/out" || fail "the prediction is not the median of 2 runs"
  { [ -s "$kept.toml" ] && [ -s "$kept.json" ]; } || fail "no calibration kept in $tmp/cache"
  grep -q "^# Calibrated by \`ncp2 calibrate --machine real --nodes 2 --rounds 2\`" "$kept.toml" ||
    fail "the kept calibration is not what ncp2 calibrate writes"
  for f in emulated-1.db emulated-2.db real-1.db comparison.json; do
    [ -s "$tmp/va/$f" ] || fail "validate stored no $f"
  done
  [ -e "$tmp/va/emulated-3.db" ] && fail "validate made more predictions than asked"
  cp "$tmp/va/comparison.json" "$tmp/va-kept.json"
fi
if expect 0 "calibration: reused $kept.toml, made " validate "$tmp/jacobi" --repeat 1 --predictions 1 "${cal[@]}" \
    --out "$tmp/vb" -- 66 66 2; then
  grep -qF "kept from an earlier validation" "$tmp/out" || fail "the comparison does not say the calibration was kept"
fi
# A damaged calibration is said, naming the file, and made again; so is a damaged record.
echo "message_cost = [" >>"$kept.toml"
if expect 0 "the kept calibration $kept.toml cannot be used" validate "$tmp/jacobi" --repeat 1 --predictions 1 \
    "${cal[@]}" --out "$tmp/vb" --force -- 66 66 2; then
  grep -qF "calibration: made $kept.toml" "$tmp/out" || fail "a damaged calibration was not made again"
fi
grep -qF "message_cost = [" "$kept.toml" && fail "the damaged calibration was kept"
echo '{"format": 1, "host": ' >"$kept.json"
expect 0 "the kept calibration's record $kept.json cannot be read" validate "$tmp/jacobi" --repeat 1 \
  --predictions 1 "${cal[@]}" --out "$tmp/vb" --force -- 66 66 2
expect 0 "calibration: --recalibrate; calibrating" validate "$tmp/jacobi" --repeat 1 --predictions 1 --recalibrate \
  "${cal[@]}" --out "$tmp/vb" --force -- 66 66 2
# A cache that cannot be written: refused before anything runs, the earlier validation intact.
NCP2_CALIBRATION_CACHE="$tmp/earlier.toml/cache" expect 2 "cannot keep this host's calibration" \
  validate "$tmp/jacobi" --repeat 1 --out "$tmp/va" --force -- 66 66 2
grep -qF "$tmp/earlier.toml/cache" "$tmp/out" || fail "the refused cache directory is not named"
cmp -s "$tmp/va/comparison.json" "$tmp/va-kept.json" || fail "a refused validation changed the earlier one"

# The predictions run the program's own executable as processes, as the real runs do: a program
# the fiber runner refuses (a signal handler of its own) is validated, whatever the environment's
# runner.
"$bin/ncp2-cc" -O1 -o "$tmp/own_handler" "$src/tests/tmk/programs/own_signal_handler.c" ||
  fail "ncp2-cc own_signal_handler.c"
if [ -s "$tmp/c.toml" ]; then
  NCP2_RUNNER=fiber expect 0 "predicted" validate "$tmp/own_handler" --repeat 2 --predictions 2 \
    --preset "$tmp/c.toml" --out "$tmp/vh"
  [ -s "$tmp/vh/emulated-1.db" ] || fail "no prediction of a program with its own signal handler"
  # The two kinds in turn: a slower stretch of the host falls on both sides.
  order=$(grep -oE "(real|emulated) run [0-9]/2" "$tmp/out" | tr '\n' ',')
  [ "$order" = "real run 1/2,emulated run 1/2,real run 2/2,emulated run 2/2," ] ||
    fail "validate did not take the real and the emulated runs in turn: $order"
fi

# A program that fails on real processes: said, with the run's own words, and nothing compared.
expect 1 "real run" validate "$tmp/fails" --repeat 1 "${cal[@]}" --out "$tmp/vf"
[ -e "$tmp/vf/comparison.json" ] && fail "a failed validation wrote a comparison"

# validate: one real run and two predictions, as JSON with the issue's fields (stdout is the one
# object; what is said goes to stderr); stored.
if "$timeout" 600 "$bin/ncp2" validate "$tmp/jacobi" --repeat 1 --predictions 2 "${cal[@]}" --json --out "$tmp/v1" \
    -- 66 66 2 >"$tmp/out" 2>"$tmp/err"; then
  echo "ok: ncp2 validate --json"
  grep -qF "calibration: reused" "$tmp/err" || fail "validate --json: the calibration is not said on stderr"
  python3 - "$tmp/out" "$kept.toml" <<'EOF' || fail "validate --json: fields"
import json, sys
o = json.loads(open(sys.argv[1]).read())
for key in ("program", "nodes", "repeat", "measured_s", "measured_spread_pct", "predicted_s", "error_pct",
            "categories", "preset", "predictions", "predicted_runs_s", "predicted_spread_pct", "too_short",
            "calibration"):
    assert key in o, key
assert o["nodes"] == 2 and o["repeat"] == 1 and o["predictions"] == 2, o
assert len(o["predicted_runs_s"]) == 2 and o["predicted_spread_pct"] >= 0, o
assert o["too_short"] is None, o["too_short"]  # one real run: no spread
c = o["calibration"]
assert c["path"] == sys.argv[2] == o["preset"] and c["reused"] is True and c["rounds"] == 2, c
assert o["measured_s"] > 0 and o["predicted_s"] > 0, o
names = {c["name"] for c in o["categories"]}
for name in ("page fault", "diff fetch", "lock acquire", "barrier"):
    assert name in names, names
for c in o["categories"]:
    assert set(c) >= {"name", "measured_s", "predicted_s", "error_pct"}, c
EOF
  for f in comparison.json comparison.txt emulated-1.db emulated-2.db real-1.db; do
    [ -s "$tmp/v1/$f" ] || fail "validate stored no $f"
  done
  cp "$tmp/v1/comparison.json" "$tmp/kept.json"
  # An earlier validation is kept unless --force.
  expect 2 "--force" validate "$tmp/jacobi" --repeat 1 --out "$tmp/v1" -- 66 66 2
  cmp -s "$tmp/v1/comparison.json" "$tmp/kept.json" || fail "a refused validation changed the earlier one"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all calibrate/validate checks passed"
