// libc's string, search and stream functions given pointers into shared memory (libncp2tmk_fiber,
// linked into both of ncp2-cc's outputs with --wrap). libc's code has no guards: under the process
// runner its accesses to shared memory fault by signal and mprotect, under the fiber runner they
// trap into the emulator's backstop, once per page and turn (tmk/host/node_fiber.cpp) — a
// word-count's strcmp on shared words then costs a trap per call. Here each such function first
// asks for the pages its arguments cover, as guarded code would (the same faults, in the same
// order, under both runners), then calls libc on the addresses the guards give (the node's copy
// under the fiber runner, the heap's always-writable alias under the process runner), and gives
// back a pointer into its argument as the program's address. Strings are made readable up to their
// terminating NUL, page by page. With the guards off (a native run, ncp2-cc --ncp2-no-write-guards) every
// function is libc's own. No C++ library at run time.
#include <stdio.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "tmk/channel.hpp"

extern "C" {
extern unsigned long long __ncp2_tmk_guard_bytes;  // NOLINT: the guards' ABI (write_guards.cpp)
extern unsigned long long __ncp2_tmk_load_bytes;   // NOLINT
extern unsigned long long __ncp2_tmk_guard_alias;  // NOLINT
void __ncp2_tmk_write_guard(unsigned long long address, unsigned long long size);  // NOLINT
void __ncp2_tmk_read_guard(unsigned long long address, unsigned long long size);   // NOLINT
}

namespace {

constexpr std::uintptr_t kHostPage = std::uintptr_t{1} << ncp2::tmk::kWriteTablePageShift;

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
bool readable_shared(const void* p) { return address(p) - ncp2::tmk::kHeapBase < __ncp2_tmk_load_bytes; }
bool writable_shared(const void* p) { return address(p) - ncp2::tmk::kHeapBase < __ncp2_tmk_guard_bytes; }

// The bytes of [p, p + n) that lie in shared memory (the rest is the program's own).
std::size_t shared_part(const void* p, std::size_t n, unsigned long long bytes) {
  const std::uintptr_t left = bytes - (address(p) - ncp2::tmk::kHeapBase);
  return n < left ? n : left;
}

// [p, p + n) may be read: the address to read it at.
const void* readable(const void* p, std::size_t n) {
  if (n == 0 || !readable_shared(p)) return p;
  __ncp2_tmk_read_guard(address(p), shared_part(p, n, __ncp2_tmk_load_bytes));
  return reinterpret_cast<const void*>(address(p) + __ncp2_tmk_guard_alias);
}

// [p, p + n) may be written: the address to write it at.
void* writable(void* p, std::size_t n) {
  if (n == 0 || !writable_shared(p)) return p;
  __ncp2_tmk_write_guard(address(p), shared_part(p, n, __ncp2_tmk_guard_bytes));
  return reinterpret_cast<void*>(address(p) + __ncp2_tmk_guard_alias);
}

// A string in shared memory made readable up to its NUL (at most `limit` bytes): the address to
// read it at.
const char* readable_string(const char* s, std::size_t limit = SIZE_MAX) {
  if (!readable_shared(s)) return s;
  std::uintptr_t at = address(s);
  std::size_t seen = 0;
  while (seen < limit) {
    const std::size_t in_page = kHostPage - (at & (kHostPage - 1));
    std::size_t piece = in_page < limit - seen ? in_page : limit - seen;
    piece = shared_part(reinterpret_cast<const void*>(at), piece, __ncp2_tmk_load_bytes);
    if (piece == 0) break;  // the heap's end: libc finds what lies beyond
    __ncp2_tmk_read_guard(at, piece);
    if (std::memchr(reinterpret_cast<const void*>(at + __ncp2_tmk_guard_alias), 0, piece)) break;
    at += piece;
    seen += piece;
  }
  return reinterpret_cast<const char*>(address(s) + __ncp2_tmk_guard_alias);
}

// A pointer libc returned into an argument read at `local`, as the program's address of `program`.
template <class T>
T* as_program(T* result, const void* local, const void* program) {
  if (!result || local == program) return result;
  return reinterpret_cast<T*>(address(result) - address(local) + address(program));
}

}  // namespace

extern "C" {

// NOLINTBEGIN: libc's names and signatures, reached through the linker's --wrap.
size_t __real_strlen(const char* s);
size_t __wrap_strlen(const char* s) { return __real_strlen(readable_string(s)); }
size_t __real_strnlen(const char* s, size_t n);
size_t __wrap_strnlen(const char* s, size_t n) { return __real_strnlen(readable_string(s, n), n); }

int __real_strcmp(const char* a, const char* b);
int __wrap_strcmp(const char* a, const char* b) {
  const char* la = readable_string(a);
  return __real_strcmp(la, readable_string(b));
}
int __real_strncmp(const char* a, const char* b, size_t n);
int __wrap_strncmp(const char* a, const char* b, size_t n) {
  const char* la = readable_string(a, n);
  return __real_strncmp(la, readable_string(b, n), n);
}
int __real_bcmp(const void* a, const void* b, size_t n);  // what the compiler makes of memcmp(...) == 0
int __wrap_bcmp(const void* a, const void* b, size_t n) {
  const void* la = readable(a, n);
  return __real_bcmp(la, readable(b, n), n);
}
int __real_memcmp(const void* a, const void* b, size_t n);
int __wrap_memcmp(const void* a, const void* b, size_t n) {
  const void* la = readable(a, n);
  return __real_memcmp(la, readable(b, n), n);
}

char* __real_strcpy(char* d, const char* s);
char* __wrap_strcpy(char* d, const char* s) {
  const char* ls = readable_string(s);
  __real_strcpy(static_cast<char*>(writable(d, std::strlen(ls) + 1)), ls);
  return d;
}
char* __real_strncpy(char* d, const char* s, size_t n);
char* __wrap_strncpy(char* d, const char* s, size_t n) {
  const char* ls = readable_string(s, n);
  __real_strncpy(static_cast<char*>(writable(d, n)), ls, n);
  return d;
}
char* __real_strcat(char* d, const char* s);
char* __wrap_strcat(char* d, const char* s) {
  const char* ld = readable_string(d);
  const char* ls = readable_string(s);
  const std::size_t at = std::strlen(ld);
  __real_strcat(static_cast<char*>(writable(d, at + std::strlen(ls) + 1)), ls);
  return d;
}

char* __real_strchr(const char* s, int c);
char* __wrap_strchr(const char* s, int c) {
  const char* ls = readable_string(s);
  return as_program(__real_strchr(ls, c), ls, s);
}
char* __real_strrchr(const char* s, int c);
char* __wrap_strrchr(const char* s, int c) {
  const char* ls = readable_string(s);
  return as_program(__real_strrchr(ls, c), ls, s);
}
char* __real_strstr(const char* s, const char* t);
char* __wrap_strstr(const char* s, const char* t) {
  const char* ls = readable_string(s);
  return as_program(__real_strstr(ls, readable_string(t)), ls, s);
}
void* __real_memchr(const void* s, int c, size_t n);
void* __wrap_memchr(const void* s, int c, size_t n) {
  const void* ls = readable(s, n);
  return as_program(__real_memchr(ls, c, n), ls, s);
}
char* __real_strdup(const char* s);
char* __wrap_strdup(const char* s) { return __real_strdup(readable_string(s)); }

long __real_strtol(const char* s, char** end, int base);
long __wrap_strtol(const char* s, char** end, int base) {
  const char* ls = readable_string(s);
  const long v = __real_strtol(ls, end, base);
  if (end) *end = as_program(*end, ls, s);
  return v;
}
double __real_strtod(const char* s, char** end);
double __wrap_strtod(const char* s, char** end) {
  const char* ls = readable_string(s);
  const double v = __real_strtod(ls, end);
  if (end) *end = as_program(*end, ls, s);
  return v;
}
int __real_atoi(const char* s);
int __wrap_atoi(const char* s) { return __real_atoi(readable_string(s)); }
double __real_atof(const char* s);
double __wrap_atof(const char* s) { return __real_atof(readable_string(s)); }

// qsort on a shared array: every page written first (libc's sort moves elements); the comparator
// gets addresses inside the array as libc gives them (unchecked by the guards: outside the heap's
// program addresses, and every page already may be written).
void __real_qsort(void* base, size_t n, size_t size, int (*compare)(const void*, const void*));
void __wrap_qsort(void* base, size_t n, size_t size, int (*compare)(const void*, const void*)) {
  __real_qsort(writable(base, n * size), n, size, compare);
}
void* __real_bsearch(const void* key, const void* base, size_t n, size_t size,
                     int (*compare)(const void*, const void*));
void* __wrap_bsearch(const void* key, const void* base, size_t n, size_t size,
                     int (*compare)(const void*, const void*)) {
  const void* local = readable(base, n * size);
  return as_program(__real_bsearch(readable(key, size), local, n, size, compare), local, base);
}

int __real_puts(const char* s);
int __wrap_puts(const char* s) { return __real_puts(readable_string(s)); }
int __real_fputs(const char* s, FILE* f);
int __wrap_fputs(const char* s, FILE* f) { return __real_fputs(readable_string(s), f); }
size_t __real_fwrite(const void* p, size_t size, size_t n, FILE* f);
size_t __wrap_fwrite(const void* p, size_t size, size_t n, FILE* f) {
  return __real_fwrite(readable(p, size * n), size, n, f);
}
size_t __real_fread(void* p, size_t size, size_t n, FILE* f);
size_t __wrap_fread(void* p, size_t size, size_t n, FILE* f) {
  return __real_fread(writable(p, size * n), size, n, f);
}
// NOLINTEND

}  // extern "C"
