// The file system seam: commands touch the disk only through FileSystem, so
// unit tests run on MemoryFileSystem without a real project.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace kb {

namespace fs = std::filesystem;

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual bool Exists(const fs::path& p) const = 0;
  virtual bool IsDirectory(const fs::path& p) const = 0;
  virtual Expected<std::string> Read(const fs::path& p) const = 0;
  // Creates parent directories; writes atomically (temp file + rename) on disk.
  virtual Status Write(const fs::path& p, const std::string& content) = 0;
  virtual Status MakeDirectories(const fs::path& p) = 0;
  // Regular files below `dir`, recursively, as paths relative to `dir`, sorted.
  virtual std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const = 0;
  virtual Status Remove(const fs::path& p) = 0;  // file or whole tree; ok if absent
};

class RealFileSystem final : public FileSystem {
 public:
  bool Exists(const fs::path& p) const override;
  bool IsDirectory(const fs::path& p) const override;
  Expected<std::string> Read(const fs::path& p) const override;
  Status Write(const fs::path& p, const std::string& content) override;
  Status MakeDirectories(const fs::path& p) override;
  std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const override;
  Status Remove(const fs::path& p) override;
};

// In-memory tree for unit tests. Directories exist implicitly above files.
class MemoryFileSystem final : public FileSystem {
 public:
  bool Exists(const fs::path& p) const override;
  bool IsDirectory(const fs::path& p) const override;
  Expected<std::string> Read(const fs::path& p) const override;
  Status Write(const fs::path& p, const std::string& content) override;
  Status MakeDirectories(const fs::path& p) override;
  std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const override;
  Status Remove(const fs::path& p) override;

  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  static std::string Key(const fs::path& p);
  std::map<std::string, std::string> files_;
  std::map<std::string, bool> dirs_;
};

}  // namespace kb
