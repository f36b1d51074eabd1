// The policies' names (lrc/config.hpp): as configuration values (dsm.first_touch, dsm.gc_copies).
#include "lrc/config.hpp"

#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::lrc {

std::string_view to_string(FirstTouch f) { return f == FirstTouch::FromHome ? "home" : "zero"; }
std::string_view to_string(GcCopies g) { return g == GcCopies::LastWriter ? "last-writer" : "validate-all"; }

std::optional<FirstTouch> first_touch_named(std::string_view name) {
  if (name == "home") return FirstTouch::FromHome;
  if (name == "zero") return FirstTouch::ZeroEverywhere;
  return std::nullopt;
}

std::optional<GcCopies> gc_copies_named(std::string_view name) {
  if (name == "last-writer") return GcCopies::LastWriter;
  if (name == "validate-all") return GcCopies::ValidateAll;
  return std::nullopt;
}

}  // namespace ncp2::lrc

namespace ncp2::lrc {

std::string protocol_argument(const ProtocolConfig& c) {
  return fmt::format(
      "page_size={},word_size={},gc_threshold_bytes={},barrier_manager={},first_touch={},gc_copies={}",
      c.page_size, c.word_size, c.gc_threshold_bytes, index(c.barrier_manager), to_string(c.first_touch),
      to_string(c.gc_copies));
}

namespace {
std::uint64_t number(std::string_view key, std::string_view value, std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v > max)
    throw std::invalid_argument(fmt::format("protocol: {}={} is not a number from 0 to {}", key, value, max));
  return v;
}
}  // namespace

ProtocolConfig parse_protocol_argument(std::string_view text) {
  ProtocolConfig c;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument(fmt::format("protocol: '{}' is not key=value", item));
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (key == "page_size") {
      c.page_size = number(key, value, std::uint64_t{1} << 30);
    } else if (key == "word_size") {
      c.word_size = static_cast<int>(number(key, value, 64));
    } else if (key == "gc_threshold_bytes") {
      c.gc_threshold_bytes = number(key, value, std::uint64_t{1} << 50);
    } else if (key == "barrier_manager") {
      c.barrier_manager = node_id(static_cast<int>(number(key, value, 65535)));
    } else if (key == "first_touch") {
      const std::optional<FirstTouch> f = first_touch_named(value);
      if (!f) throw std::invalid_argument(fmt::format("protocol: first_touch={} is not home or zero", value));
      c.first_touch = *f;
    } else if (key == "gc_copies") {
      const std::optional<GcCopies> g = gc_copies_named(value);
      if (!g)
        throw std::invalid_argument(
            fmt::format("protocol: gc_copies={} is not last-writer or validate-all", value));
      c.gc_copies = *g;
    } else {
      throw std::invalid_argument(fmt::format("protocol: no key '{}'", key));
    }
  }
  if (c.word_size < 1 || c.page_size == 0 || c.page_size % static_cast<std::size_t>(c.word_size) != 0)
    throw std::invalid_argument(
        fmt::format("protocol: a page of {} bytes is not made of {}-byte words", c.page_size, c.word_size));
  return c;
}

}  // namespace ncp2::lrc
