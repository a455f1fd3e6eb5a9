#include "core/fs.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kb {

namespace {
Error IoError(const fs::path& p, const std::string& what) {
  Error e = MakeError(ExitCode::kEnvironment, what);
  e.path = p.string();
  return e;
}
}  // namespace

bool RealFileSystem::Exists(const fs::path& p) const {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool RealFileSystem::IsDirectory(const fs::path& p) const {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

Expected<std::string> RealFileSystem::Read(const fs::path& p) const {
  std::ifstream in(p, std::ios::binary);
  if (!in) return IoError(p, "cannot read file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status RealFileSystem::Write(const fs::path& p, const std::string& content) {
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (ec) return IoError(p.parent_path(), "cannot create directory: " + ec.message());
  // Write to a sibling temp file and rename, so a crash never leaves half a file.
  fs::path tmp = p;
  tmp += ".kbuild-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return IoError(p, "cannot write file");
    out << content;
    if (!out) return IoError(p, "write failed (disk full?)");
  }
  fs::rename(tmp, p, ec);
  if (ec) return IoError(p, "cannot rename temp file: " + ec.message());
  return {};
}

Status RealFileSystem::MakeDirectories(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec) return IoError(p, "cannot create directory: " + ec.message());
  return {};
}

std::vector<fs::path> RealFileSystem::ListFilesRecursive(const fs::path& dir) const {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file()) out.push_back(it->path().lexically_relative(dir));  // keep links as named
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status RealFileSystem::Remove(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (ec) return IoError(p, "cannot remove: " + ec.message());
  return {};
}

std::string MemoryFileSystem::Key(const fs::path& p) {
  return p.lexically_normal().generic_string();
}

bool MemoryFileSystem::Exists(const fs::path& p) const {
  return files_.count(Key(p)) > 0 || IsDirectory(p);
}

bool MemoryFileSystem::IsDirectory(const fs::path& p) const {
  std::string key = Key(p);
  if (dirs_.count(key)) return true;
  if (!key.empty() && key.back() != '/') key += '/';
  auto it = files_.lower_bound(key);
  return it != files_.end() && it->first.rfind(key, 0) == 0;
}

Expected<std::string> MemoryFileSystem::Read(const fs::path& p) const {
  auto it = files_.find(Key(p));
  if (it == files_.end()) return IoError(p, "cannot read file");
  return it->second;
}

Status MemoryFileSystem::Write(const fs::path& p, const std::string& content) {
  files_[Key(p)] = content;
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

Status MemoryFileSystem::Remove(const fs::path& p) {
  std::string key = Key(p);
  files_.erase(key);
  dirs_.erase(key);
  std::string prefix = key + "/";
  for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.rfind(prefix, 0) == 0;) {
    it = files_.erase(it);
  }
  return {};
}

}  // namespace kb
