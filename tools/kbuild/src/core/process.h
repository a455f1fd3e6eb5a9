// The process seam: nvcc, cmake, ninja, python3 and test binaries run through
// ProcessRunner, so unit tests can script their answers (FakeProcessRunner).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace kb {

struct RunOptions {
  std::filesystem::path cwd;                 // empty = current directory
  std::map<std::string, std::string> env;    // added to / overriding the environment
  std::optional<std::filesystem::path> log;  // also append all output to this file
  double timeout_seconds = 0;                // 0 = no limit; on expiry the process group is killed
  bool echo = false;                         // stream output to stderr while running
  // Called with each output line (without its '\n') as it arrives, e.g. to show a child's
  // progress lines; a last line without '\n' is passed when the output ends.
  std::function<void(const std::string&)> on_line;
};

// Splits a stream of output chunks into lines for RunOptions::on_line. A line longer than
// kMaxLine is passed on in pieces, so a child that never prints '\n' cannot grow it unbounded.
class OutputLines {
 public:
  static constexpr size_t kMaxLine = 64 * 1024;
  explicit OutputLines(std::function<void(const std::string&)> on_line)
      : on_line_(std::move(on_line)) {}
  void Add(const char* data, size_t size);
  void Finish();  // the last, unterminated line

 private:
  std::function<void(const std::string&)> on_line_;
  std::string pending_;
};

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128+signal
  bool timed_out = false;
  bool not_found = false;    // the program could not be started
  std::string output;        // stdout and stderr, interleaved
  bool interrupted = false;  // kbuild got SIGINT/SIGTERM and ended the process group
  // RunOptions::log could not be opened (then nothing ran) or written (the run went on; the
  // output is complete here, the log is not): the file_write.h error naming the log.
  std::optional<Error> log_error;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult Run(const std::vector<std::string>& argv, const RunOptions& options) = 0;
};

// Each program runs in its own process group. On the timeout the group gets SIGKILL; on
// kbuild's own SIGINT/SIGTERM (stop_signal.h) it gets SIGTERM, so ninja removes the outputs of
// the commands it interrupts, then SIGKILL after a grace for whatever is left. After such a
// signal no new program starts. The log is opened with AppendLog before the program starts.
class RealProcessRunner final : public ProcessRunner {
 public:
  ProcessResult Run(const std::vector<std::string>& argv, const RunOptions& options) override;
};

// Answers from a callback; records every call. For unit tests.
class FakeProcessRunner final : public ProcessRunner {
 public:
  using Handler = std::function<ProcessResult(const std::vector<std::string>&, const RunOptions&)>;
  explicit FakeProcessRunner(Handler handler) : handler_(std::move(handler)) {}
  ProcessResult Run(const std::vector<std::string>& argv, const RunOptions& options) override {
    calls.push_back(argv);
    return handler_(argv, options);
  }
  std::vector<std::vector<std::string>> calls;

 private:
  Handler handler_;
};

// Full path of `program` on PATH, or nothing.
std::optional<std::filesystem::path> FindOnPath(const std::string& program);

// Value of an environment variable, or nothing when unset or empty.
std::optional<std::string> GetEnv(const std::string& name);

}  // namespace kb
