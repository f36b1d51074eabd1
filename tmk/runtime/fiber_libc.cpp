// libc's functions whose state or effect is the whole process's, for the copy of a program that
// the fiber runner loads once per node (tmk/fiber_abi.hpp, issue 45). ncp2-cc links this library
// into both of its outputs, with `-Wl,--wrap=X` for each X below, so the program's (and the
// runtime's) calls to X reach __wrap_X of the same copy and __wrap_X reaches libc as __real_X. In
// the executable (the process runner, real runs, a native run) every function behaves as libc's.
//
// - Pseudo-random numbers and strtok: libc keeps one state per process, and a copy is one node,
//   so each copy keeps its own, always: glibc's algorithms on a state seeded as a fresh process's
//   is, so a node draws the sequence it draws under the process runner.
// - Ending the process, signals, threads, fork: only while the copy runs as a fiber of the
//   emulator (fiber::active()); otherwise libc's own function.
// No C++ library at run time: programs may be C.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmk/runtime/fiber_mode.hpp"

// Hidden: --wrap binds the calls at link time; nothing else needs to see them.
#define NCP2_WRAP extern "C" __attribute__((visibility("hidden")))
#define NCP2_WRAP_NORETURN extern "C" __attribute__((visibility("hidden"), noreturn))

namespace {

namespace fiber = ncp2::tmk::fiber;

// ---- per-copy state: random(), rand() ----------------------------------------------------------

// glibc's random() starts as if from initstate(1, state, 128): TYPE_3, seed 1.
constexpr std::size_t kRandomStateBytes = 128;

struct RandomState {
  char state[kRandomStateBytes] = {};
  random_data data = {};
  bool ready = false;
};
RandomState random_state;  // NOLINT: the copy's own, as a process has one

random_data& random_data_of_copy() {
  if (!random_state.ready) {
    initstate_r(1, random_state.state, kRandomStateBytes, &random_state.data);
    random_state.ready = true;
  }
  return random_state.data;
}

// ---- per-copy state: the drand48 family, strtok ------------------------------------------------

// glibc's own global for the family starts zeroed; drand48_r and kin initialize it on first use.
drand48_data drand48_state = {};  // NOLINT: the copy's own
char* strtok_save = nullptr;      // NOLINT: the copy's own

// ---- signal dispositions the program set while a fiber: remembered, never applied ------------

struct sigaction remembered[NSIG] = {};  // NOLINT: the copy's own; zero is SIG_DFL

bool handler_is_function(sighandler_t handler) {
  return handler != SIG_DFL && handler != SIG_IGN && handler != SIG_HOLD;
}

// As the kernel and glibc answer: no such signal, a signal that cannot be caught or ignored, or
// one of glibc's own (the two below SIGRTMIN).
bool can_set(int signal_number) {
  return signal_number > 0 && signal_number < NSIG && signal_number != SIGKILL && signal_number != SIGSTOP &&
         !(signal_number >= __SIGRTMIN && signal_number < SIGRTMIN);
}

char refusal_text[240];  // NOLINT: the copy's own; read by fiber::refuse before the run stops

[[noreturn]] void refuse_handler(const char* call, int signal_number, const void* pc) {
  const char* abbreviation = sigabbrev_np(signal_number);
  snprintf(refusal_text, sizeof refusal_text,
           "%s(SIG%s) installs a signal handler: the fiber runner shares one process among the nodes; run "
           "it with --runner process",
           call, abbreviation ? abbreviation : "?");
  fiber::refuse(refusal_text, pc);
}

// signal() and its kin while a fiber: a handler function is refused; SIG_DFL, SIG_IGN and SIG_HOLD
// are remembered for the copy and the previous one returned, as a process would see them.
sighandler_t set_remembered(const char* call, int signal_number, sighandler_t handler, const void* pc) {
  if (handler == SIG_ERR || !can_set(signal_number)) {
    errno = EINVAL;
    return SIG_ERR;
  }
  if (handler_is_function(handler)) refuse_handler(call, signal_number, pc);
  const sighandler_t previous = remembered[signal_number].sa_handler;
  remembered[signal_number] = {};
  remembered[signal_number].sa_handler = handler;
  return previous;
}

}  // namespace

namespace {
// One draw of the family: `draw(&result)` on the copy's state (the _r functions' shape).
template <class T, class Draw>
T drawn(Draw draw) {
  T result{};
  draw(&result);
  return result;
}
}  // namespace

// The names --wrap and libc give: reserved, and not ours to style.
// NOLINTBEGIN(bugprone-reserved-identifier, readability-identifier-naming)

// ---- rand, random ---------------------------------------------------------------------------

NCP2_WRAP long __wrap_random() {
  int32_t result = 0;
  random_r(&random_data_of_copy(), &result);
  return result;
}
NCP2_WRAP void __wrap_srandom(unsigned seed) { srandom_r(seed, &random_data_of_copy()); }
NCP2_WRAP int __wrap_rand() { return static_cast<int>(__wrap_random()); }  // glibc's rand is random
NCP2_WRAP void __wrap_srand(unsigned seed) { __wrap_srandom(seed); }

// ---- the drand48 family (erand48, nrand48 and jrand48 too: they use the family's multiplier,
// which lcong48 changes) ------------------------------------------------------------------------

NCP2_WRAP double __wrap_drand48() {
  return drawn<double>([](double* r) { drand48_r(&drand48_state, r); });
}
NCP2_WRAP double __wrap_erand48(unsigned short xsubi[3]) {
  return drawn<double>([xsubi](double* r) { erand48_r(xsubi, &drand48_state, r); });
}
NCP2_WRAP long __wrap_lrand48() {
  return drawn<long>([](long* r) { lrand48_r(&drand48_state, r); });
}
NCP2_WRAP long __wrap_nrand48(unsigned short xsubi[3]) {
  return drawn<long>([xsubi](long* r) { nrand48_r(xsubi, &drand48_state, r); });
}
NCP2_WRAP long __wrap_mrand48() {
  return drawn<long>([](long* r) { mrand48_r(&drand48_state, r); });
}
NCP2_WRAP long __wrap_jrand48(unsigned short xsubi[3]) {
  return drawn<long>([xsubi](long* r) { jrand48_r(xsubi, &drand48_state, r); });
}
NCP2_WRAP void __wrap_srand48(long seed) { srand48_r(seed, &drand48_state); }
NCP2_WRAP unsigned short* __wrap_seed48(unsigned short seed[3]) {
  seed48_r(seed, &drand48_state);
  return drand48_state.__old_x;  // as glibc's: the previous state, kept in the family's state
}
NCP2_WRAP void __wrap_lcong48(unsigned short parameters[7]) { lcong48_r(parameters, &drand48_state); }

// ---- strtok -------------------------------------------------------------------------------

NCP2_WRAP char* __wrap_strtok(char* text, const char* delimiters) {
  return strtok_r(text, delimiters, &strtok_save);
}

// ---- ending the process: the node ends instead -----------------------------------------------

extern "C" {
[[noreturn]] void __real_exit(int status);
[[noreturn]] void __real__exit(int status);
[[noreturn]] void __real__Exit(int status);
[[noreturn]] void __real_quick_exit(int status);
[[noreturn]] void __real_abort();
[[noreturn]] void __real___assert_fail(const char* assertion, const char* file, unsigned line,
                                       const char* function);
sighandler_t __real_signal(int signal_number, sighandler_t handler);
sighandler_t __real_sysv_signal(int signal_number, sighandler_t handler);
sighandler_t __real___sysv_signal(int signal_number, sighandler_t handler);
sighandler_t __real_bsd_signal(int signal_number, sighandler_t handler);
sighandler_t __real_ssignal(int signal_number, sighandler_t handler);
sighandler_t __real_sigset(int signal_number, sighandler_t handler);
int __real_sigaction(int signal_number, const struct sigaction* action, struct sigaction* previous);
int __real_pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*start)(void*),
                          void* argument);
pid_t __real_fork();
}

NCP2_WRAP_NORETURN void __wrap_exit(int status) {
  if (fiber::active()) fiber::end_node(status, __builtin_return_address(0));
  __real_exit(status);
}
NCP2_WRAP_NORETURN void __wrap__exit(int status) {
  if (fiber::active()) fiber::vanish(status);  // no exit handlers: no Exit request either
  __real__exit(status);
}
NCP2_WRAP_NORETURN void __wrap__Exit(int status) {
  if (fiber::active()) fiber::vanish(status);  // no exit handlers: no Exit request either
  __real__Exit(status);
}
NCP2_WRAP_NORETURN void __wrap_quick_exit(int status) {
  if (fiber::active()) fiber::vanish(status);  // no exit handlers: no Exit request either
  __real_quick_exit(status);
}

// ---- raise, kill of itself: a signal whose default action ends the process ends the node --------

namespace {

// The signals whose default action is to ignore them (and SIGCONT's, to continue): nothing happens.
bool ignored_by_default(int signal_number) {
  return signal_number == SIGCHLD || signal_number == SIGURG || signal_number == SIGWINCH ||
         signal_number == SIGCONT;
}

int raise_in_fiber(int signal_number) {
  if (signal_number <= 0 || signal_number >= NSIG) {
    errno = EINVAL;
    return -1;
  }
  if (ignored_by_default(signal_number)) return 0;
  if (signal_number == SIGSTOP || signal_number == SIGTSTP || signal_number == SIGTTIN ||
      signal_number == SIGTTOU)
    fiber::refuse(
        "the program stops itself with a signal: the fiber runner shares one process among the nodes; "
        "run it with --runner process",
        __builtin_return_address(0));
  // The signals the process runner's runtime reports as crashes; the others end the process.
  if (signal_number == SIGSEGV || signal_number == SIGBUS || signal_number == SIGFPE ||
      signal_number == SIGILL || signal_number == SIGABRT)
    fiber::crash(signal_number, strsignal(signal_number), __builtin_return_address(0));
  fiber::killed(signal_number);
}

}  // namespace

extern "C" int __real_raise(int signal_number);
NCP2_WRAP int __wrap_raise(int signal_number) {
  return fiber::active() ? raise_in_fiber(signal_number) : __real_raise(signal_number);
}
extern "C" int __real_kill(pid_t pid, int signal_number);
NCP2_WRAP int __wrap_kill(pid_t pid, int signal_number) {
  const bool self = pid == 0 || pid == getpid();
  if (!fiber::active() || !self || signal_number == 0) return __real_kill(pid, signal_number);
  return raise_in_fiber(signal_number);
}

// ---- abort, assert: the node's run stops as the process runner reports SIGABRT -----------------

NCP2_WRAP_NORETURN void __wrap_abort() {
  if (fiber::active()) fiber::crash(SIGABRT, "Aborted", __builtin_return_address(0));
  __real_abort();
}

NCP2_WRAP_NORETURN void __wrap___assert_fail(const char* assertion, const char* file, unsigned line,
                                             const char* function) {
  if (!fiber::active()) __real___assert_fail(assertion, file, line, function);
  // glibc's own message (assert/assert.c), on the node's stderr.
  const char* program = fiber::program_name();  // the process's would name the emulator
  fprintf(stderr, "%s%s%s:%u: %s%sAssertion `%s' failed.\n", program, program[0] ? ": " : "", file, line,
          function ? function : "", function ? ": " : "", assertion);
  fflush(stderr);
  fiber::crash(SIGABRT, "Aborted", __builtin_return_address(0));
}

// ---- signals: no handler of a node in the emulator's process ----------------------------------

NCP2_WRAP sighandler_t __wrap_signal(int signal_number, sighandler_t handler) {
  if (!fiber::active()) return __real_signal(signal_number, handler);
  return set_remembered("signal", signal_number, handler, __builtin_return_address(0));
}
NCP2_WRAP sighandler_t __wrap_sysv_signal(int signal_number, sighandler_t handler) {
  if (!fiber::active()) return __real_sysv_signal(signal_number, handler);
  return set_remembered("sysv_signal", signal_number, handler, __builtin_return_address(0));
}
// <signal.h> names signal() so under strict standards (-std=c11 without _DEFAULT_SOURCE).
NCP2_WRAP sighandler_t __wrap___sysv_signal(int signal_number, sighandler_t handler) {
  if (!fiber::active()) return __real___sysv_signal(signal_number, handler);
  return set_remembered("signal", signal_number, handler, __builtin_return_address(0));
}
NCP2_WRAP sighandler_t __wrap_bsd_signal(int signal_number, sighandler_t handler) {
  if (!fiber::active()) return __real_bsd_signal(signal_number, handler);
  return set_remembered("bsd_signal", signal_number, handler, __builtin_return_address(0));
}
NCP2_WRAP sighandler_t __wrap_ssignal(int signal_number, sighandler_t handler) {
  if (!fiber::active()) return __real_ssignal(signal_number, handler);
  return set_remembered("ssignal", signal_number, handler, __builtin_return_address(0));
}
NCP2_WRAP sighandler_t __wrap_sigset(int signal_number, sighandler_t handler) {
  if (!fiber::active()) return __real_sigset(signal_number, handler);
  return set_remembered("sigset", signal_number, handler, __builtin_return_address(0));
}

NCP2_WRAP int __wrap_sigaction(int signal_number, const struct sigaction* action,
                               struct sigaction* previous) {
  if (!fiber::active()) return __real_sigaction(signal_number, action, previous);
  const bool valid = action ? can_set(signal_number) : signal_number > 0 && signal_number < NSIG;
  if (!valid) {
    errno = EINVAL;
    return -1;
  }
  // sa_handler and sa_sigaction share their storage: a function is a function either way.
  if (action && handler_is_function(action->sa_handler))
    refuse_handler("sigaction", signal_number, __builtin_return_address(0));
  if (previous) *previous = remembered[signal_number];
  if (action) remembered[signal_number] = *action;
  return 0;
}

// ---- threads and processes: one fiber per node ----------------------------------------------

NCP2_WRAP int __wrap_pthread_create(pthread_t* thread, const pthread_attr_t* attributes,
                                    void* (*start)(void*), void* argument) {
  if (fiber::active())
    fiber::refuse(
        "pthread_create() starts a thread: the fiber runner runs every node on a fiber of the emulator's "
        "thread; run it with --runner process",
        __builtin_return_address(0));
  return __real_pthread_create(thread, attributes, start, argument);
}

NCP2_WRAP pid_t __wrap_fork() {
  if (fiber::active())
    fiber::refuse(
        "fork() copies the process: the fiber runner shares one process among the nodes; run it with "
        "--runner process",
        __builtin_return_address(0));
  return __real_fork();
}

// NOLINTEND(bugprone-reserved-identifier, readability-identifier-naming)
