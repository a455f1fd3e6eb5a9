// Fakes for driving `kbuild tune` without a GPU or a compiler: a process
// runner and a file system safe to call from the build threads, and the JSON
// documents the children (`kbuild build|test|bench --json`, and `kbuild
// test|bench --build-only --json` in the build phase) answer with.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/fs.h"
#include "core/process.h"

namespace kb::tune_fakes {

using Json = nlohmann::json;
using Values = std::map<std::string, std::string>;
namespace fs = std::filesystem;

// A build-phase child: `kbuild test|bench --build-only`.
inline bool BuildOnly(const std::vector<std::string>& argv) {
  return std::find(argv.begin(), argv.end(), "--build-only") != argv.end();
}

// FakeProcessRunner records calls unguarded; builds run on worker threads.
class LockedRunner final : public ProcessRunner {
 public:
  explicit LockedRunner(FakeProcessRunner::Handler handler) : fake_(std::move(handler)) {}
  ProcessResult Run(const std::vector<std::string>& argv, const RunOptions& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return fake_.Run(argv, options);
  }
  std::vector<std::vector<std::string>> Calls() {
    std::lock_guard<std::mutex> lock(mutex_);
    return fake_.calls;
  }
  // (command, values) of every child started; the command of a build-phase
  // harness build is "test --build-only" or "bench --build-only".
  std::vector<std::pair<std::string, Values>> Children() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<std::string, Values>> out;
    for (const auto& argv : fake_.calls) {
      out.emplace_back(argv.at(3) + (BuildOnly(argv) ? " --build-only" : ""), ValuesOf(argv));
    }
    return out;
  }
  static Values ValuesOf(const std::vector<std::string>& argv) {
    Values values;
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] != "--define") continue;
      const auto eq = argv[i + 1].find('=');
      values[argv[i + 1].substr(0, eq)] = argv[i + 1].substr(eq + 1);
    }
    return values;
  }

 private:
  std::mutex mutex_;
  FakeProcessRunner fake_;
};

// The children write their build logs while the run reads and writes other
// files: a MemoryFileSystem behind one lock, like a real disk.
class LockedFileSystem final : public FileSystem {
  template <typename F>
  auto Locked(F f) const -> decltype(f()) {
    std::lock_guard<std::mutex> lock(mutex_);
    return f();
  }

 public:
  bool Exists(const fs::path& p) const override {
    return Locked([&] { return mem.Exists(p); });
  }
  bool IsDirectory(const fs::path& p) const override {
    return Locked([&] { return mem.IsDirectory(p); });
  }
  FileKind KindOf(const fs::path& p) const override {
    return Locked([&] { return mem.KindOf(p); });
  }
  Expected<std::string> ReadAtMost(const fs::path& p, std::uintmax_t max) const override {
    return Locked([&] { return mem.ReadAtMost(p, max); });
  }
  Status Write(const fs::path& p, const std::string& content) override {
    return Locked([&] { return mem.Write(p, content); });
  }
  Status MakeDirectories(const fs::path& p) override {
    return Locked([&] { return mem.MakeDirectories(p); });
  }
  std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const override {
    return Locked([&] { return mem.ListFilesRecursive(dir); });
  }
  std::vector<TreeEntry> ListEntries(const fs::path& dir) const override {
    return Locked([&] { return mem.ListEntries(dir); });
  }
  Status RenameNoReplace(const fs::path& from, const fs::path& to) override {
    return Locked([&] { return mem.RenameNoReplace(from, to); });
  }
  Status Remove(const fs::path& p) override {
    return Locked([&] { return mem.Remove(p); });
  }
  Status RemoveFileBelow(const fs::path& root, const fs::path& relative) override {
    return Locked([&] { return mem.RemoveFileBelow(root, relative); });
  }
  MemoryFileSystem mem;

 private:
  mutable std::mutex mutex_;
};

inline ProcessResult Answer(int exit_code, const Json& document) {
  ProcessResult r;
  r.exit_code = exit_code;
  r.output = document.dump(2) + "\n";
  return r;
}

inline Json ErrorDocument(const std::string& command, int exit_code, Json error) {
  error["exit_code"] = exit_code;
  return {{"command", command}, {"ok", false}, {"exit_code", exit_code}, {"error", error}};
}

// What `kbuild test|bench --build-only --json` answers: the build part only.
inline Json BuildOnlyDocument(const std::string& command) {
  return {{"command", command}, {"ok", true},    {"exit_code", 0},
          {"build_only", true}, {"compiled", 1}, {"seconds", 1.5}};
}

inline Json BenchDocument(double median_us) {
  Json tiny = {{"benchmark", "gemm"},
               {"case", "1x1 fp32"},
               {"correctness_only", true},
               {"time_us", {{"median", 3.0}}}};
  Json large = {{"benchmark", "gemm"},       {"case", "4096x4096 fp32"},
                {"correctness_only", false}, {"time_us", {{"median", median_us}}},
                {"percent_of_peak", 80.0},   {"bytes", 201326592.0}};
  Json harness = {{"cases", Json::array({tiny, large})}};
  return {{"command", "bench"}, {"ok", true}, {"harness", harness}};
}

inline Json TestDocument(int passed, int failed) {
  Json cases = Json::array();
  if (failed > 0) {
    cases.push_back(
        {{"test", "gemm"}, {"case", "7x33 fp32"}, {"verdict", "fail"}, {"reason", "mismatch"}});
  }
  return {
      {"command", "test"}, {"summary", {{"passed", passed}, {"failed", failed}}}, {"cases", cases}};
}

}  // namespace kb::tune_fakes
