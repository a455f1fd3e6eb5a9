#include "core/build_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

#include "core/results_writer.h"
#include "core/stop_signal.h"

namespace kb {

namespace {

// The holder's "key=value" lines; empty while the holder has not written them yet.
std::map<std::string, std::string> ReadHolder(int fd) {
  std::string text;
  char buf[512];
  ssize_t n;
  off_t offset = 0;
  while ((n = pread(fd, buf, sizeof(buf), offset)) > 0) {
    text.append(buf, static_cast<size_t>(n));
    offset += n;
  }
  std::map<std::string, std::string> fields;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) fields[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return fields;
}

Error BusyError(const std::map<std::string, std::string>& holder,
                const std::filesystem::path& lock_path) {
  std::string who = "another kbuild";
  if (holder.count("pid")) {
    const std::string started = holder.count("started") ? holder.at("started") : "";
    // The clock time is enough to recognize a run; the date is in the file.
    const std::string time = started.size() > 11 ? started.substr(11) : started;
    who += " (pid " + holder.at("pid") + ", '" + holder.at("command") + "', started " + time + ")";
  }
  Error e = MakeError(ExitCode::kBusy, who + " is building this project",
                      "wait for it or stop it; the lock is released when it exits");
  e.path = lock_path.string();
  return e;
}

// The lock file, opened (its folder created): a file descriptor, or an error naming it.
Expected<int> OpenLockFile(const std::filesystem::path& lock_path,
                           const std::string& writable_hint) {
  std::error_code ec;
  std::filesystem::create_directories(lock_path.parent_path(), ec);
  // O_NOFOLLOW: a symlink planted as the lock must not make kbuild write elsewhere.
  // O_CLOEXEC: children (ninja, a daemon they leave) must not keep the lock alive.
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    Error e = MakeError(ExitCode::kEnvironment,
                        std::string("cannot open the build lock: ") + std::strerror(err),
                        err == ELOOP ? "it is a symbolic link: remove it" : writable_hint);
    e.path = lock_path.string();
    return e;
  }
  return fd;
}

// Names the holder in the lock file, for the next one's message.
void Describe(int fd, const std::string& command) {
  const std::string holder = "pid=" + std::to_string(getpid()) + "\ncommand=" + command +
                             "\nstarted=" + IsoLocalTime() + "\n";
  // When this write fails the lock still holds; only the holder's description is missing.
  const bool described = ftruncate(fd, 0) == 0 && pwrite(fd, holder.data(), holder.size(), 0) > 0;
  (void)described;
}

// The first symbolic link at or below build_dir ("" when none). kbuild, CMake
// and Ninja write the whole build tree: a link planted there (build/ itself,
// or a folder in it) would take their writes outside the project. Nothing
// that builds a project makes one.
std::filesystem::path FirstLinkIn(const std::filesystem::path& build_dir) {
  namespace stdfs = std::filesystem;
  std::error_code ec;
  if (stdfs::is_symlink(stdfs::symlink_status(build_dir, ec))) return build_dir;
  if (!stdfs::is_directory(stdfs::symlink_status(build_dir, ec))) return {};
  // The iterator does not descend through links; each one is reported as an entry.
  for (stdfs::recursive_directory_iterator it(build_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_symlink(ec)) return it->path();
  }
  return {};
}

}  // namespace

Expected<BuildLock> BuildLock::Acquire(const std::filesystem::path& build_dir,
                                       const std::string& command) {
  if (const std::filesystem::path link = FirstLinkIn(build_dir); !link.empty()) {
    Error e = MakeError(ExitCode::kUsage,
                        "the build folder holds a symbolic link; kbuild would write through it",
                        "remove it (or the whole build/ folder: kbuild build makes it again)");
    e.path = link.string();
    return e;
  }
  const std::filesystem::path lock_path = build_dir / kBuildLockFile;
  auto fd = OpenLockFile(lock_path, "check that the project's build/ folder is writable");
  if (!fd) return fd.error();
  if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    Error e = BusyError(ReadHolder(*fd), lock_path);
    close(*fd);
    return e;
  }
  Describe(*fd, command);
  return BuildLock(*fd);
}

Expected<BuildLock> BuildLock::Wait(const std::filesystem::path& lock_file,
                                    const std::string& command,
                                    const std::function<void(const std::string&)>& on_wait) {
  auto fd = OpenLockFile(lock_file, "check that " + lock_file.parent_path().string() +
                                        " is writable (KBUILD_CACHE_DIR moves it)");
  if (!fd) return fd.error();
  // Polled rather than a blocking flock, so that Ctrl-C ends the wait at once (report.h then
  // says kbuild was stopped).
  bool told = false;
  while (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK || StopSignal() != 0) {
      close(*fd);
      Error e = MakeError(ExitCode::kEnvironment,
                          err != EWOULDBLOCK
                              ? std::string("cannot take the build lock: ") + std::strerror(err)
                              : "stopped while waiting for the build lock");
      e.path = lock_file.string();
      return e;
    }
    if (!told && on_wait) {
      auto holder = ReadHolder(*fd);
      on_wait(holder["pid"]);
    }
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Describe(*fd, command);
  return BuildLock(*fd);
}

BuildLock::BuildLock(BuildLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

BuildLock& BuildLock::operator=(BuildLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

BuildLock::~BuildLock() {
  if (fd_ >= 0) close(fd_);  // closing drops the flock
}

}  // namespace kb
