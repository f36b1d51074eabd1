// Diff::size_and_copy: a diff's word and run counts together with the copy of the page that will be
// its next twin, in one pass. A page's first write in an interval needs both (the previous
// interval's diff is charged by its size at once; its encoding is seldom asked for), and the pass
// reads the page once instead of three times (scan, encode, copy).
#include <cstring>
#include <stdexcept>

#include "lrc/diff.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ncp2::lrc {

namespace {

// Counts changed words one at a time, `changed_before`: the word before `from` changed. For the
// word sizes without a block pass and for a page's last words.
void count_changed_words(const std::byte* twin, const std::byte* page, std::byte* copy, std::size_t ws,
                         std::size_t from, std::size_t to, bool changed_before, DiffSize& size) {
  std::memcpy(copy + from * ws, page + from * ws, (to - from) * ws);
  for (std::size_t w = from; w < to; ++w) {
    const bool changed = std::memcmp(twin + w * ws, page + w * ws, ws) != 0;
    size.words += changed ? 1 : 0;
    size.runs += changed && !changed_before ? 1 : 0;
    changed_before = changed;
  }
}

// Set bits of a word (std::popcount is a libgcc call without -mpopcnt; this is a few instructions).
std::size_t set_bits(std::uint64_t x) {
  x -= (x >> 1) & 0x5555'5555'5555'5555ULL;
  x = (x & 0x3333'3333'3333'3333ULL) + ((x >> 2) & 0x3333'3333'3333'3333ULL);
  x = (x + (x >> 4)) & 0x0f0f'0f0f'0f0f'0f0fULL;
  return static_cast<std::size_t>((x * 0x0101'0101'0101'0101ULL) >> 56);
}

#ifdef __SSE2__
// 64 words per step: 16-byte blocks compared by 32-bit lanes (a word of 8 bytes is unchanged iff
// both its lanes are) give a 64-bit set of changed words; its bits count the words, and the bits
// not preceded by a set bit count the runs' starts.
template <std::size_t W>
DiffSize size_and_copy_blocks(const std::byte* twin, const std::byte* page, std::byte* copy, std::size_t n) {
  static_assert(W == 4 || W == 8);
  constexpr std::size_t kBlockWords = 16 / W;
  DiffSize size;
  std::uint64_t carry = 0;  // the previous step's last word changed
  std::size_t w = 0;
  for (; w + 64 <= n; w += 64) {
    std::uint64_t equal = 0;
    for (std::size_t b = 0; b < 64; b += kBlockWords) {
      const std::size_t at = (w + b) * W;
      const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin + at));
      const __m128i p = _mm_loadu_si128(reinterpret_cast<const __m128i*>(page + at));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(copy + at), p);
      auto lanes = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(t, p))));
      if constexpr (W == 8) {
        const unsigned pairs = lanes & (lanes >> 1);
        lanes = (pairs & 1U) | ((pairs >> 1) & 2U);
      }
      equal |= std::uint64_t{lanes} << b;
    }
    const std::uint64_t changed = ~equal;
    size.words += set_bits(changed);
    size.runs += set_bits(changed & ~((changed << 1) | carry));
    carry = changed >> 63;
  }
  count_changed_words(twin, page, copy, W, w, n, carry != 0, size);
  return size;
}
#endif

}  // namespace

DiffSize Diff::size_and_copy(std::span<const std::byte> twin, std::span<const std::byte> page, int word_size,
                             std::span<std::byte> copy) {
  if (twin.size() != page.size() || copy.size() != page.size() || word_size <= 0 ||
      page.size() % static_cast<std::size_t>(word_size) != 0)
    throw std::invalid_argument(
        "Diff::size_and_copy: page, twin and copy must have the same size, a multiple of the word");
  const auto ws = static_cast<std::size_t>(word_size);
  const std::size_t n = page.size() / ws;
  if (n == 0) return {};
#ifdef __SSE2__
  if (ws == 4) return size_and_copy_blocks<4>(twin.data(), page.data(), copy.data(), n);
  if (ws == 8) return size_and_copy_blocks<8>(twin.data(), page.data(), copy.data(), n);
#endif
  DiffSize size;
  count_changed_words(twin.data(), page.data(), copy.data(), ws, 0, n, false, size);
  return size;
}

}  // namespace ncp2::lrc
