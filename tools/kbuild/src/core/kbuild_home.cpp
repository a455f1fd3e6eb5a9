#include "core/kbuild_home.h"

#include <system_error>

#include "core/process.h"

namespace kb {

namespace fs = std::filesystem;

fs::path RunningExecutable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec || exe.empty() ? fs::path("/proc/self/exe") : exe;
}

std::optional<fs::path> ExecutableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  return exe.parent_path();
}

std::optional<fs::path> InstalledHomeFor(const fs::path& exe_dir) {
  const fs::path home = (exe_dir / ".." / kInstalledDataDir).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(home / "build.toml.in", ec)) return std::nullopt;
  return home;
}

std::optional<fs::path> InstalledExecutableDir() {
  auto exe_dir = ExecutableDir();
  if (exe_dir && InstalledHomeFor(*exe_dir)) return exe_dir;
  return std::nullopt;
}

KbuildHomeChoice ChooseKbuildHome() {
  if (auto env = GetEnv("KBUILD_HOME")) return {*env, "KBUILD_HOME"};
  if (auto exe_dir = ExecutableDir()) {
    if (auto home = InstalledHomeFor(*exe_dir)) return {*home, "installed beside the executable"};
  }
  return {KBUILD_SOURCE_ROOT, "source tree"};
}

fs::path KbuildHome() { return ChooseKbuildHome().path; }

std::string DataFolderHint(const std::string& what) {
  return "reinstall kbuild (its share/kbuild folder is incomplete), or set KBUILD_HOME to a folder "
         "holding " +
         what + " (an install's share/kbuild, or the kbuild source tree)";
}

Expected<fs::path> FindKbuildHome(const FileSystem& fs) {
  const KbuildHomeChoice choice = ChooseKbuildHome();
  const bool from_env = choice.found_by == "KBUILD_HOME";
  for (const char* required : {"templates", "build.toml.in"}) {
    if (fs.Exists(choice.path / required)) continue;
    Error e = MakeError(
        ExitCode::kEnvironment, std::string("kbuild's data folder has no '") + required + "'",
        from_env ? "KBUILD_HOME points at the wrong folder: set it to a folder holding "
                   "templates/ and build.toml.in (an install's share/kbuild, or the source tree)"
                 : DataFolderHint("templates/ and build.toml.in"));
    e.path = choice.path.string();
    return e;
  }
  return choice.path;
}

}  // namespace kb
