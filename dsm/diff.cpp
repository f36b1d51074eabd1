#include "dsm/diff.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ncp2::dsm {

namespace {
void put_u32(std::vector<std::byte>& out, std::uint32_t v) {
  std::array<std::byte, 4> b{};
  std::memcpy(b.data(), &v, 4);
  out.insert(out.end(), b.begin(), b.end());
}
std::uint32_t get_u32(std::span<const std::byte> in, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, in.data() + at, 4);
  return v;
}
}  // namespace

namespace {

// Word comparison with the word size known at compile time: one load per side instead of a call
// to memcmp per word (a diff of a fully rewritten page is 1024 comparisons).
template <std::size_t W>
struct FixedWord {
  bool operator()(const std::byte* a, const std::byte* b) const {
    if constexpr (W == 4 || W == 8) {
      using U = std::conditional_t<W == 4, std::uint32_t, std::uint64_t>;
      U x;
      U y;
      std::memcpy(&x, a, W);
      std::memcpy(&y, b, W);
      return x == y;
    } else {
      return std::memcmp(a, b, W) == 0;
    }
  }
};

struct AnyWord {
  std::size_t size;
  bool operator()(const std::byte* a, const std::byte* b) const { return std::memcmp(a, b, size) == 0; }
};

// The runs of changed words: (first word, count), in order.
template <class Same, class Emit>
void scan_runs(std::span<const std::byte> twin, std::span<const std::byte> page, std::size_t ws, Same same,
               Emit&& emit) {
  const std::size_t n = page.size() / ws;
  // Skip unchanged stretches 8 bytes at a time (most of a page is usually unchanged).
  const std::size_t words_per_chunk = ws <= 8 && 8 % ws == 0 ? 8 / ws : 1;
  auto chunk_equal = [&](std::size_t word) {
    std::uint64_t a;
    std::uint64_t b;
    std::memcpy(&a, twin.data() + word * ws, 8);
    std::memcpy(&b, page.data() + word * ws, 8);
    return a == b;
  };
  std::size_t w = 0;
  while (w < n) {
    if (words_per_chunk > 1 && w % words_per_chunk == 0 && w + words_per_chunk <= n && chunk_equal(w)) {
      w += words_per_chunk;
      continue;
    }
    if (same(twin.data() + w * ws, page.data() + w * ws)) {
      ++w;
      continue;
    }
    const std::size_t first = w;
    while (w < n && !same(twin.data() + w * ws, page.data() + w * ws)) ++w;
    emit(first, w - first);
  }
}

#ifdef __SSE2__
// The same runs as scan_runs, 16 bytes at a time (SSE2 is part of x86-64): one compare gives the
// equality of every byte of a block, and a few shifts of its mask the equality of each word. A
// fully rewritten page (SOR's every page, every interval) is 256 blocks instead of 1024 words.
template <std::size_t W, class Emit>
void scan_runs_blocks(std::span<const std::byte> twin, std::span<const std::byte> page, Emit&& emit) {
  static_assert(W == 4 || W == 8);
  constexpr std::size_t kBlockWords = 16 / W;
  constexpr unsigned kWordStarts = W == 4 ? 0x1111U : 0x0101U;  // bit j*W: word j of the block
  const std::size_t n = page.size() / W;
  // Bit j*W set iff word j of the block at word `w` is unchanged.
  const auto equal_words = [&](std::size_t w) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin.data() + w * W));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(page.data() + w * W));
    auto bytes_equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
    for (std::size_t shift = 1; shift < W; shift <<= 1) bytes_equal &= bytes_equal >> shift;
    return bytes_equal & kWordStarts;
  };
  const auto word_equal = [&](std::size_t w) {
    return std::memcmp(twin.data() + w * W, page.data() + w * W, W) == 0;
  };
  std::size_t w = 0;
  while (w < n) {
    // Skip unchanged words to the first changed one.
    bool found = false;
    while (w + kBlockWords <= n) {
      const unsigned changed = ~equal_words(w) & kWordStarts;
      if (changed == 0) {
        w += kBlockWords;
        continue;
      }
      w += static_cast<std::size_t>(std::countr_zero(changed)) / W;
      found = true;
      break;
    }
    if (!found) {
      while (w < n && word_equal(w)) ++w;
      if (w == n) return;
    }
    // Extend the run of changed words to the next unchanged one.
    const std::size_t first = w++;
    bool ended = false;
    while (w + kBlockWords <= n) {
      const unsigned unchanged = equal_words(w);
      if (unchanged == 0) {
        w += kBlockWords;
        continue;
      }
      w += static_cast<std::size_t>(std::countr_zero(unchanged)) / W;
      ended = true;
      break;
    }
    if (!ended)
      while (w < n && !word_equal(w)) ++w;
    emit(first, w - first);
  }
}
#endif

}  // namespace

Diff Diff::between(std::span<const std::byte> twin, std::span<const std::byte> page, int word_size) {
  return between(twin, page, word_size, {});
}

Diff Diff::between(std::span<const std::byte> twin, std::span<const std::byte> page, int word_size,
                   std::vector<std::byte> storage) {
  if (twin.size() != page.size() || word_size <= 0 || page.size() % static_cast<std::size_t>(word_size) != 0)
    throw std::invalid_argument(
        "Diff::between: page and twin must have the same size, a multiple of the word");
  Diff d;
  d.word_size_ = word_size;
  storage.clear();
  d.encoded_ = std::move(storage);
  const auto ws = static_cast<std::size_t>(word_size);
  const auto emit = [&](std::size_t first, std::size_t count) {
    if (d.encoded_.empty()) d.encoded_.reserve(page.size() / 4);  // one allocation for most diffs
    put_u32(d.encoded_, static_cast<std::uint32_t>(first));
    put_u32(d.encoded_, static_cast<std::uint32_t>(count));
    d.encoded_.insert(d.encoded_.end(), page.begin() + static_cast<std::ptrdiff_t>(first * ws),
                      page.begin() + static_cast<std::ptrdiff_t>((first + count) * ws));
    ++d.runs_;
    d.words_ += count;
  };
  switch (ws) {
#ifdef __SSE2__
    case 4:
      scan_runs_blocks<4>(twin, page, emit);
      break;
    case 8:
      scan_runs_blocks<8>(twin, page, emit);
      break;
#else
    case 4:
      scan_runs(twin, page, ws, FixedWord<4>{}, emit);
      break;
    case 8:
      scan_runs(twin, page, ws, FixedWord<8>{}, emit);
      break;
#endif
    default:
      scan_runs(twin, page, ws, AnyWord{ws}, emit);
      break;
  }
  return d;
}

void Diff::apply_to(std::span<std::byte> page) const { apply_encoded(encoded_, page, word_size_); }

std::size_t Diff::count_words(std::span<const std::byte> encoded, int word_size) {
  std::size_t at = 0;
  std::size_t words = 0;
  while (at + 8 <= encoded.size()) {
    const std::size_t count = get_u32(encoded, at + 4);
    at += 8 + count * static_cast<std::size_t>(word_size);
    words += count;
  }
  return words;
}

std::size_t Diff::apply_encoded(std::span<const std::byte> encoded, std::span<std::byte> page,
                                int word_size) {
  const auto ws = static_cast<std::size_t>(word_size);
  std::size_t at = 0;
  std::size_t words = 0;
  while (at < encoded.size()) {
    if (at + 8 > encoded.size()) throw std::invalid_argument("malformed diff encoding");
    const std::size_t first = get_u32(encoded, at);
    const std::size_t count = get_u32(encoded, at + 4);
    at += 8;
    if ((first + count) * ws > page.size() || at + count * ws > encoded.size())
      throw std::out_of_range("diff run beyond the page");
    std::memcpy(page.data() + first * ws, encoded.data() + at, count * ws);
    at += count * ws;
    words += count;
  }
  return words;
}

Diff Diff::decode(std::span<const std::byte> bytes, int word_size) {
  Diff d;
  d.word_size_ = word_size;
  d.encoded_.assign(bytes.begin(), bytes.end());
  std::size_t at = 0;
  while (at + 8 <= bytes.size()) {
    const std::size_t count = get_u32(bytes, at + 4);
    at += 8 + count * static_cast<std::size_t>(word_size);
    ++d.runs_;
    d.words_ += count;
  }
  if (at != bytes.size()) throw std::invalid_argument("malformed diff encoding");
  return d;
}

}  // namespace ncp2::dsm
