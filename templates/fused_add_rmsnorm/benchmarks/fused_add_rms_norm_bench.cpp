// fused_add_rms_norm timing on Qwen3-8B decoder shapes, short rows and other
// hidden sizes (bf16; fp16 on two) against the unfused add + at::rms_norm;
// benchmarks/peers.py adds torch.compile, Liger and QuACK. Bytes = x and
// residual read, both written, + weight. measured (H200, 2026-11-30):
// 8192x4096 bf16 68.6 us (92.8% of copy), 1.41x add_ + at::rms_norm.
#include <ATen/ATen.h>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;

kb::harness::BenchSpec FusedBench() {
  kb::harness::BenchSpec spec;
  spec.name = "fused_add_rms_norm";
  spec.op = kb::harness::ProjectOp("fused_add_rms_norm");
  // Qwen3-8B (hidden 4096); short rows ([27030 * 24, 128], [8192 * 16, 64]:
  // several rows per warp); hidden 5120 (Qwen3-14B/32B), 7168 (DeepSeek-V3)
  // and 2047 (odd: scalar accesses).
  spec.cases = kb::harness::MakeCases({{128, 4096},
                                       {2048, 4096},
                                       {8192, 4096},
                                       {27030 * 24, 128},
                                       {8192 * 16, 64},
                                       {4096, 5120},
                                       {4096, 7168},
                                       {4096, 2047}},
                                      {at::kBFloat16});
  for (auto& c : kb::harness::MakeCases({{2048, 4096}, {27030 * 24, 128}},
                                        {at::kHalf})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.InPlace(s), f.InPlace(s), f.Param({s[1]}), 1e-6};
  };
  spec.bytes = [](const kb::harness::Case& c) {
    return 4.0 * 2.0 * static_cast<double>(c.shape[0] * c.shape[1]) +
           2.0 * static_cast<double>(c.shape[1]);
  };
  spec.baselines = {
      {"add_ + at::rms_norm",
       [](const Args& a) {
         at::Tensor residual = a[1].toTensor();
         residual.add_(a[0].toTensor());
         // Compared as the op's x (normed) and residual (the sum).
         return std::vector<at::Tensor>{
             at::rms_norm(residual, {residual.size(-1)}, a[2].toTensor(),
                          a[3].toDouble()),
             residual};
       }},
  };
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(FusedBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
