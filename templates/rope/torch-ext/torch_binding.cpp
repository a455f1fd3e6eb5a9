// Registers rope, rope_positions, rope_ltx_video, qk_norm_rope and
// qk_norm_rope_to_cache with the torch dispatcher; checks tensors, then calls
// the CUDA launchers on the current stream. All rotate q in place, and k in
// place or (qk_norm_rope_to_cache) into a key cache; the schemas mark what
// each writes.
#include "torch_binding.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <string>

#include "../{{python_name}}_cuda/rope.h"
#include "registration.h"
#include "tensor_checks.h"

using namespace norm_binding;

namespace {

using {{python_name}}_cuda::RopeHeads;
using {{python_name}}_cuda::RopeShape;

// "bshd": [batch, seq, heads, head_dim]; "bhsd": [batch, heads, seq, head_dim].
bool HeadsFirst(const std::string& layout, const char* op) {
  NORM_CHECK(layout == "bshd" || layout == "bhsd", op, ": layout must be 'bshd' or 'bhsd', got '",
             layout, "'");
  return layout == "bhsd";
}

RopeHeads HeadsOf(const at::Tensor& t, bool heads_first, const char* op, const char* name) {
  NORM_CHECK(t.dim() == 4, op, ": ", name, " must be 4-D (",
             heads_first ? "[b, h, s, d]" : "[b, s, h, d]", "), got shape ", ShapeText(t.sizes()),
             "; hint: unflatten the heads, e.g. ", name, ".unflatten(-1, (heads, head_dim))");
  NORM_CHECK(t.stride(3) == 1, op, ": ", name,
             " must be contiguous in head_dim (stride(-1) == 1), got ", Num(t.stride(3)),
             "; hint: pass ", name, ".contiguous()");
  NORM_CHECK(at::has_internal_overlap(t) != at::MemOverlap::Yes, op, ": ", name,
             " is written in place, so its elements must not overlap (strides ",
             ShapeText(t.strides()), "); hint: pass a clone");
  const int h = heads_first ? 1 : 2;
  const int s = heads_first ? 2 : 1;
  return {t.data_ptr(), t.size(h), t.stride(0), t.stride(s), t.stride(h)};
}

struct QkArgs {
  RopeHeads q;
  RopeHeads k;
  RopeShape shape;
  kernels_common::DType dtype;
  bool empty;
};

// q and k: same device, dtype, batch, seq and head_dim; no shared memory.
QkArgs CheckQk(const at::Tensor& q, const at::Tensor& k, const std::string& layout,
               bool interleaved, const char* op) {
  const bool heads_first = HeadsFirst(layout, op);
  CheckOnCuda(q, q, op, "q");
  CheckOnCuda(k, q, op, "k");
  const auto dtype = KernelDType(q, op, "q");
  NORM_CHECK(k.scalar_type() == q.scalar_type(), op, ": k has dtype ",
             c10::toString(k.scalar_type()), " but q has ", c10::toString(q.scalar_type()),
             "; hint: cast k to q's dtype");
  QkArgs a{HeadsOf(q, heads_first, op, "q"), HeadsOf(k, heads_first, op, "k"), {}, dtype, false};
  const int s = heads_first ? 2 : 1;
  NORM_CHECK(k.size(0) == q.size(0) && k.size(s) == q.size(s) && k.size(3) == q.size(3), op,
             ": k has shape ", ShapeText(k.sizes()), " but q has ", ShapeText(q.sizes()),
             "; hint: batch, seq and head_dim must match (heads may differ)");
  NORM_CHECK(q.size(3) % 2 == 0 && q.size(3) <= 1024, op,
             ": head_dim must be even and at most 1024, got ", Num(q.size(3)));
  const at::MemOverlapStatus overlap = at::get_overlap_status(q, k);
  NORM_CHECK(overlap != at::MemOverlapStatus::Full && overlap != at::MemOverlapStatus::Partial, op,
             ": q and k share memory, and q is written in place; hint: pass separate tensors");
  a.shape = {q.size(0), q.size(s), q.size(3), interleaved};
  a.empty = q.numel() == 0 || k.numel() == 0;
  return a;
}

// cos / sin: [s, w] or [b | 1, s, w], w = head_dim (every head) or
// q heads * head_dim (a table per head, LTX-Video's); float32 or q's dtype.
{{python_name}}_cuda::RopeTable TableOf(const at::Tensor& cos, const at::Tensor& sin, const at::Tensor& q,
                                 const QkArgs& a, const char* op) {
  CheckOnCuda(cos, q, op, "cos");
  CheckOnCuda(sin, q, op, "sin");
  NORM_CHECK(cos.sizes() == sin.sizes() && cos.strides() == sin.strides(), op, ": cos has shape ",
             ShapeText(cos.sizes()), " and strides ", ShapeText(cos.strides()), " but sin has ",
             ShapeText(sin.sizes()), " and ", ShapeText(sin.strides()),
             "; hint: make both contiguous");
  NORM_CHECK(cos.scalar_type() == sin.scalar_type() &&
                 (cos.scalar_type() == q.scalar_type() || cos.scalar_type() == at::kFloat),
             op, ": cos and sin must both be float32 or q's dtype (",
             c10::toString(q.scalar_type()), "), got ", c10::toString(cos.scalar_type()), " and ",
             c10::toString(sin.scalar_type()));
  const int64_t d = a.shape.head_dim;
  const int64_t w = cos.dim() >= 2 ? cos.size(-1) : -1;
  const bool per_head = w == a.q.heads * d && w != d;
  NORM_CHECK(
      (cos.dim() == 2 || cos.dim() == 3) && cos.size(-2) == a.shape.seq && (w == d || per_head), op,
      ": cos must have shape [s, w] or [b or 1, s, w] with s = ", Num(a.shape.seq),
      " and w = head_dim (", Num(d), ") or q heads * head_dim (", Num(a.q.heads * d), "), got ",
      ShapeText(cos.sizes()));
  NORM_CHECK(!per_head || a.k.heads == a.q.heads, op,
             ": a cos of q heads * head_dim per token needs k with q's ", Num(a.q.heads),
             " heads, got ", Num(a.k.heads));
  NORM_CHECK(cos.stride(-1) == 1, op,
             ": cos and sin must be contiguous in their last dimension, got stride ",
             Num(cos.stride(-1)), "; hint: pass cos.contiguous()");
  int64_t batch_stride = 0;
  if (cos.dim() == 3 && cos.size(0) != 1) {
    NORM_CHECK(cos.size(0) == a.shape.batch, op, ": cos has batch ", Num(cos.size(0)),
               " but q has ", Num(a.shape.batch), "; hint: pass [s, w], [1, s, w] or [b, s, w]");
    batch_stride = cos.stride(0);
  }
  return {cos.data_ptr(), sin.data_ptr(), KernelDType(cos, op, "cos"),
          batch_stride,   cos.stride(-2), per_head ? d : 0};
}

}  // namespace

void rope(at::Tensor& q, at::Tensor& k, const at::Tensor& cos, const at::Tensor& sin,
          bool interleaved, const std::string& layout) {
  constexpr const char* kOp = "rope";
  const QkArgs a = CheckQk(q, k, layout, interleaved, kOp);
  const auto table = TableOf(cos, sin, q, a, kOp);
  if (a.empty) return;
  const c10::cuda::CUDAGuard guard(q.device());
  CheckLaunch({{python_name}}_cuda::LaunchRopeTable(a.q, a.k, a.shape, a.dtype, table,
                                             at::cuda::getCurrentCUDAStream()),
              kOp);
}

void rope_positions(at::Tensor& q, at::Tensor& k, const at::Tensor& positions, double theta,
                    bool interleaved, const std::string& layout) {
  constexpr const char* kOp = "rope_positions";
  const QkArgs a = CheckQk(q, k, layout, interleaved, kOp);
  CheckOnCuda(positions, q, kOp, "positions");
  NORM_CHECK(positions.scalar_type() == at::kLong, kOp, ": positions must be int64, got ",
             c10::toString(positions.scalar_type()), "; hint: pass positions.long()");
  const bool batched = positions.dim() == 2 && positions.size(0) != 1;
  NORM_CHECK((positions.dim() == 1 || positions.dim() == 2) && positions.size(-1) == a.shape.seq &&
                 (!batched || positions.size(0) == a.shape.batch),
             kOp, ": positions must have shape [s], [1, s] or [b, s] with b = ", Num(a.shape.batch),
             ", s = ", Num(a.shape.seq), ", got ", ShapeText(positions.sizes()));
  NORM_CHECK(positions.stride(-1) == 1 || a.shape.seq == 1, kOp,
             ": positions must be contiguous over s; hint: pass positions.contiguous()");
  NORM_CHECK(theta > 1.0, kOp, ": theta must be > 1, got ", std::to_string(theta));
  if (a.empty) return;
  const c10::cuda::CUDAGuard guard(q.device());
  CheckLaunch({{python_name}}_cuda::LaunchRopePositions(
                  a.q, a.k, a.shape, a.dtype, positions.data_ptr<int64_t>(),
                  batched ? positions.stride(0) : 0, theta, at::cuda::getCurrentCUDAStream()),
              kOp);
}

void rope_ltx_video(at::Tensor& q, at::Tensor& k, int64_t frames, int64_t height, int64_t width,
                    at::ArrayRef<double> coord_scale, double theta, const std::string& layout) {
  constexpr const char* kOp = "rope_ltx_video";
  const QkArgs a = CheckQk(q, k, layout, /*interleaved=*/true, kOp);
  NORM_CHECK(frames > 0 && height > 0 && width > 0 && frames * height * width == a.shape.seq, kOp,
             ": frames * height * width must be the sequence length ", Num(a.shape.seq), ", got ",
             Num(frames), " x ", Num(height), " x ", Num(width));
  NORM_CHECK(a.k.heads == a.q.heads, kOp, ": k must have q's ", Num(a.q.heads),
             " heads (the rotary channels are heads * head_dim), got ", Num(a.k.heads));
  const int64_t channels = a.q.heads * a.shape.head_dim;
  NORM_CHECK(channels >= 6 && channels <= 6144, kOp, ": heads * head_dim must be 6..6144, got ",
             Num(channels));
  NORM_CHECK(coord_scale.size() == 3, kOp,
             ": coord_scale must hold 3 numbers (frame, height, width), got ",
             Num(static_cast<int64_t>(coord_scale.size())));
  NORM_CHECK(theta > 1.0, kOp, ": theta must be > 1, got ", std::to_string(theta));
  if (a.empty) return;
  const double scale[3] = {coord_scale[0], coord_scale[1], coord_scale[2]};
  const c10::cuda::CUDAGuard guard(q.device());
  CheckLaunch({{python_name}}_cuda::LaunchRopeLtxVideo(a.q, a.k, a.shape, a.dtype, frames, height, width,
                                                scale, theta, at::cuda::getCurrentCUDAStream()),
              kOp);
}

// q_weight / k_weight: [head_dim], contiguous, q's dtype or float32, one dtype for both.
void CheckHeadWeight(const at::Tensor& w, const at::Tensor& q, const at::Tensor& other,
                     int64_t head_dim, const char* op, const char* name) {
  CheckOnCuda(w, q, op, name);
  NORM_CHECK(w.dim() == 1 && w.size(0) == head_dim, op, ": ", name, " must have shape [",
             Num(head_dim), "] (head_dim), got ", ShapeText(w.sizes()));
  NORM_CHECK(w.stride(0) == 1, op, ": ", name, " must be contiguous; hint: pass ", name,
             ".contiguous()");
  NORM_CHECK((w.scalar_type() == q.scalar_type() || w.scalar_type() == at::kFloat) &&
                 w.scalar_type() == other.scalar_type(),
             op, ": q_weight and k_weight must both be float32 or q's dtype (",
             c10::toString(q.scalar_type()), "), got ", c10::toString(w.scalar_type()), " and ",
             c10::toString(other.scalar_type()));
}

namespace {

// What qk_norm_rope and qk_norm_rope_to_cache check alike: q and k, the
// tables, both weights, eps and a head_dim the fused kernel takes.
struct QkNormRopeArgs {
  QkArgs a;
  {{python_name}}_cuda::RopeTable table;
};

QkNormRopeArgs CheckQkNormRope(const at::Tensor& q, const at::Tensor& k, const at::Tensor& q_weight,
                               const at::Tensor& k_weight, const at::Tensor& cos,
                               const at::Tensor& sin, double eps, bool interleaved,
                               const std::string& layout, const char* op) {
  const QkArgs a = CheckQk(q, k, layout, interleaved, op);
  const auto table = TableOf(cos, sin, q, a, op);
  CheckHeadWeight(q_weight, q, k_weight, a.shape.head_dim, op, "q_weight");
  CheckHeadWeight(k_weight, q, q_weight, a.shape.head_dim, op, "k_weight");
  NORM_CHECK(eps >= 0.0, op, ": eps must be >= 0, got ", std::to_string(eps));
  NORM_CHECK({{python_name}}_cuda::QkNormRopeSupported(a.shape.head_dim, a.dtype), op,
             ": head_dim ", Num(a.shape.head_dim), " is not supported by the fused kernel (",
             c10::toString(q.scalar_type()),
             ": a power of two from 16 bytes of pairs up to 32 lanes, e.g. 64, 128, 256); "
             "hint: call rms_norm on each, then rope");
  return {a, table};
}

// Launches the fused kernel (k_cache: nullptr for in place); `tensors` names
// what must be 16-byte aligned in the message for a refused launch.
void LaunchQkNormRope(const QkNormRopeArgs& args, const at::Tensor& q, const at::Tensor& q_weight,
                      const at::Tensor& k_weight, double eps,
                      const {{python_name}}_cuda::KCache* k_cache, const char* tensors,
                      const char* op) {
  const c10::cuda::CUDAGuard guard(q.device());
  const cudaError_t status = {{python_name}}_cuda::LaunchQkNormRope(
      args.a.q, args.a.k, args.a.shape, args.a.dtype, args.table, q_weight.data_ptr(),
      k_weight.data_ptr(), KernelDType(q_weight, op, "q_weight"), static_cast<float>(eps),
      at::cuda::getCurrentCUDAStream(), k_cache);
  NORM_CHECK(status != cudaErrorInvalidValue, op, ": the fused kernel needs every tensor (",
             tensors,
             ") at 16-byte aligned addresses and strides; hint: pass contiguous tensors, or call "
             "rms_norm on each, then rope");
  CheckLaunch(status, op);
}

// `written` shares no memory with `other` (another tensor the op reads or writes).
void CheckNoOverlap(const at::Tensor& written, const at::Tensor& other, const char* op,
                    const char* written_name, const char* other_name) {
  const at::MemOverlapStatus overlap = at::get_overlap_status(written, other);
  NORM_CHECK(overlap != at::MemOverlapStatus::Full && overlap != at::MemOverlapStatus::Partial, op,
             ": ", written_name, " shares memory with ", other_name, ", and ", written_name,
             " is written; hint: pass separate tensors");
}

}  // namespace

void qk_norm_rope(at::Tensor& q, at::Tensor& k, const at::Tensor& q_weight,
                  const at::Tensor& k_weight, const at::Tensor& cos, const at::Tensor& sin,
                  double eps, bool interleaved, const std::string& layout) {
  constexpr const char* kOp = "qk_norm_rope";
  const QkNormRopeArgs args =
      CheckQkNormRope(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout, kOp);
  if (args.a.empty) return;
  LaunchQkNormRope(args, q, q_weight, k_weight, eps, nullptr, "q, k, cos, sin and both weights",
                   kOp);
}

void qk_norm_rope_to_cache(at::Tensor& q, const at::Tensor& k, const at::Tensor& q_weight,
                           const at::Tensor& k_weight, const at::Tensor& cos,
                           const at::Tensor& sin, double eps, bool interleaved,
                           const std::string& layout, at::Tensor& k_cache,
                           const at::Tensor& cache_length) {
  constexpr const char* kOp = "qk_norm_rope_to_cache";
  const QkNormRopeArgs args =
      CheckQkNormRope(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout, kOp);
  CheckOnCuda(k_cache, q, kOp, "k_cache");
  NORM_CHECK(k_cache.scalar_type() == q.scalar_type(), kOp, ": k_cache has dtype ",
             c10::toString(k_cache.scalar_type()), " but q has ", c10::toString(q.scalar_type()),
             "; hint: the cache holds k in q's dtype");
  NORM_CHECK(k_cache.dim() == 4 && k_cache.size(0) == args.a.shape.batch &&
                 k_cache.size(1) == args.a.k.heads && k_cache.size(3) == args.a.shape.head_dim,
             kOp, ": k_cache must have shape [b, k heads, slots, head_dim] = [",
             Num(args.a.shape.batch), ", ", Num(args.a.k.heads), ", slots, ",
             Num(args.a.shape.head_dim), "], got ", ShapeText(k_cache.sizes()));
  NORM_CHECK(k_cache.stride(3) == 1, kOp,
             ": k_cache must be contiguous in head_dim (stride(-1) == 1), got ",
             Num(k_cache.stride(3)));
  NORM_CHECK(at::has_internal_overlap(k_cache) != at::MemOverlap::Yes, kOp,
             ": k_cache is written, so its elements must not overlap (strides ",
             ShapeText(k_cache.strides()), ")");
  CheckNoOverlap(k_cache, q, kOp, "k_cache", "q");
  CheckNoOverlap(k_cache, k, kOp, "k_cache", "k");
  CheckOnCuda(cache_length, q, kOp, "cache_length");
  NORM_CHECK(cache_length.scalar_type() == at::kLong && cache_length.numel() == 1, kOp,
             ": cache_length must be one int64 element (the slots already filled), got ",
             c10::toString(cache_length.scalar_type()), " of shape ",
             ShapeText(cache_length.sizes()));
  if (args.a.empty) return;
  const {{python_name}}_cuda::KCache cache{
      {k_cache.data_ptr(), k_cache.size(1), k_cache.stride(0), k_cache.stride(2),
       k_cache.stride(1)},
      cache_length.data_ptr<int64_t>(),
      k_cache.size(2)};
  LaunchQkNormRope(args, q, q_weight, k_weight, eps, &cache,
                   "q, k, k_cache, cos, sin and both weights", kOp);
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def(
      "rope(Tensor(a!) q, Tensor(b!) k, Tensor cos, Tensor sin, bool interleaved, "
      "str layout) -> ()");
  ops.impl("rope", c10::kCUDA, &rope);
  ops.def(
      "rope_positions(Tensor(a!) q, Tensor(b!) k, Tensor positions, float theta, "
      "bool interleaved, str layout) -> ()");
  ops.impl("rope_positions", c10::kCUDA, &rope_positions);
  ops.def(
      "rope_ltx_video(Tensor(a!) q, Tensor(b!) k, int frames, int height, int width, "
      "float[] coord_scale, float theta, str layout) -> ()");
  ops.impl("rope_ltx_video", c10::kCUDA, &rope_ltx_video);
  ops.def(
      "qk_norm_rope(Tensor(a!) q, Tensor(b!) k, Tensor q_weight, Tensor k_weight, Tensor cos, "
      "Tensor sin, float eps, bool interleaved, str layout) -> ()");
  ops.impl("qk_norm_rope", c10::kCUDA, &qk_norm_rope);
  ops.def(
      "qk_norm_rope_to_cache(Tensor(a!) q, Tensor k, Tensor q_weight, Tensor k_weight, "
      "Tensor cos, Tensor sin, float eps, bool interleaved, str layout, Tensor(b!) k_cache, "
      "Tensor cache_length) -> ()");
  ops.impl("qk_norm_rope_to_cache", c10::kCUDA, &qk_norm_rope_to_cache);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
