#include "file_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace kb::harness {

namespace {

// "<file>: <what>\nhint: <how>", naming a full disk and a refused symlink as such.
std::string WriteError(const std::string& path, int err) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (err == ENOSPC) {
    return path + ": no space left on device\nhint: free space on the disk holding " + dir +
           " (df -h " + dir + ") and re-run";
  }
  if (err == EDQUOT) {
    return path + ": disk quota exceeded\nhint: free space within your quota (quota -s) and re-run";
  }
  if (err == ELOOP) {
    return path +
           ": refusing to write through a symbolic link\nhint: remove the link; the harness "
           "writes its own results here";
  }
  return path + ": cannot write results: " + std::strerror(err) + "\nhint: check that " + dir +
         " exists and is writable";
}

// Writes all of `data`, retrying short writes; 0 or the errno.
int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

std::string RandomSuffix() {
  std::random_device device;
  char out[17];
  std::snprintf(out, sizeof(out), "%08x%08x", device(), device());
  return out;
}

}  // namespace

bool ReplaceFile(const std::string& path, std::string_view data, std::string* error) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = path.substr(dir.size()).substr(0, 200);  // room under NAME_MAX
  std::string tmp;
  int fd = -1;
  int err = EEXIST;
  for (int attempt = 0; attempt < 8 && fd < 0 && err == EEXIST; ++attempt) {
    tmp = dir + "." + name + "." + RandomSuffix() + ".harness-tmp";
    fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    err = fd < 0 ? errno : 0;
  }
  if (fd < 0) {
    *error = WriteError(path, err);
    return false;
  }
  err = WriteAll(fd, data);
  // fsync: some file systems report a full disk only here.
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    *error = WriteError(path, err);
    return false;
  }
  return true;
}

bool AppendToFile(const std::string& path, std::string_view data, std::string* error) {
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  int err = fd < 0 ? errno : WriteAll(fd, data);
  if (fd >= 0 && close(fd) != 0 && err == 0) err = errno;
  if (err != 0) *error = WriteError(path, err);
  return err == 0;
}

}  // namespace kb::harness
