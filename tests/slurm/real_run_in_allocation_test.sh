#!/usr/bin/env bash
# `ncp2 run ./prog --machine real` inside a Slurm allocation (docs/real-machine.md, "Under Slurm"),
# on the cluster tests/slurm/with_one_node_slurm.sh starts (SLURM_CONF set): mpirun takes its
# hosts and slots from the allocation, under salloc and in a batch script; an allocation with fewer
# tasks than nodes is refused before anything starts.
# Usage: with_one_node_slurm.sh real_run_in_allocation_test.sh BIN_DIR SOURCE_DIR
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$1"
src="$2"
[ -n "${SLURM_CONF:-}" ] || { echo "SLURM_CONF is not set: run under with_one_node_slurm.sh"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
cd "$tmp" || exit 1

"$bin/ncp2-cc" -O1 -o jacobi "$src/examples/jacobi.c" || { echo "FAIL: ncp2-cc"; exit 1; }
native=$(./jacobi 130 130 6 | sed 's/ on [0-9]* node(s)//')

EXPECT_TIMEOUT=180
source "$here/checks.sh"  # fail, expect, has

# mpirun's command line, logged by a wrapper (NCP2_MPIRUN) that then runs Open MPI's.
mpirun=$(command -v mpirun) || { echo "FAIL: no mpirun"; exit 1; }
printf '#!/bin/sh\necho "$*" >>%s/mpirun.args\nexec %s "$@"\n' "$tmp" "$mpirun" >mpirun-logged
chmod +x mpirun-logged
export NCP2_MPIRUN="$tmp/mpirun-logged"

# Several Slurm nodes (ONE_NODE_SLURM_NODES=2: two slurmd on this host): mpirun starts its daemons
# on the allocation's nodes with srun and places one rank on each.
if [ "$(sinfo -h -N | wc -l)" -ge 2 ]; then
  if expect 0 salloc -N 2 -n 2 "$bin/ncp2" run ./jacobi --machine real --nodes 2 \
    --mpirun-args "--display-map --mca plm_base_verbose 5" -- 130 130 6; then
    has "status    complete, verified"
    grep -q "plm:slurm: final top-level argv" "$tmp/out" && grep -q "srun .*orted" "$tmp/out" ||
      fail "mpirun did not start its daemons with srun"
    for node in $(sinfo -h -N -o %N | head -n 2); do
      grep -qE "Data for node: $node[[:space:]].*Num procs: 1" "$tmp/out" || fail "no rank placed on $node"
    done
  fi
  [ "$failures" -eq 0 ] && echo "all passed" && exit 0
  echo "$failures failed"
  exit 1
fi

# salloc: two tasks, two nodes; mpirun binds no rank to a core and does not oversubscribe (the
# allocation decides).
if expect 0 salloc -n 2 "$bin/ncp2" run ./jacobi --machine real --nodes 2 --db "$tmp/salloc.db" -- 130 130 6; then
  has "status    complete, verified"
  has "on the nodes of Slurm job"
  args=$(grep -- "-np 2" "$tmp/mpirun.args" | tail -n 1)
  [[ "$args" == *"--bind-to none"* ]] || fail "mpirun without --bind-to none in an allocation: $args"
  [[ "$args" == *"--oversubscribe"* ]] && fail "--oversubscribe inside an allocation: $args"
  got=$(grep '^\[node 0\]' "$tmp/out" | sed 's/^\[node 0\] //; s/ on [0-9]* node(s)//')
  [ "$got" = "$native" ] || fail "node 0 printed '$got', the sequential run '$native'"
  [ "$(sqlite3 "$tmp/salloc.db" "SELECT machine || ' ' || status FROM runs")" = "real complete" ] ||
    fail "the database of the run in the allocation is not a complete real run"
fi

# A batch script, as docs/real-machine.md shows it (the node count from Slurm's task count).
cat >job.sh <<EOF
#!/bin/bash
#SBATCH --ntasks=2
#SBATCH --output=$tmp/batch.out
"$bin/ncp2" run ./jacobi --machine real --nodes "\$SLURM_NTASKS" -- 130 130 6
EOF
if expect 0 sbatch --wait job.sh; then
  cp "$tmp/batch.out" "$tmp/out"
  has "status    complete, verified"
  has "real, 2 nodes"
fi

# One task, one node per task and two CPUs (the agent and the program's process): the docs' recipe.
expect 0 salloc -N 1 --ntasks-per-node=1 --cpus-per-task=2 "$bin/ncp2" run ./jacobi --machine real --nodes 1 -- 130 130 6 &&
  has "status    complete, verified"

# srun instead of mpirun: Slurm starts the agents itself through PMIx (docs/real-machine.md); a
# wrapper given as NCP2_MPIRUN answers Open MPI's --version and runs the agents' command with srun.
if srun --mpi=list 2>&1 | grep -qw pmix; then
  cat >srun-as-mpirun <<'WRAPPER'
#!/bin/bash
[ "$1" = --version ] && exec mpirun --version
n=1
while [ $# -gt 0 ]; do
  case "$1" in
    -np) n=$2; shift 2 ;;
    */ncp2-node) break ;;
    *) shift ;;
  esac
done
exec srun --mpi=pmix -n "$n" --cpu-bind=none "$@"
WRAPPER
  chmod +x srun-as-mpirun
  expect 0 env NCP2_MPIRUN="$tmp/srun-as-mpirun" salloc -n 2 "$bin/ncp2" run ./jacobi --machine real --nodes 2 -- 130 130 6 &&
    has "status    complete, verified"
else
  echo "note: this Slurm has no PMIx plugin: srun --mpi=pmix not tried"
fi

# More nodes than tasks: said before anything starts (exit 2), with what to allocate.
if expect 2 salloc -n 1 "$bin/ncp2" run ./jacobi --machine real --nodes 2 -- 130 130 6; then
  has "has 1 task slot(s)"
  has "salloc -n 2"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "all passed"
