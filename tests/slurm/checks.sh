# The Slurm tests' checks, sourced by each after it made $tmp (its temporary folder): fail counts a
# failure; expect runs a command (at most $EXPECT_TIMEOUT seconds, default 300) and checks its exit
# code, its output in $tmp/out; has checks that output.
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect CODE COMMAND...: runs it, checks its exit code; output in $tmp/out.
expect() {
  local code="$1" status
  shift
  timeout "${EXPECT_TIMEOUT:-300}" "$@" >"$tmp/out" 2>&1
  status=$?
  if [ "$status" -ne "$code" ]; then
    fail "$* exited $status, expected $code"
    cat "$tmp/out"
    return 1
  fi
  echo "ok: $* (exit $code)"
}
has() {  # has TEXT: the last output holds TEXT
  grep -qF -- "$1" "$tmp/out" || { fail "no '$1' in the output of the last command:"; cat "$tmp/out"; }
}
