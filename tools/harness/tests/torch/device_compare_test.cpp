// CompareOnDevice must agree with CompareValues on the same data; CPU tensors
// run the same ATen ops the GPU runs.
#include "kbuild/harness/device_compare.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace kb::harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ErrorStats OnHost(const at::Tensor& got, const at::Tensor& want, Tolerance tol) {
  at::Tensor g = got.to(at::kDouble).contiguous(), w = want.to(at::kDouble).contiguous();
  const auto n = static_cast<std::size_t>(g.numel());
  return CompareValues({g.data_ptr<double>(), n}, {w.data_ptr<double>(), n}, tol);
}

void ExpectSame(const ErrorStats& host, const ErrorStats& device) {
  EXPECT_DOUBLE_EQ(device.max_abs_error, host.max_abs_error);
  EXPECT_NEAR(device.rel_l2_error, host.rel_l2_error, 1e-12 * (1 + host.rel_l2_error));
  EXPECT_EQ(device.mismatches, host.mismatches);
  EXPECT_EQ(device.first_mismatch, host.first_mismatch);
  EXPECT_EQ(device.first_got, host.first_got);
  EXPECT_EQ(device.first_want, host.first_want);
  EXPECT_EQ(device.nonfinite, host.nonfinite);
  EXPECT_EQ(device.first_nonfinite, host.first_nonfinite);
  EXPECT_EQ(device.ok(), host.ok());
}

at::Tensor Values(std::vector<double> v) { return at::tensor(v, at::kDouble); }

TEST(CompareOnDevice, MatchesHostOnCloseValues) {
  at::manual_seed(1);
  at::Tensor want = at::randn({37, 129}, at::kDouble);
  // bf16 rounding only, within the bf16 tolerance; held in float64 so the comparison runs in
  // float64 and must match the host's to the last bit (bf16 tensors: the test below).
  at::Tensor got = want.to(at::kBFloat16).to(at::kDouble);
  const Tolerance tol = DefaultTolerance(DType::kBFloat16);
  ErrorStats device = CompareOnDevice(got, want, tol);
  ExpectSame(OnHost(got, want, tol), device);
  EXPECT_TRUE(device.ok());
  EXPECT_GT(device.max_abs_error, 0);
}

TEST(CompareOnDevice, FindsTheFirstMismatchInRowMajorOrder) {
  at::manual_seed(2);
  at::Tensor want = at::randn({8, 33}, at::kDouble);
  at::Tensor got = want.to(at::kFloat);
  got[5][7] += 1.0f;
  got[2][30] -= 2.0f;  // earlier in flat order: this one is first
  const Tolerance tol{1e-5, 1e-5};
  ErrorStats device = CompareOnDevice(got, want, tol);
  ExpectSame(OnHost(got, want, tol), device);
  EXPECT_EQ(device.mismatches, 2);
  EXPECT_EQ(device.first_mismatch, 2 * 33 + 30);
  EXPECT_NEAR(device.first_got - device.first_want, -2.0, 1e-5);
}

TEST(CompareOnDevice, NanAndInfInGotFailWhereTheReferenceIsFinite) {
  at::Tensor want = Values({1, 2, 3, 4, 5, 6});
  at::Tensor got = Values({1, 2, kNaN, 4, -kInf, 6.5});
  const Tolerance tol{1e-3, 1e-3};
  ErrorStats device = CompareOnDevice(got, want, tol);
  ExpectSame(OnHost(got, want, tol), device);
  EXPECT_EQ(device.nonfinite, 2);
  EXPECT_EQ(device.first_nonfinite, 2);
  EXPECT_EQ(device.mismatches, 1);
  EXPECT_EQ(device.first_mismatch, 5);
  EXPECT_DOUBLE_EQ(device.max_abs_error, 0.5) << "non-finite elements stay out of the error";
}

TEST(CompareOnDevice, MatchingNonFiniteValuesPassOthersFail) {
  const Tolerance tol{1, 1};
  ExpectSame(OnHost(Values({kNaN, kInf, -kInf}), Values({kNaN, kInf, -kInf}), tol),
             CompareOnDevice(Values({kNaN, kInf, -kInf}), Values({kNaN, kInf, -kInf}), tol));
  EXPECT_TRUE(CompareOnDevice(Values({kNaN, kInf}), Values({kNaN, kInf}), tol).ok());
  ErrorStats sign = CompareOnDevice(Values({0, -kInf}), Values({0, kInf}), tol);
  ExpectSame(OnHost(Values({0, -kInf}), Values({0, kInf}), tol), sign);
  EXPECT_EQ(sign.first_nonfinite, 1);
  ErrorStats finite_for_nan = CompareOnDevice(Values({1.0}), Values({kNaN}), tol);
  EXPECT_EQ(finite_for_nan.nonfinite, 1);
}

TEST(CompareOnDevice, ZeroReferenceUsesTheAbsoluteL2) {
  const Tolerance tol{10, 0};
  ErrorStats device = CompareOnDevice(Values({3, 4}), Values({0, 0}), tol);
  ExpectSame(OnHost(Values({3, 4}), Values({0, 0}), tol), device);
  EXPECT_DOUBLE_EQ(device.rel_l2_error, 5.0);
}

TEST(CompareOnDevice, NonContiguousGotComparesInLogicalOrder) {
  at::manual_seed(3);
  at::Tensor want = at::randn({16, 9}, at::kDouble);
  at::Tensor got = want.t().contiguous().t().clone(at::MemoryFormat::Preserve);
  ASSERT_FALSE(got.is_contiguous());
  got[3][4] = 100;
  const Tolerance tol{1e-6, 1e-6};
  ErrorStats device = CompareOnDevice(got, want, tol);
  ExpectSame(OnHost(got, want, tol), device);
  EXPECT_EQ(device.first_mismatch, 3 * 9 + 4);
}

// A finite result where the reference is infinite: the fast path's error maximum is Inf, so the
// full classification runs and reports it.
TEST(CompareOnDevice, FiniteWhereTheReferenceIsInfiniteFails) {
  const Tolerance tol{1e-3, 1e-3};
  ErrorStats device = CompareOnDevice(Values({1, 2}), Values({1, kInf}), tol);
  ExpectSame(OnHost(Values({1, 2}), Values({1, kInf}), tol), device);
  EXPECT_EQ(device.nonfinite, 1);
}

// bf16 outputs are compared in float32: the same verdicts, indices and errors (to float32
// precision) as the float64 comparison on host copies, passing and failing.
TEST(CompareOnDevice, SixteenBitOutputsAgreeWithTheFloat64Comparison) {
  at::manual_seed(5);
  const at::Tensor want = at::randn({64, 33}, at::kDouble);
  at::Tensor got = want.to(at::kBFloat16);
  const Tolerance tol{1e-2, 1e-2};
  const ErrorStats pass = CompareOnDevice(got, want, tol);
  const ErrorStats pass_host = OnHost(got, want, tol);
  EXPECT_TRUE(pass.ok());
  EXPECT_TRUE(pass_host.ok());
  EXPECT_NEAR(pass.max_abs_error, pass_host.max_abs_error, 1e-6);
  EXPECT_NEAR(pass.rel_l2_error, pass_host.rel_l2_error, 1e-5);

  got[10][7] = 50;
  got[20][1] = std::numeric_limits<float>::quiet_NaN();
  const ErrorStats fail = CompareOnDevice(got, want, tol);
  const ErrorStats fail_host = OnHost(got, want, tol);
  EXPECT_EQ(fail.mismatches, 1);
  EXPECT_EQ(fail.first_mismatch, fail_host.first_mismatch);
  EXPECT_EQ(fail.nonfinite, 1);
  EXPECT_EQ(fail.first_nonfinite, 20 * 33 + 1);
}

// A float64 reference beyond float32's range is Inf in the 16-bit fast path; the classification
// still sees it finite: an infinite bf16 output where it is finite fails, a finite one within
// the tolerance passes, as on the host.
TEST(CompareOnDevice, SixteenBitOutputsAgainstAReferenceBeyondFloat32) {
  const Tolerance tol{1e-2, 1.6e-2};
  const at::Tensor want = Values({1, 3.403e38});  // float32 rounds it to Inf
  const at::Tensor infinite = at::tensor({1.0, kInf}, at::kDouble).to(at::kBFloat16);
  const ErrorStats overflowed = CompareOnDevice(infinite, want, tol);
  ExpectSame(OnHost(infinite, want, tol), overflowed);
  EXPECT_EQ(overflowed.nonfinite, 1);
  const at::Tensor finite = at::tensor({1.0, 3.38e38}, at::kDouble).to(at::kBFloat16);
  const ErrorStats close = CompareOnDevice(finite, want, tol);
  ExpectSame(OnHost(finite, want, tol), close);
  EXPECT_TRUE(close.ok());
}

TEST(CompareOnDevice, EmptyTensorsAreOk) {
  EXPECT_TRUE(CompareOnDevice(at::empty({0}), at::empty({0}, at::kDouble), {0, 0}).ok());
}

}  // namespace
}  // namespace kb::harness
