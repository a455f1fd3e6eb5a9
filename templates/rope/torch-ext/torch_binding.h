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
