#!/usr/bin/env bash
# `make demo`: the main job. Runs a DSM workload on 8 emulated nodes on both machines (NCP2 with
# protocol controllers, and plain TreadMarks on the same hardware), stores each run's CARNIVAL
# database under runs/, prints the top scopes and the CPWait Map of each, and the CP's gain.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ncp2="${NCP2:-$root/build/bin/ncp2}"
workload="${DEMO_WORKLOAD:-phases}"
nodes="${DEMO_NODES:-8}"
mkdir -p "$root/runs"

declare -A time_ps
for machine in ncp2 treadmarks; do
  db="$root/runs/demo-$workload-$machine.db"
  echo "=== $workload on $nodes nodes, machine $machine"
  "$ncp2" run "$workload" --nodes "$nodes" --machine "$machine" --db "$db" --force
  echo
  "$ncp2" report "$db" --view scopes --top 8
  echo
  "$ncp2" report "$db" --view cpwait --top 8
  echo
  time_ps[$machine]=$("$ncp2" report "$db" --view nodes --format json |
    grep -o '"virtual_time_ps": *[0-9]*' | head -1 | grep -o '[0-9]*$')
done

awk -v n="${time_ps[ncp2]}" -v t="${time_ps[treadmarks]}" 'BEGIN {
  printf "=== the protocol controllers'"'"' gain: %.3f ms on treadmarks, %.3f ms on ncp2 (%.1f %% less time, speedup %.2fx)\n",
         t / 1e9, n / 1e9, (t - n) / t * 100, t / n }'
echo "Open a run:  build/bin/carnival runs/demo-$workload-ncp2.db   (the GUI; headless: build/bin/carnival --screenshot shot.png runs/demo-$workload-ncp2.db)"
echo "Timeline:    build/bin/ncp2 export-trace runs/demo-$workload-ncp2.db trace.json  -> open in ui.perfetto.dev"
