#include "core/templates_catalog.h"

#include <toml++/toml.h>

#include "core/suggest.h"

namespace kb {

namespace {

Expected<std::string> ReadDescription(const FileSystem& fs, const std::filesystem::path& file) {
  Expected<std::string> text = fs.Read(file);
  if (!text) return text.error();
  Error e = MakeError(ExitCode::kUsage, "", "template.toml holds one line: description = \"...\"");
  e.path = file.string();
  try {
    toml::table table = toml::parse(*text, file.string());
    if (auto description = table["description"].value<std::string>()) return *description;
    e.message = "missing string key 'description'";
  } catch (const toml::parse_error& err) {
    e.message = std::string(err.description());
    e.line = static_cast<int>(err.source().begin.line);
    e.column = static_cast<int>(err.source().begin.column);
  }
  return e;
}

std::string JoinNames(const std::vector<TemplateInfo>& templates) {
  std::string out;
  for (const auto& t : templates) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

}  // namespace

Expected<std::vector<TemplateInfo>> ListTemplates(const FileSystem& fs,
                                                  const std::filesystem::path& home) {
  const std::filesystem::path root = home / "templates";
  std::vector<TemplateInfo> templates;
  // ListFilesRecursive is sorted, so templates come out sorted by name.
  for (const auto& file : fs.ListFilesRecursive(root)) {
    auto parts = std::distance(file.begin(), file.end());
    if (parts != 2 || file.filename() != kTemplateTomlFile) continue;
    TemplateInfo info;
    info.name = file.begin()->string();
    info.dir = root / info.name;
    Expected<std::string> description = ReadDescription(fs, root / file);
    if (!description) return description.error();
    info.description = *description;
    templates.push_back(std::move(info));
  }
  return templates;
}

Expected<TemplateInfo> FindTemplate(const FileSystem& fs, const std::filesystem::path& home,
                                    const std::string& name) {
  Expected<std::vector<TemplateInfo>> templates = ListTemplates(fs, home);
  if (!templates) return templates.error();
  std::vector<std::string> names;
  for (const auto& t : *templates) {
    if (t.name == name) return t;
    names.push_back(t.name);
  }
  std::string hint;
  if (auto near = NearestName(name, names)) hint = "did you mean '" + *near + "'? ";
  hint += "available templates: " + JoinNames(*templates) + " (see 'kbuild init --list')";
  return MakeError(ExitCode::kUsage, "unknown template '" + name + "'", hint);
}

}  // namespace kb
