// The root command tree, shared by main() and by `kbuild skill check`.
#include "commands/command.h"

namespace kb {

void ConfigureRootApp(CLI::App& app, GlobalOptions& global, Invocation& invocation) {
  app.set_version_flag("--version", std::string("kbuild ") + KBUILD_VERSION);
  app.require_subcommand(1);
  app.add_option("-C,--project", global.project_dir,
                 "Run as if started in this project directory (default: .)");
  for (const auto& command : kCommands) command.add(app, global, invocation);
}

}  // namespace kb
