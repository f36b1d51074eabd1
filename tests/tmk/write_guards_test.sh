#!/usr/bin/env bash
# The write guards ncp2-cc adds by default (tmk/instrument/write_guard_pass.cpp): the IR verifier
# after the passes (C and C++, -O0..-O3); every kind of write reaches shared memory correctly with
# and without them (tests/tmk/programs/write_kinds.c, 1..5 nodes, both machines) with the same
# virtual times, messages and results; write faults reach the emulator through the guards (not
# signals; most taken at once and replayed later) and unguarded code still works (NCP2_HOST_STATS);
# the examples' virtual times are the
# same with and without the guards; a guarded program runs natively.
# Usage: write_guards_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=  # never the user's run history
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
kinds="$src/tests/tmk/programs/write_kinds.c"

for opt in -O0 -O1 -O2 -O3; do
  for f in "$kinds" "$src/examples/jacobi.c" "$src/examples/water.c" "$src/examples/qsort.c" "$src/tests/tmk/programs/race_pair.c"; do
    "$bin/ncp2-cc" --ncp2-races $opt -mllvm -ncp2-write-guards-verify -mllvm -ncp2-races-verify -c -o "$tmp/v.o" "$f" ||
      fail "ncp2-cc $opt $(basename "$f") with guards and race checks"
  done
  "$bin/ncp2-c++" $opt -mllvm -ncp2-write-guards-verify -x c++ -c -o "$tmp/v.o" "$kinds" ||
    fail "ncp2-c++ $opt write_kinds.c as C++"
done
"$bin/ncp2-cc" --ncp2-show -O2 -c x.c | grep -q -- "-ncp2-write-guards" || fail "ncp2-cc does not add the guards by default"
"$bin/ncp2-cc" --ncp2-show --ncp2-no-write-guards -O2 -c x.c | grep -q -- "-ncp2-write-guards" &&
  fail "ncp2-cc --ncp2-no-write-guards still adds them"

"$bin/ncp2-cc" -O2 -o "$tmp/guarded" "$kinds" || { fail "ncp2-cc write_kinds.c"; exit 1; }
"$bin/ncp2-cc" --ncp2-no-write-guards -O2 -o "$tmp/plain" "$kinds" || { fail "ncp2-cc --ncp2-no-write-guards"; exit 1; }
"$tmp/guarded" 2 | grep -q "^write_kinds ok " || fail "the guarded program run natively"

# summary PROGRAM NODES MACHINE: the run's result lines (output, virtual time, messages, verdict).
summary() {
  timeout 120 "$bin/ncp2" run "$1" --nodes "$2" --machine "$3" --progress never -- 3 2>&1 |
    grep -E "write_kinds ok|^time|^messages|^verified"
}
for machine in ncp2 treadmarks; do
  for n in 1 2 3 5; do
    with=$(summary "$tmp/guarded" "$n" "$machine")
    without=$(summary "$tmp/plain" "$n" "$machine")
    if ! grep -q "verified  yes" <<<"$with" || ! grep -q "write_kinds ok" <<<"$with"; then
      fail "write_kinds on $n nodes of $machine with guards"; echo "$with"
    elif [ "$with" != "$without" ]; then
      fail "write_kinds on $n nodes of $machine: guards change the run"; diff <(echo "$with") <(echo "$without")
    else
      echo "ok: write_kinds, $n nodes of $machine: same run with and without guards"
    fi
  done
done

# Other optimization levels (vector stores, AVX2 stores that cross pages): the same results.
for opt in "-O0" "-O3 -mavx2"; do
  # shellcheck disable=SC2086 # the flags are words
  "$bin/ncp2-cc" $opt -o "$tmp/guarded_opt" "$kinds" || { fail "ncp2-cc $opt write_kinds.c"; continue; }
  a=$(summary "$tmp/guarded_opt" 3 ncp2 | grep -E "write_kinds ok|verified")
  b=$(summary "$tmp/plain" 3 ncp2 | grep -E "write_kinds ok|verified")
  [ "$a" = "$b" ] && grep -q "verified  yes" <<<"$a" || { fail "write_kinds built $opt"; echo "$a"; }
done
# The measured time model takes write faults at once too, as a real node does (their cost is then
# in the process's timed computation, as a real run counts it), and still runs right.
out=$(NCP2_HOST_STATS=1 "$bin/ncp2" run "$tmp/guarded" --nodes 3 --time-model measured --progress never -- 3 2>&1)
grep -q "verified  yes" <<<"$out" && grep "node 1\] ncp2 tmk host" <<<"$out" | grep -qE " [1-9][0-9]* taken at once" ||
  { fail "write_kinds under --time-model measured"; echo "$out" | tail -5; }

# How the faults came: NCP2_HOST_STATS makes every node's runtime count them.
stats=$(NCP2_HOST_STATS=1 "$bin/ncp2" run "$tmp/guarded" --nodes 3 --progress never -- 3 2>&1 | grep "node 1\] ncp2 tmk host")
field() { sed -E "s/.* ([0-9]+) $1.*/\1/" <<<"$stats"; }
# Most write faults are taken at once (the page was valid: a snapshot, replayed by the emulator
# before the next request), the others asked through the guards; code without guards still works.
# Under the fiber runner (NCP2_RUNNER=fiber) code without the guards reaches shared memory through
# the emulator's backstop, which asks through the guards: nothing is let through by mprotect.
fibers=0
[ "${NCP2_RUNNER:-process}" = fiber ] && fibers=1
unguarded_min=3
[ "$fibers" -eq 1 ] && unguarded_min=0
if ! grep -q "write guards on" <<<"$stats" || [ "$(field "taken at once")" -lt 10 ] ||
  [ "$(field "guarded write faults")" -lt 3 ] || [ "$(field "unguarded writes let through")" -lt "$unguarded_min" ]; then
  fail "faults taken at once, guarded faults and unguarded writes expected: $stats"
else
  echo "ok: $stats"
fi
stats=$(NCP2_HOST_STATS=1 "$bin/ncp2" run "$tmp/plain" --nodes 3 --progress never -- 3 2>&1 | grep "node 1\] ncp2 tmk host")
# Without the guards: none (the process runner); the fiber runner keeps the page states in the
# guards' table anyway and its backstop asks through them.
if [ "$fibers" -eq 1 ]; then
  grep -q "write guards on, [1-9][0-9]* guarded write faults" <<<"$stats" || fail "the backstop's faults expected: $stats"
else
  grep -q "write guards off, 0 guarded write faults" <<<"$stats" || fail "no guards expected: $stats"
fi

# The examples: the same virtual times with and without the guards; the guards take the writes.
# qsort (a task queue under a lock) is checked for results only: a lock that leaves while its last
# holder computes ends that node's interval then (docs/protocol.md), and a program process runs
# ahead of virtual time between its requests, so what the interval holds depends on where the
# emulator last stopped the process — at every write fault without guards, at the next request
# with them. Both runs are correct; they need not be the same.
for ex in "jacobi 130 130 6 1" "sor 130 130 6 1.25 1" "qsort 20000 512"; do
  set -- $ex
  name=$1
  shift
  "$bin/ncp2-cc" -O2 -o "$tmp/$name" "$src/examples/$name.c" -lm || { fail "ncp2-cc $name.c"; continue; }
  "$bin/ncp2-cc" --ncp2-no-write-guards -O2 -o "$tmp/${name}_plain" "$src/examples/$name.c" -lm || continue
  with=$(NCP2_HOST_STATS=1 "$bin/ncp2" run "$tmp/$name" --nodes 4 --progress never -- "$@" 2>&1)
  without=$("$bin/ncp2" run "$tmp/${name}_plain" --nodes 4 --progress never -- "$@" 2>&1)
  compared='^time|^messages|^verified'
  [ "$name" = qsort ] && compared='^verified'
  if [ "$(grep -E "$compared" <<<"$with")" != "$(grep -E "$compared" <<<"$without")" ] ||
    ! grep -q "verified  yes" <<<"$with"; then
    fail "$name: guards change the run"; grep -E '^time|^messages|^verified' <<<"$with"; grep -E '^time|^messages|^verified' <<<"$without"
  elif ! grep "node 1\] ncp2 tmk host" <<<"$with" | grep -qv " 0 guarded write faults, [0-9]* signalled faults, 0 taken"; then
    fail "$name: no write fault went through the guards"
  else
    echo "ok: $name, $([ "$name" = qsort ] && echo "verified" || echo "same run") with and without guards"
  fi
done

# The profile and the waits in the database, scope by scope name (scopes are numbered in the order
# the emulator first meets them, which faults taken at once change; what each holds does not).
"$bin/ncp2" run "$tmp/jacobi" --nodes 4 --db "$tmp/with.db" --progress never -- 130 130 6 1 >/dev/null 2>&1
"$bin/ncp2" run "$tmp/jacobi_plain" --nodes 4 --db "$tmp/without.db" --progress never -- 130 130 6 1 >/dev/null 2>&1
profile="select case when s.kind = 'program' then '' else s.name end, p.node, p.category, p.operation, p.time_ps,
  p.count from profile p join scopes s on s.id = p.scope_id order by 1, 2, 3, 4"
waits="select s.name, w.node, w.operation, w.kind, w.start_ps, w.duration_ps, w.cplwait_ps, w.cpcomm_ps
  from waits w join scopes s on s.id = w.scope_id order by w.node, w.start_ps, w.kind"
for q in "$profile" "$waits"; do
  a=$(sqlite3 "$tmp/with.db" "$q")
  b=$(sqlite3 "$tmp/without.db" "$q")
  if [ -z "$a" ] || [ "$a" != "$b" ]; then fail "jacobi's database differs with guards: $q"; diff <(echo "$a") <(echo "$b") | head; fi
done
echo "ok: jacobi's profile and waits, scope by scope, the same with and without guards"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all write-guard checks passed"
