#!/usr/bin/env bash
# Two Open MPI "hosts" on this one machine, for tests of real runs: writes into DIR a hostfile
# naming two hosts that are not this machine (ncp2-fake-a, ncp2-fake-b, SLOTS slots each) and a fake
# ssh (DIR/fake-ssh) that drops the host and runs the command here, logging the host to
# DIR/agent.log. Open MPI, seeing hosts that are not local, starts one orted per host through the
# agent, so ranks get per-host local ranks exactly as on two machines.
# Usage: two_hosts.sh DIR [SLOTS]    then run, e.g.:
#   mpirun --hostfile DIR/hostfile --mca plm_rsh_agent DIR/fake-ssh --mca plm_rsh_no_tree_spawn 1 \
#          --mca rtc_hwloc_vmhole none --mca btl tcp,self ...
#   (ncp2: --hostfile DIR/hostfile --mpirun-args "$(cat DIR/mpirun-args)")
# DIR/mpirun-args holds those --mca options on one line. Each fake host gets its own TMPDIR
# (DIR/tmp.HOST, inherited by its ranks) and hwloc's shared topology is off: two orteds on one
# machine otherwise race for one session dir (mkdir: File exists; the launch fails or hangs) and
# crashed in hwloc_shmem_topology_write.
set -euo pipefail
dir=${1:?usage: two_hosts.sh DIR [SLOTS]}
slots=${2:-2}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
printf 'ncp2-fake-a slots=%s\nncp2-fake-b slots=%s\n' "$slots" "$slots" >"$dir/hostfile"
cat >"$dir/fake-ssh" <<EOF
#!/bin/sh
# Open MPI calls: fake-ssh [options] HOST COMMAND...; the command runs here, through a shell as ssh would.
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
echo "\$1" >>"$dir/agent.log"
# Each host its own temp dir: two orteds on one machine would race for the same session dir.
export TMPDIR="$dir/tmp.\$1"
mkdir -p "\$TMPDIR"
shift
exec /bin/sh -c "\$*"
EOF
chmod +x "$dir/fake-ssh"
# TCP between the ranks: the shared-memory transport (vader) names its segments after the machine's
# hostname and the local rank, the same on both fake hosts, and an MPI program's ranks then crashed
# in it (MPI_Comm_dup). Two real machines never share segments.
echo "--mca plm_rsh_agent $dir/fake-ssh --mca plm_rsh_no_tree_spawn 1 --mca rtc_hwloc_vmhole none --mca btl tcp,self" >"$dir/mpirun-args"
