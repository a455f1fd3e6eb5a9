#include "core/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>

namespace kb {

namespace {

constexpr int kRowHeight = 22;
constexpr int kBarHeight = 14;
constexpr int kTop = 56;  // title and panel headings
constexpr int kPanelWidth = 300;
constexpr int kGap = 70;  // room for the value printed after a bar
constexpr size_t kMaxLabel = 48;
constexpr double kCharWidth = 6.6;  // average glyph width of 11px sans-serif

std::string Label(const std::string& s) {
  if (s.size() <= kMaxLabel) return s;
  return s.substr(0, kMaxLabel - 3) + "...";
}

// A panel: heading, the reference line (100% or 1x), one bar per case.
void Panel(const std::vector<ChartBar>& bars, double x0, double scale_max, double reference,
           const std::string& heading, const std::string& css_class, bool speedup,
           std::string* out) {
  const int height = static_cast<int>(bars.size()) * kRowHeight;
  *out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"heading\">{}</text>\n", x0, kTop - 12,
                      XmlEscape(heading));
  const double ref_x = x0 + kPanelWidth * reference / scale_max;
  *out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"reference\"/>\n", ref_x,
      kTop - 4, kTop + height);
  for (size_t i = 0; i < bars.size(); ++i) {
    const double value = speedup ? bars[i].speedup : bars[i].percent_of_peak;
    const double width = kPanelWidth * std::clamp(value, 0.0, scale_max) / scale_max;
    const int y = kTop + static_cast<int>(i) * kRowHeight;
    const std::string text = value <= 0 ? "-"
                             : speedup  ? fmt::format("{:.2f}x", value)
                                        : fmt::format("{:.1f}%", value);
    *out += fmt::format(
        "<rect class=\"{}{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{}\">{}</text>\n",
        css_class, bars[i].failed ? " failed" : "", x0, y, width, kBarHeight, x0 + width + 4,
        y + kBarHeight - 3, text);
  }
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SvgOpening(double width, int height, const std::string& style,
                       const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1}\" "
      "viewBox=\"0 0 {0:.0f} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<style>{2}.title{{font-size:13px;font-weight:bold}}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"6\" y=\"18\" class=\"title\">{3}</text>\n",
      width, height, style, XmlEscape(title));
}

std::string RenderBarChartSvg(const ChartText& text, const std::vector<ChartBar>& bars) {
  size_t longest = 4;
  double max_speedup = 1;
  for (const auto& b : bars) {
    longest = std::max(longest, Label(b.label).size() + (b.failed ? 2 : 0));
    max_speedup = std::max(max_speedup, b.speedup);
  }
  const double label_width = 12 + kCharWidth * static_cast<double>(longest);
  const bool with_speedup = !text.baseline.empty();
  const double width = label_width + (kPanelWidth + kGap) * (with_speedup ? 2 : 1);
  const int height = kTop + static_cast<int>(bars.size()) * kRowHeight + 24;

  std::string out = SvgOpening(width, height,
                               ".peak{fill:#3b7dd8}.speedup{fill:#e08a2c}.failed{fill:#d62728}"
                               ".reference{stroke:#555;stroke-dasharray:3 3}"
                               ".heading{font-weight:bold}",
                               text.title);
  for (size_t i = 0; i < bars.size(); ++i) {
    out += fmt::format("<text x=\"6\" y=\"{}\">{}{}</text>\n",
                       kTop + static_cast<int>(i) * kRowHeight + kBarHeight - 3,
                       bars[i].failed ? "! " : "", XmlEscape(Label(bars[i].label)));
  }
  // Bars past 100% are drawn to 110%: above the copy bandwidth is suspicious.
  Panel(bars, label_width, 110, 100, "% of measured copy bandwidth", "peak", false, &out);
  if (with_speedup) {
    Panel(bars, label_width + kPanelWidth + kGap, max_speedup * 1.1, 1,
          "speedup vs " + text.baseline, "speedup", true, &out);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace kb
