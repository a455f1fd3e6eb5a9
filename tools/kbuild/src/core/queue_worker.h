// The worker's side of the work queue (what `kbuild worker` runs, docs/scale-out.md): claims
// items one at a time, evaluates each with the reader of its payload's "kind" (kbuild
// optimize's candidates: queue_evaluator.h; kbuild tune's variants: tune_queue.h), writes the
// record into done/, and beats a heartbeat meanwhile, also while an evaluation runs (from a
// second thread). Its role picks what it claims: kAll takes built/ items' GPU stage first, else
// a pending item whole; kBuild takes pending items and builds them (a compile error is the
// item's record at once; a built item goes to built/, its tree in items/<id>/); kGpu takes
// built/ items only (built_tree.h). A payload that cannot be read (an unknown kind, a path outside
// the project, an id that is not the queue's) is recorded lost with the reason: another host wrote
// it.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/queue_client.h"
#include "core/work_queue.h"

namespace kb {

enum class WorkerRole { kAll, kBuild, kGpu };

// What a worker does with one claimed item: all of it, its build (CPU), or the tests and
// benchmark of an item another worker built (GPU).
enum class WorkStage { kWhole, kBuild, kGpu };

// What evaluating one item gave.
struct WorkResult {
  nlohmann::json record;  // done/<id>.json's keys (an object; the queue adds id and worker)
  std::string word;       // for the progress line: the verdict or stage ("ok", "build-failed")
  bool built = false;     // kBuild only: `record` is the build record for built/, not the result
};

// A claimed item its reader could read: runs the evaluation. Nothing when Ctrl-C stopped it;
// an error ends the worker (a child reported no GPU, nvcc or torch; a file cannot be written).
using PreparedWork = std::function<Expected<std::optional<WorkResult>>()>;

// Reads one kind of payload for `stage`; nothing, with `problem` set, when the payload (or, for
// kGpu, the built tree) cannot be used.
using WorkReader = std::function<std::optional<PreparedWork>(
    const ClaimedWork& work, WorkStage stage, std::string* problem)>;

struct QueueWorkerOptions {
  std::string name;  // the worker's queue name (CheckQueueName)
  WorkerRole role = WorkerRole::kAll;
  double idle_exit_seconds = 300;                    // ends after this long with nothing pending
  double poll_seconds = 2;                           // between looks at pending/ while idle
  double heartbeat_seconds = 10;                     // between heartbeats, idle or busy
  std::function<void(const std::string&)> progress;  // one line per event; may be empty
};

struct QueueWorkerSummary {
  int evaluated = 0;  // items finished here (a build worker's compile errors included)
  int built = 0;      // items a build worker built and left in built/
  int malformed = 0;  // payloads it could not read (recorded as lost with the reason)
  std::string
      why_ended;  // "stop requested (...)", "nothing pending for N s", "stopped by a signal"
};

// Claims and evaluates until queue/stop appears, nothing was pending for idle_exit_seconds, or
// Ctrl-C. `readers` maps a payload's "kind" to its reader. An error ends it only when the
// queue folder cannot be written or an evaluation fails that way.
Expected<QueueWorkerSummary> RunQueueWorker(FileSystem& fs, const std::filesystem::path& queue_dir,
                                            const std::map<std::string, WorkReader>& readers,
                                            const QueueWorkerOptions& options, QueueClock clock);

}  // namespace kb
