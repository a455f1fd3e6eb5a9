#include "core/render.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

const RenderVars kVars = {{"name", "my-op"}, {"python_name", "my_op"}, {"version", "1"}};

TEST(Render, SubstitutesEveryPlaceholder) {
  Expected<std::string> out = RenderText(
      "name = \"{{name}}\"\nimport {{python_name}}\nv{{version}}{{version}}\n", kVars, "f.txt");
  ASSERT_TRUE(out.ok()) << out.error().Located();
  EXPECT_EQ(*out, "name = \"my-op\"\nimport my_op\nv11\n");
}

TEST(Render, TextWithoutPlaceholdersIsUnchanged) {
  const std::string text = "a { b } }} {x} {{name";
  Expected<std::string> out = RenderText(text, kVars, "f.txt");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, text);
}

TEST(Render, CppNestedBraceInitIsText) {
  const std::string text = "MakeCases({{1, 64}, {7, 2047}}, {{at::kFloat}}, {{{name}}});";
  Expected<std::string> out = RenderText(text, kVars, "t.cpp");
  ASSERT_TRUE(out.ok()) << out.error().Located();
  EXPECT_EQ(*out, "MakeCases({{1, 64}, {7, 2047}}, {{at::kFloat}}, {my-op});");
}

TEST(Render, ValuesAreNotRenderedAgain) {
  Expected<std::string> out = RenderText("[{{kernels}}]", {{"kernels", "{{name}}"}}, "f.txt");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ExitCode::kInternal);
}

TEST(Render, UnknownPlaceholderNamesFileSpotAndNearestName) {
  Expected<std::string> out = RenderText("line one\n  {{pyton_name}}\n", kVars, "t/a.py");
  ASSERT_FALSE(out.ok());
  const Error& e = out.error();
  EXPECT_EQ(e.code, ExitCode::kUsage);
  EXPECT_EQ(e.Located(), "t/a.py:2:3: unknown placeholder '{{pyton_name}}'");
  EXPECT_EQ(e.hint, "did you mean 'python_name'?");
}

TEST(Render, UnknownPlaceholderFarFromAllListsValidOnes) {
  Expected<std::string> out = RenderText("{{zzzzzzzz}}", kVars, "f");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().hint, "valid: name, python_name, version");
}

TEST(Render, SurvivingBracesAreAnInternalErrorWithLocation) {
  Expected<std::string> out = RenderText("ok {{name}}\nx = {{ name }}\n", kVars, "f.cu");
  ASSERT_FALSE(out.ok());
  const Error& e = out.error();
  EXPECT_EQ(e.code, ExitCode::kInternal);
  EXPECT_EQ(e.Located(), "f.cu:2:5: '{{ name }}' left after rendering");
  EXPECT_EQ(e.hint,
            "write placeholders without spaces, like {{python_name}}; fix the template file");
}

TEST(Render, PathComponentsAreRendered) {
  Expected<std::filesystem::path> out =
      RenderPath("torch-ext/{{python_name}}/{{python_name}}_ops.py", kVars);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->generic_string(), "torch-ext/my_op/my_op_ops.py");
}

TEST(Render, PathErrorsNameThePathWithoutPosition) {
  Expected<std::filesystem::path> out = RenderPath("src/{{nam}}.cu", kVars);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().Located(), "src/{{nam}}.cu: unknown placeholder '{{nam}}'");
  EXPECT_EQ(out.error().hint, "did you mean 'name'?");
}

TEST(Render, BinaryDetectionLooksForNulBytes) {
  EXPECT_FALSE(LooksBinary("plain text {{name}}"));
  EXPECT_TRUE(LooksBinary(std::string("PNG\0\x01{{", 7)));
  EXPECT_FALSE(LooksBinary(""));
}

}  // namespace
}  // namespace kb
