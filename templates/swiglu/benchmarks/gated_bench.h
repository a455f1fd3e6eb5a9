// Benchmark specs shared by the gated activation templates (swiglu, geglu):
// case.shape is the output's [rows, d]; the op reads gate and up (one
// [rows, 2d] tensor, or two [rows, d]) and writes out, so bytes =
// rows * 3d * element size, the fewest it can move. The baseline is ATen's
// eager act(gate) * up (two kernels: act writes a [rows, d] temporary).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kbuild/harness/benchmark.h"

namespace gated_bench {

using kb::harness::Args;
using Shape = std::vector<int64_t>;

struct GatedBench {
  std::string name;  // BenchSpec.name: the key of benchmarks/peers.py
  std::string op;
  bool pair;        // op(gate, up, extra...), else op(x, gate_first, extra...)
  bool gate_first;  // one-tensor form: which half is the gate
  std::vector<c10::IValue> extra;
  std::function<at::Tensor(const at::Tensor&)> act;  // ATen, for the baseline
  std::vector<Shape> shapes;                          // timed, bf16 and fp16
};

inline double Bytes(const kb::harness::Case& c) {
  return 3.0 * static_cast<double>(c.shape[0]) * static_cast<double>(c.shape[1]) *
         static_cast<double>(at::elementSize(c.dtype));
}

// gate and up of the op's arguments (views of x in the one-tensor form).
inline std::pair<at::Tensor, at::Tensor> GateAndUp(const GatedBench& b, const Args& a) {
  if (b.pair) return {a[0].toTensor(), a[1].toTensor()};
  const at::Tensor& x = a[0].toTensor();
  const int64_t d = x.size(-1) / 2;
  const at::Tensor first = x.narrow(-1, 0, d);
  const at::Tensor second = x.narrow(-1, d, d);
  return b.gate_first ? std::pair{first, second} : std::pair{second, first};
}

inline kb::harness::BenchSpec MakeGatedBench(const GatedBench& b) {
  kb::harness::BenchSpec spec;
  spec.name = b.name;
  spec.op = kb::harness::ProjectOp(b.op);
  spec.cases = kb::harness::MakeCases(b.shapes, {at::kBFloat16, at::kHalf});
  // Odd d, one row: checked (scalar and split paths), not scored.
  for (auto& c : kb::harness::MakeCases({{3, 11}}, {at::kBFloat16}, {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [b](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    Args args;
    if (b.pair) {
      args = {f.Input(s), f.Input(s)};
    } else {
      args = {f.Input({s[0], 2 * s[1]}), b.gate_first};
    }
    for (const auto& e : b.extra) args.push_back(e);
    return args;
  };
  spec.bytes = Bytes;
  spec.reference = [b](const Args& a) {
    const auto [gate, up] = GateAndUp(b, a);
    return std::vector<at::Tensor>{b.act(gate) * up};
  };
  spec.baselines = {
      {"eager act(gate) * up",
       [b](const Args& a) {
         const auto [gate, up] = GateAndUp(b, a);
         return std::vector<at::Tensor>{b.act(gate) * up};
       }},
  };
  return spec;
}

}  // namespace gated_bench
