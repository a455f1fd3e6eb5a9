#include "core/ncu_command.h"

#include <system_error>

#include "core/profile_summary.h"

namespace kb {

namespace {

bool IsRegularFile(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

// The sections that hold the summary's fields; --metrics adds the rest.
constexpr const char* kDefaultSections[] = {"SpeedOfLight",   "LaunchStats",
                                            "Occupancy",      "MemoryWorkloadAnalysis",
                                            "WarpStateStats", "InstructionStats"};

}  // namespace

std::filesystem::path FindCuobjdump(const std::filesystem::path& cuda_bin,
                                    const std::filesystem::path& torch_dir,
                                    const std::string& cuda_major, const NcuSearch& search) {
  const auto is_file = search.is_file ? search.is_file : IsRegularFile;
  if (!cuda_bin.empty() && is_file(cuda_bin / "cuobjdump")) return cuda_bin / "cuobjdump";
  if (const auto on_path = search.find_on_path("cuobjdump")) return *on_path;
  if (torch_dir.empty()) return {};
  const std::filesystem::path nvidia = torch_dir.parent_path() / "nvidia";
  for (const auto& candidate : {nvidia / ("cu" + cuda_major) / "bin" / "cuobjdump",
                                nvidia / "cuda_cuobjdump" / "bin" / "cuobjdump"}) {
    if (is_file(candidate)) return candidate;
  }
  return {};
}

NcuDiscovery FindNcu(const NcuSearch& search) {
  const auto is_file = search.is_file ? search.is_file : IsRegularFile;
  NcuDiscovery out;
  if (const auto env = search.get_env("KBUILD_NCU")) {
    if (is_file(*env)) {
      out.ncu = NcuLocation{*env, "KBUILD_NCU"};
    } else {
      out.problem = "KBUILD_NCU=" + *env + " is not a file";
    }
    return out;  // an explicit choice is never replaced by a guess
  }
  if (const auto on_path = search.find_on_path("ncu")) {
    out.ncu = NcuLocation{*on_path, "PATH"};
    return out;
  }
  std::vector<std::pair<std::filesystem::path, std::string>> candidates;
  if (const auto home = search.get_env("CUDA_HOME")) {
    candidates.push_back({std::filesystem::path(*home) / "bin" / "ncu", "CUDA_HOME"});
  }
  candidates.push_back({"/usr/local/cuda/bin/ncu", "/usr/local/cuda"});
  std::string searched = "KBUILD_NCU unset, no ncu on PATH";
  for (const auto& [path, by] : candidates) {
    if (is_file(path)) {
      out.ncu = NcuLocation{path, by};
      return out;
    }
    searched += ", no " + path.string();
  }
  out.problem = "Nsight Compute (ncu) not found: " + searched;
  return out;
}

std::vector<std::string> NcuCommand(const NcuRequest& r) {
  std::vector<std::string> argv = {r.ncu.string(), "--csv", "--page", "details",
                                   // Base units: "ns", "byte", "byte/second" whatever the size.
                                   "--print-units", "base",
                                   // The clocks the benchmark ran at, so durations compare.
                                   "--clock-control", "none", "--target-processes", "all",
                                   // Names as cuobjdump has them: the SASS is matched by them,
                                   // and ncu's demangling drops namespaces and template types.
                                   "--print-kernel-base", "mangled"};
  if (r.metric_set == "full") {
    argv.insert(argv.end(), {"--set", "full"});
  } else {
    for (const char* section : kDefaultSections) argv.insert(argv.end(), {"--section", section});
  }
  std::string metrics;
  for (const std::string& name : ProfileMetricNames()) metrics += name + ",";
  argv.insert(argv.end(), {"--metrics", metrics + kStallMetricsRegex});
  if (r.kernel_regex) {
    argv.insert(argv.end(), {"--kernel-name", "regex:" + *r.kernel_regex});
  } else if (!r.project_kernels.empty()) {
    // Mangled names are [A-Za-z0-9_$.]: '$' and '.' are the only regex characters to escape.
    std::string alternatives;
    for (const std::string& name : r.project_kernels) {
      if (!alternatives.empty()) alternatives += '|';
      for (const char ch : name) {
        if (ch == '$' || ch == '.') alternatives += '\\';
        alternatives += ch;
      }
    }
    argv.insert(argv.end(), {"--kernel-name-base", "mangled", "--kernel-name",
                             "regex:^(" + alternatives + ")$"});
  }
  argv.insert(argv.end(), {"--launch-skip", std::to_string(r.launch_skip), "--launch-count",
                           std::to_string(r.launch_count)});
  argv.insert(argv.end(), {r.binary.string(), "--benchmark_color=false",
                           "--benchmark_filter=" + r.case_filter});
  return argv;
}

bool IsHarnessKernel(std::string_view name) {
  return name.find("kbuild_spin_kernel") != std::string_view::npos ||
         name.find("kbuild_empty_kernel") != std::string_view::npos;
}

bool CountersNotPermitted(std::string_view ncu_output) {
  return ncu_output.find("ERR_NVGPUCTRPERM") != std::string_view::npos;
}

}  // namespace kb
