#!/usr/bin/env bash
# Real runs (`ncp2 run ./prog --machine real`, docs/real-machine.md), as a user would: the examples
# and random data-race-free programs on 1..4 local processes over Open MPI (oversubscribed), their
# results against the sequential run; the database (machine real, clocks, profile, waits) and
# `ncp2 compare` against an emulated run; a deadlock explained; a program process killed mid-run;
# every error the issue names; two "hosts" through a hostfile.
# Usage: real_runs_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

build() {  # build NAME SOURCE: ncp2-cc -O1 into $tmp/NAME
  "$bin/ncp2-cc" -O1 -o "$tmp/$1" "$2" -lm || { fail "ncp2-cc $2"; return 1; }
}
# real CODE PATTERN ARGS...: ncp2 run --machine real ARGS; checks the exit code and a fixed string.
timeout=$(command -v timeout)
real() {
  local code="$1" pattern="$2"
  shift 2
  local status
  "$timeout" 300 "$bin/ncp2" run --machine real "$@" >"$tmp/out" 2>&1
  status=$?
  if [ "$status" -ne "$code" ]; then fail "ncp2 run --machine real $* exited $status, expected $code"; cat "$tmp/out"; return 1; fi
  if ! grep -qF -- "$pattern" "$tmp/out"; then fail "ncp2 run --machine real $*: no '$pattern' in"; cat "$tmp/out"; return 1; fi
  echo "ok: ncp2 run --machine real $*"
}

for p in jacobi sor tsp water qsort deadlock; do build "$p" "$src/examples/$p.c" || exit 1; done
build random_drf "$src/tests/tmk/programs/random_drf.c" || exit 1

# The examples: verified on 1..4 processes, and node 0 prints the result the sequential run prints.
declare -A args=([jacobi]="130 130 6" [sor]="130 130 6" [tsp]="" [water]="" [qsort]="")
for p in jacobi sor tsp water qsort; do
  # shellcheck disable=SC2086
  native=$("$tmp/$p" ${args[$p]} | sed 's/ on [0-9]* node(s)//')
  for n in 1 2 3 4; do
    # shellcheck disable=SC2086
    real 0 "status    complete, verified" "$tmp/$p" --nodes "$n" -- ${args[$p]} || continue
    got=$(grep '^\[node 0\]' "$tmp/out" | sed 's/^\[node 0\] //; s/ on [0-9]* node(s)//')
    [ "$got" = "$native" ] || fail "$p on $n nodes printed '$got', the sequential run '$native'"
  done
done

# One host, one clock (issue 42 item 2): the nodes read node 0's clock, so the synchronization's
# measured offset of every node lies within its stated bound (it measured zero).
if real 0 "status    complete, verified" "$tmp/jacobi" --nodes 4 -- 130 130 6; then
  clocks=$(grep -E '^clock +node [0-9]+: offset' "$tmp/out")
  [ "$(wc -l <<<"$clocks")" -eq 3 ] || fail "three clock lines expected: $clocks"
  awk '{o = $5 + 0; if (o < 0) o = -o; b = $(NF - 1) + 0; if (o > b) bad = bad $0 "; "}
       END {if (bad != "") {print bad; exit 1}}' <<<"$clocks" ||
    fail "a node's clock offset outside its error bound on one host: $clocks"
fi

# UCX that cannot start (here: no such transport) is said by every node, and no node waits for
# the others in the start-up collective: exit 1, not a hang.
UCX_TLS=nosuch real 1 "UCX: ucp_init failed" "$tmp/jacobi" --nodes 2 -- 130 130 6

# Random data-race-free programs: every node checks its data against the sequential semantics.
for n in 1 2 3 4; do
  for seed in $((n * 7)) $((n * 7 + 1)); do
    real 0 "status    complete, verified" "$tmp/random_drf" --nodes "$n" -- "$seed" 1500 4
  done
done

# Garbage collection at every barrier (a tiny threshold): still verified, and it did collect.
real 0 "garbage collections of diffs" "$tmp/random_drf" --nodes 3 --set dsm.gc_threshold_kb=1 -- 5 1500 6 &&
  grep -qF "status    complete, verified" "$tmp/out" || fail "random_drf with garbage collections"

# The database: machine real, every node's clock, the profile by scope and line, waits with parts.
real 0 "database  $tmp/water.db" "$tmp/water" --nodes 3 --db "$tmp/water.db"
q() { sqlite3 "$tmp/water.db" "$1"; }
[ "$(q "select machine || ' ' || nodes || ' ' || status || ' ' || verified from runs")" = "real 3 complete 1" ] ||
  fail "runs row: $(q 'select * from runs')"
[ "$(q 'select count(*) from clocks')" = 3 ] || fail "clocks: $(q 'select * from clocks')"
[ "$(q "select count(*) from scopes where kind = 'line' and file like '%water.c'")" -gt 0 ] || fail "no line scopes"
[ "$(q "select count(*) from waits where operation in ('barrier', 'lock acquire', 'diff fetch')")" -gt 0 ] ||
  fail "no waits"
bad=$(q "select count(*) from waits where duration_ps <> cplwait_ps + cplcomp_ps + cpcomm_ps + cprwait_ps +
         cprcomp_ps + pprwait_ps + pprcomp_ps + pplwait_ps + sync_delay_ps")
[ "$bad" = 0 ] || fail "$bad waits whose parts do not sum to their duration"
[ "$(q "select count(distinct resource) from timeline")" = 2 ] || fail "timeline: $(q 'select resource, count(*) from timeline group by 1')"
[ "$(q "select count(*) from timeline where end_ps < start_ps or start_ps < 0")" = 0 ] || fail "timeline stretches out of order"
"$bin/ncp2" report "$tmp/water.db" >"$tmp/report" 2>&1 || fail "ncp2 report of a real run"
grep -q "machine      real, 3 nodes" "$tmp/report" || fail "report: $(head -5 "$tmp/report")"
"$bin/ncp2" run "$tmp/water" --nodes 3 --db "$tmp/water-emulated.db" >/dev/null 2>&1 || fail "emulated water"
"$bin/ncp2" compare "$tmp/water-emulated.db" "$tmp/water.db" >"$tmp/compare" 2>&1 || fail "ncp2 compare"
grep -q "real" "$tmp/compare" || fail "compare: $(head -5 "$tmp/compare")"
# The same program is named the same way on both machines (issue 36 item 4): its root scope, and
# so every scope, matches; none is only in one run because of the program's name.
# Named relative to the working directory, as a user types it.
(cd "$tmp" && "$bin/ncp2" run ./jacobi --nodes 2 --db names-emulated.db -- 66 34 2 >/dev/null 2>&1 &&
  "$bin/ncp2" run ./jacobi --nodes 2 --machine real --db names-real.db -- 66 34 2 >/dev/null 2>&1) ||
  fail "jacobi for the names"
root_emulated=$(sqlite3 "$tmp/names-emulated.db" "select name from scopes where kind = 'program'")
root_real=$(sqlite3 "$tmp/names-real.db" "select name from scopes where kind = 'program'")
[ "$root_emulated" = "./jacobi" ] && [ "$root_emulated" = "$root_real" ] ||
  fail "the program is '$root_emulated' emulated and '$root_real' real"

# Each node's output in files (--node-output), none on ours.
mkdir -p "$tmp/out-dir"
real 0 "status    complete, verified" "$tmp/jacobi" --nodes 2 --node-output "$tmp/out-dir" -- 130 130 6 &&
  ! grep -q '^\[node 0\]' "$tmp/out" && grep -q "verified" "$tmp/out-dir/node-0.stdout" &&
  [ -f "$tmp/out-dir/node-1.stderr" ] || fail "--node-output: $(ls "$tmp/out-dir")"

# A lock-order deadlock: exit 3, each node's wait named with the holder and the lines.
real 3 "node 0 waits for lock 2 at deadlock.c:27" "$tmp/deadlock" --nodes 3 --db "$tmp/dl.db"
grep -qF "held by node 1 which acquired it at deadlock.c:25" "$tmp/out" || fail "deadlock holder: $(cat "$tmp/out")"
[ "$(sqlite3 "$tmp/dl.db" 'select status from runs')" = deadlock ] || fail "deadlock run not marked"

# The host-time limit (issue 36 item 5): node 1 loops without a Tmk call; at --max-wall node 0
# stops the run, exit 5, the database kept and marked incomplete, each node's place named (node 0
# in its barrier wait, node 1 in the looping function).
build runs_forever "$src/tests/tmk/programs/runs_forever.c" &&
  real 5 "node 1: in spin (runs_forever.c:5)" "$tmp/runs_forever" --nodes 2 --max-wall 2s --db "$tmp/forever.db" &&
  grep -qF "node 0: waits for barrier 1 at runs_forever.c:10" "$tmp/out" &&
  grep -qF "stopped after 2.0 s of host time (--max-wall)" "$tmp/out" &&
  [ "$(sqlite3 "$tmp/forever.db" 'select status from runs')" = incomplete ] ||
  fail "--max-wall on a real run: $(cat "$tmp/out")"

# The protocol reaches each node as one argument (issue 41: lrc::protocol_argument); a node given
# a bad one says which key or value, exit 2, before MPI starts.
out=$("$bin/ncp2-node" --program /bin/true --protocol "page_size=4096,colour=blue" 2>&1)
[ $? -eq 2 ] && grep -qF "ncp2-node: protocol: no key 'colour'" <<<"$out" || fail "ncp2-node --protocol with a bad key: $out"
out=$("$bin/ncp2-node" --program /bin/true --protocol "first_touch=nowhere" 2>&1)
[ $? -eq 2 ] && grep -qF "first_touch=nowhere is not home or zero" <<<"$out" || fail "ncp2-node --protocol with a bad value: $out"

# Polling under a lock (issue 41 item 4): the pipeline of tests/tmk/programs/polling_ring.c at 16
# processes (both emulated machines run it at 16 nodes too: tests/tmk/programs_test.sh), its full
# 400 items: about 3 s here, 32 processes on 2 cores.
build polling_ring "$src/tests/tmk/programs/polling_ring.c" &&
  real 0 "complete, verified" "$tmp/polling_ring" --nodes 16 --max-wall 60s

# A program process killed mid-run: the others stop, the message names the node, the database says failed.
echo old >"$tmp/kept.txt"
("$bin/ncp2" run --machine real "$tmp/jacobi" --nodes 3 --db "$tmp/killed.db" -- 1026 1026 100000 >"$tmp/killed.out" 2>&1
 echo "$?" >"$tmp/killed.status") &
for _ in $(seq 100); do
  [ "$(pgrep -f "^$tmp/jacobi 1026" | wc -l)" -ge 3 ] && break
  sleep 0.1
done
sleep 1
victim=$(pgrep -f "^$tmp/jacobi 1026" | sort -n | tail -1)
kill -9 "$victim"
wait
[ "$(cat "$tmp/killed.status")" = 1 ] || fail "killed run exited $(cat "$tmp/killed.status"): $(tail -5 "$tmp/killed.out")"
grep -q "the program was killed by SIGKILL" "$tmp/killed.out" || fail "killed: $(tail -5 "$tmp/killed.out")"
[ "$(sqlite3 "$tmp/killed.db" 'select status from runs')" = failed ] || fail "killed run's database not failed"
[ "$(cat "$tmp/kept.txt")" = old ] || fail "another file was touched"

# Two "hosts" through a hostfile (both on this machine, reached through a fake ssh): the ranks are
# launched per host as on two machines, and the run is the same.
bash "$src/tests/real_machine/two_hosts.sh" "$tmp/hosts" 2
real 0 "status    complete, verified" "$tmp/random_drf" --nodes 4 --hostfile "$tmp/hosts/hostfile" \
  --mpirun-args "$(cat "$tmp/hosts/mpirun-args")" --db "$tmp/two-hosts.db" -- 21 1500 4
[ "$(sort -u "$tmp/hosts/agent.log" | tr '\n' ' ')" = "ncp2-fake-a ncp2-fake-b " ] ||
  fail "the two hosts were not both launched through the agent: $(cat "$tmp/hosts/agent.log")"
[ "$(sqlite3 "$tmp/two-hosts.db" 'select count(*) from clocks where synchronized = 1')" = 3 ] ||
  fail "two hosts: clocks $(sqlite3 "$tmp/two-hosts.db" 'select * from clocks')"

# Every kind of write (tests/tmk/programs/write_kinds.c): the write guards take most write faults at
# once on real processes too (the agent twins each page from its snapshot), with the same result as
# without the guards.
build write_kinds "$src/tests/tmk/programs/write_kinds.c" || exit 1
"$bin/ncp2-cc" --ncp2-no-write-guards -O1 -o "$tmp/write_kinds_plain" "$src/tests/tmk/programs/write_kinds.c" ||
  fail "ncp2-cc --ncp2-no-write-guards write_kinds.c"
NCP2_HOST_STATS=1 real 0 "status    complete, verified" "$tmp/write_kinds" --nodes 3 -- 3 &&
  { with=$(grep "write_kinds ok" "$tmp/out"); grep "node 1\] ncp2 tmk host" "$tmp/out" | grep -qv " 0 taken at once" ||
    fail "real: no write fault taken at once: $(grep 'ncp2 tmk host' "$tmp/out")"; }
real 0 "status    complete, verified" "$tmp/write_kinds_plain" --nodes 3 -- 3 &&
  { [ -n "${with:-}" ] && [ "$with" = "$(grep "write_kinds ok" "$tmp/out")" ] || fail "real: write_kinds differs with guards"; }

# Errors, before anything starts: each a clear message and exit 2.
real 2 "built-in workload sor runs on the emulated machines" sor --nodes 2
real 2 "no program $tmp/missing" "$tmp/missing" --nodes 2
real 2 "--detect-races is for the emulated machines" --detect-races "$tmp/jacobi" --nodes 2
touch "$tmp/exists.db"
real 2 "exists" "$tmp/jacobi" --nodes 2 --db "$tmp/exists.db"
NCP2_MPIRUN=/nonexistent/mpirun real 2 "openmpi-bin" "$tmp/jacobi" --nodes 2
mkdir -p "$tmp/emptypath"
env PATH="$tmp/emptypath" "$bin/ncp2" run --machine real "$tmp/jacobi" --nodes 2 >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "openmpi-bin" "$tmp/out" || fail "no mpirun on PATH: $(cat "$tmp/out")"
"$bin/ncp2" run "$tmp/jacobi" --nodes 2 --hostfile /dev/null >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -qF -- "--hostfile and --mpirun-args are for --machine real" "$tmp/out" || fail "--hostfile without real"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all real runs passed"
