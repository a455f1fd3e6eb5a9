// The work queue (docs/scale-out.md, "The work queue #16 builds"): a folder on a shared file
// system through which one run hands candidates to many workers.
//
//   pending/<id>.json            written only by the run: {id, retries, payload}
//   claimed/<id>.<worker>.json   a worker took it by renaming pending/<id>.json (one rename wins):
//                                a --role build worker builds it, a --role all one does it all
//   built/<id>.json              a build worker built it: {id, retries, payload, built}, its
//                                tree in items/<id>/<worker>/ (kbuild worker --role build)
//   running/<id>.<worker>.json   a --role gpu (or all) worker took it from built/ for its tests
//                                and benchmark
//   done/<id>.json               the record; the first one renamed in stays, later ones are dropped
//   workers/<worker>.json        heartbeat {worker, holding, time}
//   tmp/                         whole files are written here, then renamed into place
//
// A silent worker's claim goes back where it came from (claimed/ to pending/, running/ to
// built/); each stage counts its own retries.
//
// Other hosts write this folder, so every file is hostile: ids and worker names are checked
// before they become file names, links are refused rather than followed, reads are size-capped,
// and a file that cannot be used is reported in skipped() and passed over, never fatal.
// Time is passed in (seconds) so tests drive the leases with a fake clock.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// Ids and worker names become file names: 1-100 letters, digits, '-' or '_', starting with a
// letter or digit (no '.', so claimed/<id>.<worker>.json splits one way only).
Status CheckQueueName(const std::string& name, const char* what);

// Which folder a worker claims from: pending/ (to build, or to do it all) or built/.
enum class ClaimFrom { kPending, kBuilt };

struct ClaimedWork {
  std::string id;
  nlohmann::json payload;
  int retries = 0;
  nlohmann::json built;  // from built/: what the build stage recorded; else null
};

enum class CompleteOutcome { kRecorded, kDuplicateDropped };

struct ReclaimReport {
  std::vector<std::string> requeued;  // ids put back in pending/
  std::vector<std::string> lost;      // ids recorded as lost
};

struct QueueCounts {
  std::size_t pending = 0;
  std::size_t claimed = 0;  // building, or done whole by a --role all worker
  std::size_t built = 0;
  std::size_t running = 0;  // built items in their tests and benchmark
  std::size_t done = 0;
};

struct DoneRecord {
  std::string id;
  nlohmann::json record;
};

class WorkQueue {
 public:
  WorkQueue(FileSystem& fs, std::filesystem::path queue_dir);

  // Run side.
  Status Enqueue(const std::string& id, const nlohmann::json& payload, int retries = 0);
  // Claims whose worker's heartbeat is older than `lease_seconds` (or missing) go back to
  // pending with one more retry; one already retried `max_retries` times is recorded as lost.
  Expected<ReclaimReport> Reclaim(double now, double lease_seconds, int max_retries);

  // Worker side.
  Expected<std::optional<ClaimedWork>> Claim(const std::string& worker,
                                             ClaimFrom from = ClaimFrom::kPending);
  // A build worker's claim becomes built/<id>.json with `built` (an object) and its retries
  // back at 0 (the next stage's own). False, and the claim dropped, when the id is done
  // already.
  Expected<bool> PublishBuilt(const std::string& worker, const std::string& id,
                              const nlohmann::json& built);
  // items/<id>/<builder>: where a build worker puts the tree it built (ids and names checked).
  Expected<std::filesystem::path> BuiltTreeDir(const std::string& id, const std::string& builder);
  Status Heartbeat(const std::string& worker, const std::optional<std::string>& holding,
                   double now);
  // `result` must be a JSON object; the record is it plus id and worker. The claim (claimed/ or
  // running/) and the item's built tree (items/<id>/) are removed.
  Expected<CompleteOutcome> Complete(const std::string& worker, const std::string& id,
                                     const nlohmann::json& result);

  // Progress and resume.
  Expected<QueueCounts> Counts();
  Expected<std::vector<DoneRecord>> Done();
  // The id is pending, claimed, built or running (a resumed run's attempt).
  Expected<bool> IsQueued(const std::string& id);
  // done/<id>.json, or nothing when it is not there (or not usable: then in skipped()).
  Expected<std::optional<nlohmann::json>> DoneRecordOf(const std::string& id);
  // queue/stop exists: workers end after their current evaluation.
  bool StopRequested() const;
  Status RequestStop();
  Status ClearStop();  // a resumed run's workers must not find the last run's stop

  // Files passed over (links, malformed JSON, odd names), each naming its path.
  const std::vector<Error>& skipped() const { return skipped_; }

 private:
  struct Entry {
    std::string name;  // file name without ".json"
    std::filesystem::path path;
  };
  Status PrepareFolders();
  std::filesystem::path Folder(const char* name) const { return dir_ / name; }
  // Regular `<name>.json` files directly in `folder`; anything else is reported and skipped.
  std::vector<Entry> ListRecords(const char* folder);
  // Sends the silent workers' claims in `claims` back to `back` (or records them lost).
  Status ReclaimFolder(const char* claims, const char* back, double now, double lease_seconds,
                       int max_retries, ReclaimReport& report);
  // The JSON object in a regular file, or nothing (reported) when it is not one.
  std::optional<nlohmann::json> ReadRecord(const std::filesystem::path& p, std::uintmax_t limit);
  // Writes tmp/<temp_name> whole, then renames it to `target` unless `target` exists.
  Expected<bool> PublishNoReplace(const std::string& temp_name, const std::filesystem::path& target,
                                  const nlohmann::json& record);
  void Skip(const std::filesystem::path& p, std::string why);

  FileSystem& fs_;
  std::filesystem::path dir_;
  std::vector<Error> skipped_;
};

}  // namespace kb
