// The value check of a benchmark case (internal to MeasureCase): the op's
// outputs against the spec's reference (float64 copies of the pre-call args,
// on the GPU) or else against its first baseline on the same values, compared
// on the device (device_compare.h). MeasureCase runs it before timing and
// again after, with fresh values copied into the very tensors it timed, so a
// result that changes with the call count or the pointers fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kbuild/harness/arg_factory.h"
#include "kbuild/harness/benchmark.h"
#include "kbuild/harness/element_checks.h"

namespace kb::harness {

// "" when the spec says what to check against, else the spec error.
std::string ValueCheckSpecProblem(const BenchSpec& spec);

// The tolerance a case's value checks use: the case's own, else the spec's,
// else the default of the case's dtype.
Tolerance BenchTolerance(const BenchSpec& spec, const Case& c);

// "reference" or "baseline '<name>'".
std::string CheckedAgainst(const BenchSpec& spec);

// Each arg's role (kInput for non-tensors and tensors the factory did not make).
std::vector<Role> ArgRoles(const Args& args, const ArgFactory& factory);

// The args a reference sees, on their own device: floating tensors as
// float64 copies, other tensors cloned, Output args zero-filled.
Args DeviceReferenceArgs(const Args& args, const std::vector<Role>& roles);

// Copies of the tensor args (same device, dtype and values) for a baseline to
// run on, so it sees the pre-call values of InPlace args.
Args ArgCopies(const Args& args);

// Fills the tensor with the output poison (element_checks.h) on its device.
void PoisonOnDevice(const at::Tensor& t);

struct ValueCheck {
  std::string problem;  // "" when the values are right
  ErrorStats worst;     // max errors over the compared tensors
};

// Poisons the Output args, computes what the op must produce, calls the op
// and compares. `when` names the check in the problem ("before timing").
ValueCheck CheckValues(const BenchSpec& spec, const OpHandle& op, const Args& args,
                       const std::vector<Role>& roles, Tolerance tolerance,
                       const std::string& when);

// Copies the tensor values of `fresh` into `timed` (same tensors, same
// pointers, new values): the after-timing check runs on what was timed.
void CopyValuesInto(const Args& timed, const Args& fresh);

// CheckValues on `args` with the case's tolerance, recorded in `record`
// (errors, check_ms, the problem). With `fresh_seed` it is the after-timing
// check: fresh values made with that seed are first copied into `args`.
// Returns whether the values were right.
bool RecordValueCheck(const BenchSpec& spec, const OpHandle& op, const Case& c, const Args& args,
                      const std::vector<Role>& roles, std::optional<std::uint64_t> fresh_seed,
                      BenchRecord* record);

}  // namespace kb::harness
