#include "core/variant.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(Variant, NameFromTorchAndCudaVersions) {
  EXPECT_EQ(*VariantName("2.11.0+cu130", "13.0", true), "torch211-cxx11-cu130-x86_64-linux");
  EXPECT_EQ(*VariantName("2.8.0", "12.8", true), "torch28-cxx11-cu128-x86_64-linux");
  EXPECT_EQ(*VariantName("2.6.0+cu126", "12.6", false), "torch26-cxx98-cu126-x86_64-linux");
}

TEST(Variant, CpuOnlyTorchIsAnEnvironmentError) {
  auto v = VariantName("2.11.0+cpu", "", true);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(v.error().message,
            "torch 2.11.0+cpu was built without CUDA (torch.version.cuda is None)");
}

TEST(Variant, ParsesMajorMinor) {
  EXPECT_EQ(ParseMajorMinor("2.11.0+cu130")->minor, 11);
  EXPECT_EQ(ParseMajorMinor("13.0")->major, 13);
  EXPECT_FALSE(ParseMajorMinor("banana").ok());
  EXPECT_FALSE(ParseMajorMinor("13").ok());
}

TEST(Variant, NamespaceHashesNameVersionAndBindingSources) {
  const std::string a = OpNamespace("my_op", 1, {{"torch-ext/b.cpp", "x"}, {"torch-ext/b.h", "y"}});
  EXPECT_EQ(a.rfind("_my_op_cuda_", 0), 0u);
  EXPECT_EQ(a.size(), std::string("_my_op_cuda_").size() + 8);
  // Order of the sources does not matter; content, version and name do.
  EXPECT_EQ(a, OpNamespace("my_op", 1, {{"torch-ext/b.h", "y"}, {"torch-ext/b.cpp", "x"}}));
  EXPECT_NE(a, OpNamespace("my_op", 2, {{"torch-ext/b.cpp", "x"}, {"torch-ext/b.h", "y"}}));
  EXPECT_NE(a, OpNamespace("my_op", 1, {{"torch-ext/b.cpp", "x2"}, {"torch-ext/b.h", "y"}}));
  EXPECT_NE(a, OpNamespace("other", 1, {{"torch-ext/b.cpp", "x"}, {"torch-ext/b.h", "y"}}));
}

TEST(Variant, GencodeUsesArchSpecificHopperTarget) {
  EXPECT_EQ(*GencodeFlag("9.0"), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(*GencodeFlag("8.0"), "-gencode=arch=compute_80,code=sm_80");
  EXPECT_EQ(*GencodeFlag("10.0a"), "-gencode=arch=compute_100a,code=sm_100a");
  auto bad = GencodeFlag("sm90");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "invalid CUDA capability 'sm90'");
  EXPECT_EQ(bad.error().code, ExitCode::kUsage);
}

TEST(Variant, BuiltArchNamesWhatWasCompiled) {
  EXPECT_EQ(BuiltArch("9.0"), "9.0a");
  EXPECT_EQ(BuiltArch("8.0"), "8.0");
}

}  // namespace
}  // namespace kb
