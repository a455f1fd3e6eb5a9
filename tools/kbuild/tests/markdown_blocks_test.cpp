#include "core/markdown_blocks.h"

#include <gtest/gtest.h>

#include "core/frontmatter.h"

namespace kb {
namespace {

TEST(MarkdownBlocks, FindsFencedBlocksWithLanguageLineAndFragmentMarker) {
  const auto doc = ParseMarkdown(
      "# Title\n"
      "```cuda\n"
      "__global__ void k() {}\n"
      "```\n"
      "<!-- fragment -->\n"
      "~~~~C++ title\n"
      "x = 1;\n"
      "```\n"
      "~~~~\n");
  ASSERT_EQ(doc.blocks.size(), 2u);
  EXPECT_EQ(doc.blocks[0].language, "cuda");
  EXPECT_EQ(doc.blocks[0].line, 2);
  EXPECT_EQ(doc.blocks[0].code, "__global__ void k() {}\n");
  EXPECT_FALSE(doc.blocks[0].fragment);
  EXPECT_EQ(doc.blocks[1].language, "c++");
  EXPECT_EQ(doc.blocks[1].code,
            "x = 1;\n```\n");  // a shorter, different fence does not close
  EXPECT_TRUE(doc.blocks[1].fragment);
}

TEST(MarkdownBlocks, UnclosedFenceRunsToTheEnd) {
  const auto doc = ParseMarkdown("```bash\nkbuild doctor\n");
  ASSERT_EQ(doc.blocks.size(), 1u);
  EXPECT_EQ(doc.blocks[0].code, "kbuild doctor\n");
}

TEST(MarkdownBlocks, InlineCodeAndLinksCarryTheirColumns) {
  const auto doc = ParseMarkdown(
      "Run `kbuild build` then read [the guide](references/h100.md#l2 \"t\").\n"
      "``a ` b`` and ![img](<pics/a b.png>)\n"
      "[ref]: templates/rmsnorm/build.toml\n");
  ASSERT_EQ(doc.inline_code.size(), 2u);
  EXPECT_EQ(doc.inline_code[0].text, "kbuild build");
  EXPECT_EQ(doc.inline_code[0].line, 1);
  EXPECT_EQ(doc.inline_code[0].column, 5);
  EXPECT_EQ(doc.inline_code[1].text, "a ` b");
  ASSERT_EQ(doc.links.size(), 3u);
  EXPECT_EQ(doc.links[0].target, "references/h100.md#l2");
  EXPECT_EQ(doc.links[0].column, 42);
  EXPECT_EQ(doc.links[1].target, "pics/a b.png");
  EXPECT_EQ(doc.links[2].target, "templates/rmsnorm/build.toml");
  EXPECT_EQ(doc.links[2].line, 3);
}

TEST(MarkdownBlocks, NothingInsideFencesOrCodeSpansIsALink) {
  const auto doc = ParseMarkdown("```md\n[x](a.md)\n```\n`[y](b.md)`\n");
  EXPECT_TRUE(doc.links.empty());
}

TEST(MarkdownBlocks, ExternalAndAnchorLinks) {
  EXPECT_TRUE(IsExternalOrAnchorLink("https://huggingface.co/docs"));
  EXPECT_TRUE(IsExternalOrAnchorLink("mailto:a@b.c"));
  EXPECT_TRUE(IsExternalOrAnchorLink("#section"));
  EXPECT_FALSE(IsExternalOrAnchorLink("references/x.md"));
  EXPECT_FALSE(IsExternalOrAnchorLink("../templates/a.md"));
}

TEST(Frontmatter, ParsesPlainQuotedAndFoldedValues) {
  auto fm = ParseFrontmatter(
      "---\n"
      "name: cuda-kernels\n"
      "description: >-\n"
      "  Write kernels.\n"
      "  Use when asked.\n"
      "argument-hint: \"say \\\"what\\\"\"\n"
      "other: 'it''s'\n"
      "---\n"
      "body\n",
      "SKILL.md");
  ASSERT_TRUE(fm.ok()) << fm.error().Located();
  ASSERT_EQ(fm->fields.size(), 4u);
  EXPECT_EQ(fm->Find("name")->value, "cuda-kernels");
  EXPECT_EQ(fm->Find("description")->value, "Write kernels. Use when asked.");
  EXPECT_EQ(fm->Find("description")->line, 3);
  EXPECT_EQ(fm->Find("argument-hint")->value, "say \"what\"");
  EXPECT_EQ(fm->Find("other")->value, "it's");
  EXPECT_EQ(fm->body_line, 9);
}

TEST(Frontmatter, LiteralBlockKeepsLineBreaks) {
  auto fm = ParseFrontmatter("---\nd: |\n  a\n  b\n---\n", "S.md");
  ASSERT_TRUE(fm.ok());
  EXPECT_EQ(fm->Find("d")->value, "a\nb\n");
}

TEST(Frontmatter, ErrorsNameTheLine) {
  EXPECT_EQ(
      ParseFrontmatter("# no frontmatter\n", "SKILL.md").error().Located(),
      "SKILL.md:1:1: missing frontmatter: the file must start with '---'");
  EXPECT_EQ(ParseFrontmatter("---\nname: a\n", "SKILL.md").error().Located(),
            "SKILL.md:1:1: the frontmatter is not closed");
  auto bad = ParseFrontmatter("---\nname: a\njust words\n---\n", "SKILL.md");
  EXPECT_EQ(bad.error().Located(),
            "SKILL.md:3:5: expected 'key: value' in the frontmatter");
  EXPECT_EQ(bad.error().code, ExitCode::kUsage);
  EXPECT_EQ(ParseFrontmatter("---\nname: a\nname: b\n---\n", "SKILL.md")
                .error()
                .Located(),
            "SKILL.md:3:1: duplicate key 'name'");
}

}  // namespace
}  // namespace kb
