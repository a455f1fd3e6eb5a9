// Element-level checks on host buffers: output poisoning, unwritten-element
// detection, input hashing and the tolerance comparison. Torch-free: the
// torch side copies tensors to the host and calls these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kbuild/harness/tolerance.h"

namespace kb::harness {

// A NaN with a payload no arithmetic produces (quiet bit set, so it survives
// copies), written into outputs before the op runs. An element that still
// holds it afterwards was never written. Non-float dtypes use 0xA5 bytes.
struct PoisonPattern {
  std::uint64_t bits = 0;
  std::size_t element_size = 0;
};
PoisonPattern PoisonFor(DType dtype, std::size_t element_size);

// The NaN that fills guard bands around tensors. It differs from the output
// poison because NaN arithmetic keeps the payload: an output computed from
// an over-read guard must read as NaN (a wrong value), not as "unwritten".
// Non-float dtypes use 0x5A bytes.
PoisonPattern GuardFor(DType dtype, std::size_t element_size);

void FillPoison(void* data, std::size_t count, PoisonPattern pattern);

struct PoisonScan {
  std::int64_t count = 0;         // elements still holding the pattern
  std::int64_t first_index = -1;  // flat index of the first one, -1 if none
};
PoisonScan ScanPoison(const void* data, std::size_t count, PoisonPattern pattern);

// FNV-1a over raw bytes: inputs are hashed before and after the op.
std::uint64_t HashBytes(const void* data, std::size_t size);

struct ErrorStats {
  double max_abs_error = 0;     // over elements where both values are finite
  double rel_l2_error = 0;      // ||got - want|| / ||want|| (||got - want|| when want is 0)
  std::int64_t mismatches = 0;  // finite elements outside tolerance
  std::int64_t first_mismatch = -1;
  double first_got = 0, first_want = 0;
  // NaN or Inf in `got` where `want` has a finite value (or a different
  // non-finite one), and finite `got` where `want` is NaN/Inf.
  std::int64_t nonfinite = 0;
  std::int64_t first_nonfinite = -1;
  bool ok() const { return mismatches == 0 && nonfinite == 0; }
};

// Compares flat, equally long arrays (the caller checks shapes first).
ErrorStats CompareValues(std::span<const double> got, std::span<const double> want,
                         Tolerance tolerance);

}  // namespace kb::harness
