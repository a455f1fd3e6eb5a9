#include "kbuild/harness/tolerance.h"

#include <gtest/gtest.h>

namespace kb::harness {
namespace {

TEST(Tolerance, TableIsTheDocumentedOne) {
  EXPECT_EQ(DefaultTolerance(DType::kFloat32).atol, 1e-5);
  EXPECT_EQ(DefaultTolerance(DType::kFloat32).rtol, 1e-5);
  EXPECT_EQ(DefaultTolerance(DType::kFloat16).atol, 1e-3);
  EXPECT_EQ(DefaultTolerance(DType::kFloat16).rtol, 1e-3);
  EXPECT_EQ(DefaultTolerance(DType::kBFloat16).atol, 1e-2);
  EXPECT_EQ(DefaultTolerance(DType::kBFloat16).rtol, 1.6e-2);
  EXPECT_EQ(DefaultTolerance(DType::kOther).atol, 0);
}

TEST(Tolerance, LooserForNarrowerTypes) {
  EXPECT_LT(DefaultTolerance(DType::kFloat64).rtol, DefaultTolerance(DType::kFloat32).rtol);
  EXPECT_LT(DefaultTolerance(DType::kFloat32).rtol, DefaultTolerance(DType::kFloat16).rtol);
  EXPECT_LT(DefaultTolerance(DType::kFloat16).rtol, DefaultTolerance(DType::kBFloat16).rtol);
}

TEST(Tolerance, DTypeNamesRoundTrip) {
  for (DType d : {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    EXPECT_EQ(ParseDType(DTypeName(d)), d);
  }
  EXPECT_EQ(DTypeName(DType::kBFloat16), "bf16");
  EXPECT_FALSE(ParseDType("float8").has_value());
}

}  // namespace
}  // namespace kb::harness
