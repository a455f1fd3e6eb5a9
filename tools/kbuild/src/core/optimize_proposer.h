// Who writes `kbuild optimize`'s candidates. The protocol of an external
// proposer (--proposer CMD, any agent's command line): for each attempt kbuild
// writes a context folder <run>/attempts/<id>/context/ with
//   task.md        the op, its cases and the target; the --description if given
//   best/          the island's current best sources (every file the proposer may change)
//   history.md     the last attempts: what changed, verdict, score
//   errors.md      the last failure's first error with its source line (a repair)
//   profile.md     the parent's profile (kbuild profile on the first performance
//                  case: verdict, DRAM, occupancy, stalls, SASS), when profiled
//   gpu.md         the GPU (kbuild doctor --json), when it says something
//   references/    copies of the skill references that teach the techniques
//   prompt.md      what to do, which files it may write, where
// then runs CMD through /bin/sh -c (the user's own command line, as given) in
// the project folder with KBUILD_OPTIMIZE_CONTEXT, KBUILD_OPTIMIZE_PROMPT,
// KBUILD_OPTIMIZE_OUT (an empty folder) and KBUILD_OPTIMIZE_COST (where it may
// write {"tokens": N, "usd": X, "seconds": S}) in its environment, under a time
// limit, its output in logs/proposer.log. kbuild takes only regular files under
// OUT whose paths are the project's kernel or binding sources (build.toml's
// src lists), each at most kMaxProposedFileBytes; anything else (a symlink, a
// path through one, another file) fails the attempt with the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_types.h"
#include "core/process.h"
#include "core/tune_space.h"

namespace kb {

inline constexpr std::uintmax_t kMaxProposedFileBytes = 1u << 20;
inline constexpr std::uintmax_t kMaxCostFileBytes = 64u << 10;
inline constexpr size_t kHistoryShown = 10;  // attempts history.md lists

// What every context folder says about the task.
struct ProposerTask {
  std::filesystem::path project_dir;           // absolute: where sources not yet changed are read
  std::string op;                              // the project's name
  std::string description;                     // --description ("" = none)
  std::vector<std::filesystem::path> sources;  // what a proposer may write (relative)
  std::vector<TuneCaseTime> baseline_cases;    // the target: faster than these
  std::string gpu_text;                        // gpu.md ("" = not written)
  std::string profile_text;                    // profile.md of the parent ("" = not written)
  // Skill reference files to copy into references/ (absolute, read through FileSystem).
  std::vector<std::filesystem::path> references;
};

// One attempt to propose.
struct ProposalRequest {
  const ProposerTask* task = nullptr;  // the run's task (baseline cases filled in)
  Candidate planned;  // id, island, parent, origin, repair; files/defines = the parent's state
  std::filesystem::path attempt_dir;     // <run>/attempts/<id>
  std::vector<CandidateFile> best;       // every source in its parent's state (context/best/)
  const Attempt* parent = nullptr;       // the parent's record (nullptr: none yet)
  const Attempt* grandparent = nullptr;  // the parent's own parent's record, when there is one
  std::vector<const Attempt*> recent;    // the island's last attempts, oldest first
  const Attempt* failure = nullptr;      // the failure to repair (origin kRepair)
  std::set<std::string> tried;           // VariantId of every define set tried (builtin)
};

struct Proposal {
  std::optional<Candidate> candidate;  // nothing: failed, `failure` says why
  std::string failure;
  double seconds = 0;
  std::optional<AttemptCost> cost;
  bool stopped = false;  // Ctrl-C reached the proposer
  // Nothing new is left to propose (the builtin one tried every point of its
  // space): the run ends there, `failure` says why, nothing is recorded.
  bool exhausted = false;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual Expected<Proposal> Propose(const ProposalRequest& request) = 0;
};

// Writes context/ of an attempt (request.task must be set); returns its path.
Expected<std::filesystem::path> WriteContextFolder(FileSystem& fs, const ProposalRequest& request);

// The files a proposer left under `out`, checked against `sources`; nothing
// (and `reason` set) when any is refused or there is none.
std::optional<std::vector<CandidateFile>> CollectProposedFiles(
    const FileSystem& fs, const std::filesystem::path& out,
    const std::vector<std::filesystem::path>& sources, std::string* reason);

// The reason `relative` may not be written by a proposer, or "".
std::string ProposedPathProblem(const std::filesystem::path& relative,
                                const std::vector<std::filesystem::path>& sources);

// The optional cost file; nothing when absent or unreadable (then `warning` says so).
std::optional<AttemptCost> ReadCostFile(const FileSystem& fs, const std::filesystem::path& path,
                                        std::string* warning);

class CommandProposer final : public Proposer {
 public:
  CommandProposer(FileSystem& fs, ProcessRunner& runner, std::string command,
                  std::filesystem::path project_dir, double timeout_seconds)
      : fs_(fs),
        runner_(runner),
        command_(std::move(command)),
        project_dir_(std::move(project_dir)),
        timeout_seconds_(timeout_seconds) {}
  Expected<Proposal> Propose(const ProposalRequest& request) override;

 private:
  FileSystem& fs_;
  ProcessRunner& runner_;
  std::string command_;
  std::filesystem::path project_dir_;
  double timeout_seconds_;
};

// Without a language model. Each candidate is one of:
//   a tune move: when the parent improved on its own parent by a tune move,
//     that move once more (RepeatMove: a pattern search follows an improving
//     direction); else the parent's macro values moved one or two steps in the
//     kbuild.toml [tune] space (tune's EvolveVariants), evaluated with
//     --define; a random point when the parent is not in the space or its
//     neighbours were all tried; never a point of request.tried;
//   a source transform (source_transforms.h) of the parent's files, never one
//     whose site id was proposed before in the run: the ids are kept in the
//     candidates' summaries ("... [transform <id>]"), read back from
//     history.jsonl, so --resume keeps them.
// When nothing of either is left the proposal is `exhausted`.
class BuiltinProposer final : public Proposer {
 public:
  BuiltinProposer(const FileSystem& fs, TuneSpace space, uint64_t seed)
      : fs_(fs), space_(std::move(space)), seed_(seed) {}
  Expected<Proposal> Propose(const ProposalRequest& request) override;

 private:
  Expected<std::set<std::string>> TriedTransforms(const ProposalRequest& request) const;
  // The move from the grandparent to the parent once more, when it improved.
  std::optional<TuneVariant> ImprovingMoveAgain(const ProposalRequest& request) const;

  const FileSystem& fs_;
  TuneSpace space_;
  uint64_t seed_;
  std::set<std::string> proposed_;  // transform ids proposed by this process
};

// The transform id a builtin candidate's summary records, or "".
std::string TransformIdOf(const std::string& summary);

// Why `--proposer builtin` has nothing to do for a project with this space and
// these sources (every source the proposer may change), or "".
std::string BuiltinNothingToDo(const TuneSpace& space, const std::vector<CandidateFile>& sources);

}  // namespace kb
