/* The TreadMarks API for programs run on the NCP2 emulator (docs/tmk-programs.md).
 *
 * SPMD: every node runs main(). Shared memory comes from Tmk_malloc and is ordinary memory: read
 * and write it through plain pointers; the same address means the same datum on every node. Each
 * node has its own copy of the program's globals (a process per node). Memory is kept coherent
 * by lazy release consistency: a node sees another's writes after synchronizing with it (a
 * barrier, or the lock the writer released).
 *
 * Build with `ncp2-cc` / `ncp2-c++` (or CMake: find_package(ncp2), target ncp2::tmk) and run with
 * `ncp2 run ./prog --nodes N -- <args>`. Run directly, the program is one native process
 * (Tmk_nprocs == 1): the sequential baseline. */
#ifndef NCP2_TMK_H
#define NCP2_TMK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This node's number (0 .. Tmk_nprocs - 1) and the number of nodes; valid after Tmk_startup. */
extern unsigned Tmk_proc_id;
extern unsigned Tmk_nprocs;

/* Limits of the ids (TreadMarks used 1024 locks and 256 barriers; ours are the emulator's). */
#define TMK_NLOCKS 1048576u
#define TMK_NBARRIERS 1024u

/* Joins the run: sets Tmk_proc_id and Tmk_nprocs. Call once, first, on every node. */
void Tmk_startup(int argc, char** argv);
/* Leaves the run: waits for every node (a final barrier), then exits the process with `status`.
 * Returning from main (or exit()) without it does the same with main's status. */
void Tmk_exit(int status) __attribute__((noreturn));

/* Shared memory: `size` bytes, 16-byte aligned, visible at the same address on every node (pass
 * the pointer to the others through Tmk_distribute or shared memory). NULL is never returned: an
 * exhausted shared heap ends the run with a message naming the size to raise (tmk.heap_mb). */
void* Tmk_malloc(size_t size);
void Tmk_free(void* ptr);
/* Node 0 only: copies `size` bytes at `ptr` of its private memory (typically a global holding a
 * pointer from Tmk_malloc) to the same address on every node. Visible to the others after the
 * next barrier. */
void Tmk_distribute(const void* ptr, size_t size);

void Tmk_barrier(unsigned id);
void Tmk_lock_acquire(unsigned id);
void Tmk_lock_release(unsigned id);

/* CARNIVAL scopes (optional; without them time is attributed to functions and source lines).
 * C: TMK_SCOPE_BEGIN("relax"); ... TMK_SCOPE_END(); in the same function, properly nested.
 * C++: { TMK_SCOPE("relax"); ... } covers the rest of the enclosing block. */
void Tmk_scope_begin(const char* name, const char* file, int line);
void Tmk_scope_end(const char* file, int line);
#define TMK_SCOPE_BEGIN(name) Tmk_scope_begin((name), __FILE__, __LINE__)
#define TMK_SCOPE_END() Tmk_scope_end(__FILE__, __LINE__)

#ifdef __cplusplus
} /* extern "C" */

namespace tmk {
/* The C++ form of a scope: from its line to the end of the enclosing block. */
class Scope {
 public:
  explicit Scope(const char* name, const char* file = __builtin_FILE(), int line = __builtin_LINE())
      : file_(file) {
    Tmk_scope_begin(name, file, line);
  }
  ~Scope() { Tmk_scope_end(file_, 0); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const char* file_;
};
}  // namespace tmk
#define TMK_SCOPE_CONCAT_INNER(a, b) a##b
#define TMK_SCOPE_CONCAT(a, b) TMK_SCOPE_CONCAT_INNER(a, b)
#define TMK_SCOPE(name) const ::tmk::Scope TMK_SCOPE_CONCAT(tmk_scope_, __LINE__)(name)
#endif

#endif /* NCP2_TMK_H */
