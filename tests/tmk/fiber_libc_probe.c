/* For the fiber runner's tests (fiber_libc_test.cpp, fiber_object_test.cpp): libc's pseudo-random
 * draws and strtok, made by a fresh process (run as a program: `fiber_libc_probe SEED LINES`, SEED
 * 0: unseeded) and by a copy of its fiber object (the probe_ functions, called through dlopen).
 * Both print a line with probe_line, so the two texts compare as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void probe_seed(long seed) {
  srand((unsigned)seed);
  srand48(seed);
}

/* One draw of each, in a fixed order (rand and random share one state, as in glibc). */
void probe_line(char* out, size_t size) {
  const int r = rand();
  const long s = random();
  const double d = drand48();
  const long l = lrand48();
  const long m = mrand48();
  snprintf(out, size, "%d %ld %a %ld %ld\n", r, s, d, l, m);
}

const char* probe_strtok(char* text, const char* delimiters) { return strtok(text, delimiters); }

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fiber_libc_probe SEED LINES\n");
    return 2;
  }
  const long seed = atol(argv[1]);
  if (seed != 0) probe_seed(seed);
  for (long i = atol(argv[2]); i > 0; --i) {
    char line[160];
    probe_line(line, sizeof line);
    fputs(line, stdout);
  }
  return 0;
}
