#include "core/scaffold.h"

#include <algorithm>

#include "core/config_schema.h"
#include "core/render.h"

namespace kb {

namespace {

// How many colliding paths an error names before summarizing the rest.
constexpr size_t kCollisionsShown = 5;

// Every new project ignores what kbuild writes: build outputs, benchmark results and
// kbuild package's dist/.
constexpr const char* kProjectGitignore = "build/\nresults/\ndist/\n";

std::string PythonNameOf(const std::string& name) {
  std::string out = name;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

// Build outputs and Python caches in a template folder are not template files.
bool IsGenerated(const std::filesystem::path& relative) {
  if (relative.extension() == ".pyc") return true;
  return std::any_of(relative.begin(), relative.end(), [](const std::filesystem::path& part) {
    return part == "build" || part == "__pycache__";
  });
}

std::string WithoutTrailingNewlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

Expected<std::string> RenderFile(const FileSystem& fs, const std::filesystem::path& file,
                                 const RenderVars& vars) {
  Expected<std::string> text = fs.Read(file);
  if (!text) return text.error();
  if (LooksBinary(*text)) return text;
  return RenderText(*text, vars, file.string());
}

// build.toml = build.toml.in with {{kernels}} = the template's kernels.toml.in.
Expected<std::string> RenderBuildToml(const FileSystem& fs, const ScaffoldRequest& request,
                                      RenderVars vars) {
  const std::filesystem::path kernels_file = request.source.dir / kKernelsTomlFile;
  if (!fs.Exists(kernels_file)) {
    Error e = MakeError(ExitCode::kUsage,
                        "template '" + request.source.name + "' has no " + kKernelsTomlFile,
                        "a template keeps its [kernel.*] tables in kernels.toml.in "
                        "(see templates/README.md)");
    e.path = request.source.dir.string();
    return e;
  }
  Expected<std::string> kernels = RenderFile(fs, kernels_file, vars);
  if (!kernels) return kernels.error();
  vars["kernels"] = WithoutTrailingNewlines(*kernels);
  return RenderFile(fs, request.home / "build.toml.in", vars);
}

Status TemplateMustNotShipBuildToml(const ScaffoldRequest& request) {
  Error e = MakeError(ExitCode::kUsage, "template ships its own build.toml",
                      "move its [kernel.*] tables to kernels.toml.in and delete build.toml: "
                      "kbuild init writes build.toml from build.toml.in");
  e.path = (request.source.dir / "build.toml").string();
  return e;
}

// A listed path must stay inside the template folder, so the rendered one stays
// inside the project folder.
Status MustStayInside(const std::filesystem::path& relative, const TemplateInfo& source) {
  if (!relative.is_absolute() && !relative.empty() && *relative.begin() != "..") return {};
  Error e =
      MakeError(ExitCode::kInternal,
                "template file listed outside the template folder: " + relative.generic_string(),
                "file listing must give paths relative to the template folder without "
                "resolving symlinks; this is a bug in kbuild");
  e.path = source.dir.string();
  return e;
}

}  // namespace

Status ValidateProjectName(const std::string& name) {
  if (IsValidProjectName(name)) return {};
  return MakeError(
      ExitCode::kUsage, "invalid project name '" + name + "'",
      "use lowercase letters, digits and dashes, starting with a letter and not "
      "ending with a dash, at least 2 characters (the rule of build.toml's [general] name); try '" +
          SuggestProjectName(name) + "'");
}

Expected<ScaffoldPlan> PlanScaffold(const FileSystem& fs, const ScaffoldRequest& request) {
  if (Status s = ValidateProjectName(request.name); !s) return s.error();
  const RenderVars vars = {{"name", request.name},
                           {"python_name", PythonNameOf(request.name)},
                           {"version", std::to_string(request.version)}};
  ScaffoldPlan plan;
  plan.target_dir = request.target_dir;

  Expected<std::string> build_toml = RenderBuildToml(fs, request, vars);
  if (!build_toml) return build_toml.error();
  plan.files.push_back({"build.toml", std::move(*build_toml)});
  plan.files.push_back({".gitignore", kProjectGitignore});

  for (const auto& relative : fs.ListFilesRecursive(request.source.dir)) {
    if (relative == kTemplateTomlFile || relative == kKernelsTomlFile || IsGenerated(relative))
      continue;
    if (relative == "build.toml") return TemplateMustNotShipBuildToml(request).error();
    if (relative == ".gitignore") continue;  // kbuild writes its own
    if (Status s = MustStayInside(relative, request.source); !s) return s.error();
    Expected<std::filesystem::path> target = RenderPath(relative, vars);
    if (!target) return target.error();
    Expected<std::string> content = RenderFile(fs, request.source.dir / relative, vars);
    if (!content) return content.error();
    plan.files.push_back({std::move(*target), std::move(*content)});
  }
  std::sort(plan.files.begin(), plan.files.end(),
            [](const PlannedFile& a, const PlannedFile& b) { return a.relative < b.relative; });
  return plan;
}

Status WriteScaffold(FileSystem& fs, const ScaffoldPlan& plan, bool force) {
  // The folder itself planted as a link (a dangling one included) would take
  // the whole project elsewhere, --force or not.
  const FileKind folder = fs.KindOf(plan.target_dir);
  if (folder != FileKind::kMissing && folder != FileKind::kDirectory) {
    Error e = MakeError(ExitCode::kUsage, "the project folder is " + FileKindName(folder),
                        "choose another folder with --dir");
    e.path = plan.target_dir.string();
    return e;
  }
  std::vector<std::string> existing;
  for (const auto& file : plan.files) {
    // A folder on the way planted as a link would take the file elsewhere, --force or not.
    Expected<FileKind> kind = KindBelow(fs, plan.target_dir, file.relative);
    if (!kind) return kind.error();
    if (*kind != FileKind::kMissing) existing.push_back(file.relative.generic_string());
  }
  if (!existing.empty() && !force) {
    std::string listed;
    for (size_t i = 0; i < std::min(existing.size(), kCollisionsShown); ++i) {
      listed += (i ? ", " : "") + existing[i];
    }
    if (existing.size() > kCollisionsShown) {
      listed += " and " + std::to_string(existing.size() - kCollisionsShown) + " more";
    }
    Error e = MakeError(ExitCode::kUsage,
                        std::to_string(existing.size()) + " file(s) already exist: " + listed,
                        "nothing was written; pass --force to overwrite them, or choose another "
                        "folder with --dir");
    e.path = plan.target_dir.string();
    return e;
  }
  for (const auto& file : plan.files) {
    if (Status s = fs.Write(plan.target_dir / file.relative, file.content); !s) return s;
  }
  return {};
}

}  // namespace kb
