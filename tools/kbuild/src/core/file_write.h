// Bytes onto the disk where a full disk must say so (exit 4 naming the file,
// not "write failed"), and log appends that never follow a symlink planted
// where the log should be.
#pragma once

#include <filesystem>
#include <string_view>

#include "core/error.h"

namespace kb {

// The error for a failed write of `p` with errno `err`: ENOSPC and EDQUOT
// are named as such, with a hint to free space.
Error WriteFailure(const std::filesystem::path& p, int err);

// Writes all of `data` to `fd`, retrying short writes; errors name `shown_as`.
Status WriteAllTo(int fd, std::string_view data, const std::filesystem::path& shown_as);

// A log opened for appending (created 0644 less umask), refusing a symlink.
class AppendLog {
 public:
  static Expected<AppendLog> Open(const std::filesystem::path& p);
  AppendLog(AppendLog&& other) noexcept;
  AppendLog& operator=(AppendLog&& other) noexcept;
  AppendLog(const AppendLog&) = delete;
  AppendLog& operator=(const AppendLog&) = delete;
  ~AppendLog();

  Status Append(std::string_view data) { return WriteAllTo(fd_, data, path_); }

 private:
  AppendLog(int fd, std::filesystem::path p) : fd_(fd), path_(std::move(p)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace kb
