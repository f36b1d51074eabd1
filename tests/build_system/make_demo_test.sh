#!/usr/bin/env bash
# `make demo` builds only what the demo runs (issue 36 item 2): its build step names the ncp2
# target, never the whole tree (tests and benchmarks are `make test`'s); `make test` still builds
# everything. Reads `make -n` (what make would do), so it builds nothing itself.
# Usage: make_demo_test.sh SOURCE_DIR
set -u
src="$1"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
demo=$(make -C "$src" -n demo BUILD=/nonexistent-build 2>/dev/null | grep "cmake --build")
test_build=$(make -C "$src" -n test BUILD=/nonexistent-build 2>/dev/null | grep "cmake --build")
[ -n "$demo" ] || fail "make -n demo shows no build step"
grep -q -- "--target ncp2" <<<"$demo" || fail "make demo builds more than ncp2: $demo"
[ -n "$test_build" ] || fail "make -n test shows no build step"
grep -q -- "--target" <<<"$test_build" && fail "make test builds only some targets: $test_build"
grep -q "make gui" "$src/cmake/demo.sh" || fail "the demo does not say how to build the GUI it suggests"
[ "$failures" -eq 0 ] && echo "ok: make demo builds ncp2 only, make test everything"
exit $((failures != 0))
