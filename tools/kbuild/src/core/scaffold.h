// `kbuild init`'s logic: render a template into a new kernel project, all or
// nothing. Every file is rendered in memory first; then collisions are
// checked; only then is anything written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/templates_catalog.h"

namespace kb {

// build.toml's [general] name rule (IsValidProjectName in config_schema.h) as
// a usage error whose hint shows a fixed-up valid name.
Status ValidateProjectName(const std::string& name);

struct ScaffoldRequest {
  std::string name;                  // validated project name (kebab-case)
  int version = 1;                   // [general] version
  TemplateInfo source;               // the template to render
  std::filesystem::path home;        // holds build.toml.in (see kbuild_home.h)
  std::filesystem::path target_dir;  // where the project goes
};

struct PlannedFile {
  std::filesystem::path relative;  // below the target dir, rendered
  std::string content;             // rendered (or verbatim for binary files)
};

struct ScaffoldPlan {
  std::filesystem::path target_dir;
  std::vector<PlannedFile> files;  // sorted by path
};

// Renders build.toml (from build.toml.in and the template's kernels.toml.in)
// and every template file. Writes nothing.
Expected<ScaffoldPlan> PlanScaffold(const FileSystem& fs, const ScaffoldRequest& request);

// Writes the plan. Unless `force`, refuses (exit 2, nothing written) when any
// planned file exists already, naming the first few.
Status WriteScaffold(FileSystem& fs, const ScaffoldPlan& plan, bool force);

}  // namespace kb
