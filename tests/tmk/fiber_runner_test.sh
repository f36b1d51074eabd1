#!/usr/bin/env bash
# The fiber runner (issue 45): a program run with `ncp2 run --runner fiber` gives exactly the run
# the process runner gives — the same exit code, the same output, and the same database (every
# table, every column: virtual times, protocol counts, profile, waits, scopes) and statistics,
# apart from what records the host (tests/tmk/same_run.py). Programs: the examples, the random
# data-race-free programs (seeds, node counts, both machines, with and without locks), the
# programs of tests/tmk/programs and tests/protocol, the held-out validation set (C and C++).
# Programs built without the guards, and the race detector. Then the runner's own errors.
# Usage: fiber_runner_test.sh BIN_DIR SOURCE_DIR [quick]
set -u
bin="$1"
src="$2"
mode="${3:-full}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
failures=0
compared=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

build() {  # build NAME SOURCE [ncp2-cc options]
  local name="$1" source="$2"
  shift 2
  if [[ "$source" == *.cpp ]]; then
    "$bin/ncp2-c++" "$@" -std=c++20 -O1 -o "$tmp/$name" "$source" || { fail "ncp2-c++ $source"; return 1; }
  else
    "$bin/ncp2-cc" "$@" -O1 -o "$tmp/$name" "$source" -lm || { fail "ncp2-cc $source"; return 1; }
  fi
}

# same NAME ARGS...: ncp2 run ARGS under both runners; everything but the host must be equal.
same() {
  local name="$1"
  shift
  local a="$tmp/$name.process" b="$tmp/$name.fiber"
  timeout 300 "$bin/ncp2" run --runner process --db "$a.db" --force --stats-json "$a.json" "$@" >"$a.out" 2>&1
  local sa=$?
  timeout 300 "$bin/ncp2" run --runner fiber --db "$b.db" --force --stats-json "$b.json" "$@" >"$b.out" 2>&1
  local sb=$?
  compared=$((compared + 1))
  if [ "$sa" -ne "$sb" ]; then
    fail "$name ($*): exit $sa with processes, $sb with fibers"
    tail -8 "$a.out" "$b.out"
    return
  fi
  # The output: the nodes' lines and the summary, without its host line (wall time, memory) and
  # the database's name.
  if ! diff <(grep -v '^host\|^database' "$a.out" | sort) <(grep -v '^host\|^database' "$b.out" | sort) >"$tmp/diff"; then
    fail "$name ($*): the output differs"
    head -20 "$tmp/diff"
    return
  fi
  if [ -s "$a.db" ] && ! python3 "$src/tests/tmk/same_run.py" "$a.db" "$b.db" "$a.json" "$b.json" >"$tmp/diff"; then
    fail "$name ($*): the runs differ"
    head -20 "$tmp/diff"
    return
  fi
  echo "ok: $name $* (exit $sa, $(grep -c . "$a.out") lines, same database)"
}

for ex in jacobi sor tsp water qsort wordcount; do build "$ex" "$src/examples/$ex.c" || exit 1; done
for p in random_drf globals errors write_kinds inlined_function distribute_local spin_then_calls polling_ring; do
  build "$p" "$src/tests/tmk/programs/$p.c" || exit 1
done
for p in linked_records radix_scatter served_page; do build "$p" "$src/tests/protocol/$p.c" || exit 1; done
for p in radix_sort hash_table mandelbrot pipeline; do build "$p" "$src/validation/held_out/$p.c" || exit 1; done
build bfs "$src/validation/held_out/bfs.cpp" || exit 1
build jacobi_unguarded "$src/examples/jacobi.c" --ncp2-no-write-guards || exit 1

# The examples, both machines.
for machine in ncp2 treadmarks; do
  same jacobi "$tmp/jacobi" --nodes 4 --machine "$machine" -- 101 37 5
  same sor "$tmp/sor" --nodes 5 --machine "$machine" -- 67 38 4
  same tsp "$tmp/tsp" --nodes 3 --machine "$machine" -- 8 2
  same water "$tmp/water" --nodes 3 --machine "$machine" -- 27 2
  same qsort "$tmp/qsort" --nodes 3 --machine "$machine" -- 3001 50
  same wordcount "$tmp/wordcount" --nodes 4 --machine "$machine"
done
same jacobi-8 "$tmp/jacobi" --nodes 8

# The random data-race-free programs: seeds, node counts, locks, both machines.
nodes_list="1 2 3 4 7 8 16"
[ "$mode" = quick ] && nodes_list="1 2 4 8"
for machine in ncp2 treadmarks; do
  for n in $nodes_list; do
    same "random-$machine-$n" "$tmp/random_drf" --nodes "$n" --machine "$machine" -- $((n * 7 + ${#machine})) 1500 4 $((n % 3))
  done
done

# Users' programs of the other suites.
same globals "$tmp/globals" --nodes 5
same write_kinds "$tmp/write_kinds" --nodes 4
same inlined "$tmp/inlined_function" --nodes 3

same ring "$tmp/polling_ring" --nodes 4 -- 200 4 100
same linked "$tmp/linked_records" --nodes 4 -- 800 3
same radix_scatter "$tmp/radix_scatter" --nodes 4 -- 2048 3
same served_page "$tmp/served_page" --nodes 2 -- 64 3 5
same radix_sort "$tmp/radix_sort" --nodes 4 -- 20001 5
same hash_table "$tmp/hash_table" --nodes 4 -- 3000 500 32
same mandelbrot "$tmp/mandelbrot" --nodes 3 -- 64 48 300 3
same pipeline "$tmp/pipeline" --nodes 4 -- 16 256 5 2 4
same bfs "$tmp/bfs" --nodes 4 -- 5000 4

# Errors give the same report: a misuse, a crash, an abort, exit() without Tmk_exit, a call
# before Tmk_startup, returning from main.
for what in release lockid barrierid heap segv abort exit3 free return before; do
  same "errors-$what" "$tmp/errors" --nodes 3 -- "$what"
done
same distribute_local "$tmp/distribute_local" --nodes 2

# A program built without the guards (its every access to shared memory through the fiber
# runner's backstop), and the race detector (programs built with --ncp2-races; a race found: exit 4).
same jacobi_unguarded "$tmp/jacobi_unguarded" --nodes 3 -- 33 17 2
for p in race_pair random_drf; do build "${p}_races" "$src/tests/tmk/programs/$p.c" --ncp2-races || exit 1; done
same races-ww "$tmp/race_pair_races" --nodes 2 --detect-races -- ww
same races-rw "$tmp/race_pair_races" --nodes 2 --detect-races -- rw
same races-none "$tmp/random_drf_races" --nodes 4 --detect-races -- 5 800 3 1
same races-die "$tmp/race_pair_races" --nodes 2 --detect-races -- die    # _exit(3) without Tmk_exit
same races-crash "$tmp/race_pair_races" --nodes 2 --detect-races -- crash

# What only the fiber runner says.
fiber() {  # fiber CODE PATTERN ARGS...
  local code="$1" pattern="$2"
  shift 2
  local out status
  out=$(timeout 120 "$bin/ncp2" run --runner fiber "$@" 2>&1)
  status=$?
  if [ "$status" -ne "$code" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    fail "ncp2 run --runner fiber $*: exit $status (expected $code), '$pattern' expected in"
    echo "$out" | tail -8
    return
  fi
  echo "ok: --runner fiber $*"
}
build jacobi_nofiber "$src/examples/jacobi.c" --ncp2-no-fiber || exit 1
fiber 2 "without the fiber runner" "$tmp/jacobi_nofiber" --nodes 2
fiber 2 "without access checks" "$tmp/jacobi" --nodes 2 --detect-races
fiber 2 "built-in workload" sor --nodes 2
out=$("$bin/ncp2" run --runner thread "$tmp/jacobi" --nodes 2 2>&1)
[ $? -eq 2 ] && grep -q "runner" <<<"$out" || fail "--runner thread: '$out'"
out=$(NCP2_RUNNER=threads "$bin/ncp2" run "$tmp/jacobi" --nodes 2 2>&1)
[ $? -eq 2 ] && grep -q "NCP2_RUNNER=threads: a runner is process or fiber" <<<"$out" || fail "NCP2_RUNNER=threads: '$out'"
# The environment's runner is a default for emulated runs only; --runner on a real run is refused.
out=$(NCP2_RUNNER=fiber "$bin/ncp2" run --runner process "$tmp/jacobi" --nodes 2 -- 33 17 2 2>&1)
[ $? -eq 0 ] || fail "--runner process over NCP2_RUNNER=fiber: '$out'"
out=$("$bin/ncp2" run --runner fiber --machine real "$tmp/jacobi" --nodes 2 2>&1)
[ $? -eq 2 ] && grep -q -- "--runner" <<<"$out" || fail "--runner fiber --machine real: '$out'"

echo "$compared runs compared, $failures failures"
[ "$failures" -eq 0 ]
