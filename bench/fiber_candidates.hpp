#pragma once
// Shared pieces of bench/fiber_candidates*.cpp (issue 45):
// file descriptors and mappings owned by value, a minimal fiber, and where the test program's
// builds are.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emulator/fiber_switch.hpp"

namespace ncp2::bench::fiber_candidates {

inline constexpr std::size_t kHostPage = 4096;
namespace emu_switch = ncp2::emu::fiber_switch;

// A fiber on the emulator's own stack switch. `body` runs at the first resume and must never
// return: it loops, yielding back each time. Destroyed only while suspended; the frames on its
// stack are then abandoned, so a body keeps nothing that needs a destructor across a yield.
class Fiber {
 public:
  using Body = void (*)(Fiber& self, void* data);
  Fiber(Body body, void* data) : body_(body), data_(data), stack_(kStackBytes) {
    self_.owner = this;
    emu_switch::prepare(self_, stack_.data() + stack_.size(), &Fiber::entry);
  }
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  ~Fiber() = default;

  void resume() { emu_switch::switch_to(caller_, self_); }  // from the thread's own stack
  void yield() { emu_switch::switch_to(self_, caller_); }   // from the fiber's body

 private:
  static constexpr std::size_t kStackBytes = std::size_t{64} * 1024;
  struct Switch : emu_switch::Context {
    Fiber* owner = nullptr;
  };
  static void entry(emu_switch::Context* /*from*/, emu_switch::Context* self) {
    Fiber& fiber = *static_cast<Switch*>(self)->owner;
    fiber.body_(fiber, fiber.data_);
    __builtin_trap();  // a body never returns
  }
  Body body_;
  void* data_;
  std::vector<std::byte> stack_;
  Switch self_;
  emu_switch::Context caller_;
};

// "what: <the system's reason>", for a benchmark's SkipWithError.
inline std::string system_error_text(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// A file descriptor, closed with its owner.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }

 private:
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

// An anonymous mapping of whole host pages, unmapped with its owner. Invalid when mmap failed
// (errno says why).
class Mapping {
 public:
  Mapping() = default;
  Mapping(std::size_t bytes, int flags) : bytes_(bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) data_ = static_cast<unsigned char*>(p);
  }
  Mapping(Mapping&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  Mapping& operator=(Mapping&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { reset(); }

  [[nodiscard]] unsigned char* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return bytes_; }
  [[nodiscard]] bool valid() const { return data_ != nullptr; }

 private:
  void reset() {
    if (data_) ::munmap(data_, bytes_);
    data_ = nullptr;
  }
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The test program (bench/fiber_candidates_program.cpp) built with `kib` KiB of writable globals;
// nullptr for a size bench/CMakeLists.txt does not build.
inline const char* program_path(std::size_t kib) {
  switch (kib) {
    case 4:
      return NCP2_FIBER_PROGRAM_4K;
    case 64:
      return NCP2_FIBER_PROGRAM_64K;
    case 1024:
      return NCP2_FIBER_PROGRAM_1024K;
    default:
      return nullptr;
  }
}

}  // namespace ncp2::bench::fiber_candidates
