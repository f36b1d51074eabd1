#include "workloads/workload.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "carnival/run_scopes.hpp"

namespace ncp2::workloads {

std::string_view to_string(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "int";
    case ParamType::Real:
      return "real";
    case ParamType::Bool:
      return "bool";
    case ParamType::Text:
      return "text";
  }
  return "?";
}

ParamType type_of(const ParamValue& v) {
  switch (v.index()) {
    case 0:
      return ParamType::Int;
    case 1:
      return ParamType::Real;
    case 2:
      return ParamType::Bool;
    default:
      return ParamType::Text;
  }
}

std::string format_value(const ParamValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          return x;
        else
          return fmt::format("{}", x);
      },
      v);
}

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string format_bound(ParamType type, double bound) {
  if (type == ParamType::Int) return fmt::format("{}", static_cast<std::int64_t>(bound));
  return fmt::format("{}", bound);
}

const ParamValue& lookup(const std::map<std::string, ParamValue, std::less<>>& values,
                         std::string_view name) {
  auto it = values.find(name);
  if (it == values.end()) throw WorkloadError(fmt::format("no parameter '{}'", name));
  return it->second;
}

template <class T>
const T& typed(const std::map<std::string, ParamValue, std::less<>>& values, std::string_view name,
               ParamType wanted) {
  const ParamValue& v = lookup(values, name);
  if (const T* x = std::get_if<T>(&v)) return *x;
  throw WorkloadError(fmt::format("parameter '{}' is of type {}, read as {}", name, to_string(type_of(v)),
                                  to_string(wanted)));
}

}  // namespace

ParamSpec int_param(std::string name, std::int64_t default_value, std::string description,
                    std::optional<std::int64_t> min, std::optional<std::int64_t> max) {
  ParamSpec s{std::move(name), ParamType::Int, default_value, std::move(description), {}, {}, {}};
  if (min) s.min = static_cast<double>(*min);
  if (max) s.max = static_cast<double>(*max);
  return s;
}

ParamSpec real_param(std::string name, double default_value, std::string description,
                     std::optional<double> min, std::optional<double> max) {
  return {std::move(name), ParamType::Real, default_value, std::move(description), min, max, {}};
}

ParamSpec bool_param(std::string name, bool default_value, std::string description) {
  return {std::move(name), ParamType::Bool, default_value, std::move(description), {}, {}, {}};
}

ParamSpec text_param(std::string name, std::string default_value, std::string description,
                     std::vector<std::string> choices) {
  return {std::move(name),   ParamType::Text, std::move(default_value), std::move(description), {}, {},
          std::move(choices)};
}

// ---- Params

std::int64_t Params::integer(std::string_view name) const {
  return typed<std::int64_t>(values_, name, ParamType::Int);
}
double Params::real(std::string_view name) const { return typed<double>(values_, name, ParamType::Real); }
bool Params::flag(std::string_view name) const { return typed<bool>(values_, name, ParamType::Bool); }
const std::string& Params::text(std::string_view name) const {
  return typed<std::string>(values_, name, ParamType::Text);
}
const ParamValue& Params::value(std::string_view name) const { return lookup(values_, name); }

std::string Params::describe() const {
  std::string out;
  for (const auto& [name, v] : values_)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, format_value(v));
  return out;
}

// ---- Workload

const ParamSpec* Workload::find_parameter(std::string_view wanted) const {
  for (const auto& p : parameters)
    if (p.name == wanted) return &p;
  return nullptr;
}

Instance::SourcePlace Instance::describe_access(const dsm::AccessSite& site) const {
  if (site.where == 0) return {};
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the typed API stores the file name's address
  return {carnival::relative_source_path(reinterpret_cast<const char*>(site.where)),
          static_cast<int>(site.line)};
}

std::optional<std::uint64_t> Instance::program_address(const dsm::Runtime& /*runtime*/,
                                                       std::uint32_t /*region*/,
                                                       std::uint64_t /*offset*/) const {
  return std::nullopt;
}

Params Workload::defaults() const {
  Params params;
  for (const auto& p : parameters) params.set(p.name, p.default_value);
  return params;
}

Params Workload::resolve(std::string_view preset, std::span<const std::string> assignments) const {
  Params params = defaults();
  if (!preset.empty()) {
    auto it = presets.find(preset);
    if (it == presets.end()) {
      std::vector<std::string> known;
      for (const auto& [n, values] : presets) known.push_back(n);
      throw WorkloadError(
          fmt::format("workload '{}' has no preset '{}' (presets: {})", name, preset, join(known)));
    }
    for (const auto& [param, value] : it->second) {
      const ParamSpec* spec = find_parameter(param);
      if (!spec || spec->type != type_of(value))
        throw WorkloadError(fmt::format("workload '{}': preset '{}' sets '{}' wrongly (internal error)", name,
                                        preset, param));
      params.set(param, value);
    }
  }
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw WorkloadError(fmt::format("--param expects NAME=VALUE, got '{}'", a));
    assign(params, std::string_view(a).substr(0, eq), std::string_view(a).substr(eq + 1));
  }
  return params;
}

void Workload::assign(Params& params, std::string_view param, std::string_view text) const {
  const ParamSpec* spec = find_parameter(param);
  if (!spec) {
    std::vector<std::string> known;
    for (const auto& p : parameters) known.push_back(p.name);
    const std::string guess = closest(param, known);
    throw WorkloadError(fmt::format("workload '{}' has no parameter '{}'{} (parameters: {})", name, param,
                                    guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess),
                                    known.empty() ? "none" : join(known)));
  }
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto wrong = [&](std::string_view expected) {
    return WorkloadError(fmt::format("parameter '{}' of workload '{}' expects {}, got '{}'", spec->name, name,
                                     expected, text));
  };
  switch (spec->type) {
    case ParamType::Int: {
      std::int64_t v = 0;
      if (!text.empty() && text.front() == '+') ++first;
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || end != last || first == last) throw wrong("an integer");
      params.set(spec->name, v);
      break;
    }
    case ParamType::Real: {
      double v = 0;
      if (!text.empty() && text.front() == '+') ++first;
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || end != last || first == last || !std::isfinite(v))
        throw wrong("a real number");
      params.set(spec->name, v);
      break;
    }
    case ParamType::Bool: {
      std::string t(text);
      std::transform(t.begin(), t.end(), t.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (t == "true" || t == "yes" || t == "on" || t == "1")
        params.set(spec->name, true);
      else if (t == "false" || t == "no" || t == "off" || t == "0")
        params.set(spec->name, false);
      else
        throw wrong("true or false");
      break;
    }
    case ParamType::Text:
      params.set(spec->name, std::string(text));
      break;
  }
}

void Workload::check(const Params& params, int nodes) const {
  for (const auto& spec : parameters) {
    const ParamValue& v = params.value(spec.name);
    if (type_of(v) != spec.type)
      throw WorkloadError(fmt::format("parameter '{}' must be of type {}, got {}", spec.name,
                                      to_string(spec.type), to_string(type_of(v))));
    if (spec.type == ParamType::Int || spec.type == ParamType::Real) {
      const double x =
          spec.type == ParamType::Int ? static_cast<double>(std::get<std::int64_t>(v)) : std::get<double>(v);
      if (spec.min && x < *spec.min)
        throw WorkloadError(fmt::format("parameter '{}' must be at least {}, got {}", spec.name,
                                        format_bound(spec.type, *spec.min), format_value(v)));
      if (spec.max && x > *spec.max)
        throw WorkloadError(fmt::format("parameter '{}' must be at most {}, got {}", spec.name,
                                        format_bound(spec.type, *spec.max), format_value(v)));
    }
    if (spec.type == ParamType::Text && !spec.choices.empty() &&
        std::find(spec.choices.begin(), spec.choices.end(), std::get<std::string>(v)) == spec.choices.end())
      throw WorkloadError(fmt::format("parameter '{}' must be one of {}, got '{}'", spec.name,
                                      join(spec.choices), std::get<std::string>(v)));
  }
  if (nodes < 1) throw WorkloadError(fmt::format("workload '{}' needs at least 1 node, got {}", name, nodes));
  if (validate) validate(params, nodes);
}

// ---- helpers

std::string closest(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  std::size_t best_distance = 3;  // suggest only within two edits...
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance && d < std::max(word.size(), c.size())) {  // ...and not a complete rewrite
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace ncp2::workloads
