// ProjectOp names in tests/ and benchmarks/ against the binding's ops.def.
#include "core/op_names.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

constexpr const char* kBuildToml = R"([general]
name = "layer-norm"
backends = ["cuda"]

[torch]
src = ["torch-ext/torch_binding.cpp"]

[kernel.layer_norm]
backend = "cuda"
depends = ["torch"]
src = ["layer_norm_cuda/layer_norm.cu"]
)";

// Two ops, one definition split over two lines, one with an overload name.
constexpr const char* kBinding = R"src(TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("layer_norm(Tensor x, Tensor? w, Tensor? b, float eps) -> Tensor");
  ops.def(
      "layer_norm.out(Tensor(a!) out, Tensor x, Tensor? w, Tensor? b, float eps) -> ()");
}
)src";

class OpNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Put("build.toml", kBuildToml);
    Put("torch-ext/torch_binding.cpp", kBinding);
    Put("layer_norm_cuda/layer_norm.cu", "");
  }
  void Put(const std::string& relative, const std::string& text) {
    ASSERT_TRUE(fs_.Write("proj/" + relative, text).ok());
  }
  std::vector<Error> Check() {
    Expected<ProjectConfig> config = LoadProjectConfig(fs_, "proj");
    EXPECT_TRUE(config.ok()) << config.error().Located();
    return config.ok() ? CheckHarnessOpNames(fs_, *config) : std::vector<Error>{};
  }
  MemoryFileSystem fs_;
};

TEST_F(OpNamesTest, DefinedNamesAndOverloadsPass) {
  Put("tests/layer_norm_test.cpp", "spec.op = kb::harness::ProjectOp(\"layer_norm\");\n");
  Put("benchmarks/bench.cpp", "spec.op = kb::harness::ProjectOp( \"layer_norm.out\" );\n");
  EXPECT_TRUE(Check().empty());
}

// The name a template shipped with, left in a test after the op was renamed.
TEST_F(OpNamesTest, NameLeftFromTheTemplateIsReportedWhereItStands) {
  Put("tests/layer_norm_test.cpp",
      "#include \"x.h\"\n  spec.op = kb::harness::ProjectOp(\"rms_norm\");\n");
  const std::vector<Error> warnings = Check();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].Located(),
            "proj/tests/layer_norm_test.cpp:2:37: ProjectOp(\"rms_norm\") names an op the binding "
            "does not define");
  EXPECT_NE(warnings[0].hint.find("ops defined in [torch] src: layer_norm, layer_norm.out"),
            std::string::npos)
      << warnings[0].hint;
}

TEST_F(OpNamesTest, NoReadableDefinitionMeansNoVerdict) {
  Put("torch-ext/torch_binding.cpp", "REGISTER_MY_OPS();\n");
  Put("tests/t.cpp", "ProjectOp(\"anything\")\n");
  EXPECT_TRUE(Check().empty());
}

// Names built at run time (the harness's own wrong-kernel project does this):
// the defined set is incomplete, so no name is called unknown.
TEST_F(OpNamesTest, DefinitionsBuiltAtRunTimeMeanNoVerdict) {
  Put("torch-ext/torch_binding.cpp",
      "ops.def(\"copy(Tensor x) -> Tensor\");\n"
      "for (auto name : kNames) ops.def((std::string(name) + kSchema).c_str());\n");
  Put("tests/t.cpp", "ProjectOp(\"rms_norm_side_stream\")\n");
  EXPECT_TRUE(Check().empty());
}

// The binding and the tests are the project's, and may be hostile: 200,000 spaces inside a
// call (std::regex's recursive matching overflowed the stack there) are scanned like any text.
TEST_F(OpNamesTest, HugeCallsAreScannedNotCrashedOn) {
  const std::string spaces(200000, ' ');
  Put("torch-ext/torch_binding.cpp",
      "ops.def(" + spaces + "\"layer_norm(Tensor x) -> Tensor\");\n");
  Put("tests/t.cpp", "x = ProjectOp(" + spaces + "\"rms_norm\"" + spaces + ");\n" +
                         "y = ProjectOp(\"" + std::string(200000, 'a') + "\");\n");
  const std::vector<Error> warnings = Check();
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].line, 1);
  EXPECT_EQ(warnings[0].column, 200016);
  EXPECT_EQ(warnings[1].line, 2);
}

}  // namespace
}  // namespace kb
