#pragma once
// A FIFO on a growable power-of-two ring: no allocation in steady state (std::deque allocates a
// block every few pushes), used for the CP's command queue and the PP's pending interrupts.
#include <cstddef>
#include <utility>
#include <vector>

namespace ncp2::emu {

template <class T>
class RingQueue {
 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] T& front() { return slots_[head_]; }
  [[nodiscard]] const T& front() const { return slots_[head_]; }

  void push_back(const T& value) { push_slot() = value; }
  // Appends a slot and returns it for the caller to fill in place (no temporary to copy).
  [[nodiscard]] T& push_slot() {
    if (size_ == capacity_) grow();
    T& slot = slots_[(head_ + size_) & (capacity_ - 1)];
    ++size_;
    return slot;
  }
  void pop_front() {
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_ = std::move(bigger);
    capacity_ = slots_.size();
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t capacity_ = 0;  // slots_.size(), kept apart: the vector's size is a division
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace ncp2::emu
