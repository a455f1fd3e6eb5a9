// Fakes for driving `kbuild tune` without a GPU or a compiler: a process
// runner and a file system safe to call from the build threads, the JSON
// documents the children (`kbuild build|test|bench --json`, and `kbuild
// test|bench --build-only --json` in the build phase) answer with, and a
// scripted gemm project whose four variants fail at each stage but one.
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
#include "core/tune_runner.h"
#include "core/tune_space.h"

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
  Status CopyFile(const fs::path& from, const fs::path& to) override {
    return Locked([&] { return mem.CopyFile(from, to); });
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

inline constexpr const char* kGemmSpace = R"([tune]
max-spill-bytes = 16
[tune.params]
BLOCK = [64, 128]
VECS = [1, 2]
)";

// The script: BLOCK=64 VECS=1 does not compile, BLOCK=64 VECS=2 fails a test,
// BLOCK=128 VECS=1 spills (its build log says so), BLOCK=128 VECS=2 is fast
// and spills a little (within max-spill-bytes). The harness builds replace
// build.log with their own, as kbuild test and bench do.
inline ProcessResult ScriptedGemm(FileSystem& fs, const std::vector<std::string>& argv) {
  const std::string command = argv.at(3);
  const Values v = LockedRunner::ValuesOf(argv);
  const bool b64 = v.count("BLOCK") && v.at("BLOCK") == "64";
  const std::string vecs = v.count("VECS") ? v.at("VECS") : "";
  const fs::path log = fs::path(argv.at(2)) / "build/logs/build.log";
  if (BuildOnly(argv)) {
    EXPECT_TRUE(fs.Write(log, "[1/2] Building CXX object " + command + "\n").ok());
    return Answer(0, BuildOnlyDocument(command));
  }
  if (command == "build") {
    if (b64 && vecs == "1") {
      return Answer(3, ErrorDocument("build", 3,
                                     {{"message", "identifier \"z\" is undefined\nmore"},
                                      {"path", "gemm/gemm.cu"},
                                      {"line", 48},
                                      {"column", 5}}));
    }
    const std::string spills = b64 || v.empty() ? ""
                               : vecs == "1"    ? ", 48 bytes spill stores, 48 bytes spill loads"
                                                : ", 8 bytes spill stores, 8 bytes spill loads";
    const Status logged = fs.Write(log,
                                   "ptxas warning : Registers are spilled to local memory in "
                                   "function 'gemm'" +
                                       spills + "\n");
    EXPECT_TRUE(logged.ok());
    return Answer(0, {{"command", "build"}, {"ok", true}, {"seconds", 12.5}});
  }
  if (command == "test") return Answer(b64 && vecs == "2" ? 1 : 0, TestDocument(306, b64 ? 1 : 0));
  return Answer(0, BenchDocument(v.empty() ? 100.0 : 80.0));
}

// The scripted gemm project at `project` (build.toml, kbuild.toml with kGemmSpace, one kernel
// source); the id of each variant by its values ("BLOCK=64 VECS=1").
inline std::map<std::string, std::string> WriteGemmProject(FileSystem& fs,
                                                           const fs::path& project) {
  EXPECT_TRUE(fs.Write(project / "kbuild.toml", kGemmSpace).ok());
  EXPECT_TRUE(fs.Write(project / "build.toml", "[general]\nname = \"gemm\"\n").ok());
  EXPECT_TRUE(fs.Write(project / "gemm/gemm.cu", "// kernel\n").ok());
  std::map<std::string, std::string> ids;
  auto space = ParseTuneSpace(kGemmSpace, "kbuild.toml");
  EXPECT_TRUE(space.ok());
  if (!space.ok()) return ids;
  for (const auto& v : GridVariants(*space, 100)) ids[TuneValuesText(v)] = v.id;
  return ids;
}

}  // namespace kb::tune_fakes
