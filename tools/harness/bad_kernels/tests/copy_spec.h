// Copy's contract (out = x, fp32) as a harness spec, shared by the tests of
// the correct copy op and of the ops that fault or hang while claiming it.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "kbuild/harness/op_test.h"

namespace bad_kernels_tests {

inline kb::harness::OpSpec CopySpec(const std::string& op, std::vector<kb::harness::Case> cases) {
  kb::harness::OpSpec spec;
  spec.op = kb::harness::ProjectOp(op);
  spec.cases = std::move(cases);
  spec.make_args = [](kb::harness::ArgFactory& f) {
    return kb::harness::Args{f.Output(f.test_case().shape), f.Input(f.test_case().shape)};
  };
  spec.reference = [](const kb::harness::Args& a) {
    return std::vector<at::Tensor>{a[1].toTensor()};
  };
  return spec;
}

}  // namespace bad_kernels_tests
