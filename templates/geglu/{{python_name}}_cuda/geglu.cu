// GEGLU: out = gelu(gate) * up over rows of d elements, gelu exact
// (x / 2 * (1 + erf(x / sqrt(2)))) or its tanh approximation
// (x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))); gate and up are the
// halves of one [..., 2d] tensor (either half the gate: diffusers' GEGLU
// takes the second) or two [..., d] tensors. Computed in float32, rounded once.
//
// Bytes moved (the floor): rows * 3d * sizeof(T): gate and up read once, out
// written once. Floor time = bytes / measured copy bandwidth (`kbuild doctor`).
//
// Launch shape (common/elementwise.cuh): 256-thread blocks (128 where 256
// would leave SMs idle, ELEMENTWISE_SMALL_BLOCK_THREADS), one (row, 16-byte
// vector) unit per thread (gated_act.cuh's GeluErf and GeluTanh); launched
// overlapped (common/overlap.cuh). Rows that start off a 16-byte boundary in
// every tensor alike (two [..., d] tensors of odd d) split into a scalar head,
// 16-byte body and scalar tail; otherwise (one [..., 2d] tensor of odd d,
// offset views) the widest vectors every tensor allows, down to scalars.
//
// measured (H200, 2026-12-03, kbuild bench, bf16; results/h200-2026-12-03/run-1915):
// exact 12288x8192 146.5 us, 97.8% of copy, 1.13x torch.compile (173.8 us,
// 0.96x, with erff); tanh 139.2 us, 1.02x; 512x8192 exact 10.4 us, 1.09x.

#include "common/gated_act.cuh"
#include "geglu.h"

namespace {{python_name}}_cuda {

cudaError_t LaunchGeluMul(void* out, const void* gate, const void* up,
                          kernels_common::DType dtype, GeluApproximation approximate,
                          int64_t rows, int64_t d, int64_t out_stride, int64_t gate_stride,
                          int64_t up_stride, cudaStream_t stream) {
  using kernels_common::LaunchGated;
  switch (approximate) {
    case GeluApproximation::kNone:
      return LaunchGated<kernels_common::GeluErf>(out, gate, up, dtype, rows, d, out_stride,
                                                  gate_stride, up_stride, stream);
    case GeluApproximation::kTanh:
      return LaunchGated<kernels_common::GeluTanh>(out, gate, up, dtype, rows, d, out_stride,
                                                   gate_stride, up_stride, stream);
  }
  // Supported: kNone, kTanh.
  return cudaErrorInvalidValue;
}

}  // namespace {{python_name}}_cuda
