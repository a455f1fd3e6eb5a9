// A self-contained SVG bar chart of a benchmark run (no scripts, no external
// fonts or styles): per case one bar for % of the measured copy bandwidth and
// one for the speedup over a baseline. Viewable in any browser and on GitHub.
#pragma once

#include <string>
#include <vector>

namespace kb {

struct ChartBar {
  std::string label;           // the case, e.g. "rms_norm/8192x4096 bf16"
  double percent_of_peak = 0;  // 0 = unknown
  double speedup = 0;          // 0 = no baseline
  bool failed = false;         // drawn in red and marked
};

struct ChartText {
  std::string title;     // e.g. "NVIDIA H200, 2026-11-30 14:25"
  std::string baseline;  // the speedup panel's baseline name; empty = no speedup panel
};

// One <rect class="peak"> per bar (and one <rect class="speedup"> per bar
// when there is a baseline); every text is XML-escaped.
std::string RenderBarChartSvg(const ChartText& text, const std::vector<ChartBar>& bars);

// The opening of a self-contained SVG of `width` x `height`: the <svg> tag, the
// class rules in `style` (CSS, without the title's, which is added), a white
// background and `title` (XML-escaped here) in bold at the top left.
std::string SvgOpening(double width, int height, const std::string& style,
                       const std::string& title);

// & < > " ' as entities.
std::string XmlEscape(const std::string& text);

}  // namespace kb
