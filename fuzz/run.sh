#!/usr/bin/env bash
# Runs one fuzz target under libFuzzer for a while: configures a clang build with NCP2_FUZZ in
# build-fuzz/ (ASan + UBSan + coverage), builds only that target, and fuzzes a copy of its
# committed corpus (new inputs stay in build-fuzz/, not in the repository).
# Usage: fuzz/run.sh <target> <seconds> [libFuzzer options...]
#   targets: config diff database command_line program        (docs/fuzzing.md)
# A crash leaves its input as build-fuzz/artifacts/<target>/crash-*: fix the code, then copy the
# input into fuzz/corpus/<target>/ as a regression.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: fuzz/run.sh <target> <seconds> [libFuzzer options...]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NCP2_FUZZ_BUILD:-$root/build-fuzz}
if [ ! -d "$root/fuzz/corpus/$target" ]; then
  echo "fuzz/run.sh: no target '$target' (no fuzz/corpus/$target)" >&2
  exit 2
fi

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DNCP2_FUZZ=ON -DNCP2_WERROR=OFF -DNCP2_BUILD_TESTS=OFF -DNCP2_BUILD_BENCH=OFF -DNCP2_BUILD_GUI=OFF
fi
cmake --build "$build" -j "${JOBS:-2}" --target "ncp2_fuzz_$target"

corpus=$build/corpus/$target
artifacts=$build/artifacts/$target
mkdir -p "$corpus" "$artifacts"
cp -n "$root/fuzz/corpus/$target"/* "$corpus/"
# Leaks inside system libraries we cannot fix (fuzz/lsan.supp); the full stack of each allocation
# for the program target, whose leaks start in libdw (no frame pointers: the fast unwinder stops
# there and the suppression could not see the function).
export LSAN_OPTIONS=suppressions=$root/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
if [ "$target" = program ]; then
  export ASAN_OPTIONS=fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
fi
# One process, one job: the machine's other cores stay free. -rss_limit_mb: a reader that
# allocates without bound is a finding, not an out-of-memory kill of the machine.
exec "$build/fuzz/ncp2_fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" "$corpus"
