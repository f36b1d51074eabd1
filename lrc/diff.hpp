#pragma once
// Run-length word diffs (TreadMarks): the words of a page that differ from its twin, as runs of
// consecutive modified words. Encoded per run as [u32 first word][u32 word count][words...], and,
// when some byte of the run's words is unchanged, bit 31 of the count set and a byte mask after
// the words (ceil(count * word size / 8) bytes, bit i LSB-first: byte i of the run changed).
// Applying writes only the changed bytes, so concurrent writers of different bytes of one word
// (a shared byte array split between nodes) all keep their writes. The machine model still sees
// word runs: modeled_bytes() (8 per run + the words) is what the emulated costs charge, whatever
// the masks add to the real encoding.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ncp2::lrc {

// A diff's size without its encoding: the changed words and their runs, as Diff::between counts
// them (a word is changed if any of its bytes is).
struct DiffSize {
  std::size_t runs = 0;
  std::size_t words = 0;
  [[nodiscard]] std::size_t modeled_bytes(int word_size) const {
    return runs * 8 + words * static_cast<std::size_t>(word_size);
  }
  bool operator==(const DiffSize&) const = default;
};

class Diff {
 public:
  Diff() = default;
  // The words of `page` that differ from `twin` (same size, a multiple of `word_size`).
  static Diff between(std::span<const std::byte> twin, std::span<const std::byte> page, int word_size);
  // The same, encoding into `storage` (its capacity reused: no allocation for a recycled buffer).
  static Diff between(std::span<const std::byte> twin, std::span<const std::byte> page, int word_size,
                      std::vector<std::byte> storage);
  // The size of between(twin, page, word_size) and, in the same pass, copy = page: a page's next
  // twin is a copy of it anyway, and the diff can be encoded later from the two twins (lrc/diff_size.cpp).
  static DiffSize size_and_copy(std::span<const std::byte> twin, std::span<const std::byte> page,
                                int word_size, std::span<std::byte> copy);
  // Gives the encoding's buffer back for reuse; the diff is empty afterwards.
  [[nodiscard]] std::vector<std::byte> take_storage() && {
    runs_ = 0;
    words_ = 0;
    return std::move(encoded_);
  }

  // Writes the diff's changed bytes into `page`.
  void apply_to(std::span<std::byte> page) const;

  [[nodiscard]] bool empty() const { return runs_ == 0; }
  [[nodiscard]] std::size_t runs() const { return runs_; }
  [[nodiscard]] std::size_t words() const { return words_; }
  [[nodiscard]] std::size_t encoded_bytes() const { return encoded_.size(); }
  // The size of the word-run encoding without masks (8 bytes per run + the words): what the machine
  // model charges for the diff, in messages and in the garbage-collection threshold.
  [[nodiscard]] std::size_t modeled_bytes() const {
    return runs_ * 8 + words_ * static_cast<std::size_t>(word_size_);
  }
  static std::size_t modeled_bytes_of(std::span<const std::byte> encoded, int word_size);
  [[nodiscard]] std::span<const std::byte> encoded() const { return encoded_; }
  [[nodiscard]] int word_size() const { return word_size_; }
  static Diff decode(std::span<const std::byte> bytes, int word_size);
  // The number of words of an encoded diff's runs (masked or not).
  static std::size_t count_words(std::span<const std::byte> encoded, int word_size);
  // Applies an encoded diff straight from a buffer; returns the number of words of its runs.
  static std::size_t apply_encoded(std::span<const std::byte> encoded, std::span<std::byte> page,
                                   int word_size);

 private:
  std::vector<std::byte> encoded_;
  std::size_t runs_ = 0;
  std::size_t words_ = 0;
  int word_size_ = 4;
};

}  // namespace ncp2::lrc
