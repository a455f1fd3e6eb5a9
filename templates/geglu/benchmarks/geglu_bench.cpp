// geglu and gelu_mul timing on LTX-Video-sized activations, bf16 and fp16,
// against ATen's eager gelu(gate) * up; benchmarks/peers.py adds
// torch.compile and Liger. LTX-Video (diffusers' LTXVideoTransformer3DModel:
// hidden 2048, FeedForward inner dim 4 x 2048 = 8192) at 768x512: latents
// 24 x 16 per frame (32x spatial VAE compression), (frames - 1) / 8 + 1 latent
// frames, patch 1: 2688 tokens at 49 frames, 6144 at 121, 12288 for a batch of
// two 121-frame videos. LTX-Video's own FeedForward is ungated
// (activation_fn "gelu-approximate": GELU(2048, 8192, approximate="tanh")),
// so these are its sizes as a GEGLU of the same inner width sees them: input
// [tokens, 2 x 8192]. Bytes and baseline: benchmarks/gated_bench.h.
// Measured results (H200): the header of {{python_name}}_cuda/geglu.cu.
#include <ATen/ATen.h>

#include <string>

#include "gated_bench.h"

namespace {

const std::vector<gated_bench::Shape> kLtxVideo = {{512, 8192}, {2688, 8192}, {6144, 8192},
                                                   {12288, 8192}};

std::function<at::Tensor(const at::Tensor&)> Gelu(const std::string& approximate) {
  return [approximate](const at::Tensor& gate) { return at::gelu(gate, approximate); };
}

const bool registered = [] {
  using gated_bench::MakeGatedBench;
  const c10::IValue none(std::string("none"));
  const c10::IValue tanh(std::string("tanh"));
  // diffusers' GEGLU order (hidden_states, gate = chunk(2)): gate second, erf.
  kb::harness::RegisterBenchmark(
      MakeGatedBench({"geglu", "geglu", false, false, {none}, Gelu("none"), kLtxVideo}));
  // Liger's LigerGELUMulFunction computes the tanh form: gate first.
  kb::harness::RegisterBenchmark(
      MakeGatedBench({"geglu_tanh", "geglu", false, true, {tanh}, Gelu("tanh"), kLtxVideo}));
  kb::harness::RegisterBenchmark(
      MakeGatedBench({"gelu_mul_tanh", "gelu_mul", true, true, {tanh}, Gelu("tanh"), kLtxVideo}));
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
