// SwiGLU: out = silu(gate) * up, silu(x) = x / (1 + e^-x), over rows of d
// elements; gate and up are the halves of one [..., 2d] tensor (either half
// the gate) or two [..., d] tensors. Computed in float32, rounded once.
//
// Bytes moved (the floor): rows * 3d * sizeof(T): gate and up read once, out
// written once. Floor time = bytes / measured copy bandwidth (`kbuild doctor`).
//
// Launch shape (common/elementwise.cuh): 256-thread blocks (128 where 256
// would leave SMs idle, ELEMENTWISE_SMALL_BLOCK_THREADS: the single row), one
// (row, 16-byte vector) unit per thread (grid-stride past 64 waves of blocks),
// launched overlapped (common/overlap.cuh). Rows that start off a
// 16-byte boundary in every tensor alike (two [..., d] tensors of odd d) split
// into a scalar head, 16-byte body and scalar tail; otherwise (one [..., 2d]
// tensor of odd d, offset views) the widest vectors every tensor allows, down
// to scalars.
// Launches whose output fits in half of L2 and whose traffic does not read
// gate and up evict-first (common/gated_act.cuh).
//
// measured (H200, 2026-12-03, kbuild bench, bf16; results/h200-2026-12-03/run-1915):
// 8192x12288 138.2 us, 103.7% of copy (two reads to a write), 1.00x
// torch.compile; 2048x12288 36.3 us, 1.00x; 512x12288 12.9 us, 0.99x.

#include "common/gated_act.cuh"
#include "swiglu.h"

namespace {{python_name}}_cuda {

cudaError_t LaunchSiluMul(void* out, const void* gate, const void* up,
                          kernels_common::DType dtype, int64_t rows, int64_t d,
                          int64_t out_stride, int64_t gate_stride, int64_t up_stride,
                          cudaStream_t stream) {
  return kernels_common::LaunchGated<kernels_common::Silu>(
      out, gate, up, dtype, rows, d, out_stride, gate_stride, up_stride, stream);
}

}  // namespace {{python_name}}_cuda
