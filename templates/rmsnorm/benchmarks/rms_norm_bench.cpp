// rms_norm timing on the Qwen3-8B and LTX-Video shapes, short rows and other
// hidden sizes (bf16; fp16 on a subset) against at::rms_norm and the eager
// composite; benchmarks/peers.py adds torch.compile, Liger and QuACK.
// Bytes = x read + y written + weight. Measured results (H200): the header of
// {{python_name}}_cuda/rms_norm.cu.
#include <ATen/ATen.h>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;

double Bytes(const kb::harness::Case& c) {
  const double elem = c.dtype == at::kFloat ? 4.0 : 2.0;
  return 2.0 * elem * static_cast<double>(c.shape[0] * c.shape[1]) +
         elem * static_cast<double>(c.shape[1]);
}

at::Tensor EagerComposite(const at::Tensor& x, const at::Tensor& w,
                          double eps) {
  const at::Tensor x32 = x.to(at::kFloat);
  return w *
         (x32 * at::rsqrt(x32.pow(2).mean(-1, true) + eps)).to(x.scalar_type());
}

kb::harness::BenchSpec RmsNormBench() {
  kb::harness::BenchSpec spec;
  spec.name = "rms_norm";
  spec.op = kb::harness::ProjectOp("rms_norm");
  // Qwen3-8B (hidden 4096, 128..32768 tokens), LTX-Video (hidden 2048: 1024..8192 rows; hidden
  // 3072: 2x4096 and 4x4096), one large shape; short rows (video QK-norm [27030 * 24, 128] and
  // [8192 * 16, 64]: several rows per warp); hidden 5120 (Qwen3-14B/32B), 7168 (DeepSeek-V3)
  // and 2047 (odd: scalar accesses). bf16; fp16 on a subset (the same bytes).
  spec.cases = kb::harness::MakeCases({{128, 4096},
                                       {512, 4096},
                                       {1024, 4096},
                                       {2048, 4096},
                                       {4096, 4096},
                                       {8192, 4096},
                                       {32768, 4096},
                                       {1024, 2048},
                                       {2048, 2048},
                                       {4096, 2048},
                                       {8192, 2048},
                                       {8192, 3072},
                                       {16384, 3072},
                                       {32768, 8192},
                                       {27030 * 24, 128},
                                       {8192 * 16, 64},
                                       {4096, 5120},
                                       {4096, 7168},
                                       {4096, 2047}},
                                      {at::kBFloat16});
  for (auto& c : kb::harness::MakeCases(
           {{128, 4096}, {2048, 4096}, {32768, 4096}, {4096, 2048},
            {27030 * 24, 128}, {8192 * 16, 64}},
           {at::kHalf})) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases({{1, 4096}}, {at::kBFloat16},
                                        {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[1]}), 1e-6};
  };
  spec.bytes = Bytes;
  spec.baselines = {
      {"at::rms_norm",
       [](const Args& a) {
         const at::Tensor& x = a[0].toTensor();
         return std::vector<at::Tensor>{
             at::rms_norm(x, {x.size(-1)}, a[1].toTensor(), a[2].toDouble())};
       }},
      {"eager composite",
       [](const Args& a) {
         return std::vector<at::Tensor>{
             EagerComposite(a[0].toTensor(), a[1].toTensor(), a[2].toDouble())};
       }},
  };
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(RmsNormBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
