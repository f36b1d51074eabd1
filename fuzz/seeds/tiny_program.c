/* The smallest program with a function, a loop and debug information: a seed of the program
   fuzz target (fuzz/README.md). */
static int sum(const int* a, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}
int data[4] = {1, 2, 3, 4};
__attribute__((used, section("ncp2_race_checks"))) static const char marker[1] = {1};
void _start(void) {
  volatile int r = sum(data, 4);
  (void)r;
  for (;;) {}
}
