// RoundToCaseDtype: a reference can round an intermediate to the case's dtype
// while the harness computes it (check_op's trials and bench value checks),
// and nowhere else.
#include "kbuild/harness/reference_case.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "cpu_ops.h"
#include "kbuild/harness/op_test.h"

namespace kb::harness {
namespace {

TEST(ReferenceCase, RoundsToTheCaseDtypeInsideTheScopeOnly) {
  EXPECT_THROW(CaseDtype(), std::logic_error);
  const at::Tensor x = at::full({2}, 1.0 + std::ldexp(1.0, -10), at::kDouble);
  Case bf16;
  bf16.dtype = at::kBFloat16;
  {
    const ReferenceCaseScope scope(bf16);
    EXPECT_EQ(CaseDtype(), at::kBFloat16);
    const at::Tensor rounded = RoundToCaseDtype(x);
    EXPECT_EQ(rounded.scalar_type(), at::kDouble) << "returned in the reference's own dtype";
    EXPECT_EQ(rounded[0].item<double>(), 1.0) << "bf16 keeps 8 bits: 1 + 2^-10 rounds to 1";
  }
  EXPECT_THROW(RoundToCaseDtype(x), std::logic_error) << "the scope ended";
}

TEST(ReferenceCase, CheckOpNamesEachCaseToItsReference) {
  OpSpec spec;
  spec.op = "kbh_test::rms_norm";
  spec.device = at::kCPU;
  spec.cases = MakeCases({{7, 33}}, {at::kBFloat16, at::kFloat});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Output(s), f.Input(s), f.Param({s[1]}), 1e-6};
  };
  std::vector<at::ScalarType> seen;
  spec.reference = [&seen](const Args& a) {
    seen.push_back(CaseDtype());
    // The inputs are already values of the case's dtype: rounding them changes nothing.
    const at::Tensor x = RoundToCaseDtype(a[1].toTensor());
    return std::vector<at::Tensor>{testing::RmsNormReference(x, a[2].toTensor(), a[3].toDouble())};
  };
  ExpectOpPasses(spec);
  ASSERT_FALSE(seen.empty());
  EXPECT_NE(std::find(seen.begin(), seen.end(), at::kBFloat16), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), at::kFloat), seen.end());
  EXPECT_THROW(CaseDtype(), std::logic_error) << "no case outside the harness's call";
}

}  // namespace
}  // namespace kb::harness
