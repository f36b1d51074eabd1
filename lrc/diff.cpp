#include "lrc/diff.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ncp2::lrc {

namespace {
// A run's header: its first word and its word count (with the mask flag).
void put_header(std::vector<std::byte>& out, std::uint32_t first, std::uint32_t count) {
  std::array<std::byte, 8> b{};
  std::memcpy(b.data(), &first, 4);
  std::memcpy(b.data() + 4, &count, 4);
  out.insert(out.end(), b.begin(), b.end());
}
std::uint32_t get_u32(std::span<const std::byte> in, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, in.data() + at, 4);
  return v;
}

// Bit 31 of a run's word count: a byte mask follows the run's words.
constexpr std::uint32_t kMasked = 0x8000'0000U;
// The masks are built 16 bits (16 bytes of a run) at a time and stored as native u16s: the
// encoding's bit order (byte i of the run is bit i % 8 of mask byte i / 8) needs little-endian.
static_assert(std::endian::native == std::endian::little, "diff masks are built little-endian");

std::size_t mask_bytes(std::size_t run_bytes) { return (run_bytes + 7) / 8; }

// A run's header: its words, and the bytes it takes after the header (words, then any mask).
struct Run {
  std::size_t first;
  std::size_t count;
  bool masked;
  std::size_t bytes;
};
Run read_run(std::span<const std::byte> in, std::size_t at, std::size_t ws) {
  const std::uint32_t raw = get_u32(in, at + 4);
  const std::size_t count = raw & ~kMasked;
  const bool masked = (raw & kMasked) != 0;
  return {get_u32(in, at), count, masked, count * ws + (masked ? mask_bytes(count * ws) : 0)};
}

// Byte i (0..7) all ones iff bit i of the index: a mask byte expanded to a 64-bit select mask.
constexpr std::array<std::uint64_t, 256> kExpand = [] {
  std::array<std::uint64_t, 256> t{};
  for (std::size_t m = 0; m < t.size(); ++m)
    for (std::size_t i = 0; i < 8; ++i)
      if ((m >> i) & 1U) t[m] |= std::uint64_t{0xff} << (8 * i);
  return t;
}();

// Writes the bytes of src[0, len) whose mask bit is set into dst: d ^= (d ^ s) & m, 16 (then 8)
// bytes at a time, so a run costs a few operations per 16 bytes however its changed bytes are
// spread (3 to 4 times a memcpy of the run).
void apply_masked(std::byte* dst, const std::byte* src, const std::byte* mask, std::size_t len) {
  const auto blend8 = [&](std::size_t at, std::uint64_t m) {
    std::uint64_t s;
    std::uint64_t d;
    std::memcpy(&s, src + at, 8);
    std::memcpy(&d, dst + at, 8);
    d ^= (d ^ s) & m;
    std::memcpy(dst + at, &d, 8);
  };
  std::size_t i = 0;
  // 64 bytes per 8 mask bytes read at once: the loads (data, mask, kExpand), not the arithmetic,
  // bound this loop.
  for (; i + 64 <= len; i += 64) {
    std::uint64_t bits;
    std::memcpy(&bits, mask + i / 8, 8);
#ifdef __SSE2__
    for (std::size_t k = 0; k < 64; k += 16, bits >>= 16) {
      const __m128i m =
          _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&kExpand[bits & 0xff])),
                             _mm_loadl_epi64(reinterpret_cast<const __m128i*>(&kExpand[(bits >> 8) & 0xff])));
      const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + k));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i + k));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + k),
                       _mm_xor_si128(d, _mm_and_si128(_mm_xor_si128(d, s), m)));
    }
#else
    for (std::size_t k = 0; k < 64; k += 8, bits >>= 8) blend8(i + k, kExpand[bits & 0xff]);
#endif
  }
  for (; i + 8 <= len; i += 8) blend8(i, kExpand[std::to_integer<std::size_t>(mask[i / 8])]);
  for (; i < len; ++i)
    if ((std::to_integer<unsigned>(mask[i / 8]) >> (i % 8)) & 1U) dst[i] = src[i];
}

// The changed bytes of page[from, from + len) as mask bits, 16 bytes per element of `out`; false
// if every byte changed (no mask needed). For the word sizes without a block scan.
bool run_mask(std::span<const std::byte> twin, std::span<const std::byte> page, std::size_t from,
              std::size_t len, std::uint16_t* out) {
  bool some_unchanged = false;
  for (std::size_t i = 0; i < len; i += 16) {
    unsigned bits = 0;
    for (std::size_t j = 0; j < 16 && i + j < len; ++j) {
      const bool changed = twin[from + i + j] != page[from + i + j];
      bits |= static_cast<unsigned>(changed) << j;
      some_unchanged |= !changed;
    }
    out[i / 16] = static_cast<std::uint16_t>(bits);
  }
  return some_unchanged;
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

// The runs of changed words: (first word, count, the run's byte mask or null if every byte changed),
// in order. `mask` has room for a page's mask.
template <class Same, class Emit>
void scan_runs(std::span<const std::byte> twin, std::span<const std::byte> page, std::size_t ws, Same same,
               std::uint16_t* mask, Emit&& emit) {
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
    const bool masked = run_mask(twin, page, first * ws, (w - first) * ws, mask);
    emit(first, w - first, masked ? mask : nullptr);
  }
}

#ifdef __SSE2__
// The same runs as scan_runs, 16 bytes at a time (SSE2 is part of x86-64): one compare gives the
// equality of every byte of a block (and a compare by 32-bit lanes that of each word). A fully
// rewritten page (SOR's every page, every interval) is 256 blocks instead of 1024 words.
template <std::size_t W>
class BlockScan {
 public:
  BlockScan(const std::byte* twin, const std::byte* page, std::size_t words)
      : twin_(twin), page_(page), n_(words) {}

  // Moves `w` to the next changed word; false if there is none.
  bool skip_unchanged(std::size_t& w) const {
    while (w + kBlockWords <= n_) {
      const unsigned eq = equal_bytes(w);
      if (eq != 0xffffU) {  // a changed byte, so a changed word: the first one
        w += static_cast<std::size_t>(std::countr_zero(~equal_words(eq) & kWordStarts)) / W;
        return true;
      }
      w += kBlockWords;
    }
    while (w < n_ && changed_bytes(w) == 0) ++w;
    return w < n_;
  }

  // Moves `w` from a changed word to the end of its run. mask[k] gets the changed bytes of the
  // run's k-th 16 bytes; returns false if every byte of the run changed (no mask needed).
  bool extend(std::size_t& w, std::uint16_t* mask) const {
    // Blocks whose every byte changed (fully rewritten words, the common case) are only counted:
    // their mask elements are filled in if a later byte of the run turns out unchanged.
    std::uint16_t* out = mask;
    while (w + kBlockWords <= n_ && equal_bytes(w) == 0) {
      w += kBlockWords;
      ++out;
    }
    // From the first block with an unchanged byte on, each block's changed bytes are stored. The
    // run needs a mask if it has such a block, or an unchanged byte in its last words.
    std::uint16_t* const all_changed = out;
    for (; w + kBlockWords <= n_; w += kBlockWords) {
      const auto [eq, unchanged] = equal_bytes_and_words(w);
      if (unchanged != 0) {  // the run ends before this word (maybe the block's first)
        const auto in_run = static_cast<unsigned>(std::countr_zero(unchanged)) * W;  // bytes
        const unsigned run_bits = (1U << in_run) - 1;
        *out = static_cast<std::uint16_t>(~eq & run_bits);
        w += in_run / W;
        return finish(mask, all_changed, out != all_changed || (eq & run_bits) != 0);
      }
      *out++ = static_cast<std::uint16_t>(~eq);
    }
    // The page's last words, fewer than a block: their bits make the mask's last element.
    unsigned bits = 0;
    unsigned at = 0;
    bool partial = false;
    for (unsigned changed = 0; w < n_ && (changed = changed_bytes(w)) != 0; ++w, at += W) {
      bits |= changed << at;
      partial |= changed != (1U << W) - 1;
    }
    *out = static_cast<std::uint16_t>(bits);
    return finish(mask, all_changed, out != all_changed || partial);
  }

 private:
  static constexpr std::size_t kBlockWords = 16 / W;
  static constexpr unsigned kWordStarts = W == 4 ? 0x1111U : 0x0101U;  // bit j*W: word j of a block
  static_assert(W == 4 || W == 8);

  // Bit i set iff byte i of the block at word `w` is unchanged.
  unsigned equal_bytes(std::size_t w) const {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin_ + w * W));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(page_ + w * W));
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
  }
  // The block's equal bytes (as equal_bytes) and, bit j, its equal words: one more compare, by
  // 32-bit lanes, instead of combining the byte bits (the loop over a run's blocks is hot).
  std::pair<unsigned, unsigned> equal_bytes_and_words(std::size_t w) const {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin_ + w * W));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(page_ + w * W));
    const auto bytes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
    auto lanes = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))));
    if constexpr (W == 8) {  // a word is two lanes
      const unsigned pairs = lanes & (lanes >> 1);
      lanes = (pairs & 1U) | ((pairs >> 1) & 2U);
    }
    return {bytes, lanes};
  }
  // Bit j*W set iff word j of a block is unchanged, from its bytes' equality.
  static unsigned equal_words(unsigned bytes_equal) {
    for (std::size_t shift = 1; shift < W; shift <<= 1) bytes_equal &= bytes_equal >> shift;
    return bytes_equal & kWordStarts;
  }
  // Bit i set iff byte i of word `w` changed.
  unsigned changed_bytes(std::size_t w) const {
    unsigned bits = 0;
    for (std::size_t i = 0; i < W; ++i)
      bits |= static_cast<unsigned>(twin_[w * W + i] != page_[w * W + i]) << i;
    return bits;
  }
  static bool finish(std::uint16_t* mask, std::uint16_t* all_changed, bool masked) {
    if (masked) std::fill(mask, all_changed, std::uint16_t{0xffff});
    return masked;
  }

  const std::byte* twin_;
  const std::byte* page_;
  std::size_t n_;
};

template <std::size_t W, class Emit>
void scan_runs_blocks(std::span<const std::byte> twin, std::span<const std::byte> page, std::uint16_t* mask,
                      Emit&& emit) {
  const BlockScan<W> scan(twin.data(), page.data(), page.size() / W);
  std::size_t w = 0;
  while (scan.skip_unchanged(w)) {
    const std::size_t first = w;
    const bool masked = scan.extend(w, mask);
    emit(first, w - first, masked ? mask : nullptr);
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
  if (page.size() / ws >= kMasked) throw std::invalid_argument("Diff::between: page too large");
  // The scans write a run's byte mask here (16 bytes of the run per element); one per thread, so
  // no allocation per diff.
  thread_local std::vector<std::uint16_t> mask;
  if (mask.size() < page.size() / 16 + 1) mask.resize(page.size() / 16 + 1);
  const auto emit = [&](std::size_t first, std::size_t count, const std::uint16_t* bits) {
    // Room for the whole run (header, words, mask) at once: a fully rewritten page is one allocation
    // (a run's mask would otherwise make the vector grow a second time, copying the words).
    const std::size_t mask_size = bits ? mask_bytes(count * ws) : 0;
    const std::size_t need = d.encoded_.size() + 8 + count * ws + mask_size;
    if (need > d.encoded_.capacity())
      d.encoded_.reserve(std::max({need, 2 * d.encoded_.capacity(), page.size() / 4}));
    put_header(d.encoded_, static_cast<std::uint32_t>(first),
               static_cast<std::uint32_t>(count) | (bits ? kMasked : 0));
    d.encoded_.insert(d.encoded_.end(), page.begin() + static_cast<std::ptrdiff_t>(first * ws),
                      page.begin() + static_cast<std::ptrdiff_t>((first + count) * ws));
    if (bits) {
      const auto* m = reinterpret_cast<const std::byte*>(bits);
      d.encoded_.insert(d.encoded_.end(), m, m + mask_size);
    }
    ++d.runs_;
    d.words_ += count;
  };
  switch (ws) {
#ifdef __SSE2__
    case 4:
      scan_runs_blocks<4>(twin, page, mask.data(), emit);
      break;
    case 8:
      scan_runs_blocks<8>(twin, page, mask.data(), emit);
      break;
#else
    case 4:
      scan_runs(twin, page, ws, FixedWord<4>{}, mask.data(), emit);
      break;
    case 8:
      scan_runs(twin, page, ws, FixedWord<8>{}, mask.data(), emit);
      break;
#endif
    default:
      scan_runs(twin, page, ws, AnyWord{ws}, mask.data(), emit);
      break;
  }
  return d;
}

void Diff::apply_to(std::span<std::byte> page) const { apply_encoded(encoded_, page, word_size_); }

std::size_t Diff::count_words(std::span<const std::byte> encoded, int word_size) {
  std::size_t at = 0;
  std::size_t words = 0;
  while (at + 8 <= encoded.size()) {
    const Run run = read_run(encoded, at, static_cast<std::size_t>(word_size));
    at += 8 + run.bytes;
    words += run.count;
  }
  return words;
}

std::size_t Diff::modeled_bytes_of(std::span<const std::byte> encoded, int word_size) {
  const auto ws = static_cast<std::size_t>(word_size);
  std::size_t modeled = 0;
  std::size_t at = 0;
  while (at + 8 <= encoded.size()) {
    const Run run = read_run(encoded, at, ws);
    at += 8 + run.bytes;
    modeled += 8 + run.count * ws;
  }
  return modeled;
}

std::size_t Diff::apply_encoded(std::span<const std::byte> encoded, std::span<std::byte> page,
                                int word_size) {
  const auto ws = static_cast<std::size_t>(word_size);
  std::size_t at = 0;
  std::size_t words = 0;
  while (at < encoded.size()) {
    if (at + 8 > encoded.size()) throw std::invalid_argument("malformed diff encoding");
    const Run run = read_run(encoded, at, ws);
    at += 8;
    if ((run.first + run.count) * ws > page.size() || at + run.bytes > encoded.size())
      throw std::out_of_range("diff run beyond the page or the encoding");
    std::byte* dst = page.data() + run.first * ws;
    // A run of no words writes nothing (and an empty page's data() may be null: no memcpy).
    if (run.count == 0) {
      at += run.bytes;
      continue;
    }
    if (run.masked)
      apply_masked(dst, encoded.data() + at, encoded.data() + at + run.count * ws, run.count * ws);
    else
      std::memcpy(dst, encoded.data() + at, run.count * ws);
    at += run.bytes;
    words += run.count;
  }
  return words;
}

Diff Diff::decode(std::span<const std::byte> bytes, int word_size) {
  Diff d;
  d.word_size_ = word_size;
  d.encoded_.assign(bytes.begin(), bytes.end());
  std::size_t at = 0;
  while (at + 8 <= bytes.size()) {
    const Run run = read_run(bytes, at, static_cast<std::size_t>(word_size));
    at += 8 + run.bytes;
    ++d.runs_;
    d.words_ += run.count;
  }
  if (at != bytes.size()) throw std::invalid_argument("malformed diff encoding");
  return d;
}

}  // namespace ncp2::lrc
