#include "core/kernel_names.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

// Names recorded on the H200 on 2026-12-01 (CUDA 13.0's ncu and cuobjdump).
const char kSlowCopyMangled[] =
    "_ZN11bad_kernels45_GLOBAL__N__afc59adf_12_slow_copy_cu_8fdd805714SlowCopyKernelEPfPKfli";
const char kSlowCopyNcuDemangled[] = "unnamed>::SlowCopyKernel(float *, const float *, long, int)";
const char kCopyMangled[] =
    "_ZN11bad_kernels47_GLOBAL__N__6cca1339_14_bad_kernels_cu_ae0c179f10CopyKernelEPfPKflb";
const char kRmsNormBf16x8x2[] =
    "_ZN14kernels_common21RmsNormRegisterKernelI13__nv_bfloat16S1_Li8ELi2ELi0ELb0EEEvPT_PKS2_"
    "PKT0_liillff";
const char kRmsNormBf16x8x2Weighted[] =
    "_ZN14kernels_common21RmsNormRegisterKernelI13__nv_bfloat16S1_Li8ELi2ELi0ELb1EEEvPT_PKS2_"
    "PKT0_liillff";
const char kRmsNormNcuDemangled[] =
    "void RmsNormRegisterKernel<__nv_bfloat16, __nv_bfloat16, 8, 2, 0, 0>(T1 *, const T1 *, "
    "const T2 *, long, int, int, long, long, float, float)";

TEST(KernelNames, DemanglesOnlyMangledNames) {
  EXPECT_EQ(Demangle(kSlowCopyMangled),
            "bad_kernels::(anonymous namespace)::SlowCopyKernel(float*, float const*, long, int)");
  EXPECT_EQ(Demangle("kbuild_spin_kernel"), "kbuild_spin_kernel");
  EXPECT_EQ(Demangle("_Znot-a-symbol"), "_Znot-a-symbol");
}

TEST(KernelNames, DisplayDemanglesAndRestoresTheAnonymousNamespace) {
  EXPECT_EQ(DisplayKernelName(kRmsNormBf16x8x2),
            "void kernels_common::RmsNormRegisterKernel<__nv_bfloat16, __nv_bfloat16, 8, 2, 0, "
            "false>(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, long, int, int, "
            "long, long, float, float)");
  EXPECT_EQ(DisplayKernelName(kSlowCopyNcuDemangled),
            "<unnamed>::SlowCopyKernel(float *, const float *, long, int)");
  // Older ncu kept the namespaces: shown as printed.
  const std::string older = "void at::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16>(int)";
  EXPECT_EQ(DisplayKernelName(older), older);
}

TEST(KernelNames, NormalizedSignatureOneSpellingForBothDemanglers) {
  EXPECT_EQ(NormalizedSignature("bad_strided(__nv_bfloat16 *, const __nv_bfloat16 *, int)"),
            NormalizedSignature("bad_strided(__nv_bfloat16*, __nv_bfloat16 const*, int)"));
  EXPECT_EQ(NormalizedSignature("void ns::(anonymous namespace)::K<4>(float const*)"),
            "ns::<unnamed>::K<4>(floatconst*)");
  EXPECT_NE(NormalizedSignature("K<4>(float*)"), NormalizedSignature("K<8>(float*)"));
}

TEST(KernelNames, SameKernelByMangledNameIsOneInstantiation) {
  EXPECT_TRUE(SameKernel(kRmsNormBf16x8x2, kRmsNormBf16x8x2));
  EXPECT_FALSE(SameKernel(kRmsNormBf16x8x2, kRmsNormBf16x8x2Weighted));
  EXPECT_TRUE(SameKernel("kbuild_spin_kernel", "kbuild_spin_kernel"));  // extern "C"
}

TEST(KernelNames, SameKernelFromNcuDemangledNameNeedsTheWholeSignature) {
  // CUDA 13's ncu drops the namespaces (and the '<' of "<unnamed>"): still one kernel.
  EXPECT_TRUE(SameKernel(kSlowCopyNcuDemangled, kSlowCopyMangled));
  EXPECT_FALSE(SameKernel(kSlowCopyNcuDemangled, kCopyMangled));
  // ncu writes template parameters as T1/T2 and false as 0: no instantiation
  // matches, rather than any of the 240 of this base name.
  EXPECT_FALSE(SameKernel(kRmsNormNcuDemangled, kRmsNormBf16x8x2));
  EXPECT_FALSE(SameKernel(kRmsNormNcuDemangled, kRmsNormBf16x8x2Weighted));
  EXPECT_TRUE(SameKernel("void demo::ScaleVec<4>(float4 *, const float4 *, float, int)",
                         "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi"));
  EXPECT_FALSE(SameKernel("void demo::ScaleVec<8>(float4 *, const float4 *, float, int)",
                          "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi"));
}

}  // namespace
}  // namespace kb
