// A sweep's grid (sweep/grid.hpp).
#include "sweep/grid.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "run/content_hash.hpp"

namespace ncp2::sweep {

std::vector<std::string> split_list(std::string_view text, std::string_view option) {
  if (text.empty())
    throw GridError(fmt::format("{}: the list is empty (give values separated by commas)", option));
  std::vector<std::string> items;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    std::string item(text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
    if (item.empty())
      throw GridError(
          fmt::format("{}: '{}' has an empty value (two commas, or one at an end)", option, text));
    if (std::find(items.begin(), items.end(), item) != items.end())
      throw GridError(fmt::format("{}: {} is given twice", option, item));
    items.push_back(std::move(item));
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return items;
}

SettingAxis parse_axis(std::string_view assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw GridError(fmt::format(
        "--set '{}': expected KEY=V1,V2,... (e.g. --set network.link_latency=100ns,200ns)", assignment));
  SettingAxis axis;
  axis.key = std::string(assignment.substr(0, eq));
  axis.values = split_list(assignment.substr(eq + 1), fmt::format("--set {}", axis.key));
  return axis;
}

namespace {

// Letters, digits and . _ = + - stay; anything else (a blank, a slash) becomes '_'.
std::string file_safe(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 &&
        std::string_view("._=+-").find(c) == std::string_view::npos)
      c = '_';
  return out;
}

std::string point_name(const SweepSpec& spec, const Point& p) {
  std::string name = fmt::format("{}-n{}", p.machine, p.nodes);
  // Only the keys that vary: a key with one value is the same for every point.
  for (std::size_t a = 0; a < spec.settings.size(); ++a)
    if (spec.settings[a].values.size() > 1)
      name += fmt::format("-{}={}", p.settings[a].key, p.settings[a].value);
  return file_safe(name);
}

}  // namespace

std::vector<Point> expand_grid(const SweepSpec& spec) {
  if (spec.nodes.empty() || spec.machines.empty())
    throw GridError("the sweep has no point (no nodes or machines)");
  std::size_t combinations = 1;
  for (const SettingAxis& axis : spec.settings) combinations *= axis.values.size();
  std::vector<Point> points;
  std::set<std::string> names;
  for (const std::string& machine : spec.machines) {
    for (std::size_t combo = 0; combo < combinations; ++combo) {
      std::vector<Setting> settings(spec.settings.size());
      std::size_t rest = combo;
      for (std::size_t a = spec.settings.size(); a-- > 0;) {  // the last axis varies fastest
        const SettingAxis& axis = spec.settings[a];
        settings[a] = {axis.key, axis.values[rest % axis.values.size()]};
        rest /= axis.values.size();
      }
      for (const int nodes : spec.nodes) {
        Point p{{}, machine, nodes, settings};
        p.name = point_name(spec, p);
        if (!names.insert(p.name).second)
          throw GridError(fmt::format(
              "two points would share the file name {} (values that differ only in characters a file name "
              "cannot hold); write the values differently",
              p.name));
        points.push_back(std::move(p));
      }
    }
  }
  return points;
}

std::string settings_text(const Point& point) {
  std::string out;
  for (const Setting& s : point.settings)
    out += fmt::format("{}{}={}", out.empty() ? "" : ";", s.key, s.value);
  return out;
}

std::string grid_hash(const SweepSpec& spec) {
  run::ContentHash h;
  // Each piece ends with a byte no text has, so that "ab","c" and "a","bc" differ.
  const auto add = [&h](std::string_view piece) {
    h.add(piece);
    h.add(std::string_view("\x1f", 1));
  };
  add(spec.target);
  for (const std::string& a : spec.program_args) add(a);
  add("nodes");
  std::vector<int> nodes = spec.nodes;
  std::sort(nodes.begin(), nodes.end());
  for (const int n : nodes) add(std::to_string(n));
  add("machines");
  std::vector<std::string> machines = spec.machines;
  std::sort(machines.begin(), machines.end());
  for (const std::string& m : machines) add(m);
  add("settings");
  std::vector<SettingAxis> axes = spec.settings;
  std::sort(axes.begin(), axes.end(),
            [](const SettingAxis& a, const SettingAxis& b) { return a.key < b.key; });
  for (SettingAxis& axis : axes) {
    std::sort(axis.values.begin(), axis.values.end());
    add(axis.key);
    for (const std::string& v : axis.values) add(v);
  }
  add("options");
  for (const std::string& o : spec.run_options) add(o);
  for (const std::string& file : spec.content_files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw GridError(fmt::format("{}: cannot read it", file));
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    add(file);
    add(fmt::format("{:016x}", run::content_hash(bytes)));
  }
  return fmt::format("{:016x}", h.value());
}

}  // namespace ncp2::sweep
