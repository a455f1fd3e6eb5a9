// The files a `kbuild tune` run writes from its ranking (tune_results.h): the
// summary table (summary.md), the heatmap of variants x cases (heatmap.svg)
// and the dispatch header that picks the best configuration per shape bucket
// at run time (tuned_config.h).
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/tune_results.h"
#include "core/tune_types.h"

namespace kb {

// A markdown document: `title`, the counts (evaluated, valid, ranked, invalid
// by stage), the best variant per shape bucket, then a table with one row per
// variant: rank ("-" when unranked), id, parameters, score vs the baseline,
// worst case, and the stage with its reason for those that do not rank; the
// variants benchmarked but not fully tested come after the ranked ones with
// their scores, marked "benchmarked, not fully tested".
std::string TuneSummaryMarkdown(const std::string& title,
                                const std::vector<TuneEvaluation>& evaluations,
                                const TuneRanking& ranking, const std::vector<BucketBest>& best);

// A self-contained SVG: one row per variant (ranked ones in rank order, the
// benchmarked but not fully tested ones coloured too, marked "*", then the
// unranked in grey with their reason as a <title> tooltip), one column per
// case, each cell coloured by % of peak on a fixed scale shown as a legend.
// Every text is XML-escaped.
std::string TuneHeatmapSvg(const std::string& title, const std::vector<TuneEvaluation>& evaluations,
                           const TuneRanking& ranking);

// A C++ header (`#pragma once`) naming the run folder, with
//   #define KBUILD_TUNED_CONFIGS(X) X(<max bytes>, <value>, ...) ...
// one X per bucket of `best`, smallest first (max bytes -1 for "larger"; a
// bucket won by the defaults, which set no macro, lists the macro names
// themselves: they expand to the kernel's own defaults), and
//   inline int KbuildTunedConfigIndex(long long bytes)
// returning the index of the first bucket whose bound holds `bytes` (the last
// one past every bound). Exit 5 when `best` is empty, a chosen variant is not
// among `evaluations`, the variants disagree on the parameter names, or a
// value is neither an integer nor a C identifier (it would be pasted as code).
Expected<std::string> TuneDispatchHeader(const std::string& run_folder,
                                         const std::vector<TuneEvaluation>& evaluations,
                                         const std::vector<BucketBest>& best);

}  // namespace kb
