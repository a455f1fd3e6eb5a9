// What the peer worker wrote (schema kbuild-peer-results/1, references/kbuild-output.md
// "Peers"), read as hostile input - its names and messages come from the project's
// benchmarks/peers.py - and merged into the harness's benchmark document: each peer becomes a
// baseline of its case, so the table, CSV, markdown and chart show it like any other.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

inline constexpr const char* kPeerResultsSchema = "kbuild-peer-results/1";
// More is not a results file of a sane run (a record is well under 1 KB).
inline constexpr std::uintmax_t kMaxPeerResultsBytes = 16u << 20;

struct PeerTime {
  double median = 0, p10 = 0, p90 = 0;  // microseconds; 0 = not timed
};

struct PeerAvailability {
  std::string name;
  bool available = false;
  std::string reason;  // why not available
};

// One timed callable of a case: our op (through ours()) or a peer.
struct PeerTiming {
  std::string name;  // "" for ours
  PeerTime time_us;
  double host_us_per_call = 0;
  double gbps = 0;
  double max_abs_error = 0;
  std::string problem;  // "" = correct and timed
};

struct PeerRecord {
  std::string benchmark;
  std::string case_name;
  PeerTiming ours;
  std::vector<PeerTiming> peers;
};

struct PeerResults {
  std::string device, torch, mode;
  std::vector<PeerAvailability> peers;
  std::vector<PeerRecord> records;
  std::vector<std::string> problems;
};

// Exit 5 (the worker and kbuild disagree) naming the first key that is missing or of the wrong
// type, e.g. "records[0].peers[1].time_us.median: expected a number". Strings are put on one
// line and cut (OneLine); negative or non-finite numbers are refused.
Expected<PeerResults> ParsePeerResults(const nlohmann::json& doc);

// `path` must be a regular file (not a symlink) of at most kMaxPeerResultsBytes holding valid
// JSON; then ParsePeerResults. The error names the file.
Expected<PeerResults> ReadPeerResults(const FileSystem& fs, const std::filesystem::path& path);

// Adds each record's peers to the case of the same benchmark and case name as baselines
// {"name", "source": "python", "time_us", "speedup", "host_us_per_call", "gbps",
// "max_abs_error", "problem"}, with speedup = peer median / the worker's median of our op (0
// when either has a problem); the worker's timing of our op as the case's "ours_python"; and to
// the document "peers" (availability), "peer_mode" and, appended to "peer_problems", one line
// for each peer not available, each peer that failed in a case, each problem of ours in the
// worker, each problem the worker reported and each record kbuild cannot place. A value check
// of our op that failed in the worker ("incorrect ...") fails the case; nothing a peer does
// fails one.
void MergePeerResults(const PeerResults& results, nlohmann::json* harness_doc);

}  // namespace kb
