// kbuild check (stub: to be implemented).
#include "commands/command.h"
#include "core/report.h"

namespace kb {

void AddCheckCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand("check", "(not implemented yet)");
  auto json = std::make_shared<bool>(false);
  AddJsonFlag(*sub, *json);
  sub->callback([&invocation, json, &global] {
    (void)global;
    invocation.run = [json] {
      Report report("check", *json);
      return report.Fail(MakeError(ExitCode::kInternal, "'check' is not implemented yet"));
    };
  });
}

}  // namespace kb
