// kbuild check: validate build.toml and the project's conventions without
// compiling anything (core/config.h, core/project_checks.h).
#include <iostream>
#include <memory>

#include "commands/command.h"
#include "core/project_checks.h"
#include "core/report.h"

namespace kb {

namespace {

constexpr const char* kCheckHelp = R"(What is checked:
  build.toml   valid TOML; only the keys Hugging Face kernel-builder accepts
               ([general], [general.hub], [general.cuda], [general.xpu], [torch],
               [kernel.<name>], per backend); value types; required keys; the
               project name (lowercase letters, digits, dashes; starts with a
               letter); kernel names; backends; cuda-capabilities as "MAJOR.MINOR"
               (e.g. "9.0"; 9.0 is built as sm_90a); versions like "2.8"; src and
               include paths are relative, stay inside the project (no '..' out
               of it) and hold no ';', '\', '$', '`', '"' or line break (CMake and
               nvcc would not name such a file exactly).
  files        every src is a regular file and every include a folder, reached
               without a symlink (a FIFO, device or directory as a source is an
               error); every project header a kernel source #includes (found
               beside it or in the kernel's include folders) is listed in that
               kernel's src (the Hub build copies only listed files); kernel
               sources (.cu .cuh .h .hpp) include no torch headers (torch/,
               ATen/, c10/); no pybind11 anywhere;
               the binding does not include torch/extension.h and registers ops
               with TORCH_LIBRARY or TORCH_LIBRARY_EXPAND;
               torch-ext/<python_name>/__init__.py exists.
  nvcc         each cuda-capability is one the installed nvcc can compile for
               ('nvcc --list-gpu-arch'; nvcc from CUDA_HOME, PATH or /usr/local/cuda).
Every problem is reported, not only the first. Warnings (e.g. no license) do
not fail the check. The file checks run only when build.toml is valid.

Exit codes:
  0  ok (warnings allowed)
  1  a convention check failed (missing or symlinked file, unlisted included
     header, torch header in a kernel source, pybind11, no op registration,
     capability nvcc does not support)
  2  build.toml is invalid (or missing)
  4  only the environment failed: no working nvcc to check cuda-capabilities
     (all other checks passed)
The most serious kind wins: 2 before 1 before 4.

JSON (--json): {command, ok, exit_code, project, config, errors: [{message, path,
  line, column, hint, detail, exit_code}], warnings: ["..."], kernels: [{name,
  backend, src, cuda_capabilities}], summary})";

nlohmann::json KernelsToJson(const ProjectConfig& config) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : config.kernels) {
    kernels.push_back({{"name", k.name},
                       {"backend", k.backend},
                       {"src", k.src},
                       {"cuda_capabilities", k.cuda_capabilities}});
  }
  return kernels;
}

// A warning as one text: "file:line:col: message (hint: ...)".
std::string WarningText(const Error& w) {
  return w.Located() + (w.hint.empty() ? "" : " (hint: " + w.hint + ")");
}

int RunCheck(bool json, const GlobalOptions& global) {
  Report report("check", json);
  RealFileSystem fs;
  RealProcessRunner runner;
  const ProjectCheckResult result = CheckProject(fs, runner, global.project_dir);

  nlohmann::json errors = nlohmann::json::array();
  for (const auto& e : result.errors) {
    errors.push_back(ErrorToJson(e));
    if (!json) std::cerr << FormatErrorForHumans(e);
  }
  for (const auto& w : result.warnings) report.Warning(WarningText(w));

  const std::string summary = CheckSummary(result);
  report.Line(summary);
  report.data()["project"] = result.config ? result.config->name : "";
  report.data()["config"] = result.config_path;
  report.data()["errors"] = errors;
  report.data()["kernels"] =
      result.config ? KernelsToJson(*result.config) : nlohmann::json::array();
  report.data()["summary"] = summary;
  return report.Finish(CheckExitCode(result.errors));
}

}  // namespace

void AddCheckCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "check",
      "Validate build.toml and the project's conventions without compiling (fast; run it before "
      "build)");
  auto json = std::make_shared<bool>(false);
  AddJsonFlag(*sub, *json);
  sub->footer(kCheckHelp);
  sub->callback([&invocation, json, &global] {
    invocation.run = [json, &global] { return RunCheck(*json, global); };
  });
}

}  // namespace kb
