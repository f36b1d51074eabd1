#!/usr/bin/env bash
# cmake --install, then a project of a user's finds the package (find_package(ncp2), ncp2::tmk),
# builds the README's hello program with it and runs it with the installed ncp2 and the installed
# ncp2-cc. Usage: package_test.sh BUILD_DIR SOURCE_DIR
set -eu
build="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# The README's hello program, exactly as written there.
awk '/^## Your own program/{on=1} on && /^```c$/{grab=1; next} grab && /^```$/{exit} grab' "$src/README.md" >"$tmp/hello.c"
grep -q Tmk_startup "$tmp/hello.c" || { echo "FAIL: no hello program in README.md"; exit 1; }
mkdir -p "$tmp/project"
cat >"$tmp/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(hello C)
find_package(ncp2 REQUIRED)
add_executable(hello $tmp/hello.c)
target_link_libraries(hello PRIVATE ncp2::tmk)
CMAKE
CC=clang-14 cmake -S "$tmp/project" -B "$tmp/project/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; echo "FAIL: configuring a project with find_package(ncp2)"; exit 1; }
if grep -q "CMake Warning" "$tmp/configure.log"; then cat "$tmp/configure.log"; echo "FAIL: warnings"; exit 1; fi
cmake --build "$tmp/project/build" >/dev/null
out=$("$tmp/prefix/bin/ncp2" run "$tmp/project/build/hello" --nodes 4 2>&1)
grep -qF "[node 0] hello from 4 nodes: sum 64" <<<"$out" || { echo "$out"; echo "FAIL: CMake-built hello"; exit 1; }
# The installed wrapper, moved elsewhere with its prefix: paths relative to itself.
mv "$tmp/prefix" "$tmp/moved"
"$tmp/moved/bin/ncp2-cc" -O2 -o "$tmp/hello2" "$tmp/hello.c" 2>"$tmp/ncp2-cc.err"
# Its fiber object too: the installed libncp2tmk_fiber.a found (no warning), the section there.
[ -s "$tmp/ncp2-cc.err" ] && { cat "$tmp/ncp2-cc.err"; echo "FAIL: the relocated ncp2-cc warned"; exit 1; }
readelf -S -W "$tmp/hello2" | grep -qF ' .ncp2_fiber ' || { echo "FAIL: no fiber object from the relocated ncp2-cc"; exit 1; }
out=$("$tmp/moved/bin/ncp2" run "$tmp/hello2" --nodes 3 2>&1)
grep -qF "[node 0] hello from 3 nodes: sum 33" <<<"$out" || { echo "$out"; echo "FAIL: relocated ncp2-cc"; exit 1; }
echo "package test passed"
