#!/usr/bin/env bash
# `ncp2 calibrate` and `ncp2 validate` as a user runs them (docs/validation.md): their errors say
# what is wrong, exit non-zero and leave earlier results intact; one calibration writes a preset
# that `ncp2 run --config` accepts; one validation stores its databases and prints the JSON the
# issue names.
# Usage: cli_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
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
if expect 0 "fitted (treadmarks machine)" calibrate --machine real --rounds 3 -o "$tmp/c.toml" --json "$tmp/c.json"; then
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
PY
fi

# validate: its errors, before anything runs.
expect 2 "program" validate
expect 2 "no-such-prog" validate "$tmp/no-such-prog" --out "$tmp/v0"
expect 2 "no-such.toml" validate "$tmp/jacobi" --preset "$tmp/no-such.toml" --out "$tmp/v0" -- 66 66 2
NCP2_MPIRUN="$tmp/no-such-mpirun" expect 2 "mpirun" validate "$tmp/jacobi" --out "$tmp/v0" -- 66 66 2
expect 2 "hostfile" validate "$tmp/jacobi" --hostfile "$tmp/bad-hosts" --out "$tmp/v0" -- 66 66 2
[ -e "$tmp/v0" ] && fail "a refused validation created $tmp/v0"

# A program that fails on real processes: said, with the run's own words, and nothing compared.
expect 1 "real run" validate "$tmp/fails" --repeat 1 --out "$tmp/vf"
[ -e "$tmp/vf/comparison.json" ] && fail "a failed validation wrote a comparison"

# validate: one real run and the prediction, as JSON with the issue's fields; stored.
if expect 0 '"categories"' validate "$tmp/jacobi" --repeat 1 --json --out "$tmp/v1" -- 66 66 2; then
  python3 - "$tmp/out" <<'EOF' || fail "validate --json: fields"
import json, sys
text = open(sys.argv[1]).read()
o = json.loads(text[text.index("{"):])
for key in ("program", "nodes", "repeat", "measured_s", "measured_spread_pct", "predicted_s", "error_pct",
            "categories", "preset"):
    assert key in o, key
assert o["nodes"] == 2 and o["repeat"] == 1, o
assert o["measured_s"] > 0 and o["predicted_s"] > 0, o
names = {c["name"] for c in o["categories"]}
for name in ("page fault", "diff fetch", "lock acquire", "barrier"):
    assert name in names, names
for c in o["categories"]:
    assert set(c) >= {"name", "measured_s", "predicted_s", "error_pct"}, c
EOF
  for f in comparison.json comparison.txt emulated.db real-1.db; do
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
