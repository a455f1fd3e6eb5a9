#include "core/cuda_env.h"

#include <regex>
#include <sstream>

namespace kb {

namespace fs = std::filesystem;

nlohmann::json CudaEnvToJson(const CudaEnv& env) {
  return {{"root", env.root.string()}, {"nvcc", env.nvcc.string()}, {"version", env.version},
          {"build", env.build},        {"found_by", env.found_by},  {"archs", env.archs}};
}

std::optional<std::pair<std::string, std::string>> ParseNvccVersion(const std::string& output) {
  static const std::regex re(R"(release (\d+\.\d+), (V[\d.]+))");
  std::smatch m;
  if (!std::regex_search(output, m, re)) return std::nullopt;
  return std::make_pair(m[1].str(), m[2].str());
}

Expected<CudaEnv> DiscoverCuda(ProcessRunner& runner, const CudaSearch& search) {
  CudaEnv env;
  if (auto home = search.get_env("CUDA_HOME")) {
    env.root = *home;
    env.nvcc = env.root / "bin" / "nvcc";
    env.found_by = "CUDA_HOME";
  } else if (auto nvcc = search.find_on_path("nvcc")) {
    env.nvcc = *nvcc;
    env.root = nvcc->parent_path().parent_path();
    env.found_by = "PATH";
  } else {
    env.root = search.default_root;
    env.nvcc = env.root / "bin" / "nvcc";
    env.found_by = search.default_root.string();
  }
  RunOptions options;
  options.timeout_seconds = 60;
  const ProcessResult r = runner.Run({env.nvcc.string(), "--version"}, options);
  if (r.not_found || r.exit_code != 0) {
    Error e = MakeError(ExitCode::kEnvironment,
                        "nvcc not found or not working (looked at " + env.nvcc.string() + ", via " +
                            env.found_by + ")",
                        "install the CUDA Toolkit (e.g. apt-get install cuda-toolkit-13-0) or set "
                        "CUDA_HOME to its root (the folder holding bin/nvcc)");
    if (!r.not_found) e.detail = r.output;
    return e;
  }
  auto version = ParseNvccVersion(r.output);
  if (!version) {
    return MakeError(ExitCode::kEnvironment,
                     "cannot read the CUDA version from '" + env.nvcc.string() + " --version'",
                     "run it by hand; expected a line like 'Cuda compilation tools, release 13.0, "
                     "V13.0.88'");
  }
  env.version = version->first;
  env.build = version->second;
  const ProcessResult archs = runner.Run({env.nvcc.string(), "--list-gpu-arch"}, options);
  if (archs.exit_code == 0) {
    std::istringstream lines(archs.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("compute_", 0) == 0) env.archs.push_back(line);
    }
  }
  return env;
}

}  // namespace kb
