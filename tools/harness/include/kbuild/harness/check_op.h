// CheckOp: the correctness check every kernel test goes through.
//
//   kb::harness::OpSpec spec;
//   spec.op = kb::harness::ProjectOp("rms_norm");
//   spec.cases = kb::harness::MakeCases(kb::harness::EdgeRowShapes(), {at::kBFloat16, at::kFloat});
//   spec.make_args = [](kb::harness::ArgFactory& f) {
//     auto& s = f.test_case().shape;
//     return kb::harness::Args{f.Output(s), f.Input(s), f.Param({s[1]}), 1e-6};
//   };
//   spec.reference = [](const kb::harness::Args& a) {  // float64, op's device
//     auto x = a[1].toTensor();
//     return std::vector<at::Tensor>{x * at::rsqrt(x.pow(2).mean(-1, true) + a[3].toDouble()) *
//     a[2].toTensor()};
//   };
//   EXPECT_TRUE(kb::harness::CheckOp(spec).passed());   // or KB_OP_TEST in op_test.h
//
// Per case and trial (fresh seeded inputs each time): call through the
// dispatcher, check CUDA errors, late writes from other streams, changed
// inputs, writes outside outputs, unwritten (poisoned) output elements,
// NaN/Inf, then values against the float64 reference. docs/harness.md has
// the details and the JSON record written to KBUILD_TEST_JSON.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kbuild/harness/arg_factory.h"
#include "kbuild/harness/case.h"
#include "kbuild/harness/dispatch.h"
#include "kbuild/harness/results.h"

namespace kb::harness {

struct OpSpec {
  std::string test;  // report name; defaults to op
  std::string op;    // "<namespace>::<op>"; see ProjectOp
  std::vector<Case> cases;
  // The op's full argument list for one trial; tensors come from the factory.
  std::function<Args(ArgFactory&)> make_args;
  // Gets the args as they were before the call: floating tensors as float64
  // contiguous copies on the op's device, outputs zero-filled. Returns the
  // expected values of the compared tensors: Output and InPlace args in
  // argument order, then the tensors the op returns. Write it
  // device-agnostically: make new tensors from the args (x.new_zeros({n}),
  // at::zeros({n}, x.options())), never at::zeros({n}), which is on the CPU.
  std::function<std::vector<at::Tensor>(const Args&)> reference;
  int trials = 3;
  at::Device device = at::kCUDA;
  std::optional<Tolerance> tolerance;  // whole-spec override; a case's own wins
  // The op calls a library (cuBLAS, ATen, Triton) or launches nothing (a view)
  // on purpose. Otherwise a call that launches no kernel of the project's own
  // library fails (FailReason::kNoProjectKernel; launch_record.h).
  bool wraps_library = false;
};

struct OpReport {
  std::vector<TestRecord> records;  // one per case
  bool passed() const;
  std::string Describe() const;  // one line per case, then failure messages
};

// Never throws for op failures: they become failed records. Appends one JSON
// line per case to $KBUILD_TEST_JSON when set. KBUILD_SEED sets the base seed.
OpReport CheckOp(const OpSpec& spec);

}  // namespace kb::harness
