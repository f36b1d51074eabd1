#include <array>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "lrc/diff.hpp"

namespace ncp2::lrc {
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
  EXPECT_EQ(d.modeled_bytes(), 2 * 8 + 4 * 4u);
  // Words 2..4 changed in every byte: no mask; word 10 in one byte: a one-byte mask.
  EXPECT_EQ(d.encoded_bytes(), 2 * 8 + 4 * 4u + 1);
}

TEST(Diff, FullyRewrittenWordsNeedNoMask) {
  const auto twin = bytes(4096, 0x11);
  const auto page = bytes(4096, 0x22);
  const Diff d = Diff::between(twin, page, 4);
  EXPECT_EQ(d.runs(), 1u);
  EXPECT_EQ(d.encoded_bytes(), 8 + 4096u);
  EXPECT_EQ(d.encoded_bytes(), d.modeled_bytes());
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
// (first word, word count with bit 31 set if a byte of the run is unchanged, the words' bytes, then
// in that case one mask bit per byte). The scan itself compares 16 bytes at a time for word sizes 4
// and 8 (2 and 16 take the generic path). `modeled` gets the size of the plain word-run encoding
// (without masks).
std::vector<std::byte> reference_encoding(const std::vector<std::byte>& twin,
                                          const std::vector<std::byte>& page, std::size_t ws,
                                          std::size_t* modeled = nullptr) {
  std::vector<std::byte> out;
  const auto put = [&](std::uint32_t v) {
    std::array<std::byte, 4> b{};
    std::memcpy(b.data(), &v, b.size());
    out.insert(out.end(), b.begin(), b.end());
  };
  const std::size_t n = page.size() / ws;
  std::size_t plain = 0;
  for (std::size_t w = 0; w < n;) {
    if (std::memcmp(&twin[w * ws], &page[w * ws], ws) == 0) {
      ++w;
      continue;
    }
    const std::size_t first = w;
    while (w < n && std::memcmp(&twin[w * ws], &page[w * ws], ws) != 0) ++w;
    std::vector<std::byte> mask((w - first) * ws / 8 + ((w - first) * ws % 8 != 0), std::byte{0});
    bool partial = false;
    for (std::size_t i = 0; i < (w - first) * ws; ++i) {
      if (twin[first * ws + i] != page[first * ws + i])
        mask[i / 8] |= std::byte{static_cast<unsigned char>(1U << (i % 8))};
      else
        partial = true;
    }
    put(static_cast<std::uint32_t>(first));
    put(static_cast<std::uint32_t>(w - first) | (partial ? 0x8000'0000U : 0U));
    out.insert(out.end(), page.begin() + static_cast<std::ptrdiff_t>(first * ws),
               page.begin() + static_cast<std::ptrdiff_t>(w * ws));
    if (partial) out.insert(out.end(), mask.begin(), mask.end());
    plain += 8 + (w - first) * ws;
  }
  if (modeled) *modeled = plain;
  return out;
}

TEST(Diff, RunsMatchAWordByWordScanForEveryPattern) {
  std::mt19937 rng(11);
  for (std::size_t ws : {4U, 8U, 2U, 16U}) {
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
      std::size_t modeled = 0;
      const auto expected = reference_encoding(twin, page, ws, &modeled);
      ASSERT_EQ(std::vector<std::byte>(d.encoded().begin(), d.encoded().end()), expected)
          << "word size " << ws << ", " << words << " words, pattern " << trial % 6 << ", trial " << trial;
      // The modelled size is the word-run encoding's, whatever the masks add.
      ASSERT_EQ(d.modeled_bytes(), modeled);
      ASSERT_EQ(Diff::modeled_bytes_of(d.encoded(), static_cast<int>(ws)), modeled);
      auto rebuilt = twin;
      ASSERT_EQ(Diff::apply_encoded(d.encoded(), rebuilt, static_cast<int>(ws)), d.words());
      ASSERT_EQ(rebuilt, page);
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

// Two writers of the same page from the same twin, changing disjoint sets of bytes that share
// words (node p of n writes the bytes i with i % n == p, or a random split): applying both diffs,
// in either order, onto the twin or onto the other writer's page gives every write.
TEST(Diff, ConcurrentDiffsOfDifferentBytesOfTheSameWordsKeepEveryByte) {
  std::mt19937 rng(3);
  for (int word : {2, 4, 8, 16}) {
    for (int split = 0; split < 4; ++split) {
      auto twin = bytes(4096);
      for (auto& b : twin) b = std::byte(static_cast<std::uint8_t>(rng()));
      auto a = twin;
      auto b = twin;
      auto both = twin;
      for (std::size_t i = 0; i < twin.size(); ++i) {
        const bool to_a = split == 3 ? rng() % 2 == 0 : i % static_cast<std::size_t>(split + 2) == 0;
        if (split == 3 && rng() % 3 == 0) continue;  // some bytes written by neither
        auto& mine = to_a ? a : b;
        mine[i] = twin[i] ^ std::byte{0x5a};
        both[i] = mine[i];
      }
      const Diff da = Diff::between(twin, a, word);
      const Diff db = Diff::between(twin, b, word);
      auto ab = twin;
      da.apply_to(ab);
      db.apply_to(ab);
      auto ba = twin;
      db.apply_to(ba);
      da.apply_to(ba);
      EXPECT_EQ(ab, both) << "word " << word << ", split " << split;
      EXPECT_EQ(ba, both) << "word " << word << ", split " << split;
      auto onto_b = b;  // the second writer's own copy, receiving the first's diff
      da.apply_to(onto_b);
      EXPECT_EQ(onto_b, both) << "word " << word << ", split " << split;
      EXPECT_GT(da.encoded_bytes(), da.modeled_bytes()) << "partly changed words carry a mask";
    }
  }
}

// A masked run in the middle of a page restores exactly its changed bytes: the neighbours of
// each changed byte, also inside its word, keep what the target page has there.
TEST(Diff, AMaskedRunWritesOnlyTheChangedBytes) {
  const auto twin = bytes(64, 0x00);
  auto page = twin;
  page[17] = std::byte{0xaa};  // word 4, byte 1
  page[22] = std::byte{0xbb};  // word 5, byte 2
  const Diff d = Diff::between(twin, page, 4);
  ASSERT_EQ(d.runs(), 1u);
  ASSERT_EQ(d.words(), 2u);
  ASSERT_EQ(d.encoded_bytes(), 8 + 8 + 1u);
  std::uint32_t count;
  std::memcpy(&count, d.encoded().data() + 4, 4);
  EXPECT_EQ(count, 0x8000'0002U) << "word count 2 with the mask flag";
  EXPECT_EQ(d.encoded()[16], std::byte{0b0100'0010}) << "bytes 1 and 6 of the run";
  auto target = bytes(64, 0x77);
  d.apply_to(target);
  auto expected = bytes(64, 0x77);
  expected[17] = std::byte{0xaa};
  expected[22] = std::byte{0xbb};
  EXPECT_EQ(target, expected);
}

TEST(Diff, MalformedInputIsRejected) {
  EXPECT_THROW(Diff::between(bytes(8), bytes(12), 4), std::invalid_argument);
  EXPECT_THROW(Diff::decode(bytes(5), 4), std::invalid_argument);
}

TEST(Diff, MalformedMaskedRunsAreRejected) {
  const auto twin = bytes(256);
  auto page = twin;
  for (std::size_t i = 100; i < 140; i += 3) page[i] = std::byte{1};  // one run of partly changed words
  const Diff d = Diff::between(twin, page, 4);
  ASSERT_EQ(d.runs(), 1u);
  const std::vector<std::byte> whole(d.encoded().begin(), d.encoded().end());
  ASSERT_EQ(whole.size(), 8 + d.words() * 4 + (d.words() * 4 + 7) / 8);
  // The mask cut short, or missing entirely.
  for (const std::size_t cut : {std::size_t{1}, (d.words() * 4 + 7) / 8}) {
    const std::vector<std::byte> truncated(whole.begin(), whole.end() - static_cast<std::ptrdiff_t>(cut));
    EXPECT_THROW(Diff::decode(truncated, 4), std::invalid_argument) << cut;
    auto target = twin;
    EXPECT_THROW(Diff::apply_encoded(truncated, target, 4), std::out_of_range) << cut;
  }
  // A masked run past the page's end.
  auto shifted = whole;
  const std::uint32_t first = 60;
  std::memcpy(shifted.data(), &first, 4);
  auto target = twin;
  EXPECT_THROW(Diff::apply_encoded(shifted, target, 4), std::out_of_range);
}

}  // namespace
}  // namespace ncp2::lrc
