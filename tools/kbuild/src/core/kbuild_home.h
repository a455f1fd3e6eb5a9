// Where kbuild's data lives: templates/, build.toml.in, tools/harness/ and the
// skill pack. In order: KBUILD_HOME (env); the installed layout beside the
// executable (<prefix>/bin/kbuild -> <prefix>/share/kbuild, as `cmake
// --install` and the pip wheel lay it out), so a moved prefix keeps working;
// else the source tree kbuild was built from.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// The data folder below an install prefix, relative to the prefix.
inline constexpr const char* kInstalledDataDir = "share/kbuild";

// The running executable (/proc/self/exe resolved; the link itself when it
// cannot be read), what tune and optimize run again as their children.
std::filesystem::path RunningExecutable();

// The folder holding the running executable (/proc/self/exe), or nothing.
std::optional<std::filesystem::path> ExecutableDir();

// The data folder for an executable in `exe_dir`: <exe_dir>/../share/kbuild
// when it holds build.toml.in, else nothing.
std::optional<std::filesystem::path> InstalledHomeFor(const std::filesystem::path& exe_dir);

// ExecutableDir() when kbuild runs from an installed layout, else nothing.
std::optional<std::filesystem::path> InstalledExecutableDir();

// The data folder (see the order above) and how it was found, for doctor.
struct KbuildHomeChoice {
  std::filesystem::path path;
  std::string found_by;  // "KBUILD_HOME", "installed beside the executable", "source tree"
};
KbuildHomeChoice ChooseKbuildHome();

// ChooseKbuildHome().path.
std::filesystem::path KbuildHome();

// The hint for a data file kbuild cannot find: reinstall, or point KBUILD_HOME at a folder
// holding `what` (e.g. "tools/harness").
std::string DataFolderHint(const std::string& what);

// KbuildHome(), checked to hold `templates/` and `build.toml.in`; an
// environment error (exit 4) naming the folder and how to fix it otherwise.
Expected<std::filesystem::path> FindKbuildHome(const FileSystem& fs);

}  // namespace kb
