// kbuild skill install|check: put the cuda-kernels skill pack where agents
// look for it, and prove the pack's links, code and commands are sound.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "commands/command.h"
#include "core/cuda_env.h"
#include "core/kbuild_home.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/report.h"
#include "core/skill_check.h"
#include "core/skill_install.h"
#include "core/suggest.h"
#include "core/torch_env.h"

namespace kb {

namespace {

struct InstallFlags {
  bool claude = false, codex = false, opencode = false, global = false, force = false, json = false;
  std::string dest;
};

struct CheckFlags {
  bool json = false, no_compile = false, no_cache = false;
};

std::vector<std::string> PathStrings(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.generic_string());
  return out;
}

int RunInstall(const GlobalOptions& global, const InstallFlags& flags) {
  Report report("skill install", flags.json);
  SkillInstallRequest request;
  request.home = KbuildHome();
  request.project_dir = global.project_dir;
  request.global = flags.global;
  request.force = flags.force;
  request.dest = flags.dest;
  if (flags.claude) request.agents.push_back(SkillAgent::kClaude);
  if (flags.codex) request.agents.push_back(SkillAgent::kCodex);
  if (flags.opencode) request.agents.push_back(SkillAgent::kOpenCode);
  if (flags.global) {
    auto home = GetEnv("HOME");
    if (!home) {
      return report.Fail(MakeError(ExitCode::kEnvironment, "--global needs HOME, which is not set",
                                   "set HOME, or install into a folder with --dest PATH"));
    }
    request.user_home = *home;
  }
  RealFileSystem fs;
  auto results = InstallSkill(fs, request);
  if (!results) return report.Fail(results.error());
  report.data()["installs"] = nlohmann::json::array();
  for (const auto& r : *results) {
    const std::string dir = r.dir.lexically_normal().string();
    report.Line("installed " + std::string(kSkillName) + " for " + r.agent + " into " + dir + ": " +
                std::to_string(r.written.size()) + " written, " +
                std::to_string(r.unchanged.size()) + " unchanged, " +
                std::to_string(r.removed.size()) + " removed");
    for (const auto& p : r.written) report.Line("  wrote   " + p.generic_string());
    for (const auto& p : r.removed) report.Line("  removed " + p.generic_string());
    report.data()["installs"].push_back({{"agent", r.agent},
                                         {"dir", dir},
                                         {"written", PathStrings(r.written)},
                                         {"unchanged", PathStrings(r.unchanged)},
                                         {"removed", PathStrings(r.removed)}});
  }
  return report.Finish();
}

// Parses `kbuild <args>` with a fresh copy of the real command tree (the same
// command table main() uses); commands are only parsed, never run.
std::optional<std::string> ParseWithRealCli(const std::vector<std::string>& args) {
  CLI::App app{"kbuild", "kbuild"};
  GlobalOptions global;
  Invocation invocation;
  ConfigureRootApp(app, global, invocation);
  std::vector<std::string> names;
  for (const auto& command : kCommands) names.emplace_back(command.name);
  // A mistyped command deserves its name and the nearest one, not CLI11's
  // generic text.
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-C" || args[i] == "--project")
      ++i;  // skip the global option's value
    else if (!args[i].starts_with("-")) {
      if (std::find(names.begin(), names.end(), args[i]) != names.end()) break;
      return "unknown command '" + args[i] + "' (" + SuggestionHint(args[i], names) + ")";
    }
  }
  std::vector<std::string> reversed(args.rbegin(),
                                    args.rend());  // CLI11 wants them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
  } catch (const CLI::CallForAllHelp&) {
  } catch (const CLI::CallForVersion&) {
  } catch (const CLI::ValidationError& e) {
    // Paths in examples name a reader's files, which need not exist here.
    if (std::string(e.what()).find("does not exist") == std::string::npos) return e.what();
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return std::nullopt;
}

// Compilers and torch for code blocks, found the way `kbuild build` finds them.
Status FindToolchain(FileSystem& fs, ProcessRunner& runner, bool use_cache,
                     CodeCompileSetup& setup) {
  auto cuda = DiscoverCuda(runner);
  if (!cuda) return cuda.error();
  setup.nvcc = cuda->nvcc;
  setup.cuda_include = cuda->root / "include";
  setup.cxx = GetEnv("CXX").value_or("g++");
  TorchSearch search;
  search.project_dir = KbuildHome();
  search.kbuild_root = KbuildHome();
  auto torch = DiscoverTorch(fs, runner, search);
  if (torch) {
    setup.torch_dir = torch->torch_dir;
  } else {
    setup.torch_missing_reason = torch.error().message + ": " + torch.error().hint;
  }
  // A fresh folder only this process made (mkdtemp, mode 0700): a predictable
  // name in a shared /tmp could be planted beforehand as a link.
  std::string work_dir =
      (std::filesystem::temp_directory_path() / "kbuild-skill-check-XXXXXX").string();
  if (mkdtemp(work_dir.data()) == nullptr) {
    return MakeError(ExitCode::kEnvironment,
                     "cannot create a temporary folder for the code blocks: " +
                         std::string(std::strerror(errno)),
                     "check that TMPDIR (or /tmp) is writable");
  }
  setup.work_dir = work_dir;
  if (use_cache) {
    auto cache = CacheDir();
    if (!cache) return cache.error();
    setup.cache_dir = *cache / "skill-check";
  }
  return {};
}

void PrintCheckSummary(const Report& report, const SkillCheckResult& r) {
  report.Line("skill check: " + std::to_string(r.files.size()) + " files, " +
              std::to_string(r.links) + " links, " + std::to_string(r.code_blocks) +
              " C++/CUDA blocks (" + std::to_string(r.compiled) + " compiled, " +
              std::to_string(r.fragments) + " fragments), " + std::to_string(r.command_lines) +
              " kbuild command lines, SKILL.md body " + std::to_string(r.skill_words) + " words");
  for (const auto& problem : r.problems) {
    std::string text = FormatErrorForHumans(problem);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    report.Line(text);
  }
  report.Line(r.problems.empty()
                  ? "skill check passed"
                  : "skill check failed: " + std::to_string(r.problems.size()) + " problem(s)");
}

int RunCheck(const CheckFlags& flags) {
  Report report("skill check", flags.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  SkillCheckOptions options;
  options.home = KbuildHome();
  options.compile = !flags.no_compile;
  auto& setup = options.compile_setup;
  if (options.compile) {
    if (auto found = FindToolchain(fs, runner, !flags.no_cache, setup); !found) {
      return report.Fail(found.error());
    }
  }
  auto result = CheckSkillPack(fs, runner, options, ParseWithRealCli);
  if (!setup.work_dir.empty()) (void)fs.Remove(setup.work_dir);
  if (!result) return report.Fail(result.error());

  for (const auto& w : result->warnings) report.Warning(w);
  auto& data = report.data();
  data["files"] = result->files;
  data["links"] = result->links;
  data["code_blocks"] = result->code_blocks;
  data["compiled"] = result->compiled;
  data["fragments"] = result->fragments;
  data["command_lines"] = result->command_lines;
  data["skill_words"] = result->skill_words;
  data["problems"] = nlohmann::json::array();
  bool failed = false;
  for (const auto& p : result->problems) {
    data["problems"].push_back(ErrorToJson(p));
    failed = failed || p.code != ExitCode::kEnvironment;
  }
  PrintCheckSummary(report, *result);
  if (failed) return report.Finish(ExitCode::kCheckFailed);
  return report.Finish(result->problems.empty() ? ExitCode::kOk : ExitCode::kEnvironment);
}

}  // namespace

void AddSkillCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* skill = app.add_subcommand("skill", "Install the cuda-kernels agent skill, or check it");
  skill->require_subcommand(1);
  skill->footer("Each subcommand's --help gives its options, exit codes and JSON document.");

  auto install_flags = std::make_shared<InstallFlags>();
  auto* install = skill->add_subcommand(
      "install",
      "Copy the skill pack (SKILL.md, references/, templates/) into agents' skill folders of "
      "this project (-C DIR), or of your home with --global. Works offline. Refuses to "
      "overwrite files you edited since the last install unless --force.");
  auto* claude = install->add_flag("--claude", install_flags->claude,
                                   "Install into .claude/skills/cuda-kernels (Claude Code, "
                                   "Cursor); the default");
  auto* codex =
      install->add_flag("--codex", install_flags->codex, "Install into .codex/skills/cuda-kernels");
  auto* opencode = install->add_flag("--opencode", install_flags->opencode,
                                     "Install into .opencode/skills/cuda-kernels "
                                     "(~/.config/opencode/skills with "
                                     "--global)");
  auto* global_flag = install->add_flag("--global", install_flags->global,
                                        "Install under your home (~/.claude/skills, "
                                        "~/.codex/skills, ~/.config/opencode/skills)");
  auto* dest = install->add_option("--dest", install_flags->dest,
                                   "Install into PATH/cuda-kernels instead of an agent's folder");
  dest->type_name("PATH");
  // --dest names the folder itself, so no agent or --global applies with it.
  for (auto* other : {global_flag, claude, codex, opencode}) dest->excludes(other);
  install->add_flag("--force", install_flags->force,
                    "Overwrite files edited since the last install");
  AddJsonFlag(*install, install_flags->json);
  install->footer(
      "Exit codes: 0 installed (or already up to date); 2 conflicting options, files edited "
      "since the last install (nothing is written anywhere; --force overwrites them) or an "
      "unreadable install manifest; 4 the pack is missing from kbuild's data folder, --global "
      "without HOME, or a write failed.\n"
      "JSON (--json): {command, ok, exit_code, installs: [{agent, dir, written, unchanged, "
      "removed}]}.");
  install->callback([&invocation, &global, install_flags] {
    invocation.run = [&global, install_flags] { return RunInstall(global, *install_flags); };
  });

  auto check_flags = std::make_shared<CheckFlags>();
  auto* check = skill->add_subcommand(
      "check",
      "Check the skill pack in kbuild's data folder: SKILL.md frontmatter, relative links, that "
      "every C++/CUDA block compiles for sm_90a (or is marked <!-- fragment -->), and that every "
      "'kbuild ...' line parses. Exit 1 when a check fails.");
  check->add_flag("--no-compile", check_flags->no_compile, "Skip compiling code blocks");
  check->add_flag("--no-cache", check_flags->no_cache,
                  "Compile every block again, even those that compiled before unchanged");
  AddJsonFlag(*check, check_flags->json);
  check->footer(
      "Exit codes: 0 every check passed; 1 a broken link, a block that does not compile, a "
      "command line that does not parse or a frontmatter rule broken; 4 only environment "
      "problems (no torch to compile a block that includes torch headers).\n"
      "JSON (--json): {command, ok, exit_code, files, links, code_blocks, compiled, fragments, "
      "command_lines, skill_words, problems: [...]}.");
  check->callback([&invocation, check_flags] {
    invocation.run = [check_flags] { return RunCheck(*check_flags); };
  });
}

}  // namespace kb
