// linear_gelu timing against what PyTorch does today, eager: cuBLAS's fp32
// SGEMM with TF32 off through at::addmm (bias), then at::gelu(approximate =
// "tanh"): two launches and one [M, N] round trip through memory.
// benchmarks/peers.py adds torch.compile of the same composite (inductor may
// fuse the GELU into a Triton epilogue or call cuBLAS + a fused pointwise).
// Shapes (M x N x K): the user's three, 4096x1024x8192, 2048x8192x4096 and
// 1000x1000x1000 (tiles fewer than the SMs: the small tile), plus a
// decode-like 16x4096x4096 (few-rows path) and one odd correctness-only case.
// FLOPs = 2 * M * N * K + M * N (the bias; the GELU's own arithmetic is not
// counted), reported as TFLOP/s against the fp32 CUDA-core peak. Bytes =
// x + w + y + bias, each once (GemmBytes, gemm_plan.h).
// Target: >= 0.9x the composite on the user's three shapes.
// NOT measured yet (written without a GPU).
#include <ATen/ATen.h>
#include <ATen/Context.h>

#include "../linear_gelu_cuda/gemm_plan.h"
#include "../tests/linear_gelu_cases.h"
#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;
using kb::harness::Case;

// [M, N, K]
const std::vector<std::vector<int64_t>> kShapes = {
    {4096, 1024, 8192}, {2048, 8192, 4096}, {1000, 1000, 1000}, {16, 4096, 4096}};

// cuBLAS SGEMM as the baseline must not use TF32: the torch 2.9+ fp32
// precision setting (cuda, matmul) = IEEE, the same setting
// benchmarks/peers.py makes for torch.compile.
void DisableTf32() {
  at::globalContext().setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL,
                                          at::Float32Precision::IEEE);
}

kb::harness::BenchSpec LinearGeluBench() {
  kb::harness::BenchSpec spec;
  spec.name = "linear_gelu";
  spec.op = kb::harness::ProjectOp("linear_gelu");
  spec.cases = kb::harness::MakeCases(kShapes, {at::kFloat});
  for (auto& c :
       kb::harness::MakeCases({{1001, 999, 1003}}, {at::kFloat}, {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.cases = WithLinearGeluTolerance(spec.cases);
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input({s[0], s[2]}), f.Input({s[2], s[1]}), f.Param({s[1]})};
  };
  spec.bytes = [](const Case& c) {
    return linear_gelu_cuda::GemmBytes(c.shape[0], c.shape[1], c.shape[2], true);
  };
  spec.flops = [](const Case& c) {
    const double mn = static_cast<double>(c.shape[0]) * static_cast<double>(c.shape[1]);
    return 2.0 * mn * static_cast<double>(c.shape[2]) + mn;
  };
  // "% of peak" against the CUDA cores' fp32 peak; faster than it would mean TF32.
  spec.compute_unit = kb::harness::ComputeUnit::kFp32CudaCores;
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{
        LinearGeluReference(a[0].toTensor(), a[1].toTensor(), a[2])};
  };
  spec.baselines = {
      {"at::addmm + at::gelu(tanh) (cuBLAS SGEMM, TF32 off, eager)", [](const Args& a) {
         const at::Tensor& x = a[0].toTensor();
         const at::Tensor& w = a[1].toTensor();
         return std::vector<at::Tensor>{
             at::gelu(at::addmm(a[2].toTensor(), x, w), "tanh")};
       }}};
  return spec;
}

const bool registered = [] {
  DisableTf32();
  kb::harness::RegisterBenchmark(LinearGeluBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
