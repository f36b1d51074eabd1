#!/usr/bin/env bash
# The instruction-counting pass plugin (tmk/instrument) on small C and C++ programs, built with
# clang-14 at several -O levels: deterministic counts, exact linearity in a loop's trip count, the
# limit hook's rate and the source lines of its return addresses, indirect calls and recursion, the
# opt-outs, C++20 (exceptions, virtual calls, coroutines), intact debug information.
# Usage: count_pass_test.sh /path/to/libncp2_count_pass.so
set -u
plugin="${1:?usage: count_pass_test.sh /path/to/libncp2_count_pass.so}"
[ -f "$plugin" ] || { echo "FAIL: no plugin at $plugin"; exit 1; }
plugin=$(realpath "$plugin")
cc=clang-14
cxx=clang++-14
for tool in "$cc" "$cxx" addr2line nm; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not found"; exit 1; }
done
dwarfdump=$(command -v llvm-dwarfdump-14 || true)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# -Xclang -load makes the plugin's -mllvm options known before clang parses them.
plugin_flags=(-fpass-plugin="$plugin" -Xclang -load -Xclang "$plugin" -mllvm -ncp2-icount-verify)

# The runtime side of the ABI, as the emulator's runtime would define it (not instrumented).
cat >"$tmp/rt.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
unsigned long long __ncp2_tmk_icount;
unsigned long long __ncp2_tmk_icount_limit = ~0ull;
static unsigned long long period, fires;
static void *ras[1u << 16];
static unsigned long nras;
void __ncp2_tmk_icount_hook(void) {
  ++fires;
  if (nras < sizeof ras / sizeof ras[0]) ras[nras++] = __builtin_return_address(0);
  __ncp2_tmk_icount_limit = __ncp2_tmk_icount + period;
}
/* The period from the start (the C++ program never calls rt_period). */
__attribute__((constructor)) static void rt_init(void) {
  const char *p = getenv("RT_PERIOD");
  if (p != NULL) period = strtoull(p, NULL, 10), __ncp2_tmk_icount_limit = period;
}
/* Hook every `p` instructions from now on (0: never). */
void rt_period(unsigned long long p) {
  period = p;
  __ncp2_tmk_icount_limit = p != 0 ? __ncp2_tmk_icount + p : ~0ull;
}
unsigned long long rt_count(void) { return __ncp2_tmk_icount; }
extern int main(int, char **);
/* At exit: the count, the hook's firings, and its return addresses as offsets from main. */
__attribute__((destructor)) static void rt_report(void) {
  printf("icount %llu\nfires %llu\n", __ncp2_tmk_icount, fires);
  for (unsigned long i = 0; i < nras; ++i)
    printf("ra %lx\n", (unsigned long)((char *)ras[i] - (char *)&main));
}
EOF

# A counted loop, alone on its line (LOOP_LINE below), in a function of several lines.
cat >"$tmp/loop.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
void rt_period(unsigned long long);
unsigned work(unsigned n, unsigned seed) {
  unsigned s = seed;
  for (unsigned i = 0; i < n; i++) { s = s * 2654435761u + (i ^ (s >> 7)); }
  return s;
}
int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
  if (argc > 2) rt_period(strtoull(argv[2], 0, 10));
  printf("result %u\n", work(n, (unsigned)argc));
  return 0;
}
EOF
loop_line=6

# Indirect calls and recursion (no loops in fib: only its entry checks fire the hook); functions
# that must not be counted: the opt-out annotation and the runtime prefix.
cat >"$tmp/calls.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
void rt_period(unsigned long long);
unsigned long long rt_count(void);
__attribute__((noinline)) static unsigned fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
__attribute__((noinline)) static unsigned twice(unsigned n) { return 2 * fib(n); }
__attribute__((noinline, annotate("ncp2_no_icount"))) unsigned opted_out(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++) s = s * 31 + i;
  return s;
}
__attribute__((noinline)) unsigned __ncp2_tmk_runtime_part(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++) s = s * 17 + i;
  return s;
}
int main(int argc, char **argv) {
  unsigned (*volatile pick[2])(unsigned) = {fib, twice};
  const char *mode = argc > 1 ? argv[1] : "fib";
  unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
  if (argc > 3) rt_period(strtoull(argv[3], 0, 10));
  unsigned r;
  if (mode[0] == 'f') {
    r = pick[argc > 9](n);
  } else {
    unsigned long long before = rt_count();
    r = mode[0] == 'o' ? opted_out(n) : __ncp2_tmk_runtime_part(n);
    printf("delta %llu\n", rt_count() - before);
  }
  printf("result %u\n", r);
  return 0;
}
EOF
fib_line=6

cat >"$tmp/prog.cpp" <<'EOF'
#include <algorithm>
#include <coroutine>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>
struct Shape { virtual ~Shape() = default; virtual double area() const = 0; };
struct Sq : Shape { double s; explicit Sq(double v) : s(v) {} double area() const override { return s * s; } };
struct Ci : Shape { double r; explicit Ci(double v) : r(v) {} double area() const override { return 3 * r * r; } };
struct Gen {
  struct promise_type {
    int v = 0;
    Gen get_return_object() { return Gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(int x) { v = x; return {}; }
    void return_void() {}
    void unhandled_exception() { throw; }
  };
  std::coroutine_handle<promise_type> h;
  ~Gen() { h.destroy(); }
};
Gen upto(int n) { for (int i = 0; i < n; i++) co_yield i; }
template <typename T> T checked_div(T a, T b) {
  if (b == 0) throw std::runtime_error("division by zero");
  return a / b;
}
int main(int argc, char **argv) {
  const int n = argc > 1 ? std::stoi(argv[1]) : 100;
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0) shapes.push_back(std::make_unique<Ci>(i)); else shapes.push_back(std::make_unique<Sq>(i));
  }
  std::sort(shapes.begin(), shapes.end(), [](const auto &a, const auto &b) { return a->area() < b->area(); });
  double total = 0;
  for (const auto &s : shapes) total += s->area();
  std::function<long(int)> tri = [&](int k) -> long { return k == 0 ? 0 : k + tri(k - 1); };
  long caught = 0;
  for (int i = -5; i <= 5; i++) {
    try { caught += checked_div(100, i); } catch (const std::runtime_error &e) { caught += 1000; }
  }
  auto g = upto(n);
  long co = 0;
  for (;;) { g.h.resume(); if (g.h.done()) break; co += g.h.promise().v; }
  std::printf("total %.0f tri %ld caught %ld co %ld\n", total, tri(n), caught, co);
  return 0;
}
EOF

# build NAME.EXT OPT COMPILER [FLAGS...]: NAME.EXT with the plugin at OPT, linked with the runtime,
# into $tmp/NAME-OPT (printed); on failure the compiler's messages on stderr and status 1.
build() {
  local src="$1" opt="$2" compiler="$3" out
  shift 3
  out="$tmp/${src%.*}$opt"
  if ! "$compiler" "$@" $opt -g "${plugin_flags[@]}" -c "$tmp/$src" -o "$out.o" 2>"$out.log" ||
     ! "$compiler" "$out.o" "$tmp/rt.o" -o "$out" 2>>"$out.log"; then
    echo "FAIL: building $src at $opt with the plugin:" >&2; head -20 "$out.log" >&2; return 1
  fi
  echo "$out"
}
# count PROG ARGS...: the program's final instruction count.
count() { "$@" | sed -n 's/^icount //p'; }
field() { sed -n "s/^$1 //p"; }
# ras_to_static MAIN: return addresses (hex offsets from main, one a line) to static addresses in
# the executable, minus 1 so that they lie in the call instruction, whose line the hook is charged to.
ras_to_static() {
  local off
  while read -r off; do printf '0x%x\n' $((0x$1 + 0x$off - 1)); done
}

"$cc" -O2 -c "$tmp/rt.c" -o "$tmp/rt.o" || { echo "FAIL: compiling the runtime"; exit 1; }

for opt in -O0 -O1 -O2 -O3; do
  prog=$(build loop.c $opt "$cc") || { failures=$((failures + 1)); continue; }
  # (a) the same program and input: the same count.
  c1=$(count "$prog" 10000); c2=$(count "$prog" 10000)
  if [ -z "$c1" ] || [ "$c1" != "$c2" ] || [ "$c1" -eq 0 ]; then
    fail "loop $opt: counts of two identical runs: '$c1' and '$c2'"
  else
    ok "loop $opt: two runs count $c1 and $c2"
  fi
  # (b) linear in the trip count (multiples of any unroll or vector factor).
  n=4096
  k1=$(count "$prog" $n); k2=$(count "$prog" $((2 * n))); k3=$(count "$prog" $((3 * n)))
  d1=$((k2 - k1)); d2=$((k3 - k2))
  if [ "$d1" -ne "$d2" ] || [ "$d1" -le 0 ]; then
    fail "loop $opt: count(n)=$k1 count(2n)=$k2 count(3n)=$k3: steps $d1 and $d2 differ or are not positive"
  else
    ok "loop $opt: count(n)=$k1 count(2n)=$k2 count(3n)=$k3, step $d1 = $(awk "BEGIN{printf \"%.2f\", $d1 / $n}")/iteration"
  fi
  # The hook must not change what is counted.
  no_hook=$(count "$prog" 10000 0); with_hook=$(count "$prog" 10000 1000)
  if [ -n "$no_hook" ] && [ "$with_hook" = "$no_hook" ]; then
    ok "loop $opt: count $with_hook with the hook firing every 1000 instructions, as without"
  else
    fail "loop $opt: count $with_hook with the hook firing, $no_hook without"
  fi
  if [ -n "$dwarfdump" ]; then
    if "$dwarfdump" --verify "$prog" >"$tmp/dwarf.log" 2>&1; then
      ok "loop $opt: llvm-dwarfdump --verify passes"
    else
      fail "loop $opt: llvm-dwarfdump --verify:"; tail -5 "$tmp/dwarf.log"
    fi
  fi
done

# Debugging: under gdb (when it can run programs here), the breakpoints on the function and on the
# loop's line stop where they stop without the plugin, with the same argument values; at -O0
# stepping visits the same lines too.
debug_session() {
  timeout 60 gdb -q -batch -ex 'break loop.c:6' -ex 'break work' -ex 'run 100' -ex 'continue' -ex 'bt' \
    -ex 'next' -ex 'next' -ex 'step' -ex 'next' "$1" 2>&1 |
    grep -E '^(Breakpoint [0-9.]+,|#[0-9]|[0-9]+\s)' | sed -E 's/0x[0-9a-f]+//g'
}
if command -v gdb >/dev/null && debug_session "$tmp/loop-O0" | grep -q '^Breakpoint'; then
  for opt in -O0 -O2; do
    "$cc" $opt -g "$tmp/loop.c" "$tmp/rt.o" -o "$tmp/plain$opt" || { fail "building loop.c without the plugin"; continue; }
    with=$(debug_session "$tmp/loop$opt"); without=$(debug_session "$tmp/plain$opt")
    [ "$opt" = -O0 ] || { with=$(grep -v '^[0-9]' <<<"$with"); without=$(grep -v '^[0-9]' <<<"$without"); }
    if [ "$with" != "$without" ]; then
      fail "gdb $opt: with the plugin:"; echo "$with"; echo "without:"; echo "$without"
    else
      ok "gdb $opt: breakpoints$([ "$opt" = -O0 ] && echo ", stepping") and arguments as without the plugin"
    fi
  done
else
  echo "skip: gdb cannot run programs here"
fi

# (c) the hook every 1000 instructions: about count/1000 firings, return addresses on the loop line.
for opt in -O0 -O2; do
  prog="$tmp/loop$opt"
  [ -x "$prog" ] || continue
  out=$("$prog" 1000000 1000)
  total=$(field icount <<<"$out"); fires=$(field fires <<<"$out")
  expected=$((total / 1000))
  if [ -z "$fires" ] || [ $((fires * 10)) -lt $((expected * 9)) ] || [ $((fires * 10)) -gt $((expected * 11)) ]; then
    fail "hook $opt: fired $fires times for $total instructions, expected about $expected (±10%)"
  else
    ok "hook $opt: fired $fires times for $total instructions (count/1000 = $expected)"
  fi
  main_static=$(nm "$prog" | awk '$3 == "main" { print $1 }')
  field ra <<<"$out" | ras_to_static "$main_static" >"$tmp/ras"
  addr2line -e "$prog" <"$tmp/ras" | sed 's/ (discriminator [0-9]*)//' | sort | uniq -c | sort -rn >"$tmp/lines"
  on_loop=$(awk -v l="loop.c:$loop_line" '$2 ~ ("/" l "$") { s += $1 } END { print s + 0 }' "$tmp/lines")
  recorded=$(wc -l <"$tmp/ras")
  # All but a few (entry checks of work and main) on the loop's line.
  if [ "$recorded" -eq 0 ] || [ "$on_loop" -lt $((recorded - 3)) ]; then
    fail "hook $opt: $on_loop of $recorded return addresses on loop.c:$loop_line; lines:"; head -5 "$tmp/lines"
  else
    ok "hook $opt: $on_loop of $recorded return addresses map to loop.c:$loop_line"
  fi
done

# (d) function pointers and recursion; (f) the opt-outs.
for opt in -O0 -O2; do
  prog=$(build calls.c $opt "$cc") || { failures=$((failures + 1)); continue; }
  a=$(count "$prog" fib 20); b=$(count "$prog" fib 20); c=$(count "$prog" fib 24)
  if [ -z "$a" ] || [ "$a" != "$b" ] || [ "$c" -le "$a" ]; then
    fail "calls $opt: fib(20) counts '$a' and '$b', fib(24) count '$c' (must be equal, then larger)"
  else
    ok "calls $opt: fib(20) through a function pointer counts $a twice, fib(24) counts $c"
  fi
  # Each call costs the same whatever the recursion below it: with M the count outside fib,
  # count(n) - count(n-1) - count(n-2) = (cost of one call) - M is the same for every n.
  f20=$(count "$prog" fib 20); f21=$(count "$prog" fib 21); f22=$(count "$prog" fib 22); f23=$(count "$prog" fib 23)
  r1=$((f22 - f21 - f20)); r2=$((f23 - f22 - f21))
  if [ "$r1" -ne "$r2" ]; then
    fail "calls $opt: counts of fib(20..23) $f20 $f21 $f22 $f23 do not follow the recurrence ($r1 != $r2)"
  else
    ok "calls $opt: counts of fib(20..23) follow the recursion exactly (count(n)-count(n-1)-count(n-2) = $r1)"
  fi
  out=$("$prog" fib 24 1000)
  fires=$(field fires <<<"$out"); total=$(field icount <<<"$out")
  main_static=$(nm "$prog" | awk '$3 == "main" { print $1 }')
  field ra <<<"$out" | ras_to_static "$main_static" >"$tmp/ras"
  on_fib=$(addr2line -e "$prog" <"$tmp/ras" | grep -c "/calls.c:$fib_line\b")
  if [ -z "$fires" ] || [ $((fires * 10)) -lt $((total / 1000 * 9)) ] || [ "$on_fib" -lt $((fires * 9 / 10)) ]; then
    fail "calls $opt: in recursion the hook fired $fires times for $total instructions, $on_fib in fib"
  else
    ok "calls $opt: in recursion the hook fired $fires times for $total instructions, $on_fib at calls.c:$fib_line"
  fi
  # Around the call, main's own instructions only: the same delta for 10 and 100000 iterations.
  for mode in opted_out __ncp2_tmk_; do
    d1=$("$prog" "$mode" 10 | field delta); d2=$("$prog" "$mode" 100000 | field delta)
    if [ -n "$d1" ] && [ "$d1" = "$d2" ]; then
      ok "calls $opt: $mode function not counted (delta $d1 for 10 and 100000 iterations)"
    else
      fail "calls $opt: $mode function counted: delta '$d1' for 10 iterations, '$d2' for 100000"
    fi
  done
done

# (e) C++20 with clang++-14: the output of the build without the plugin, deterministic counts.
"$cxx" -std=c++20 -O2 "$tmp/prog.cpp" "$tmp/rt.o" -o "$tmp/prog-plain" || { echo "FAIL: building prog.cpp"; exit 1; }
expect=$("$tmp/prog-plain" 200 | head -1)
[ "$expect" = "total 4411078 tri 20100 caught 1000 co 19900" ] || fail "C++ without the plugin printed '$expect'"
for opt in -O0 -O2; do
  prog=$(build prog.cpp $opt "$cxx" -std=c++20) || { failures=$((failures + 1)); continue; }
  out1=$("$prog" 200); out2=$("$prog" 200)
  if ! grep -qF "$expect" <<<"$out1"; then
    fail "C++ $opt: output '$(head -1 <<<"$out1")', expected '$expect'"
  elif [ "$(field icount <<<"$out1")" != "$(field icount <<<"$out2")" ] || [ "$(field icount <<<"$out1")" -eq 0 ]; then
    fail "C++ $opt: counts '$(field icount <<<"$out1")' and '$(field icount <<<"$out2")'"
  else
    ok "C++ $opt: correct output, count $(field icount <<<"$out1") twice"
  fi
  # The hook firing every 100 instructions, in and out of EH and coroutine code: same output and count.
  out3=$(RT_PERIOD=100 "$prog" 200)
  if [ "$(head -1 <<<"$out3")" != "$expect" ] || [ "$(field icount <<<"$out3")" != "$(field icount <<<"$out1")" ] \
     || [ "$(field fires <<<"$out3")" -lt $(($(field icount <<<"$out1") / 110)) ]; then
    fail "C++ $opt: with the hook every 100 instructions: '$(head -1 <<<"$out3")', count $(field icount <<<"$out3"), $(field fires <<<"$out3") firings"
  else
    ok "C++ $opt: with the hook every 100 instructions: same output and count, $(field fires <<<"$out3") firings"
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
