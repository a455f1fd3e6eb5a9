// One build per project at a time: kbuild build, test and bench hold an
// exclusive flock on build/.kbuild.lock for their whole run, so two of them
// never drive the same Ninja tree or overwrite each other's results. The
// shared harness library (harness_library.h) is built under the same kind of
// lock, but there the next kbuild waits for it instead of failing. The kernel
// drops a flock when its holder dies, so a stale lock never blocks; the file's
// text (pid, command, start time) only names the holder in the message.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "core/error.h"

namespace kb {

class BuildLock {
 public:
  // Takes the lock (creating build_dir if needed), or fails at once with
  // ExitCode::kBusy naming the holder. Exit 2 when build_dir is, or holds, a
  // symbolic link (the build would write through it).
  static Expected<BuildLock> Acquire(const std::filesystem::path& build_dir,
                                     const std::string& command);
  // Takes the lock in `lock_file` (creating its folder if needed), waiting for as long as
  // another process holds it; `on_wait` (may be empty) is told the holder's pid, once, before
  // the wait ("" when the holder has not written it yet).
  static Expected<BuildLock> Wait(const std::filesystem::path& lock_file,
                                  const std::string& command,
                                  const std::function<void(const std::string&)>& on_wait);

  BuildLock(BuildLock&& other) noexcept;
  BuildLock& operator=(BuildLock&& other) noexcept;
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;
  ~BuildLock();

 private:
  explicit BuildLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The lock file inside a project's build folder.
inline constexpr const char* kBuildLockFile = ".kbuild.lock";

}  // namespace kb
