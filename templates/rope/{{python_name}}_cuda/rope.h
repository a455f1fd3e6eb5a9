// Launchers for the rotary position embedding of q and k, in place, in one
// launch. Plain C++: included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {

// q or k: [batch, seq, heads, head_dim] seen through strides (elements), so
// [b, s, h, d], [b, h, s, d] and slices of a fused qkv tensor all fit; the
// head_dim elements of a head are contiguous.
struct RopeHeads {
  void* ptr;
  int64_t heads;
  int64_t batch_stride;
  int64_t seq_stride;
  int64_t head_stride;
};

struct RopeShape {
  int64_t batch;
  int64_t seq;
  int64_t head_dim;  // even
  bool interleaved;  // pairs (2i, 2i + 1); else (i, i + head_dim / 2)
};

// cos and sin: one value per element of a head, at
// b * batch_stride + s * seq_stride + h * head_stride + e (strides in
// elements; batch_stride 0 broadcasts over the batch, head_stride 0 shares
// one table by every head). table_dtype: q's dtype or float32.
struct RopeTable {
  const void* cos;
  const void* sin;
  kernels_common::DType dtype;
  int64_t batch_stride;
  int64_t seq_stride;
  int64_t head_stride;
};

// Every launcher returns cudaErrorInvalidValue for unsupported dtypes or
// sizes (the binding checks them first, with readable messages), else the
// launch status. q and k share dtype, batch, seq and head_dim.
cudaError_t LaunchRopeTable(RopeHeads q, RopeHeads k, RopeShape shape, kernels_common::DType dtype,
                            RopeTable table, cudaStream_t stream);

// angle_i = positions[b, s] * theta^(-2i / head_dim); positions: int64 at
// b * positions_batch_stride + s (stride 0: shared by the batch).
cudaError_t LaunchRopePositions(RopeHeads q, RopeHeads k, RopeShape shape,
                                kernels_common::DType dtype, const int64_t* positions,
                                int64_t positions_batch_stride, double theta, cudaStream_t stream);

// LTX-Video's 3D rope over q's heads * head_dim channels (interleaved pairs;
// shape.interleaved must be true): seq == frames * height * width, k has
// q's heads. coord_scale: what multiplies the frame, row and column index
// (rope_interpolation_scale * patch size / base size in diffusers; 1 when
// it passes none).
cudaError_t LaunchRopeLtxVideo(RopeHeads q, RopeHeads k, RopeShape shape,
                               kernels_common::DType dtype, int64_t frames, int64_t height,
                               int64_t width, const double (&coord_scale)[3], double theta,
                               cudaStream_t stream);

// QK-norm then rope (Qwen3's attention), in place, one launch: every head
// row x of q and k becomes rope(x * rsqrt(mean(x^2) + eps) * w), w =
// q_weight for q's heads and k_weight for k's (head_dim elements each, of
// weight_dtype: q's dtype or float32), computed in fp32 and rounded once, at
// the store (rms_norm then rope rounds the normalized value too). Needs 16-byte vectors
// for every tensor and QkNormRopeSupported(head_dim, dtype); anything else
// returns cudaErrorInvalidValue.
//
// k_cache (optional): k's rows are written there instead of into k, which is
// only read: row (b, h) of token s goes to slot *first_slot + s of the
// cache (k_cache.seq_stride steps a slot; k's heads; q's dtype), first_slot
// a device int64 read by the kernel (transformers' StaticCache keeps its
// length in one). Slots at or past `slots` are not written.
struct KCache {
  RopeHeads rows;
  const int64_t* first_slot;
  int64_t slots;
};
cudaError_t LaunchQkNormRope(RopeHeads q, RopeHeads k, RopeShape shape,
                             kernels_common::DType dtype, RopeTable table, const void* q_weight,
                             const void* k_weight, kernels_common::DType weight_dtype, float eps,
                             cudaStream_t stream, const KCache* k_cache = nullptr);

// Whether the fused kernel takes this head_dim: a head is d / 2 / V lanes
// (V = 16 bytes of dtype), a power of two up to 32 (bf16: 16, 32, 64, 128,
// 256, 512; fp32: 8 ... 256).
bool QkNormRopeSupported(int64_t head_dim, kernels_common::DType dtype);

}  // namespace {{python_name}}_cuda
