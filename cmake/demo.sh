#!/usr/bin/env bash
# `make demo`: the main job. Runs a DSM workload on 8 emulated nodes on both machines (NCP2 with
# protocol controllers, and plain TreadMarks on the same hardware), stores each run's CARNIVAL
# database under runs/, prints the top scopes and the CPWait Map of each, and the CP's gain.
# The workload is red-black SOR with the paper's input (2000 x 1000, 50 iterations): the program of
# the SC'95 TreadMarks study whose every iteration moves diffs between neighbours, so the CP's work
# (snooped writes, hardware diffs, no interrupts) shows category by category; it verifies
# bit-exactly and runs in seconds. DEMO_WORKLOAD / DEMO_PRESET / DEMO_NODES choose another run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ncp2="${NCP2:-$root/build/bin/ncp2}"
workload="${DEMO_WORKLOAD:-sor}"
preset="${DEMO_PRESET:-paper}"
nodes="${DEMO_NODES:-8}"
mkdir -p "$root/runs"

declare -A time_ps
for machine in ncp2 treadmarks; do
  db="$root/runs/demo-$workload-$machine.db"
  echo "=== $workload ($preset preset) on $nodes nodes, machine $machine"
  # --baseline: the 1-node time (once; then from the run history) for the speedup line.
  "$ncp2" run "$workload" --preset "$preset" --nodes "$nodes" --machine "$machine" --db "$db" --force --baseline
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
echo "Open a run:  make gui, then build/bin/carnival runs/demo-$workload-ncp2.db   (the GUI; headless: build/bin/carnival --screenshot shot.png runs/demo-$workload-ncp2.db)"
echo "Timeline:    View > Timeline in carnival, or build/bin/ncp2 export-trace runs/demo-$workload-ncp2.db trace.json  -> ui.perfetto.dev"
echo "Compare:     build/bin/ncp2 compare runs/demo-$workload-treadmarks.db runs/demo-$workload-ncp2.db"
