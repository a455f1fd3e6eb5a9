// The disk behind FileSystem, with POSIX calls where std::filesystem cannot
// say "exclusively", "do not follow" or "do not block".
#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <system_error>

#include "core/file_write.h"
#include "core/fs.h"

namespace kb {

namespace {

Error IoError(const fs::path& p, const std::string& what, int err) {
  Error e = MakeError(ExitCode::kEnvironment, what + ": " + std::strerror(err));
  e.path = p.string();
  return e;
}

FileKind KindOfMode(mode_t mode) {
  if (S_ISREG(mode)) return FileKind::kRegular;
  if (S_ISDIR(mode)) return FileKind::kDirectory;
  if (S_ISLNK(mode)) return FileKind::kSymlink;
  return FileKind::kOther;
}

// 16 hex digits from the kernel's random source: a name nobody can plant.
std::string RandomHex() {
  unsigned char bytes[8];
  if (getrandom(bytes, sizeof(bytes), 0) != static_cast<ssize_t>(sizeof(bytes))) {
    std::random_device device;
    for (auto& b : bytes) b = static_cast<unsigned char>(device());
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

bool RealFileSystem::Exists(const fs::path& p) const {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool RealFileSystem::IsDirectory(const fs::path& p) const {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

FileKind RealFileSystem::KindOf(const fs::path& p) const {
  struct stat st;
  if (lstat(p.c_str(), &st) == 0) return KindOfMode(st.st_mode);
  return errno == ENOENT || errno == ENOTDIR ? FileKind::kMissing : FileKind::kOther;
}

Expected<std::string> RealFileSystem::ReadAtMost(const fs::path& p,
                                                 std::uintmax_t max_bytes) const {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  FileDescriptor fd(open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ELOOP) {
      Error e = MakeError(ExitCode::kUsage, "too many levels of symbolic links",
                          "a symbolic link loop; point the link at a regular file");
      e.path = p.string();
      return e;
    }
    if (err == ENXIO) return NotRegularFileError(p, FileKind::kOther);  // a socket
    return IoError(p, "cannot read file", err);
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return IoError(p, "cannot read file", errno);
  if (!S_ISREG(st.st_mode)) return NotRegularFileError(p, KindOfMode(st.st_mode));
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) return FileTooLargeError(p, max_bytes);
  // Read to the end, not st_size: /proc files report 0 and files may grow.
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(p, "cannot read file", errno);
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) return FileTooLargeError(p, max_bytes);
  }
  return out;
}

Status RealFileSystem::Write(const fs::path& p, const std::string& content) {
  std::error_code ec;
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (p.has_parent_path()) fs::create_directories(dir, ec);
  if (ec) return IoError(dir, "cannot create directory", ec.value());
  // A fresh, exclusively created temp file beside the target, renamed over it:
  // a crash never leaves half a file, and a planted symlink is never followed.
  const std::string stem = p.filename().string().substr(0, 200);  // room under NAME_MAX
  fs::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    tmp = dir / ("." + stem + "." + RandomHex() + ".kbuild-tmp");
    fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return WriteFailure(p, errno);
  }
  if (fd < 0) return WriteFailure(p, EEXIST);
  Status written = WriteAllTo(fd, content, p);
  int err = written ? 0 : -1;
  // fsync: some file systems report a full disk only here, and a rename of
  // unsynced data can leave an empty file after a crash.
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && rename(tmp.c_str(), p.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    if (!written) return written;
    if (err == EISDIR) return NotRegularFileError(p, FileKind::kDirectory);
    return WriteFailure(p, err);
  }
  return {};
}

Status RealFileSystem::MakeDirectories(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec) return IoError(p, "cannot create directory", ec.value());
  return {};
}

std::vector<fs::path> RealFileSystem::ListFilesRecursive(const fs::path& dir) const {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file())
      out.push_back(it->path().lexically_relative(dir));  // keep links as named
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<TreeEntry> RealFileSystem::ListEntries(const fs::path& dir) const {
  std::vector<TreeEntry> out;
  std::error_code ec;
  if (KindOf(dir) != FileKind::kDirectory) return out;
  // The iterator does not follow directory symlinks; symlink_status does not follow any.
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    struct stat st;
    if (lstat(it->path().c_str(), &st) != 0) continue;  // gone since listed
    const FileKind kind = KindOfMode(st.st_mode);
    if (kind != FileKind::kDirectory) out.push_back({it->path().lexically_relative(dir), kind});
  }
  std::sort(out.begin(), out.end(),
            [](const TreeEntry& a, const TreeEntry& b) { return a.relative < b.relative; });
  return out;
}

Status RealFileSystem::RenameNoReplace(const fs::path& from, const fs::path& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return {};
  int err = errno;
  // A file system without RENAME_NOREPLACE: check, then rename (a folder never
  // replaces a non-empty folder, so the window can only lose an empty one).
  if (err == EINVAL || err == ENOSYS) {
    if (KindOf(to) != FileKind::kMissing) {
      err = EEXIST;
    } else if (rename(from.c_str(), to.c_str()) == 0) {
      return {};
    } else {
      err = errno;
    }
  }
  return IoError(to, "cannot rename " + from.string() + " to it", err);
}

Status RealFileSystem::CopyFile(const fs::path& from, const fs::path& to) {
  const FileKind kind = KindOf(from);
  if (kind != FileKind::kRegular) return NotRegularFileError(from, kind);
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  if (ec) return IoError(to.parent_path(), "cannot create directory", ec.value());
  if (KindOf(to) == FileKind::kSymlink) fs::remove(to, ec);  // replaced, never written through
  // copy_file keeps the permissions (a test binary stays executable); the time is set after.
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return IoError(to, "cannot copy " + from.string() + " to it", ec.value());
  const fs::file_time_type modified = fs::last_write_time(from, ec);
  if (!ec) fs::last_write_time(to, modified, ec);
  if (ec) return IoError(to, "cannot set the modification time of", ec.value());
  return {};
}

Status RealFileSystem::Remove(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);  // removes a symlink itself, never what it points to
  if (ec) return IoError(p, "cannot remove", ec.value());
  return {};
}

Status RealFileSystem::RemoveFileBelow(const fs::path& root, const fs::path& relative) {
  const fs::path target = root / relative;
  Expected<FileKind> kind = KindBelow(*this, root, relative);
  if (!kind) return kind.error();
  if (*kind == FileKind::kMissing) return {};
  if (*kind != FileKind::kRegular) return NotRegularFileError(target, *kind);
  // Walk down with openat and O_NOFOLLOW, so no folder can be swapped for a
  // symlink between the check and the unlink.
  auto dir =
      std::make_unique<FileDescriptor>(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir->get() < 0) {
    return errno == ENOENT ? Status{} : Status{IoError(root, "cannot open folder", errno)};
  }
  fs::path at = root;
  for (auto it = relative.begin(); it != relative.end(); ++it) {
    at /= *it;
    const std::string name = it->string();
    struct stat st;
    if (fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return errno == ENOENT ? Status{} : Status{IoError(at, "cannot inspect", errno)};
    }
    const FileKind kind = KindOfMode(st.st_mode);
    if (std::next(it) == relative.end()) {
      if (kind != FileKind::kRegular) return NotRegularFileError(target, kind);
      if (unlinkat(dir->get(), name.c_str(), 0) != 0 && errno != ENOENT) {
        return IoError(target, "cannot remove", errno);
      }
      return {};
    }
    if (kind == FileKind::kSymlink) return ThroughSymlinkError(target, at);
    if (kind != FileKind::kDirectory) return {};  // nothing can lie below a file
    auto next = std::make_unique<FileDescriptor>(
        openat(dir->get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next->get() < 0) {
      if (errno == ELOOP) return ThroughSymlinkError(target, at);  // swapped in since fstatat
      return IoError(at, "cannot open folder", errno);
    }
    dir = std::move(next);
  }
  return {};
}

}  // namespace kb
