#include "core/private_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kb {

Status EnsurePrivateFolder(const std::filesystem::path& dir, const std::string& hint) {
  std::error_code ec;
  if (mkdir(dir.c_str(), 0700) != 0 && errno == ENOENT) {
    std::filesystem::create_directories(dir.parent_path(), ec);
    (void)mkdir(dir.c_str(), 0700);
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) {
    Error e = MakeError(ExitCode::kEnvironment,
                        std::string("cannot create the folder: ") + std::strerror(errno), hint);
    e.path = dir.string();
    return e;
  }
  if (S_ISDIR(st.st_mode) && st.st_uid == geteuid()) return {};
  Error e = MakeError(ExitCode::kUsage,
                      S_ISLNK(st.st_mode)    ? "a symbolic link where kbuild's own folder goes"
                      : !S_ISDIR(st.st_mode) ? "not a folder, where kbuild's own folder goes"
                                             : "another user's folder, where kbuild's own goes",
                      hint);
  e.path = dir.string();
  return e;
}

}  // namespace kb
