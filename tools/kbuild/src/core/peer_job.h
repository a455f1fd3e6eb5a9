// The job kbuild bench hands the peer worker (tools/harness/python/peer_worker.py): the
// cases the benchmark binary timed, to be timed again against the Python peers of the
// project's benchmarks/peers.py under the same rules. Schema kbuild-peer-job/1
// (references/kbuild-output.md, "Peers").
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kb {

inline constexpr const char* kPeerJobSchema = "kbuild-peer-job/1";

struct PeerJobSettings {
  std::filesystem::path peers_file;       // absolute benchmarks/peers.py
  std::filesystem::path project_library;  // the op library the harness was given
  std::string op_namespace;               // torch.ops.<namespace> is passed to ours()
  bool graph = false;
  std::optional<int> warmup;      // as asked (--warmup); else what the harness ran
  std::optional<int> iterations;  // as asked (--iters); else what the harness ran
  double peak_gbps = 0;           // the run's 100% line
  double dram_gbps = 0;           // the DRAM's theoretical rate; 0 = unknown
};

struct PeerJob {
  nlohmann::json document;
  // Cases the harness timed that the job leaves out for a reason the user must see
  // ("rms_norm/1x8 bf16: the harness record has no tolerance ..."). Failed and
  // correctness-only cases are left out without one: they have no time to compare.
  std::vector<std::string> skipped;
  size_t cases() const { return document["cases"].size(); }
};

// A case of the harness document the peers are timed on: it passed ("verdict": "ok") and
// is not correctness-only.
bool IsTimedCase(const nlohmann::json& harness_case);

// The job for the cases of a kbuild-harness-bench/1 document.
PeerJob MakePeerJob(const nlohmann::json& harness_doc, const PeerJobSettings& settings);

}  // namespace kb
