#!/usr/bin/env bash
# .ci/check-structure can fail (issue 41): on a copy of its own tree with one offence added at a
# time — a second definition of a word defined once, a protocol step called outside lrc/ — it
# exits 1 and names the file; on the tree as it is, it passes.
# Usage: check_structure_test.sh SOURCE_DIR
set -u
src="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

python3 "$src/.ci/check-structure" >"$tmp/out" 2>&1 || { fail "the tree as it is: $(cat "$tmp/out")"; }

# offence NAME FILE TEXT PATTERN: a copy of the tree with FILE (relative) holding TEXT must fail,
# with PATTERN in the finding.
offence() {
  local name="$1" file="$2" text="$3" pattern="$4"
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree"
  (cd "$src" && git ls-files -z '.ci/*' 'lrc/*' 'dsm/*' 'real_machine/*' 'tmk/*' 'carnival/*' 'emulator/*' |
    xargs -0 cp --parents -t "$tmp/tree")
  mkdir -p "$(dirname "$tmp/tree/$file")"
  printf '%s\n' "$text" >>"$tmp/tree/$file"
  if python3 "$tmp/tree/.ci/check-structure" >"$tmp/out" 2>&1; then
    fail "$name: check-structure passed"
  elif ! grep -qF -- "$pattern" "$tmp/out"; then
    fail "$name: no '$pattern' in: $(cat "$tmp/out")"
  else
    echo "ok: $name"
  fi
}
offence "a second Protection" real_machine/extra.hpp "enum class Protection : int {};" \
  "real_machine/extra.hpp defines what tmk/channel.hpp defines"
offence "message names again" real_machine/extra.cpp 'const char* k = "diff_request";' \
  "real_machine/extra.cpp defines what lrc/types.cpp defines"
offence "exit codes as literals' home" dsm/extra.hpp "inline constexpr int kExitLimit = 5;" \
  "dsm/extra.hpp defines what carnival/exit_codes.hpp defines"
offence "a diff fetch planned by a transport" dsm/extra.cpp "void f(N& n) { n.plan_diff_fetch(p); }" \
  "protocol step outside lrc/: dsm/extra.cpp:1 calls plan_diff_fetch"
offence "a collection run by a transport" real_machine/extra.cpp "void g() { lrc_->begin_gc(); }" \
  "calls begin_gc"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "check-structure: every offence found"
