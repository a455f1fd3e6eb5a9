#include "kbuild/harness/arg_factory.h"

#include <gtest/gtest.h>

#include <cstring>

#include "kbuild/harness/element_checks.h"

namespace kb::harness {
namespace {

Case MakeCase(bool offset, bool strided) {
  Case c;
  c.shape = {3, 5};
  c.dtype = at::kBFloat16;
  c.offset_view = offset;
  c.non_contiguous = strided;
  return c;
}

TEST(Case, NamesShapeDtypeAndFlags) {
  EXPECT_EQ(MakeCase(true, true).Name(), "3x5 bf16 offset_view non_contiguous");
  EXPECT_EQ(MakeCases({{1}, {2, 3}}, {at::kFloat, at::kHalf}).size(), 4u);
  EXPECT_EQ(MakeCases({{2, 3}}, {at::kHalf})[0].Name(), "2x3 fp16");
}

TEST(ArgFactory, PlainInputIsAlignedInsideGuards) {
  ArgFactory f(MakeCase(false, false), at::kCPU, 1);
  at::Tensor x = f.Input({3, 5});
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_EQ(x.storage_offset() * 2 % 256, 0);
  const MadeTensor* made = f.Find(x);
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->role, Role::kInput);
  // Guards hold a NaN, so reading past the end brings in NaN.
  EXPECT_TRUE(std::isnan(made->base[x.storage_offset() + 15].item<float>()));
  EXPECT_TRUE(std::isnan(made->base[x.storage_offset() - 1].item<float>()));
  EXPECT_FALSE(at::isnan(x).any().item<bool>());
}

TEST(ArgFactory, OffsetViewIsMisalignedByOneElement) {
  ArgFactory f(MakeCase(true, false), at::kCPU, 1);
  at::Tensor x = f.Input({3, 5});
  EXPECT_EQ(x.storage_offset() * 2 % 256, 2);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(x.data_ptr()) % 16, 2u);
  EXPECT_EQ(f.Param({5}).storage_offset() * 2 % 256, 0) << "params keep the plain layout";
}

TEST(ArgFactory, NonContiguousInputHasStrideTwo) {
  ArgFactory f(MakeCase(false, true), at::kCPU, 1);
  at::Tensor x = f.Input({3, 5});
  EXPECT_FALSE(x.is_contiguous());
  EXPECT_EQ(x.strides(), at::IntArrayRef({10, 2}));
  EXPECT_TRUE(f.Output({3, 5}).is_contiguous()) << "outputs stay contiguous";
}

TEST(ArgFactory, OutputsArePoisoned) {
  ArgFactory f(MakeCase(false, false), at::kCPU, 1);
  at::Tensor out = f.Output({3, 5}).contiguous();
  PoisonScan scan = ScanPoison(out.data_ptr(), 15, PoisonFor(DType::kBFloat16, 2));
  EXPECT_EQ(scan.count, 15);
}

TEST(ArgFactory, SameSeedSameValuesOtherSeedOtherValues) {
  at::Tensor a = ArgFactory(MakeCase(false, false), at::kCPU, 7).Input({3, 5});
  at::Tensor b = ArgFactory(MakeCase(true, false), at::kCPU, 7).Input({3, 5});
  at::Tensor c = ArgFactory(MakeCase(false, false), at::kCPU, 8).Input({3, 5});
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_FALSE(at::equal(a, c));
  EXPECT_GT(a.to(at::kFloat).std().item<float>(), 0.5) << "random normal, not constant";
}

TEST(ArgFactory, IndicesAreSeededIntegersInTheirRangeAndReadOnly) {
  ArgFactory f(MakeCase(true, true), at::kCPU, 7);
  at::Tensor targets = f.Indices({4099}, 3, 151936);
  EXPECT_EQ(targets.scalar_type(), at::kLong);
  EXPECT_TRUE(targets.is_contiguous()) << "indices ignore the case's layout";
  EXPECT_EQ(targets.storage_offset() * 8 % 256, 0);
  EXPECT_GE(targets.min().item<std::int64_t>(), 3);
  EXPECT_LT(targets.max().item<std::int64_t>(), 151936);
  EXPECT_GT(std::get<0>(at::_unique(targets)).size(0), 4000) << "drawn, not a constant";
  EXPECT_EQ(f.Find(targets)->role, Role::kParam);
  EXPECT_TRUE(at::equal(targets, ArgFactory(MakeCase(false, false), at::kCPU, 7)
                                     .Indices({4099}, 3, 151936)));
  EXPECT_FALSE(at::equal(targets, ArgFactory(MakeCase(false, false), at::kCPU, 8)
                                      .Indices({4099}, 3, 151936)));
  EXPECT_EQ(f.Indices({2, 3}, 0, 5, at::kInt).scalar_type(), at::kInt);
  EXPECT_THROW(f.Indices({2}, 5, 5), c10::Error);
  EXPECT_THROW(f.Indices({2}, 0, 5, at::kFloat), c10::Error);
}

TEST(ArgFactory, FillPatternWritesTheSameBitsAsTheHostFill) {
  for (at::ScalarType dtype : {at::kBFloat16, at::kHalf, at::kFloat, at::kDouble, at::kChar}) {
    const DType d = ToDType(dtype);
    at::Tensor t = at::empty({37}, at::TensorOptions().dtype(dtype));
    for (PoisonPattern p : {PoisonFor(d, t.element_size()), GuardFor(d, t.element_size())}) {
      FillPattern(t, p);
      at::Tensor want = at::empty_like(t);
      FillPoison(want.data_ptr(), 37, p);
      EXPECT_EQ(std::memcmp(t.data_ptr(), want.data_ptr(), t.nbytes()), 0) << t.scalar_type();
    }
  }
}

}  // namespace
}  // namespace kb::harness
