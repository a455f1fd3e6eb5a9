// kbuild init NAME: create a kernel project from a template (core/scaffold.h).
#include <memory>

#include "commands/command.h"
#include "core/kbuild_home.h"
#include "core/report.h"
#include "core/scaffold.h"
#include "core/templates_catalog.h"

namespace kb {

namespace {

struct InitOptions {
  std::string name;
  std::string template_name = "blank";
  std::filesystem::path dir;  // default: ./NAME
  bool force = false;
  bool list = false;
  bool json = false;
};

int ListTemplatesCommand(Report& report, const FileSystem& fs, const std::filesystem::path& home) {
  Expected<std::vector<TemplateInfo>> templates = ListTemplates(fs, home);
  if (!templates) return report.Fail(templates.error());
  size_t width = 0;
  for (const auto& t : *templates) width = std::max(width, t.name.size());
  report.Line("Templates (kbuild init NAME --template T):");
  report.data()["templates"] = nlohmann::json::array();
  for (const auto& t : *templates) {
    report.Line("  " + t.name + std::string(width + 2 - t.name.size(), ' ') + t.description);
    report.data()["templates"].push_back({{"name", t.name}, {"description", t.description}});
  }
  return report.Finish();
}

int RunInit(const InitOptions& options, const GlobalOptions& global) {
  Report report("init", options.json);
  RealFileSystem fs;
  Expected<std::filesystem::path> home = FindKbuildHome(fs);
  if (!home) return report.Fail(home.error());
  if (options.list) return ListTemplatesCommand(report, fs, *home);

  if (options.name.empty()) {
    return report.Fail(MakeError(ExitCode::kUsage, "missing the project NAME",
                                 "run 'kbuild init NAME [--template T]'; "
                                 "'kbuild init --list' shows the templates"));
  }
  if (Status s = ValidateProjectName(options.name); !s) return report.Fail(s.error());
  Expected<TemplateInfo> source = FindTemplate(fs, *home, options.template_name);
  if (!source) return report.Fail(source.error());

  ScaffoldRequest request;
  request.name = options.name;
  request.source = *source;
  request.home = *home;
  request.target_dir = global.project_dir /
                       (options.dir.empty() ? std::filesystem::path(options.name) : options.dir);
  request.target_dir = request.target_dir.lexically_normal();
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, request);
  if (!plan) return report.Fail(plan.error());
  if (Status s = WriteScaffold(fs, *plan, options.force); !s) return report.Fail(s.error());

  const std::string dir = plan->target_dir.string();
  report.data()["project_dir"] = dir;
  report.data()["template"] = source->name;
  report.data()["files"] = nlohmann::json::array();
  report.Line("Created project '" + options.name + "' from template '" + source->name + "' in " +
              dir + ":");
  for (const auto& file : plan->files) {
    report.Line("  " + file.relative.generic_string());
    report.data()["files"].push_back(file.relative.generic_string());
  }
  report.Line("Next steps:");
  report.Line("  cd " + dir + " && kbuild check && kbuild build && kbuild test && kbuild bench");
  return report.Finish();
}

}  // namespace

void AddInitCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "init",
      "Create a kernel project (build.toml, CUDA sources, torch binding, Python package, a "
      ".gitignore for build/, results/ and dist/) from a template");
  auto options = std::make_shared<InitOptions>();
  sub->add_option("NAME", options->name,
                  "Project name: lowercase letters, digits and dashes, starting with a letter, "
                  "at least 2 characters (becomes build.toml's [general] name; the Python package "
                  "uses '_' for '-')");
  sub->add_option("-t,--template", options->template_name,
                  "Template to start from (default: blank; see --list)");
  sub->add_option("--dir", options->dir, "Folder to create the project in (default: ./NAME)");
  sub->add_flag("--force", options->force,
                "Overwrite files that already exist (other files in the folder are kept)");
  sub->add_flag("--list", options->list, "List the templates with their descriptions and exit");
  AddJsonFlag(*sub, options->json);
  sub->footer(
      "Nothing is written unless every file renders and none exists already (or --force).\n"
      "JSON (--json): {command, ok, exit_code, project_dir, template, files: [...]};\n"
      "with --list: {command, ok, exit_code, templates: [{name, description}]}.");
  sub->callback([&invocation, options, &global] {
    invocation.run = [options, &global] { return RunInit(*options, global); };
  });
}

}  // namespace kb
