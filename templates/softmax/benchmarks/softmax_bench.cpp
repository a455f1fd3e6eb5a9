// softmax timing on attention-probability, vocabulary and LLM shapes (bf16,
// fp16, fp32) against at::softmax (F.softmax eager); benchmarks/peers.py adds
// torch.compile, Liger and QuACK. Bytes = x read once + y written once.
// Measured results (H200): the header of {{python_name}}_cuda/softmax.cu.
#include <ATen/ATen.h>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;

double Bytes(const kb::harness::Case& c) {
  const double elem = c.dtype == at::kFloat ? 4.0 : 2.0;
  return 2.0 * elem * static_cast<double>(c.shape[0] * c.shape[1]);
}

kb::harness::BenchSpec SoftmaxBench() {
  kb::harness::BenchSpec spec;
  spec.name = "softmax";
  spec.op = kb::harness::ProjectOp("softmax");
  // rows x cols. Attention probabilities: Qwen3-8B (32 query heads) at 2048
  // tokens, batch 8 ([8 * 32 * 2048, 2048]: 2 GiB of bf16 each way) and 1;
  // LTX-Video (32 heads) at 768x512, 49 frames (latent 24 x 16 x 7: 2688
  // tokens) and 121 frames (24 x 16 x 16: 6144 tokens). Vocabulary rows:
  // Qwen3 151936 at 32 and 128 tokens (a cluster of 8 / one block per
  // row). 32K contexts: 2048 x 32768 (a block per row, 8 vectors each).
  // Square and short rows: 4096 x 4096, 16384 x 1024 (a warp per row),
  // 65536 x 128 (16 lanes). bf16; fp16 and fp32 on a subset.
  const std::vector<std::vector<int64_t>> shapes = {
      {4096, 4096},       {32, 151936},       {128, 151936},
      {2048, 32768},      {16384, 1024},      {8 * 32 * 2048, 2048},
      {32 * 2048, 2048},  {32 * 2688, 2688},  {32 * 6144, 6144},
      {65536, 128}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16});
  for (auto& c : kb::harness::MakeCases(
           {{4096, 4096}, {32, 151936}, {2048, 32768}, {16384, 1024},
            {8 * 32 * 2048, 2048}},
           {at::kHalf, at::kFloat})) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases({{1, 4096}}, {at::kBFloat16},
                                        {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [](kb::harness::ArgFactory& f) {
    return Args{f.Input(f.test_case().shape)};
  };
  spec.bytes = Bytes;
  spec.baselines = {
      {"at::softmax",
       [](const Args& a) {
         return std::vector<at::Tensor>{at::softmax(a[0].toTensor(), -1)};
       }},
  };
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(SoftmaxBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
