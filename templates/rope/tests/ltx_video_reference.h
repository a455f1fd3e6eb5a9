// diffusers' LTX-Video rotary embedding rewritten in ATen line by line,
// from huggingface/diffusers src/diffusers/models/transformers/
// transformer_ltx.py at commit 061bc7f9dcaf23ad84a8f36f93bc586c2f3f8191:
// LTXVideoRotaryPosEmbed.forward without video_coords (with
// _prepare_video_coords) and apply_rotary_emb. Shared by the tests (float64,
// and float32 as diffusers computes it) and the benchmark's eager baseline.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

// LTXVideoRotaryPosEmbed's constructor arguments and the
// rope_interpolation_scale its forward gets (defaults: the transformer's
// and the LTX pipeline's at 25 fps: (8 / 25, 32, 32)).
struct LtxRope {
  int64_t base_num_frames = 20;
  int64_t base_height = 2048;
  int64_t base_width = 2048;
  int64_t patch_size = 1;
  int64_t patch_size_t = 1;
  double theta = 10000.0;
  std::optional<std::array<double, 3>> rope_interpolation_scale =
      std::array<double, 3>{8.0 / 25.0, 32.0, 32.0};
};

// LTXVideoRotaryPosEmbed._prepare_video_coords and forward: cos / sin of
// [batch_size, frames * height * width, dim] in `options`' dtype.
inline std::pair<at::Tensor, at::Tensor> LtxVideoCosSin(const LtxRope& rope, int64_t dim,
                                                        int64_t batch_size, int64_t num_frames,
                                                        int64_t height, int64_t width,
                                                        at::TensorOptions options) {
  const at::Tensor grid_h = at::arange(height, options);
  const at::Tensor grid_w = at::arange(width, options);
  const at::Tensor grid_f = at::arange(num_frames, options);
  at::Tensor grid = at::stack(at::meshgrid({grid_f, grid_h, grid_w}, "ij"), 0);
  grid = grid.unsqueeze(0).repeat({batch_size, 1, 1, 1, 1});
  if (const auto& scale = rope.rope_interpolation_scale) {
    grid.slice(1, 0, 1).copy_(grid.slice(1, 0, 1) * (*scale)[0] * rope.patch_size_t /
                              rope.base_num_frames);
    grid.slice(1, 1, 2).copy_(grid.slice(1, 1, 2) * (*scale)[1] * rope.patch_size /
                              rope.base_height);
    grid.slice(1, 2, 3).copy_(grid.slice(1, 2, 3) * (*scale)[2] * rope.patch_size /
                              rope.base_width);
  }
  grid = grid.flatten(2, 4).transpose(1, 2);

  const double start = 1.0;
  const double end = rope.theta;
  at::Tensor freqs =
      at::pow(rope.theta, at::linspace(std::log(start) / std::log(rope.theta),
                                       std::log(end) / std::log(rope.theta), dim / 6, options));
  freqs = freqs * M_PI / 2.0;
  freqs = freqs * (grid.unsqueeze(-1) * 2 - 1);
  freqs = freqs.transpose(-1, -2).flatten(2);

  at::Tensor cos_freqs = freqs.cos().repeat_interleave(2, -1);
  at::Tensor sin_freqs = freqs.sin().repeat_interleave(2, -1);
  if (dim % 6 != 0) {
    const at::Tensor cos_padding = at::ones_like(cos_freqs.slice(-1, 0, dim % 6));
    const at::Tensor sin_padding = at::zeros_like(cos_freqs.slice(-1, 0, dim % 6));
    cos_freqs = at::cat({cos_padding, cos_freqs}, -1);
    sin_freqs = at::cat({sin_padding, sin_freqs}, -1);
  }
  return {cos_freqs, sin_freqs};
}

// apply_rotary_emb on x [B, S, C] without its .float() and .to(x.dtype)
// (the caller picks the precision).
inline at::Tensor ApplyRotaryEmb(const at::Tensor& x, const at::Tensor& cos,
                                 const at::Tensor& sin) {
  const auto parts = x.unflatten(2, {-1, 2}).unbind(-1);
  const at::Tensor& x_real = parts[0];
  const at::Tensor& x_imag = parts[1];
  const at::Tensor x_rotated = at::stack({-x_imag, x_real}, -1).flatten(2);
  return x * cos + x_rotated * sin;
}

// What rope_ltx_video is given for the coordinates (ltx_video_coord_scale
// in __init__.py).
inline std::vector<double> CoordScale(const LtxRope& rope) {
  if (!rope.rope_interpolation_scale) return {1.0, 1.0, 1.0};
  const auto& s = *rope.rope_interpolation_scale;
  return {s[0] * rope.patch_size_t / rope.base_num_frames,
          s[1] * rope.patch_size / rope.base_height, s[2] * rope.patch_size / rope.base_width};
}
