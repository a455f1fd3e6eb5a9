// kbuild package: a built project -> an upload-ready Kernel Hub folder
// (core/package_project.h), and the upload command it would run.
#include <fmt/format.h>

#include <memory>

#include "commands/command.h"
#include "core/package_folder.h"
#include "core/package_project.h"
#include "core/report.h"

namespace kb {

namespace {

struct PackageFlags {
  std::string out;
  std::string repo_id;
  bool force = false;
  bool json = false;
};

std::string Size(std::uintmax_t bytes) {
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

void Describe(Report& report, const PackageResult& result, const std::string& shown_dir,
              const std::string& upload) {
  report.Line(std::string(result.replaced ? "replaced " : "packaged ") + shown_dir + " (" +
              std::to_string(result.files.size()) + " files, " + Size(result.bytes) + "):");
  for (const auto& file : result.files) {
    report.Line(fmt::format("  {:>10}  {}", file.bytes, file.path));
  }
  for (const auto& v : result.variants) {
    std::string archs;
    for (const auto& a : v.archs) archs += (archs.empty() ? "" : ", ") + a;
    report.Line("variant: build/" + v.name + " (" + std::to_string(v.files) +
                " files, digest checked; archs " + (archs.empty() ? "-" : archs) + ")");
  }
  report.Line("card: README.md, benchmark: " +
              (result.bench_header ? *result.bench_header : std::string("none recorded")));
  report.Line("upload: " + upload);
}

int RunPackageCommand(const GlobalOptions& global, const PackageFlags& flags) {
  Report report("package", flags.json);
  RealFileSystem fs;
  PackageRequest request;
  request.project = global.project_dir;
  request.out = flags.out;
  request.repo_id = flags.repo_id;
  request.force = flags.force;
  request.kbuild_version = KBUILD_VERSION;
  auto result = MakePackage(fs, request);
  if (!result) return report.Fail(result.error());
  for (const auto& warning : result->warnings) report.Warning(warning);
  // The folder as the user reaches it from where they ran kbuild (-C included).
  const std::string shown_dir = result->dir.lexically_normal().generic_string();
  const std::string upload = UploadCommand(*result, shown_dir);
  Describe(report, *result, shown_dir, upload);
  result->dir =
      std::filesystem::absolute(result->dir).lexically_normal();  // JSON paths are absolute
  report.data().update(PackageResultJson(*result, upload));
  return report.Finish();
}

}  // namespace

void AddPackageCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "package",
      "Turn a built project into an upload-ready Kernel Hub folder: every built variant "
      "build/<variant>/ (checked against its metadata.json digest), the sources build.toml "
      "names, torch-ext/<python_name>/, tests/ and benchmarks/, and a generated README.md card "
      "with the newest kbuild bench result; then print the upload command (nothing is "
      "uploaded).");
  auto flags = std::make_shared<PackageFlags>();
  sub->add_option("--out", flags->out,
                  "Package folder, relative to the project and inside it (default: dist/<name>, "
                  "<name> from build.toml)");
  sub->add_option("--repo-id", flags->repo_id,
                  "Hub repository ORG/NAME for the card and the upload command (default: "
                  "build.toml [general.hub] repo-id, else a <your-org>/<name> placeholder)");
  sub->add_flag("--force", flags->force,
                std::string("Replace an existing package folder; only one kbuild package wrote "
                            "(it holds the ") +
                    kPackageMarker + " marker), never another folder");
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Output: DIR/build/<variant>/..., DIR/build.toml (and kbuild.toml), the listed sources, "
      "DIR/torch-ext/<python_name>/, DIR/tests/, DIR/benchmarks/, DIR/README.md (the card) and "
      "DIR/" +
      std::string(kPackageMarker) +
      "; written into a hidden sibling folder and renamed "
      "into place, so a failure leaves nothing. Lists every file with its bytes, the variants, "
      "then the upload command: hf upload ORG/NAME DIR . --repo-type kernel --revision "
      "v<version> (huggingface_hub's CLI; kernels.get_kernel(repo, version=N) reads branch vN).\n"
      "Safety: a symlink, FIFO or device anywhere in what is packaged, or as DIR, is refused "
      "naming the path; nothing is read through a link and nothing outside DIR is deleted.\n"
      "JSON (--json): {command, ok, exit_code, warnings, package_dir, replaced, files: [{path, "
      "bytes}], bytes, variants: [{name, archs, namespace, files}], repo_id, repo_id_source, "
      "revision, benchmark, upload_command}.\n"
      "Exit codes: 0 packaged, 1 a variant's files do not match its metadata.json digest "
      "(run kbuild build), 2 bad usage or project (no built variant, --out outside the project, "
      "DIR exists without --force or without kbuild's marker, a symlink, a listed source "
      "missing, a bad repo id), 4 a write failed (disk full), 6 another kbuild is building this "
      "project, 130/143 stopped by Ctrl-C/SIGTERM.");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunPackageCommand(global, *flags); };
  });
}

}  // namespace kb
