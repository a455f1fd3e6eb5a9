// metadata.json of a Kernel Hub variant, in the schema the `kernels` loader
// parses (kebab-case keys; `python-depends` required; digest = per-file
// base64 SHA-256; provenance needs a 40-hex commit).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/process.h"

namespace kb {

struct GitProvenance {
  std::string commit;  // 40 hex digits
  bool dirty = false;  // uncommitted changes to tracked files
};

struct MetadataInput {
  std::string id;    // the op namespace: ops live at torch.ops.<id>
  std::string name;  // kernel name (kebab-case)
  int version = 1;
  std::optional<std::string> license, upstream, source;
  std::vector<std::string> python_depends;
  std::vector<std::string> archs;  // "9.0a", ...
  std::optional<GitProvenance> git;
  std::string builder_version;  // kbuild's version, MAJOR.MINOR.PATCH
};

// Files of the variant dir (relative path -> content) that the digest covers.
using VariantFiles = std::map<std::string, std::string>;

// The digest covers every file of the variant except metadata.json itself
// (and its signature), keyed by the relative path with '/' separators, in
// sorted path order, each value base64(sha256(content)) - the same rule as
// kernels' Digest.hash_variant, so `kernels` verification agrees with it.
nlohmann::json VariantDigest(const VariantFiles& files);

std::string RenderMetadataJson(const MetadataInput& input, const VariantFiles& files);

// HEAD and dirtiness of the git repo holding `dir`; nothing outside git.
std::optional<GitProvenance> ReadGitProvenance(ProcessRunner& runner,
                                               const std::filesystem::path& dir);

}  // namespace kb
