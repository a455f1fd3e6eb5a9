#include "core/kbuild_home.h"

#include "core/process.h"

namespace kb {

std::filesystem::path KbuildHome() {
  if (auto env = GetEnv("KBUILD_HOME")) return *env;
  return KBUILD_SOURCE_ROOT;
}

Expected<std::filesystem::path> FindKbuildHome(const FileSystem& fs) {
  const std::filesystem::path home = KbuildHome();
  const bool from_env = GetEnv("KBUILD_HOME").has_value();
  for (const char* required : {"templates", "build.toml.in"}) {
    if (fs.Exists(home / required)) continue;
    Error e = MakeError(ExitCode::kEnvironment,
                        std::string("kbuild's data folder has no '") + required + "'",
                        from_env ? "KBUILD_HOME points at the wrong folder: set it to the kbuild "
                                   "source tree (the folder holding templates/ and build.toml.in)"
                                 : "set KBUILD_HOME to the kbuild source tree (the folder holding "
                                   "templates/ and build.toml.in)");
    e.path = home.string();
    return e;
  }
  return home;
}

}  // namespace kb
