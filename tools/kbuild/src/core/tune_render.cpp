#include "core/tune_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "core/message_text.h"
#include "core/svg_chart.h"

namespace kb {

namespace {

using EvaluationsById = std::map<std::string, const TuneEvaluation*>;

// Variants whose numbers stand but which never ran the full test suite.
constexpr const char* kNotFullyTested = "benchmarked, not fully tested";

EvaluationsById IndexById(const std::vector<TuneEvaluation>& evaluations) {
  EvaluationsById index;
  for (const auto& e : evaluations) index[e.variant.id] = &e;
  return index;
}

std::string ParamsText(const TuneVariant& v) {
  std::string out;
  for (const auto& [name, value] : v.values) out += (out.empty() ? "" : ", ") + name + "=" + value;
  return out;
}

// A table cell: '|' would end it, a newline the row, '<' could open HTML.
std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : OneLine(text)) {
    if (c == '|')
      out += "\\|";
    else if (c == '<')
      out += "&lt;";
    else
      out += c;
  }
  return out;
}

// "12 variants: 9 valid (8 ranked), 3 invalid (build-failed 2, test-failed 1), 0 pending".
std::string CountsLine(const std::vector<TuneEvaluation>& evaluations, const TuneRanking& ranking) {
  std::map<std::string, int> invalid_by_stage;
  int valid = 0, invalid = 0, pending = 0;
  for (const auto& e : evaluations) {
    if (e.stage == TuneStage::kDone)
      ++valid;
    else if (e.stage == TuneStage::kPending)
      ++pending;
    else
      ++invalid, ++invalid_by_stage[TuneStageWord(e.stage)];
  }
  std::string stages;
  for (const auto& [word, n] : invalid_by_stage) {
    stages += fmt::format("{}{} {}", stages.empty() ? " (" : ", ", word, n);
  }
  if (!stages.empty()) stages += ")";
  const std::string screened =
      ranking.screened.empty() ? ""
                               : fmt::format(", {} {}", ranking.screened.size(), kNotFullyTested);
  return fmt::format("{} variants: {} valid ({} ranked{}), {} invalid{}, {} pending",
                     evaluations.size(), valid, ranking.ranked.size(), screened, invalid, stages,
                     pending);
}

// "time per variant (means over 26 benchmarked): build 51.3 s (on the CPUs, beside the GPU
// steps), GPU tests 0.0 s, benchmark 9.8 s"; "" when no variant was benchmarked.
std::string TimesLine(const std::vector<TuneEvaluation>& evaluations) {
  double build = 0, tests = 0, bench = 0;
  int n = 0;
  for (const auto& e : evaluations) {
    if (e.bench_seconds <= 0) continue;
    build += e.build_seconds, tests += e.test_seconds, bench += e.bench_seconds, ++n;
  }
  if (n == 0) return "";
  return fmt::format(
      "time per variant (means over {} benchmarked): build {:.1f} s (on the CPUs, beside the "
      "GPU steps), GPU tests {:.1f} s, benchmark {:.1f} s",
      n, build / n, tests / n, bench / n);
}

// The fixed colour scale of the heatmap: a cell takes the last step at or below its value.
struct ColourStep {
  double from_percent;
  const char* colour;
  const char* label;
};
constexpr std::array<ColourStep, 6> kScale = {{
    {0, "#d73027", "< 25%"},
    {25, "#fc8d59", "25-50%"},
    {50, "#fee08b", "50-70%"},
    {70, "#d9ef8b", "70-85%"},
    {85, "#91cf60", "85-95%"},
    {95, "#1a9850", ">= 95%"},
}};
constexpr const char* kUnknownColour = "#f0f0f0";  // % of peak not measured
constexpr const char* kUnrankedColour = "#bdbdbd";

const char* CellColour(double percent) {
  if (percent <= 0) return kUnknownColour;
  const char* colour = kScale.front().colour;
  for (const auto& step : kScale) {
    if (percent >= step.from_percent) colour = step.colour;
  }
  return colour;
}

constexpr int kCellWidth = 54;
constexpr int kCellHeight = 20;
constexpr int kHeaderHeight = 200;  // title, legend and the slanted case names
constexpr double kCharWidth = 6.6;  // average glyph width of 11px sans-serif
constexpr size_t kMaxLabel = 40;

std::string Cut(const std::string& s) { return CutForMessage(OneLine(s), kMaxLabel); }

std::vector<std::string> CaseColumns(const std::vector<const TuneEvaluation*>& rows) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (const TuneEvaluation* e : rows) {
    for (const auto& c : e->cases) {
      if (seen.insert(c.name).second) columns.push_back(c.name);
    }
  }
  return columns;
}

void Legend(double x, std::string* out) {
  *out += fmt::format("<text x=\"{:.0f}\" y=\"40\">% of peak:</text>\n", x);
  x += 66;
  auto swatch = [&](const char* colour, const char* label) {
    *out += fmt::format(
        "<rect x=\"{0:.0f}\" y=\"30\" width=\"12\" height=\"12\" fill=\"{1}\"/>"
        "<text x=\"{2:.0f}\" y=\"40\">{3}</text>\n",
        x, colour, x + 16, XmlEscape(label));
    x += 24 + kCharWidth * static_cast<double>(std::string(label).size());
  };
  for (const auto& step : kScale) swatch(step.colour, step.label);
  swatch(kUnknownColour, "not measured");
  swatch(kUnrankedColour, "not ranked");
}

bool IsInteger(const std::string& s) {
  const size_t digits = s.starts_with('-') ? 1 : 0;
  return s.size() > digits && s.find_first_not_of("0123456789", digits) == std::string::npos;
}

bool IsIdentifier(const std::string& s) {
  constexpr const char* kHead = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
  return !s.empty() && std::string(kHead).find(s[0]) != std::string::npos &&
         s.find_first_not_of(std::string(kHead) + "0123456789") == std::string::npos;
}

Error HeaderError(const std::string& message) {
  return MakeError(ExitCode::kInternal, "cannot write the dispatch header: " + message);
}

}  // namespace

std::string TuneSummaryMarkdown(const std::string& title,
                                const std::vector<TuneEvaluation>& evaluations,
                                const TuneRanking& ranking, const std::vector<BucketBest>& best) {
  const EvaluationsById by_id = IndexById(evaluations);
  auto params_of = [&by_id](const std::string& id) {
    const auto it = by_id.find(id);
    return it == by_id.end() ? std::string() : ParamsText(it->second->variant);
  };
  std::string out = "# " + MarkdownCell(title) + "\n\n- " + CountsLine(evaluations, ranking) + "\n";
  if (const std::string times = TimesLine(evaluations); !times.empty()) out += "- " + times + "\n";
  for (const auto& b : best) {
    out += fmt::format("- best for {} ({} case{}): {} ({}), {:.3f}x\n", b.bucket.label, b.cases,
                       b.cases == 1 ? "" : "s", MarkdownCell(b.id), MarkdownCell(params_of(b.id)),
                       b.score);
  }
  out += "\n| rank | variant | parameters | score | worst case | stage |\n";
  out += "| ---: | --- | --- | ---: | --- | --- |\n";
  for (size_t i = 0; i < ranking.ranked.size(); ++i) {
    const RankedVariant& r = ranking.ranked[i];
    out += fmt::format("| {} | {} | {} | {:.3f}x | {} ({:.2f}x) | done |\n", i + 1,
                       MarkdownCell(r.id), MarkdownCell(params_of(r.id)), r.score,
                       MarkdownCell(r.worst_case), r.worst_speedup);
  }
  for (const auto& r : ranking.screened) {
    out += fmt::format("| - | {} | {} | {:.3f}x | {} ({:.2f}x) | {} |\n", MarkdownCell(r.id),
                       MarkdownCell(params_of(r.id)), r.score, MarkdownCell(r.worst_case),
                       r.worst_speedup, kNotFullyTested);
  }
  for (const auto& u : ranking.unranked) {
    out += fmt::format("| - | {} | {} | - | - | {} |\n", MarkdownCell(u.id),
                       MarkdownCell(params_of(u.id)), MarkdownCell(u.reason));
  }
  return out;
}

std::string TuneHeatmapSvg(const std::string& title, const std::vector<TuneEvaluation>& evaluations,
                           const TuneRanking& ranking) {
  const EvaluationsById by_id = IndexById(evaluations);
  std::vector<const TuneEvaluation*> rows;
  std::vector<std::string> row_labels, row_reasons;  // reason "" = ranked
  std::vector<bool> row_screened;                    // coloured, marked "*"
  auto scored = [&](const std::vector<RankedVariant>& variants, bool screened) {
    for (const auto& r : variants) {
      if (!by_id.contains(r.id)) continue;
      rows.push_back(by_id.at(r.id));
      row_labels.push_back(fmt::format("{} {:.2f}x{}", Cut(r.id), r.score, screened ? " *" : ""));
      row_reasons.push_back("");
      row_screened.push_back(screened);
    }
  };
  scored(ranking.ranked, false);
  scored(ranking.screened, true);
  for (const auto& u : ranking.unranked) {
    if (!by_id.contains(u.id)) continue;
    rows.push_back(by_id.at(u.id));
    row_labels.push_back(Cut(u.id));
    row_reasons.push_back(u.reason.empty() ? "not ranked" : u.reason);
    row_screened.push_back(false);
  }
  const std::vector<std::string> columns = CaseColumns(rows);
  size_t longest = 8;
  for (const auto& l : row_labels) longest = std::max(longest, l.size());
  const double x0 = 12 + kCharWidth * static_cast<double>(longest);
  const double width = std::max(x0 + kCellWidth * static_cast<double>(columns.size()) + 240, 760.0);
  const int height = kHeaderHeight + static_cast<int>(rows.size()) * kCellHeight + 12;

  std::string out = SvgOpening(
      width, height,
      ".cell{stroke:white}.value{font-size:10px;text-anchor:middle}.unranked text{fill:#757575}",
      OneLine(title));
  Legend(6, &out);
  if (!ranking.screened.empty()) {
    out +=
        fmt::format("<text x=\"6\" y=\"60\">* {} (not eligible as best)</text>\n", kNotFullyTested);
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    const double x = x0 + kCellWidth * (static_cast<double>(c) + 0.5);
    out += fmt::format(
        "<text x=\"{0:.1f}\" y=\"{1}\" transform=\"rotate(-35 {0:.1f} {1})\">{2}</text>\n", x,
        kHeaderHeight - 6, XmlEscape(Cut(columns[c])));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const int y = kHeaderHeight + static_cast<int>(r) * kCellHeight;
    const bool ranked = row_reasons[r].empty();
    if (row_screened[r]) {
      out += std::string("<g class=\"screened\"><title>") + kNotFullyTested + "</title>\n";
    } else {
      out += ranked ? "<g>\n"
                    : "<g class=\"unranked\"><title>" + XmlEscape(row_reasons[r]) + "</title>\n";
    }
    out += fmt::format("<text x=\"6\" y=\"{}\">{}</text>\n", y + 14, XmlEscape(row_labels[r]));
    for (size_t c = 0; c < columns.size(); ++c) {
      const auto it = std::find_if(rows[r]->cases.begin(), rows[r]->cases.end(),
                                   [&](const TuneCaseTime& t) { return t.name == columns[c]; });
      const bool measured = it != rows[r]->cases.end();
      if (ranked && !measured) continue;  // a case only other variants have: left blank
      const double x = x0 + kCellWidth * static_cast<double>(c);
      out += fmt::format(
          "<rect class=\"cell\" x=\"{:.1f}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">", x,
          y, kCellWidth, kCellHeight, ranked ? CellColour(it->percent_of_peak) : kUnrankedColour);
      if (!measured) {
        out += "</rect>\n";  // the row's title says why
        continue;
      }
      out += fmt::format(
          "<title>{}</title></rect>",
          XmlEscape(fmt::format("{} {}: {:.1f}% of peak, {:.2f} us", OneLine(rows[r]->variant.id),
                                OneLine(it->name), it->percent_of_peak, it->median_us)));
      if (ranked && it->percent_of_peak > 0) {
        out += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{}\">{:.0f}</text>",
                           x + kCellWidth / 2.0, y + 14, it->percent_of_peak);
      }
      out += "\n";
    }
    out += "</g>\n";
  }
  out += "</svg>\n";
  return out;
}

Expected<std::string> TuneDispatchHeader(const std::string& run_folder,
                                         const std::vector<TuneEvaluation>& evaluations,
                                         const std::vector<BucketBest>& best) {
  if (best.empty()) return HeaderError("no variant ranked in any shape bucket");
  const EvaluationsById by_id = IndexById(evaluations);
  // The space's parameters, from a variant that sets them. The defaults set
  // none: their row names the macros, which expand to the kernel's defaults.
  std::vector<std::pair<std::string, std::string>> macro_names;
  for (const auto& e : evaluations) {
    if (e.variant.values.empty()) continue;
    for (const auto& [name, value] : e.variant.values) macro_names.emplace_back(name, name);
    break;
  }
  std::vector<std::string> names;
  std::string configs, bounds, chosen;
  for (const auto& b : best) {
    const auto it = by_id.find(b.id);
    if (it == by_id.end())
      return HeaderError(fmt::format("variant '{}' was not evaluated", Cut(b.id)));
    std::vector<std::string> these;
    std::string values;
    const auto& set = it->second->variant.values;
    for (const auto& [name, value] : set.empty() ? macro_names : set) {
      if (!IsIdentifier(name) || !(IsInteger(value) || IsIdentifier(value))) {
        return HeaderError(
            fmt::format("'{}={}' is not a C identifier set to an integer or identifier", Cut(name),
                        Cut(value)));
      }
      these.push_back(name);
      values += ", " + value;
    }
    if (&b != &best.front() && these != names) {
      return HeaderError("the chosen variants differ in their parameters");
    }
    names = these;
    configs += fmt::format(" \\\n  X({}LL{})", b.bucket.max_bytes, values);
    bounds += fmt::format("{}{}LL", bounds.empty() ? "" : ", ", b.bucket.max_bytes);
    chosen += fmt::format("//   {}: {} ({:.3f}x over {} case{}).\n", b.bucket.label, OneLine(b.id),
                          b.score, b.cases, b.cases == 1 ? "" : "s");
  }
  std::string params;
  for (const auto& n : names) params += ", " + n;
  return fmt::format(
      "// Generated by `kbuild tune` in \"{0}\". Do not edit: tune again instead.\n"
      "// The best configuration per shape bucket (the bytes a problem moves), by the\n"
      "// geometric mean speedup over the bucket's benchmark cases:\n"
      "{1}"
      "#pragma once\n\n"
      "// X(max_bytes{2}): max_bytes is the bucket's upper bound, -1 for no bound.\n"
      "#define KBUILD_TUNED_CONFIGS(X){3}\n\n"
      "// The index, in KBUILD_TUNED_CONFIGS order, of the configuration for a problem\n"
      "// that moves `bytes`: the first bucket that holds it, else the last.\n"
      "inline int KbuildTunedConfigIndex(long long bytes) {{\n"
      "  constexpr long long kMaxBytes[] = {{{4}}};\n"
      "  constexpr int kCount = {5};\n"
      "  for (int i = 0; i < kCount; ++i) {{\n"
      "    if (kMaxBytes[i] < 0 || bytes <= kMaxBytes[i]) return i;\n"
      "  }}\n"
      "  return kCount - 1;\n"
      "}}\n",
      OneLine(run_folder), chosen, params, configs, bounds, best.size());
}

}  // namespace kb
