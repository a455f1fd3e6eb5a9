#include "core/harness_targets.h"

#include <ctime>

#include "core/kbuild_home.h"

namespace kb {

Expected<HarnessTarget> FindHarnessTarget(const CMakePlan& plan, const BuildPaths& paths,
                                          HarnessKind kind) {
  const bool tests = kind == HarnessKind::kTests;
  if (!plan.harness_cmake) {
    return MakeError(ExitCode::kEnvironment,
                     "the kbuild harness (tools/harness/harness.cmake) was not found",
                     DataFolderHint("tools/harness"));
  }
  const bool has_sources = tests ? !plan.test_sources.empty() : !plan.benchmark_sources.empty();
  if (!has_sources) {
    return MakeError(ExitCode::kUsage,
                     tests ? "no tests: the project has no tests/*.cpp"
                           : "no benchmarks: the project has no benchmarks/*.cpp",
                     tests ? "write a GoogleTest file with the harness (see templates/rmsnorm/"
                             "tests/rms_norm_test.cpp and tools/harness/README.md)"
                           : "write a benchmark with the harness (see templates/rmsnorm/"
                             "benchmarks/rms_norm_bench.cpp and tools/harness/README.md)");
  }
  HarnessTarget t;
  t.target = tests ? kTestsTarget : kBenchmarksTarget;
  t.binary = paths.cmake / t.target;
  t.log = paths.logs / (tests ? "test.log" : "bench.log");
  t.results = paths.build / (tests ? "test-results" : "bench-results");
  t.project_library = paths.cmake / (plan.op_namespace + ".so");
  return t;
}

std::string FileTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &local);
  return buf;
}

}  // namespace kb
