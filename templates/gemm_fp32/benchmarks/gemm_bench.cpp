// gemm timing against cuBLAS's fp32 SGEMM (at::mm with TF32 off) on square,
// tall and wide shapes and two decode-like ones (1 and 16 rows, the
// few-rows path); benchmarks/peers.py adds torch.compile. FLOPs = 2 * M * N
// * K (+ M * N with bias), reported as TFLOP/s; the target is the H200's
// fp32 CUDA-core peak (~67 TFLOP/s, README.md). Bytes = A + B + C (+ bias),
// each once (GemmBytes, gemm_plan.h: the launcher looks up tuned_config.h
// by the same count), so kbuild bench's % of copy shows how far from
// memory-bound a shape is (1x4096x4096 and 16x4096x4096 are: 64 MB of B).
// Measured results (H200): the header of {{python_name}}_cuda/gemm.cu.
#include <ATen/ATen.h>
#include <ATen/Context.h>

#include "../tests/gemm_cases.h"
#include "../{{python_name}}_cuda/gemm_plan.h"
#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;
using kb::harness::Case;

// [M, N, K]
const std::vector<std::vector<int64_t>> kShapes = {{4096, 1024, 8192}, {8192, 8192, 8192},
                                                   {1000, 1000, 1000}, {4096, 4096, 4096},
                                                   {2048, 8192, 1024}, {1, 4096, 4096},
                                                   {16, 4096, 4096}};

// cuBLAS SGEMM as the baseline must not use TF32. One API sets that: the
// torch 2.9+ fp32 precision setting (cuda, matmul) = IEEE, the same setting
// benchmarks/peers.py makes for torch.compile (inductor reads it; the legacy
// allow_tf32 flags are deprecated, and torch refuses a mix of the two).
void DisableTf32() {
  at::globalContext().setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL,
                                          at::Float32Precision::IEEE);
}

kb::harness::BenchSpec GemmBench(bool bias) {
  kb::harness::BenchSpec spec;
  spec.name = bias ? "gemm_bias" : "gemm";
  spec.op = kb::harness::ProjectOp("gemm");
  spec.cases = bias ? kb::harness::MakeCases({{4096, 4096, 4096}, {4096, 1024, 8192}}, {at::kFloat})
                    : kb::harness::MakeCases(kShapes, {at::kFloat});
  for (auto& c : kb::harness::MakeCases({{7, 13, 5}}, {at::kFloat}, {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.cases = WithGemmTolerance(spec.cases);
  spec.make_args = [bias](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    c10::IValue b;  // None
    if (bias) b = f.Param({s[1]});
    return Args{f.Input({s[0], s[2]}), f.Input({s[2], s[1]}), b};
  };
  spec.bytes = [bias](const Case& c) {
    return {{python_name}}_cuda::GemmBytes(c.shape[0], c.shape[1], c.shape[2], bias);
  };
  spec.flops = [bias](const Case& c) {
    const double mn = static_cast<double>(c.shape[0]) * static_cast<double>(c.shape[1]);
    return 2.0 * mn * static_cast<double>(c.shape[2]) + (bias ? mn : 0.0);
  };
  // "% of peak" against the CUDA cores' fp32 peak; faster than it would mean TF32.
  spec.compute_unit = kb::harness::ComputeUnit::kFp32CudaCores;
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{GemmReference(a[0].toTensor(), a[1].toTensor(), a[2])};
  };
  spec.baselines = {
      {bias ? "at::addmm (cuBLAS SGEMM, TF32 off)" : "at::mm (cuBLAS SGEMM, TF32 off)",
       [](const Args& a) {
         const at::Tensor& x = a[0].toTensor();
         const at::Tensor& w = a[1].toTensor();
         return std::vector<at::Tensor>{a[2].isNone() ? at::mm(x, w)
                                                      : at::addmm(a[2].toTensor(), x, w)};
       }}};
  return spec;
}

const bool registered = [] {
  DisableTf32();
  kb::harness::RegisterBenchmark(GemmBench(false));
  kb::harness::RegisterBenchmark(GemmBench(true));
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
