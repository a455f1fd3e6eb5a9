// Test specs shared by the gated activation templates (swiglu, geglu): the
// op in its three layouts against a float64 reference act(gate) * up, where
// case.shape is the output's [rows, d]:
//   kGateFirst   one [rows, 2d] tensor, gate = x[:, :d]   (transformers, Liger)
//   kGateSecond  one [rows, 2d] tensor, gate = x[:, d:]   (diffusers' GEGLU)
//   kPair        two [rows, d] tensors                     (Qwen3's MLP)
// Shapes: odd d (1, 7, 9, 11, 2047, 12289: a one-tensor row then takes scalars,
// two tensors split each row into scalar head, 16-byte body and scalar tail,
// every head length over 4099 rows), the model widths (8192, 12288), more
// rows than the GPU holds at once; offset views (scalars), views 1-8 elements
// into wider rows, halves of one tensor passed as the pair; tiny and large
// magnitudes, > 65,535 rows, > 2^31 output elements; the sizes that read
// evict-first; rejected layouts.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kbuild/harness/op_test.h"

namespace gated_test {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;
using Shape = std::vector<int64_t>;

enum class Layout { kGateFirst, kGateSecond, kPair };

// What differs between the templates: the op names, the float64 activation,
// and arguments after the tensors (and gate_first), e.g. GELU's approximate.
struct GatedOp {
  std::string halves_op;  // op(x, gate_first, extra...)
  std::string pair_op;    // op(gate, up, extra...)
  std::function<at::Tensor(const at::Tensor&)> act;
  std::vector<c10::IValue> extra;
};

inline const std::vector<at::ScalarType> kDtypes = {at::kBFloat16, at::kHalf, at::kFloat};

inline std::vector<Shape> Shapes() {
  return {{1, 1},    {3, 11},    {7, 2047},  {4099, 2047}, {4099, 9}, {4099, 7},
          {67, 9999}, {2, 12289}, {129, 4096}, {33, 12288},  {5, 8192}, {4099, 64},
          {9001, 24}, {1, 40000}};
}

inline std::string LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kGateFirst:
      return "gate first";
    case Layout::kGateSecond:
      return "gate second";
    case Layout::kPair:
      return "pair";
  }
  return "";
}

// Args of the op for gate and up made by the caller (x holds both halves in
// the one-tensor layouts).
inline Args OpArgs(const GatedOp& g, Layout layout, const std::vector<at::Tensor>& tensors) {
  Args args(tensors.begin(), tensors.end());
  if (layout != Layout::kPair) args.push_back(layout == Layout::kGateFirst);
  for (const auto& e : g.extra) args.push_back(e);
  return args;
}

inline OpSpec GatedSpec(const GatedOp& g, Layout layout) {
  OpSpec spec;
  spec.test = (layout == Layout::kPair ? g.pair_op : g.halves_op) + " " + LayoutName(layout);
  spec.op = kb::harness::ProjectOp(layout == Layout::kPair ? g.pair_op : g.halves_op);
  spec.cases = kb::harness::MakeCases(Shapes(), kDtypes);
  for (auto& c : kb::harness::MakeCases({{7, 2047}, {65, 4096}, {4099, 1024}, {3, 11}},
                                        {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [g, layout](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    if (layout == Layout::kPair) return OpArgs(g, layout, {f.Input(s), f.Input(s)});
    return OpArgs(g, layout, {f.Input({s[0], 2 * s[1]})});
  };
  spec.reference = [g, layout](const Args& a) {
    at::Tensor gate = a[0].toTensor();
    at::Tensor up = layout == Layout::kPair ? a[1].toTensor() : gate;
    if (layout != Layout::kPair) {
      const int64_t d = gate.size(-1) / 2;
      const bool gate_first = layout == Layout::kGateFirst;
      gate = up.narrow(-1, gate_first ? 0 : d, d);
      up = up.narrow(-1, gate_first ? d : 0, d);
    }
    return std::vector<at::Tensor>{g.act(gate) * up};
  };
  return spec;
}

// Views `offset` elements into rows 8 elements wider: one tensor x of
// [rows, 2d + 8], or gate and up each of [rows, d + 8]. Offsets 1-7 start
// rows where the fresh output's do not (narrower vectors); 8 keeps whole
// vectors for d = 4096 and the split for two tensors of odd d.
inline OpSpec ViewOffsetSpec(const GatedOp& g, Layout layout, int64_t offset) {
  OpSpec spec = GatedSpec(g, layout);
  spec.test += " offset " + std::to_string(offset);
  spec.cases = kb::harness::MakeCases({{4099, 2047}, {37, 4096}, {4099, 24}},
                                      {at::kBFloat16, at::kFloat});
  spec.make_args = [g, layout, offset](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    if (layout == Layout::kPair) {
      return OpArgs(g, layout,
                    {f.Input({s[0], s[1] + 8}).narrow(1, offset, s[1]),
                     f.Input({s[0], s[1] + 8}).narrow(1, offset, s[1])});
    }
    return OpArgs(g, layout, {f.Input({s[0], 2 * s[1] + 8}).narrow(1, offset, 2 * s[1])});
  };
  return spec;
}

// The pair layout given the halves of one [rows, 2d] tensor (a fused gate/up
// projection chunked in Python): rows 2d apart, the output's d apart.
inline OpSpec ChunkedPairSpec(const GatedOp& g) {
  OpSpec spec = GatedSpec(g, Layout::kPair);
  spec.test += " chunked halves";
  spec.make_args = [g](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor x = f.Input({s[0], 2 * s[1]});
    return OpArgs(g, Layout::kPair, {x.narrow(1, 0, s[1]), x.narrow(1, s[1], s[1])});
  };
  return spec;
}

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h). Tiny
// inputs (1e-4: outputs ~1e-8, under every default atol, so a relative
// tolerance) and large ones (1e3: e^-x overflows fp32, outputs ~1e6) in bf16
// and fp32; fp16 has no room for either (1e-8 underflows its subnormals, 1e6
// overflows its 65504), and no dtype for near-max values (the product of two
// overflows). More than 65,535 rows.
inline OpSpec InputClassesSpec(const GatedOp& g, Layout layout) {
  OpSpec spec = GatedSpec(g, layout);
  spec.test += " input classes";
  const std::vector<Shape> shapes = {{7, 2047}, {129, 4096}, {9001, 24}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kFloat},
                                      {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : spec.cases) {
    c.tolerance = kb::harness::Tolerance{
        1e-30, kb::harness::DefaultTolerance(kb::harness::ToDType(c.dtype)).rtol};
  }
  for (auto& c : kb::harness::MakeCases(shapes, {at::kBFloat16, at::kFloat},
                                        {.magnitude = kb::harness::kLargeMagnitude})) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases(kb::harness::ManyRowShapes(), {at::kBFloat16, at::kFloat}))
    spec.cases.push_back(c);
  return spec;
}

// 1024 rows of 12288 (a prefill of Qwen3-8B's MLP) in bf16 and fp16: the
// output fits in half of L2 and the traffic does not, on the H100 (50 MB)
// and the H200 (60 MB), so these launches read evict-first (common/
// launch.cuh's EvictReadsFirstPays).
inline OpSpec EvictFirstSpec(const GatedOp& g, Layout layout) {
  OpSpec spec = GatedSpec(g, layout);
  spec.test += " evict-first sizes";
  spec.cases = kb::harness::MakeCases({{1024, 12288}}, {at::kBFloat16, at::kHalf});
  return spec;
}

// Past 2^31 output elements (64-bit offsets; ~100 GB of GPU memory with the
// float64 reference, ~1 min): once per template, gate first (x then holds
// 2^32 elements).
inline OpSpec HugeSpec(const GatedOp& g) {
  OpSpec spec = GatedSpec(g, Layout::kGateFirst);
  spec.test += " huge";
  spec.cases = kb::harness::MakeCases(kb::harness::HugeShapes(), {at::kBFloat16});
  return spec;
}

// A stride-2 last dimension, and an odd last dimension for the one-tensor
// layouts (no even split into gate and up), must be refused with a message.
inline OpSpec RejectionSpec(const GatedOp& g, Layout layout, bool odd_width) {
  OpSpec spec = GatedSpec(g, layout);
  spec.test += odd_width ? " odd width" : " strided";
  spec.cases = kb::harness::MakeCases(
      {{4, 64}}, {at::kBFloat16},
      {.non_contiguous = !odd_width, .expects_rejection = true});
  if (odd_width) {
    spec.make_args = [g, layout](ArgFactory& f) {
      const auto& s = f.test_case().shape;
      return OpArgs(g, layout, {f.Input({s[0], 2 * s[1] + 1})});
    };
  }
  return spec;
}

inline constexpr Layout kLayouts[] = {Layout::kGateFirst, Layout::kGateSecond, Layout::kPair};

// make(layout) -> OpSpec, checked in each of the three layouts.
template <typename Make>
void ExpectPassesInEveryLayout(Make make) {
  for (Layout layout : kLayouts) kb::harness::ExpectOpPasses(make(layout));
}

}  // namespace gated_test
