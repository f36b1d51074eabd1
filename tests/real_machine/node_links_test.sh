#!/usr/bin/env bash
# ncp2-node, what mpirun starts on every node of a real run, runs the protocol core (lrc/) over MPI
# and links no code of the emulator, the emulated DSM runtime, the workloads or the run pipeline
# (issue 31): a real run cannot take an emulated path by mistake, and the agent stays small.
# The check reads the functions the binary defines; `ncp2` itself, which does link them, shows
# that the pattern finds them when they are there.
# Usage: node_links_test.sh BIN_DIR
set -u
bin="$1"
pattern='^[0-9a-f]+ [TtWw] ncp2::(emu|dsm|workloads|run)::'
found=$(nm -C --defined-only "$bin/ncp2-node" | grep -E "$pattern")
if [ -n "$found" ]; then
  echo "FAIL: ncp2-node defines functions of the emulator, the DSM runtime, the workloads or the run pipeline:"
  head -20 <<<"$found"
  exit 1
fi
in_ncp2=$(nm -C --defined-only "$bin/ncp2" | grep -cE "$pattern")
if [ "$in_ncp2" -eq 0 ]; then
  echo "FAIL: the pattern finds nothing in ncp2 either: the check itself is broken"
  exit 1
fi
lrc=$(nm -C --defined-only "$bin/ncp2-node" | grep -cE '^[0-9a-f]+ [TtWw] ncp2::lrc::')
if [ "$lrc" -eq 0 ]; then
  echo "FAIL: ncp2-node defines no function of the protocol core (lrc/)"
  exit 1
fi
echo "ok: ncp2-node links the protocol core ($lrc functions) and none of the emulator's ($in_ncp2 in ncp2)"
