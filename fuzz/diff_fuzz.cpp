// Fuzz target: the diff codec (lrc/diff.hpp) against a plain reference. The input is a header
// (word size, page size), a twin, a page and, after them, arbitrary bytes taken as an encoded diff
// from the wire. Checks: the diff of twin and page applied to the twin gives the page; its runs
// are exactly the reference's runs of changed words; decode and the counting functions agree with
// it; a malformed encoding is refused with std::invalid_argument / std::out_of_range, and a
// well-formed one writes what the reference interpreter writes.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "lrc/diff.hpp"

namespace {

using Bytes = std::vector<std::byte>;
using ncp2::fuzz::check;
using ncp2::lrc::Diff;

constexpr std::array<int, 6> kWordSizes = {4, 8, 1, 2, 3, 16};

// The reference: runs of consecutive words with some byte changed.
struct RefRuns {
  std::size_t runs = 0;
  std::size_t words = 0;
};
RefRuns reference_runs(std::span<const std::byte> twin, std::span<const std::byte> page, std::size_t ws) {
  RefRuns r;
  bool in_run = false;
  for (std::size_t w = 0; w < page.size() / ws; ++w) {
    const bool changed = std::memcmp(twin.data() + w * ws, page.data() + w * ws, ws) != 0;
    if (changed && !in_run) ++r.runs;
    r.words += changed ? 1 : 0;
    in_run = changed;
  }
  return r;
}

std::uint32_t u32_at(std::span<const std::byte> in, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, in.data() + at, 4);
  return v;
}

// The reference interpreter of the documented format, byte by byte; nullopt if malformed.
std::optional<Bytes> reference_apply(std::span<const std::byte> enc, Bytes page, std::size_t ws) {
  std::size_t at = 0;
  while (at < enc.size()) {
    if (enc.size() - at < 8) return std::nullopt;
    const std::uint64_t first = u32_at(enc, at);
    const std::uint32_t raw = u32_at(enc, at + 4);
    const std::uint64_t count = raw & 0x7fff'ffffU;
    const bool masked = (raw & 0x8000'0000U) != 0;
    at += 8;
    const std::uint64_t len = count * ws;
    const std::uint64_t mask = masked ? (len + 7) / 8 : 0;
    if ((first + count) * ws > page.size() || len + mask > enc.size() - at) return std::nullopt;
    for (std::uint64_t i = 0; i < len; ++i) {
      const bool write = !masked || ((std::to_integer<unsigned>(enc[at + len + i / 8]) >> (i % 8)) & 1U);
      if (write) page[first * ws + i] = enc[at + i];
    }
    at += len + mask;
  }
  return page;
}

void check_between(std::span<const std::byte> twin, std::span<const std::byte> page, int word_size) {
  const auto ws = static_cast<std::size_t>(word_size);
  const Diff d = Diff::between(twin, page, word_size);
  Bytes applied(twin.begin(), twin.end());
  d.apply_to(applied);
  check(std::equal(applied.begin(), applied.end(), page.begin(), page.end()), "twin + diff != page");
  const RefRuns ref = reference_runs(twin, page, ws);
  check(d.runs() == ref.runs && d.words() == ref.words, "runs differ from the reference");
  check(d.modeled_bytes() == ref.runs * 8 + ref.words * ws, "modeled_bytes");
  check(Diff::modeled_bytes_of(d.encoded(), word_size) == d.modeled_bytes(), "modeled_bytes_of");
  check(Diff::count_words(d.encoded(), word_size) == d.words(), "count_words");
  const Diff decoded = Diff::decode(d.encoded(), word_size);
  check(decoded.runs() == d.runs() && decoded.words() == d.words(), "decode");
  const auto ref_applied = reference_apply(d.encoded(), Bytes(twin.begin(), twin.end()), ws);
  check(ref_applied && *ref_applied == applied, "the reference reads the encoding differently");
}

// An encoding from the wire: refused cleanly or applied as the reference applies it.
void check_foreign(std::span<const std::byte> enc, std::span<const std::byte> twin, int word_size) {
  const auto ws = static_cast<std::size_t>(word_size);
  Diff::count_words(enc, word_size);
  Diff::modeled_bytes_of(enc, word_size);
  try {
    Diff::decode(enc, word_size);
  } catch (const std::invalid_argument&) {
  }
  const auto expected = reference_apply(enc, Bytes(twin.begin(), twin.end()), ws);
  Bytes page(twin.begin(), twin.end());
  try {
    Diff::apply_encoded(enc, page, word_size);
  } catch (const std::invalid_argument&) {
    check(!expected, "a valid encoding refused (invalid_argument)");
    return;
  } catch (const std::out_of_range&) {
    check(!expected, "a valid encoding refused (out_of_range)");
    return;
  }
  check(expected && *expected == page, "a malformed encoding accepted, or applied differently");
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int word_size = kWordSizes.at(data[0] % kWordSizes.size());
  const auto ws = static_cast<std::size_t>(word_size);
  // Up to 1024 words: a 4 KB page of 4-byte words, and room for the block scans' tails.
  const std::size_t page_bytes = (((std::size_t{data[1]} << 8) | data[2]) % 1025) * ws;
  const auto* body = reinterpret_cast<const std::byte*>(data + 3);
  const std::size_t body_size = size - 3;
  // Twin and page from the input, zeros where it ends: most of a page is usually unchanged.
  Bytes twin(page_bytes);
  Bytes page(page_bytes);
  std::copy_n(body, std::min(body_size, page_bytes), twin.begin());
  if (body_size > page_bytes)
    std::copy_n(body + page_bytes, std::min(body_size - page_bytes, page_bytes), page.begin());
  check_between(twin, page, word_size);
  if (body_size > 2 * page_bytes)
    check_foreign(std::span(body + 2 * page_bytes, body_size - 2 * page_bytes), twin, word_size);
  return 0;
}
