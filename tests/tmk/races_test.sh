#!/usr/bin/env bash
# The data-race detector (issue 16) on the corpus tests/tmk/races/ (its README lists the programs).
# Each program says in its header comment how to run it and what to expect:
#   @test nodes=N expect=race|race-free [pairs=A-B,C-D,...] [known-limit=O0,O1]
# known-limit: at those optimization levels a reported line may be another access of the same
# page in the same interval (the detector keeps one site per page and kind of access; issue 16's
# remaining work): such a line is printed as KNOWN LIMIT, not counted as a failure; the race itself,
# its nodes, kinds and address are still checked.
# and marks its racing lines with /* RACE */ at the end of the line (/* RACE read */ or
# /* RACE write */ when the line's access kind is certain). A program that prints
# "RACE-ADDRESS 0x..." names the address of the first byte both racing accesses touched.
#
# Every program is built with `ncp2-cc --ncp2-races` (at -O0 and at -O1) and run with
# `ncp2 run --detect-races --db`:
#   racy       exit 4, the output speaks of data races, at least one row in `races`; every row's two
#              sides are in the program's file on /* RACE */ lines (with the marked kind), every
#              /* RACE */ line is reported, the node pairs are exactly `pairs` when given (the lower
#              node first), the printed RACE-ADDRESS is a row's address, every row names its shared
#              allocation;
#   race-free  exit 0 and no row in `races`.
# Besides: the instrumented race-free programs run without --detect-races (exit 0); every program
# built without --ncp2-races runs to completion without --detect-races (exit 0), and the racy ones
# built so are refused by --detect-races (exit 2, naming --ncp2-races).
# Usage: races_test.sh BIN_DIR SOURCE_DIR [PROGRAM...]   (PROGRAM: e.g. race_memcpy; default all)
# NCP2_RACES_OPT: the optimization levels the programs are checked at (default "-O0 -O1": exact
# source lines, and the optimizer's merged, sunk and vectorized accesses).
set -euo pipefail

bin="$1"
src="$2"
shift 2
corpus="$src/tests/tmk/races"
read -ra opts <<<"${NCP2_RACES_OPT:--O0 -O1}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY= # never the user's run history

failures=0
programs=0
fail() { # fail PROGRAM MESSAGE
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}

# run_ncp2 ARGS...: ncp2 run ARGS with a time limit; its output in $out, its exit status in $status.
out=""
status=0
run_ncp2() {
  status=0
  out=$(timeout 300 "$bin/ncp2" run "$@" 2>&1) || status=$?
}

indent() { sed 's/^/    /'; }

# One row per race: the two sides and the place, '|'-separated.
race_rows() {
  sqlite3 -separator '|' "$1" \
    "select first_node, first_access, first_file, first_line, second_node, second_access, second_file,
            second_line, coalesce(address, ''), region from races order by id"
}

# check_racy NAME FILE DB OUTPUT: the reported races against the file's /* RACE */ lines.
check_racy() {
  local name="$1" file="$2" db="$3" out="$4" pairs="$5" lines_limited="$6"
  local limited=0
  # A line check that fails at a known limit: said, not counted.
  line_problem() {
    if [ "$lines_limited" = yes ]; then
      echo "KNOWN LIMIT $name: $1"
      limited=$((limited + 1))
    else
      fail "$name" "$1"
      ok=0
    fi
  }
  local base
  base=$(basename "$file")
  # The marked lines and their kinds (read, write, or any).
  declare -A kind=()
  local line rest
  while IFS=: read -r line rest; do
    case "$rest" in
      *'/* RACE read */'*) kind[$line]='read' ;;
      *'/* RACE write */'*) kind[$line]='write' ;;
      *) kind[$line]='any' ;;
    esac
  done < <(grep -nE '/\* RACE( read| write)? \*/[[:space:]]*$' "$file")

  local rows
  if ! rows=$(race_rows "$db"); then
    fail "$name" "cannot read table races in $db"
    return
  fi
  if [ -z "$rows" ]; then
    fail "$name" "expected races on lines $marked_lines, found no row in table races"
    return
  fi
  declare -A reported=() found_pairs=()
  local marked_lines
  marked_lines=$(printf '%s\n' "${!kind[@]}" | sort -n | paste -sd' ')
  local ok=1 fn fa ff fl sn sa sf sl address region side node access rfile rline addresses=""
  while IFS='|' read -r fn fa ff fl sn sa sf sl address region; do
    found_pairs["$fn-$sn"]=1
    addresses+=" $address"
    [ -n "$region" ] || { fail "$name" "a race without its shared allocation: $fn $ff:$fl / $sn $sf:$sl"; ok=0; }
    [ "$fn" -lt "$sn" ] || { fail "$name" "a race whose first node $fn is not the lower of the two (second $sn)"; ok=0; }
    for side in first second; do
      if [ "$side" = first ]; then node=$fn access=$fa rfile=$ff rline=$fl; else node=$sn access=$sa rfile=$sf rline=$sl; fi
      if [ "$rfile" != "$base" ] && [[ "$rfile" != */"$base" ]]; then
        fail "$name" "node $node's $access reported in '$rfile', expected $base"
        ok=0
      elif [ -z "${kind[$rline]:-}" ]; then
        line_problem "node $node's $access reported at line $rline, which is not a /* RACE */ line ($marked_lines)"
      elif [ "${kind[$rline]}" != any ] && [ "${kind[$rline]}" != "$access" ]; then
        fail "$name" "node $node's access at line $rline reported as a $access, the program marks a ${kind[$rline]}"
        ok=0
      else
        reported[$rline]=1
      fi
    done
  done <<<"$rows"
  for line in "${!kind[@]}"; do
    [ -n "${reported[$line]:-}" ] || line_problem "the race at line $line is not reported"

  done
  if [ -n "$pairs" ]; then
    local want got
    want=$(tr ',' '\n' <<<"$pairs" | sort | paste -sd' ')
    got=$(printf '%s\n' "${!found_pairs[@]}" | sort | paste -sd' ')
    [ "$want" = "$got" ] || { fail "$name" "races between nodes $got, expected exactly $want"; ok=0; }
  fi
  local printed
  printed=$(grep -oE 'RACE-ADDRESS 0x[0-9a-f]+' <<<"$out" | head -1 | cut -d' ' -f2 || true)
  if [ -n "$printed" ]; then
    grep -qw -- "$((printed))" <<<"$addresses" ||
      { fail "$name" "no race at address $printed ($((printed))); reported addresses:$addresses"; ok=0; }
  fi
  if [ "$ok" -eq 0 ]; then
    echo "  reported (first node|access|file|line, second node|access|file|line, address|region):"
    indent <<<"$rows"
    return
  fi
  if [ "$lines_limited" = yes ] && [ "$limited" -eq 0 ]; then
    echo "note $name: its known limit did not show: every line exact (remove known-limit from its header?)"
  fi
  echo "ok   $name: $(wc -l <<<"$rows") race(s) reported, on lines $marked_lines"
}

# check_detected NAME FILE NODES EXPECT PAIRS OPT: built with --ncp2-races at OPT, run with
# --detect-races: the exit status and the races table.
check_detected() {
  local name="$1" file="$2" nodes="$3" expect="$4" pairs="$5" opt="$6" limits="$7"
  local lines_limited=no
  [[ ",$limits," == *",${opt#-},"* ]] && lines_limited=yes
  local exe="$tmp/$name$opt"
  if ! "$bin/ncp2-cc" --ncp2-races "$opt" -o "$exe" "$file" >"$tmp/cc.log" 2>&1; then
    fail "$name" "ncp2-cc --ncp2-races $opt failed: $(tail -5 "$tmp/cc.log")"
    return
  fi
  local db="$exe.db"
  run_ncp2 "$exe" --nodes "$nodes" --detect-races --db "$db"
  if [ "$expect" = race ]; then
    if [ "$status" -ne 4 ]; then
      fail "$name" "racy, built at $opt, run with --detect-races: exit $status, expected 4
$(tail -8 <<<"$out")"
      return
    fi
    grep -qi 'data race' <<<"$out" || fail "$name" "exit 4 but the output does not speak of data races"
    check_racy "$name $opt" "$file" "$db" "$out" "$pairs" "$lines_limited"
    return
  fi
  if [ "$status" -ne 0 ]; then
    fail "$name" "race-free, built at $opt, run with --detect-races: exit $status, expected 0
$(tail -8 <<<"$out")"
    [ -f "$db" ] && race_rows "$db" | indent
    return
  fi
  local count
  count=$(sqlite3 "$db" "select count(*) from races" 2>&1) || true
  if [ "$count" != 0 ]; then
    fail "$name" "race-free, built at $opt: expected no row in races, found: $count"
    race_rows "$db" | indent || true
    return
  fi
  # The instrumented build also runs without the detector.
  run_ncp2 "$exe" --nodes "$nodes"
  if [ "$status" -ne 0 ]; then
    fail "$name" "built with --ncp2-races at $opt, run without --detect-races: exit $status, expected 0
$(tail -8 <<<"$out")"
    return
  fi
  echo "ok   $name $opt: no race on $nodes nodes"
}

check_program() { # check_program FILE
  local file="$1" name spec nodes expect pairs limits
  name=$(basename "$file" .c)
  programs=$((programs + 1))
  [ -f "$file" ] || { fail "$name" "no such program $file"; return; }
  spec=$(grep -m1 -oE '@test .*' "$file" || true)
  nodes=$(grep -oE 'nodes=[0-9]+' <<<"$spec" | cut -d= -f2 || true)
  expect=$(grep -oE 'expect=[a-z-]+' <<<"$spec" | cut -d= -f2 || true)
  pairs=$(grep -oE 'pairs=[0-9,-]+' <<<"$spec" | cut -d= -f2 || true)
  limits=$(grep -oE 'known-limit=[O0-9,]+' <<<"$spec" | cut -d= -f2 || true)
  if [ -z "$nodes" ] || { [ "$expect" != race ] && [ "$expect" != race-free ]; }; then
    fail "$name" "no '@test nodes=N expect=race|race-free' line in its header"
    return
  fi
  local marked
  marked=$(grep -cE '/\* RACE( read| write)? \*/[[:space:]]*$' "$file" || true)
  if { [ "$expect" = race ] && [ "$marked" -eq 0 ]; } || { [ "$expect" = race-free ] && [ "$marked" -ne 0 ]; }; then
    fail "$name" "expect=$expect but $marked line(s) marked /* RACE */"
    return
  fi

  # Built without --ncp2-races: runs to completion; the racy ones are refused by --detect-races.
  local plain="$tmp/$name.plain"
  if ! "$bin/ncp2-cc" "${opts[-1]}" -o "$plain" "$file" >"$tmp/cc.log" 2>&1; then
    fail "$name" "ncp2-cc ${opts[-1]} failed: $(tail -5 "$tmp/cc.log")"
    return
  fi
  run_ncp2 "$plain" --nodes "$nodes"
  [ "$status" -eq 0 ] || fail "$name" "built without --ncp2-races, run without --detect-races: exit $status, expected 0
$(tail -8 <<<"$out")"
  if [ "$expect" = race ]; then
    run_ncp2 "$plain" --nodes "$nodes" --detect-races
    if [ "$status" -ne 2 ] || ! grep -qF -- '--ncp2-races' <<<"$out"; then
      fail "$name" "built without --ncp2-races, run with --detect-races: exit $status, expected 2 and a message naming --ncp2-races
$(tail -8 <<<"$out")"
    fi
  fi

  local opt
  for opt in "${opts[@]}"; do check_detected "$name" "$file" "$nodes" "$expect" "$pairs" "$opt" "$limits"; done
}

command -v sqlite3 >/dev/null || { echo "FAIL: the sqlite3 command is missing (cmake/install-deps.sh core)"; exit 1; }
shopt -s nullglob
files=("$corpus"/*.c)
if [ $# -gt 0 ]; then
  files=()
  for name in "$@"; do files+=("$corpus/${name%.c}.c"); done
fi
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no programs in $corpus"; exit 1; }
for file in "${files[@]}"; do check_program "$file"; done

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s) in $programs programs"
  exit 1
fi
echo "all $programs race-corpus programs passed"
