// The Kernel Hub variant directory build/<variant>/ (ANCHORS.md "Kernel Hub
// layout"): the shared library, _ops.py, the package files from
// torch-ext/<python_name>/, the <python_name>/ compatibility folder and
// metadata.json. Rendered in memory first, then written, then stale files removed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/metadata.h"

namespace kb {

struct VariantLayout {
  std::filesystem::path variant_dir;  // build/<variant>
  std::filesystem::path library;      // the built <namespace>.so
  std::filesystem::path package_dir;  // torch-ext/<python_name>
  std::string op_namespace;
  std::string python_name;
  std::string ops_template;     // resources/_ops.py.in
  std::string compat_template;  // resources/compat_init.py.in
};

// Everything but metadata.json, keyed by relative path.
Expected<VariantFiles> RenderVariantFiles(const FileSystem& fs, const VariantLayout& layout);

// Writes `files` (only those that changed) plus metadata.json, and removes
// files of an earlier build that are no longer part of the variant (an old
// <namespace>.so, say), leaving __pycache__ alone.
Status WriteVariant(FileSystem& fs, const std::filesystem::path& variant_dir,
                    const VariantFiles& files, const std::string& metadata_json);

// __pycache__ folders and .pyc files: written by whoever imported the
// package, never part of a variant or its digest.
bool IsPythonCachePath(const std::filesystem::path& relative);

// Whether a folder name in build/ is a Kernel Hub variant (torch...-linux),
// not build/cmake, build/logs or anything else kbuild keeps there.
bool IsVariantFolderName(const std::string& name);

// Other variant folders in build/ (e.g. from another torch), left untouched.
std::vector<std::string> OtherVariants(const FileSystem& fs, const std::filesystem::path& build_dir,
                                       const std::string& current);

}  // namespace kb
