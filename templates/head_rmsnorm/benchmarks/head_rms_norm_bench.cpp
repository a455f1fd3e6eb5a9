// head_rms_norm timing (bf16): video QK-norm [27030 * 24, 128] and Qwen3-8B
// q/k heads, against at::rms_norm over the last dimension. Bytes = x read + y
// written + weight. measured (H200, 2026-12-03, two rows a group): [8192*16, 64]
// bf16 12.0 us (67% of copy), 7.1x at::rms_norm; [27030*24, 128] 81.4 us (97.6%).
#include <ATen/ATen.h>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;

kb::harness::BenchSpec HeadBench() {
  kb::harness::BenchSpec spec;
  spec.name = "head_rms_norm";
  spec.op = kb::harness::ProjectOp("head_rms_norm");
  spec.cases = kb::harness::MakeCases({{27030, 24, 128},
                                       {4096, 32, 128},
                                       {4096, 8, 128},
                                       {8192, 16, 64},
                                       {4096, 16, 256}},
                                      {at::kBFloat16});
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[2]}), 1e-6};
  };
  spec.bytes = [](const kb::harness::Case& c) {
    return 2.0 * 2.0 *
               static_cast<double>(c.shape[0] * c.shape[1] * c.shape[2]) +
           2.0 * static_cast<double>(c.shape[2]);
  };
  spec.baselines = {
      {"at::rms_norm",
       [](const Args& a) {
         const at::Tensor& x = a[0].toTensor();
         return std::vector<at::Tensor>{
             at::rms_norm(x, {x.size(-1)}, a[1].toTensor(), a[2].toDouble())};
       }},
  };
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(HeadBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
