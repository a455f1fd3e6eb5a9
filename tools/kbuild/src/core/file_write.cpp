#include "core/file_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace kb {

namespace fs = std::filesystem;

Error WriteFailure(const fs::path& p, int err) {
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  Error e =
      MakeError(ExitCode::kEnvironment, "cannot write file: " + std::string(std::strerror(err)),
                "check that " + dir + " is writable");
  if (err == ENOSPC) {
    e.message = "no space left on device";
    e.hint = "free space on the disk holding " + dir + " (df -h " + dir + ") and re-run";
  } else if (err == EDQUOT) {
    e.message = "disk quota exceeded";
    e.hint = "free space within your quota (quota -s) and re-run";
  } else if (err == ELOOP) {
    e.code = ExitCode::kUsage;
    e.message = "refusing to write through a symbolic link";
    e.hint = "remove the link; kbuild writes its own files here";
  }
  e.path = p.string();
  return e;
}

Status WriteAllTo(int fd, std::string_view data, const fs::path& shown_as) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return WriteFailure(shown_as, errno);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Expected<AppendLog> AppendLog::Open(const fs::path& p) {
  const int fd = open(p.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return WriteFailure(p, errno);
  return AppendLog(fd, p);
}

AppendLog::AppendLog(AppendLog&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

AppendLog& AppendLog::operator=(AppendLog&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

AppendLog::~AppendLog() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace kb
