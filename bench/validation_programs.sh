# The programs bench/validate and bench/runner-computation validate, with their arguments, and how
# each is built (sourced: needs $root, $build and $out; sets `args` and `programs`).

# The programs and their arguments: long enough that a run is more than its start-up. The held-out
# ones take 0.2-2 s on 2 real processes (validation/held_out/README.md); mandelbrot, pipeline and
# task_queue skip node 0's check (a sequential recomputation of the whole run, most of its time
# otherwise).
# jacobi, tsp and water at least ~0.2 s on 2 real processes (2026-11-29, 3 runs each, load 2-5:
# jacobi 0.29-0.30 s, tsp 0.46-1.44, water 0.25-0.39; at 4 nodes 0.40-0.73, 0.45-0.53, 0.45-0.60);
# at 514 514 20, 11 and 216 4 they ran 0.04, 0.03 and 0.009 s, inside their own noise (jacobi at
# 60 iterations, 0.22 s, still spread 23 %).
# sor at 1026 1026 20 and bfs at 400000 8 1 (issue 43, fourth session): 0.48 and 0.46 s on 2 real
# processes; at 514 514 20 and 200000 they ran 0.10-0.13 and 0.25 s and spread 24 and 30 %.
declare -A args=([jacobi]="1026 1026 100" [sor]="1026 1026 20" [tsp]="13" [water]="512 80" [qsort]="262144"
  [wordcount]="20001 2000 256 1"
  [radix_sort]="1048576 8 1" [hash_table]="16000 4000 256 1" [mandelbrot]="512 384 3000 2 0"
  [pipeline]="384 1024 8 4 24 0" [bfs]="400000 8 1" [sample_sort]="1048576 64 1" [bank]="4096 4000 1024 1"
  [task_queue]="300 6 12000 0")
programs="${PROGRAMS:-jacobi sor tsp water qsort wordcount radix_sort hash_table mandelbrot pipeline bfs sample_sort bank task_queue}"
for p in $programs; do
  [ -n "${args[$p]+set}" ] || { echo "$(basename "$0"): no program $p (PROGRAMS); known: ${!args[*]}" >&2; exit 1; }
done

# Builds program NAME into $out/NAME from examples/ or validation/held_out/ (C, or C++ with ncp2-c++).
build_program() {
  local name="$1" dir
  for dir in "$root/examples" "$root/validation/held_out"; do
    if [ -f "$dir/$name.c" ]; then
      "$build/bin/ncp2-cc" -O2 -o "$out/$name" "$dir/$name.c" -lm
      return
    elif [ -f "$dir/$name.cpp" ]; then
      "$build/bin/ncp2-c++" -std=c++20 -O2 -o "$out/$name" "$dir/$name.cpp"
      return
    fi
  done
  echo "$(basename "$0"): no source for $name in examples/ or validation/held_out/" >&2
  return 1
}
