#!/usr/bin/env bash
# ncp2-cc's fiber object (issue 45, tmk/ncp2-cc.in): a program built has the section .ncp2_fiber
# (separately compiled objects and -x too), --ncp2-no-fiber leaves it out, a library that is not
# position-independent gives one warning and a working executable without it, a compile error no
# warning, --ncp2-show lists every command and runs none, and no temporary file is left behind.
# (Its contents are checked by tmk_fiber_tests.) Usage: ncp2cc_fiber_test.sh BIN_DIR SOURCE_DIR
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NCP2_HISTORY=
export TMPDIR="$tmp/scratch"  # ncp2-cc's temporaries: must be gone after every build
mkdir -p "$TMPDIR"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
has_section() { readelf -S -W "$1" 2>/dev/null | grep -qF ' .ncp2_fiber '; }
no_leftovers() { [ -z "$(ls -A "$TMPDIR")" ] || fail "$1 left temporaries: $(ls -A "$TMPDIR")"; }
cc() { "$bin/ncp2-cc" "$@" 2>"$tmp/stderr"; }

cat >"$tmp/hello.c" <<'C'
#include <stdio.h>
#include <tmk.h>
int twice(int x);
int main(int argc, char** argv) {
  Tmk_startup(argc, argv);
  printf("node %u says %d\n", Tmk_proc_id, twice(21));
  Tmk_exit(0);
}
C
echo 'int twice(int x) { return 2 * x; }' >"$tmp/twice.c"

cc -O1 -o "$tmp/hello" "$tmp/hello.c" "$tmp/twice.c" || fail "ncp2-cc hello.c: $(cat "$tmp/stderr")"
[ -s "$tmp/stderr" ] && fail "ncp2-cc hello.c printed: $(cat "$tmp/stderr")"
has_section "$tmp/hello" || fail "no section .ncp2_fiber in a program built by ncp2-cc"
no_leftovers "a build"
"$bin/ncp2" run "$tmp/hello" --nodes 2 2>&1 | grep -qF "[node 1] node 1 says 42" || fail "ncp2 run of hello"

cc --ncp2-no-fiber -O1 -o "$tmp/hello_nofiber" "$tmp/hello.c" "$tmp/twice.c" || fail "ncp2-cc --ncp2-no-fiber"
has_section "$tmp/hello_nofiber" && fail "--ncp2-no-fiber: the section is there"
sections() { readelf -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '{print $1, $2}'; }
cmp -s <(sections "$tmp/hello" | grep -vF .ncp2_fiber) <(sections "$tmp/hello_nofiber") ||
  fail "the section is not the only difference: $(diff <(sections "$tmp/hello") <(sections "$tmp/hello_nofiber"))"

# Compiled alone (position-independent), then linked: both ways. -x c on a file named otherwise.
cc -O1 -c -o "$tmp/twice.o" "$tmp/twice.c" && cc -O1 -c -o "$tmp/hello.o" "$tmp/hello.c" &&
  cc -o "$tmp/hello_objects" "$tmp/hello.o" "$tmp/twice.o" || fail "ncp2-cc of objects: $(cat "$tmp/stderr")"
[ -s "$tmp/stderr" ] && fail "ncp2-cc of objects printed: $(cat "$tmp/stderr")"
has_section "$tmp/hello_objects" || fail "no section in a program linked from objects"
cp "$tmp/twice.c" "$tmp/twice.txt"
cc -O1 -o "$tmp/hello_x" "$tmp/hello.c" -x c "$tmp/twice.txt" || fail "ncp2-cc -x c: $(cat "$tmp/stderr")"
has_section "$tmp/hello_x" || fail "no section in a program built with -x c"

# A library compiled for executables only (-fPIE, as gcc does by default here: libc's stdout reached
# directly, which a shared object cannot): one warning, a working executable without the object.
printf '#include <stdio.h>\nvoid say(const char* text) { fputs(text, stdout); }\n' >"$tmp/nonpic.c"
cat >"$tmp/use_nonpic.c" <<'C'
#include <stdio.h>
#include <tmk.h>
void say(const char* text);
int main(int argc, char** argv) {
  Tmk_startup(argc, argv);
  if (Tmk_proc_id == 1) say("node 1 said it\n");
  Tmk_exit(0);
}
C
gcc -O1 -fPIE -c -o "$tmp/nonpic.o" "$tmp/nonpic.c" && ar rcs "$tmp/libnonpic.a" "$tmp/nonpic.o"
cc -O1 -o "$tmp/use_nonpic" "$tmp/use_nonpic.c" "$tmp/libnonpic.a" || fail "a non-PIC archive stopped the build: $(cat "$tmp/stderr")"
[ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "^ncp2-cc: no fiber object for $tmp/use_nonpic (.*relocation .* can not be used when making a shared object.*); it runs with the process runner only$" "$tmp/stderr" ||
  fail "the non-PIC warning: '$(cat "$tmp/stderr")'"
has_section "$tmp/use_nonpic" && fail "a section in a program whose shared link failed"
"$bin/ncp2" run "$tmp/use_nonpic" --nodes 2 2>&1 | grep -qF "[node 1] node 1 said it" || fail "ncp2 run of use_nonpic"
no_leftovers "a build whose shared link failed"

# A compile error: the compiler's message, no warning about the fiber object.
echo 'int main(void) { return undeclared; }' >"$tmp/broken.c"
cc -o "$tmp/broken" "$tmp/broken.c" && fail "a program that does not compile was built"
grep -q "undeclared" "$tmp/stderr" || fail "no compiler error for broken.c: $(cat "$tmp/stderr")"
grep -q "no fiber object" "$tmp/stderr" && fail "a fiber warning on a compile error"
[ "$(grep -c "error: use of undeclared identifier" "$tmp/stderr")" -eq 1 ] || fail "the compile error twice: $(cat "$tmp/stderr")"
no_leftovers "a failed build"

# --ncp2-show: every command, none run.
out=$("$bin/ncp2-cc" --ncp2-show -O2 -o "$tmp/shown" "$tmp/hello.c")
[ "$(wc -l <<<"$out")" -eq 4 ] || fail "--ncp2-show: not 4 commands: $out"
grep -q -- "-shared -Wl,-Bsymbolic .*-Wl,--wrap=rand .*-Wl,--wrap=pthread_create.* -lncp2tmk_fiber -lncp2tmk" <<<"$out" ||
  fail "--ncp2-show: no shared link: $out"
grep -q -- "-fPIC" <<<"$out" || fail "--ncp2-show: no -fPIC: $out"
grep -q "ncp2_fiber.*incbin" <<<"$out" || fail "--ncp2-show: no section's source: $out"
grep -q -- "-o $tmp/shown .*fiber_section.o .*-lncp2tmk" <<<"$out" || fail "--ncp2-show: no executable's link: $out"
[ -e "$tmp/shown" ] && fail "--ncp2-show built the program"
no_leftovers "--ncp2-show"
"$bin/ncp2-cc" --ncp2-show -c -o x.o x.c | grep -q -- "-fPIC" || fail "--ncp2-show -c: no -fPIC"
"$bin/ncp2-cc" --ncp2-help | grep -q -- "--ncp2-no-fiber" || fail "--ncp2-help lacks --ncp2-no-fiber"

[ "$failures" -eq 0 ] && echo "ncp2-cc fiber test passed"
exit $((failures > 0))
