#!/usr/bin/env bash
# A one-node Slurm cluster for tests (issue 44 item 3): this host (`hostname -s`) is the controller
# and the only node, with its real CPU count. Everything lives in DIR: slurm.conf, cgroup.conf, a
# munge key and munged's socket, the daemons' state, spool, logs and pid files (absolute: the
# daemons change directory), and their own ports, so nothing of the system's Slurm or munge is
# used or changed. It installs nothing (cmake/install-deps.sh's `test` group does).
#
#   one_node_slurm.sh start DIR [OWNER_PID]  start munged, slurmctld, slurmd; wait for the node to
#                                            be idle. Exit 0 when up; 77 (a test's skip) when it
#                                            cannot start here, the reason on stderr, everything it
#                                            started stopped again. With OWNER_PID, a watchdog stops
#                                            the cluster once that process is gone (even killed -9).
#   one_node_slurm.sh stop DIR               stop every daemon started in DIR, by its pid file
#   one_node_slurm.sh env DIR                print `export SLURM_CONF=...` for the client commands
#
# ONE_NODE_SLURM_NODES=N (default 1) makes N Slurm nodes of this one host (HOST-n1..HOST-nN, a
# slurmd each on its own port, the CPUs shared out): an allocation over several nodes, so that
# mpirun starts its daemons on them with srun, as on a real cluster.
#
# Seen working as root on Debian 12's Slurm 22.05 (shared/GUIDE.md, "Sweeps").
set -u
readonly skip_code=77
readonly idle_timeout_s=${ONE_NODE_SLURM_TIMEOUT:-60}
readonly node_count=${ONE_NODE_SLURM_NODES:-1}

usage() {
  echo "usage: $0 start DIR [OWNER_PID] | stop DIR | env DIR" >&2
  exit 2
}

skip() {  # skip REASON: the cluster cannot run here; undo what started
  echo "one-host Slurm: cannot start: $*" >&2
  stop_daemons
  exit "$skip_code"
}

# A free TCP port on the loopback (the kernel's choice; released at once, so a small race remains).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}

write_config() {
  local host cpus node_line ctld_port k port name
  host=$(hostname -s)
  [[ "$node_count" =~ ^[1-9][0-9]?$ ]] || skip "ONE_NODE_SLURM_NODES=$node_count: 1 to 99 nodes"
  # slurmd -C: this host's real CPUs, sockets, cores and memory, as slurmd will report them.
  node_line=$(slurmd -C 2>/dev/null | head -n 1)
  [[ "$node_line" == NodeName=* ]] || node_line="NodeName=$host CPUs=$(nproc --all)"
  cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node_line")
  ctld_port=$(free_port) || skip "python3 cannot pick a free port"
  : >"$dir/nodes"
  if [ "$node_count" -eq 1 ]; then
    port=$(free_port) || skip "python3 cannot pick a free port"
    echo "$host" >"$dir/nodes"
    nodes="NodeName=$host Port=$port ${node_line#NodeName=* } State=UNKNOWN"
  else
    nodes=""
    for ((k = 1; k <= node_count; ++k)); do
      port=$(free_port) || skip "python3 cannot pick a free port"
      name="$host-n$k"
      echo "$name" >>"$dir/nodes"
      nodes+="NodeName=$name NodeHostname=$host Port=$port CPUs=$((cpus / node_count > 0 ? cpus / node_count : 1))"
      nodes+=" State=UNKNOWN"$'\n'
    done
    nodes=${nodes%$'\n'}
  fi
  cat >"$dir/slurm.conf" <<EOF
# A one-host cluster for ncp2's tests (tests/slurm/one_node_slurm.sh), in $dir.
ClusterName=ncp2test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=600
MailProg=/bin/true
$nodes
PartitionName=debug Nodes=$(paste -s -d, "$dir/nodes") Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  # cgroup.conf: read by slurmd even with task/none and proctrack/linuxproc; nothing constrained.
  printf 'CgroupPlugin=autodetect\nConstrainCores=no\nConstrainRAMSpace=no\n' >"$dir/cgroup.conf"
  echo "$cpus" >"$dir/cpus"
}

start_munged() {
  install -d -m 0700 "$dir/munge"
  # Our own key and socket: the system's munged (running or not) is neither used nor disturbed.
  if [ -r /etc/munge/munge.key ]; then
    install -m 0600 /etc/munge/munge.key "$dir/munge/munge.key"
  else
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 0600 "$dir/munge/munge.key"
  fi
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" >"$dir/log/munged.out" 2>&1 ||
    skip "munged failed: $(tail -n 3 "$dir/log/munged.out" "$dir/log/munged.log" 2>/dev/null)"
}

start_slurm() {
  local name
  slurmctld -f "$dir/slurm.conf" >"$dir/log/slurmctld.out" 2>&1 ||
    skip "slurmctld failed: $(tail -n 5 "$dir/log/slurmctld.log" "$dir/log/slurmctld.out" 2>/dev/null)"
  while read -r name; do
    slurmd -f "$dir/slurm.conf" -N "$name" >"$dir/log/slurmd-$name.out" 2>&1 ||
      skip "slurmd failed: $(tail -n 5 "$dir/log/slurmd-$name.log" "$dir/log/slurmd-$name.out" 2>/dev/null)"
  done <"$dir/nodes"
}

wait_until_idle() {
  local deadline=$((SECONDS + idle_timeout_s)) states pidfile
  while [ "$SECONDS" -lt "$deadline" ]; do
    states=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%T' 2>/dev/null | sort -u | paste -s -d,)
    [ "$states" = idle ] && [ "$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N | wc -l)" -eq "$node_count" ] && return 0
    for pidfile in "$dir"/run/*.pid; do
      alive "$pidfile" || skip "$(basename "$pidfile" .pid) stopped: $(tail -n 5 "$dir/log/$(basename "$pidfile" .pid).log" 2>/dev/null)"
    done
    sleep 0.5
  done
  skip "the nodes are not idle after ${idle_timeout_s} s (sinfo: '${states:-nothing}'):" \
    "$(tail -n 5 "$dir"/log/slurm*.log 2>/dev/null)"
}

alive() {  # alive PIDFILE
  local pid
  pid=$(cat "$1" 2>/dev/null) && [ -n "$pid" ] && running "$pid"
}

# running PID: the process exists and is not a zombie (an orphan's zombie stays when the
# system's init does not reap it, as in some containers).
running() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$state" ] && [[ "$state" != Z* ]]
}

# Stops the cluster: its jobs cancelled first (slurmd leaves running steps alone when it stops),
# then each daemon by its pid file (TERM, KILL after 10 s), then any job step still left.
stop_daemons() {
  local pidfile pid k
  local deadline=$((SECONDS + 10))
  if alive "$dir/run/slurmctld.pid"; then
    # Bounded: a client retries a controller that does not answer for its MessageTimeout.
    SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --quiet --user=root 2>/dev/null
    while [ "$SECONDS" -lt "$deadline" ] &&
      [ -n "$(SLURM_CONF="$dir/slurm.conf" timeout 3 squeue -h -o %A 2>/dev/null)" ]; do
      sleep 0.2
    done
  fi
  for pidfile in "$dir"/run/slurmd-*.pid "$dir/run/slurmctld.pid" "$dir/run/munged.pid"; do
    [ -e "$pidfile" ] || continue
    alive "$pidfile" || { rm -f "$pidfile"; continue; }
    pid=$(cat "$pidfile")
    kill -TERM "$pid" 2>/dev/null
    for ((k = 0; k < 100; ++k)); do
      running "$pid" || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    rm -f "$pidfile"
  done
  kill_leftover_steps
}

# A job step outlives slurmd (slurmstepd is its own process). This cluster's steps are those that
# hold one of its slurmd logs open; each is killed with every process under it.
kill_leftover_steps() {
  local pid
  compgen -G "$dir/log/slurmd-*.log" >/dev/null || return 0  # no slurmd ever started here
  for pid in $(find /proc/[0-9]*/fd -maxdepth 1 -lname "$dir/log/slurmd-*.log" 2>/dev/null | cut -d/ -f3 | sort -u); do
    [ "$pid" != "$$" ] && kill_tree "$pid"
  done
}

kill_tree() {  # kill_tree PID: the process and its descendants, children first
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -KILL "$1" 2>/dev/null
}

start_watchdog() {  # start_watchdog OWNER_PID: stop the cluster once OWNER_PID is gone
  local owner="$1" self
  self=$(readlink -f "$0")
  setsid bash -c 'while [[ "$(ps -o stat= -p "$1")" == [^Z]* ]]; do sleep 1; done; exec bash "$2" stop "$3"' \
    watchdog "$owner" "$self" "$dir" </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/run/watchdog.pid"
}

start() {
  [ "$(id -u)" -eq 0 ] || skip "not root (slurmd runs jobs as their users: it needs root)"
  local tool
  for tool in munged slurmctld slurmd sinfo sbatch python3; do
    command -v "$tool" >/dev/null || skip "$tool is missing (bash cmake/install-deps.sh test)"
  done
  install -d -m 0755 "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
  write_config
  start_munged
  start_slurm
  [ -n "$owner" ] && start_watchdog "$owner"
  wait_until_idle
  echo "one-host Slurm up in $dir: node(s) $(paste -s -d, "$dir/nodes") on $(hostname -s), $(cat "$dir/cpus") CPUs"
}

[ $# -ge 2 ] || usage
command="$1"
dir=$(realpath -m "$2")
owner="${3:-}"
case "$command" in
  start) mkdir -p "$dir" && start ;;
  stop)
    stop_daemons
    pid=$(cat "$dir/run/watchdog.pid" 2>/dev/null) && [ "$pid" != "$$" ] && kill "$pid" 2>/dev/null
    rm -f "$dir/run/watchdog.pid"
    exit 0
    ;;
  env) echo "export SLURM_CONF=$dir/slurm.conf" ;;
  *) usage ;;
esac
