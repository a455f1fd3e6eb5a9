// gated_residual timing on LTX-Video's shapes (ltx_cases.h), gate per sample
// and per token (a chunk of [b, tokens, 6, hidden], as LTX-Video slices
// temb), against the eager expression diffusers runs; benchmarks/peers.py
// adds torch.compile. Registered into the binary whose main is in
// adaptive_norm_bench.cpp. Measured results (H200): the header of
// {{python_name}}_cuda/gated_residual.cu.
//
// Bytes = x and y read + out written + gate read once per row that needs its
// own (per sample: hidden per sample; per token: hidden per row).
#include <ATen/ATen.h>

#include <string>

#include "../tests/references.h"
#include "kbuild/harness/benchmark.h"
#include "ltx_cases.h"

namespace {

using kb::harness::Args;
using kb::harness::Case;

double Bytes(const Case& c, bool per_token) {
  const double hidden = static_cast<double>(c.shape[2]);
  return ElementBytes(c) * (3.0 * Rows(c) * hidden + ModulationRows(c, per_token) * hidden);
}

kb::harness::BenchSpec GatedResidualBench(const std::string& name, bool per_token) {
  kb::harness::BenchSpec spec;
  spec.name = name;
  spec.op = kb::harness::ProjectOp("gated_residual");
  spec.cases = LtxCases();
  spec.make_args = [per_token](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor gate =
        per_token ? f.Param({s[0], s[1], 6, s[2]}).select(2, 2) : f.Param({s[0], s[2]});
    return Args{f.Input(s), f.Input(s), gate};
  };
  spec.bytes = [per_token](const Case& c) { return Bytes(c, per_token); };
  spec.reference = [](const Args& a) {
    return GatedResidualReference(a[0].toTensor(), a[1].toTensor(), a[2].toTensor());
  };
  // diffusers: hidden_states + attn_hidden_states * gate_msa.
  spec.baselines = {{"eager composite (x + y * gate)", [](const Args& a) {
                       return GatedResidualReference(a[0].toTensor(), a[1].toTensor(),
                                                     a[2].toTensor());
                     }}};
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(GatedResidualBench("gated_residual", false));
  kb::harness::RegisterBenchmark(GatedResidualBench("gated_residual_per_token", true));
  return true;
}();

}  // namespace
