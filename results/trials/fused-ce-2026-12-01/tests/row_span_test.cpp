// The split of misaligned rows (common/row_span.h) on the host: for every
// row start inside a 16-byte vector and row lengths around the vector size,
// head, body and tail cover each element exactly once with the body on a
// boundary; every edge element has one lane and slot in every row shape of
// the plan; and the launchers' choice between whole vectors, a split and
// narrower vectors. An element no thread owns is left unwritten on the GPU;
// one owned twice is read and written twice (the fused op would add twice).
#include "../fused_ce_cuda/common/row_span.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using kernels_common::ChooseRowAccess;
using kernels_common::EdgeElement;
using kernels_common::EdgeOfSlot;
using kernels_common::kEdgeSlotsPerThread;
using kernels_common::kWholeBlock;
using kernels_common::RowAccess;
using kernels_common::RowPhase;
using kernels_common::RowsSplitAlike;
using kernels_common::RowSpan;
using kernels_common::SplitRow;
using kernels_common::VectorAccess;

constexpr uintptr_t kBase = 0x7f0000000000;  // 16-byte aligned, like cudaMalloc's

// Elements from the last 16-byte boundary to `address`.
template <int kElemBytes>
int PhaseOf(uintptr_t address) {
  return static_cast<int>(address % 16 / kElemBytes);
}

template <int kElemBytes, int V>
void ExpectSplitCoversRowOnce(uintptr_t address, int hidden) {
  SCOPED_TRACE("element bytes " + std::to_string(kElemBytes) + ", address % 16 = " +
               std::to_string(address % 16) + ", hidden " + std::to_string(hidden));
  const RowSpan s = SplitRow<V>(PhaseOf<kElemBytes>(address), hidden);
  ASSERT_GE(s.head, 0);
  ASSERT_GE(s.body, 0);
  ASSERT_GE(s.tail, 0);
  EXPECT_LT(s.head, V);
  EXPECT_LT(s.tail, V);
  EXPECT_LE(s.edges(), 2 * V - 2);
  EXPECT_EQ(s.head + s.body * V + s.tail, hidden);
  if (s.body > 0) {
    EXPECT_EQ((address + uintptr_t(s.head) * kElemBytes) % (V * kElemBytes), 0u)
        << "the body starts off a vector boundary";
  }
  std::vector<int> owners(hidden, 0);
  for (int i = s.head; i < s.head + s.body * V; ++i) ++owners[i];
  for (int e = 0; e < s.edges(); ++e) {
    const int i = EdgeElement<V>(s, e);
    ASSERT_GE(i, 0);
    ASSERT_LT(i, hidden);
    ++owners[i];
  }
  for (int i = 0; i < hidden; ++i) ASSERT_EQ(owners[i], 1) << "element " << i;
}

TEST(RowSpan, HeadBodyAndTailCoverEveryElementOnce) {
  std::vector<int> lengths = {2047, 2049, 4095, 4096, 4097, 65535};
  for (int hidden = 1; hidden <= 40; ++hidden) lengths.push_back(hidden);
  for (int hidden : lengths) {
    for (uintptr_t offset = 0; offset < 16; offset += 2) {
      ExpectSplitCoversRowOnce<2, 8>(kBase + offset, hidden);
    }
    for (uintptr_t offset = 0; offset < 16; offset += 4) {
      ExpectSplitCoversRowOnce<4, 4>(kBase + offset, hidden);
    }
  }
}

TEST(RowSpan, ExactSplitsOfTheMeasuredOddRows) {
  // 2047 bf16 rows, contiguous: row r starts r * 4094 bytes in.
  const RowSpan row0 = SplitRow<8>(RowPhase<8>(0, 0, 2047), 2047);
  EXPECT_EQ(row0.head, 0);
  EXPECT_EQ(row0.body, 255);
  EXPECT_EQ(row0.tail, 7);
  const RowSpan row1 = SplitRow<8>(RowPhase<8>(0, 1, 2047), 2047);
  EXPECT_EQ(row1.head, 1);
  EXPECT_EQ(row1.body, 255);
  EXPECT_EQ(row1.tail, 6);
  // A view one element in: 7 before the boundary, 1 after the last vector.
  const RowSpan view = SplitRow<8>(RowPhase<8>(1, 5, 4096), 4096);
  EXPECT_EQ(view.head, 7);
  EXPECT_EQ(view.body, 511);
  EXPECT_EQ(view.tail, 1);
  // Rows shorter than the distance to the boundary are all head.
  const RowSpan tiny = SplitRow<8>(1, 5);
  EXPECT_EQ(tiny.head, 5);
  EXPECT_EQ(tiny.body, 0);
  EXPECT_EQ(tiny.tail, 0);
  const RowSpan fp32 = SplitRow<4>(3, 2047);
  EXPECT_EQ(fp32.head, 1);
  EXPECT_EQ(fp32.body, 511);
  EXPECT_EQ(fp32.tail, 2);
}

// The kernels compute each row's phase from the first row's and the stride
// (no pointer arithmetic): it must equal the phase of the row's address, for
// every stride residue, past 2^31 rows and where row * stride wraps 64 bits.
template <int kElemBytes, int V>
void ExpectRowPhaseMatchesAddresses() {
  const int64_t strides[] = {1, 7, 8, 9, 2047, 2049, 4096, 4099, (int64_t{1} << 33) + 3};
  const int64_t rows[] = {0, 1, 2, 3, 7, 8, 4099, (int64_t{1} << 31) + 1, int64_t{1} << 40};
  for (uintptr_t first = kBase; first < kBase + 16; first += kElemBytes) {
    for (int64_t stride : strides) {
      for (int64_t row : rows) {
        // The address modulo 16 from 128-bit arithmetic, as the hardware sees it.
        const unsigned __int128 address =
            first + static_cast<unsigned __int128>(row) * stride * kElemBytes;
        const int want = static_cast<int>(address % 16) / kElemBytes;
        EXPECT_EQ(RowPhase<V>(PhaseOf<kElemBytes>(first), row, stride), want)
            << "first % 16 = " << first % 16 << ", stride " << stride << ", row " << row;
      }
    }
  }
}

TEST(RowSpan, RowPhaseMatchesEveryRowsAddress) {
  ExpectRowPhaseMatchesAddresses<2, 8>();
  ExpectRowPhaseMatchesAddresses<4, 4>();
}

// Every edge element (at most 2V - 2) has exactly one (lane, slot) among
// the slots kernels give each lane, for groups of 4-32 lanes and blocks.
template <int V, int kGroup>
void ExpectEveryEdgeHasOneSlot(int lanes) {
  constexpr int kSlots = kEdgeSlotsPerThread<V, kGroup, true>;
  SCOPED_TRACE("V " + std::to_string(V) + ", lanes " + std::to_string(lanes));
  std::vector<int> holders(2 * V - 2, 0);
  for (int lane = 0; lane < lanes; ++lane) {
    for (int slot = 0; slot < kSlots; ++slot) {
      const int e = EdgeOfSlot(lane, lanes, slot);
      ASSERT_GE(e, 0);
      if (e < 2 * V - 2) ++holders[e];
    }
  }
  for (int e = 0; e < 2 * V - 2; ++e) EXPECT_EQ(holders[e], 1) << "edge " << e;
}

template <int V>
void ExpectEveryEdgeHasOneSlotInEveryRowShape() {
  ExpectEveryEdgeHasOneSlot<V, 4>(4);
  ExpectEveryEdgeHasOneSlot<V, 8>(8);
  ExpectEveryEdgeHasOneSlot<V, 16>(16);
  ExpectEveryEdgeHasOneSlot<V, 32>(32);
  for (int threads = 32; threads <= 512; threads += 32) {
    ExpectEveryEdgeHasOneSlot<V, kWholeBlock>(threads);
  }
}

TEST(RowSpan, EveryEdgeElementHasOneLane) {
  ExpectEveryEdgeHasOneSlotInEveryRowShape<8>();  // bf16 / fp16
  ExpectEveryEdgeHasOneSlotInEveryRowShape<4>();  // fp32
  EXPECT_EQ((kEdgeSlotsPerThread<8, 4, true>), 4);
  EXPECT_EQ((kEdgeSlotsPerThread<8, 16, true>), 1);
  EXPECT_EQ((kEdgeSlotsPerThread<8, 4, false>), 0) << "aligned paths hold no edges";
  // Edges go to the row's last lanes first: they hold the fewest body vectors.
  EXPECT_EQ(EdgeOfSlot(31, 32, 0), 0);
  EXPECT_EQ(EdgeOfSlot(0, 32, 0), 31);
}

TEST(RowSpan, RowsSplitAlikeOnlyWhenEveryRowKeepsItsDistance) {
  // Same base, same odd stride: every row of both at the same distance.
  EXPECT_TRUE(RowsSplitAlike(kBase, 2047, kBase + 4096, 2047, 2, 16));
  // A view one element in against a fresh output: one element apart.
  EXPECT_FALSE(RowsSplitAlike(kBase + 2, 4096, kBase, 4096, 2, 16));
  // Strides a vector apart keep the distance; one element apart do not.
  EXPECT_TRUE(RowsSplitAlike(kBase, 2048 + 8, kBase + 32, 2048, 2, 16));
  EXPECT_FALSE(RowsSplitAlike(kBase, 2048 + 1, kBase, 2048, 2, 16));
  // Both one element in (the fused op's x and residual views).
  EXPECT_TRUE(RowsSplitAlike(kBase + 2, 4096, kBase + 4098, 4096, 2, 16));
  // Not element-aligned: no split.
  EXPECT_FALSE(RowsSplitAlike(kBase + 1, 64, kBase + 1, 64, 2, 16));
  EXPECT_TRUE(RowsSplitAlike(kBase + 4, 2047, kBase + 20, 2047, 4, 16));
  EXPECT_FALSE(RowsSplitAlike(kBase + 4, 2047, kBase + 8, 2047, 4, 16));
}

const void* At(uintptr_t address) { return reinterpret_cast<const void*>(address); }

void ExpectAccess(const RowAccess& got, int width, bool split, int64_t vectors,
                  int first_phase = 0) {
  EXPECT_EQ(got.width, width);
  EXPECT_EQ(got.split, split);
  EXPECT_EQ(got.vectors, vectors);
  EXPECT_EQ(got.first_phase, first_phase);
}

TEST(RowSpan, LaunchersSplitRowsThatWouldTakeNarrowAccesses) {
  const VectorAccess weight{At(kBase + 8192), 0, 2};
  const VectorAccess no_weight{nullptr, 0, 2};
  // Aligned rows: whole vectors, as before.
  ExpectAccess(ChooseRowAccess(8, 4096, {{At(kBase), 4096, 2}, {At(kBase + 65536), 4096, 2}},
                               weight),
               8, false, 512);
  // 4096 x 2047 bf16, contiguous x and a fresh y: split, 255 body vectors at most.
  ExpectAccess(ChooseRowAccess(8, 2047, {{At(kBase), 2047, 2}, {At(kBase + 65536), 2047, 2}},
                               weight),
               8, true, 255);
  // fp32, odd rows: 4-float vectors, 511 at most.
  ExpectAccess(ChooseRowAccess(4, 2047, {{At(kBase), 2047, 4}, {At(kBase + 65536), 2047, 4}},
                               {At(kBase + 8192), 0, 4}),
               4, true, 511);
  // Rows shorter than a vector: one "vector" to plan with, all edges.
  ExpectAccess(ChooseRowAccess(8, 7, {{At(kBase), 7, 2}, {At(kBase + 4096), 7, 2}}, no_weight),
               8, true, 1);
  // x and residual both one element in (fused op's offset views): split.
  ExpectAccess(ChooseRowAccess(8, 4096, {{At(kBase + 2), 4096, 2}, {At(kBase + 65538), 4096, 2}},
                               weight),
               8, true, 512, 1);
  // fp32 rows three elements past a boundary.
  ExpectAccess(ChooseRowAccess(4, 4095, {{At(kBase + 12), 4095, 4}, {At(kBase + 65548), 4095, 4}},
                               {At(kBase + 8192), 0, 4}),
               4, true, 1023, 3);
  // Only the weight is misaligned: rows split (all body), weight read as scalars.
  ExpectAccess(ChooseRowAccess(8, 4096, {{At(kBase), 4096, 2}, {At(kBase + 65536), 4096, 2}},
                               {At(kBase + 8194), 0, 2}),
               8, true, 512);
  // x a view one element in, y fresh: they cannot share a split -> scalars.
  ExpectAccess(ChooseRowAccess(8, 4096, {{At(kBase + 2), 4096, 2}, {At(kBase + 65536), 4096, 2}},
                               weight),
               1, false, 4096);
  // Rows that keep 8-byte vectors keep them (bf16 2044, fp32 2046).
  ExpectAccess(ChooseRowAccess(8, 2044, {{At(kBase), 2044, 2}, {At(kBase + 65536), 2044, 2}},
                               weight),
               4, false, 511);
  ExpectAccess(ChooseRowAccess(4, 2046, {{At(kBase), 2046, 4}, {At(kBase + 65536), 2046, 4}},
                               {At(kBase + 8192), 0, 4}),
               2, false, 1023);
  // 4-byte vectors (bf16 2046) are split.
  ExpectAccess(ChooseRowAccess(8, 2046, {{At(kBase), 2046, 2}, {At(kBase + 65536), 2046, 2}},
                               weight),
               8, true, 255);
}

// The plan covers every body vector of every row: the most a split row has
// is what ChooseRowAccess gives the planner.
TEST(RowSpan, PlannedVectorsCoverEveryRowsBody) {
  for (int hidden = 1; hidden <= 300; ++hidden) {
    const RowAccess a = ChooseRowAccess(
        8, hidden, {{At(kBase), hidden, 2}, {At(kBase + (1 << 20)), hidden, 2}}, {nullptr, 0, 2});
    for (int64_t row = 0; row < 8; ++row) {
      const RowSpan s = SplitRow<8>(RowPhase<8>(a.first_phase, row, hidden), hidden);
      EXPECT_LE(s.body, a.vectors) << "hidden " << hidden << ", row " << row;
    }
  }
}

}  // namespace
