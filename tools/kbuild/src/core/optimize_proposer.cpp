#include "core/optimize_proposer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/message_text.h"
#include "core/optimize_history.h"
#include "core/source_transforms.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr double kMaxCostValue = 1e15;

std::string DefinesText(const Candidate& c) {
  std::string text;
  for (const auto& [name, value] : c.defines)
    text += (text.empty() ? "" : " ") + name + "=" + value;
  return text.empty() ? "(none)" : text;
}

std::string TaskText(const ProposerTask& task) {
  std::string text = "# Task: make `" + task.op + "` faster\n\n";
  if (!task.description.empty()) text += "## Description\n\n" + task.description + "\n\n";
  text +=
      "## Target\n\nA candidate must build, pass the project's full test suite (kbuild test) and "
      "its benchmark's value checks; it ranks by the geometric mean over the performance cases "
      "of (baseline time / its time). Correctness-only cases must pass and do not score. Speed "
      "above the measured copy bandwidth is refused, not celebrated.\n\n";
  if (!task.baseline_cases.empty()) {
    text +=
        "## Cases (the project as it was: the baseline)\n\n| case | median us | % of peak |\n"
        "|---|---|---|\n";
    for (const auto& c : task.baseline_cases) {
      text += fmt::format("| {} | {:.2f} | {:.1f} |\n", c.name, c.median_us, c.percent_of_peak);
    }
  }
  return text;
}

std::string HistoryText(const ProposalRequest& r) {
  std::string text = "# Recent attempts of this island (oldest first)\n\n";
  if (r.recent.empty()) return text + "None yet.\n";
  text +=
      "| id | parent | origin | changed | verdict | score | first error "
      "|\n|---|---|---|---|---|---|---|\n";
  for (const Attempt* a : r.recent) {
    std::string changed = a->candidate.summary;
    if (changed.empty()) changed = DefinesText(a->candidate);
    text += fmt::format("| {} | {} | {} | {} | {} | {:.3f} | {} |\n", a->candidate.id,
                        a->candidate.parent, OriginWord(a->candidate.origin), OneLine(changed),
                        VerdictWord(a->verdict), a->score, OneLine(a->first_error));
  }
  return text;
}

std::string PromptText(const ProposerTask& task, const ProposalRequest& r) {
  std::string text = "# Attempt " + r.planned.id + "\n\n";
  if (r.failure) {
    text += "Your last candidate (" + r.failure->candidate.id +
            ") failed: " + VerdictWord(r.failure->verdict) +
            ". Read errors.md, fix the cause and write the corrected files.\n\n";
  } else if (r.parent == nullptr && !task.description.empty()) {
    text += "Write the first version of the kernel from the description in task.md.\n\n";
  } else {
    text += "Make the kernel faster than the best version in best/ (score " +
            fmt::format("{:.3f}", r.parent ? r.parent->score : 1.0) +
            "): read task.md, history.md, profile.md and references/, change what limits it.\n\n";
  }
  text +=
      "Write each file you change, whole, under $KBUILD_OPTIMIZE_OUT at its project path. "
      "Only these may be written:\n\n";
  for (const auto& s : task.sources) text += "- " + s.generic_string() + "\n";
  text += "\nFiles you do not write stay as in best/. Macro values compiled in: " +
          DefinesText(r.planned) +
          ".\nOptionally write {\"tokens\": N, \"usd\": X, \"seconds\": S} to "
          "$KBUILD_OPTIMIZE_COST, and a one-line summary of the change to "
          "$KBUILD_OPTIMIZE_OUT/../summary.txt.\n";
  return text;
}

// The candidate with `file` in it: replacing its earlier content, or added.
void SetFile(Candidate& c, CandidateFile file) {
  auto same = std::find_if(c.files.begin(), c.files.end(),
                           [&](const CandidateFile& f) { return f.relative == file.relative; });
  if (same != c.files.end()) {
    same->content = std::move(file.content);
  } else {
    c.files.push_back(std::move(file));
  }
}

}  // namespace

std::string ProposedPathProblem(const fs::path& relative, const std::vector<fs::path>& sources) {
  if (const std::string why = OutsideFolderReason(relative); !why.empty()) return why;
  const fs::path normal = relative.lexically_normal();
  if (std::find(sources.begin(), sources.end(), normal) == sources.end()) {
    return "not a kernel or binding source of build.toml";
  }
  return "";
}

std::optional<std::vector<CandidateFile>> CollectProposedFiles(const FileSystem& fs,
                                                               const fs::path& out,
                                                               const std::vector<fs::path>& sources,
                                                               std::string* reason) {
  std::vector<CandidateFile> files;
  for (const fs::path& relative : fs.ListFilesRecursive(out)) {
    const std::string shown = OneLine(relative.generic_string());
    if (const std::string why = ProposedPathProblem(relative, sources); !why.empty()) {
      *reason = "refused " + shown + ": " + why;
      return std::nullopt;
    }
    auto kind = KindBelow(fs, out, relative);
    if (!kind || *kind != FileKind::kRegular) {
      *reason = "refused " + shown + ": " +
                (kind ? std::string("not a regular file (a symlink?)") : kind.error().message);
      return std::nullopt;
    }
    auto content = fs.ReadAtMost(out / relative, kMaxProposedFileBytes);
    if (!content) {
      *reason = "refused " + shown + ": " + content.error().message;
      return std::nullopt;
    }
    files.push_back({relative.lexically_normal(), std::move(*content)});
  }
  if (files.empty()) {
    *reason = "the proposer wrote no file under KBUILD_OPTIMIZE_OUT";
    return std::nullopt;
  }
  return files;
}

std::optional<AttemptCost> ReadCostFile(const FileSystem& fs, const fs::path& path,
                                        std::string* warning) {
  if (fs.KindOf(path) == FileKind::kMissing) return std::nullopt;
  auto text = fs.ReadAtMost(path, kMaxCostFileBytes);
  const nlohmann::json doc = text ? ParseUntrustedJson(*text) : nlohmann::json();
  if (!doc.is_object()) {
    *warning = path.string() + ": not a JSON object; the attempt's cost is unknown";
    return std::nullopt;
  }
  auto value = [&](const char* key) { return std::clamp(NumberOr(doc, key), 0.0, kMaxCostValue); };
  return AttemptCost{value("tokens"), value("usd"), value("seconds")};
}

Expected<fs::path> WriteContextFolder(FileSystem& fs, const ProposalRequest& r) {
  const ProposerTask& task = *r.task;
  const fs::path context = r.attempt_dir / "context";
  auto write = [&](const fs::path& relative, const std::string& text) {
    return fs.Write(context / relative, text);
  };
  if (Status s = write("task.md", TaskText(task)); !s) return s.error();
  for (const auto& file : r.best) {
    if (!OutsideFolderReason(file.relative).empty()) continue;
    if (Status s = write(fs::path("best") / file.relative, file.content); !s) return s.error();
  }
  if (Status s = write("history.md", HistoryText(r)); !s) return s.error();
  std::string errors = "# Last failure\n\nNone.\n";
  if (r.failure) {
    errors = "# Last failure: " + r.failure->candidate.id + " " + VerdictWord(r.failure->verdict) +
             "\n\n" + r.failure->first_error + "\n";
    if (!r.failure->error_source.empty()) errors += "\n```\n" + r.failure->error_source + "\n```\n";
  }
  if (Status s = write("errors.md", errors); !s) return s.error();
  if (!task.profile_text.empty()) {
    if (Status s = write("profile.md", task.profile_text); !s) return s.error();
  }
  if (!task.gpu_text.empty()) {
    if (Status s = write("gpu.md", task.gpu_text); !s) return s.error();
  }
  for (const auto& ref : task.references) {
    // Copies, never links: the proposer may read them, not reach outside through them.
    if (fs.KindOf(ref) != FileKind::kRegular) continue;
    auto text = fs.ReadAtMost(ref, kMaxConfigBytes);
    if (!text) continue;
    if (Status s = write(fs::path("references") / ref.filename(), *text); !s) return s.error();
  }
  if (Status s = write("prompt.md", PromptText(task, r)); !s) return s.error();
  return context;
}

Expected<Proposal> CommandProposer::Propose(const ProposalRequest& r) {
  auto context = WriteContextFolder(fs_, r);
  if (!context) return context.error();
  const fs::path out = r.attempt_dir / "out";
  if (Status s = fs_.Remove(out); !s) return s.error();  // a redone attempt starts empty
  if (Status s = fs_.MakeDirectories(out); !s) return s.error();
  if (Status s = fs_.MakeDirectories(r.attempt_dir / "logs"); !s) return s.error();
  const fs::path cost = r.attempt_dir / "cost.json";
  if (Status s = fs_.Remove(cost); !s) return s.error();
  RunOptions options;
  options.cwd = project_dir_;
  options.timeout_seconds = timeout_seconds_;
  options.log = r.attempt_dir / "logs" / "proposer.log";
  options.env = {{"KBUILD_OPTIMIZE_CONTEXT", context->string()},
                 {"KBUILD_OPTIMIZE_PROMPT", (*context / "prompt.md").string()},
                 {"KBUILD_OPTIMIZE_OUT", out.string()},
                 {"KBUILD_OPTIMIZE_COST", cost.string()},
                 {"KBUILD_OPTIMIZE_ATTEMPT", r.planned.id}};
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult result = runner_.Run({"/bin/sh", "-c", command_}, options);
  Proposal p;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.interrupted) {
    p.stopped = true;
    return p;
  }
  std::string warning;
  p.cost = ReadCostFile(fs_, cost, &warning);
  if (result.not_found || result.timed_out || result.exit_code != 0) {
    p.failure = result.timed_out
                    ? fmt::format("the proposer timed out after {:.0f} s", timeout_seconds_)
                    : fmt::format("the proposer exited {}", result.exit_code);
    return p;
  }
  auto files = CollectProposedFiles(fs_, out, r.task->sources, &p.failure);
  if (!files) return p;
  Candidate c = r.planned;
  for (auto& file : *files) SetFile(c, std::move(file));
  const fs::path summary = r.attempt_dir / "summary.txt";
  if (fs_.KindOf(summary) == FileKind::kRegular) {
    if (auto text = fs_.ReadAtMost(summary, kMaxCostFileBytes)) c.summary = OneLine(*text);
  }
  if (c.summary.empty()) {
    for (const auto& f : *files)
      c.summary += (c.summary.empty() ? "" : ", ") + f.relative.generic_string();
    c.summary = "wrote " + c.summary;
  }
  p.candidate = std::move(c);
  return p;
}

namespace {

constexpr const char* kTransformMark = " [transform ";

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string SpaceExhausted(const TuneSpace& space) {
  if (space.params.empty()) return "there is no [tune.params] in kbuild.toml";
  return fmt::format(
      "it tried every valid point of the [tune] space ({} of {} in the grid keep "
      "its constraints)",
      GridVariants(space, kMaxTuneGridPoints).size(), space.GridSize());
}

}  // namespace

std::string TransformIdOf(const std::string& summary) {
  const auto at = summary.rfind(kTransformMark);
  if (at == std::string::npos || summary.empty() || summary.back() != ']') return "";
  const size_t from = at + std::string_view(kTransformMark).size();
  return summary.substr(from, summary.size() - 1 - from);
}

std::string BuiltinNothingToDo(const TuneSpace& space, const std::vector<CandidateFile>& sources) {
  if (!space.params.empty() || !FindTransformSites(sources).empty()) return "";
  return "--proposer builtin has nothing to change: no parameters in kbuild.toml [tune.params] "
         "and no source transform it knows in the build.toml sources (const pointer parameters "
         "of a __global__ function without __restrict__, a __launch_bounds__, a "
         "`for (int i = 0; i < K; ++i)` loop without #pragma unroll)";
}

std::optional<TuneVariant> BuiltinProposer::ImprovingMoveAgain(const ProposalRequest& r) const {
  const Attempt* parent = r.parent;
  const Attempt* grandparent = r.grandparent;
  if (r.failure != nullptr || parent == nullptr || grandparent == nullptr ||
      parent->verdict != AttemptVerdict::kOk || grandparent->verdict != AttemptVerdict::kOk ||
      !(parent->score > grandparent->score)) {
    return std::nullopt;
  }
  TuneVariant from, to;
  from.values = grandparent->candidate.defines;
  to.values = parent->candidate.defines;
  return RepeatMove(space_, from, to, r.tried);
}

Expected<std::set<std::string>> BuiltinProposer::TriedTransforms(const ProposalRequest& r) const {
  std::set<std::string> tried = proposed_;
  if (r.attempt_dir.empty()) return tried;
  auto history =
      ReadAttempts(fs_, r.attempt_dir.parent_path().parent_path() / kOptimizeHistoryFile);
  if (!history) return history.error();
  for (const auto& a : history->attempts) {
    if (auto id = TransformIdOf(a.candidate.summary); !id.empty()) tried.insert(std::move(id));
  }
  return tried;
}

Expected<Proposal> BuiltinProposer::Propose(const ProposalRequest& r) {
  Proposal p;
  uint64_t seed = seed_;
  for (char ch : r.planned.id) seed = seed * 131 + static_cast<unsigned char>(ch);
  TuneVariant parent;
  parent.values = r.planned.defines;
  parent.id = VariantId(parent);
  std::vector<TuneVariant> next;
  const std::optional<TuneVariant> again = ImprovingMoveAgain(r);
  if (again) {
    next.push_back(*again);
  } else if (!space_.params.empty()) {
    next = EvolveVariants(space_, {parent}, 1, seed, r.tried);
  }
  auto tried = TriedTransforms(r);
  if (!tried) return tried.error();
  std::vector<TransformSite> sites;
  for (auto& site : FindTransformSites(r.best)) {
    if (!tried->count(site.id)) sites.push_back(std::move(site));
  }
  if (next.empty() && sites.empty()) {
    p.exhausted = true;
    p.failure = "the builtin proposer has nothing new to propose: " + SpaceExhausted(space_) +
                " and no untried source transform is left";
    return p;
  }
  Candidate c = r.planned;
  // One attempt in three is a source transform: a project has a handful of
  // transform sites but usually many tune points, so this spends the
  // transforms over the run instead of on its first attempts, and leaves
  // most attempts to the space; when one kind runs out the other takes all.
  const uint64_t roll = SplitMix(seed);
  // An improving direction is the best lead there is: followed before any transform.
  if (!sites.empty() && (next.empty() || (!again && roll % 3 == 0))) {
    const TransformSite& site = sites[SplitMix(roll) % sites.size()];
    const auto source = std::find_if(r.best.begin(), r.best.end(), [&](const CandidateFile& f) {
      return f.relative == site.file;
    });
    SetFile(c, {site.file, ApplyTransform(source->content, site)});
    c.summary = site.description + kTransformMark + site.id + "]";
    proposed_.insert(site.id);
    p.candidate = std::move(c);
    return p;
  }
  c.defines = next.front().values;
  std::string moved;
  for (const auto& [name, value] : c.defines) {
    const auto old = std::find_if(parent.values.begin(), parent.values.end(),
                                  [&](const auto& v) { return v.first == name; });
    if (old == parent.values.end() || old->second != value) {
      moved += (moved.empty() ? "" : " ") + name + "=" + value;
    }
  }
  c.summary = "set " + moved + (again ? " (the improving move again)" : "");
  p.candidate = std::move(c);
  return p;
}

}  // namespace kb
