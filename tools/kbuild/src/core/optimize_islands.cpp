#include "core/optimize_islands.h"

#include <algorithm>

namespace kb {

IslandModel::IslandModel(IslandOptions options, std::string baseline_id)
    : options_(options), baseline_id_(std::move(baseline_id)) {
  options_.islands = std::max(1, options_.islands);
  islands_.resize(static_cast<size_t>(options_.islands));
  for (auto& island : islands_) island.best_id = baseline_id_;
  last_of_island_.resize(islands_.size());
}

void IslandModel::Record(const Attempt& a, const std::string& signature) {
  const bool ok = a.verdict == AttemptVerdict::kOk && a.score > 0;
  if (a.candidate.origin == CandidateOrigin::kBaseline) {
    baseline_score_ = ok ? a.score : 0;
    for (auto& island : islands_) island.best_score = baseline_score_;
    if (ok) {
      best_id_ = a.candidate.id;
      best_score_ = a.score;
      Archive(signature, a);
    }
    return;
  }
  ++recorded_;
  if (a.candidate.repair == 0) ++fresh_;
  last_ = a;
  const size_t index =
      std::min(static_cast<size_t>(std::max(0, a.candidate.island)), islands_.size() - 1);
  IslandState& island = islands_[index];
  last_of_island_[index] = a;
  ++island.attempts;
  if (ok && a.score > island.best_score) {
    island.best_id = a.candidate.id;
    island.best_score = a.score;
    island.since_improvement = 0;
  } else {
    ++island.since_improvement;
  }
  if (ok) Archive(signature, a);
  if (ok && a.score > best_score_) {
    best_id_ = a.candidate.id;
    best_score_ = a.score;
  }
  // A repair in progress finishes before the island restarts or takes a migrant.
  const bool repairing = !ok && a.candidate.repair < options_.repairs;
  if (!repairing && options_.restart_after > 0 &&
      island.since_improvement >= options_.restart_after) {
    island.best_id = baseline_id_;
    island.best_score = baseline_score_;
    island.since_improvement = 0;
    ++island.restarts;
  }
  if (options_.migrate_every > 0 && recorded_ % options_.migrate_every == 0) {
    migration_due_ = true;
  }
  if (!repairing && migration_due_) {
    Migrate();
    migration_due_ = false;
  }
}

void IslandModel::Archive(const std::string& signature, const Attempt& a) {
  auto same = std::find_if(archive_.begin(), archive_.end(),
                           [&](const ArchiveEntry& e) { return e.signature == signature; });
  if (same != archive_.end()) {
    if (a.score > same->score) *same = {signature, a.candidate.id, a.score};
  } else {
    archive_.push_back({signature, a.candidate.id, a.score});
  }
  std::stable_sort(archive_.begin(), archive_.end(),
                   [](const ArchiveEntry& x, const ArchiveEntry& y) { return x.score > y.score; });
  if (archive_.size() > options_.archive_size) archive_.resize(options_.archive_size);
}

void IslandModel::Migrate() {
  if (islands_.size() < 2) return;
  auto by_score = [](const IslandState& x, const IslandState& y) {
    return x.best_score < y.best_score;
  };
  // Ties go to the lower index as best, the higher as worst: the same on every replay.
  const auto best = std::max_element(islands_.rbegin(), islands_.rend(), by_score);
  const auto worst = std::min_element(islands_.rbegin(), islands_.rend(), by_score);
  if (best->best_score <= worst->best_score || best->best_id == worst->best_id) return;
  const int from = static_cast<int>(islands_.rend() - best - 1);
  const int to = static_cast<int>(islands_.rend() - worst - 1);
  worst->best_id = best->best_id;
  worst->best_score = best->best_score;
  worst->since_improvement = 0;
  migrations_.push_back({recorded_, from, to, best->best_id});
}

std::optional<PlannedAttempt> IslandModel::RepairOf(const std::optional<Attempt>& last) const {
  // A lost attempt failed on the cluster, not in its source: nothing to repair.
  if (!last || last->verdict == AttemptVerdict::kOk || last->verdict == AttemptVerdict::kLost ||
      last->candidate.repair >= options_.repairs) {
    return std::nullopt;
  }
  PlannedAttempt plan;
  plan.island = last->candidate.island;
  plan.parent = last->candidate.parent;
  plan.repair = last->candidate.repair + 1;
  plan.repair_of = last->candidate.id;
  return plan;
}

PlannedAttempt IslandModel::FreshOn(int island) const {
  PlannedAttempt plan;
  plan.island = island;
  plan.parent = islands_[static_cast<size_t>(island)].best_id;
  return plan;
}

PlannedAttempt IslandModel::Next() const {
  if (auto repair = RepairOf(last_)) return *repair;
  return FreshOn(fresh_ % options_.islands);
}

std::vector<PlannedAttempt> IslandModel::NextBatch(int count) const {
  if (count <= 1) return {Next()};
  std::vector<PlannedAttempt> plans;
  for (int j = 0; j < std::min(count, options_.islands); ++j) {
    const int island = (fresh_ + j) % options_.islands;
    auto repair = RepairOf(last_of_island_[static_cast<size_t>(island)]);
    plans.push_back(repair ? *repair : FreshOn(island));
  }
  return plans;
}

}  // namespace kb
