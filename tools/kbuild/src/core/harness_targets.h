// Where kbuild test and kbuild bench find the harness binaries the generated
// CMake project declares (kbuild_tests, kbuild_benchmarks), and where their
// results and logs go. Fails early, with a hint, when a project has no
// tests/ or benchmarks/ sources or kbuild has no harness to link them with.
#pragma once

#include <filesystem>
#include <string>

#include "core/cmake_gen.h"
#include "core/error.h"
#include "core/paths.h"

namespace kb {

enum class HarnessKind { kTests, kBenchmarks };

struct HarnessTarget {
  std::string target;             // kTestsTarget or kBenchmarksTarget
  std::filesystem::path binary;   // build/cmake/<target>
  std::filesystem::path log;      // build/logs/test.log or bench.log
  std::filesystem::path results;  // build/test-results or build/bench-results
  // build/cmake/<op_namespace>.so: the harness checks the op ran kernels of it
  std::filesystem::path project_library;
};

// Exit 2 when the project has no tests/*.cpp (benchmarks/*.cpp), exit 4
// when tools/harness/harness.cmake was not found.
Expected<HarnessTarget> FindHarnessTarget(const CMakePlan& plan, const BuildPaths& paths,
                                          HarnessKind kind);

// "20261130-142501" (local time): sortable, safe in file names.
std::string FileTimestamp();

}  // namespace kb
