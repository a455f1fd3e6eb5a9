// The search of `kbuild optimize`, as pure logic replayed from the history:
// K islands (lineages), each growing from its own best; a failed attempt is
// handed back for repair up to R times before the island moves on; every M
// attempts the best island's best migrates to the worst island; an island
// without improvement for S attempts restarts from the baseline; an archive
// keeps the best attempt of each distinct signature (its macro values and
// file hashes), not only the overall best.
//
// The same history gives the same decisions, so a resumed run plans exactly
// the attempt an interrupted one was making.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/optimize_types.h"

namespace kb {

struct IslandOptions {
  int islands = 2;         // K
  int repairs = 2;         // R: repairs of one failure
  int migrate_every = 10;  // M: attempts between migrations (0 = never)
  int restart_after = 12;  // S: attempts of an island without improvement (0 = never)
  size_t archive_size = 16;
};

struct IslandState {
  std::string best_id;  // the baseline until something beats it
  double best_score = 0;
  int attempts = 0;
  int since_improvement = 0;
  int restarts = 0;
};

struct ArchiveEntry {
  std::string signature;
  std::string id;
  double score = 0;
};

struct Migration {
  int after_attempts = 0;  // the attempts recorded when it happened
  int from = 0, to = 0;
  std::string id;
};

// The next attempt's plan.
struct PlannedAttempt {
  int island = 0;
  std::string parent;     // the attempt whose state it changes
  int repair = 0;         // > 0: repairs `repair_of`
  std::string repair_of;  // the failed attempt
};

class IslandModel {
 public:
  IslandModel(IslandOptions options, std::string baseline_id);

  // Replays a recorded attempt (history order). The baseline (origin
  // kBaseline) seeds every island; `signature` keys the archive.
  void Record(const Attempt& attempt, const std::string& signature);

  PlannedAttempt Next() const;
  // Up to `count` attempts to run at once (one per GPU), on distinct islands
  // taken in turn: for each, the repair of its last attempt when that failed
  // with repairs left, else a fresh attempt from its best. count <= 1: {Next()}.
  std::vector<PlannedAttempt> NextBatch(int count) const;

  const std::vector<IslandState>& islands() const { return islands_; }
  const std::vector<ArchiveEntry>& archive() const { return archive_; }
  const std::vector<Migration>& migrations() const { return migrations_; }
  // The best ok attempt overall ("" = none), its score.
  const std::string& best_id() const { return best_id_; }
  double best_score() const { return best_score_; }
  int recorded() const { return recorded_; }

 private:
  std::optional<PlannedAttempt> RepairOf(const std::optional<Attempt>& last) const;
  PlannedAttempt FreshOn(int island) const;
  void Archive(const std::string& signature, const Attempt& attempt);
  void Migrate();

  IslandOptions options_;
  std::string baseline_id_;
  double baseline_score_ = 0;
  std::vector<IslandState> islands_;
  std::vector<ArchiveEntry> archive_;
  std::vector<Migration> migrations_;
  std::string best_id_;
  double best_score_ = 0;
  int recorded_ = 0;            // attempts besides the baseline
  int fresh_ = 0;               // attempts that were not repairs: they pick the island in turn
  bool migration_due_ = false;  // waits for a repair in progress to end
  std::optional<Attempt> last_;
  std::vector<std::optional<Attempt>> last_of_island_;  // what NextBatch repairs
};

}  // namespace kb
