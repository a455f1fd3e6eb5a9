// How `kbuild tune` talks to the kbuild it starts for each variant: the
// command lines (`kbuild -C <copy> build|test|bench --define ... --json`) and
// what their JSON documents (references/kbuild-output.md) and the build log
// say: the verdict, the first error line, the tests passed, the timed cases
// and the register spills ptxas reported.
//
// A child's output is hostile input like any file: a document that does not
// parse is a failure with a reason, never a crash.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/tune_types.h"

namespace kb {

// `<exe> -C <project> <command> --define NAME=VALUE ... <extra...>`.
std::vector<std::string> TuneChildArgv(const std::filesystem::path& exe,
                                       const std::filesystem::path& project,
                                       const std::string& command, const TuneVariant& variant,
                                       const std::vector<std::string>& extra);

// What one child run came to.
enum class ChildOutcome {
  kOk,           // exit 0
  kFailed,       // it ran and failed: `reason` says why
  kEnvironment,  // exit 4 (no GPU, nvcc or torch): the whole run stops there
  kStopped,      // Ctrl-C / SIGTERM reached it: nothing is recorded
};

struct ChildResult {
  ChildOutcome outcome = ChildOutcome::kFailed;
  std::string reason;       // one line; "" when kOk
  nlohmann::json document;  // the child's --json document (null when none parsed)
};

// Reads a child's result. `step` ("build", "test", "bench") words the reason
// when the document has no better one.
ChildResult ReadChildResult(const ProcessResult& result, const std::string& step);

// Why a failed step is its worker's failure rather than the candidate's
// (Attempt::worker_failure; "" when it is the candidate's): the child was
// killed by a signal that was no stop of the run (a time limit is the
// candidate's hang, 130 / 143 a Ctrl-C), or a test or bench child found no
// usable GPU (exit 4) where the build had run.
std::string WorkerFailureReason(const ProcessResult& result, const ChildResult& child,
                                const std::string& command);

// The --json document in a child's output (stdout and stderr interleaved):
// the whole output, else the last line "{" that starts a valid document.
nlohmann::json ChildDocument(const std::string& output);

// "path:line:col: message" of a document's error (first line only), or "".
std::string ChildErrorLine(const nlohmann::json& document);

// Why `kbuild test --json` failed: "2 of 306 cases failed, first: <test> [<case>]: <reason>".
std::string TestFailureReason(const nlohmann::json& test_document);

// Why `kbuild bench --json` failed: the first failed case and its first problem.
std::string BenchFailureReason(const nlohmann::json& bench_document);

// summary.passed of a `kbuild test --json` document (0 when absent).
int TestsPassed(const nlohmann::json& test_document);

// The performance cases (not correctness_only, with a median) of a
// `kbuild bench --json` document, named "<benchmark>/<case>".
std::vector<TuneCaseTime> PerformanceCases(const nlohmann::json& bench_document);

// The largest "N bytes spill stores" ptxas reported (-Xptxas=-warn-spills
// or -v) in a build log; 0 when none.
int SpillBytesInLog(const std::string& log);

}  // namespace kb
