// The templates `kbuild init` can render: every folder under
// <KBUILD_HOME>/templates/ that holds a template.toml (description = "...").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// Files in a template folder that steer rendering and are not copied.
inline constexpr char kTemplateTomlFile[] = "template.toml";   // description = "..."
inline constexpr char kKernelsTomlFile[] = "kernels.toml.in";  // the [kernel.*] tables

struct TemplateInfo {
  std::string name;           // the folder name, what --template takes
  std::string description;    // one line, from template.toml
  std::filesystem::path dir;  // <home>/templates/<name>
};

// All templates, sorted by name. A broken template.toml is an error (exit 2)
// with file:line:column, so a template author sees it at once.
Expected<std::vector<TemplateInfo>> ListTemplates(const FileSystem& fs,
                                                  const std::filesystem::path& home);

// One template by name; an unknown name is a usage error (exit 2) whose hint
// suggests the nearest name and lists the available ones.
Expected<TemplateInfo> FindTemplate(const FileSystem& fs, const std::filesystem::path& home,
                                    const std::string& name);

}  // namespace kb
