#!/usr/bin/env bash
# Race checks of programs of users (ncp2-cc --ncp2-races): each kind of access reaches the race
# detector with the right place (tmk_race_probe runs a program as `ncp2 run --detect-races` does;
# the CLI itself too once it has the option), race-free programs report nothing, the instruction
# counts and virtual times are the same with and without the checks, and a program built without
# them is refused. Usage: race_checks_test.sh BIN_DIR SOURCE_DIR PROBE
set -u
bin="$1"
src="$2"
probe="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=  # never the user's run history
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pair="$src/tests/tmk/programs/race_pair.c"
line_of() { grep -n "RACE $1 \*/" "$pair" | cut -d: -f1; }  # the line marked /* RACE name */

# The IR verifier after both passes, C and C++, -O0..-O3 (memcpy, atomics, vector loops).
for opt in -O0 -O1 -O2 -O3; do
  for f in "$pair" "$src/examples/jacobi.c" "$src/examples/water.c"; do
    "$bin/ncp2-cc" --ncp2-races $opt -mllvm -ncp2-races-verify -mllvm -ncp2-icount-verify -c -o "$tmp/v.o" "$f" ||
      fail "ncp2-cc --ncp2-races $opt $(basename "$f")"
  done
  "$bin/ncp2-c++" --ncp2-races $opt -mllvm -ncp2-races-verify -x c++ -c -o "$tmp/v.o" "$pair" ||
    fail "ncp2-c++ --ncp2-races $opt race_pair.c as C++"
done

"$bin/ncp2-cc" --ncp2-races -O2 -o "$tmp/race_pair" "$pair" || { fail "ncp2-cc --ncp2-races race_pair.c"; exit 1; }
"$bin/ncp2-cc" -O2 -o "$tmp/race_pair_plain" "$pair" || fail "ncp2-cc race_pair.c"

# probe_expect MODE LINE...: one race between nodes 0 and 1, exactly as given.
probe_expect() {
  local mode="$1" want="$2" out
  out=$("$probe" "$tmp/race_pair" 2 "$mode" 2>&1)
  grep -q "^races 1 pairs 1$" <<<"$out" && grep -qF -- "$want" <<<"$out" ||
    { fail "race_pair $mode: expected '$want' in"; echo "$out"; return; }
  echo "ok: race_pair $mode"
}
probe_expect ww "address 0x5a0000000004: node 0 writes race_pair.c:$(line_of ww) | node 1 writes race_pair.c:$(line_of ww)"
probe_expect rw "address 0x5a0000000008: node 0 writes race_pair.c:$(line_of rw-write) | node 1 reads race_pair.c:$(line_of rw-read)"
# A memcpy across pages, read by the other node where one byte was written.
probe_expect memcpy "offset 4146 address 0x5a0000001032: node 0 writes race_pair.c:$(line_of memcpy-write) | node 1 reads race_pair.c:$(line_of memcpy-read)"
probe_expect atomic "node 0 writes race_pair.c:$(line_of atomic) | node 1 writes race_pair.c:$(line_of atomic)"
out=$("$probe" "$tmp/race_pair" 2 crash 2>&1)
grep -q "^status failed: node 1: crashed" <<<"$out" && grep -q "^races 1 pairs 1$" <<<"$out" &&
  grep -qF "node 1 writes race_pair.c:$(line_of crash)" <<<"$out" || { fail "race_pair crash"; echo "$out"; }
out=$("$probe" "$tmp/race_pair" 2 die 2>&1)
grep -q "^status failed: node 1: the program exited with status 3 without Tmk_exit" <<<"$out" &&
  grep -qF "node 1 writes race_pair.c:$(line_of die)" <<<"$out" || { fail "race_pair die"; echo "$out"; }
# Every pair of nodes races on the same cell; the race-free rest (bytes of one word written by
# different nodes, a counter under a lock) reports nothing on 5 nodes.
out=$("$probe" "$tmp/race_pair" 3 ww 2>&1)
grep -q "^races 3 pairs 3$" <<<"$out" || { fail "race_pair ww on 3 nodes: 3 races expected"; echo "$out"; }
out=$("$probe" "$tmp/race_pair" 5 none 2>&1)
grep -q "^races 0 pairs 0$" <<<"$out" || { fail "race_pair none reports races"; echo "$out"; }

# Race-free programs: nothing found.
"$bin/ncp2-cc" --ncp2-races -O1 -o "$tmp/random_drf" "$src/tests/tmk/programs/random_drf.c" || fail "ncp2-cc random_drf.c"
for ex in jacobi sor; do
  "$bin/ncp2-cc" --ncp2-races -O2 -o "$tmp/$ex" "$src/examples/$ex.c" -lm || fail "ncp2-cc --ncp2-races $ex.c"
done
for run in "random_drf 4 9 800 3" "jacobi 3 101 37 5" "sor 4 67 38 4"; do
  set -- $run
  out=$("$probe" "$tmp/$1" "${@:2}" 2>&1)
  grep -q "^status completed$" <<<"$out" && grep -q "^races 0 pairs 0$" <<<"$out" ||
    { fail "race-free $run: races reported or not completed"; echo "$out" | tail -5; }
done

# Same instruction counts with and without the checks (detection off and on): the same virtual times.
"$bin/ncp2-cc" -O2 -o "$tmp/jacobi_plain" "$src/examples/jacobi.c" || fail "ncp2-cc jacobi.c"
"$bin/ncp2-cc" -O1 -o "$tmp/random_drf_plain" "$src/tests/tmk/programs/random_drf.c" || fail "ncp2-cc random_drf.c"
for run in "jacobi 4 130 65 3" "random_drf 3 5 600 3"; do
  set -- $run
  plain=$("$probe" --off "$tmp/${1}_plain" "${@:2}" | grep '^time')
  off=$("$probe" --off "$tmp/$1" "${@:2}" | grep '^time')
  on=$("$probe" "$tmp/$1" "${@:2}" | grep '^time')
  [ -n "$plain" ] && [ "$plain" = "$off" ] && [ "$plain" = "$on" ] ||
    fail "$run: virtual times differ: without checks '$plain', with checks '$off', detecting '$on'"
done
for p in jacobi jacobi_plain; do
  "$bin/ncp2" run "$tmp/$p" --nodes 4 --db "$tmp/$p.db" -- 130 65 3 >"$tmp/$p.out" 2>&1 || fail "ncp2 run $p"
done
grep -q "verified  yes" "$tmp/jacobi.out" || fail "an instrumented jacobi run without detection is not verified"
a=$(grep '^time' "$tmp/jacobi.out"); b=$(grep '^time' "$tmp/jacobi_plain.out")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "ncp2 run: '$a' with checks, '$b' without"
q="select category, sum(time_ps) from profile group by category order by 1"
[ "$(sqlite3 "$tmp/jacobi.db" "$q")" = "$(sqlite3 "$tmp/jacobi_plain.db" "$q")" ] ||
  fail "the profile differs between builds with and without the checks"

# Refused: detection on, a program built without the checks.
refusal="$tmp/race_pair_plain was built without access checks, so its data races cannot be found: rebuild it with ncp2-cc --ncp2-races"
out=$("$probe" "$tmp/race_pair_plain" 2 2>&1); st=$?
[ "$st" -eq 2 ] && grep -qF "$refusal" <<<"$out" || fail "probe of an unchecked program: exit $st, '$out'"

# The wrapper: the plugin options, and no silent build without the checks.
out=$("$bin/ncp2-cc" --ncp2-show --ncp2-races -O2 -o x x.c)
grep -q -- "-Xclang -load -Xclang .*libncp2_count_pass.so -mllvm -ncp2-races" <<<"$out" || fail "ncp2-cc --ncp2-show --ncp2-races: $out"
out=$("$bin/ncp2-cc" --ncp2-show --ncp2-races --ncp2-no-count -O2 -o x x.c)
grep -q -- "-mllvm -ncp2-icount-disable" <<<"$out" || fail "ncp2-cc --ncp2-races --ncp2-no-count: $out"
# Compiled and linked separately: a link of object files gets no compiler options (clang would warn).
"$bin/ncp2-cc" --ncp2-races -O2 -c -o "$tmp/pair.o" "$pair" || fail "ncp2-cc --ncp2-races -c"
out=$("$bin/ncp2-cc" --ncp2-races -O2 -o "$tmp/pair_linked" "$tmp/pair.o" 2>&1)
[ -z "$out" ] && [ -x "$tmp/pair_linked" ] || fail "ncp2-cc --ncp2-races linking objects: '$out'"
out=$("$probe" "$tmp/pair_linked" 2 ww 2>&1)
grep -q "^races 1 pairs 1$" <<<"$out" || { fail "race_pair built in two steps"; echo "$out"; }
out=$(NCP2_CC=gcc "$bin/ncp2-cc" --ncp2-races -O2 -o "$tmp/x" "$pair" 2>&1); st=$?
[ "$st" -eq 1 ] && grep -q "needs clang-14" <<<"$out" || fail "ncp2-cc --ncp2-races with gcc: exit $st, '$out'"

# The CLI, once it has --detect-races (the runner's side).
if "$bin/ncp2" run --help 2>&1 | grep -q -- "--detect-races"; then
  out=$("$bin/ncp2" run --detect-races "$tmp/race_pair_plain" --nodes 2 2>&1); st=$?
  [ "$st" -eq 2 ] && grep -qF "$refusal" <<<"$out" || fail "ncp2 run --detect-races of an unchecked program: exit $st, '$out'"
  "$bin/ncp2" run --detect-races "$tmp/race_pair" --nodes 2 --db "$tmp/r.db" -- ww >"$tmp/r.out" 2>&1
  row=$(sqlite3 "$tmp/r.db" "select address, first_node, first_access, first_line, second_node, second_access,
         second_line from races")
  l=$(line_of ww)
  [ "$row" = "$((0x5a0000000004))|0|write|$l|1|write|$l" ] || { fail "ncp2 run --detect-races: races row '$row'"; cat "$tmp/r.out"; }
  sqlite3 "$tmp/r.db" "select first_file from races" | grep -q "race_pair.c$" || fail "races.first_file"
else
  echo "skipped: ncp2 run has no --detect-races yet"
fi

[ "$failures" -eq 0 ] && echo "all race-check tests passed"
exit $((failures > 0))
