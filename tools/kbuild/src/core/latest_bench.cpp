#include "core/latest_bench.h"

#include "core/json_fields.h"

namespace kb {

LatestBenchRead ReadLatestBench(const FileSystem& fs, const std::filesystem::path& project) {
  LatestBenchRead read;
  Expected<FileKind> kind = KindBelow(fs, project, kLatestBenchFile);
  if (!kind) {
    read.problem = kind.error().message;
    return read;
  }
  if (*kind == FileKind::kMissing) return read;
  if (*kind != FileKind::kRegular) {
    read.problem = std::string(kLatestBenchFile) + " is not a regular file";
    return read;
  }
  auto text = fs.ReadAtMost(project / kLatestBenchFile, kMaxResultsBytes);
  if (!text) {
    read.problem = std::string(kLatestBenchFile) + ": " + text.error().message;
    return read;
  }
  const auto doc = ParseUntrustedJson(*text);
  if (doc.is_discarded()) {
    read.problem = std::string(kLatestBenchFile) + " is not valid JSON";
    return read;
  }
  auto table = ParseBenchDocument(doc);
  if (!table) {
    read.problem = std::string(kLatestBenchFile) + ": " + table.error().message;
    return read;
  }
  read.bench = LatestBench{std::move(*table), RunMetadataFromJson(ObjectAt(doc, "run"))};
  return read;
}

}  // namespace kb
