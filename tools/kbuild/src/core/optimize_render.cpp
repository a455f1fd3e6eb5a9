// What a `kbuild optimize` run writes at its end: summary.md, progress.svg
// and best/.
#include <fmt/format.h>

#include <algorithm>

#include "core/message_text.h"
#include "core/optimize_history.h"
#include "core/optimize_run.h"
#include "core/svg_chart.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kIslandColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                         "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string CostText(const OptimizeTotals& t) {
  if (t.with_cost == 0) return "not reported";
  return fmt::format("{:.0f} tokens, ${:.2f}, {:.0f} s (reported by {} of {} attempts)",
                     t.cost.tokens, t.cost.usd, t.cost.seconds, t.with_cost, t.attempts);
}

}  // namespace

std::string OptimizeSummaryMarkdown(const OptimizeRunResult& r) {
  const OptimizeTotals& t = r.totals;
  std::string md = "# kbuild optimize: " + r.run_dir.filename().string() + "\n\n";
  md += r.best_id.empty() ? "No candidate passed.\n\n"
                          : fmt::format("Best: {} at {:.3f}x the baseline (files in best/).\n\n",
                                        r.best_id, r.best_score);
  if (!r.exhausted.empty()) md += "Ended before the budget: " + r.exhausted + ".\n\n";
  md += fmt::format(
      "Attempts: {} ({} ok, {} repairs). Time: propose {:.0f} s, build {:.0f} s, test {:.0f} s, "
      "bench {:.0f} s. Cost: {}.\n\n",
      t.attempts, t.ok, t.repairs, t.propose_seconds, t.build_seconds, t.test_seconds,
      t.bench_seconds, CostText(t));
  md +=
      "![progress](progress.svg)\n\n## Islands\n\n| island | best | score | attempts | restarts |\n"
      "|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.islands.size(); ++i) {
    const auto& s = r.islands[i];
    md += fmt::format("| {} | {} | {:.3f} | {} | {} |\n", i + 1, s.best_id, s.best_score,
                      s.attempts, s.restarts);
  }
  if (!r.migrations.empty()) {
    md += "\n## Migrations\n\n";
    for (const auto& m : r.migrations) {
      md += fmt::format("- after {} attempts: {} from island {} to island {}\n", m.after_attempts,
                        m.id, m.from + 1, m.to + 1);
    }
  }
  if (!r.gpu_baselines.empty()) {
    md += fmt::format(
        "\n## GPUs\n\nThe baseline timed on each worker's GPU, against the run's (> 1 is "
        "faster); each candidate is scored against the baseline of the GPU that judged it. "
        "They agree within {:.0f}% or are said to differ.\n\n| worker | GPU | baseline vs the "
        "run's |\n|---|---|---|\n",
        100 * kGpuBaselineTolerance);
    for (const auto& b : r.gpu_baselines) {
      md += fmt::format("| {} | {} | {} |\n", b.worker, b.device,
                        b.vs_run > 0 ? fmt::format("{:.3f}x", b.vs_run) : OneLine(b.problem));
    }
    md += "\n" + GpuBaselinesText(r.gpu_baselines) + "\n";
  }
  if (!r.worker_failures.empty()) {
    md +=
        "\n## Workers retired\n\nEach failed itself, not its candidate, which was judged "
        "again (on another worker, or by --resume):\n\n";
    for (const auto& f : r.worker_failures) md += "- " + OneLine(WorkerFailureText(f)) + "\n";
  }
  md +=
      "\n## Archive (best of each distinct candidate)\n\n| id | score | signature "
      "|\n|---|---|---|\n";
  for (const auto& e : r.archive)
    md += fmt::format("| {} | {:.3f} | {} |\n", e.id, e.score, e.signature);
  md +=
      "\n## Attempts\n\n| id | island | parent | origin | change | verdict | score | first error "
      "|\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& a : r.attempts) {
    const Candidate& c = a.candidate;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.3f} | {} |\n", c.id, c.island + 1,
                      c.parent, OriginWord(c.origin), OneLine(c.summary), VerdictWord(a.verdict),
                      a.score, OneLine(a.first_error));
  }
  return md;
}

std::string OptimizeProgressSvg(const std::vector<Attempt>& attempts, int islands) {
  constexpr double kLeft = 60, kTop = 40, kWidth = 600, kHeight = 260;
  islands = std::clamp(islands, 1, 64);
  double top = 1.0;
  for (const auto& a : attempts) top = std::max(top, a.score);
  top *= 1.1;
  const size_t n = std::max<size_t>(attempts.size(), 2);
  auto x = [&](size_t i) {
    return kLeft + kWidth * static_cast<double>(i) / static_cast<double>(n - 1);
  };
  auto y = [&](double s) { return kTop + kHeight * (1 - s / top); };
  std::string svg = SvgOpening(kLeft + kWidth + 140, static_cast<int>(kTop + kHeight + 50),
                               ".axis{stroke:#444}.grid{stroke:#ddd}.lbl{font:11px sans-serif}",
                               "best speedup over the baseline vs attempt, per island");
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", kLeft,
                     kTop, kTop + kHeight);
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", kLeft,
                     kTop + kHeight, kLeft + kWidth);
  for (double s : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0}) {
    if (s > top) break;
    svg += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/>"
        "<text class=\"lbl\" x=\"{}\" y=\"{:.1f}\">{:.1f}x</text>",
        kLeft, y(s), kLeft + kWidth, y(s), kLeft - 35, y(s) + 4, s);
  }
  svg += fmt::format("<text class=\"lbl\" x=\"{}\" y=\"{}\">attempt</text>", kLeft + kWidth / 2,
                     kTop + kHeight + 30);
  for (int island = 0; island < islands; ++island) {
    std::string points;
    double best = 0;
    for (size_t i = 0; i < attempts.size(); ++i) {
      const Attempt& a = attempts[i];
      const bool mine =
          a.candidate.island == island || a.candidate.origin == CandidateOrigin::kBaseline;
      if (!mine) continue;
      if (a.verdict == AttemptVerdict::kOk) best = std::max(best, a.score);
      points += fmt::format("{:.1f},{:.1f} ", x(i), y(best));
    }
    const char* color = kIslandColors[island % 8];
    svg += fmt::format(
        "<polyline class=\"island\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "points=\"{}\"/>",
        color, points);
    svg += fmt::format("<text class=\"lbl\" x=\"{}\" y=\"{}\" fill=\"{}\">island {}</text>",
                       kLeft + kWidth + 10, kTop + 15 * island + 10, color, island + 1);
  }
  return svg + "</svg>\n";
}

Status WriteOptimizeConclusions(FileSystem& fs, OptimizeRunResult& r) {
  const fs::path summary = r.run_dir / "summary.md";
  if (Status s = fs.Write(summary, OptimizeSummaryMarkdown(r)); !s) return s;
  const fs::path svg = r.run_dir / "progress.svg";
  int islands = 1;
  for (const auto& a : r.attempts) islands = std::max(islands, a.candidate.island + 1);
  if (Status s = fs.Write(svg, OptimizeProgressSvg(r.attempts, islands)); !s) return s;
  r.files = {summary, svg};
  const fs::path best = r.run_dir / "best";
  if (Status s = fs.Remove(best); !s) return s;
  for (const auto& a : r.attempts) {
    if (a.candidate.id != r.best_id || r.best_id == kOptimizeBaselineId) continue;
    for (const auto& f : a.candidate.files) {
      if (Status s = fs.Write(best / f.relative, f.content); !s) return s;
    }
    std::string defines;
    for (const auto& [name, value] : a.candidate.defines) defines += name + "=" + value + "\n";
    if (!defines.empty()) {
      if (Status s = fs.Write(best / "defines.txt", defines); !s) return s;
    }
    r.files.push_back(best);
  }
  return {};
}

}  // namespace kb
