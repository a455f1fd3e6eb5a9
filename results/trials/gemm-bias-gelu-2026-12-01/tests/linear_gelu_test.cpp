// linear_gelu through the dispatcher against gelu_tanh(at::mm + bias) in
// float64 (A, B upcast), with a tolerance that grows with K
// (linear_gelu_cases.h). Shapes [M, N, K] from 1x1x1 and
// primes (scalar path) to 4096x1024x8192 (16-byte path), edge tiles on both
// paths, K = 0; the few-rows path (M <= 16) at M = 1, 2, 7, 9, 16 and the
// tiled one from M = 17, N and K odd and even, under both built-in tiles
// (small problems and large ones); with and without bias; inputs
// one element off alignment and rows of a wider matrix (scalar or vector
// path by the row stride), a broadcast row; tiny and large magnitudes, more
// than 65,535 tile rows or columns of blocks, more than 2^31 outputs or B
// elements; a wide bias over the GELU's range; refused: transposed views,
// strided columns, bf16 and fp16, a bias of the wrong shape, stride or dtype. And,
// on the host, that the tolerance rejects a result missing one product or
// one K-tile.
#include <ATen/ATen.h>

#include <string>

#include "linear_gelu_cases.h"
#include "kbuild/harness/op_test.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::Case;
using kb::harness::MakeCases;
using kb::harness::OpSpec;

// [M, N, K]. 16-byte path: K, N multiples of 4 (128x128x128 one whole tile;
// 129x132x36 edge tiles on every side). Scalar path: the odd ones. Few rows
// (M <= 16, one kernel per power of two of M): 1x4096x4096 one row, 2x130x64
// a partial block of 32 columns, 16x333x1001 and 7x300x515 K past one step
// of 256 rows with a tail; 17 rows: the tiled path's smallest M. The tile
// (gemm_plan.h, 132 SMs, no tuned_config.h): fewer than 132 tiles of 128 x
// 128 take GemmSmallTile (127x129x131 and 17x999x1001 scalar, 1000^3
// vector, ...); 4096x1024x8192 (vector), 2052x1540x36 (vector, edge tiles)
// and 1999x1537x203 (scalar: K and N odd) take the default tile.
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 1, 1},          {7, 13, 5},        {127, 129, 131},  {128, 128, 128},
          {129, 132, 36},     {257, 3, 1000},    {3, 257, 9},      {1000, 1000, 1000},
          {4096, 1024, 8192}, {2052, 1540, 36},  {1999, 1537, 203}, {1, 4096, 4096},
          {1, 5, 3},          {2, 130, 64},      {2, 129, 67},     {7, 300, 515},
          {16, 1024, 1024},   {16, 333, 1001},   {17, 64, 96},     {17, 999, 1001},
          // The user's shapes (M x N x K): 2048x8192x4096 (default tile,
          // vector path) beside 4096x1024x8192 and 1000^3 above; odd sizes
          // near them on the scalar path.
          {2048, 8192, 4096}, {1001, 999, 1003}, {333, 4099, 517}};
}

// bias: "none" or "fp32" ([N], float32).
OpSpec LinearGeluSpec(const std::string& bias) {
  OpSpec spec;
  spec.test = "linear_gelu bias=" + bias;
  spec.op = kb::harness::ProjectOp("linear_gelu");
  spec.cases = WithLinearGeluTolerance(MakeCases(Shapes(), {at::kFloat}));
  // K = 0: C is the bias (or zeros), written without a multiply.
  for (auto& c : WithLinearGeluTolerance(MakeCases({{5, 7, 0}}, {at::kFloat}))) spec.cases.push_back(c);
  // One element past an aligned address: checked scalar loads on every shape.
  for (auto& c : WithLinearGeluTolerance(MakeCases(
           {{7, 13, 5}, {16, 257, 96}, {127, 129, 131}, {1000, 1000, 1000}}, {at::kFloat},
           {.offset_view = true}))) {
    spec.cases.push_back(c);
  }
  spec.make_args = [bias](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    c10::IValue b;  // None
    if (bias == "fp32") b = f.Param({s[1]});
    return Args{f.Input({s[0], s[2]}), f.Input({s[2], s[1]}), b};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{LinearGeluReference(a[0].toTensor(), a[1].toTensor(), a[2])};
  };
  return spec;
}

// Rows `pad` elements longer than the matrix (A [M, K + pad], B [K, N + pad]
// narrowed): pad 4 keeps the row stride a multiple of 4 (16-byte path on
// 256x256x256), pad 3 does not (scalar path). Then A as one row broadcast
// to M rows (row stride 0).
OpSpec StridedRowsSpec(int64_t pad) {
  OpSpec spec = LinearGeluSpec("fp32");
  spec.test = "linear_gelu rows " + std::to_string(pad) + " elements apart beyond the matrix";
  spec.cases = WithLinearGeluTolerance(
      MakeCases({{256, 256, 256}, {67, 131, 36}, {16, 256, 256}, {5, 131, 36}}, {at::kFloat}));
  spec.make_args = [pad](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor a = f.Input({s[0], s[2] + pad}).narrow(1, 0, s[2]);
    const at::Tensor b = f.Input({s[2], s[1] + pad}).narrow(1, 0, s[1]);
    return Args{a, b, f.Param({s[1]})};
  };
  return spec;
}

OpSpec BroadcastRowSpec() {
  OpSpec spec = LinearGeluSpec("none");
  spec.test = "linear_gelu a broadcast row (row stride 0)";
  spec.cases =
      WithLinearGeluTolerance(MakeCases({{300, 256, 512}, {33, 7, 5}, {9, 100, 300}}, {at::kFloat}));
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor a = f.Input({1, s[2]}).expand({s[0], s[2]});
    return Args{a, f.Input({s[2], s[1]}), c10::IValue()};
  };
  return spec;
}

// Tiny (1e-4: products 1e-8, far above fp32's smallest normal) and large
// (1e3: products 1e6) inputs; the tolerance's atol follows magnitude^2.
// fp32 near its max is outside a GEMM's contract (every product overflows).
// More than 65,535 tile rows' worth of rows and columns (a one-dimensional
// grid: no gridDim.y limit to hit; 9 x 70001 on the few-rows path), more
// than 2^31 outputs (64-bit offsets; ~25 GB of GPU memory with the float64
// reference), and a B of more than 2^31 elements under two rows (the
// few-rows path's 64-bit offsets, 2^23 blocks; ~35 GB).
OpSpec InputClassesSpec() {
  OpSpec spec = LinearGeluSpec("fp32");
  spec.test = "linear_gelu input classes";
  const std::vector<std::vector<int64_t>> shapes = {{127, 129, 131}, {1000, 1000, 1000}};
  spec.cases.clear();
  for (double magnitude : {kb::harness::kTinyMagnitude, kb::harness::kLargeMagnitude}) {
    for (auto& c : WithLinearGeluTolerance(MakeCases(shapes, {at::kFloat}, {.magnitude = magnitude}))) {
      spec.cases.push_back(c);
    }
  }
  for (auto& c : WithLinearGeluTolerance(MakeCases({{70001, 9, 17}, {9, 70001, 17}}, {at::kFloat}))) {
    spec.cases.push_back(c);
  }
  for (auto& c : WithLinearGeluTolerance(MakeCases(
           {{(int64_t{1} << 21) + 1, 1024, 1}, {2, (int64_t{1} << 28) + 3, 9}}, {at::kFloat}))) {
    spec.cases.push_back(c);
  }
  return spec;
}

// The GELU over its whole range: a bias of N(0, 16) variance and short K put
// many pre-activations in the curved part (|z| < 3) and in the flat negative
// tail (z < -5, where 1 + tanh cancels), on both paths and both tiles.
OpSpec GeluRangeSpec() {
  OpSpec spec = LinearGeluSpec("fp32");
  spec.test = "linear_gelu wide bias (gelu range)";
  spec.cases = WithLinearGeluTolerance(MakeCases(
      {{129, 257, 3}, {64, 1000, 16}, {300, 4100, 8}, {5, 333, 7}, {1000, 1000, 1000}},
      {at::kFloat}));
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input({s[0], s[2]}), f.Input({s[2], s[1]}), f.Param({s[1]}) * 4.0};
  };
  return spec;
}

KB_OP_TEST(LinearGelu, NoBias, LinearGeluSpec("none"));
KB_OP_TEST(LinearGelu, Fp32Bias, LinearGeluSpec("fp32"));
KB_OP_TEST(LinearGelu, RowStrideMultipleOf4TakesVectors, StridedRowsSpec(4));
KB_OP_TEST(LinearGelu, RowStrideOffByOneTakesScalars, StridedRowsSpec(3));
KB_OP_TEST(LinearGelu, BroadcastRow, BroadcastRowSpec());
KB_OP_TEST(LinearGelu, TinyLargeManyTilesAndHugeOutputs, InputClassesSpec());
KB_OP_TEST(LinearGelu, WideBiasCoversGeluRange, GeluRangeSpec());

TEST(LinearGelu, RejectsTransposedViews) {
  for (const char* which : {"a", "b"}) {
    OpSpec spec = LinearGeluSpec("none");
    spec.cases = MakeCases({{64, 48, 32}}, {at::kFloat}, {.expects_rejection = true});
    spec.make_args = [which](ArgFactory& f) {
      const auto& s = f.test_case().shape;
      const bool a_t = std::string(which) == "a";
      const at::Tensor a = a_t ? f.Input({s[2], s[0]}).t() : f.Input({s[0], s[2]});
      const at::Tensor b = a_t ? f.Input({s[2], s[1]}) : f.Input({s[1], s[2]}).t();
      return Args{a, b, c10::IValue()};
    };
    kb::harness::ExpectOpPasses(spec);
  }
}

TEST(LinearGelu, RejectsStridedColumnsAndHalfTypes) {
  OpSpec spec = LinearGeluSpec("none");
  spec.cases =
      MakeCases({{8, 16, 32}}, {at::kFloat}, {.non_contiguous = true, .expects_rejection = true});
  for (auto& c : MakeCases({{8, 16, 32}}, {at::kBFloat16, at::kHalf}, {.expects_rejection = true}))
    spec.cases.push_back(c);
  kb::harness::ExpectOpPasses(spec);
}

// A bias of the wrong length, a strided bias, a half-precision bias, a 2-D
// bias: refused with a TORCH_CHECK, never broadcast or copied silently.
TEST(LinearGelu, RejectsBadBias) {
  for (int which = 0; which < 4; ++which) {
    OpSpec spec = LinearGeluSpec("fp32");
    spec.cases = MakeCases({{16, 48, 32}, {64, 48, 32}}, {at::kFloat}, {.expects_rejection = true});
    spec.make_args = [which](ArgFactory& f) {
      const auto& s = f.test_case().shape;
      at::Tensor bias;
      switch (which) {
        case 0: bias = f.Param({s[1] + 1}); break;
        case 1: bias = f.Param({2 * s[1]}).slice(0, 0, 2 * s[1], 2); break;
        case 2: bias = f.Param({s[1]}, at::kHalf); break;
        default: bias = f.Param({1, s[1]}); break;
      }
      return Args{f.Input({s[0], s[2]}), f.Input({s[2], s[1]}), bias};
    };
    kb::harness::ExpectOpPasses(spec);
  }
}

// On the host, in float64: a result that misses the last product, or the
// K-tile of 8 products at the middle of K, or uses the erf GELU instead of
// the tanh one (small K only: the two differ by at most 4.7e-4), is outside
// the GELU tolerance in at least one output, while the exact result rounded
// to fp32 is inside it.
TEST(LinearGeluTolerance, CatchesADroppedTermTileOrWrongGelu) {
  at::manual_seed(7);
  for (const auto& s : std::vector<std::vector<int64_t>>{
           {64, 64, 5}, {127, 129, 131}, {200, 200, 1000}, {256, 128, 8192}}) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const at::Tensor a = at::randn({m, k}, at::kDouble);
    const at::Tensor b = at::randn({k, n}, at::kDouble);
    const at::Tensor bias = at::randn({n}, at::kDouble);
    const at::Tensor z = at::mm(a, b) + bias;
    const at::Tensor want = at::gelu(z, "tanh");
    const kb::harness::Tolerance tol = LinearGeluTolerance(k, 1.0);
    auto within = [&](const at::Tensor& got) {
      return at::isclose(got, want, tol.rtol, tol.atol).all().item<bool>();
    };
    EXPECT_TRUE(within(want.to(at::kFloat).to(at::kDouble)));
    const at::Tensor last = at::mm(a.narrow(1, k - 1, 1), b.narrow(0, k - 1, 1));
    EXPECT_FALSE(within(at::gelu(z - last, "tanh"))) << "K = " << k << ": a dropped product passes";
    if (k >= 8) {
      const int64_t first = (k / 2) / 8 * 8;
      const at::Tensor tile = at::mm(a.narrow(1, first, 8), b.narrow(0, first, 8));
      EXPECT_FALSE(within(at::gelu(z - tile, "tanh")))
          << "K = " << k << ": a dropped K-tile passes";
    }
    if (k < 8) {
      EXPECT_FALSE(within(at::gelu(z))) << "K = " << k << ": the erf GELU passes";
    }
    // No GELU at all (the plain GEMM) fails at every K.
    EXPECT_FALSE(within(z)) << "K = " << k << ": a missing GELU passes";
  }
}

}  // namespace
