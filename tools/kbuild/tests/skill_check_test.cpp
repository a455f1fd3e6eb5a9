#include "core/skill_check.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

const SourceText kSkillMd("SKILL.md", "");

Frontmatter Fm(const std::string& text) {
  return *ParseFrontmatter(text, "SKILL.md");
}

TEST(SkillFrontmatter, AcceptsAValidSkill) {
  EXPECT_TRUE(CheckSkillFrontmatter(
                  Fm("---\nname: cuda-kernels\ndescription: Use it.\n---\n"),
                  kSkillMd, "cuda-kernels")
                  .empty());
}

TEST(SkillFrontmatter, ReportsEachBrokenRule) {
  auto missing =
      CheckSkillFrontmatter(Fm("---\nname: cuda-kernels\n---\n"), kSkillMd, "");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].Located(),
            "SKILL.md:1:1: frontmatter has no 'description'");
  EXPECT_EQ(missing[0].code, ExitCode::kCheckFailed);

  auto bad_name = CheckSkillFrontmatter(
      Fm("---\nname: CUDA_Kernels\ndescription: x\n---\n"), kSkillMd, "");
  ASSERT_EQ(bad_name.size(), 1u);
  EXPECT_EQ(bad_name[0].Located(),
            "SKILL.md:2:1: invalid skill name 'CUDA_Kernels'");

  auto long_name = CheckSkillFrontmatter(
      Fm("---\nname: " + std::string(65, 'a') + "\ndescription: x\n---\n"),
      kSkillMd, "");
  EXPECT_EQ(long_name.size(), 1u);

  auto folder =
      CheckSkillFrontmatter(Fm("---\nname: kernels\ndescription: x\n---\n"),
                            kSkillMd, "cuda-kernels");
  ASSERT_EQ(folder.size(), 1u);
  EXPECT_EQ(folder[0].message,
            "skill name 'kernels' differs from its folder 'cuda-kernels'");

  auto long_description = CheckSkillFrontmatter(
      Fm("---\nname: a\ndescription: " + std::string(1025, 'x') + "\n---\n"),
      kSkillMd, "");
  ASSERT_EQ(long_description.size(), 1u);
  EXPECT_EQ(long_description[0].message,
            "the description is 1025 characters long; the limit is 1024");

  auto brackets = CheckSkillFrontmatter(
      Fm("---\nname: a\ndescription: use <this>\n---\n"), kSkillMd, "");
  ASSERT_EQ(brackets.size(), 1u);
  EXPECT_EQ(brackets[0].message, "the description contains '<' or '>'");
}

TEST(SkillLinks, ResolveInsideThePackAsInstalled) {
  const std::vector<std::filesystem::path> pack = {
      "SKILL.md", "references/guide.md", "templates/rmsnorm/build.toml"};
  auto doc = ParseMarkdown(
      "[a](references/guide.md#occupancy) [b](https://x.org) [c](#top)\n"
      "[d](references/missing.md) [e](templates/rmsnorm/) "
      "[f](../outside.md)\n");
  auto problems = CheckLinks(doc, "SKILL.md", pack,
                             SourceText("skills/cuda-kernels/SKILL.md", ""));
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].Located(),
            "skills/cuda-kernels/SKILL.md:2:5: broken link "
            "'references/missing.md': no such "
            "file in the pack");
  EXPECT_EQ(problems[1].Located(),
            "skills/cuda-kernels/SKILL.md:2:56: link '../outside.md' points "
            "outside the skill "
            "pack");

  auto from_reference =
      ParseMarkdown("[t](../templates/rmsnorm/build.toml) [s](../SKILL.md)\n");
  EXPECT_TRUE(CheckLinks(from_reference, "references/guide.md", pack,
                         SourceText("references/guide.md", ""))
                  .empty());
}

TEST(SkillCommandLines, FoundInShellBlocksAndInlineCode) {
  auto doc = ParseMarkdown(
      "Run `kbuild doctor --json`, not `make`; `kbuild` and `kbuild <cmd> "
      "--help` are no commands.\n"
      "```bash\n"
      "# a comment\n"
      "$ kbuild init my-norm --template rmsnorm && cd my-norm\n"
      "KBUILD_HOME=/x kbuild build \\\n"
      "  --json > out.json\n"
      "```\n"
      "```python\n"
      "kbuild test\n"
      "```\n");
  auto lines = FindKbuildCommandLines(doc);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].args, (std::vector<std::string>{"init", "my-norm",
                                                     "--template", "rmsnorm"}));
  EXPECT_EQ(lines[0].line, 4);
  EXPECT_EQ(lines[0].column, 3);
  EXPECT_EQ(lines[1].args, (std::vector<std::string>{"build", "--json"}));
  EXPECT_EQ(lines[1].line, 5);
  EXPECT_EQ(lines[2].args, (std::vector<std::string>{"doctor", "--json"}));
  EXPECT_EQ(lines[2].column, 5);
}

TEST(SkillCodeBlocks, LanguagesAndTorchDetection) {
  EXPECT_TRUE(IsCompiledLanguage("cuda"));
  EXPECT_TRUE(IsCompiledLanguage("c++"));
  EXPECT_FALSE(IsCompiledLanguage("python"));
  EXPECT_TRUE(NeedsTorch("#include <torch/library.h>\n"));
  EXPECT_TRUE(NeedsTorch("# include \"ATen/ATen.h\"\n"));
  EXPECT_FALSE(NeedsTorch("#include <cuda_bf16.h>\n"));
}

CodeCompileSetup FakeToolchain() {
  CodeCompileSetup setup;
  setup.nvcc = "/cuda/bin/nvcc";
  setup.cxx = "g++";
  setup.cuda_include = "/cuda/include";
  setup.work_dir = "/work";
  return setup;
}

TEST(SkillCodeBlocks, CompilesCudaForSm90aAndPlacesTheFirstError) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(
      [](const std::vector<std::string>& argv, const RunOptions&) {
        ProcessResult r;
        r.exit_code = 2;
        r.output = argv[4] + "(2): error: identifier \"y\" is undefined\n";
        return r;
      });
  CodeBlock block{"cuda", "int x;\nint z = y;\n", 10, false};
  auto problem = CompileCodeBlock(fs, runner, FakeToolchain(), block,
                                  SourceText("references/a.md", block.code));
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->Located(),
            "references/a.md:12:1: code block does not compile: identifier "
            "\"y\" is undefined");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0][2], "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(*fs.Read(runner.calls[0][4]), block.code);
}

TEST(SkillCodeBlocks, TorchBlocksGetTorchIncludesOrAnEnvironmentFinding) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(
      [](const std::vector<std::string>&, const RunOptions&) {
        ProcessResult r;
        r.exit_code = 0;
        return r;
      });
  CodeBlock block{"cpp", "#include <torch/library.h>\n", 3, false};
  auto setup = FakeToolchain();
  setup.torch_missing_reason = "set KBUILD_TORCH_DIR";
  auto missing =
      CompileCodeBlock(fs, runner, setup, block, SourceText("a.md", ""));
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->code, ExitCode::kEnvironment);
  EXPECT_EQ(missing->hint, "set KBUILD_TORCH_DIR");

  setup.torch_dir = "/torch";
  setup.cache_dir = "/cache";
  EXPECT_FALSE(
      CompileCodeBlock(fs, runner, setup, block, SourceText("a.md", ""))
          .has_value());
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0][0], "g++");
  EXPECT_EQ(runner.calls[0].back(), "-I/torch/include/torch/csrc/api/include");
  // Compiled once: the cache answers the second time.
  EXPECT_FALSE(
      CompileCodeBlock(fs, runner, setup, block, SourceText("a.md", ""))
          .has_value());
  EXPECT_EQ(runner.calls.size(), 1u);
}

TEST(SkillCodeBlocks, BlocksIncludeTheKernelLibraryAsAProjectDoes) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("/home/templates/library/reduce.cuh", "// sums\n").ok());
  ASSERT_TRUE(fs.Write("/home/templates/library/README.md", "# library\n").ok());
  ASSERT_TRUE(fs.Write("/home/templates/library/old/x.cuh", "// not staged\n").ok());
  auto setup = FakeToolchain();
  ASSERT_TRUE(StageKernelLibrary(fs, "/home", setup).ok());
  EXPECT_EQ(setup.library_include, "/work/include");
  EXPECT_EQ(*fs.Read("/work/include/common/reduce.cuh"), "// sums\n");
  EXPECT_FALSE(fs.Exists("/work/include/common/README.md"));
  EXPECT_FALSE(fs.Exists("/work/include/common/old/x.cuh"));

  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    return r;
  });
  setup.cache_dir = "/cache";
  CodeBlock block{"cuda", "#include \"common/reduce.cuh\"\n", 1, false};
  ASSERT_FALSE(CompileCodeBlock(fs, runner, setup, block, SourceText("a.md", "")));
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0].back(), "-I/work/include");
  // A changed library compiles the block again; an unchanged one does not.
  ASSERT_FALSE(CompileCodeBlock(fs, runner, setup, block, SourceText("a.md", "")));
  EXPECT_EQ(runner.calls.size(), 1u);
  ASSERT_TRUE(fs.Write("/home/templates/library/reduce.cuh", "// sums, maxima\n").ok());
  ASSERT_TRUE(StageKernelLibrary(fs, "/home", setup).ok());
  ASSERT_FALSE(CompileCodeBlock(fs, runner, setup, block, SourceText("a.md", "")));
  EXPECT_EQ(runner.calls.size(), 2u);
}

TEST(SkillCodeBlocks, NoLibraryFolderStagesNothing) {
  MemoryFileSystem fs;
  auto setup = FakeToolchain();
  ASSERT_TRUE(StageKernelLibrary(fs, "/home", setup).ok());
  EXPECT_TRUE(setup.library_include.empty());
}

TEST(SkillCheck, WholePackOnAMemoryFileSystem) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("/home/skills/cuda-kernels/SKILL.md",
                       "---\nname: cuda-kernels\ndescription: Use it.\n---\n"
                       "See [g](references/g.md). Run `kbuild doctor` and "
                       "`kbuild bogus`.\n"
                       "<!-- fragment -->\n```cuda\nx;\n```\n")
                  .ok());
  ASSERT_TRUE(
      fs.Write("/home/references/g.md", "[t](../templates/t/build.toml)\n")
          .ok());
  ASSERT_TRUE(fs.Write("/home/templates/t/build.toml", "").ok());
  FakeProcessRunner runner([](const std::vector<std::string>&,
                              const RunOptions&) { return ProcessResult{}; });
  SkillCheckOptions options;
  options.home = "/home";
  auto result = CheckSkillPack(
      fs, runner, options, [](const std::vector<std::string>& args) {
        return args[0] == "doctor"
                   ? std::nullopt
                   : std::optional<std::string>("unknown command");
      });
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->files,
            (std::vector<std::string>{"skills/cuda-kernels/SKILL.md",
                                      "references/g.md"}));
  EXPECT_EQ(result->links, 2);
  EXPECT_EQ(result->code_blocks, 1);
  EXPECT_EQ(result->fragments, 1);
  EXPECT_EQ(result->command_lines, 2);
  EXPECT_TRUE(runner.calls.empty());
  ASSERT_EQ(result->problems.size(), 1u);
  EXPECT_EQ(result->problems[0].Located(),
            "skills/cuda-kernels/SKILL.md:5:51: 'kbuild bogus' does not parse: "
            "unknown command");
}

}  // namespace
}  // namespace kb
