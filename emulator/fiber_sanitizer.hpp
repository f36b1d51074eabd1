#pragma once
// Tells AddressSanitizer and ThreadSanitizer about the kernel's stack switches (kernel.cpp).
// The kernel's stack switches (fiber_switch.hpp) are plain assembly: without these calls ASan takes
// a fiber's stack for the thread's own (an exception thrown in a fiber then "unpoisons" the wrong
// range, and fake stacks of use-after-return detection get mixed up), and TSan mixes the fibers'
// call stacks. In a build without sanitizers every function here is empty and inlined away. Every
// switch is annotated, the first entry into a fiber included (Kernel::fiber_entry).

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NCP2_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define NCP2_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(NCP2_ASAN)
#define NCP2_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(NCP2_TSAN)
#define NCP2_TSAN 1
#endif

#if defined(NCP2_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(NCP2_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace ncp2::emu::fiber_sanitizer {

// One execution context: a fiber, or the thread's own stack that runs the event loop.
struct Context {
  const void* stack_bottom = nullptr;  // lowest address of the stack
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;  // ASan: the context's fake stack while it is switched out
  void* tsan_fiber = nullptr;  // TSan: its fiber state
};

// The event loop's context of this thread (a kernel runs on one thread at a time).
inline Context& main_context() {
  thread_local Context main;
  return main;
}

inline void created([[maybe_unused]] Context& fiber) {
#if defined(NCP2_TSAN)
  fiber.tsan_fiber = __tsan_create_fiber(0);
#endif
}

// Only for a fiber that is not running (finished, or never started).
inline void destroyed([[maybe_unused]] Context& fiber) {
#if defined(NCP2_TSAN)
  if (fiber.tsan_fiber) __tsan_destroy_fiber(fiber.tsan_fiber);
  fiber.tsan_fiber = nullptr;
#endif
}

// Before a fiber's stack goes back to the system: frames that never returned (the fiber's entry
// frame) leave their redzones poisoned, and the next mapping at that address (a node's page
// copy, another stack) would inherit the poison: false stack-buffer-underflow reports.
inline void stack_released([[maybe_unused]] const void* bottom, [[maybe_unused]] std::size_t size) {
#if defined(NCP2_ASAN)
  __asan_unpoison_memory_region(bottom, size);
#endif
}

// On the event loop, right before the jump into `fiber`.
inline void leave_main([[maybe_unused]] const Context& fiber) {
#if defined(NCP2_ASAN)
  __sanitizer_start_switch_fiber(&main_context().fake_stack, fiber.stack_bottom, fiber.stack_size);
#endif
#if defined(NCP2_TSAN)
  main_context().tsan_fiber = __tsan_get_current_fiber();
  // Flag 0: the switch orders the fibers (they never run at the same time).
  __tsan_switch_to_fiber(fiber.tsan_fiber, 0);
#endif
}

// On the event loop, right after the jump into a fiber came back.
inline void back_in_main() {
#if defined(NCP2_ASAN)
  __sanitizer_finish_switch_fiber(main_context().fake_stack, nullptr, nullptr);
#endif
}

// In a fiber, first thing when it starts or resumes: learns where the event loop's stack is.
inline void entered([[maybe_unused]] Context& fiber) {
#if defined(NCP2_ASAN)
  Context& main = main_context();
  __sanitizer_finish_switch_fiber(fiber.fake_stack, &main.stack_bottom, &main.stack_size);
#endif
}

// In a fiber, right before the jump back to the event loop. `ending`: it will not come back
// (ASan then frees its fake stack).
inline void leave_fiber([[maybe_unused]] Context& fiber, [[maybe_unused]] bool ending) {
#if defined(NCP2_ASAN)
  const Context& main = main_context();
  __sanitizer_start_switch_fiber(ending ? nullptr : &fiber.fake_stack, main.stack_bottom, main.stack_size);
#endif
#if defined(NCP2_TSAN)
  __tsan_switch_to_fiber(main_context().tsan_fiber, 0);
#endif
}

}  // namespace ncp2::emu::fiber_sanitizer
