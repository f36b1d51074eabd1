#pragma once
// The kernel's stack switch (x86-64, System V ABI): a few inline instructions in place of
// Boost.Context's jump_fcontext (issue 21, goal 3). A switch saves the stack pointer, the frame
// pointer and the resume address of the context it leaves, and loads those of the context it
// enters. Every other register is declared clobbered, so the compiler saves only what is live
// across the switch in the function that switches (and the callee-saved registers once in its
// prologue), instead of the fixed six registers, the x87 control word and MXCSR of a library
// call. The floating-point control state is shared by all contexts of a thread: nothing here
// changes it. No call and no return: the return-stack predictor stays balanced.
//
// The sanitizer annotations (fiber_sanitizer.hpp) are the caller's business, as with Boost.Context.
// Not for processes with CET enforced (-fcf-protection on a kernel that enables it): the resume
// address is a plain label without ENDBR64, and no shadow stack is switched.
#include <cstddef>
#include <cstdint>
#include <cstring>

#if !defined(__x86_64__)
#error "emulator/fiber_switch.hpp implements the x86-64 System V switch only"
#endif

namespace ncp2::emu::fiber_switch {

// A switched-out context: where to continue it. Offsets are used by the assembly below.
struct Context {
  void* sp = nullptr;        // 0: stack pointer
  void* fp = nullptr;        // 8: frame pointer (rbp is never declared clobbered: it may be the frame's)
  const void* pc = nullptr;  // 16: resume address
};

// A context's first function, entered by the first switch to it as if called with (the context
// that switched, the context itself). It must never return: it ends with a last switch away.
using Entry = void (*)(Context* from, Context* self);

// Prepares `context` so that the first switch to it runs `entry` on the stack whose highest
// address is `stack_top` (exclusive).
inline void prepare(Context& context, void* stack_top, Entry entry) {
  // At a function's entry rsp + 8 is 16-byte aligned, and rsp points to its return address: here
  // a null one, which ends every unwinder's and debugger's walk of the fiber's stack.
  char* const top = static_cast<char*>(stack_top);
  char* const sp = top - (reinterpret_cast<std::uintptr_t>(top) & 15) - 16 - 8;
  const std::uintptr_t null_return = 0;
  std::memcpy(sp, &null_return, sizeof null_return);
  context.sp = sp;
  context.fp = nullptr;
  context.pc = reinterpret_cast<const void*>(entry);
}

// Leaves the running context (saved into `from`) for `to`. Returns when some context switches
// back to `from`. rdi and rsi hold (from, to) when the jump lands, which is what an Entry expects.
[[gnu::always_inline]] inline void switch_to(Context& from, Context& to) {
  Context* from_ptr = &from;
  Context* to_ptr = &to;
  asm volatile(
      "leaq 1f(%%rip), %%rax\n\t"
      "movq %%rsp, 0(%%rdi)\n\t"
      "movq %%rbp, 8(%%rdi)\n\t"
      "movq %%rax, 16(%%rdi)\n\t"
      "movq 0(%%rsi), %%rsp\n\t"
      "movq 8(%%rsi), %%rbp\n\t"
      "jmpq *16(%%rsi)\n\t"
      "1:\n\t"
      : "+D"(from_ptr), "+S"(to_ptr)
      :
      : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",  //
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",                    //
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",              //
        "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)",               //
        "mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7", "cc", "memory");
}

}  // namespace ncp2::emu::fiber_switch
