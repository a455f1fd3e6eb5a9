#include "core/harness_library.h"

#include <chrono>
#include <sstream>
#include <vector>

#include "core/build_lock.h"
#include "core/build_runner.h"
#include "core/cmake_gen.h"
#include "core/cmake_quote.h"
#include "core/kbuild_home.h"
#include "core/paths.h"
#include "core/sha256.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

// The largest harness source is ~11 KB; a file past this is not one of kbuild's own.
constexpr std::uintmax_t kMaxHarnessFileBytes = 1u << 20;

// The libraries harness.cmake imports from KBUILD_HARNESS_PREBUILT_DIR.
constexpr const char* kLibraries[] = {"libkbuild_harness_core.a", "libkbuild_harness.a"};

// Length-prefixed, so that no two different inputs hash the same text.
void AddField(Sha256& hash, const std::string& name, const std::string& value) {
  hash.Update(name + " " + std::to_string(value.size()) + "\n");
  hash.Update(value);
  hash.Update("\n");
}

Status AddFile(Sha256& hash, const FileSystem& fs, const fs::path& root, const fs::path& rel) {
  auto text = fs.ReadAtMost(root / rel, kMaxHarnessFileBytes);
  if (!text) {
    Error e = text.error();
    e.message = "cannot read the harness source " + (root / rel).string() + ": " + e.message;
    e.hint = DataFolderHint("tools/harness");
    return e;
  }
  AddField(hash, "file " + rel.generic_string(), *text);
  return {};
}

bool IsComplete(const FileSystem& fs, const fs::path& dir) {
  if (!fs.Exists(dir / kHarnessLibraryStamp)) return false;
  for (const char* library : kLibraries) {
    if (!fs.Exists(dir / library)) return false;
  }
  return true;
}

void Say(const HarnessLibraryBuild& b, const std::string& text) {
  if (b.progress) b.progress(text);
}

// A failed configure or build of kbuild's own code: the first error, the log, and that the
// next run tries again.
Error Failure(const FileSystem& fs, const HarnessLibraryBuild& b, const ProcessResult& result,
              const std::string& step) {
  const std::string log = (b.dir / "build.log").string();
  Error e = BuildStepFailure(fs, result.output, step, fs::path(), log, "");
  e.hint = "the shared harness library (" + b.dir.string() +
           ") did not build; the next kbuild test or bench builds it again; full output: " + log;
  return e;
}

// One cmake step, its output appended to build.log; `output` (may be null) gets it too.
Status Run(const FileSystem& fs, ProcessRunner& runner, const HarnessLibraryBuild& b,
           const std::vector<std::string>& argv, const std::string& step,
           std::string* output = nullptr) {
  RunOptions options;
  options.log = b.dir / "build.log";
  options.echo = b.verbose;
  ProcessResult result = runner.Run(argv, options);
  if (result.log_error) return *result.log_error;
  if (result.not_found) return CMakeNotFound();
  if (result.exit_code != 0) return Failure(fs, b, result, step);
  if (output) *output = std::move(result.output);
  return {};
}

Status Build(FileSystem& fs, ProcessRunner& runner, const HarnessLibraryBuild& b) {
  Say(b,
      "building the shared harness library (once per torch and kbuild version): " + b.dir.string());
  if (Status s = fs.Remove(b.dir / kHarnessLibraryStamp); !s) return s;
  const std::string cmake_lists = RenderHarnessLibraryCMake(b);
  if (Status s = WriteIfChanged(fs, b.dir / "src" / "CMakeLists.txt", cmake_lists); !s) return s;
  if (Status s = fs.Write(b.dir / "build.log", ""); !s) return s;
  const std::string source_dir = (b.dir / "src").string();
  const std::string build_dir = (b.dir / "build").string();
  const std::string compiler = "-DCMAKE_CUDA_COMPILER=" + b.nvcc.string();
  if (Status s =
          Run(fs, runner, b, {"cmake", "-S", source_dir, "-B", build_dir, "-G", "Ninja", compiler},
              "cmake configure");
      !s) {
    return s;
  }

  std::vector<std::string> argv = {
      "cmake", "--build", build_dir, "--target", "kbuild_harness_core", "kbuild_harness"};
  if (b.jobs > 0) {
    argv.push_back("-j");
    argv.push_back(std::to_string(b.jobs));
  }
  if (b.verbose) argv.push_back("-v");
  const auto start = std::chrono::steady_clock::now();
  std::string output;
  if (Status s = Run(fs, runner, b, argv, "cmake --build", &output); !s) return s;
  BuildOutcome outcome;
  outcome.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CountBuildSteps(output, &outcome.compiled, &outcome.linked);
  // Written last: a build stopped before this line is built again by the next run.
  if (Status s =
          fs.Write(b.dir / kHarnessLibraryStamp, std::string("kbuild ") + KBUILD_VERSION + "\n");
      !s) {
    return s;
  }
  Say(b, "shared harness library: " + CompileSummary(outcome));
  return {};
}

}  // namespace

Expected<std::string> HarnessLibraryKey(const FileSystem& fs, const HarnessLibraryInputs& in) {
  Sha256 hash;
  AddField(hash, "kbuild", KBUILD_VERSION);
  AddField(hash, "toolchain", in.toolchain_key.dump());
  AddField(hash, "debug", in.debug ? "1" : "0");
  if (Status s = AddFile(hash, fs, in.harness_dir, "harness.cmake"); !s) return s.error();
  for (const char* folder : {"include", "src"}) {
    for (const auto& rel : fs.ListFilesRecursive(in.harness_dir / folder)) {
      if (Status s = AddFile(hash, fs, in.harness_dir, std::filesystem::path(folder) / rel); !s) {
        return s.error();
      }
    }
  }
  const auto digest = hash.Finish();
  return ToHex(digest.data(), digest.size());
}

Expected<fs::path> HarnessLibraryDir(const FileSystem& fs, const HarnessLibraryInputs& inputs,
                                     const fs::path& cache_dir) {
  auto key = HarnessLibraryKey(fs, inputs);
  if (!key) return key.error();
  return cache_dir / "harness" / key->substr(0, 16);
}

std::string RenderHarnessLibraryCMake(const HarnessLibraryBuild& b) {
  std::ostringstream out;
  out << "# Generated by kbuild: the harness libraries kernel projects import (their\n"
      << "# KBUILD_HARNESS_PREBUILT_DIR), built once for this torch, CUDA and kbuild. Do not "
         "edit.\n"
      << "cmake_minimum_required(VERSION 3.22)\n"
      // CUDA only so that CUDAToolkit comes from the same nvcc as in the project's build.
      << "project(kbuild_harness_library LANGUAGES CXX CUDA)\n"
      << "set(CMAKE_CUDA_ARCHITECTURES OFF)\n";
  if (b.ccache) {
    out << "set(CMAKE_CXX_COMPILER_LAUNCHER " << CMakeBracket(b.ccache->generic_string()) << ")\n";
  }
  if (b.debug) out << "add_compile_options(-O0 -g)\n";
  out << "set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY " << CMakeBracket(b.dir.generic_string()) << ")\n"
      << "find_package(CUDAToolkit REQUIRED)\n\n"
      << RenderTorchVariables(b.torch) << "include("
      << CMakeBracket(b.harness_cmake.generic_string()) << ")\n";
  return out.str();
}

Status EnsureHarnessLibrary(FileSystem& fs, ProcessRunner& runner, const HarnessLibraryBuild& b) {
  if (IsComplete(fs, b.dir)) return {};
  const fs::path lock_file = b.dir.parent_path() / (b.dir.filename().string() + ".lock");
  auto lock = BuildLock::Wait(lock_file, "shared harness library", [&b](const std::string& pid) {
    Say(b, "waiting for another kbuild" + (pid.empty() ? "" : " (pid " + pid + ")") +
               " to build the shared harness library");
  });
  if (!lock) return lock.error();
  if (IsComplete(fs, b.dir)) return {};  // built while this one waited
  return Build(fs, runner, b);
}

}  // namespace kb
