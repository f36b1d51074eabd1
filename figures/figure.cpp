#include "figures/figure.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/store_error.hpp"

namespace ncp2::figures {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

// The optional attributes are written only when set: a figure without them is the same text as
// before they existed (`ncp2 schedule --plot`'s output did not change when this moved here).
// A tag is one of our identifiers: letters, digits, '-' and '_' are kept, anything else dropped.
std::string class_attribute(const std::string& tag) {
  std::string name;
  for (const char c : tag)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') name += c;
  return name.empty() ? "" : fmt::format(R"( class="{}")", name);
}

struct SvgWriter {
  std::string& out;
  void operator()(const LineShape& l) const {
    std::string points;
    for (const auto& p : l.points) points += fmt::format("{:.1f},{:.1f} ", p.x, p.y);
    out +=
        fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}{}/>)", points,
                    l.colour, l.width, l.dashed ? R"( stroke-dasharray="5 4")" : "", class_attribute(l.tag)) +
        "\n";
  }
  void operator()(const RectShape& r) const {
    out +=
        fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}"{}/>)",
                    r.corner.x, r.corner.y, r.width, r.height, r.fill.empty() ? "none" : r.fill,
                    r.stroke.empty() ? "none" : r.stroke, class_attribute(r.tag)) +
        "\n";
  }
  void operator()(const TextShape& t) const {
    const char* anchor =
        t.anchor == Anchor::Start ? "start" : (t.anchor == Anchor::Middle ? "middle" : "end");
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="{}"{}{}>{}</text>)", t.at.x,
                       t.at.y, t.size, anchor, t.bold ? R"( font-weight="bold")" : "",
                       t.colour.empty() ? "" : fmt::format(R"( fill="{}")", t.colour), escape(t.text)) +
           "\n";
  }
  void operator()(const CircleShape& c) const {
    out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}" stroke="{}"{}/>)", c.centre.x,
                       c.centre.y, c.radius, c.fill.empty() ? "none" : c.fill,
                       c.stroke.empty() ? "none" : c.stroke, class_attribute(c.tag)) +
           "\n";
  }
};

}  // namespace

std::string figure_svg(const Figure& figure) {
  std::string out =
      fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                  R"(font-family="DejaVu Sans, sans-serif">)"
                  "\n",
                  figure.width, figure.height);
  for (const auto& shape : figure.shapes) std::visit(SvgWriter{out}, shape);
  return out + "</svg>\n";
}

std::string check_plot_path(const std::string& path) {
  if (path.ends_with(".svg")) return "";
  if (!path.ends_with(".png")) return fmt::format("--plot {}: the file name must end in .png or .svg", path);
  if (!png_available())
    return fmt::format("--plot {}: this ncp2 was built without Qt 6, so it cannot draw PNG plots (use .svg)",
                       path);
  return "";
}

void write_figure(const Figure& figure, const std::string& path) {
  if (const std::string problem = check_plot_path(path); !problem.empty()) throw PlotError(problem);
  if (path.ends_with(".png")) return write_figure_png(figure, path);
  try {
    carnival::write_file_atomically(path, [&](std::ostream& out) { out << figure_svg(figure); });
  } catch (const carnival::StoreError& e) {
    throw PlotError(e.what());
  }
}

double text_width(const std::string& text, double size) {
  double characters = 0;
  for (const char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) characters += 1;  // UTF-8: lead bytes only
  return characters * size * 0.62;
}

std::string fit_text(const std::string& text, double width, double size, Elide elide) {
  if (text_width(text, size) <= width) return text;
  std::vector<std::string> characters;  // UTF-8 sequences
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 || characters.empty()) characters.emplace_back();
    characters.back() += c;
  }
  const auto keep =
      std::min(static_cast<std::size_t>(std::max(width / text_width("x", size) - 1, 2.0)), characters.size());
  const std::size_t head = elide == Elide::End ? keep : (keep + 1) / 2;
  std::string out;
  for (std::size_t i = 0; i < head; ++i) out += characters[i];
  out += "…";
  for (std::size_t i = characters.size() - (keep - head); i < characters.size(); ++i) out += characters[i];
  return out;
}

}  // namespace ncp2::figures
