#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <tmk.h>
int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "before")) Tmk_barrier(0);
  Tmk_startup(argc, argv);
  if (!strcmp(what, "release")) Tmk_lock_release(3);
  if (!strcmp(what, "lockid")) Tmk_lock_acquire(2000000);
  if (!strcmp(what, "barrierid")) Tmk_barrier(5000);
  if (!strcmp(what, "heap")) { for (int i = 0; i < 100; ++i) Tmk_malloc(1 << 20); }
  if (!strcmp(what, "segv") && Tmk_proc_id == 1) { int *p = (int *)16; *p = 1; }
  if (!strcmp(what, "abort") && Tmk_proc_id == 1) abort();
  if (!strcmp(what, "exit3") && Tmk_proc_id == 2) exit(3);
  if (!strcmp(what, "kill") && Tmk_proc_id == 1) raise(SIGKILL);
  if (!strcmp(what, "free")) Tmk_free((void *)0x1234);
  if (!strcmp(what, "return")) return 0;
  Tmk_barrier(1);
  Tmk_exit(0);
}
