#!/usr/bin/env bash
# The guards under the fiber runner, without the emulator: tests/tmk/fiber_guards_program.cpp,
# built with the build tree's ncp2-c++ (the pass's load and store guards, the runtime's
# start_fiber) at -O0, -O2 and -O3 with AVX2 stores, with the IR verifier after the pass; each
# build runs over its own heap copy and PageState table with a fake emulator and checks that every
# access reached the copy (kHeapBase stays unmapped), the faults asked (one per page, read or write,
# in order; ReadLocalWrite taken at once) and none for pages already allowed.
# Usage: fiber_guards_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for opt in "-O0" "-O2" "-O3 -mavx2"; do
  # shellcheck disable=SC2086 # the flags are words
  if ! "$bin/ncp2-c++" -std=c++20 $opt -I"$src" -mllvm -ncp2-write-guards-verify -o "$tmp/fiber_guards" \
    "$src/tests/tmk/fiber_guards_program.cpp" >"$tmp/build.log" 2>&1; then
    fail "ncp2-c++ $opt fiber_guards_program.cpp"
    cat "$tmp/build.log"
    continue
  fi
  out=$("$tmp/fiber_guards" 2>&1)
  status=$?
  if [ "$status" -ne 0 ] || ! grep -q "^fiber_guards ok" <<<"$out"; then
    fail "built $opt: exit $status"
    echo "$out"
  else
    echo "ok: built $opt: $out"
  fi
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all fiber-guard checks passed"
