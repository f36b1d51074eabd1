// The policies' names (lrc/config.hpp): as configuration values (dsm.first_touch, dsm.gc_copies).
#include "lrc/config.hpp"

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
