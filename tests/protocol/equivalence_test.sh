#!/usr/bin/env bash
# One protocol for emulated and real runs (issue 31): the same program, run emulated (both
# machines) and on real processes over Open MPI, must take the same protocol decisions.
#  - Programs whose synchronization order is fixed (barriers only: the examples jacobi and sor, the
#    random data-race-free programs in their barrier-only form, tests/protocol/linked_records.c
#    with bytes, structs and pointers into shared memory; with and without garbage collections, both
#    collection policies, both first-touch policies; tests/protocol/radix_scatter.c, whose nodes
#    scatter into interleaved sub-page positions): every node's protocol counts (the database's
#    protocol_counts) and its waits (issue 41: how many, per node, operation, scope and object —
#    one driver records them on every machine) are identical in the three runs, at 1, 2, 3 and 4
#    nodes.
#  - Programs with locks (their order is not fixed on real processes): the counts' invariants in
#    both — every remote acquire granted once, with 2 or 3 messages; every page and diff request
#    answered.
# Usage: equivalence_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

build() {  # build NAME SOURCE
  "$bin/ncp2-cc" -O1 -o "$tmp/$1" "$2" -lm || { fail "ncp2-cc $2"; return 1; }
}
run() {  # run DB MACHINE ARGS...: one run into DB, its exit code checked
  local db="$1" machine="$2"
  shift 2
  if ! timeout 300 "$bin/ncp2" run --machine "$machine" --db "$db" --force "$@" >"$tmp/out" 2>&1; then
    fail "ncp2 run --machine $machine $*"
    cat "$tmp/out"
    return 1
  fi
}
# Every node's protocol counts.
counts() { sqlite3 "$1" "select node, counter, value from protocol_counts order by node, counter"; }
# Every node's waits: how many per operation, scope (by kind, name and first line: scope ids are
# per database) and object.
waits_of() {
  sqlite3 "$1" "select w.node, w.operation, s.kind, s.name, s.begin_line, w.object, count(*)
                from waits w join scopes s on s.run_id = w.run_id and s.id = w.scope_id
                group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6"
}
total() { sqlite3 "$1" "select coalesce(sum(value), 0) from protocol_counts where counter = '$2'"; }

for p in jacobi sor; do build "$p" "$src/examples/$p.c" || exit 1; done
build tsp "$src/examples/tsp.c" || exit 1
build water "$src/examples/water.c" || exit 1
build random_drf "$src/tests/tmk/programs/random_drf.c" || exit 1
build linked "$src/tests/protocol/linked_records.c" || exit 1
build radix "$src/tests/protocol/radix_scatter.c" || exit 1

# same WHAT A B: $tmp/A.txt and $tmp/B.txt are equal, else a failure naming WHAT, with the diff.
same() {
  diff -u "$tmp/$2.txt" "$tmp/$3.txt" >"$tmp/diff" && return 0
  fail "$1 differ"
  cat "$tmp/diff"
  return 1
}
# equal LABEL OPTIONS -- PROGRAM ARGS: the same counts on ncp2, treadmarks and real, node by node.
equal() {
  local label="$1" n="$2"
  shift 2
  run "$tmp/e.db" ncp2 --nodes "$n" "$@" || return
  run "$tmp/t.db" treadmarks --nodes "$n" "$@" || return
  run "$tmp/r.db" real --nodes "$n" "$@" || return
  counts "$tmp/e.db" >"$tmp/e.txt"
  counts "$tmp/t.db" >"$tmp/t.txt"
  counts "$tmp/r.db" >"$tmp/r.txt"
  waits_of "$tmp/e.db" >"$tmp/we.txt"
  waits_of "$tmp/t.db" >"$tmp/wt.txt"
  waits_of "$tmp/r.db" >"$tmp/wr.txt"
  if [ ! -s "$tmp/e.txt" ] || [ ! -s "$tmp/we.txt" ]; then
    fail "$label on $n nodes: no protocol counts or no waits in the emulated run's database"
  elif ! same "$label on $n nodes: the emulated (treadmarks) and the real run's waits" wt wr ||
    ! same "$label on $n nodes: the two emulated machines' waits" we wt ||
    ! same "$label on $n nodes: the emulated (ncp2) and the real run's protocol counts" e r ||
    ! same "$label on $n nodes: the two emulated machines' protocol counts" e t; then
    :  # same() said which
  else
    echo "ok: $label on $n nodes: $(wc -l <"$tmp/e.txt") counts and $(wc -l <"$tmp/we.txt") wait groups equal (intervals $(total "$tmp/r.db" intervals), diff requests $(total "$tmp/r.db" diff_requests), page requests $(total "$tmp/r.db" page_requests), collections $(total "$tmp/r.db" gc_runs))"
  fi
}

for n in 1 2 3 4; do
  equal jacobi "$n" "$tmp/jacobi" -- 130 130 6
  equal sor "$n" "$tmp/sor" -- 130 130 6
  equal "random_drf (barriers only)" "$n" "$tmp/random_drf" -- $((n * 7)) 1500 4 0
  equal linked_records "$n" "$tmp/linked" -- 2000 4
  equal radix_scatter "$n" "$tmp/radix" -- 4096 3
done
# Garbage collections at every barrier, with either policy; the other first touch.
for n in 2 3; do
  equal "random_drf, collections (last-writer)" "$n" --set dsm.gc_threshold_kb=1 "$tmp/random_drf" -- 5 1500 6 0
  equal "random_drf, collections (validate-all)" "$n" --set dsm.gc_threshold_kb=1 --set dsm.gc_copies=validate-all \
    "$tmp/random_drf" -- 5 1500 6 0
  equal "linked_records, first touch zero" "$n" --set dsm.first_touch=zero "$tmp/linked" -- 2000 4
  equal "jacobi, barrier manager 1" "$n" --set dsm.barrier_manager=1 "$tmp/jacobi" -- 130 130 6
done
# Some collections happened (or the collection rows above prove nothing).
run "$tmp/gc.db" real --nodes 3 --set dsm.gc_threshold_kb=1 "$tmp/random_drf" -- 5 1500 6 0 &&
  [ "$(total "$tmp/gc.db" gc_runs)" -gt 0 ] || fail "no garbage collection with a 1 KiB threshold"

# Lock programs: the invariants of the counts, in both kinds of runs.
invariants() {  # invariants DB LABEL
  local db="$1" label="$2"
  local acquires local_acquires requests forwards grants remote
  acquires=$(total "$db" lock_acquires)
  local_acquires=$(total "$db" local_lock_acquires)
  requests=$(total "$db" lock_requests)
  forwards=$(total "$db" lock_forwards)
  grants=$(total "$db" lock_grants)
  remote=$((acquires - local_acquires))
  [ "$acquires" -gt 0 ] || { fail "$label: no lock acquires counted"; return; }
  [ "$grants" -eq "$remote" ] || fail "$label: $grants grants for $remote remote acquires"
  # Each remote acquire: a request to the manager and/or a forward, then the grant: 2 or 3 messages.
  [ $((requests + forwards)) -ge "$remote" ] && [ $((requests + forwards)) -le $((2 * remote)) ] ||
    fail "$label: $requests requests + $forwards forwards for $remote remote acquires (2 or 3 messages each)"
  [ "$(total "$db" diff_requests)" -eq "$(total "$db" diff_replies)" ] || fail "$label: a diff request unanswered"
  [ "$(total "$db" page_requests)" -eq "$(total "$db" pages_served)" ] || fail "$label: a page request unanswered"
  echo "ok: $label: $acquires acquires, $local_acquires without messages, $remote remote ($requests requests, $forwards forwards, $grants grants)"
}
for n in 2 3 4; do
  for machine in ncp2 real; do
    run "$tmp/l.db" "$machine" --nodes "$n" "$tmp/tsp" && invariants "$tmp/l.db" "tsp on $n $machine nodes"
    run "$tmp/l.db" "$machine" --nodes "$n" "$tmp/water" && invariants "$tmp/l.db" "water on $n $machine nodes"
    run "$tmp/l.db" "$machine" --nodes "$n" "$tmp/random_drf" -- $((n * 7)) 1500 4 1 &&
      invariants "$tmp/l.db" "random_drf (locks) on $n $machine nodes"
  done
done

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "one protocol: every comparison passed"
