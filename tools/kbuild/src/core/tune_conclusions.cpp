// The end of a `kbuild tune` run: the ranking of what the history holds and
// the files written from it (tune_render.h).
#include <fmt/format.h>

#include <algorithm>

#include "core/tune_render.h"
#include "core/tune_runner.h"

namespace kb {

void WriteTuneConclusions(FileSystem& fs, const TuneOptions& options, TuneRunResult& r) {
  r.baseline_id = ChooseBaselineId(r.evaluations, kTuneDefaultsId);
  if (r.baseline_id.empty()) {
    r.warnings.push_back("no valid variant yet: nothing to rank");
    return;
  }
  auto ranking = RankVariants(r.evaluations, r.baseline_id);
  auto best = BestPerBucket(r.evaluations, r.baseline_id);
  if (!ranking || !best) {
    r.warnings.push_back("cannot rank: " + (!ranking ? ranking.error() : best.error()).message);
    return;
  }
  r.ranking = std::move(*ranking);
  r.best = std::move(*best);
  const std::string folder = r.run_dir.lexically_relative(options.project_dir).generic_string();
  const std::string title = "kbuild tune: " + options.project_dir.filename().string() + " (" +
                            r.run_dir.filename().string() + ")";
  std::vector<std::pair<std::string, std::string>> files = {
      {"summary.md", TuneSummaryMarkdown(title, r.evaluations, r.ranking, r.best)},
      {"heatmap.svg", TuneHeatmapSvg(title, r.evaluations, r.ranking)}};
  const bool variant_ranked =
      std::any_of(r.ranking.ranked.begin(), r.ranking.ranked.end(),
                  [](const RankedVariant& v) { return v.id != kTuneDefaultsId; });
  if (!variant_ranked) {
    r.warnings.push_back(
        r.ranking.screened.empty()
            ? "tuned_config.h not written: no variant of the space ranked"
            : fmt::format("tuned_config.h not written: no variant of the space passed the full "
                          "test suite ({} benchmarked, not fully tested)",
                          r.ranking.screened.size()));
  } else if (auto header = TuneDispatchHeader(folder, r.evaluations, r.best); !header) {
    r.warnings.push_back("tuned_config.h not written: " + header.error().message);
  } else {
    files.emplace_back("tuned_config.h", std::move(*header));
  }
  for (const auto& [name, content] : files) {
    if (Status s = fs.Write(r.run_dir / name, content); !s) {
      r.warnings.push_back(s.error().Located());
      continue;
    }
    r.files.push_back(r.run_dir / name);
  }
}

}  // namespace kb
