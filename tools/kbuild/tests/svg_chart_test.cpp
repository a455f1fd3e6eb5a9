#include "core/svg_chart.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgChart, OneBarPerCaseInEachPanel) {
  const std::string svg =
      RenderBarChartSvg({"NVIDIA H200", "at::add"}, {{"scale_add/1 bf16", 50, 1.2, false},
                                                     {"scale_add/2 bf16", 91, 2.5, false},
                                                     {"scale_add/3 bf16", 120, 0, true}});
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_EQ(Count(svg, "<rect class=\"peak"), 3u);
  EXPECT_EQ(Count(svg, "<rect class=\"speedup"), 3u);
  EXPECT_EQ(Count(svg, "class=\"peak failed\""), 1u);
  EXPECT_NE(svg.find(">91.0%</text>"), std::string::npos);
  EXPECT_NE(svg.find(">2.50x</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);  // self-contained
}

// Every element that opens is closed (self-closing or paired).
TEST(SvgChart, TagsBalance) {
  const std::string svg = RenderBarChartSvg({"t", "b"}, {{"a", 10, 1, false}});
  EXPECT_EQ(Count(svg, "<text"), Count(svg, "</text>"));
  EXPECT_EQ(Count(svg, "<svg"), Count(svg, "</svg>"));
  EXPECT_EQ(Count(svg, "<style>"), Count(svg, "</style>"));
  EXPECT_EQ(Count(svg, "<rect"), Count(svg, "/>") - Count(svg, "<line"));
}

TEST(SvgChart, LabelsAndTitleAreEscaped) {
  const std::string svg =
      RenderBarChartSvg({"<H200> & \"co\"", "x<y"}, {{"op<float>&'x'", 10, 1, false}});
  EXPECT_NE(svg.find("&lt;H200&gt; &amp; &quot;co&quot;"), std::string::npos);
  EXPECT_NE(svg.find("op&lt;float&gt;&amp;&apos;x&apos;"), std::string::npos);
  EXPECT_NE(svg.find("speedup vs x&lt;y"), std::string::npos);
  EXPECT_EQ(svg.find("<float>"), std::string::npos);
}

TEST(SvgChart, WithoutBaselineOnlyThePeakPanel) {
  const std::string svg = RenderBarChartSvg({"t", ""}, {{"a", 10, 0, false}});
  EXPECT_EQ(Count(svg, "<rect class=\"speedup"), 0u);
  EXPECT_EQ(Count(svg, "<rect class=\"peak"), 1u);
}

}  // namespace
}  // namespace kb
