// swiglu (one [rows, 2d] tensor, either half the gate) and silu_mul (two
// [rows, d] tensors) through the dispatcher against float64
// F.silu(gate) * up: the specs of gated_cases.h (odd d, split rows, offset
// views, magnitudes, grid limits, rejected layouts) in every layout.
#include <ATen/ATen.h>

#include "gated_cases.h"

namespace {

using gated_test::ExpectPassesInEveryLayout;
using gated_test::Layout;

const gated_test::GatedOp kSilu{"swiglu", "silu_mul",
                                [](const at::Tensor& gate) { return at::silu(gate); }, {}};

TEST(Swiglu, OddShapesAndOffsetViewsInEveryLayout) {
  ExpectPassesInEveryLayout([](Layout l) { return gated_test::GatedSpec(kSilu, l); });
}

TEST(Swiglu, TinyLargeAndManyRowsInEveryLayout) {
  ExpectPassesInEveryLayout([](Layout l) { return gated_test::InputClassesSpec(kSilu, l); });
}

TEST(Swiglu, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    ExpectPassesInEveryLayout(
        [offset](Layout l) { return gated_test::ViewOffsetSpec(kSilu, l, offset); });
  }
}

TEST(Swiglu, EvictFirstSizesInEveryLayout) {
  ExpectPassesInEveryLayout([](Layout l) { return gated_test::EvictFirstSpec(kSilu, l); });
}

KB_OP_TEST(SiluMul, HalvesOfOneTensor, gated_test::ChunkedPairSpec(kSilu));
KB_OP_TEST(Swiglu, PastTwoToThe31Elements, gated_test::HugeSpec(kSilu));

TEST(Swiglu, RejectsStridedLastDimensionAndOddWidth) {
  ExpectPassesInEveryLayout(
      [](Layout l) { return gated_test::RejectionSpec(kSilu, l, /*odd_width=*/false); });
  kb::harness::ExpectOpPasses(gated_test::RejectionSpec(kSilu, Layout::kGateFirst, true));
}

}  // namespace
