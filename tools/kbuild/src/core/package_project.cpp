#include "core/package_project.h"

#include <algorithm>
#include <regex>

#include "core/config.h"
#include "core/latest_bench.h"
#include "core/message_text.h"
#include "core/package_card.h"
#include "core/package_entries.h"
#include "core/package_folder.h"
#include "core/package_sources.h"
#include "core/package_variants.h"
#include "core/python_exports.h"
#include "core/report.h"
#include "core/shell_quote.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

struct RepoChoice {
  std::string id;
  std::string source;
};

Expected<RepoChoice> ChooseRepoId(const std::string& flag, const ProjectConfig& config) {
  static const std::regex kRepoId(
      R"([A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95})");
  RepoChoice choice{flag, "--repo-id"};
  if (choice.id.empty() && config.hub && config.hub->repo_id) {
    choice = {*config.hub->repo_id, "build.toml"};
  }
  if (choice.id.empty()) return RepoChoice{"<your-org>/" + config.name, "placeholder"};
  if (!std::regex_match(choice.id, kRepoId)) {
    Error e = MakeError(
        ExitCode::kUsage, "repo id '" + OneLine(choice.id) + "' is not ORG/NAME",
        "use the Hub's form, e.g. my-org/" + config.name + " (letters, digits, '.', '_' and '-')");
    if (choice.source == "build.toml") e.path = config.file.string();
    return e;
  }
  return choice;
}

// Everything the package holds goes through here: counted, bounded, recorded.
class StagedWriter {
 public:
  StagedWriter(FileSystem& fs, fs::path staging, PackageResult& result)
      : fs_(fs), staging_(std::move(staging)), result_(result) {}

  std::uintmax_t BytesLeft() const { return kMaxPackageBytes - result_.bytes; }

  Status Put(const fs::path& relative, const std::string& content) {
    if (result_.files.size() >= kMaxPackageFiles) {
      return MakeError(
          ExitCode::kUsage,
          "the package would hold more than " + std::to_string(kMaxPackageFiles) + " files",
          "keep data and generated files out of the folders build.toml names, "
          "tests/ and benchmarks/");
    }
    if (Status s = fs_.Write(staging_ / relative, content); !s) return s;
    result_.files.push_back({relative.generic_string(), content.size()});
    result_.bytes += content.size();
    return {};
  }

 private:
  FileSystem& fs_;
  fs::path staging_;
  PackageResult& result_;
};

// Reads each variant once, verifies it and copies exactly the verified bytes.
Expected<std::vector<VerifiedVariant>> StageVariants(const FileSystem& fs, const fs::path& build,
                                                     const std::vector<std::string>& names,
                                                     StagedWriter& writer, PackageResult& result) {
  std::vector<VerifiedVariant> kept;  // only the Python package text, for the card
  for (const auto& name : names) {
    auto variant = ReadVerifiedVariant(fs, build, name, writer.BytesLeft());
    if (!variant) return variant.error();
    for (const auto& [relative, content] : variant->files) {
      if (Status s = writer.Put(fs::path("build") / name / relative, content); !s) return s.error();
    }
    result.variants.push_back({name, variant->archs, variant->op_namespace, variant->files.size()});
    VerifiedVariant summary = {name, {}, variant->op_namespace, variant->archs};
    if (auto init = variant->files.find("__init__.py"); init != variant->files.end()) {
      summary.files["__init__.py"] = init->second;
    }
    kept.push_back(std::move(summary));
  }
  return kept;
}

Status StageSources(const FileSystem& fs, const fs::path& project,
                    const std::vector<fs::path>& sources, StagedWriter& writer) {
  for (const fs::path& relative : sources) {
    // Checked again right before the read: ReadAtMost alone would follow a final link.
    Expected<FileKind> kind = PackableKind(fs, project, relative);
    if (!kind) return kind.error();
    if (*kind != FileKind::kRegular) return UnpackableEntryError(project / relative, *kind);
    auto content = fs.ReadAtMost(project / relative, writer.BytesLeft());
    if (!content) return content.error();
    if (Status s = writer.Put(relative, *content); !s) return s;
  }
  return {};
}

CardInput CardFor(const ProjectConfig& config, const RepoChoice& repo,
                  const std::vector<VerifiedVariant>& variants, const LatestBenchRead& bench) {
  CardInput card;
  card.name = config.name;
  card.license = config.license;
  card.version = config.version;
  card.repo_id = repo.id;
  for (const auto& v : variants) card.variants.push_back({v.name, v.archs});
  const VerifiedVariant& first = variants.front();
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]*");
  if (std::regex_match(first.op_namespace, kIdentifier)) card.op_namespace = first.op_namespace;
  if (auto init = first.files.find("__init__.py"); init != first.files.end()) {
    card.summary = PythonDocstringFirstLine(init->second);
    for (const auto& name : PythonAllNames(init->second)) {
      if (name != "ops") card.functions.push_back(name);
    }
  }
  card.bench = bench.bench ? &*bench.bench : nullptr;
  return card;
}

std::string MarkerText(const ProjectConfig& config, const std::string& kbuild_version) {
  return JsonText({{"written_by", "kbuild package"},
                   {"kbuild_version", kbuild_version},
                   {"name", config.name},
                   {"note", "kbuild package --force replaces only a folder holding this file"}}) +
         "\n";
}

bool Below(const fs::path& path, const fs::path& folder) {
  auto p = path.begin();
  for (const auto& part : folder) {
    if (p == path.end() || *p != part) return false;
    ++p;
  }
  return true;
}

}  // namespace

Expected<PackageResult> MakePackage(FileSystem& fs, const PackageRequest& request) {
  const fs::path& project = request.project;
  auto config = LoadProjectConfig(fs, project);
  if (!config) return config.error();
  PackageResult result;
  auto relative = ResolvePackageDir(request.out, config->name);
  if (!relative) return relative.error();
  result.relative_dir = *relative;
  result.dir = project / *relative;
  auto exists = CheckPackageDir(fs, project, *relative, request.force);
  if (!exists) return exists.error();
  result.replaced = *exists;
  auto repo = ChooseRepoId(request.repo_id, *config);
  if (!repo) return repo.error();
  result.repo_id = repo->id;
  result.repo_id_source = repo->source;
  result.revision = "v" + std::to_string(config->version);
  if (repo->source == "placeholder") {
    result.warnings.push_back(
        "no Hub repo id: set [general.hub] repo-id in build.toml or pass "
        "--repo-id ORG/NAME (the card and the upload command say " +
        repo->id + ")");
  }

  auto sources = PackageSourceFiles(fs, *config);
  if (!sources) return sources.error();
  // A package inside a listed folder (--out tests/pkg) must not copy an earlier package.
  std::erase_if(*sources, [&](const fs::path& p) { return Below(p, *relative); });
  if (auto build = PackableKind(fs, project, "build"); !build) return build.error();
  auto names = ListBuiltVariants(fs, project / "build");
  if (!names) return names.error();
  const LatestBenchRead bench = ReadLatestBench(fs, project);
  if (!bench.problem.empty()) {
    result.warnings.push_back("benchmark result not used: " + bench.problem);
  }
  if (bench.bench) result.bench_header = MetadataHeaderLine(bench.bench->run);
  if (bench.bench && !bench.bench->run.defines.empty()) {
    // The values stay on the card's bench line only: the file may be hostile.
    result.warnings.push_back(
        "the card's benchmark was built with --define values (its first line names them), which "
        "the Hub's builder does not pass: run kbuild bench without --define to card the default "
        "build");
  }

  auto staging = MakeStagingDir(fs, project, *relative);
  if (!staging) return staging.error();
  StagedWriter writer(fs, *staging, result);
  Status written = [&]() -> Status {
    auto variants = StageVariants(fs, project / "build", *names, writer, result);
    if (!variants) return variants.error();
    if (Status s = StageSources(fs, project, *sources, writer); !s) return s;
    if (Status s =
            writer.Put("README.md", RenderPackageCard(CardFor(*config, *repo, *variants, bench)));
        !s) {
      return s;
    }
    return writer.Put(kPackageMarker, MarkerText(*config, request.kbuild_version));
  }();
  if (written) written = PlaceStagedPackage(fs, *staging, project, *relative, result.replaced);
  if (!written) {
    (void)fs.Remove(*staging);  // ours: made fresh above
    return written.error();
  }
  std::sort(result.files.begin(), result.files.end(),
            [](const PackagedFile& a, const PackagedFile& b) { return a.path < b.path; });
  return result;
}

nlohmann::json PackageResultJson(const PackageResult& result, const std::string& upload) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : result.files) files.push_back({{"path", f.path}, {"bytes", f.bytes}});
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : result.variants) {
    variants.push_back(
        {{"name", v.name}, {"archs", v.archs}, {"namespace", v.op_namespace}, {"files", v.files}});
  }
  return {{"package_dir", result.dir.string()},
          {"replaced", result.replaced},
          {"files", files},
          {"bytes", result.bytes},
          {"variants", variants},
          {"repo_id", result.repo_id},
          {"repo_id_source", result.repo_id_source},
          {"revision", result.revision},
          {"benchmark", result.bench_header ? nlohmann::json(*result.bench_header) : nullptr},
          {"upload_command", upload}};
}

std::string UploadCommand(const PackageResult& result, const fs::path& shown_dir) {
  return "hf upload " + result.repo_id + " " + ShellWord(shown_dir.generic_string()) +
         " . --repo-type kernel --revision " + result.revision;
}

}  // namespace kb
