// adaptive_norm timing on LTX-Video's shapes (ltx_cases.h): RMSNorm with
// per-sample modulation (LTX-Video's blocks when every token shares the
// timestep), per token (chunks of [b, tokens, 6, hidden], as LTX-Video
// slices temb when timesteps differ per token), and LayerNorm per sample
// (its final norm; DiT / PixArt blocks). Baselines: the eager composites
// diffusers runs; benchmarks/peers.py adds torch.compile. Measured results
// (H200): the header of {{python_name}}_cuda/adaptive_norm.cu. The benchmark
// binary's main is here; gated_residual_bench.cpp only registers.
//
// Bytes = x read + y written + scale and shift read once per row that needs
// its own: per sample 2 * hidden per sample, per token 2 * hidden per row.
#include <ATen/ATen.h>

#include <string>

#include "../tests/references.h"
#include "kbuild/harness/benchmark.h"
#include "ltx_cases.h"

namespace {

using kb::harness::Args;
using kb::harness::Case;

constexpr double kEps = 1e-6;

double Bytes(const Case& c, bool per_token) {
  const double hidden = static_cast<double>(c.shape[2]);
  return ElementBytes(c) * (2.0 * Rows(c) * hidden + 2.0 * ModulationRows(c, per_token) * hidden);
}

// diffusers' RMSNorm without weight: float32 statistics, rounded to x's
// dtype; then the modulation in x's dtype.
at::Tensor DiffusersRmsNorm(const at::Tensor& x, double eps) {
  const at::Tensor variance = x.to(at::kFloat).pow(2).mean(-1, true);
  return (x * at::rsqrt(variance + eps)).to(x.scalar_type());
}

at::Tensor Modulated(const at::Tensor& n, const at::Tensor& scale, const at::Tensor& shift) {
  return n * (1 + Broadcastable(scale)) + Broadcastable(shift);
}

// norm: "rms" or "layer"; per_token: chunks of [b, tokens, 6, hidden] (shift
// 0, scale 1), else [b, hidden].
kb::harness::BenchSpec AdaptiveNormBench(const std::string& name, const std::string& norm,
                                         bool per_token) {
  kb::harness::BenchSpec spec;
  spec.name = name;
  spec.op = kb::harness::ProjectOp("adaptive_norm");
  spec.cases = LtxCases();
  spec.make_args = [norm, per_token](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    if (per_token) {
      const at::Tensor table = f.Param({s[0], s[1], 6, s[2]});
      return Args{f.Input(s), table.select(2, 1), table.select(2, 0), norm, kEps};
    }
    return Args{f.Input(s), f.Param({s[0], s[2]}), f.Param({s[0], s[2]}), norm, kEps};
  };
  spec.bytes = [per_token](const Case& c) { return Bytes(c, per_token); };
  spec.reference = [](const Args& a) {
    return AdaptiveNormReference(a[0].toTensor(), a[1].toTensor(), a[2].toTensor(),
                                 a[3].toStringRef(), a[4].toDouble());
  };
  if (norm == "layer") {
    spec.baselines = {{"at::layer_norm + modulate", [](const Args& a) {
                         const at::Tensor& x = a[0].toTensor();
                         return std::vector<at::Tensor>{
                             Modulated(at::layer_norm(x, {x.size(-1)}, {}, {}, kEps),
                                       a[1].toTensor(), a[2].toTensor())};
                       }}};
  } else {
    spec.baselines = {
        {"eager composite (diffusers RMSNorm + modulate)",
         [](const Args& a) {
           return std::vector<at::Tensor>{Modulated(DiffusersRmsNorm(a[0].toTensor(), kEps),
                                                    a[1].toTensor(), a[2].toTensor())};
         }},
        {"at::rms_norm + modulate", [](const Args& a) {
           const at::Tensor& x = a[0].toTensor();
           return std::vector<at::Tensor>{Modulated(at::rms_norm(x, {x.size(-1)}, {}, kEps),
                                                    a[1].toTensor(), a[2].toTensor())};
         }}};
  }
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(AdaptiveNormBench("adaptive_norm_rms", "rms", false));
  kb::harness::RegisterBenchmark(AdaptiveNormBench("adaptive_norm_rms_per_token", "rms", true));
  kb::harness::RegisterBenchmark(AdaptiveNormBench("adaptive_norm_layer", "layer", false));
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
