#!/usr/bin/env bash
# `ncp2 sweep --slurm` end to end, as a user would (docs/sweeps.md, "On Slurm"), on the cluster
# tests/slurm/with_one_node_slurm.sh starts (SLURM_CONF set): a sweep of a built-in workload
# submitted as one job array and gathered into sweep.db; the same command again submits nothing;
# a point gone is the only one submitted again; a failing point is marked failed with its
# reason while the others are done; bad --slurm options and sbatch missing are said before
# anything runs.
# Usage: with_one_node_slurm.sh sweep_slurm_test.sh BIN_DIR
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"
[ -n "${SLURM_CONF:-}" ] || { echo "SLURM_CONF is not set: run under with_one_node_slurm.sh"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
cd "$tmp" || exit 1

source "$here/checks.sh"  # fail, expect, has
points() {  # points DIR STATUS: how many points of DIR/sweep.db have STATUS
  sqlite3 "$1/sweep.db" "SELECT count(*) FROM points WHERE status = '$2'"
}
submissions() { find "$1/slurm/submissions" -mindepth 1 -maxdepth 1 -type d | wc -l; }

sweep=("$bin/ncp2" sweep jacobi --nodes 1,2,3,4 --preset small --slurm --progress never)

# Four points, one array, all gathered.
if expect 0 "${sweep[@]}" --out "$tmp/s"; then
  has "submitted 4 points as slurm job"
  [ "$(points "$tmp/s" done)" = 4 ] || fail "4 points done expected in sweep.db, got $(points "$tmp/s" done)"
  [ "$(sqlite3 "$tmp/s/sweep.db" "SELECT count(*) FROM points WHERE nodes = 4 AND speedup > 1")" = 1 ] ||
    fail "the 4-node point has no speedup over the 1-node point"
fi

# The same command again: everything is complete, nothing is submitted.
if expect 0 "${sweep[@]}" --out "$tmp/s"; then
  grep -q "submitted" "$tmp/out" && fail "a complete sweep was submitted again"
  [ "$(submissions "$tmp/s")" = 1 ] || fail "$(submissions "$tmp/s") submissions after a resume, 1 expected"
fi

# One point's database gone: that point alone goes to Slurm again.
rm "$tmp/s/points/ncp2-n3.db"
if expect 0 "${sweep[@]}" --out "$tmp/s"; then
  has "submitted 1 points"
  [ "$(points "$tmp/s" done)" = 4 ] || fail "4 points done expected after the resubmission"
fi

# A program that fails on 2 nodes: that point is failed with its reason, the others done.
cat >fails_on_two.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <tmk.h>
int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  if (Tmk_nprocs == 2) {
    fprintf(stderr, "two nodes are not supported\n");
    exit(3);
  }
  Tmk_exit(0);
}
EOF
"$bin/ncp2-cc" -O1 -o fails_on_two fails_on_two.c || fail "ncp2-cc fails_on_two.c"
if expect 1 "$bin/ncp2" sweep ./fails_on_two --nodes 1,2,4 --slurm --progress never --out "$tmp/f"; then
  has "failed: ncp2-n2: FAILED, exit code 1"
  [ "$(points "$tmp/f" done)" = 2 ] || fail "2 points done expected, got $(points "$tmp/f" done)"
  [ "$(points "$tmp/f" failed)" = 1 ] || fail "1 point failed expected, got $(points "$tmp/f" failed)"
  message=$(sqlite3 "$tmp/f/sweep.db" "SELECT message FROM points WHERE status = 'failed'")
  [[ "$message" == *"Tmk_exit"* || "$message" == *"exit"* ]] || fail "the failed point's message says nothing: '$message'"
fi

# Errors before anything runs (exit 2): an option that needs --slurm, one it excludes, an
# --sbatch-arg that Slurm refuses, --array given by hand, and sbatch missing.
expect 2 "$bin/ncp2" sweep jacobi --nodes 1 --sbatch-arg=--time=5 --out "$tmp/e1" && has "--sbatch-arg needs --slurm"
expect 2 "$bin/ncp2" sweep jacobi --nodes 1 --slurm -j 2 --out "$tmp/e2" && has "--jobs cannot be used with --slurm"
expect 2 "${sweep[@]}" --sbatch-arg=--partition=no-such-partition --out "$tmp/e3" &&
  has "sbatch did not submit the job array" && has "partition"
expect 2 "${sweep[@]}" --sbatch-arg=--array=0-9 --out "$tmp/e4" && has "makes the job array itself"
mkdir -p nobin
expect 2 env PATH="$tmp/nobin" "$bin/ncp2" sweep jacobi --nodes 1 --slurm --out "$tmp/e5" &&
  has "sbatch is not on PATH"
[ -e "$tmp/e5" ] && fail "sbatch missing, yet the sweep's folder was made"

if [ "$failures" -ne 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "all passed"
