#include "core/results_writer.h"

#include <ctime>

#include "core/bench_render.h"
#include "core/json_fields.h"
#include "core/macro_defines.h"
#include "core/report.h"
#include "core/run_folder.h"
#include "core/svg_chart.h"

namespace kb {

nlohmann::json RunMetadataToJson(const RunMetadata& m) {
  return {
      {"date", m.date},
      {"gpu", m.gpu},
      {"torch", m.torch},
      {"cuda", m.cuda},
      {"kbuild_version", m.kbuild_version},
      {"git_commit", m.git_commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.git_commit)},
      {"git_dirty", m.git_dirty},
      {"defines", m.defines}};
}

RunMetadata RunMetadataFromJson(const nlohmann::json& run) {
  RunMetadata m;
  m.date = StringOr(run, "date");
  m.gpu = StringOr(run, "gpu");
  m.torch = StringOr(run, "torch");
  m.cuda = StringOr(run, "cuda");
  m.kbuild_version = StringOr(run, "kbuild_version");
  m.git_commit = StringOr(run, "git_commit");
  const auto dirty = run.is_object() ? run.find("git_dirty") : run.end();
  m.git_dirty = run.is_object() && dirty != run.end() && dirty->is_boolean() && dirty->get<bool>();
  for (const auto& d : ArrayAt(run, "defines")) {
    if (d.is_string()) m.defines.push_back(d.get<std::string>());
  }
  return m;
}

std::string MetadataHeaderLine(const RunMetadata& m) {
  std::string line = m.date + " · " + (m.gpu.empty() ? "unknown GPU" : m.gpu) + " · torch " +
                     m.torch + " · CUDA " + m.cuda + " · kbuild " + m.kbuild_version;
  if (!m.git_commit.empty()) {
    line += " · commit " + m.git_commit.substr(0, 12) + (m.git_dirty ? " (dirty)" : "");
  }
  if (!m.defines.empty()) line += " · " + DefineFlagsText(m.defines);
  return line;
}

std::string DefinesNote(const RunMetadata& before, const RunMetadata& after) {
  if (before.defines == after.defines) return "";
  auto named = [](const std::vector<std::string>& defines) {
    return defines.empty() ? std::string("none") : DefineFlagsText(defines);
  };
  return "the earlier run was built with " + named(before.defines) + ", this one with " +
         named(after.defines);
}

std::string IsoLocalTime() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &local);
  return buf;
}

nlohmann::json ResultDocument(const nlohmann::json& harness_doc, const RunMetadata& meta) {
  nlohmann::json doc = harness_doc;
  doc["run"] = RunMetadataToJson(meta);
  return doc;
}

std::string ChartedBaseline(const BenchTable& table) {
  if (table.ShowsBest()) return "the fastest baseline";
  return table.baselines.empty() ? "" : table.baselines.front();
}

double ChartedSpeedup(const BenchTable& table, const BenchRow& row) {
  if (table.ShowsBest()) return row.vs_best;
  return table.baselines.empty() ? 0 : row.SpeedupVs(table.baselines.front());
}

std::vector<std::pair<std::string, std::string>> RenderResultFiles(
    const nlohmann::json& harness_doc, const BenchTable& table, const RunMetadata& meta,
    const std::string& stamp) {
  const std::string header = MetadataHeaderLine(meta);
  std::vector<ChartBar> bars;
  for (const auto& r : table.rows) {
    bars.push_back({r.Key(), r.percent_of_peak, ChartedSpeedup(table, r), r.failed()});
  }
  const ChartText text{header, ChartedBaseline(table)};
  const std::pair<const char*, std::string> contents[] = {
      {".json", JsonText(ResultDocument(harness_doc, meta)) + "\n"},
      {".csv", BenchCsv(table)},
      {".md", "# Benchmark results\n\n" + BenchMarkdown(table, header)},
      {".svg", RenderBarChartSvg(text, bars)},
  };
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [ext, content] : contents) files.emplace_back("bench-" + stamp + ext, content);
  for (const auto& [ext, content] : contents)
    files.emplace_back(std::string("latest") + ext, content);
  return files;
}

Expected<std::vector<std::filesystem::path>> WriteResultFiles(
    FileSystem& fs, const std::filesystem::path& results_dir,
    const std::vector<std::pair<std::string, std::string>>& files) {
  // The files' own names are replaced, never written through; the folder is checked here.
  if (Status ok = CheckResultsFolder(fs, results_dir); !ok) return ok.error();
  std::vector<std::filesystem::path> written;
  for (const auto& [name, content] : files) {
    if (Status s = fs.Write(results_dir / name, content); !s) {
      Error e = s.error();
      e.hint = "check that " + results_dir.string() +
               " is writable; files written before this one are complete";
      return e;
    }
    written.push_back(results_dir / name);
  }
  return written;
}

}  // namespace kb
