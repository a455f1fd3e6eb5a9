// CompareOnDevice over slices of a flat tensor, so a huge comparison (2^31
// elements: 17 GB per float64 copy) keeps its temporaries to a few GB.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "kbuild/harness/element_checks.h"
#include "kbuild/harness/tolerance.h"

namespace kb::harness {

// 2^26 elements: ~0.5 GB per float64 temporary of CompareOnDevice.
inline constexpr std::int64_t kCompareChunkElements = std::int64_t{1} << 26;

// The same stats as CompareOnDevice on the whole tensors (flat row-major
// indices); rel_l2 differs only when `got` has NaN/Inf where `want` has none,
// which fails as nonfinite anyway.
ErrorStats CompareInChunks(const at::Tensor& got, const at::Tensor& want, Tolerance tolerance,
                           std::int64_t chunk = kCompareChunkElements);

}  // namespace kb::harness
