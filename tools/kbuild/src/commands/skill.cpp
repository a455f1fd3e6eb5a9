// kbuild skill (stub: to be implemented).
#include "commands/command.h"
#include "core/report.h"

namespace kb {

void AddSkillCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand("skill", "(not implemented yet)");
  auto json = std::make_shared<bool>(false);
  AddJsonFlag(*sub, *json);
  sub->callback([&invocation, json, &global] {
    (void)global;
    invocation.run = [json] {
      Report report("skill", *json);
      return report.Fail(MakeError(ExitCode::kInternal, "'skill' is not implemented yet"));
    };
  });
}

}  // namespace kb
