// Diff::size_and_copy, the fused pass of a page's first write in an interval: the same words, runs
// and modeled bytes as Diff::between, the copy equal to the page, and a diff encoded later from
// the twin and that copy byte-identical to the one encoded at once.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lrc/diff.hpp"

namespace ncp2::lrc {
namespace {

using Bytes = std::vector<std::byte>;

Bytes random_bytes(std::mt19937& rng, std::size_t n) {
  Bytes b(n);
  for (auto& x : b) x = std::byte(static_cast<std::uint8_t>(rng()));
  return b;
}

// A page changed from `twin` by one of several patterns: single bytes (partly changed words),
// whole random stretches, every word, none, every other word, runs across the pass's 64-word
// steps, and the first and last words.
Bytes changed_page(std::mt19937& rng, const Bytes& twin, int pattern, std::size_t word) {
  Bytes page = twin;
  const auto flip = [&](std::size_t i) { page[i] ^= std::byte(1 + rng() % 255); };
  switch (pattern) {
    case 0:  // none
      break;
    case 1:  // every byte
      for (std::size_t i = 0; i < page.size(); ++i) flip(i);
      break;
    case 2:  // scattered single bytes
      for (int k = 0; k < 40; ++k) flip(rng() % page.size());
      break;
    case 3:  // random stretches of bytes, some partial words at their ends
      for (int k = 0; k < 6; ++k) {
        const std::size_t from = rng() % page.size();
        const std::size_t len = std::min<std::size_t>(page.size() - from, 1 + rng() % 700);
        for (std::size_t i = from; i < from + len; ++i) flip(i);
      }
      break;
    case 4:  // every other word (as many runs as changed words)
      for (std::size_t w = 0; w < page.size() / word; w += 2) flip(w * word + rng() % word);
      break;
    case 5:  // the first and the last word only
      flip(0);
      flip(page.size() - 1);
      break;
    default:  // runs ending and starting at multiples of 64 words (the pass's steps)
      for (std::size_t w = 60; w + 8 <= page.size() / word; w += 64)
        for (std::size_t i = w * word; i < (w + 8) * word; ++i) flip(i);
      break;
  }
  return page;
}

constexpr int kPatterns = 7;

TEST(DiffSize, CountsTheWordsAndRunsOfDiffBetweenAndCopiesThePage) {
  std::mt19937 rng(11);
  for (const std::size_t word : {4U, 8U, 2U, 16U}) {
    // 4 KB pages, and sizes with a tail shorter than the 64-word step.
    for (const std::size_t size : {std::size_t{4096}, std::size_t{8192}, word * 64 + word * 5, word * 3}) {
      for (int pattern = 0; pattern < kPatterns; ++pattern) {
        for (int trial = 0; trial < 8; ++trial) {
          const Bytes twin = random_bytes(rng, size);
          const Bytes page = changed_page(rng, twin, pattern, word);
          Bytes copy(size, std::byte{0xee});
          const int ws = static_cast<int>(word);
          const DiffSize s = Diff::size_and_copy(twin, page, ws, copy);
          const Diff d = Diff::between(twin, page, ws);
          const std::string where = "word " + std::to_string(word) + ", size " + std::to_string(size) +
                                    ", pattern " + std::to_string(pattern);
          ASSERT_EQ(s.words, d.words()) << where;
          ASSERT_EQ(s.runs, d.runs()) << where;
          ASSERT_EQ(s.modeled_bytes(ws), d.modeled_bytes()) << where;
          ASSERT_EQ(copy, page) << where;
          // Encoded later from the twin and the copy: byte for byte the diff made at once.
          const Diff later = Diff::between(twin, copy, ws);
          ASSERT_EQ(later.encoded_bytes(), d.encoded_bytes()) << where;
          ASSERT_TRUE(std::ranges::equal(later.encoded(), d.encoded())) << where;
        }
      }
    }
  }
}

TEST(DiffSize, KnownShapes) {
  const Bytes twin(4096, std::byte{0});
  Bytes copy(4096);
  EXPECT_EQ(Diff::size_and_copy(twin, twin, 4, copy), (DiffSize{0, 0}));
  const Bytes all(4096, std::byte{1});
  EXPECT_EQ(Diff::size_and_copy(twin, all, 4, copy), (DiffSize{1, 1024}));
  EXPECT_EQ(Diff::size_and_copy(twin, all, 8, copy), (DiffSize{1, 512}));
  Bytes one = twin;
  one[std::size_t{4} * 63 + 3] = std::byte{1};  // word 63's last byte: a run ending a step
  one[std::size_t{4} * 64] = std::byte{1};      // word 64: the same run, starting the next step
  one[std::size_t{4} * 66 + 1] = std::byte{1};  // word 66: a second run
  EXPECT_EQ(Diff::size_and_copy(twin, one, 4, copy), (DiffSize{2, 3}));
  EXPECT_EQ(Diff::size_and_copy(twin, one, 8, copy), (DiffSize{1, 3}));  // words 31, 32, 33: one run
  EXPECT_EQ(copy, one);
}

TEST(DiffSize, MismatchedSizesAreRejected) {
  Bytes copy(8);
  EXPECT_THROW(Diff::size_and_copy(Bytes(8), Bytes(12), 4, copy), std::invalid_argument);
  Bytes small(4);
  EXPECT_THROW(Diff::size_and_copy(Bytes(8), Bytes(8), 4, small), std::invalid_argument);
  Bytes odd(6);
  EXPECT_THROW(Diff::size_and_copy(Bytes(6), Bytes(6), 4, odd), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::lrc
