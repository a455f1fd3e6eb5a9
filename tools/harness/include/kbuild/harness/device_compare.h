// CompareOnDevice: CompareValues (element_checks.h) computed with ATen ops on
// the device the tensors live on. Only a handful of scalars come back to the
// host, so big benchmark shapes are checked without a whole-tensor copy.
//
//   ErrorStats stats = CompareOnDevice(out, reference, DefaultTolerance(DType::kBFloat16));
//   if (!stats.ok()) ...  // stats.first_mismatch, stats.first_got, stats.first_want
//
// The caller checks that the shapes agree; both tensors are compared as flat,
// row-major arrays, so indices match CompareValues on host copies. Outputs
// within tolerance take a few passes (in float32 when `got` is bf16/fp16, else
// float64); only a failing comparison classifies every element, in float64.
#pragma once

#include <ATen/ATen.h>

#include "kbuild/harness/element_checks.h"
#include "kbuild/harness/tolerance.h"

namespace kb::harness {

ErrorStats CompareOnDevice(const at::Tensor& got, const at::Tensor& want, Tolerance tolerance);

}  // namespace kb::harness
