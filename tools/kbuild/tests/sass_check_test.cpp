#include "core/sass_check.h"

#include <gtest/gtest.h>

#include "test_data.h"

namespace kb {
namespace {

// cuobjdump 13.5 on two kernels compiled by nvcc 13.0 for sm_90a
// (cuobjdump-demo-kernels.cu.txt): a float4 copy-scale and a strided bf16
// read into a run-time-indexed local array.
std::vector<SassFunction> DemoKernels() {
  auto functions = ParseCuobjdumpSass(ReadTestData("cuobjdump-sass-demo-sm90a.txt"));
  AddResourceUsage(ReadTestData("cuobjdump-res-usage-demo-sm90a.txt"), functions);
  return functions;
}

TEST(SassCheck, CountsWidthsAndLocalMemoryOfRecordedSass) {
  const auto functions = DemoKernels();
  ASSERT_EQ(functions.size(), 2u);
  const SassFunction& good = functions[0];
  EXPECT_EQ(good.mangled, "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi");
  EXPECT_EQ(good.name, "void demo::ScaleVec<4>(float4*, float4 const*, float, int)");
  EXPECT_EQ(good.arch, "sm_90a");
  EXPECT_EQ(good.global_loads, (std::map<int, int>{{128, 1}}));
  EXPECT_EQ(good.global_stores, (std::map<int, int>{{128, 1}}));
  EXPECT_EQ(good.local_loads + good.local_stores, 0);
  EXPECT_EQ(good.registers, 14);
  EXPECT_EQ(good.stack_bytes, 0);
  EXPECT_TRUE(SassFindings(good).empty());
  EXPECT_EQ(SassCheckLine(good),
            "loads 1x LDG.128; stores 1x STG.128; local memory: none; 14 registers, stack 0 B");

  const SassFunction& bad = functions[1];
  EXPECT_EQ(bad.name, "bad_strided(__nv_bfloat16*, __nv_bfloat16 const*, int, int, int)");
  EXPECT_EQ(bad.global_loads, (std::map<int, int>{{16, 1}}));
  EXPECT_EQ(bad.global_stores, (std::map<int, int>{{16, 1}}));
  EXPECT_EQ(bad.local_loads, 1);
  EXPECT_EQ(bad.local_stores, 1);
  EXPECT_EQ(bad.registers, 18);
  EXPECT_EQ(bad.stack_bytes, 256);
  EXPECT_EQ(SassCheckLine(bad),
            "loads 1x LDG.16; stores 1x STG.16; local memory: 1 LDL, 1 STL; 18 registers, stack "
            "256 B");
  const auto findings = SassFindings(bad);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_TRUE(findings[0].starts_with("local memory in the SASS (1 LDL, 1 STL, stack 256 B)"));
  EXPECT_TRUE(findings[1].starts_with("global loads are at most 16-bit"));
  const auto json = SassFunctionJson(bad);
  EXPECT_EQ(json["global_loads"], nlohmann::json({{"16", 1}}));
  EXPECT_EQ(json["local_loads"], 1);
  EXPECT_EQ(json["stack_bytes"], 256);
  EXPECT_EQ(json["findings"].size(), 2u);
}

TEST(SassCheck, ReadsPredicatesWidthsAndKeepsTheFirstArchitecture) {
  const std::string sass =
      "\tcode for sm_90a\n"
      "\t\tFunction : _Z1kPf\n"
      "        /*0010*/              @!P0 LDG.E.64 R2, desc[UR4][R2.64] ;  /* 0x0 */\n"
      "        /*0020*/                   LDG.E R4, desc[UR4][R2.64] ;  /* 0x0 */\n"
      "        /*0030*/                   LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64] ;\n"
      "        /*0040*/                   LDGDEPBAR ;\n"
      "        /*0050*/                   STG.E.U8 desc[UR4][R2.64], R4 ;\n"
      "        /*0060*/                   STL.64 [R1], R4 ;\n"
      "\tcode for sm_100a\n"
      "\t\tFunction : _Z1kPf\n"
      "        /*0010*/                   LDG.E.ENL2.256 R4, desc[UR4][R2.64] ;\n";
  const auto functions = ParseCuobjdumpSass(sass);
  ASSERT_EQ(functions.size(), 1u);
  EXPECT_EQ(functions[0].global_loads, (std::map<int, int>{{32, 1}, {64, 1}, {128, 1}}));
  EXPECT_EQ(functions[0].global_stores, (std::map<int, int>{{8, 1}}));
  EXPECT_EQ(functions[0].local_stores, 1);
  EXPECT_EQ(functions[0].arch, "sm_90a");
  EXPECT_EQ(functions[0].name, "k(float*)");
}

// Shaped like nvcc 13.0's SASS for a bf16 vector read through a const reference (x) beside
// one read into a local (y): eight LDG.E.U16 at +0x0 .. +0xe from one register.
TEST(SassCheck, FindsAVectorReadAnElementAtATime) {
  std::string sass = "\tcode for sm_90a\n\t\tFunction : _Z1kP6__halfPKS_S2_\n";
  for (int i = 0; i < 8; ++i) {
    const std::string offset = i == 0 ? "" : "+0x" + std::string(1, "02468ace"[i]);
    sass += "        /*0100*/                   LDG.E.U16.CONSTANT R" + std::to_string(10 + i) +
            ", desc[UR4][R4.64" + offset + "] ;  /* 0x0 */\n";
  }
  sass +=
      "        /*0200*/                   LDG.E.128.CONSTANT R20, desc[UR4][R6.64] ;\n"
      // a split row's edge: scalars, none of them a whole 16-byte window
      "        /*0210*/               @P0 LDG.E.U16 R30, desc[UR4][R8.64+0x10] ;\n"
      "        /*0220*/               @P1 LDG.E.U16 R31, desc[UR4][R8.64+0x12] ;\n"
      "        /*0230*/                   STG.E.128 desc[UR4][R2.64], R20 ;\n"
      "\t\tFunction : _Z1jPf\n"
      "        /*0010*/                   LDG.E.U16 R2, desc[UR4][R4.64] ;\n";
  const auto functions = ParseCuobjdumpSass(sass);
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0].element_read_vectors, 1);
  EXPECT_EQ(functions[0].global_loads, (std::map<int, int>{{16, 10}, {128, 1}}));
  const auto findings = SassFindings(functions[0]);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(findings[0].starts_with("1 16-byte vector(s) read an element at a time"));
  EXPECT_EQ(functions[1].element_read_vectors, 0);  // the same register, another kernel
  const auto json = SassFunctionJson(functions[0]);
  EXPECT_EQ(json["element_read_vectors"], 1);
  EXPECT_EQ(SassFunctionFromJson(json).element_read_vectors, 1);
}

}  // namespace
}  // namespace kb
