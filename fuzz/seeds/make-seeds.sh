#!/usr/bin/env bash
# Regenerates the seed corpus of the fuzz targets (fuzz/README.md says what each seed is).
# Usage: fuzz/seeds/make-seeds.sh BUILD_DIR   (a build with the tests: carnival_fixture)
# Inputs found by fuzzing (crash-*, regressions) are not made here: they stay as committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: make-seeds.sh BUILD_DIR}
corpus=$root/fuzz/corpus
mkdir -p "$corpus"/{config,diff,database,command_line,program}

# config: the machine configurations shipped in configs/.
cp "$root"/configs/*.toml "$corpus/config/"

# diff: [word size index][page words, u16 big-endian][twin][page][optional encoded diff].
python3 "$root/fuzz/seeds/make_diff_seeds.py" "$corpus/diff"

# database: the test fixture's run (tests/carnival/fixture.hpp), rewritten with 512-byte pages
# (VACUUM keeps application_id and user_version) so the seed is small.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/tests/carnival_fixture" "$tmp/fixture.db"
sqlite3 "$tmp/fixture.db" "PRAGMA page_size=512; VACUUM;"
cp "$tmp/fixture.db" "$corpus/database/fixture"  # no .db: .gitignore ignores *.db

# command_line: the README's example command lines, one argument per line.
python3 "$root/fuzz/seeds/make_command_line_seeds.py" "$corpus/command_line"

# program: a tiny static program with DWARF, with and without the race-checks marker section.
clang -g -O1 -nostdlib -static -Wl,--build-id=none -Wl,-n -o "$corpus/program/tiny_races" \
  "$root/fuzz/seeds/tiny_program.c" 2>/dev/null
sed '/ncp2_race_checks/d' "$root/fuzz/seeds/tiny_program.c" >"$tmp/tiny_plain.c"
clang -g -O1 -nostdlib -static -Wl,--build-id=none -Wl,-n -o "$corpus/program/tiny_plain" \
  "$tmp/tiny_plain.c" 2>/dev/null
