#!/usr/bin/env bash
# The held-out programs (validation/held_out/, issue 43), built with ncp2-cc / ncp2-c++ as a user
# would: each one small, run natively, on 2 and 4 emulated nodes of both machines, and under the
# race detector, must verify its own result (the line ending in `verified`, every node exiting 0);
# a wrong argument is refused with the usage and exit 2. With `real`: each on 2 real processes.
# Usage: held_out_test.sh BIN_DIR SOURCE_DIR [emulated|real]
set -u
bin="$1"
src="$2"
mode="${3:-emulated}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=  # never the user's run history
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Small inputs that still take every path: radix_sort with 5-bit digits (7 passes, the result in
# the second array), pipelines with more stages than nodes and with idle nodes, bank with groups
# of 4 accounts per lock (transfers under one lock and under two), task_queue with subtasks.
declare -A small=([radix_sort]="20001 5" [hash_table]="3000 500 32" [mandelbrot]="64 48 300 3"
  [pipeline]="16 256 5 2 4" [bfs]="5000 4" [sample_sort]="20001 8" [bank]="200 300 50"
  [task_queue]="60 4 200")
programs="radix_sort hash_table mandelbrot pipeline bfs sample_sort bank task_queue"

build() {  # build NAME [ncp2-cc options]: validation/held_out/NAME.c or .cpp into $tmp/NAME
  local name="$1"
  shift
  if [ -f "$src/validation/held_out/$name.cpp" ]; then
    "$bin/ncp2-c++" "$@" -std=c++20 -O2 -o "$tmp/$name" "$src/validation/held_out/$name.cpp"
  else
    "$bin/ncp2-cc" "$@" -O2 -o "$tmp/$name" "$src/validation/held_out/$name.c" -lm
  fi
}
# run CODE ARGS...: ncp2 run ARGS; checks the exit code and, for 0, node 0's line ending in verified.
# The output stays in $out.
run() {
  local code="$1"
  shift
  local status
  out=$(timeout 300 "$bin/ncp2" run "$@" 2>&1)
  status=$?
  if [ "$status" -ne "$code" ]; then fail "ncp2 run $* exited $status, expected $code"; echo "$out" | tail -15; return; fi
  if [ "$code" -eq 0 ] && ! grep -q '^\[node 0\] .*verified$' <<<"$out"; then
    fail "ncp2 run $*: no line of node 0 ending in 'verified'"; echo "$out" | tail -15; return
  fi
  echo "ok: ncp2 run $*"
}

for p in $programs; do
  build "$p" || { fail "building $p"; continue; }
  # shellcheck disable=SC2086
  if [ "$mode" = real ]; then
    run 0 "$tmp/$p" --machine real --nodes 2 -- ${small[$p]}
    continue
  fi
  # shellcheck disable=SC2086
  "$tmp/$p" ${small[$p]} | grep -q 'verified$' || fail "$p run natively does not verify"
  out=$("$tmp/$p" 0 2>&1)
  [ $? -eq 2 ] && grep -q "usage: $p" <<<"$out" || fail "$p 0: expected the usage and exit 2, got '$out'"
  for machine in ncp2 treadmarks; do
    for n in 2 4; do
      # shellcheck disable=SC2086
      run 0 "$tmp/$p" --nodes "$n" --machine "$machine" -- ${small[$p]}
    done
  done
  # Data-race-free: nothing found on 4 nodes (a race would make the run exit 4).
  build "$p" --ncp2-races && mv "$tmp/$p" "$tmp/${p}_races" || { fail "building $p with --ncp2-races"; continue; }
  # shellcheck disable=SC2086
  run 0 "$tmp/${p}_races" --detect-races --nodes 4 -- ${small[$p]}
  grep -q '^races .*none found' <<<"$out" || fail "$p --detect-races: no 'none found' line"
done

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all held-out programs verified ($mode)"
