// RMS normalization without a weight (out = x * rsqrt(mean(x^2) + 1e-6),
// fp32) as a harness spec, shared by the tests and benchmarks of the correct
// rms_norm and of every op that claims its schema.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "kbuild/harness/benchmark.h"
#include "kbuild/harness/op_test.h"

namespace bad_kernels_tests {

inline kb::harness::OpSpec RmsNormSpec(const std::string& op,
                                       std::vector<kb::harness::Case> cases) {
  kb::harness::OpSpec spec;
  spec.op = kb::harness::ProjectOp(op);
  spec.cases = std::move(cases);
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return kb::harness::Args{f.Output(s), f.Input(s), 1e-6};
  };
  spec.reference = [](const kb::harness::Args& a) {
    const at::Tensor x = a[1].toTensor();
    return std::vector<at::Tensor>{x * at::rsqrt(x.pow(2).mean(-1, true) + a[2].toDouble())};
  };
  return spec;
}

// The same op timed on one fp32 shape; bytes = x read + out written.
inline kb::harness::BenchSpec RmsNormBenchSpec(const std::string& op,
                                               std::vector<std::int64_t> shape) {
  const kb::harness::OpSpec check = RmsNormSpec(op, {});
  kb::harness::BenchSpec spec;
  spec.op = check.op;
  spec.cases = kb::harness::MakeCases({std::move(shape)}, {at::kFloat});
  spec.make_args = check.make_args;
  spec.reference = check.reference;
  spec.bytes = [](const kb::harness::Case& c) {
    return 2.0 * 4.0 * static_cast<double>(c.shape[0] * c.shape[1]);
  };
  return spec;
}

}  // namespace bad_kernels_tests
