#!/usr/bin/env bash
# Runs a test command with a one-node Slurm cluster up (tests/slurm/one_node_slurm.sh; SLURM_CONF
# set for it), then stops the cluster whatever the command did: on its exit, its failure, Ctrl-C,
# or ctest's timeout (TERM); should this script be killed outright, the cluster's watchdog stops it.
# Exits with the command's status, or 77 (ctest's SKIP_RETURN_CODE) with the reason when the
# cluster cannot start here.
# Usage: with_one_node_slurm.sh COMMAND [ARGS...]
set -u
here=$(dirname "$(readlink -f "$0")")
dir=$(mktemp -d "${TMPDIR:-/tmp}/ncp2-slurm.XXXXXX")
child=
cleanup() {
  [ -n "$child" ] && kill "$child" 2>/dev/null
  bash "$here/one_node_slurm.sh" stop "$dir/cluster"
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bash "$here/one_node_slurm.sh" start "$dir/cluster" $$
status=$?
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 77 ] && echo "SKIPPED: no one-host Slurm cluster here (the reason above)"
  exit "$status"
fi
export SLURM_CONF="$dir/cluster/slurm.conf"
# Bash waits for a foreground command before running a trap: run it in the background and wait,
# so that TERM stops the cluster at once (the command, in our process group, gets it as well).
"$@" &
child=$!
wait "$child"
status=$?
child=
exit "$status"
