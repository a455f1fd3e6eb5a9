// The peers step of kbuild bench: when the project has benchmarks/peers.py, time its Python
// peers (torch.compile, Liger, ...) against our op in the peer worker
// (tools/harness/python/peer_worker.py, run by the Python torch was found with) and merge
// the results into the harness's benchmark document. A worker that cannot run or whose
// results kbuild cannot read leaves the document's C++ results as they were and says why.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/fs.h"
#include "core/peer_job.h"
#include "core/process.h"

namespace kb {

// benchmarks/peers.py is Python source; a file larger than this is not one to import.
inline constexpr std::uintmax_t kMaxPeersFileBytes = 1u << 20;
inline constexpr double kDefaultPeersTimeoutSeconds = 1200;

struct PeerRunOptions {
  bool enabled = true;  // false with --no-peers
  std::filesystem::path project_dir;
  std::filesystem::path worker;    // <kbuild data>/tools/harness/python/peer_worker.py
  std::filesystem::path python;    // the interpreter that found torch; empty = none
  std::string torch_found_by;      // how torch was found (for the message when python is empty)
  std::filesystem::path job_file;  // build/bench-results/peers-job-<stamp>.json
  std::filesystem::path out_file;  // build/bench-results/peers-<stamp>.json (the worker writes it)
  std::filesystem::path log;       // build/logs/bench.log: the worker's output is appended
  double timeout_seconds = kDefaultPeersTimeoutSeconds;
  PeerJobSettings job;                               // peers_file is filled in by RunPeers
  std::function<void(const std::string&)> progress;  // the worker's "peers: ..." lines
};

struct PeerRunOutcome {
  bool ran = false;   // the worker ran and its results were merged
  std::string error;  // why the peers were not timed though the project has them ("" = fine)
  bool failed() const { return !error.empty(); }
};

// <project>/benchmarks/peers.py.
std::filesystem::path PeersFile(const std::filesystem::path& project_dir);

// The worker below kbuild's data folder.
std::filesystem::path PeerWorkerPath(const std::filesystem::path& kbuild_home);

// The worker's command line; relative paths (but a bare program name) made absolute, as the
// worker runs in the project folder.
std::vector<std::string> PeerWorkerCommand(const PeerRunOptions& options);

// Nothing happens when the step is disabled or the project has no benchmarks/peers.py.
// Otherwise the document gets "peer_problems" (and, after a run, what MergePeerResults adds)
// and "peer_error" (the outcome's error). benchmarks/peers.py must be a regular file (not a
// symlink) of at most kMaxPeersFileBytes.
PeerRunOutcome RunPeers(FileSystem& fs, ProcessRunner& runner, const PeerRunOptions& options,
                        nlohmann::json* harness_doc);

}  // namespace kb
