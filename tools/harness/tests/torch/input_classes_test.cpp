// Input classes beyond magnitude 1 and small shapes (case.h): magnitudes
// reach the values, names show them, near-max values stay finite, the
// shape helpers cross the limits they name, huge cases know their memory,
// and the chunked comparison agrees with one comparison.
#include <gtest/gtest.h>

#include <limits>

#include "../../src/chunked_compare.h"
#include "../../src/huge_case_memory.h"
#include "kbuild/harness/device_compare.h"
#include "kbuild/harness/op_test.h"

namespace kb::harness {
namespace {

Case WithMagnitude(at::ScalarType dtype, double magnitude,
                   std::vector<std::int64_t> shape = {64, 257}) {
  Case c;
  c.shape = std::move(shape);
  c.dtype = dtype;
  c.magnitude = magnitude;
  return c;
}

double StdDev(const at::Tensor& t) { return t.to(at::kDouble).std().item<double>(); }

TEST(InputClasses, MagnitudeScalesInputsAndInPlaceNotParams) {
  ArgFactory f(WithMagnitude(at::kFloat, kTinyMagnitude), at::kCPU, 3);
  EXPECT_NEAR(StdDev(f.Input({64, 257})), 1e-4, 1e-5);
  EXPECT_NEAR(StdDev(f.InPlace({64, 257})), 1e-4, 1e-5);
  EXPECT_NEAR(StdDev(f.Param({257})), 1.0, 0.2) << "weights stay ~1";
  ArgFactory large(WithMagnitude(at::kBFloat16, kLargeMagnitude), at::kCPU, 3);
  EXPECT_NEAR(StdDev(large.Input({64, 257})), 1e3, 1e2);
}

TEST(InputClasses, MagnitudeOneKeepsTheSameValues) {
  ArgFactory plain(WithMagnitude(at::kHalf, 1.0), at::kCPU, 5);
  ArgFactory scaled(WithMagnitude(at::kFloat, 8.0), at::kCPU, 5);
  EXPECT_TRUE(at::allclose(plain.Input({4, 9}).to(at::kFloat) * 8, scaled.Input({4, 9}), 0.01));
}

TEST(InputClasses, NamesShowMagnitudeAndHuge) {
  EXPECT_EQ(MakeCases({{7, 33}}, {at::kBFloat16}, {.magnitude = kTinyMagnitude})[0].Name(),
            "7x33 bf16 x1e-4");
  EXPECT_EQ(MakeCases({{7, 33}}, {at::kFloat}, {.magnitude = kLargeMagnitude})[0].Name(),
            "7x33 fp32 x1e3");
  EXPECT_EQ(NearMaxCases({{2, 3}}, {at::kHalf})[0].Name(), "2x3 fp16 x4.09e3");
  EXPECT_EQ(MakeCases({{2, 3}}, {at::kHalf})[0].Name(), "2x3 fp16") << "magnitude 1 is not named";
  const Case huge = MakeCases(HugeShapes(), {at::kBFloat16})[0];
  EXPECT_TRUE(huge.huge);
  EXPECT_EQ(huge.Name(), "2097153x1024 bf16 huge");
  EXPECT_FALSE(MakeCases(ManyRowShapes(), {at::kBFloat16})[0].huge);
}

TEST(InputClasses, NearMaxValuesAreLargeAndFiniteInEachDtype) {
  for (at::ScalarType dtype : {at::kHalf, at::kBFloat16, at::kFloat}) {
    const Case c = NearMaxCases({{256, 1024}}, {dtype})[0];
    ArgFactory f(c, at::kCPU, 11);
    const at::Tensor x = f.Input(c.shape).to(at::kDouble);
    EXPECT_TRUE(at::isfinite(x).all().item<bool>()) << c.Name();
    EXPECT_GT(x.abs().max().item<double>(), 4 * c.magnitude) << c.Name() << ": not near max";
  }
  EXPECT_EQ(NearMaxMagnitude(at::kHalf), 65504.0 / 16);
  EXPECT_EQ(NearMaxMagnitude(at::kFloat), std::numeric_limits<float>::max() / 16.0);
}

TEST(InputClasses, ShapeHelpersCrossTheLimitsTheyName) {
  for (const auto& s : ManyRowShapes()) EXPECT_GT(s[0], 65535);
  for (const auto& s : HugeShapes()) EXPECT_GT(s[0] * s[1], std::int64_t{1} << 31);
}

TEST(InputClasses, LargeTensorsAreFilledInSlabs) {
  // More than 2^26 elements: drawn a slab of rows at a time; every row filled.
  const Case c = WithMagnitude(at::kBFloat16, kLargeMagnitude, {65537, 1025});
  ArgFactory f(c, at::kCPU, 2);
  const at::Tensor x = f.Input(c.shape);
  EXPECT_TRUE(at::isfinite(x).all().item<bool>());
  EXPECT_NEAR(StdDev(x[65536]), 1e3, 2e2) << "the last row is random too";
  EXPECT_FALSE(at::equal(x[0], x[65536]));
}

TEST(InputClasses, HugeCasesRunOneTrialAndSkipWithoutMemory) {
  EXPECT_EQ(MemorySkipReason(100, 100), "");
  EXPECT_EQ(MemorySkipReason(95'000'000'000, 80'000'000'000),
            "this case needs about 95.0 GB of device memory (the op's tensors and float64 "
            "reference copies), 80.0 GB is free\nhint: run it on a GPU with more memory (an "
            "H200 has 141 GB)");
  const Case huge = MakeCases(HugeShapes(), {at::kBFloat16})[0];
  EXPECT_EQ(HugeCaseDeviceBytes(huge), ((std::int64_t{1} << 21) + 1) * 1024 * 44);
  EXPECT_EQ(HugeCaseSkipReason(at::kCPU, huge), "") << "no device memory to check on CPU";
  Case gemm_like = huge;  // a shape that is not one tensor's names its own need
  gemm_like.device_bytes = 123;
  EXPECT_EQ(HugeCaseDeviceBytes(gemm_like), 123);
}

TEST(InputClasses, ChunkedCompareMatchesOneCompare) {
  at::Tensor want = at::randn({1000}, at::TensorOptions().dtype(at::kDouble));
  at::Tensor got = want.clone();
  got[700] += 1.0;
  got[701] += 2.0;
  got[900] = std::numeric_limits<double>::infinity();
  const Tolerance tol{1e-5, 1e-5};
  const ErrorStats one = CompareOnDevice(got, want, tol);
  const ErrorStats chunked = CompareInChunks(got, want, tol, /*chunk=*/64);
  EXPECT_EQ(chunked.mismatches, 2);
  EXPECT_EQ(chunked.first_mismatch, 700);
  EXPECT_EQ(chunked.first_got, one.first_got);
  EXPECT_EQ(chunked.nonfinite, 1);
  EXPECT_EQ(chunked.first_nonfinite, 900);
  EXPECT_DOUBLE_EQ(chunked.max_abs_error, one.max_abs_error);
  EXPECT_NEAR(chunked.rel_l2_error, one.rel_l2_error, 1e-2 * one.rel_l2_error);
}

}  // namespace
}  // namespace kb::harness
