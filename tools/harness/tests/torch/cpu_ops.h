// CPU ops registered under the `kbh_test` namespace for the harness's own
// tests: one correct RMSNorm and variants that are wrong in the ways the
// harness must catch. The CUDA versions of these bugs live in bad_kernels/.
#pragma once

#include <ATen/ATen.h>

namespace kb::harness::testing {

// float64 RMSNorm over the last dim: the reference every test compares to.
at::Tensor RmsNormReference(const at::Tensor& x, const at::Tensor& w, double eps);

}  // namespace kb::harness::testing
