#include "kbuild/harness/element_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace kb::harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Poison, Fp32PatternIsAQuietNaN) {
  PoisonPattern p = PoisonFor(DType::kFloat32, 4);
  float value;
  std::uint32_t bits = static_cast<std::uint32_t>(p.bits);
  std::memcpy(&value, &bits, 4);
  EXPECT_TRUE(std::isnan(value));
  EXPECT_NE(bits, 0x7FC00000u) << "must differ from the NaN arithmetic produces";
}

TEST(Poison, HalfPatternsAreNaNs) {
  // Exponent all ones, mantissa non-zero, quiet bit set.
  EXPECT_EQ(PoisonFor(DType::kFloat16, 2).bits & 0x7C00u, 0x7C00u);
  EXPECT_NE(PoisonFor(DType::kFloat16, 2).bits & 0x0200u, 0u);
  EXPECT_EQ(PoisonFor(DType::kBFloat16, 2).bits & 0x7F80u, 0x7F80u);
  EXPECT_NE(PoisonFor(DType::kBFloat16, 2).bits & 0x0040u, 0u);
}

TEST(Poison, GuardNaNIsNotTheOutputPoison) {
  for (DType d :
       {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kOther}) {
    EXPECT_NE(GuardFor(d, 2).bits, PoisonFor(d, 2).bits) << DTypeName(d);
  }
  float value;
  std::uint32_t bits = static_cast<std::uint32_t>(GuardFor(DType::kFloat32, 4).bits);
  std::memcpy(&value, &bits, 4);
  EXPECT_TRUE(std::isnan(value));
}

TEST(Poison, ScanFindsUnwrittenElements) {
  PoisonPattern p = PoisonFor(DType::kBFloat16, 2);
  std::vector<std::uint16_t> out(9);
  FillPoison(out.data(), out.size(), p);
  for (std::size_t i = 0; i < 6; ++i) out[i] = 0x3F80;  // 1.0 in bf16
  PoisonScan scan = ScanPoison(out.data(), out.size(), p);
  EXPECT_EQ(scan.count, 3);
  EXPECT_EQ(scan.first_index, 6);
}

TEST(Poison, ScanOfFullyWrittenOutputIsClean) {
  PoisonPattern p = PoisonFor(DType::kFloat32, 4);
  std::vector<float> out(5, std::numeric_limits<float>::quiet_NaN());  // written NaN is not poison
  PoisonScan scan = ScanPoison(out.data(), out.size(), p);
  EXPECT_EQ(scan.count, 0);
  EXPECT_EQ(scan.first_index, -1);
}

TEST(Poison, OtherDtypesUseA5Bytes) {
  PoisonPattern p = PoisonFor(DType::kOther, 1);
  std::vector<unsigned char> out(3);
  FillPoison(out.data(), out.size(), p);
  EXPECT_EQ(out[2], 0xA5);
}

TEST(Hash, ChangesWithOneBit) {
  std::vector<unsigned char> data(64, 7);
  std::uint64_t before = HashBytes(data.data(), data.size());
  data[63] ^= 1;
  EXPECT_NE(before, HashBytes(data.data(), data.size()));
  EXPECT_EQ(HashBytes(nullptr, 0), 0xcbf29ce484222325ull);
}

TEST(Hash, SeesEveryByteOfWordsAndTail) {
  std::vector<unsigned char> data(67, 7);  // 8 words and 3 tail bytes
  const std::uint64_t before = HashBytes(data.data(), data.size());
  for (std::size_t i : {std::size_t{0}, std::size_t{13}, std::size_t{63}, std::size_t{66}}) {
    data[i] ^= 0x80;
    EXPECT_NE(before, HashBytes(data.data(), data.size())) << "byte " << i;
    data[i] ^= 0x80;
  }
  EXPECT_EQ(before, HashBytes(data.data(), data.size()));
}

TEST(Compare, WithinToleranceIsOk) {
  std::vector<double> want = {1.0, -2.0, 100.0};
  std::vector<double> got = {1.0 + 1e-6, -2.0, 100.0 + 5e-4};
  ErrorStats s = CompareValues(got, want, {1e-5, 1e-5});
  EXPECT_TRUE(s.ok());
  EXPECT_NEAR(s.max_abs_error, 5e-4, 1e-12);
  EXPECT_GT(s.rel_l2_error, 0);
}

TEST(Compare, ReportsFirstMismatch) {
  std::vector<double> want = {1, 2, 3, 4};
  std::vector<double> got = {1, 2, 3.1, 4.2};
  ErrorStats s = CompareValues(got, want, {1e-3, 1e-3});
  EXPECT_EQ(s.mismatches, 2);
  EXPECT_EQ(s.first_mismatch, 2);
  EXPECT_DOUBLE_EQ(s.first_got, 3.1);
  EXPECT_DOUBLE_EQ(s.first_want, 3);
  EXPECT_NEAR(s.max_abs_error, 0.2, 1e-12);
  EXPECT_NEAR(s.rel_l2_error, std::sqrt((0.01 + 0.04) / 30.0), 1e-12);
}

TEST(Compare, NaNNeverPassesUnlessTheReferenceHasIt) {
  ErrorStats s =
      CompareValues(std::vector<double>{1, kNaN, 3}, std::vector<double>{1, 2, 3}, {1, 1});
  EXPECT_EQ(s.nonfinite, 1);
  EXPECT_EQ(s.first_nonfinite, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(
      CompareValues(std::vector<double>{kNaN, kInf}, std::vector<double>{kNaN, kInf}, {0, 0}).ok());
}

TEST(Compare, InfMustMatchSign) {
  EXPECT_EQ(CompareValues(std::vector<double>{-kInf}, std::vector<double>{kInf}, {1, 1}).nonfinite,
            1);
  EXPECT_EQ(CompareValues(std::vector<double>{1.0}, std::vector<double>{kNaN}, {1, 1}).nonfinite,
            1);
}

TEST(Compare, ZeroReferenceUsesAbsoluteL2) {
  ErrorStats s = CompareValues(std::vector<double>{3, 4}, std::vector<double>{0, 0}, {10, 0});
  EXPECT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s.rel_l2_error, 5);
}

}  // namespace
}  // namespace kb::harness
