// swiglu and silu_mul timing on the Qwen3-8B MLP (intermediate 12288:
// [tokens, 2 x 12288] in, [tokens, 12288] out, 1-8192 tokens), bf16 and
// fp16, against ATen's eager silu(gate) * up; benchmarks/peers.py adds
// torch.compile and Liger. Bytes and baseline: benchmarks/gated_bench.h.
// Measured results (H200): the header of {{python_name}}_cuda/swiglu.cu.
#include <ATen/ATen.h>

#include "gated_bench.h"

namespace {

// 1024 tokens: the size whose reads go evict-first (gated_act.cuh).
const std::vector<gated_bench::Shape> kQwen3Mlp = {{1, 12288},    {512, 12288}, {1024, 12288},
                                                   {2048, 12288}, {8192, 12288}};

at::Tensor Silu(const at::Tensor& gate) { return at::silu(gate); }

const bool registered = [] {
  // One [tokens, 2d] tensor (a fused gate_up projection), gate first.
  kb::harness::RegisterBenchmark(
      gated_bench::MakeGatedBench({"swiglu", "swiglu", false, true, {}, Silu, kQwen3Mlp}));
  // Two [tokens, d] tensors (transformers' Qwen3MLP: gate_proj(x), up_proj(x)).
  kb::harness::RegisterBenchmark(
      gated_bench::MakeGatedBench({"silu_mul", "silu_mul", true, true, {}, Silu, kQwen3Mlp}));
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
