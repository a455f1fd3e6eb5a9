// One correctness trial of one case (internal to CheckOp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kbuild/harness/check_op.h"
#include "kbuild/harness/element_checks.h"

namespace kb::harness {

struct TrialOutcome {
  FailReason reason = FailReason::kNone;
  std::string message;
  ErrorStats worst;  // max errors over the compared tensors
  PoisonScan unwritten;
  bool rejected = false;  // the op threw and the case expected it
  // Sizes of the tensors the op returned, to poison the allocator next trial.
  std::vector<std::pair<std::int64_t, at::ScalarType>> returned;
};

TrialOutcome RunTrial(const OpSpec& spec, const OpHandle& op, const Case& c, std::uint64_t seed,
                      Tolerance tolerance,
                      const std::vector<std::pair<std::int64_t, at::ScalarType>>& poison_sizes);

}  // namespace kb::harness
