#include "core/package_variants.h"

#include <set>

#include "core/hub_layout.h"
#include "core/json_fields.h"
#include "core/package_entries.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRebuildHint =
    "run 'kbuild build' to write the variant again, then package again";

Error VariantError(ExitCode code, const fs::path& where, std::string message) {
  Error e = MakeError(code, std::move(message), kRebuildHint);
  e.path = where.string();
  return e;
}

// The first path whose digest differs between what metadata.json records and
// what is on disk, or "" when they agree.
std::string FirstDigestDifference(const nlohmann::json& recorded, const nlohmann::json& actual) {
  std::set<std::string> paths;
  for (const auto& [path, _] : recorded.items()) paths.insert(path);
  for (const auto& [path, _] : actual.items()) paths.insert(path);
  for (const auto& path : paths) {
    if (!recorded.contains(path) || !actual.contains(path) || recorded[path] != actual[path]) {
      return path;
    }
  }
  return "";
}

std::string DifferenceWords(const nlohmann::json& recorded, const std::string& path) {
  if (!recorded.contains(path)) return "is not in metadata.json's digest (added after the build)";
  return "does not match metadata.json's digest (changed or removed after the build)";
}

}  // namespace

Expected<std::vector<std::string>> ListBuiltVariants(const FileSystem& fs,
                                                     const fs::path& build_dir) {
  std::set<std::string> names;
  for (const TreeEntry& entry : fs.ListEntries(build_dir)) {
    const std::string top = entry.relative.begin()->string();
    if (!IsVariantFolderName(top)) continue;
    const FileKind kind = fs.KindOf(build_dir / top);
    if (kind != FileKind::kDirectory) return UnpackableEntryError(build_dir / top, kind);
    names.insert(top);
  }
  if (names.empty()) {
    return VariantError(
        ExitCode::kUsage, build_dir,
        "no built Kernel Hub variant (build/torch<VER>-cxx11-cu<VER>-x86_64-linux/)");
  }
  return std::vector<std::string>(names.begin(), names.end());
}

Expected<VerifiedVariant> ReadVerifiedVariant(const FileSystem& fs, const fs::path& build_dir,
                                              const std::string& name, std::uintmax_t max_bytes) {
  const fs::path dir = build_dir / name;
  auto paths = PackableFilesBelow(fs, build_dir, name);
  if (!paths) return paths.error();
  VerifiedVariant variant;
  variant.name = name;
  std::uintmax_t total = 0;
  for (const fs::path& path : *paths) {
    auto content = fs.ReadAtMost(build_dir / path, max_bytes - total);
    if (!content) return content.error();
    total += content->size();
    variant.files[path.lexically_relative(name).generic_string()] = std::move(*content);
  }
  const auto metadata = variant.files.find("metadata.json");
  if (metadata == variant.files.end()) {
    return VariantError(ExitCode::kUsage, dir / "metadata.json",
                        "the variant has no metadata.json");
  }
  const auto doc = ParseUntrustedJson(metadata->second);
  const nlohmann::json recorded = ObjectAt(ObjectAt(doc, "digest"), "files");
  if (!doc.is_object() || StringOr(ObjectAt(doc, "digest"), "algorithm") != "sha256" ||
      recorded.empty()) {
    return VariantError(ExitCode::kCheckFailed, dir / "metadata.json",
                        "metadata.json has no sha256 digest of the variant's files");
  }
  const nlohmann::json actual = VariantDigest(variant.files)["files"];
  if (std::string path = FirstDigestDifference(recorded, actual); !path.empty()) {
    return VariantError(ExitCode::kCheckFailed, dir / path, DifferenceWords(recorded, path));
  }
  variant.op_namespace = StringOr(doc, "id");
  for (const auto& arch : ArrayAt(ObjectAt(doc, "backend"), "archs")) {
    if (arch.is_string()) variant.archs.push_back(arch.get<std::string>());
  }
  return variant;
}

}  // namespace kb
