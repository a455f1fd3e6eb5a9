#include "core/torch_env.h"

#include <gtest/gtest.h>

#include <map>

namespace kb {
namespace {

constexpr const char* kProbeAnswer =
    "some warning from an import\n"
    R"({"version": "2.11.0+cu130", "cuda": "13.0", "cxx11_abi": true, )"
    R"("torch_dir": "/venv/lib/torch", "cmake_prefix_path": "/venv/lib/torch/share/cmake"})"
    "\n";

struct World {
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> on_path;              // program -> path
  std::optional<std::filesystem::path> installed_bin_dir;  // kbuild run from an install

  TorchSearch Search() const {
    TorchSearch s;
    s.project_dir = "/p";
    s.kbuild_root = "/kb";
    s.installed_bin_dir = installed_bin_dir;
    s.cache_file = "/p/build/torch-env.json";
    s.get_env = [this](const std::string& k) -> std::optional<std::string> {
      auto it = env.find(k);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    s.find_on_path = [this](const std::string& p) -> std::optional<std::filesystem::path> {
      auto it = on_path.find(p);
      return it == on_path.end() ? std::nullopt : std::optional<std::filesystem::path>(it->second);
    };
    s.mtime = [](const std::filesystem::path&) { return std::optional<long long>(42); };
    return s;
  }
};

ProcessResult Answer(int code, std::string output, bool not_found = false) {
  ProcessResult r;
  r.exit_code = code;
  r.output = std::move(output);
  r.not_found = not_found;
  return r;
}

TEST(TorchEnv, FoundThroughPythonOnPathAndCached) {
  World world;
  world.on_path["python3"] = "/venv/bin/python3";
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    EXPECT_EQ(argv[0], "/venv/bin/python3");
    EXPECT_EQ(argv[1], "-c");
    return Answer(0, kProbeAnswer);
  });
  auto env = DiscoverTorch(fs, runner, world.Search());
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_EQ(env->version, "2.11.0+cu130");
  EXPECT_EQ(env->cuda, "13.0");
  EXPECT_TRUE(env->cxx11_abi);
  EXPECT_EQ(env->IncludeDir(), "/venv/lib/torch/include");
  EXPECT_EQ(env->LibDir(), "/venv/lib/torch/lib");
  EXPECT_EQ(env->python, "/venv/bin/python3");
  EXPECT_TRUE(fs.Exists("/p/build/torch-env.json"));

  // Second discovery answers from the cache: python does not run again.
  auto again = DiscoverTorch(fs, runner, world.Search());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->torch_dir, "/venv/lib/torch");
  EXPECT_EQ(runner.calls.size(), 1u);
}

// build/torch-env.json is a file in the project: one with keys of the wrong
// type, or nested deep enough to overflow a recursive dump, is not used (python
// is asked again and the cache rewritten), never a crash.
TEST(TorchEnv, AHostileCacheIsIgnoredAndRewritten) {
  World world;
  world.on_path["python3"] = "/venv/bin/python3";
  FakeProcessRunner runner(
      [](const std::vector<std::string>&, const RunOptions&) { return Answer(0, kProbeAnswer); });
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  for (const std::string& cache :
       {std::string(R"({"key": 1, "torch": {"version": 2, "torch_dir": "/x"}})"),
        R"({"key": 1, "torch": {"version": "2", "torch_dir": "/x", "z": )" + deep + "}}"}) {
    MemoryFileSystem fs;
    ASSERT_TRUE(fs.Write("/p/build/torch-env.json", cache).ok());
    auto env = DiscoverTorch(fs, runner, world.Search());
    ASSERT_TRUE(env.ok()) << env.error().message;
    EXPECT_EQ(env->version, "2.11.0+cu130");
    EXPECT_NE(*fs.Read("/p/build/torch-env.json"), cache);
  }
}

TEST(TorchEnv, FallsBackToProjectVenvWhenPythonOnPathHasNoTorch) {
  World world;
  world.on_path["python3"] = "/usr/bin/python3";
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    if (argv[0] == "/usr/bin/python3") {
      return Answer(1, "ModuleNotFoundError: No module named 'torch'\n");
    }
    return Answer(0, kProbeAnswer);
  });
  auto env = DiscoverTorch(fs, runner, world.Search());
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->python, "/p/.venv/bin/python3");
}

TEST(TorchEnv, AnInstalledKbuildAsksThePythonBesideItAfterThePathOne) {
  World world;
  world.on_path["python3"] = "/usr/bin/python3";
  world.installed_bin_dir = "/home/u/venv/bin";
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    if (argv[0] == "/usr/bin/python3") return Answer(1, "No module named 'torch'\n");
    return Answer(0, kProbeAnswer);
  });
  auto env = DiscoverTorch(fs, runner, world.Search());
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->python, "/home/u/venv/bin/python3");
  ASSERT_EQ(runner.calls.size(), 2u);
}

TEST(TorchEnv, MissingEverywhereIsExit4WithHint) {
  World world;
  world.on_path["python3"] = "/usr/bin/python3";
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    if (argv[0] == "/usr/bin/python3") return Answer(1, "No module named 'torch'\n");
    return Answer(127, "", /*not_found=*/true);
  });
  auto env = DiscoverTorch(fs, runner, world.Search());
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(env.error().message,
            "torch not found (KBUILD_TORCH_DIR and Torch_DIR unset; no python3 with torch)");
  EXPECT_EQ(env.error().hint,
            "set KBUILD_TORCH_DIR to the torch package directory, or Torch_DIR to its "
            "share/cmake/Torch, or KBUILD_PYTHON to a python3 that can import torch; to install "
            "torch: python3 -m pip install torch");
  EXPECT_EQ(env.error().detail,
            "tried:\n"
            "  /usr/bin/python3: no torch installed\n"
            "  /p/.venv/bin/python3: not found\n"
            "  /kb/.venv/bin/python3: not found\n");
}

TEST(TorchEnv, KbuildPythonIsTheOnlyCandidateWhenSet) {
  World world;
  world.env["KBUILD_PYTHON"] = "/opt/torch/.venv/bin/python3";
  world.on_path["python3"] = "/usr/bin/python3";
  MemoryFileSystem fs;
  FakeProcessRunner runner(
      [](const std::vector<std::string>&, const RunOptions&) { return Answer(0, kProbeAnswer); });
  ASSERT_TRUE(DiscoverTorch(fs, runner, world.Search()).ok());
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0][0], "/opt/torch/.venv/bin/python3");
}

TEST(TorchEnv, EnvDirReadsVersionFileWithoutPython) {
  MemoryFileSystem fs;
  (void)fs.Write("/t/torch/include/torch/library.h", "");
  (void)fs.Write("/t/torch/lib/libtorch.so", "");
  (void)fs.Write("/t/torch/share/cmake/Torch/TorchConfig.cmake", "");
  (void)fs.Write("/t/torch/version.py",
                 "from typing import Optional\n__version__ = '2.11.0+cu130'\ndebug = False\n"
                 "cuda: Optional[str] = '13.0'\n");
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    ADD_FAILURE() << "python must not run";
    return ProcessResult{};
  });
  World world;
  world.env["KBUILD_TORCH_DIR"] = "/t/torch";
  auto env = DiscoverTorch(fs, runner, world.Search());
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_EQ(env->version, "2.11.0+cu130");
  EXPECT_EQ(env->cuda, "13.0");
  EXPECT_EQ(env->found_by, "KBUILD_TORCH_DIR");

  World cmake_dir;
  cmake_dir.env["Torch_DIR"] = "/t/torch/share/cmake/Torch";
  auto via_cmake = DiscoverTorch(fs, runner, cmake_dir.Search());
  ASSERT_TRUE(via_cmake.ok());
  EXPECT_EQ(via_cmake->torch_dir, "/t/torch");
  EXPECT_EQ(via_cmake->found_by, "Torch_DIR");
}

TEST(TorchEnv, BadEnvDirIsAnErrorNotASilentFallback) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(
      [](const std::vector<std::string>&, const RunOptions&) { return Answer(0, kProbeAnswer); });
  World world;
  world.env["KBUILD_TORCH_DIR"] = "/nowhere";
  auto env = DiscoverTorch(fs, runner, world.Search());
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(
      env.error().message,
      "KBUILD_TORCH_DIR=/nowhere is not a torch install (no include/torch and lib/ there, nor "
      "a share/cmake/Torch with TorchConfig.cmake)");
  EXPECT_TRUE(runner.calls.empty());
}

}  // namespace
}  // namespace kb
