// The errors both file systems report, and the in-memory file system.
#include "core/fs.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace kb {

namespace {

Error FileError(ExitCode code, const fs::path& p, std::string message, std::string hint = {}) {
  Error e = MakeError(code, std::move(message), std::move(hint));
  e.path = p.string();
  return e;
}

std::string FormatBytes(std::uintmax_t bytes) {
  if (bytes % (1ull << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes % (1ull << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes % (1ull << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

constexpr int kMaxSymlinkHops = 40;  // as Linux's ELOOP limit

const std::string& NameOf(const std::string& entry) { return entry; }
template <typename V>
const std::string& NameOf(const std::pair<const std::string, V>& entry) {
  return entry.first;
}

// Erases `key` and everything below it from a sorted container of keys.
template <typename Container>
void EraseTree(Container& c, const std::string& key) {
  const std::string prefix = key + "/";
  for (auto it = c.begin(); it != c.end();) {
    const std::string& name = NameOf(*it);
    it = (name == key || name.rfind(prefix, 0) == 0) ? c.erase(it) : std::next(it);
  }
}

}  // namespace

std::string FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kDirectory:
      return "a directory";
    case FileKind::kSymlink:
      return "a symbolic link";
    case FileKind::kOther:
      return "a FIFO, socket or device";
    case FileKind::kMissing:
      return "missing";
    case FileKind::kRegular:
      break;
  }
  return "a regular file";
}

Error NotRegularFileError(const fs::path& p, FileKind kind) {
  return FileError(ExitCode::kUsage, p, "not a regular file (it is " + FileKindName(kind) + ")",
                   "kbuild reads and deletes only regular files here; replace it with one");
}

Error FileTooLargeError(const fs::path& p, std::uintmax_t limit) {
  return FileError(ExitCode::kUsage, p, "file is larger than the " + FormatBytes(limit) + " limit",
                   "check that this is the file you meant; kbuild does not read files this large "
                   "here");
}

Error ThroughSymlinkError(const fs::path& p, const fs::path& link) {
  return FileError(ExitCode::kUsage, p,
                   "refusing a path through the symbolic link " + link.string(),
                   "kbuild writes and deletes only below real folders here; replace the link "
                   "with a folder");
}

std::string OutsideFolderReason(const fs::path& relative) {
  if (relative.empty()) return "empty path";
  if (relative.has_root_path()) return "absolute path";
  for (const auto& part : relative) {
    if (part == "..") return "'..' leaves the folder";
  }
  return "";
}

Expected<FileKind> KindBelow(const FileSystem& fs, const fs::path& root, const fs::path& relative) {
  const fs::path target = root / relative;
  if (std::string reason = OutsideFolderReason(relative); !reason.empty()) {
    return FileError(ExitCode::kUsage, target, "path leaves " + root.string() + ": " + reason);
  }
  fs::path at = root;
  for (auto it = relative.begin(); it != relative.end(); ++it) {
    at /= *it;
    const FileKind kind = fs.KindOf(at);
    if (std::next(it) == relative.end() || kind == FileKind::kMissing) return kind;
    if (kind == FileKind::kSymlink) return ThroughSymlinkError(target, at);
    if (kind != FileKind::kDirectory) return FileKind::kMissing;  // nothing lies below a file
  }
  return FileKind::kMissing;
}

std::string MemoryFileSystem::Key(const fs::path& p) {
  return p.lexically_normal().generic_string();
}

bool MemoryFileSystem::Exists(const fs::path& p) const { return KindOf(p) != FileKind::kMissing; }

bool MemoryFileSystem::IsDirectory(const fs::path& p) const {
  std::string key = Key(p);
  if (dirs_.count(key)) return true;
  if (!key.empty() && key.back() != '/') key += '/';
  // Folders exist implicitly above files, links and special files alike.
  auto above = [&](const auto& keys) {
    auto it = keys.lower_bound(key);
    return it != keys.end() && NameOf(*it).rfind(key, 0) == 0;
  };
  return above(files_) || above(symlinks_) || above(specials_);
}

FileKind MemoryFileSystem::KindOf(const fs::path& p) const {
  const std::string key = Key(p);
  if (symlinks_.count(key)) return FileKind::kSymlink;
  if (specials_.count(key)) return FileKind::kOther;
  if (files_.count(key)) return FileKind::kRegular;
  return IsDirectory(p) ? FileKind::kDirectory : FileKind::kMissing;
}

Expected<std::string> MemoryFileSystem::ReadAtMost(const fs::path& p,
                                                   std::uintmax_t max_bytes) const {
  fs::path at = p.lexically_normal();
  for (int hops = 0; symlinks_.count(Key(at)); ++hops) {
    if (hops == kMaxSymlinkHops) {
      return FileError(ExitCode::kUsage, p, "too many levels of symbolic links",
                       "a symbolic link loop; point the link at a regular file");
    }
    const fs::path target = symlinks_.at(Key(at));
    at = (target.is_absolute() ? target : at.parent_path() / target).lexically_normal();
  }
  const FileKind kind = KindOf(at);
  if (kind == FileKind::kMissing) {
    return FileError(ExitCode::kEnvironment, p, "cannot read file: No such file or directory");
  }
  if (kind != FileKind::kRegular) return NotRegularFileError(p, kind);
  const std::string& content = files_.at(Key(at));
  if (content.size() > max_bytes) return FileTooLargeError(p, max_bytes);
  return content;
}

Status MemoryFileSystem::Write(const fs::path& p, const std::string& content) {
  const std::string key = Key(p);
  symlinks_.erase(key);  // a rename replaces the link, never its target
  specials_.erase(key);
  files_[key] = content;
  return {};
}

Status MemoryFileSystem::MakeDirectories(const fs::path& p) {
  dirs_[Key(p)] = true;
  return {};
}

std::vector<fs::path> MemoryFileSystem::ListFilesRecursive(const fs::path& dir) const {
  std::vector<fs::path> out;
  std::string prefix = Key(dir);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  for (const auto& [key, _] : files_) {
    if (key.rfind(prefix, 0) == 0) out.emplace_back(key.substr(prefix.size()));
  }
  return out;
}

std::vector<TreeEntry> MemoryFileSystem::ListEntries(const fs::path& dir) const {
  std::string prefix = Key(dir);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  // A link's own key below a linked folder never names a real entry: skip what lies below links.
  auto below_link = [&](const std::string& key) {
    for (const auto& [link, _] : symlinks_) {
      if (key.rfind(link + "/", 0) == 0) return true;
    }
    return false;
  };
  std::vector<TreeEntry> out;
  auto add = [&](const std::string& key, FileKind kind) {
    if (key.rfind(prefix, 0) == 0 && !below_link(key))
      out.push_back({key.substr(prefix.size()), kind});
  };
  for (const auto& [key, _] : files_) add(key, FileKind::kRegular);
  for (const auto& [key, _] : symlinks_) add(key, FileKind::kSymlink);
  for (const auto& key : specials_) add(key, FileKind::kOther);
  std::sort(out.begin(), out.end(),
            [](const TreeEntry& a, const TreeEntry& b) { return a.relative < b.relative; });
  return out;
}

Status MemoryFileSystem::RenameNoReplace(const fs::path& from, const fs::path& to) {
  const std::string source = Key(from), target = Key(to);
  if (KindOf(to) != FileKind::kMissing) {
    return FileError(ExitCode::kEnvironment, to,
                     "cannot rename " + from.string() + " to it: File exists");
  }
  if (KindOf(from) == FileKind::kMissing) {
    return FileError(ExitCode::kEnvironment, to,
                     "cannot rename " + from.string() + " to it: No such file or directory");
  }
  // Moves the key and every key below it, in each of the four containers.
  auto moved = [&](const std::string& key) -> std::optional<std::string> {
    if (key == source) return target;
    if (key.rfind(source + "/", 0) == 0) return target + key.substr(source.size());
    return std::nullopt;
  };
  auto move_map = [&](auto& m) {
    std::remove_reference_t<decltype(m)> kept;
    for (auto& [key, value] : m) kept[moved(key).value_or(key)] = value;
    m = std::move(kept);
  };
  move_map(files_);
  move_map(dirs_);
  move_map(symlinks_);
  std::set<std::string> specials;
  for (const auto& key : specials_) specials.insert(moved(key).value_or(key));
  specials_ = std::move(specials);
  return {};
}

Status MemoryFileSystem::Remove(const fs::path& p) {
  const std::string key = Key(p);
  EraseTree(files_, key);
  EraseTree(dirs_, key);
  EraseTree(symlinks_, key);
  EraseTree(specials_, key);
  return {};
}

Status MemoryFileSystem::RemoveFileBelow(const fs::path& root, const fs::path& relative) {
  Expected<FileKind> kind = KindBelow(*this, root, relative);
  if (!kind) return kind.error();
  if (*kind == FileKind::kMissing) return {};
  if (*kind != FileKind::kRegular) return NotRegularFileError(root / relative, *kind);
  files_.erase(Key(root / relative));
  return {};
}

Status MemoryFileSystem::CopyFile(const fs::path& from, const fs::path& to) {
  const FileKind kind = KindOf(from);
  if (kind != FileKind::kRegular) return NotRegularFileError(from, kind);
  if (KindOf(to) == FileKind::kDirectory) return NotRegularFileError(to, FileKind::kDirectory);
  symlinks_.erase(Key(to));
  specials_.erase(Key(to));
  files_[Key(to)] = files_.at(Key(from));
  return {};
}

void MemoryFileSystem::PlantSymlink(const fs::path& link, const fs::path& target) {
  symlinks_[Key(link)] = target.generic_string();
}

void MemoryFileSystem::PlantSpecialFile(const fs::path& p) { specials_.insert(Key(p)); }

}  // namespace kb
