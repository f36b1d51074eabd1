// figures/: the SVG text of each shape (with and without its optional attributes), the scales,
// the ticks, the legend and stacked bars, and the plot path checks.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "figures/chart.hpp"
#include "figures/figure.hpp"

using namespace ncp2::figures;

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST(FigureSvg, ShapesWithoutOptionalAttributesAreWrittenAsBefore) {
  // The form `ncp2 schedule --plot` has always written: no class, dash or fill attribute.
  Figure f{200, 100, {}};
  f.shapes.emplace_back(LineShape{{{0, 0}, {10.5, 20}}, "#000000", 1.4});
  f.shapes.emplace_back(RectShape{{1, 2}, 3, 4, "#ffffff", ""});
  f.shapes.emplace_back(TextShape{{5, 6}, "a < b & c", 11, Anchor::End, true});
  const std::string svg = figure_svg(f);
  EXPECT_EQ(
      svg.rfind(R"(<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100")",
                0),
      0U);
  EXPECT_NE(
      svg.find(R"(<polyline points="0.0,0.0 10.5,20.0 " fill="none" stroke="#000000" stroke-width="1.4"/>)"),
      std::string::npos);
  EXPECT_NE(svg.find(R"(<rect x="1.0" y="2.0" width="3.0" height="4.0" fill="#ffffff" stroke="none"/>)"),
            std::string::npos);
  EXPECT_NE(
      svg.find(
          R"(<text x="5.0" y="6.0" font-size="11" text-anchor="end" font-weight="bold">a &lt; b &amp; c</text>)"),
      std::string::npos);
}

TEST(FigureSvg, OptionalAttributesAndCircles) {
  Figure f{10, 10, {}};
  f.shapes.emplace_back(LineShape{{{0, 0}, {1, 1}}, "#0072B2", 2, true, "curve"});
  f.shapes.emplace_back(CircleShape{{3, 4}, 4, "#D55E00", "#ffffff", "point \"x\""});
  f.shapes.emplace_back(TextShape{{0, 0}, "note", 12, Anchor::Start, false, "#a61b1b"});
  const std::string svg = figure_svg(f);
  EXPECT_NE(svg.find(R"(stroke-width="2" stroke-dasharray="5 4" class="curve"/>)"), std::string::npos);
  // A tag keeps only the characters of an identifier: no way to break out of the attribute.
  EXPECT_NE(svg.find(R"(<circle cx="3.0" cy="4.0" r="4.0" fill="#D55E00" stroke="#ffffff" class="pointx"/>)"),
            std::string::npos);
  EXPECT_NE(svg.find(R"(fill="#a61b1b">note</text>)"), std::string::npos);
}

TEST(Chart, NiceTicksAreOneTwoOrFiveTimesAPowerOfTenAndCoverTheRange) {
  const std::vector<std::pair<double, double>> ranges = {{0, 7.3}, {0, 0.042}, {-13, 87}, {0, 1234}, {5, 5}};
  for (const auto& [low, high] : ranges) {
    const Ticks t = nice_ticks(low, high, 8);
    EXPECT_LE(t.low, low);
    EXPECT_GE(t.high, high);
    const double mantissa = t.step / std::pow(10.0, std::floor(std::log10(t.step)));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                std::abs(mantissa - 5) < 1e-9)
        << t.step;
    EXPECT_LE((t.high - t.low) / t.step, 10.0) << low << ".." << high;
    EXPECT_GE((t.high - t.low) / t.step, 1.0);
  }
}

TEST(Chart, ALog2ScaleSpacesPowersOfTwoEvenly) {
  const Scale x{1, 16, 100, 500, true};
  EXPECT_DOUBLE_EQ(x(1), 100);
  EXPECT_DOUBLE_EQ(x(16), 500);
  EXPECT_DOUBLE_EQ(x(2) - x(1), x(8) - x(4));
  const Scale y{0, 10, 300, 100};  // upwards on the page
  EXPECT_DOUBLE_EQ(y(0), 300);
  EXPECT_DOUBLE_EQ(y(5), 200);
}

TEST(Chart, AStackedBarPutsEachSegmentOnTheOneBelowAndSkipsEmptyOnes) {
  Figure f{100, 100, {}};
  const Scale y{0, 10, 90, 10};
  add_stacked_bar(f, 20, 8, y, {{2, "#111111"}, {0, "#222222"}, {3, "#333333"}}, "bar");
  ASSERT_EQ(f.shapes.size(), 2U);
  const auto& bottom = std::get<RectShape>(f.shapes[0]);
  const auto& top = std::get<RectShape>(f.shapes[1]);
  EXPECT_DOUBLE_EQ(bottom.corner.y + bottom.height, y(0));
  EXPECT_DOUBLE_EQ(top.corner.y + top.height, bottom.corner.y);
  EXPECT_DOUBLE_EQ(top.corner.y, y(5));
  EXPECT_EQ(top.fill, "#333333");
}

TEST(Chart, TheLegendHasAMarkAndALabelPerEntryAndItsWidthFitsTheLongest) {
  Figure f{100, 100, {}};
  const std::vector<LegendEntry> entries = {
      {"short", "#000000"}, {"a much longer label", "#0072B2", LegendMark::LineAndMarker, true}};
  add_legend(f, {10, 20}, entries);
  const std::string svg = figure_svg(f);
  EXPECT_EQ(occurrences(svg, ">short</text>"), 1U);
  EXPECT_EQ(occurrences(svg, ">a much longer label</text>"), 1U);
  EXPECT_EQ(occurrences(svg, "<circle"), 1U);
  EXPECT_EQ(occurrences(svg, "stroke-dasharray"), 1U);
  EXPECT_GT(legend_width(entries), text_width("a much longer label", 12));
}

TEST(Chart, TextWidthCountsCharactersNotBytes) {
  EXPECT_DOUBLE_EQ(text_width("µs", 10), text_width("us", 10));
  EXPECT_GT(text_width("abcd", 12), text_width("ab", 12));
}

TEST(PlotPath, TheExtensionDecidesAndOthersAreRefused) {
  EXPECT_EQ(check_plot_path("a.svg"), "");
  EXPECT_NE(check_plot_path("a.gif").find("must end in .png or .svg"), std::string::npos);
  if (png_available())
    EXPECT_EQ(check_plot_path("a.png"), "");
  else
    EXPECT_NE(check_plot_path("a.png").find("without Qt 6"), std::string::npos);
  EXPECT_THROW(write_figure(Figure{10, 10, {}}, "/nonexistent-folder/a.svg"), PlotError);
}

TEST(Text, AFittedTextKeepsItsEndsAndFits) {
  const std::string label = "treadmarks, network.link_latency=10us";
  EXPECT_EQ(fit_text(label, 1000, 12), label);
  const std::string end = fit_text(label, 120, 12);
  const std::string middle = fit_text(label, 120, 12, Elide::Middle);
  for (const auto& cut : {end, middle}) {
    EXPECT_LE(text_width(cut, 12), 120.0) << cut;
    EXPECT_NE(cut.find("…"), std::string::npos) << cut;
  }
  EXPECT_EQ(end.rfind("treadmarks", 0), 0U);
  EXPECT_TRUE(middle.ends_with("=10us")) << middle;  // what tells it from the 1us curve
  EXPECT_EQ(fit_text("µµµµµµµµµµµµ", 40, 12).find("\xC2…"), std::string::npos);  // never half a character
}
