#!/usr/bin/env bash
# A page served while its writer's interval is open holds none of that interval's writes
# (docs/protocol.md, "What a served page holds"): tests/protocol/served_page.c, whose every round
# checks the word its reader was served in the middle of the writer's interval, on both emulated
# machines and on 2 real processes, built with the write guards (first writes taken at once) and
# without them (every write fault a request). Before the fix each of these runs lost writes.
# Usage: served_page_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=  # never the user's run history
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$bin/ncp2-cc" -O2 -o "$tmp/served_page" "$src/tests/protocol/served_page.c" || exit 1
"$bin/ncp2-cc" --ncp2-no-write-guards -O2 -o "$tmp/served_page_signals" "$src/tests/protocol/served_page.c" || exit 1

# 64 rounds; node 1's read after 0 .. 189,000 iterations; node 0's 10,000,000 iterations between its
# two writes in half of them (longer than a real node takes to serve a page, so the page is served
# while the write is not yet reported), a diff fetch in the other half.
args=(64 3000 10000000)
# check PROGRAM ARGS...: ncp2 run PROGRAM ARGS -- $args; exit 0 and every round as node 0 left it.
check() {
  local program="$1"
  shift
  local out status
  out=$(timeout 300 "$bin/ncp2" run "$tmp/$program" "$@" --progress never -- "${args[@]}" 2>&1)
  status=$?
  if [ "$status" -ne 0 ] || ! grep -q "^\[node 0\] served_page: 64 rounds, 0 wrong: verified$" <<<"$out"; then
    fail "ncp2 run $program $* exited $status"
    echo "$out" | tail -20
    return
  fi
  echo "ok: ncp2 run $program $*"
}

for machine in ncp2 treadmarks; do
  check served_page --machine "$machine" --nodes 2
  check served_page --machine "$machine" --nodes 3
  check served_page_signals --machine "$machine" --nodes 2
done
check served_page --machine real --nodes 2
check served_page_signals --machine real --nodes 2

# Bad arguments, and a single node (no reader): the usage and exit 2.
for bad in "0 1 1" "4 -1 1" "4 1"; do
  # shellcheck disable=SC2086
  out=$("$tmp/served_page" $bad 2>&1)
  [ $? -eq 2 ] && grep -q "^usage: served_page ROUNDS STEP SPIN" <<<"$out" || fail "served_page $bad: '$out'"
done

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "every served page held no write of its writer's open interval"
