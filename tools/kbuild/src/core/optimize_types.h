// The values `kbuild optimize` passes between its parts: a candidate (what a
// proposer wrote: changed source files and/or macro values), and the record
// of one attempt (how evaluating it went, what it cost). optimize_history.h
// writes and reads them as history.jsonl lines.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tune_types.h"

namespace kb {

// Where a candidate came from.
enum class CandidateOrigin {
  kBaseline,   // the project as it is: what every score is relative to
  kProposer,   // --proposer CMD
  kBuiltin,    // --proposer builtin (no language model)
  kRepair,     // a proposer asked to fix its last failed candidate
  kMigration,  // another island's best, copied in
};

// One changed file: its path relative to the project and its new content.
struct CandidateFile {
  std::filesystem::path relative;
  std::string content;
};

struct Candidate {
  std::string id;      // the attempt's id, "a0001", ...
  int island = 0;      // 0-based
  std::string parent;  // the attempt it changes ("" for the baseline)
  CandidateOrigin origin = CandidateOrigin::kProposer;
  int repair = 0;  // 1..R when it repairs the previous attempt's failure
  // The candidate's whole state relative to the project: its parent's files
  // and defines with its own changes applied.
  std::vector<CandidateFile> files;
  std::vector<std::pair<std::string, std::string>> defines;  // -DNAME=VALUE
  std::string summary;                                       // one line: what changed
};

enum class AttemptVerdict {
  kOk,
  kCompileError,
  kTestFailed,
  kCrashed,
  kTimedOut,
  kRuleBroken,  // the harness refused it (faster than physics, unwritten outputs, ...)
  kProposerFailed,
  kLost,  // never evaluated: its queue worker went silent past the retries (queue_evaluator.h)
};

// What a proposer said it spent; absent when it did not say.
struct AttemptCost {
  double tokens = 0;
  double usd = 0;
  double seconds = 0;
};

struct Attempt {
  Candidate candidate;  // files hold paths only once recorded (contents live in attempts/<id>/)
  AttemptVerdict verdict = AttemptVerdict::kOk;
  std::string first_error;   // one line (compile: file:line:col: message)
  std::string error_source;  // the source line the first error points at, when known
  double propose_seconds = 0;
  double build_seconds = 0;
  double test_seconds = 0;
  double bench_seconds = 0;
  int tests_passed = 0;
  std::vector<TuneCaseTime> cases;  // performance cases (kOk)
  double score = 0;                 // geometric mean speedup over the baseline (kOk), 0 = none
  std::optional<AttemptCost> cost;
  // Not the candidate's doing, and never recorded: a child of its evaluation
  // was killed by a signal (not the run's Ctrl-C), or the worker's GPU could
  // not run tests or benchmarks (exit 4). The run retires the worker and
  // judges the candidate again elsewhere (optimize_workers.h). "" = none.
  std::string worker_failure;
};

// "ok", "compile_error", "test_failed", "crashed", "timed_out", "rule_broken", "proposer_failed",
// "lost".
std::string VerdictWord(AttemptVerdict verdict);
std::optional<AttemptVerdict> VerdictFromWord(const std::string& word);
// "baseline", "proposer", "builtin", "repair", "migration".
std::string OriginWord(CandidateOrigin origin);
std::optional<CandidateOrigin> OriginFromWord(const std::string& word);

}  // namespace kb
