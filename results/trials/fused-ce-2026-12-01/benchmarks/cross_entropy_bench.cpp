// cross_entropy timing on Qwen3-8B's LM-head output (vocab 151936) at 1,
// 512, 2048 and 8192 tokens, bf16 and fp32, against ATen's
// at::cross_entropy_loss (F.cross_entropy eager: log_softmax written out,
// then nll_loss); benchmarks/peers.py adds torch.compile and Liger.
// Bytes = the fewest the op must move: every logit read once + the int64
// targets read + the float32 losses written (no target is ignore_index
// here, so every row is read). Results (H200): the header of
// fused_ce_cuda/cross_entropy.cu.
#include <ATen/ATen.h>
#include <ATen/core/Reduction.h>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;
constexpr int64_t kQwen = 151936;
constexpr int64_t kIgnore = -100;

double Bytes(const kb::harness::Case& c) {
  const double elem = c.dtype == at::kFloat ? 4.0 : 2.0;
  const double rows = static_cast<double>(c.shape[0]);
  const double cols = static_cast<double>(c.shape[1]);
  return rows * cols * elem + rows * (8.0 + 4.0);
}

kb::harness::BenchSpec CrossEntropyBench() {
  kb::harness::BenchSpec spec;
  spec.name = "cross_entropy";
  spec.op = kb::harness::ProjectOp("cross_entropy");
  spec.cases = kb::harness::MakeCases(
      {{1, kQwen}, {512, kQwen}, {2048, kQwen}, {8192, kQwen}},
      {at::kBFloat16, at::kFloat});
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    // Random classes in [0, vocab) from a seeded input: none ignored.
    const at::Tensor u = f.Input({s[0]}, at::kFloat).to(at::kDouble);
    const at::Tensor t = ((u.abs() * 7919.0).frac() * static_cast<double>(s[1]))
                             .floor()
                             .to(at::kLong)
                             .clamp(0, s[1] - 1)
                             .contiguous();
    return Args{f.Input(s), t, kIgnore};
  };
  spec.bytes = Bytes;
  spec.reference = [](const Args& a) {  // float64, on the GPU
    const at::Tensor x = a[0].toTensor().to(at::kDouble);
    const at::Tensor t = a[1].toTensor();
    const at::Tensor picked = x.gather(-1, t.unsqueeze(-1)).squeeze(-1);
    return std::vector<at::Tensor>{at::logsumexp(x, {-1}) - picked};
  };
  spec.baselines = {
      {"F.cross_entropy",
       [](const Args& a) {
         return std::vector<at::Tensor>{at::cross_entropy_loss(
             a[0].toTensor(), a[1].toTensor(), {}, at::Reduction::None, kIgnore, 0.0)};
       }},
  };
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(CrossEntropyBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
