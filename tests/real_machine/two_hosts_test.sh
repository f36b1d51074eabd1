#!/usr/bin/env bash
# two_hosts.sh works from the shell: 4 ranks over its two fake hosts (2 slots each), started
# through the fake ssh, with local ranks 0,1 on each host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bash "$here/two_hosts.sh" "$dir/hosts" 2
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# shellcheck disable=SC2046  # mpirun-args is several words
out=$(timeout 60 mpirun -np 4 --bind-to none --hostfile "$dir/hosts/hostfile" $(cat "$dir/hosts/mpirun-args") \
  sh -c 'echo $OMPI_COMM_WORLD_RANK:$OMPI_COMM_WORLD_LOCAL_RANK' | sort | tr '\n' ' ')
[[ $out == "0:0 1:1 2:0 3:1 " ]] || { echo "ranks: $out" >&2; exit 1; }
hosts=$(sort "$dir/hosts/agent.log" | tr '\n' ' ')
[[ $hosts == "ncp2-fake-a ncp2-fake-b " ]] || { echo "agent calls: $hosts" >&2; exit 1; }
echo "two_hosts.sh: 4 ranks on 2 hosts through the fake ssh"
