// Writes a benchmark run into the project's results/ folder: the harness
// document plus run metadata as bench-<timestamp>.json, and .csv, .md and
// .svg beside it; the same four as latest.*. Everything is rendered in memory
// first and written through FileSystem (temp file + rename), so a failure
// never leaves a half-written results file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/bench_results.h"
#include "core/error.h"
#include "core/fs.h"

namespace kb {

struct RunMetadata {
  std::string date;  // ISO 8601 local time, "2026-11-30T14:25:01"
  std::string gpu;
  std::string torch;  // "2.11.0+cu130"
  std::string cuda;   // nvcc's release, "13.0"
  std::string kbuild_version;
  std::string git_commit;  // empty outside git
  bool git_dirty = false;
  // The build's --define NAME=VALUE, in order: a knob's numbers never pass for the default's.
  std::vector<std::string> defines;
};

nlohmann::json RunMetadataToJson(const RunMetadata& meta);
// The "run" object of a results file back; a missing or mistyped field reads as empty.
RunMetadata RunMetadataFromJson(const nlohmann::json& run);

// "2026-11-30T14:25:01 · NVIDIA H200 · torch 2.11.0+cu130 · CUDA 13.0 · kbuild 0.1.0 ·
// commit 1a2b3c4d (dirty) · --define TILE=64": the first line of the markdown file and the
// chart title (the defines only when the build had some).
std::string MetadataHeaderLine(const RunMetadata& meta);

// "" when two runs' builds had the same defines, else which each had ("the earlier run was
// built with --define TILE=64, this one with none"): said beside kbuild bench --compare's table.
std::string DefinesNote(const RunMetadata& before, const RunMetadata& after);

// Now, for RunMetadata::date.
std::string IsoLocalTime();

// The harness document with a "run" object added; still a valid input of
// kbuild bench --compare.
nlohmann::json ResultDocument(const nlohmann::json& harness_doc, const RunMetadata& meta);

// The baseline the chart's speedup panel is against: "the fastest baseline" (each case's
// vs best) with two or more baselines, else the only one; "" = no speedup panel.
std::string ChartedBaseline(const BenchTable& table);
// The bar of `row` in that panel (0 = none).
double ChartedSpeedup(const BenchTable& table, const BenchRow& row);

// filename -> content for one run: bench-<stamp>.{json,csv,md,svg} and latest.*.
std::vector<std::pair<std::string, std::string>> RenderResultFiles(
    const nlohmann::json& harness_doc, const BenchTable& table, const RunMetadata& meta,
    const std::string& stamp);

// Writes them under `results_dir`; returns the paths written.
Expected<std::vector<std::filesystem::path>> WriteResultFiles(
    FileSystem& fs, const std::filesystem::path& results_dir,
    const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace kb
