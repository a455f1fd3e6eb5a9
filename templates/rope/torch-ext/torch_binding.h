#pragma once

#include <ATen/core/Tensor.h>

#include <string>

// q and k rotated in place, cos / sin given: x = x * cos + rotate(x) * sin.
void rope(at::Tensor& q, at::Tensor& k, const at::Tensor& cos, const at::Tensor& sin,
          bool interleaved, const std::string& layout);

// q and k rotated in place by angle_i = positions * theta^(-2i / head_dim).
void rope_positions(at::Tensor& q, at::Tensor& k, const at::Tensor& positions, double theta,
                    bool interleaved, const std::string& layout);

// q and k rotated in place by LTX-Video's frame / height / width rope.
void rope_ltx_video(at::Tensor& q, at::Tensor& k, int64_t frames, int64_t height, int64_t width,
                    at::ArrayRef<double> coord_scale, double theta, const std::string& layout);

// Each head row of q and k normalized (RMSNorm with q_weight / k_weight) then
// rotated by cos / sin, in place, in one launch (Qwen3's QK-norm + rope).
void qk_norm_rope(at::Tensor& q, at::Tensor& k, const at::Tensor& q_weight,
                  const at::Tensor& k_weight, const at::Tensor& cos, const at::Tensor& sin,
                  double eps, bool interleaved, const std::string& layout);

// qk_norm_rope with k's rows written to a key cache instead of into k (k is
// only read): k_cache [b, k heads, slots, head_dim], token s to slot
// cache_length + s; cache_length an int64 tensor of one element on q's
// device (transformers' StaticCache length), read by the kernel. Slots at or
// past the cache's end are not written.
void qk_norm_rope_to_cache(at::Tensor& q, const at::Tensor& k, const at::Tensor& q_weight,
                           const at::Tensor& k_weight, const at::Tensor& cos,
                           const at::Tensor& sin, double eps, bool interleaved,
                           const std::string& layout, at::Tensor& k_cache,
                           const at::Tensor& cache_length);
