// geglu (one [rows, 2d] tensor, either half the gate) and gelu_mul (two
// [rows, d] tensors) through the dispatcher against float64
// F.gelu(gate, approximate) * up, for approximate "none" (erf) and "tanh":
// the specs of gated_cases.h (odd d, split rows, offset views, magnitudes,
// grid limits, rejected layouts) in every layout, and a rejected
// approximate.
#include <ATen/ATen.h>

#include <string>

#include "gated_cases.h"

namespace {

using gated_test::ExpectPassesInEveryLayout;
using gated_test::Layout;

gated_test::GatedOp Gelu(const std::string& approximate) {
  return {"geglu", "gelu_mul",
          [approximate](const at::Tensor& gate) { return at::gelu(gate, approximate); },
          {c10::IValue(approximate)}};
}

class Geglu : public ::testing::TestWithParam<std::string> {};

TEST_P(Geglu, OddShapesAndOffsetViewsInEveryLayout) {
  ExpectPassesInEveryLayout([](Layout l) { return gated_test::GatedSpec(Gelu(GetParam()), l); });
}

TEST_P(Geglu, TinyLargeAndManyRowsInEveryLayout) {
  ExpectPassesInEveryLayout(
      [](Layout l) { return gated_test::InputClassesSpec(Gelu(GetParam()), l); });
}

TEST_P(Geglu, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    ExpectPassesInEveryLayout(
        [offset](Layout l) { return gated_test::ViewOffsetSpec(Gelu(GetParam()), l, offset); });
  }
}

TEST_P(Geglu, EvictFirstSizesInEveryLayout) {
  ExpectPassesInEveryLayout(
      [](Layout l) { return gated_test::EvictFirstSpec(Gelu(GetParam()), l); });
}

TEST_P(Geglu, PairGivenHalvesOfOneTensor) {
  kb::harness::ExpectOpPasses(gated_test::ChunkedPairSpec(Gelu(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(Approximate, Geglu, ::testing::Values("none", "tanh"));

KB_OP_TEST(Geglu, PastTwoToThe31Elements, gated_test::HugeSpec(Gelu("none")));

TEST(Geglu, RejectsStridedLastDimensionOddWidthAndUnknownApproximate) {
  ExpectPassesInEveryLayout(
      [](Layout l) { return gated_test::RejectionSpec(Gelu("none"), l, /*odd_width=*/false); });
  kb::harness::ExpectOpPasses(gated_test::RejectionSpec(Gelu("none"), Layout::kGateFirst, true));
  for (Layout l : gated_test::kLayouts) {
    gated_test::GatedOp wrong = Gelu("none");
    wrong.extra = {c10::IValue(std::string("erf"))};
    kb::harness::OpSpec spec = gated_test::GatedSpec(wrong, l);
    spec.cases = kb::harness::MakeCases({{4, 64}}, {at::kBFloat16}, {.expects_rejection = true});
    kb::harness::ExpectOpPasses(spec);
  }
}

}  // namespace
