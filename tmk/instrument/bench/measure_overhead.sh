#!/usr/bin/env bash
# The cost of ncp2_count_pass on a Jacobi 2D stencil at -O2: the program built with and without the
# plugin, run alternately, best of RUNS wall times each (the whole process, and the sweeps alone).
# Usage: measure_overhead.sh /path/to/libncp2_count_pass.so [ITERS=20] [RUNS=5] [N=1024]
set -eu
plugin=$(realpath "${1:?usage: measure_overhead.sh /path/to/libncp2_count_pass.so [ITERS] [RUNS] [N]}")
iters="${2:-20}" runs="${3:-5}" n="${4:-1024}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/rt.c" <<'RT'
unsigned long long __ncp2_tmk_icount, __ncp2_tmk_icount_limit = 1000000;
void __ncp2_tmk_icount_hook(void) { __ncp2_tmk_icount_limit = __ncp2_tmk_icount + 1000000; }
RT
clang-14 -O2 -c "$tmp/rt.c" -o "$tmp/rt.o"
clang-14 -O2 -g -DN="$n" -DITERS="$iters" "$here/jacobi.c" -o "$tmp/plain"
clang-14 -O2 -g -DN="$n" -DITERS="$iters" -fpass-plugin="$plugin" "$here/jacobi.c" "$tmp/rt.o" -o "$tmp/counted"
# run PROG: "wall sweeps" in seconds.
run() {
  local t0 t1 sweeps
  t0=$(date +%s%N); sweeps=$("$1" | awk '{ print $2 }'); t1=$(date +%s%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }') $sweeps"
}
best_plain="9e9 9e9" best_counted="9e9 9e9"
min2() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ");
  printf "%s %s", (x[1] < y[1] ? x[1] : y[1]), (x[2] < y[2] ? x[2] : y[2]) }'; }
for ((i = 0; i < runs; i++)); do
  best_plain=$(min2 "$best_plain" "$(run "$tmp/plain")")
  best_counted=$(min2 "$best_counted" "$(run "$tmp/counted")")
done
read -r wp sp <<<"$best_plain"
read -r wc sc <<<"$best_counted"
echo "jacobi ${n}x${n}, $iters sweeps, -O2, best of $runs (hook every 10^6 instructions):"
awk -v wp="$wp" -v sp="$sp" -v wc="$wc" -v sc="$sc" 'BEGIN {
  printf "  whole process: %.4f s without, %.4f s with the plugin: %.3fx\n", wp, wc, wc / wp
  printf "  sweeps only:   %.4f s without, %.4f s with the plugin: %.3fx\n", sp, sc, sc / sp }'
