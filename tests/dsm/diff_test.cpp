#include <array>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "dsm/diff.hpp"

namespace ncp2::dsm {
namespace {

std::vector<std::byte> bytes(std::size_t n, std::uint8_t fill = 0) {
  return std::vector<std::byte>(n, std::byte{fill});
}

TEST(Diff, IdenticalPagesGiveAnEmptyDiff) {
  const auto page = bytes(256, 7);
  const Diff d = Diff::between(page, page, 4);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.encoded_bytes(), 0u);
}

TEST(Diff, ConsecutiveModifiedWordsFormOneRun) {
  const auto twin = bytes(64);
  auto page = twin;
  for (std::size_t i = 8; i < 20; ++i) page[i] = std::byte{1};  // words 2..4
  page[40] = std::byte{9};                                      // word 10
  const Diff d = Diff::between(twin, page, 4);
  EXPECT_EQ(d.runs(), 2u);
  EXPECT_EQ(d.words(), 4u);
  EXPECT_EQ(d.encoded_bytes(), 2 * 8 + 4 * 4u);
}

TEST(Diff, ApplyingTheDiffToTheTwinGivesThePage) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    auto twin = bytes(512);
    for (auto& b : twin) b = std::byte(rng() & 0xff);
    auto page = twin;
    for (int k = 0; k < 20; ++k) page[rng() % page.size()] = std::byte(rng() & 0xff);
    const Diff d = Diff::between(twin, page, 4);
    auto rebuilt = twin;
    d.apply_to(rebuilt);
    EXPECT_EQ(rebuilt, page);
    EXPECT_EQ(Diff::count_words(d.encoded(), 4), d.words());
    auto direct = twin;
    EXPECT_EQ(Diff::apply_encoded(d.encoded(), direct, 4), d.words());
    EXPECT_EQ(direct, page);
    const Diff decoded = Diff::decode(d.encoded(), 4);
    EXPECT_EQ(decoded.words(), d.words());
    auto again = twin;
    decoded.apply_to(again);
    EXPECT_EQ(again, page);
  }
}

// The reference: runs of changed words found one word at a time, encoded as Diff documents them
// (first word, word count, the words' bytes). The scan itself compares 16 bytes at a time.
std::vector<std::byte> reference_encoding(const std::vector<std::byte>& twin,
                                          const std::vector<std::byte>& page, std::size_t ws) {
  std::vector<std::byte> out;
  const auto put = [&](std::uint32_t v) {
    std::array<std::byte, 4> b{};
    std::memcpy(b.data(), &v, b.size());
    out.insert(out.end(), b.begin(), b.end());
  };
  const std::size_t n = page.size() / ws;
  for (std::size_t w = 0; w < n;) {
    if (std::memcmp(&twin[w * ws], &page[w * ws], ws) == 0) {
      ++w;
      continue;
    }
    const std::size_t first = w;
    while (w < n && std::memcmp(&twin[w * ws], &page[w * ws], ws) != 0) ++w;
    put(static_cast<std::uint32_t>(first));
    put(static_cast<std::uint32_t>(w - first));
    out.insert(out.end(), page.begin() + static_cast<std::ptrdiff_t>(first * ws),
               page.begin() + static_cast<std::ptrdiff_t>(w * ws));
  }
  return out;
}

TEST(Diff, RunsMatchAWordByWordScanForEveryPattern) {
  std::mt19937 rng(11);
  for (std::size_t ws : {4U, 8U}) {
    for (int trial = 0; trial < 3000; ++trial) {
      // Sizes that are and are not multiples of the 16-byte blocks, down to a single word.
      const std::size_t words = 1 + rng() % (trial % 2 ? 40 : 1024);
      std::vector<std::byte> twin(words * ws);
      for (auto& b : twin) b = std::byte(rng() & 0xff);
      auto page = twin;
      switch (trial % 6) {
        case 0:  // a few bytes anywhere (a changed byte changes its word only)
          for (int k = 0; k < 5; ++k) page[rng() % page.size()] ^= std::byte{0x5a};
          break;
        case 1:  // every word rewritten, some bytes of a word by chance unchanged
          for (std::size_t i = 0; i < page.size(); ++i)
            if (i % 3 != 0) page[i] ^= std::byte(1 + rng() % 255);
          break;
        case 2:  // alternate words
          for (std::size_t w = 0; w < words; w += 2) page[w * ws + rng() % ws] ^= std::byte{1};
          break;
        case 3: {  // one long run at a random place
          const std::size_t a = rng() % words;
          const std::size_t b = a + rng() % (words - a) + 1;
          for (std::size_t w = a; w < b; ++w) page[w * ws + ws - 1] ^= std::byte{0x80};
          break;
        }
        case 4:  // random words, random density
          for (std::size_t w = 0; w < words; ++w)
            if (rng() % 4 == 0) page[w * ws + rng() % ws] ^= std::byte{0xff};
          break;
        default:  // unchanged
          break;
      }
      const Diff d = Diff::between(twin, page, static_cast<int>(ws));
      const auto expected = reference_encoding(twin, page, ws);
      ASSERT_EQ(std::vector<std::byte>(d.encoded().begin(), d.encoded().end()), expected)
          << "word size " << ws << ", " << words << " words, pattern " << trial % 6 << ", trial " << trial;
    }
  }
}

TEST(Diff, DisjointDiffsCommute) {
  const auto twin = bytes(128);
  auto a = twin;
  auto b = twin;
  a[0] = std::byte{1};
  b[100] = std::byte{2};
  const Diff da = Diff::between(twin, a, 4);
  const Diff db = Diff::between(twin, b, 4);
  auto ab = twin;
  da.apply_to(ab);
  db.apply_to(ab);
  auto ba = twin;
  db.apply_to(ba);
  da.apply_to(ba);
  EXPECT_EQ(ab, ba);
  EXPECT_EQ(ab[0], std::byte{1});
  EXPECT_EQ(ab[100], std::byte{2});
}

// A recycled buffer (with old contents and capacity) gives the same diff as a fresh one, for every
// word size, including the compile-time 4 and 8 and a generic one.
TEST(Diff, RecycledStorageGivesTheSameDiff) {
  std::mt19937 rng(5);
  for (int word : {2, 4, 8, 16}) {
    auto twin = bytes(4096);
    for (auto& b : twin) b = std::byte(static_cast<std::uint8_t>(rng()));
    auto page = twin;
    for (int k = 0; k < 300; ++k) page[rng() % page.size()] = std::byte(static_cast<std::uint8_t>(rng()));
    const Diff fresh = Diff::between(twin, page, word);
    std::vector<std::byte> old = bytes(10000, 0xAB);
    const auto* old_data = old.data();
    Diff reused = Diff::between(twin, page, word, std::move(old));
    EXPECT_EQ(reused.runs(), fresh.runs()) << word;
    EXPECT_EQ(reused.words(), fresh.words()) << word;
    ASSERT_EQ(reused.encoded_bytes(), fresh.encoded_bytes()) << word;
    EXPECT_EQ(std::memcmp(reused.encoded().data(), fresh.encoded().data(), fresh.encoded_bytes()), 0) << word;
    EXPECT_EQ(reused.encoded().data(), old_data) << "the buffer is reused, not reallocated";
    auto result = twin;
    reused.apply_to(result);
    EXPECT_EQ(result, page) << word;
    std::vector<std::byte> back = std::move(reused).take_storage();
    EXPECT_EQ(back.data(), old_data);
    EXPECT_TRUE(reused.empty());  // NOLINT(bugprone-use-after-move): take_storage leaves it empty
  }
}

TEST(Diff, MalformedInputIsRejected) {
  EXPECT_THROW(Diff::between(bytes(8), bytes(12), 4), std::invalid_argument);
  EXPECT_THROW(Diff::decode(bytes(5), 4), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::dsm
