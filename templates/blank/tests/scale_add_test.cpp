// scale_add and scale_add_out through the dispatcher against a float64
// reference (out = x * alpha + y): odd sizes that leave vector tails, 1-D and
// 2-D shapes, inputs one element past an aligned address (scale_add: x and y
// off the fresh out's alignment, so narrower vectors; scale_add_out: out
// offset too, so a scalar head and tail around 16-byte vectors),
// bf16/fp16/fp32, and non-contiguous inputs, which the binding must reject;
// then large, near-max, > 65,535-row and > 2^31-element inputs (the launcher
// walks the buffer in rows of 2^20: sizes past one row and a short last row).
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "kbuild/harness/op_test.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;
using Shape = std::vector<int64_t>;

// 1-D sizes around the vector width (8 bf16 per 16 bytes) and 2-D shapes
// from the harness's edge set.
std::vector<Shape> Shapes() {
  std::vector<Shape> shapes = kb::harness::EdgeRowShapes();
  for (int64_t n : {1, 7, 8, 9, 4097, 65537, 1000003}) shapes.push_back(Shape(1, n));
  return shapes;
}

const std::vector<at::ScalarType> kDtypes = {at::kBFloat16, at::kHalf, at::kFloat};

std::vector<at::Tensor> Reference(const at::Tensor& x, const at::Tensor& y, double alpha) {
  return {x * alpha + y};
}

// Every shape with every dtype, plus misaligned (offset) views of a few.
std::vector<kb::harness::Case> Cases() {
  std::vector<kb::harness::Case> cases = kb::harness::MakeCases(Shapes(), kDtypes);
  const std::vector<Shape> offset_shapes = {Shape(1, 4097), Shape(1, 9), Shape(1, 1000003)};
  for (auto& c : kb::harness::MakeCases(offset_shapes, kDtypes, {.offset_view = true})) {
    cases.push_back(c);
  }
  return cases;
}

// scale_add(x, y, alpha) returns a new tensor; scale_add_out(out, x, y,
// alpha) must write every element of a poisoned `out`.
OpSpec ScaleAddSpec(bool out_variant) {
  OpSpec spec;
  spec.test = out_variant ? "scale_add_out" : "scale_add";
  spec.op = kb::harness::ProjectOp(spec.test);
  spec.cases = Cases();
  spec.make_args = [out_variant](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    Args args{f.Input(s), f.Input(s), out_variant ? -1.5 : 0.75};
    if (out_variant) args.insert(args.begin(), f.Output(s));
    return args;
  };
  spec.reference = [out_variant](const Args& a) {
    const size_t x = out_variant ? 1 : 0;  // index of x in the op's arguments
    return Reference(a[x].toTensor(), a[x + 1].toTensor(), a[x + 2].toDouble());
  };
  return spec;
}

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h): large and
// near-max values (each dtype's max / 16: x * alpha + y stays finite), more
// than 65,535 rows, and one case past 2^31 elements (64-bit indexing: ~95 GB
// of GPU memory, ~1 min).
OpSpec InputClassesSpec() {
  OpSpec spec = ScaleAddSpec(false);
  spec.test = "scale_add input classes";
  const std::vector<Shape> shapes = {Shape{7, 33}, Shape(1, 4097)};
  spec.cases =
      kb::harness::MakeCases(shapes, kDtypes, {.magnitude = kb::harness::kLargeMagnitude});
  for (auto& c : kb::harness::NearMaxCases(shapes, kDtypes)) spec.cases.push_back(c);
  for (auto& c : kb::harness::MakeCases(kb::harness::ManyRowShapes(), kDtypes)) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases(kb::harness::HugeShapes(), {at::kBFloat16})) {
    spec.cases.push_back(c);
  }
  return spec;
}

KB_OP_TEST(ScaleAdd, AllDtypesOddSizesOffsetViews, ScaleAddSpec(false));
KB_OP_TEST(ScaleAddOut, AllDtypesOddSizesOffsetViews, ScaleAddSpec(true));
KB_OP_TEST(ScaleAdd, LargeNearMaxManyRowsAndHugeInputs, InputClassesSpec());

// The kernel reads memory linearly: a strided input must be refused with a
// message, never read wrongly.
TEST(ScaleAdd, RejectsNonContiguousInputs) {
  for (bool out_variant : {false, true}) {
    OpSpec spec = ScaleAddSpec(out_variant);
    spec.cases = kb::harness::MakeCases({Shape{4, 64}}, kDtypes,
                                        {.non_contiguous = true, .expects_rejection = true});
    kb::harness::ExpectOpPasses(spec);
  }
}

}  // namespace
