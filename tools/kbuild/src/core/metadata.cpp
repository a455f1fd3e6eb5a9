#include "core/metadata.h"

#include "core/report.h"
#include "core/sha256.h"

namespace kb {

namespace {
bool IsMetadataFile(const std::string& path) {
  return path == "metadata.json" || path == "metadata.json.sigstore";
}
}  // namespace

nlohmann::json VariantDigest(const VariantFiles& files) {
  nlohmann::json digests = nlohmann::json::object();
  for (const auto& [path, content] : files) {
    if (!IsMetadataFile(path)) digests[path] = Sha256Base64(content);
  }
  return {{"algorithm", "sha256"}, {"files", digests}};
}

std::string RenderMetadataJson(const MetadataInput& input, const VariantFiles& files) {
  nlohmann::json doc = {
      {"id", input.id},
      {"name", input.name},
      {"version", input.version},
      {"python-depends", input.python_depends},
      {"backend", {{"type", "cuda"}, {"archs", input.archs}}},
      {"digest", VariantDigest(files)},
  };
  if (input.license) doc["license"] = *input.license;
  if (input.upstream) doc["upstream"] = *input.upstream;
  if (input.source) doc["source"] = *input.source;
  // The loader's provenance schema requires a builder entry; ours is kbuild.
  nlohmann::json provenance = {{"kernel-builder", {{"version", input.builder_version}}}};
  if (input.git)
    provenance["kernel"] = {{"commit", input.git->commit}, {"dirty", input.git->dirty}};
  doc["provenance"] = provenance;
  return JsonText(doc) + "\n";
}

std::optional<GitProvenance> ReadGitProvenance(ProcessRunner& runner,
                                               const std::filesystem::path& dir) {
  RunOptions options;
  options.timeout_seconds = 30;
  const ProcessResult head = runner.Run({"git", "-C", dir.string(), "rev-parse", "HEAD"}, options);
  if (head.exit_code != 0) return std::nullopt;
  GitProvenance git;
  git.commit = head.output.substr(0, head.output.find_first_of("\r\n"));
  if (git.commit.size() != 40 && git.commit.size() != 64) return std::nullopt;
  const ProcessResult status = runner.Run(
      {"git", "-C", dir.string(), "status", "--porcelain", "--untracked-files=no", "--", "."},
      options);  // only the project folder: a monorepo elsewhere dirty does not matter
  git.dirty = status.exit_code != 0 || !status.output.empty();
  return git;
}

}  // namespace kb
