// The modulation rows of common/param_rows.h on the host: which parameter
// row each row of x reads (per sample, per token, strided chunks), and how
// a launch's row access is fitted to parameter rows that are misaligned or
// strided off the vector width. A wrong fit reads 16 bytes from a pointer
// that is not 16-byte aligned (a misaligned-address fault on the GPU).
#include <gtest/gtest.h>

#include <cstdint>

#include "../{{python_name}}_cuda/common/param_rows.h"

namespace {

using kernels_common::ChooseRowAccess;
using kernels_common::FitParamRows;
using kernels_common::ParamRows;
using kernels_common::RowAccess;
using kernels_common::RowOf;
using kernels_common::VectorAccess;

constexpr uintptr_t kBase = 0x7f0000000000;  // 16-byte aligned, like cudaMalloc's

const void* At(uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(ParamRows, RowOfPicksTheSampleOrTokenRow) {
  const auto* base = static_cast<const uint16_t*>(At(kBase));
  const ParamRows per_sample{base, 2048, 0};
  const ParamRows per_token{base, 5 * 6 * 2048, 6 * 2048};  // chunks of [b, 5, 6, 2048]
  for (int64_t row = 0; row < 15; ++row) {
    const int64_t sample = row / 5;
    const int64_t token = row % 5;
    EXPECT_EQ(RowOf<uint16_t>(per_sample, row, 5), base + sample * 2048);
    EXPECT_EQ(RowOf<uint16_t>(per_token, row, 5), base + sample * 5 * 6 * 2048 + token * 6 * 2048);
  }
  const ParamRows broadcast{base, 0, 0};
  EXPECT_EQ(RowOf<uint16_t>(broadcast, 14, 5), base);
}

// The gated residual's form (row < 2^31, tokens a FastDivmod) picks the rows the int64 form does,
// up to the last row and with more tokens than rows.
TEST(ParamRows, RowOfWithTokensDivisorMatchesTheDivision) {
  const auto* base = static_cast<const uint16_t*>(At(kBase));
  const ParamRows per_token{base, 7 * 6 * 2048, 6 * 2048};
  for (const int64_t tokens : {int64_t{1}, int64_t{5}, int64_t{2688}, int64_t{6144},
                               (int64_t{1} << 31) - 1, int64_t{1} << 31, int64_t{1} << 40}) {
    const kernels_common::FastDivmod divisor = kernels_common::TokensDivisor(tokens);
    for (const uint32_t row : {0u, 1u, 4u, 5u, 2687u, 2688u, 6143u, 6144u, 0x7ffffffeu,
                               0x7fffffffu}) {
      EXPECT_EQ(RowOf<uint16_t>(per_token, row, divisor), RowOf<uint16_t>(per_token, row, tokens))
          << "row " << row << ", tokens " << tokens;
    }
  }
}

// The adaptive norm's form takes any row: the same rows on both sides of 2^31.
TEST(ParamRows, RowOfAnyRowMatchesTheDivision) {
  const auto* base = static_cast<const uint16_t*>(At(kBase));
  const ParamRows per_token{base, 3 * 2048, 2048};
  for (const int64_t tokens : {int64_t{1}, int64_t{3}, int64_t{6144}, int64_t{1} << 31,
                               (int64_t{1} << 31) + 3, int64_t{1} << 40}) {
    const kernels_common::FastDivmod divisor = kernels_common::TokensDivisor(tokens);
    for (const int64_t row : {int64_t{0}, int64_t{6145}, int64_t{0x7fffffff}, int64_t{1} << 31,
                              (int64_t{1} << 31) + 2, (int64_t{1} << 37) + 5}) {
      EXPECT_EQ(RowOf<uint16_t>(per_token, row, divisor, tokens),
                RowOf<uint16_t>(per_token, row, tokens))
          << "row " << row << ", tokens " << tokens;
    }
  }
}

// bf16 x and y aligned, hidden 2048: 8-element vectors.
RowAccess AlignedRows() {
  return ChooseRowAccess(
      8, 2048, {VectorAccess{At(kBase), 2048, 2}, VectorAccess{At(kBase + 4096 * 16), 2048, 2}},
      VectorAccess{nullptr, 0, 2});
}

TEST(ParamRows, AlignedModulationKeepsTheRowsVectors) {
  const RowAccess rows = AlignedRows();
  ASSERT_EQ(rows.width, 8);
  ASSERT_FALSE(rows.split);
  const ParamRows chunk{At(kBase + 2 * 2048 * 2), 5 * 6 * 2048, 6 * 2048};
  const RowAccess bf16 = FitParamRows(rows, 8, 2048, {chunk, chunk}, 2);
  EXPECT_EQ(bf16.width, 8);
  EXPECT_FALSE(bf16.split);
  // float32 modulation under bf16 x: 8 floats = 32 bytes per vector.
  const ParamRows fp32{At(kBase + 32 * 3), 2048, 0};
  const RowAccess f32 = FitParamRows(rows, 8, 2048, {fp32}, 4);
  EXPECT_EQ(f32.width, 8);
  EXPECT_FALSE(f32.split);
}

TEST(ParamRows, MisalignedModulationSplitsAlignedRowsAtPhaseZero) {
  const RowAccess rows = AlignedRows();
  // One element in: the rows keep 16-byte vectors, the modulation is read a
  // scalar at a time.
  const ParamRows shifted{At(kBase + 2), 2048 + 8, 0};
  const RowAccess fitted = FitParamRows(rows, 8, 2048, {shifted}, 2);
  EXPECT_TRUE(fitted.split);
  EXPECT_EQ(fitted.width, 8);
  EXPECT_EQ(fitted.first_phase, 0);
  EXPECT_EQ(fitted.vectors, rows.vectors);
  // A token stride off the vector width does the same.
  const ParamRows odd_stride{At(kBase), 2048 * 4, 2048 + 4};
  EXPECT_TRUE(FitParamRows(rows, 8, 2048, {odd_stride}, 2).split);
  // float32 rows 16 but not 32 bytes aligned.
  const ParamRows fp32{At(kBase + 16), 2048, 0};
  EXPECT_TRUE(FitParamRows(rows, 8, 2048, {fp32}, 4).split);
}

TEST(ParamRows, NarrowRowsNarrowFurtherForTheModulation) {
  // x 8 bytes into a 16-byte boundary, output aligned: no split serves both,
  // 4-element (8-byte) vectors.
  const RowAccess rows = ChooseRowAccess(
      8, 2048, {VectorAccess{At(kBase + 8), 2048 + 8, 2}, VectorAccess{At(kBase), 2048, 2}},
      VectorAccess{nullptr, 0, 2});
  ASSERT_EQ(rows.width, 4);
  ASSERT_FALSE(rows.split);
  const ParamRows two_in{At(kBase + 4), 2048, 0};  // 2 elements in: 4-byte vectors
  const RowAccess fitted = FitParamRows(rows, 8, 2048, {two_in}, 2);
  EXPECT_EQ(fitted.width, 2);
  EXPECT_FALSE(fitted.split);
  EXPECT_EQ(fitted.vectors, 1024);
  const ParamRows aligned{At(kBase), 2048, 0};
  EXPECT_EQ(FitParamRows(rows, 8, 2048, {aligned}, 2).width, 4);
}

TEST(ParamRows, SplitRowsStaySplit) {
  // Odd hidden: x and y split alike; the modulation is read by scalars anyway.
  const RowAccess rows = ChooseRowAccess(
      8, 2047, {VectorAccess{At(kBase), 2047, 2}, VectorAccess{At(kBase + 65536), 2047, 2}},
      VectorAccess{nullptr, 0, 2});
  ASSERT_TRUE(rows.split);
  const ParamRows shifted{At(kBase + 2), 2047, 0};
  const RowAccess fitted = FitParamRows(rows, 8, 2047, {shifted}, 2);
  EXPECT_TRUE(fitted.split);
  EXPECT_EQ(fitted.first_phase, rows.first_phase);
  EXPECT_EQ(fitted.vectors, rows.vectors);
}

}  // namespace
