#pragma once
// A callable stored inline, without allocation, for the hot paths (CP commands, interrupt
// handlers). Restricted to trivially copyable callables — lambdas capturing pointers, ids and
// integers — so copying it is a memcpy.
#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace ncp2::emu {

template <class Signature, std::size_t Bytes = 32>
class InlineFunction;

template <class R, class... Args, std::size_t Bytes>
class InlineFunction<R(Args...), Bytes> {
 public:
  InlineFunction() = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction>>>
  InlineFunction(F&& fn) {  // NOLINT(google-explicit-constructor): used like std::function
    emplace(std::forward<F>(fn));
  }

  // Replaces the callable, building it in place (no temporary InlineFunction to copy).
  template <class F>
  void emplace(F&& fn) {
    using Fn = std::decay_t<F>;
    if constexpr (std::is_same_v<Fn, InlineFunction>) {
      *this = fn;
    } else {
      static_assert(sizeof(Fn) <= Bytes, "callable too large: capture pointers and ids only");
      static_assert(std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>,
                    "callable must be trivially copyable (capture pointers and integers)");
      static_assert(alignof(Fn) <= alignof(std::max_align_t));
      ::new (static_cast<void*>(storage_.data())) Fn(std::forward<F>(fn));
      invoke_ = [](const std::byte* s, Args... args) -> R {
        return (*std::launder(reinterpret_cast<const Fn*>(s)))(std::forward<Args>(args)...);
      };
    }
  }

  explicit operator bool() const { return invoke_ != nullptr; }
  R operator()(Args... args) const { return invoke_(storage_.data(), std::forward<Args>(args)...); }

 private:
  alignas(std::max_align_t) std::array<std::byte, Bytes> storage_{};
  R (*invoke_)(const std::byte*, Args...) = nullptr;
};

}  // namespace ncp2::emu
