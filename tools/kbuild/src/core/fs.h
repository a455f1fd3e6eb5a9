// The file system seam: commands touch the disk only through FileSystem, so
// unit tests run on MemoryFileSystem without a real project.
//
// kbuild runs in repositories it did not write, so every file it reads or
// replaces is treated as hostile: reads take only regular files under a size
// limit (a FIFO must not hang kbuild, a 10 GB file must not exhaust memory),
// writes never follow a planted symlink, and deletions driven by a file's
// content go through RemoveFileBelow, which refuses to leave its folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"

namespace kb {

namespace fs = std::filesystem;

// Size limits for what kbuild reads; a larger file is refused, not read.
inline constexpr std::uintmax_t kMaxConfigBytes = 1u << 20;      // build.toml
inline constexpr std::uintmax_t kMaxManifestBytes = 1u << 20;    // skill manifest
inline constexpr std::uintmax_t kMaxResultsBytes = 64ull << 20;  // results, caches
inline constexpr std::uintmax_t kMaxReadBytes = 1ull << 30;      // anything else

// What a path itself is: a final symlink is reported, not followed.
enum class FileKind { kMissing, kRegular, kDirectory, kSymlink, kOther };

// One entry of ListEntries: a path relative to the listed folder and what it is.
struct TreeEntry {
  fs::path relative;
  FileKind kind = FileKind::kRegular;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual bool Exists(const fs::path& p) const = 0;
  virtual bool IsDirectory(const fs::path& p) const = 0;
  virtual FileKind KindOf(const fs::path& p) const = 0;
  // A regular file (a symlink to one is followed) of at most `max_bytes`.
  // A directory, FIFO, device, symlink loop or larger file is an error
  // (exit 2) naming the limit; opening a FIFO never blocks.
  virtual Expected<std::string> ReadAtMost(const fs::path& p, std::uintmax_t max_bytes) const = 0;
  Expected<std::string> Read(const fs::path& p) const { return ReadAtMost(p, kMaxReadBytes); }
  // Creates parent directories; writes a fresh temp file beside `p` and
  // renames it over `p`. A symlink at `p` is replaced, never written through.
  // A full disk is an error (exit 4) that says so.
  virtual Status Write(const fs::path& p, const std::string& content) = 0;
  virtual Status MakeDirectories(const fs::path& p) = 0;
  // Regular files below `dir`, recursively, as paths relative to `dir`, sorted.
  virtual std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const = 0;
  // Everything below `dir` that is not a folder (regular files, symlinks to
  // anything, FIFOs, ...), recursively, sorted; never descends through a
  // symlink. For copies that must refuse a link rather than skip it.
  virtual std::vector<TreeEntry> ListEntries(const fs::path& dir) const = 0;
  // Renames `from` (a file or folder) to `to`, failing (exit 4) when `to`
  // exists: never replaces what someone put there meanwhile.
  virtual Status RenameNoReplace(const fs::path& from, const fs::path& to) = 0;
  // File or whole tree; ok if absent. Only for paths kbuild chose itself.
  virtual Status Remove(const fs::path& p) = 0;
  // Deletes the regular file root/relative; ok if absent. Refuses (exit 2) a
  // `relative` that is absolute or has '..', one that passes through a
  // symlink below `root`, and anything that is not a regular file.
  virtual Status RemoveFileBelow(const fs::path& root, const fs::path& relative) = 0;
  // Copies the regular file `from` (a symlink is refused, not followed) to `to`, creating its
  // parent folders and replacing what is there, keeping its permissions and modification
  // time: a copied build tree stays up to date for Ninja.
  virtual Status CopyFile(const fs::path& from, const fs::path& to) = 0;
};

class RealFileSystem final : public FileSystem {
 public:
  bool Exists(const fs::path& p) const override;
  bool IsDirectory(const fs::path& p) const override;
  FileKind KindOf(const fs::path& p) const override;
  Expected<std::string> ReadAtMost(const fs::path& p, std::uintmax_t max_bytes) const override;
  Status Write(const fs::path& p, const std::string& content) override;
  Status MakeDirectories(const fs::path& p) override;
  std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const override;
  std::vector<TreeEntry> ListEntries(const fs::path& dir) const override;
  Status RenameNoReplace(const fs::path& from, const fs::path& to) override;
  Status Remove(const fs::path& p) override;
  Status RemoveFileBelow(const fs::path& root, const fs::path& relative) override;
  Status CopyFile(const fs::path& from, const fs::path& to) override;
};

// In-memory tree for unit tests. Directories exist implicitly above files.
class MemoryFileSystem final : public FileSystem {
 public:
  bool Exists(const fs::path& p) const override;
  bool IsDirectory(const fs::path& p) const override;
  FileKind KindOf(const fs::path& p) const override;
  Expected<std::string> ReadAtMost(const fs::path& p, std::uintmax_t max_bytes) const override;
  Status Write(const fs::path& p, const std::string& content) override;
  Status MakeDirectories(const fs::path& p) override;
  std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const override;
  std::vector<TreeEntry> ListEntries(const fs::path& dir) const override;
  Status RenameNoReplace(const fs::path& from, const fs::path& to) override;
  Status Remove(const fs::path& p) override;
  Status RemoveFileBelow(const fs::path& root, const fs::path& relative) override;
  Status CopyFile(const fs::path& from, const fs::path& to) override;

  // Test fixtures for what a hostile repository may hold.
  void PlantSymlink(const fs::path& link, const fs::path& target);
  void PlantSpecialFile(const fs::path& p);  // a FIFO or device stand-in

  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  static std::string Key(const fs::path& p);
  std::map<std::string, std::string> files_;
  std::map<std::string, bool> dirs_;
  std::map<std::string, std::string> symlinks_;  // link -> target as written
  std::set<std::string> specials_;
};

// "a symbolic link", "a directory", "a FIFO, socket or device", ... for messages.
std::string FileKindName(FileKind kind);

// Errors both file systems report, worded once.
Error NotRegularFileError(const fs::path& p, FileKind kind);
Error FileTooLargeError(const fs::path& p, std::uintmax_t limit);
Error ThroughSymlinkError(const fs::path& p, const fs::path& link);
// Lexical checks of a path that must stay below a folder: not absolute, no
// '..', not empty. Returns the message for an error, or "" when it is fine.
std::string OutsideFolderReason(const fs::path& relative);
// What root/relative is (a final symlink is not followed), checked on the way
// down: an error (exit 2) for a `relative` that fails OutsideFolderReason or
// passes through a symlink below `root`.
Expected<FileKind> KindBelow(const FileSystem& fs, const fs::path& root, const fs::path& relative);

}  // namespace kb
