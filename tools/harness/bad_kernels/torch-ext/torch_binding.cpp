// Registers the correct ops (rms_norm, copy), one op per deliberate flaw
// (rms_norm_<flaw>, same schema as rms_norm; rms_norm_delegates_to_aten calls
// at::rms_norm instead of a kernel of this project), and two ops with copy's schema
// that fault (crash_illegal_address) or never finish (hang); rms_norm and
// softmax ops wrong only on one input class each (input_cheats.h); slow_copy,
// correct and slow on purpose for `kbuild profile` (slow_copy.h).
#include "torch_binding.h"

#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>

#include "../bad_kernels_cuda/bad_kernels.h"
#include "../bad_kernels_cuda/bench_cheats.h"
#include "../bad_kernels_cuda/faults.h"
#include "../bad_kernels_cuda/input_cheats.h"
#include "../bad_kernels_cuda/slow_copy.h"
#include "registration.h"

namespace {

using bad_kernels::Flaw;

void CheckArgs(const at::Tensor& out, const at::Tensor& x) {
  TORCH_CHECK(x.is_cuda() && out.is_cuda(), "x and out must be CUDA tensors");
  TORCH_CHECK(x.scalar_type() == at::kFloat && out.scalar_type() == at::kFloat,
              "x and out must be float32, got ", x.scalar_type(), " and ", out.scalar_type());
  TORCH_CHECK(x.dim() == 2, "x must be 2-D [rows, hidden], got ", x.dim(), " dims");
  TORCH_CHECK(x.is_contiguous(), "x must be contiguous (strides ", x.strides(), ")");
  TORCH_CHECK(out.is_contiguous(), "out must be contiguous");
  TORCH_CHECK(out.sizes() == x.sizes(), "out must have x's shape ", x.sizes(), ", got ",
              out.sizes());
}

void CheckCopyArgs(const at::Tensor& out, const at::Tensor& x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat && x.is_contiguous(),
              "x must be a contiguous float32 CUDA tensor");
  TORCH_CHECK(out.is_contiguous() && out.sizes() == x.sizes() && out.scalar_type() == at::kFloat,
              "out must be contiguous float32 with x's shape ", x.sizes());
}

void Check(cudaError_t status, const char* op) {
  TORCH_CHECK(status == cudaSuccess, op, ": kernel launch failed: ", cudaGetErrorString(status));
}

// The launch itself succeeds; the fault shows at the caller's next sync.
void CrashIllegalAddress(at::Tensor& out, const at::Tensor& x) {
  CheckCopyArgs(out, x);
  Check(bad_kernels::LaunchCrashIllegalAddress(at::cuda::getCurrentCUDAStream()),
        "crash_illegal_address");
}

void Hang(at::Tensor& out, const at::Tensor& x) {
  CheckCopyArgs(out, x);
  Check(bad_kernels::LaunchHang(at::cuda::getCurrentCUDAStream()), "hang");
}

template <Flaw F>
void RmsNormWith(at::Tensor& out, const at::Tensor& x, double eps) {
  CheckArgs(out, x);
  Check(bad_kernels::LaunchRmsNorm(F, out.data_ptr<float>(),
                                   const_cast<float*>(x.data_ptr<float>()), x.size(0), x.size(1),
                                   static_cast<float>(eps), at::cuda::getCurrentCUDAStream()),
        "rms_norm");
}

void RmsNormMemoized(at::Tensor& out, const at::Tensor& x, double eps) {
  CheckArgs(out, x);
  Check(bad_kernels::LaunchRmsNormMemoized(out.data_ptr<float>(), x.data_ptr<float>(), x.size(0),
                                           x.size(1), static_cast<float>(eps),
                                           at::cuda::getCurrentCUDAStream()),
        "rms_norm_memoized");
}

// Right in tests, wrong in benchmarks (bench_cheats.h).
template <cudaError_t (*LaunchCheat)(float*, float*, int64_t, int64_t, float, cudaStream_t)>
void RmsNormBenchCheat(at::Tensor& out, const at::Tensor& x, double eps) {
  CheckArgs(out, x);
  Check(LaunchCheat(out.data_ptr<float>(), const_cast<float*>(x.data_ptr<float>()), x.size(0),
                    x.size(1), static_cast<float>(eps), at::cuda::getCurrentCUDAStream()),
        "rms_norm bench cheat");
}

// Correct values, but from ATen's kernels: none of this project's ran.
void RmsNormDelegatesToAten(at::Tensor& out, const at::Tensor& x, double eps) {
  CheckArgs(out, x);
  out.copy_(at::rms_norm(x, {x.size(1)}, std::nullopt, eps));
}

template <bad_kernels::InputFlaw F>
void RmsNormInputFlaw(at::Tensor& out, const at::Tensor& x, double eps) {
  CheckArgs(out, x);
  Check(bad_kernels::LaunchRmsNormInputFlaw(F, out.data_ptr<float>(), x.data_ptr<float>(),
                                            x.size(0), x.size(1), static_cast<float>(eps),
                                            at::cuda::getCurrentCUDAStream()),
        "rms_norm");
}

template <bool Stable>
void Softmax(at::Tensor& out, const at::Tensor& x) {
  CheckArgs(out, x);
  Check(bad_kernels::LaunchSoftmax(Stable, out.data_ptr<float>(), x.data_ptr<float>(), x.size(0),
                                   x.size(1), at::cuda::getCurrentCUDAStream()),
        "softmax");
}

}  // namespace

void rms_norm(at::Tensor& out, const at::Tensor& x, double eps) {
  RmsNormWith<Flaw::kNone>(out, x, eps);
}

void copy(at::Tensor& out, const at::Tensor& x) {
  CheckCopyArgs(out, x);
  Check(bad_kernels::LaunchCopy(out.data_ptr<float>(), x.data_ptr<float>(), x.numel(),
                                at::cuda::getCurrentCUDAStream()),
        "copy");
}

// Correct and slow on purpose: what `kbuild profile` must diagnose.
void SlowCopy(at::Tensor& out, const at::Tensor& x) {
  CheckCopyArgs(out, x);
  Check(bad_kernels::LaunchSlowCopy(out.data_ptr<float>(), x.data_ptr<float>(), x.numel(),
                                    at::cuda::getCurrentCUDAStream()),
        "slow_copy");
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("copy(Tensor(a!) out, Tensor x) -> ()");
  ops.impl("copy", c10::kCUDA, &copy);
  ops.def("slow_copy(Tensor(a!) out, Tensor x) -> ()");
  ops.impl("slow_copy", c10::kCUDA, &SlowCopy);
  ops.def("crash_illegal_address(Tensor(a!) out, Tensor x) -> ()");
  ops.impl("crash_illegal_address", c10::kCUDA, &CrashIllegalAddress);
  ops.def("hang(Tensor(a!) out, Tensor x) -> ()");
  ops.impl("hang", c10::kCUDA, &Hang);
  const char* schema = "(Tensor(a!) out, Tensor x, float eps) -> ()";
  for (const char* name :
       {"rms_norm", "rms_norm_skips_last", "rms_norm_misses_tail", "rms_norm_shared_race",
        "rms_norm_nan", "rms_norm_writes_input", "rms_norm_reads_past_end", "rms_norm_side_stream",
        "rms_norm_memoized", "rms_norm_delegates_to_aten", "rms_norm_degrades",
        "rms_norm_nan_large"}) {
    ops.def((std::string(name) + schema).c_str());
  }
  ops.impl("rms_norm", c10::kCUDA, &rms_norm);
  ops.impl("rms_norm_skips_last", c10::kCUDA, &RmsNormWith<Flaw::kSkipsLast>);
  ops.impl("rms_norm_misses_tail", c10::kCUDA, &RmsNormWith<Flaw::kMissesTail>);
  ops.impl("rms_norm_shared_race", c10::kCUDA, &RmsNormWith<Flaw::kSharedRace>);
  ops.impl("rms_norm_nan", c10::kCUDA, &RmsNormWith<Flaw::kProducesNaN>);
  ops.impl("rms_norm_writes_input", c10::kCUDA, &RmsNormWith<Flaw::kWritesInput>);
  ops.impl("rms_norm_reads_past_end", c10::kCUDA, &RmsNormWith<Flaw::kReadsPastEnd>);
  ops.impl("rms_norm_side_stream", c10::kCUDA, &RmsNormWith<Flaw::kSideStream>);
  ops.impl("rms_norm_memoized", c10::kCUDA, &RmsNormMemoized);
  // Wrong only on one input class each (tests/input_classes_test.cpp).
  for (const char* name : {"rms_norm_ignores_eps", "rms_norm_rows_65535", "rms_norm_int32_index"})
    ops.def((std::string(name) + schema).c_str());
  ops.impl("rms_norm_ignores_eps", c10::kCUDA,
           &RmsNormInputFlaw<bad_kernels::InputFlaw::kIgnoresEps>);
  ops.impl("rms_norm_rows_65535", c10::kCUDA,
           &RmsNormInputFlaw<bad_kernels::InputFlaw::kRowsOnGridY>);
  ops.impl("rms_norm_int32_index", c10::kCUDA,
           &RmsNormInputFlaw<bad_kernels::InputFlaw::kInt32Index>);
  ops.def("softmax(Tensor(a!) out, Tensor x) -> ()");
  ops.impl("softmax", c10::kCUDA, &Softmax<true>);
  ops.def("softmax_unstable(Tensor(a!) out, Tensor x) -> ()");
  ops.impl("softmax_unstable", c10::kCUDA, &Softmax<false>);
  ops.impl("rms_norm_delegates_to_aten", c10::kCUDA, &RmsNormDelegatesToAten);
  ops.impl("rms_norm_degrades", c10::kCUDA,
           &RmsNormBenchCheat<bad_kernels::LaunchRmsNormDegrades>);
  ops.impl("rms_norm_nan_large", c10::kCUDA,
           &RmsNormBenchCheat<bad_kernels::LaunchRmsNormNaNLarge>);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
