#include "core/work_queue.h"

#include <cmath>
#include <utility>

#include "core/json_fields.h"

namespace kb {

namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

constexpr const char* kFolders[] = {"pending", "claimed", "built", "running",
                                    "done",    "workers", "items", "tmp"};
// Payloads carry candidate sources, so records get the results cap; heartbeats are a few fields.
constexpr std::uintmax_t kMaxRecordBytes = kMaxResultsBytes;
constexpr std::uintmax_t kMaxHeartbeatBytes = kMaxConfigBytes;
constexpr std::size_t kMaxNameLength = 100;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool IsSafeName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  if (name[0] == '-' || name[0] == '_') return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

// claimed/<id>.<worker>.json: both halves must be safe names.
std::optional<std::pair<std::string, std::string>> SplitClaimName(const std::string& name) {
  const auto dot = name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string id = name.substr(0, dot), worker = name.substr(dot + 1);
  if (!IsSafeName(id) || !IsSafeName(worker)) return std::nullopt;
  return std::make_pair(std::move(id), std::move(worker));
}

std::string KindWord(FileKind kind) {
  switch (kind) {
    case FileKind::kSymlink:
      return "a symbolic link (refused, not followed)";
    case FileKind::kDirectory:
      return "a folder";
    case FileKind::kOther:
      return "not a regular file";
    default:
      return "not readable";
  }
}

std::string WholeSeconds(double seconds) {
  return std::to_string(static_cast<long long>(std::floor(seconds)));
}

}  // namespace

Status CheckQueueName(const std::string& name, const char* what) {
  if (IsSafeName(name)) return {};
  return MakeError(ExitCode::kUsage, std::string("unsafe queue ") + what + " '" + name + "'",
                   "use 1-100 letters, digits, '-' or '_', starting with a letter or digit");
}

WorkQueue::WorkQueue(FileSystem& fs, stdfs::path queue_dir) : fs_(fs), dir_(std::move(queue_dir)) {}

void WorkQueue::Skip(const stdfs::path& p, std::string why) {
  Error error = MakeError(ExitCode::kUsage, "skipped queue file: " + std::move(why));
  error.path = p.string();
  skipped_.push_back(std::move(error));
}

Status WorkQueue::PrepareFolders() {
  std::vector<stdfs::path> folders = {dir_};
  for (const char* name : kFolders) folders.push_back(Folder(name));
  for (const stdfs::path& folder : folders) {
    const FileKind kind = fs_.KindOf(folder);
    if (kind == FileKind::kDirectory) continue;
    if (kind != FileKind::kMissing) {
      Error error = MakeError(ExitCode::kUsage, "queue folder is " + KindWord(kind),
                              "remove it; kbuild creates the queue folders itself");
      error.path = folder.string();
      return error;
    }
    if (Status made = fs_.MakeDirectories(folder); !made) return made;
  }
  return {};
}

std::vector<WorkQueue::Entry> WorkQueue::ListRecords(const char* folder) {
  std::vector<Entry> out;
  const stdfs::path dir = Folder(folder);
  for (const TreeEntry& entry : fs_.ListEntries(dir)) {
    const stdfs::path path = dir / entry.relative;
    if (entry.relative.has_parent_path()) {
      Skip(path, "inside a subfolder of " + std::string(folder) + "/");
    } else if (entry.kind != FileKind::kRegular) {
      Skip(path, KindWord(entry.kind));
    } else if (entry.relative.extension() != ".json") {
      Skip(path, "not a .json file");
    } else {
      out.push_back({entry.relative.stem().string(), path});
    }
  }
  return out;
}

std::optional<json> WorkQueue::ReadRecord(const stdfs::path& p, std::uintmax_t limit) {
  const FileKind kind = fs_.KindOf(p);
  if (kind == FileKind::kMissing) return std::nullopt;  // gone since listed: not a problem
  if (kind != FileKind::kRegular) {
    Skip(p, KindWord(kind));
    return std::nullopt;
  }
  Expected<std::string> text = fs_.ReadAtMost(p, limit);
  if (!text) {
    Skip(p, text.error().message);
    return std::nullopt;
  }
  json record = ParseUntrustedJson(*text);
  if (!record.is_object()) {
    Skip(p, record.is_discarded() ? "malformed JSON" : "not a JSON object");
    return std::nullopt;
  }
  return record;
}

Expected<bool> WorkQueue::PublishNoReplace(const std::string& temp_name, const stdfs::path& target,
                                           const json& record) {
  const stdfs::path temp = Folder("tmp") / temp_name;
  if (Status written = fs_.Write(temp, record.dump(2) + "\n"); !written) return written.error();
  Status renamed = fs_.RenameNoReplace(temp, target);
  if (renamed) return true;
  fs_.Remove(temp);  // best effort: tmp/ holds only our own half-steps
  if (fs_.KindOf(target) != FileKind::kMissing) return false;
  return renamed.error();
}

Status WorkQueue::Enqueue(const std::string& id, const json& payload, int retries) {
  if (Status ok = CheckQueueName(id, "id"); !ok) return ok;
  if (Status ok = PrepareFolders(); !ok) return ok;
  const json record = {{"id", id}, {"retries", retries}, {"payload", payload}};
  Expected<bool> published =
      PublishNoReplace(id + ".enqueue.json", Folder("pending") / (id + ".json"), record);
  if (!published) return published.error();
  if (!*published) {
    return MakeError(ExitCode::kUsage, "queue id '" + id + "' is already pending",
                     "give each attempt its own id");
  }
  return {};
}

Expected<std::optional<ClaimedWork>> WorkQueue::Claim(const std::string& worker, ClaimFrom from) {
  if (Status ok = CheckQueueName(worker, "worker"); !ok) return ok.error();
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  const bool built = from == ClaimFrom::kBuilt;
  const char* claims = built ? "running" : "claimed";
  for (const Entry& entry : ListRecords(built ? "built" : "pending")) {
    if (!IsSafeName(entry.name)) {
      Skip(entry.path, "not a safe queue id");
      continue;
    }
    // Checked before the rename so a bad file stays where it is rather than blocking a claim.
    if (!ReadRecord(entry.path, kMaxRecordBytes)) continue;
    const std::string claim_name = entry.name + "." + worker + ".json";
    const stdfs::path claim = Folder(claims) / claim_name;
    if (!fs_.RenameNoReplace(entry.path, claim)) continue;  // another worker won it
    std::optional<json> record = ReadRecord(claim, kMaxRecordBytes);
    if (!record) continue;
    if (fs_.Exists(Folder("done") / (entry.name + ".json"))) {
      // A re-queued copy of an attempt whose late result already arrived.
      fs_.RemoveFileBelow(Folder(claims), claim_name);
      continue;
    }
    ClaimedWork work{entry.name, record->contains("payload") ? (*record)["payload"] : json(),
                     IntegerOr(*record, "retries", 0), json()};
    if (built) work.built = ObjectAt(*record, "built");
    return std::optional<ClaimedWork>(std::move(work));
  }
  return std::optional<ClaimedWork>();
}

Expected<bool> WorkQueue::PublishBuilt(const std::string& worker, const std::string& id,
                                       const json& built) {
  if (Status ok = CheckQueueName(worker, "worker"); !ok) return ok.error();
  if (Status ok = CheckQueueName(id, "id"); !ok) return ok.error();
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  const std::string claim_name = id + "." + worker + ".json";
  const stdfs::path claim = Folder("claimed") / claim_name;
  std::optional<json> record = ReadRecord(claim, kMaxRecordBytes);
  if (!record) {
    return MakeError(ExitCode::kEnvironment,
                     "worker " + worker + " no longer holds queue id '" + id + "'",
                     "its lease ran out while it built; another worker builds it again");
  }
  Expected<bool> published = false;
  if (!fs_.Exists(Folder("done") / (id + ".json"))) {
    (*record)["retries"] = 0;
    (*record)["built"] = built;
    published = PublishNoReplace(id + "." + worker + ".built.json",
                                 Folder("built") / (id + ".json"), *record);
    if (!published) return published.error();
  }
  if (Status removed = fs_.RemoveFileBelow(Folder("claimed"), claim_name); !removed) {
    Skip(claim, removed.error().message);
  }
  return *published;
}

Expected<stdfs::path> WorkQueue::BuiltTreeDir(const std::string& id, const std::string& builder) {
  if (Status ok = CheckQueueName(id, "id"); !ok) return ok.error();
  if (Status ok = CheckQueueName(builder, "worker"); !ok) return ok.error();
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  return Folder("items") / id / builder;
}

Status WorkQueue::Heartbeat(const std::string& worker, const std::optional<std::string>& holding,
                            double now) {
  if (Status ok = CheckQueueName(worker, "worker"); !ok) return ok;
  if (holding) {
    if (Status ok = CheckQueueName(*holding, "id"); !ok) return ok;
  }
  if (Status ok = PrepareFolders(); !ok) return ok;
  const json beat = {
      {"worker", worker}, {"holding", holding ? json(*holding) : json()}, {"time", now}};
  return fs_.Write(Folder("workers") / (worker + ".json"), beat.dump(2) + "\n");
}

Expected<CompleteOutcome> WorkQueue::Complete(const std::string& worker, const std::string& id,
                                              const json& result) {
  if (Status ok = CheckQueueName(worker, "worker"); !ok) return ok.error();
  if (Status ok = CheckQueueName(id, "id"); !ok) return ok.error();
  if (!result.is_object()) {
    return MakeError(ExitCode::kInternal, "result for queue id '" + id + "' is not a JSON object");
  }
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  json record = result;
  record["id"] = id;
  record["worker"] = worker;
  Expected<bool> published =
      PublishNoReplace(id + "." + worker + ".result.json", Folder("done") / (id + ".json"), record);
  if (!published) return published.error();
  const std::string claim_name = id + "." + worker + ".json";
  for (const char* claims : {"claimed", "running"}) {
    if (Status removed = fs_.RemoveFileBelow(Folder(claims), claim_name); !removed) {
      Skip(Folder(claims) / claim_name, removed.error().message);
    }
  }
  // The built tree served its purpose; items/<id> is a name kbuild chose (a planted link there
  // is removed itself, never followed).
  if (Status removed = fs_.Remove(Folder("items") / id); !removed) {
    Skip(Folder("items") / id, removed.error().message);
  }
  return *published ? CompleteOutcome::kRecorded : CompleteOutcome::kDuplicateDropped;
}

Expected<ReclaimReport> WorkQueue::Reclaim(double now, double lease_seconds, int max_retries) {
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  ReclaimReport report;
  if (Status s = ReclaimFolder("claimed", "pending", now, lease_seconds, max_retries, report); !s) {
    return s.error();
  }
  if (Status s = ReclaimFolder("running", "built", now, lease_seconds, max_retries, report); !s) {
    return s.error();
  }
  return report;
}

Status WorkQueue::ReclaimFolder(const char* claims, const char* back, double now,
                                double lease_seconds, int max_retries, ReclaimReport& report) {
  for (const Entry& entry : ListRecords(claims)) {
    const auto names = SplitClaimName(entry.name);
    if (!names) {
      Skip(entry.path, "not a <id>.<worker>.json claim");
      continue;
    }
    const auto& [id, worker] = *names;
    const std::optional<json> beat =
        ReadRecord(Folder("workers") / (worker + ".json"), kMaxHeartbeatBytes);
    const double last = beat ? NumberOr(*beat, "time", NAN) : NAN;
    if (!std::isnan(last) && now - last <= lease_seconds) continue;  // still alive
    std::optional<json> record = ReadRecord(entry.path, kMaxRecordBytes);
    if (!record) continue;
    const std::string claim_name = entry.name + ".json";
    const stdfs::path done = Folder("done") / (id + ".json");
    if (fs_.Exists(done)) {  // finished after all: the claim is only litter
      fs_.RemoveFileBelow(Folder(claims), claim_name);
      continue;
    }
    const int retries = IntegerOr(*record, "retries", 0);
    Expected<bool> published = false;
    if (retries >= max_retries) {
      const std::string silence =
          std::isnan(last) ? "worker " + worker + " sent no heartbeat"
                           : "worker " + worker + " silent for " + WholeSeconds(now - last) + " s";
      const json lost = {{"id", id},
                         {"verdict", "lost"},
                         {"reason", silence + " after " + std::to_string(retries) + " retries"},
                         {"worker", worker},
                         {"retries", retries}};
      published = PublishNoReplace(id + ".lost.json", done, lost);
      if (published && *published) report.lost.push_back(id);
    } else {
      (*record)["retries"] = retries + 1;
      published = PublishNoReplace(id + ".requeue.json", Folder(back) / (id + ".json"), *record);
      if (published && *published) report.requeued.push_back(id);
    }
    if (!published) return published.error();
    if (!*published) Skip(entry.path, "left claimed: its id is already pending or done");
    if (*published) fs_.RemoveFileBelow(Folder(claims), claim_name);
  }
  return {};
}

Expected<QueueCounts> WorkQueue::Counts() {
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  QueueCounts counts;
  for (const Entry& entry : ListRecords("pending")) counts.pending += IsSafeName(entry.name);
  for (const Entry& entry : ListRecords("claimed")) {
    counts.claimed += SplitClaimName(entry.name).has_value();
  }
  for (const Entry& entry : ListRecords("built")) counts.built += IsSafeName(entry.name);
  for (const Entry& entry : ListRecords("running")) {
    counts.running += SplitClaimName(entry.name).has_value();
  }
  for (const Entry& entry : ListRecords("done")) counts.done += IsSafeName(entry.name);
  return counts;
}

Expected<bool> WorkQueue::IsQueued(const std::string& id) {
  if (Status ok = CheckQueueName(id, "id"); !ok) return ok.error();
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  for (const char* waiting : {"pending", "built"}) {
    if (fs_.KindOf(Folder(waiting) / (id + ".json")) == FileKind::kRegular) return true;
  }
  for (const char* claims : {"claimed", "running"}) {
    for (const Entry& entry : ListRecords(claims)) {
      const auto names = SplitClaimName(entry.name);
      if (names && names->first == id) return true;
    }
  }
  return false;
}

Expected<std::optional<json>> WorkQueue::DoneRecordOf(const std::string& id) {
  if (Status ok = CheckQueueName(id, "id"); !ok) return ok.error();
  return ReadRecord(Folder("done") / (id + ".json"), kMaxRecordBytes);  // missing: nothing
}

bool WorkQueue::StopRequested() const { return fs_.Exists(dir_ / "stop"); }

Status WorkQueue::RequestStop() {
  if (Status ok = PrepareFolders(); !ok) return ok;
  return fs_.Write(dir_ / "stop", "stop\n");
}

Status WorkQueue::ClearStop() {
  if (fs_.KindOf(dir_ / "stop") == FileKind::kMissing) return {};
  return fs_.RemoveFileBelow(dir_, "stop");
}

Expected<std::vector<DoneRecord>> WorkQueue::Done() {
  if (Status ok = PrepareFolders(); !ok) return ok.error();
  std::vector<DoneRecord> out;
  for (const Entry& entry : ListRecords("done")) {
    if (!IsSafeName(entry.name)) {
      Skip(entry.path, "not a safe queue id");
      continue;
    }
    if (std::optional<json> record = ReadRecord(entry.path, kMaxRecordBytes)) {
      out.push_back({entry.name, std::move(*record)});
    }
  }
  return out;
}

}  // namespace kb
