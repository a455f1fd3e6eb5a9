#include "core/queue_setup.h"

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/report.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxFilterLength = 4096;
constexpr double kMaxSeconds = 7 * 24 * 3600;

}  // namespace

fs::path QueueProjectDir(const fs::path& queue_dir) { return queue_dir / "project"; }

Status WriteQueueSetup(FileSystem& fs, const fs::path& queue_dir, const QueueSetup& setup,
                       const ProjectSnapshot& snapshot) {
  if (Status s = WriteProjectCopy(fs, snapshot, QueueProjectDir(queue_dir)); !s) return s;
  const nlohmann::json config = {{"bench_filter", setup.bench_filter},
                                 {"child_timeout", setup.child_timeout},
                                 {"lease_seconds", setup.lease_seconds}};
  return fs.Write(queue_dir / "config.json", JsonText(config) + "\n");
}

Expected<QueueSetup> ReadQueueSetup(const FileSystem& fs, const fs::path& queue_dir) {
  const fs::path path = queue_dir / "config.json";
  auto refuse = [&](const std::string& why) {
    Error e = MakeError(ExitCode::kUsage, why,
                        "kbuild optimize or kbuild tune --backend queue or slurm writes this "
                        "folder; give "
                        "kbuild worker --queue the queue/ folder of such a run");
    e.path = path.string();
    return e;
  };
  if (fs.KindOf(path) != FileKind::kRegular) {
    return refuse("no queue configuration (config.json is missing or not a regular file)");
  }
  auto text = fs.ReadAtMost(path, kMaxConfigBytes);
  if (!text) return text.error();
  const nlohmann::json config = ParseUntrustedJson(*text);
  if (!config.is_object()) return refuse("config.json is not a JSON object");
  QueueSetup setup;
  setup.bench_filter = StringOr(config, "bench_filter");
  setup.child_timeout = NumberOr(config, "child_timeout", -1);
  setup.lease_seconds = NumberOr(config, "lease_seconds", -1);
  if (setup.bench_filter.size() > kMaxFilterLength) return refuse("bench_filter is too long");
  if (!(setup.child_timeout > 0 && setup.child_timeout <= kMaxSeconds)) {
    return refuse("child_timeout must be a number of seconds, above 0 and at most a week");
  }
  if (!(setup.lease_seconds > 0 && setup.lease_seconds <= kMaxSeconds)) {
    return refuse("lease_seconds must be a number of seconds, above 0 and at most a week");
  }
  if (fs.KindOf(QueueProjectDir(queue_dir)) != FileKind::kDirectory) {
    return refuse("the project copy " + QueueProjectDir(queue_dir).string() +
                  " is missing or not a folder");
  }
  return setup;
}

}  // namespace kb
