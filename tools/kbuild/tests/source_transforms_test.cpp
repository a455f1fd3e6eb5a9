// The builtin proposer's source transforms on realistic kernel text: each one
// where it applies, nothing inside comments, strings or directives, nothing on
// text the scan does not understand, and applying a site removes it.
#include "core/source_transforms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/source_scan.h"

namespace kb {
namespace {

constexpr const char* kRmsNorm = R"(// rms_norm: y = x / sqrt(mean(x^2) + eps) * w.
// Not a kernel: __global__ void Fake(const float* p) {}
#include <cuda_runtime.h>
#define LAUNCH(k) k<<<1, 256>>>()  /* __global__ in a macro */

constexpr int kVec = 4;
static const char* kName = "__global__ void InString(const float* s) {}";

template <typename T, int kBlock>
__global__ void __launch_bounds__(kBlock) RmsNormKernel(
    T* __restrict__ out,      // written
    const T* x,               /* read */
    const T *weight,
    int cols, float eps) {
  float acc[kVec];
  for (int i = 0; i < kVec; ++i) acc[i] = 0.f;
  // sum of squares
  for (int i = 0; i < cols; ++i) acc[0] += float(x[i]) * float(x[i]);
  #pragma unroll 2
  for (int j = 0; j < 8; j++) acc[1] += 1.f;
  out[0] = T(acc[0] * weight[0] * eps);
}

__global__ void __launch_bounds__(256, 2) AddKernel(float* out, const float* __restrict__ a,
                                                     float const* b, int n) {
  for (int i = 0; i < 16; ++i) out[i] = a[i] + b[i];
}

__device__ __forceinline__ float Warp(float v) {
  for (int offset = 0; offset < 5; ++offset) v += 1.f;
  return v;
}
)";

std::vector<std::string> Ids(const std::vector<TransformSite>& sites) {
  std::vector<std::string> ids;
  for (const auto& s : sites) ids.push_back(s.id);
  return ids;
}

const TransformSite* Find(const std::vector<TransformSite>& sites, const std::string& id) {
  for (const auto& s : sites) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

TEST(SourceTransforms, FindsEachKindOnlyInCode) {
  const auto sites = FindTransformSites("csrc/rms.cu", kRmsNorm);
  const std::vector<std::string> expected = {
      "csrc/rms.cu:restrict:RmsNormKernel#0",    "csrc/rms.cu:minblocks=1:RmsNormKernel#0",
      "csrc/rms.cu:minblocks=2:RmsNormKernel#0", "csrc/rms.cu:minblocks=4:RmsNormKernel#0",
      "csrc/rms.cu:unroll:RmsNormKernel#0:0",    "csrc/rms.cu:restrict:AddKernel#0",
      "csrc/rms.cu:minblocks=1:AddKernel#0",     "csrc/rms.cu:minblocks=4:AddKernel#0",
      "csrc/rms.cu:unroll:AddKernel#0:0",        "csrc/rms.cu:unroll:Warp#0:0"};
  EXPECT_EQ(Ids(sites), expected);
  const auto* restrict = Find(sites, "csrc/rms.cu:restrict:RmsNormKernel#0");
  ASSERT_TRUE(restrict);
  EXPECT_EQ(restrict->description, "restrict on const pointers of RmsNormKernel (csrc/rms.cu)");
}

TEST(SourceTransforms, RestrictGoesOnConstPointersOnly) {
  const auto sites = FindTransformSites("csrc/rms.cu", kRmsNorm);
  const std::string rms =
      ApplyTransform(kRmsNorm, *Find(sites, "csrc/rms.cu:restrict:RmsNormKernel#0"));
  EXPECT_NE(rms.find("    T* __restrict__ out,      // written\n"
                     "    const T* __restrict__ x,               /* read */\n"
                     "    const T * __restrict__ weight,\n"),
            std::string::npos)
      << rms;
  const std::string add =
      ApplyTransform(kRmsNorm, *Find(sites, "csrc/rms.cu:restrict:AddKernel#0"));
  EXPECT_NE(
      add.find("AddKernel(float* out, const float* __restrict__ a,\n"
               "                                                     float const* __restrict__ b,"),
      std::string::npos)
      << add;
  // Nothing else changed: the comment, the string and the macro keep their text.
  EXPECT_NE(add.find("void Fake(const float* p)"), std::string::npos);
  EXPECT_NE(add.find("void InString(const float* s)"), std::string::npos);
}

TEST(SourceTransforms, LaunchBoundsGetsOrMovesItsMinimumBlocks) {
  const auto sites = FindTransformSites("k.cu", kRmsNorm);
  const auto* add = Find(sites, "k.cu:minblocks=2:RmsNormKernel#0");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->description, "__launch_bounds__(kBlock, 2) on RmsNormKernel (k.cu)");
  EXPECT_NE(ApplyTransform(kRmsNorm, *add).find("__launch_bounds__(kBlock, 2) RmsNormKernel("),
            std::string::npos);
  const auto* down = Find(sites, "k.cu:minblocks=1:AddKernel#0");
  ASSERT_TRUE(down);
  EXPECT_NE(ApplyTransform(kRmsNorm, *down).find("__launch_bounds__(256, 1) AddKernel("),
            std::string::npos);
  EXPECT_FALSE(Find(sites, "k.cu:minblocks=2:AddKernel#0"));  // what it has already
  // Not understood: an expression, a third argument, a value off the ladder.
  for (const char* bounds : {"(2 * 128)", "(256, 2, 1)", "(256, 3)", "(256, kMin)"}) {
    const std::string text = std::string("__global__ void __launch_bounds__") + bounds +
                             " K(float* y) { y[0] = 1.f; }\n";
    EXPECT_TRUE(FindTransformSites("k.cu", text).empty()) << bounds;
  }
}

TEST(SourceTransforms, UnrollOnlyBeforeConstantLoopsWithoutADirective) {
  const auto sites = FindTransformSites("k.cu", kRmsNorm);
  const auto* rms = Find(sites, "k.cu:unroll:RmsNormKernel#0:0");
  ASSERT_TRUE(rms);
  EXPECT_NE(ApplyTransform(kRmsNorm, *rms)
                .find("  float acc[kVec];\n  #pragma unroll\n"
                      "  for (int i = 0; i < kVec; ++i)"),
            std::string::npos);
  // The loop over `cols` (not constant) and the one with `#pragma unroll 2` have none.
  EXPECT_FALSE(Find(sites, "k.cu:unroll:RmsNormKernel#0:1"));
  EXPECT_FALSE(Find(sites, "k.cu:unroll:RmsNormKernel#0:2"));
  // A template parameter is a constant too; a runtime name or another header is not.
  const std::string templated =
      "template <typename T, int kItems>\n__device__ void Load(T* v) {\n"
      "  for (int i = 0; i < kItems; ++i) v[i] = T(0);\n"
      "  for (int i = 0; i < n; ++i) v[i] = T(0);\n"
      "  for (int i = 1; i < 4; ++i) v[i] = T(0);\n"
      "  for (int i = 0; i <= 4; ++i) v[i] = T(0);\n"
      "  for (size_t i = 0; i < 4; ++i) v[i] = T(0);\n"
      "  if (v) { for (int i = 0; i < 4; ++i) v[i] = T(0); }\n}\n";
  EXPECT_EQ(Ids(FindTransformSites("k.cuh", templated)),
            std::vector<std::string>{"k.cuh:unroll:Load#0:0"});
}

TEST(SourceTransforms, ApplyingASiteRemovesIt) {
  // Every site of the file, applied alone: its id is gone from the result.
  for (const auto& site : FindTransformSites("k.cu", kRmsNorm)) {
    const std::string once = ApplyTransform(kRmsNorm, site);
    EXPECT_NE(once, kRmsNorm) << site.id;
    EXPECT_FALSE(Find(FindTransformSites("k.cu", once), site.id)) << site.id;
  }
  // Restrict and unroll applied until none is left: applying them again finds
  // nothing to do; only the launch-bounds ladder (a value, not a site) stays.
  std::string text = kRmsNorm;
  for (int n = 0; n < 20; ++n) {
    const auto sites = FindTransformSites("k.cu", text);
    const auto next = std::find_if(sites.begin(), sites.end(), [](const TransformSite& s) {
      return s.id.find("minblocks") == std::string::npos;
    });
    if (next == sites.end()) break;
    text = ApplyTransform(text, *next);
  }
  for (const auto& site : FindTransformSites("k.cu", text)) {
    EXPECT_NE(site.id.find("minblocks"), std::string::npos) << site.id;
  }
  EXPECT_NE(text.find("const T* __restrict__ x"), std::string::npos);
  EXPECT_EQ(text.find("__restrict__ __restrict__"), std::string::npos);
  EXPECT_EQ(text.find("#pragma unroll\n  #pragma unroll"), std::string::npos);
}

TEST(SourceTransforms, LeavesAloneWhatItDoesNotUnderstand) {
  const std::vector<std::string> refused = {
      // A declaration elsewhere in the file: both would have to change.
      "__global__ void K(const float* x);\n__global__ void K(const float* x) { }\n",
      // Default arguments, arrays, pointers to pointers, function pointers.
      "__global__ void K(const float* x, int n = 4) { }\n",
      "__global__ void K(const float* x, const int v[4]) { }\n",
      "__global__ void K(const float** x) { }\n",
      "__global__ void K(const float* x, void (*f)(int)) { }\n",
      // An unterminated comment or string, unbalanced brackets: the whole file.
      "__global__ void K(const float* x) { }\n/* open",
      "__global__ void K(const float* x) { const char* s = \"open; }\n",
      "__global__ void K(const float* x) { if (x) { }\n",
      // Only a declaration; volatile; an existing restrict.
      "__global__ void K(const float* x);\n",
      "__global__ void K(const volatile float* x) { }\n",
      "__global__ void K(const float* __restrict x) { }\n",
      // A raw string holding a kernel.
      "const char* s = R\"cu(__global__ void K(const float* x) { })cu\";\n",
  };
  for (const auto& text : refused) {
    EXPECT_TRUE(FindTransformSites("k.cu", text).empty()) << text;
  }
  const std::string big(kMaxTransformSourceBytes + 1, ' ');
  EXPECT_TRUE(FindTransformSites("k.cu", big + "__global__ void K(const float* x) { }").empty());
}

TEST(SourceTransforms, OverloadsAndSeveralFilesHaveTheirOwnIds) {
  const std::string text =
      "__global__ void K(const float* x) { }\n__global__ void K(const double* x) { }\n";
  EXPECT_EQ(Ids(FindTransformSites("a.cu", text)),
            (std::vector<std::string>{"a.cu:restrict:K#0", "a.cu:restrict:K#1"}));
  const std::vector<CandidateFile> files = {{"a.cu", text}, {"b.cpp", "int f() { return 1; }"}};
  EXPECT_EQ(FindTransformSites(files).size(), 2u);
}

TEST(SourceTransforms, BlankNonCodeKeepsOffsetsAndDigitSeparators) {
  bool ok = false;
  const std::string text = "int a = 1'000; // c\nchar c = '}'; /* x\ny */ int b;\n#if X\n";
  const std::string blank = BlankNonCode(text, &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(blank.size(), text.size());
  EXPECT_EQ(blank, "int a = 1'000;     \nchar c =    ;     \n     int b;\n     \n");
}

}  // namespace
}  // namespace kb
