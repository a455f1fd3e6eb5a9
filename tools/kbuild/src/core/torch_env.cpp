#include "core/torch_env.h"

#include <regex>
#include <system_error>
#include <vector>

#include "core/json_fields.h"
#include "core/report.h"

namespace kb {

namespace fs = std::filesystem;

const char* const kTorchProbeSnippet =
    "import json, os, torch, torch.utils\n"
    "print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda,\n"
    "  'cxx11_abi': bool(torch._C._GLIBCXX_USE_CXX11_ABI),\n"
    "  'torch_dir': os.path.dirname(torch.__file__),\n"
    "  'cmake_prefix_path': torch.utils.cmake_prefix_path}))\n";

nlohmann::json TorchEnvToJson(const TorchEnv& env) {
  return {{"version", env.version},
          {"cuda", env.cuda.empty() ? nlohmann::json(nullptr) : nlohmann::json(env.cuda)},
          {"cxx11_abi", env.cxx11_abi},
          {"torch_dir", env.torch_dir.string()},
          {"cmake_prefix_path", env.cmake_prefix_path.string()},
          {"python", env.python.string()},
          {"found_by", env.found_by}};
}

namespace {

constexpr const char* kInstallHint =
    "set KBUILD_TORCH_DIR to the torch package directory, or Torch_DIR to its share/cmake/Torch, "
    "or KBUILD_PYTHON to a python3 that can import torch; to install torch: "
    "python3 -m pip install torch";

std::optional<long long> RealMtime(const fs::path& p) {
  std::error_code ec;
  const auto t = fs::last_write_time(p, ec);  // follows symlinks (venv pythons are links)
  if (ec) return std::nullopt;
  return static_cast<long long>(t.time_since_epoch().count());
}

// A torch install is a dir with include/torch and lib/; a CMake config dir
// share/cmake/Torch lies three levels below it.
std::optional<fs::path> TorchRootFrom(const FileSystem& fs, const fs::path& dir) {
  if (fs.IsDirectory(dir / "include" / "torch") && fs.IsDirectory(dir / "lib")) return dir;
  const fs::path up = dir.lexically_normal().parent_path().parent_path().parent_path();
  if (fs.Exists(dir / "TorchConfig.cmake") && fs.IsDirectory(up / "include" / "torch")) return up;
  return std::nullopt;
}

std::optional<std::string> PythonAssignment(const std::string& text, const std::string& name) {
  // name = '...'  or  name: Optional[str] = '...'
  const std::regex re("(^|\\n)" + name + R"((\s*:[^=\n]*)?\s*=\s*['"]([^'"]*)['"])");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return m[3].str();
}

Expected<TorchEnv> FromEnvDir(const FileSystem& fs, const std::string& var,
                              const std::string& value) {
  auto root = TorchRootFrom(fs, value);
  if (!root) {
    return MakeError(ExitCode::kEnvironment,
                     var + "=" + value +
                         " is not a torch install (no include/torch and lib/ there, "
                         "nor a share/cmake/Torch with TorchConfig.cmake)",
                     "point " + var +
                         " at the folder printed by: python3 -c \"import torch, os; "
                         "print(os.path.dirname(torch.__file__))\"");
  }
  return TorchEnvFromDir(fs, *root, var);
}

std::vector<fs::path> PythonCandidates(const TorchSearch& search) {
  if (auto py = search.get_env("KBUILD_PYTHON")) return {fs::path(*py)};
  std::vector<fs::path> out;
  if (auto py = search.find_on_path("python3")) out.push_back(*py);
  if (search.installed_bin_dir) out.push_back(*search.installed_bin_dir / "python3");
  // Outside an activated venv the project's own .venv is the likely home of torch.
  if (!search.get_env("VIRTUAL_ENV")) {
    out.push_back(search.project_dir / ".venv" / "bin" / "python3");
    if (!search.kbuild_root.empty())
      out.push_back(search.kbuild_root / ".venv" / "bin" / "python3");
  }
  return out;
}

nlohmann::json CacheKey(const TorchSearch& search, const fs::path& python,
                        const fs::path& torch_dir) {
  auto mtime = search.mtime ? search.mtime : RealMtime;
  return {{"python", python.string()},
          {"python_mtime", mtime(python).value_or(-1)},
          {"torch_version_py_mtime", mtime(torch_dir / "version.py").value_or(-1)}};
}

std::optional<TorchEnv> ReadCache(const FileSystem& fs, const TorchSearch& search,
                                  const fs::path& python) {
  if (!search.cache_file || !fs.Exists(*search.cache_file)) return std::nullopt;
  auto text = fs.ReadAtMost(*search.cache_file, kMaxResultsBytes);
  if (!text) return std::nullopt;
  const auto doc = ParseUntrustedJson(*text);
  if (!doc.is_object() || !doc.contains("key") || !doc.contains("torch")) return std::nullopt;
  auto env = ParseTorchProbeOutput(doc["torch"].dump(), python);
  if (!env || doc["key"] != CacheKey(search, python, env->torch_dir)) return std::nullopt;
  return *env;
}

void WriteCache(FileSystem& fs, const TorchSearch& search, const TorchEnv& env) {
  if (!search.cache_file) return;
  nlohmann::json torch = TorchEnvToJson(env);
  // A failed cache write only costs the next build a python start-up.
  (void)fs.Write(
      *search.cache_file,
      JsonText({{"key", CacheKey(search, env.python, env.torch_dir)}, {"torch", torch}}) + "\n");
}

}  // namespace

Expected<TorchEnv> TorchEnvFromDir(const FileSystem& fs, const fs::path& torch_dir,
                                   const std::string& found_by) {
  const fs::path version_py = torch_dir / "version.py";
  auto text = fs.Read(version_py);
  if (!text) {
    Error e = MakeError(ExitCode::kEnvironment, "cannot read torch's version file",
                        "this torch install looks incomplete; reinstall it: python3 -m pip install "
                        "--force-reinstall torch");
    e.path = version_py.string();
    return e;
  }
  TorchEnv env;
  env.torch_dir = torch_dir;
  env.cmake_prefix_path = torch_dir / "share" / "cmake";
  env.found_by = found_by;
  env.version = PythonAssignment(*text, "__version__").value_or("");
  env.cuda = PythonAssignment(*text, "cuda").value_or("");
  if (env.version.empty()) {
    Error e = MakeError(ExitCode::kEnvironment, "no __version__ in torch's version file",
                        "set KBUILD_PYTHON to a python3 with torch so kbuild can ask it instead");
    e.path = version_py.string();
    return e;
  }
  return env;  // pip wheels of torch >= 2.7 all use the CXX11 ABI
}

Expected<TorchEnv> ParseTorchProbeOutput(const std::string& output, const fs::path& python) {
  // Imports may print warnings first: the answer is the last line that is a JSON object.
  const size_t start = output.rfind("\n{");
  const std::string line = output.substr(start == std::string::npos ? 0 : start + 1);
  const auto doc = ParseUntrustedJson(line);
  if (!doc.is_object() || !doc.contains("version") || !doc.contains("torch_dir")) {
    return MakeError(
        ExitCode::kEnvironment,
        "unexpected answer from " + python.string() + " when asking for torch's version",
        "run: " + python.string() + " -c \"import torch; print(torch.__version__)\"");
  }
  TorchEnv env;
  env.version = StringOr(doc, "version");
  env.cuda = StringOr(doc, "cuda");
  env.cxx11_abi = BoolOr(doc, "cxx11_abi", true);
  env.torch_dir = StringOr(doc, "torch_dir");
  env.cmake_prefix_path = StringOr(doc, "cmake_prefix_path");
  env.python = python;
  env.found_by = "python";
  return env;
}

Expected<TorchEnv> DiscoverTorch(FileSystem& fs, ProcessRunner& runner, const TorchSearch& search) {
  if (auto dir = search.get_env("KBUILD_TORCH_DIR"))
    return FromEnvDir(fs, "KBUILD_TORCH_DIR", *dir);
  if (auto dir = search.get_env("Torch_DIR")) return FromEnvDir(fs, "Torch_DIR", *dir);

  std::string tried;
  for (const fs::path& python : PythonCandidates(search)) {
    if (auto cached = ReadCache(fs, search, python)) return *cached;
    RunOptions options;
    options.timeout_seconds = 120;
    const ProcessResult r = runner.Run({python.string(), "-c", kTorchProbeSnippet}, options);
    if (r.not_found) {
      tried += "  " + python.string() + ": not found\n";
      continue;
    }
    if (r.exit_code != 0) {
      const bool no_module = r.output.find("No module named 'torch'") != std::string::npos;
      tried += "  " + python.string() + ": " +
               (no_module ? std::string("no torch installed")
                          : "exit code " + std::to_string(r.exit_code)) +
               "\n";
      continue;
    }
    auto env = ParseTorchProbeOutput(r.output, python);
    if (!env) return env;
    WriteCache(fs, search, *env);
    return env;
  }
  Error e =
      MakeError(ExitCode::kEnvironment,
                "torch not found (KBUILD_TORCH_DIR and Torch_DIR unset; no python3 with torch)",
                kInstallHint);
  e.detail = tried.empty() ? "  no python3 on PATH\n" : "tried:\n" + tried;
  return e;
}

}  // namespace kb
