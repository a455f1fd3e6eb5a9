// Makes an op's tensor arguments for one trial: fresh seeded random values,
// the case's layout (offset view, non-contiguous), and poison-filled guard
// bands around every tensor, so out-of-bounds reads pull in NaN and
// out-of-bounds writes show up as changed guard bytes.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "kbuild/harness/case.h"
#include "kbuild/harness/element_checks.h"

namespace kb::harness {

enum class Role {
  kInput,    // read only; follows the case layout and magnitude; must be unchanged afterwards
  kParam,    // read only; always plain contiguous, magnitude ~1 (weights, biases)
  kOutput,   // written by the op; poisoned before the call; compared
  kInPlace,  // random (case magnitude), updated by the op; compared (e.g. residual in fused add+norm)
};

struct MadeTensor {
  at::Tensor base;  // the whole buffer, guards included
  at::Tensor view;  // what the op sees
  Role role = Role::kInput;
};

class ArgFactory {
 public:
  ArgFactory(const Case& c, at::Device device, std::uint64_t seed);

  // dtype defaults to the case's dtype.
  at::Tensor Input(at::IntArrayRef shape, std::optional<at::ScalarType> dtype = {});
  at::Tensor Param(at::IntArrayRef shape, std::optional<at::ScalarType> dtype = {});
  at::Tensor Output(at::IntArrayRef shape, std::optional<at::ScalarType> dtype = {});
  at::Tensor InPlace(at::IntArrayRef shape, std::optional<at::ScalarType> dtype = {});
  // Integers drawn uniformly from [low, high): targets, positions, token ids.
  // Seeded like every value here (so a seed reproduces them; at::randint on
  // the global generator would not), read only and checked unchanged like a
  // Param, plain contiguous, int64 unless `dtype` says otherwise.
  at::Tensor Indices(at::IntArrayRef shape, std::int64_t low, std::int64_t high,
                     at::ScalarType dtype = at::kLong);

  const Case& test_case() const { return case_; }
  const std::vector<MadeTensor>& made() const { return made_; }
  // The record for a tensor this factory made (same storage and offset), or null.
  const MadeTensor* Find(const at::Tensor& tensor) const;

 private:
  // The view of a fresh guarded buffer (guards poisoned, nothing else filled).
  at::Tensor MakeView(at::IntArrayRef shape, at::ScalarType dtype, Role role);
  at::Tensor Make(at::IntArrayRef shape, std::optional<at::ScalarType> dtype, Role role);

  Case case_;
  at::Device device_;
  at::Generator generator_;
  std::vector<MadeTensor> made_;
};

// A poison pattern as an integer dtype of the same width and the value whose
// bits it is: integer ops write and find it exactly on any device (float ops
// may not keep a NaN payload). Nothing for widths no integer dtype has.
struct PatternBits {
  at::ScalarType dtype;
  std::int64_t value;
};
std::optional<PatternBits> IntegerBitsOf(PoisonPattern pattern);

// Fills `t` on its own device with the pattern's exact bits (no host buffer:
// a host fill and copy made a 2^31-element case slow and cost the bench's
// value check most of its time).
void FillPattern(const at::Tensor& t, PoisonPattern pattern);

}  // namespace kb::harness
