// layer_norm timing against at::layer_norm (bf16; fp16 on a subset), in two
// forms: with weight and bias of x's dtype (eps 1e-5), and without them, as
// LTX-Video's transformer norms (elementwise_affine=False, eps 1e-6).
// benchmarks/peers.py adds torch.compile, Liger and QuACK. Bytes = x read +
// y written + the weight and bias once. Measured results (H200): the header
// of {{python_name}}_cuda/layer_norm.cu.
#include <ATen/ATen.h>

#include <string>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;

// Shapes: rows x hidden.
//   LTX-Video, hidden 2048: 768x512 latents with 121 frames are 24 x 16 x 16
//   = 6144 tokens (32x spatial, 8x temporal compression), batch 1 and 2; 49
//   frames are 24 x 16 x 7 = 2688.
//   Hidden 4096 (Qwen3-8B's width; Qwen3 itself uses RMSNorm) at 1024-32768
//   rows; 2047, odd: rows start off 16-byte boundaries (split rows).
std::vector<std::vector<int64_t>> LtxShapes() {
  return {{2688, 2048}, {6144, 2048}, {2 * 6144, 2048}};
}
std::vector<std::vector<int64_t>> Hidden4096Shapes() {
  return {{1024, 4096}, {2048, 4096}, {4096, 4096}, {8192, 4096}, {16384, 4096}, {32768, 4096}};
}

// at::layer_norm over the last dimension, weight and bias None or tensors.
std::vector<at::Tensor> AtLayerNorm(const Args& a) {
  const at::Tensor& x = a[0].toTensor();
  const auto param = [&](size_t i) {
    return a[i].isNone() ? std::optional<at::Tensor>() : a[i].toTensor();
  };
  return {at::layer_norm(x, {x.size(-1)}, param(1), param(2), a[3].toDouble())};
}

double ElementBytes(at::ScalarType t) { return t == at::kFloat ? 4.0 : 2.0; }

// params: how many per-column parameters (weight, bias) of x's dtype.
kb::harness::BenchSpec LayerNormBench(const std::string& name, int params, double eps) {
  kb::harness::BenchSpec spec;
  spec.name = name;
  spec.op = kb::harness::ProjectOp("layer_norm");
  auto shapes = LtxShapes();
  for (auto& s : Hidden4096Shapes()) shapes.push_back(s);
  shapes.push_back({4096, 2047});
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16});
  for (auto& c : kb::harness::MakeCases(
           {{6144, 2048}, {2 * 6144, 2048}, {2048, 4096}, {32768, 4096}, {4096, 2047}},
           {at::kHalf})) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases({{1, 4096}, {3, 2047}}, {at::kBFloat16},
                                        {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [params, eps](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    c10::IValue w, b;  // None
    if (params == 2) {
      w = f.Param({s[1]});
      b = f.Param({s[1]});
    }
    return Args{f.Input(s), w, b, eps};
  };
  spec.bytes = [params](const kb::harness::Case& c) {
    const double elem = ElementBytes(c.dtype);
    return 2.0 * elem * static_cast<double>(c.shape[0] * c.shape[1]) +
           params * elem * static_cast<double>(c.shape[1]);
  };
  spec.reference = AtLayerNorm;  // on float64 copies
  spec.baselines = {{"at::layer_norm", AtLayerNorm}};
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(LayerNormBench("layer_norm", 2, 1e-5));
  kb::harness::RegisterBenchmark(LayerNormBench("layer_norm_no_affine", 0, 1e-6));
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
