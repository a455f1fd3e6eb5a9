#include "core/hub_layout.h"

#include <set>

#include "core/paths.h"
#include "core/render.h"

namespace kb {

namespace fs = std::filesystem;

bool IsPythonCachePath(const fs::path& relative) {
  for (const auto& part : relative) {
    if (part == "__pycache__") return true;
  }
  return relative.extension() == ".pyc";
}

Expected<VariantFiles> RenderVariantFiles(const FileSystem& fs, const VariantLayout& layout) {
  VariantFiles files;
  if (!fs.Exists(layout.package_dir / "__init__.py")) {
    Error e = MakeError(ExitCode::kUsage, "the Python package has no __init__.py",
                        "create torch-ext/" + layout.python_name +
                            "/__init__.py exposing the ops (from ._ops import ops, "
                            "add_op_namespace_prefix), as kbuild init does");
    e.path = (layout.package_dir / "__init__.py").string();
    return e;
  }
  // Copied into the build and, by kbuild package, into the upload: regular files only, as a
  // link may lead outside the project.
  const auto not_copied = [&](const fs::path& path, const std::string& what) {
    Error e = MakeError(ExitCode::kUsage, "the Python package holds " + what,
                        "kbuild copies only regular files of torch-ext/" + layout.python_name +
                            "/ into the build: replace it with the file itself");
    e.path = path.string();
    return e;
  };
  if (fs.KindOf(layout.package_dir) != FileKind::kDirectory) {
    return not_copied(layout.package_dir, "no real folder (it is a symbolic link)");
  }
  for (const TreeEntry& entry : fs.ListEntries(layout.package_dir)) {
    const fs::path& rel = entry.relative;
    if (IsPythonCachePath(rel)) continue;
    if (entry.kind != FileKind::kRegular) {
      return not_copied(layout.package_dir / rel, FileKindName(entry.kind));
    }
    auto content = fs.Read(layout.package_dir / rel);
    if (!content) return content.error();
    files[rel.generic_string()] = *content;
  }
  auto library = fs.Read(layout.library);
  if (!library) return library.error();
  const std::string library_name = layout.library.filename().string();
  files[library_name] = *library;

  const RenderVars vars = {{"library", library_name},
                           {"namespace", layout.op_namespace},
                           {"python_name", layout.python_name}};
  auto ops = RenderText(layout.ops_template, vars, "_ops.py.in");
  if (!ops) return ops.error();
  files["_ops.py"] = *ops;
  auto compat = RenderText(layout.compat_template, vars, "compat_init.py.in");
  if (!compat) return compat.error();
  files[layout.python_name + "/__init__.py"] = *compat;
  return files;
}

Status WriteVariant(FileSystem& fs, const fs::path& variant_dir, const VariantFiles& files,
                    const std::string& metadata_json) {
  for (const auto& [rel, content] : files) {
    if (Status s = WriteIfChanged(fs, variant_dir / rel, content); !s) return s;
  }
  if (Status s = WriteIfChanged(fs, variant_dir / "metadata.json", metadata_json); !s) return s;
  for (const fs::path& rel : fs.ListFilesRecursive(variant_dir)) {
    const std::string key = rel.generic_string();
    if (key == "metadata.json" || files.count(key) || IsPythonCachePath(rel)) continue;
    if (Status s = fs.Remove(variant_dir / rel); !s) return s;
  }
  return {};
}

bool IsVariantFolderName(const std::string& name) {
  return name.rfind("torch", 0) == 0 && name.ends_with("-linux");
}

std::vector<std::string> OtherVariants(const FileSystem& fs, const fs::path& build_dir,
                                       const std::string& current) {
  std::set<std::string> names;
  for (const fs::path& rel : fs.ListFilesRecursive(build_dir)) {
    const std::string top = rel.begin()->string();
    if (IsVariantFolderName(top) && top != current) names.insert(top);
  }
  return {names.begin(), names.end()};
}

}  // namespace kb
