#include "core/scaffold.h"

#include <gtest/gtest.h>

#include "core/templates_catalog.h"

namespace kb {
namespace {

// A kbuild home in memory with one template, "demo".
class ScaffoldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Put("/home/build.toml.in",
        "[general]\nname = \"{{name}}\"\nversion = {{version}}\n\n{{kernels}}\n");
    Put("/home/templates/demo/template.toml", "description = \"A demo\"\n");
    Put("/home/templates/demo/kernels.toml.in",
        "[kernel.op]\nsrc = [\"{{python_name}}_cuda/op.cu\"]\n\n");
    Put("/home/templates/demo/{{python_name}}_cuda/op.cu",
        "// {{name}}\nnamespace {{python_name}} {}\n");
    Put("/home/templates/demo/torch-ext/{{python_name}}/__init__.py", "from ._ops import ops\n");
  }

  void Put(const std::string& path, const std::string& content) {
    ASSERT_TRUE(fs.Write(path, content).ok());
  }

  ScaffoldRequest Request(const std::string& name = "my-op") {
    Expected<TemplateInfo> source = FindTemplate(fs, "/home", "demo");
    EXPECT_TRUE(source.ok());
    ScaffoldRequest r;
    r.name = name;
    r.source = *source;
    r.home = "/home";
    r.target_dir = "/work/" + name;
    return r;
  }

  std::vector<std::string> PlannedPaths(const ScaffoldPlan& plan) {
    std::vector<std::string> out;
    for (const auto& f : plan.files) out.push_back(f.relative.generic_string());
    return out;
  }

  MemoryFileSystem fs;
};

TEST_F(ScaffoldTest, RendersBuildTomlAndEveryTemplateFile) {
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok()) << plan.error().Located();
  EXPECT_EQ(PlannedPaths(*plan),
            (std::vector<std::string>{".gitignore", "build.toml", "my_op_cuda/op.cu",
                                      "torch-ext/my_op/__init__.py"}));
  EXPECT_EQ(plan->files[0].content, "build/\nresults/\ndist/\n");
  EXPECT_EQ(
      plan->files[1].content,
      "[general]\nname = \"my-op\"\nversion = 1\n\n[kernel.op]\nsrc = [\"my_op_cuda/op.cu\"]\n");
  EXPECT_EQ(plan->files[2].content, "// my-op\nnamespace my_op {}\n");
}

TEST_F(ScaffoldTest, WritesEveryPlannedFile) {
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(WriteScaffold(fs, *plan, /*force=*/false).ok());
  EXPECT_EQ(*fs.Read("/work/my-op/torch-ext/my_op/__init__.py"), "from ._ops import ops\n");
  EXPECT_TRUE(fs.Exists("/work/my-op/build.toml"));
  EXPECT_FALSE(fs.Exists("/work/my-op/template.toml"));
  EXPECT_FALSE(fs.Exists("/work/my-op/kernels.toml.in"));
}

// An existing .gitignore (a project inside a git repository) is a collision like any file.
TEST_F(ScaffoldTest, ExistingGitignoreIsKeptWithoutForce) {
  Put("/work/my-op/.gitignore", "mine\n");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  const Status s = WriteScaffold(fs, *plan, /*force=*/false);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(".gitignore"), std::string::npos) << s.error().message;
  EXPECT_EQ(*fs.Read("/work/my-op/.gitignore"), "mine\n");
  EXPECT_FALSE(fs.Exists("/work/my-op/build.toml"));
}

TEST_F(ScaffoldTest, CopiesBinaryFilesVerbatimAndSkipsBuildOutputs) {
  const std::string binary("\x89PNG\0{{oops}}", 12);
  Put("/home/templates/demo/docs/{{python_name}}.png", binary);
  Put("/home/templates/demo/build/torch211/lib.so", "{{junk}}");
  Put("/home/templates/demo/torch-ext/__pycache__/x.pyc", "{{junk}}");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok()) << plan.error().Located();
  EXPECT_EQ(PlannedPaths(*plan),
            (std::vector<std::string>{".gitignore", "build.toml", "docs/my_op.png",
                                      "my_op_cuda/op.cu", "torch-ext/my_op/__init__.py"}));
  EXPECT_EQ(plan->files[2].content, binary);
}

TEST_F(ScaffoldTest, UnknownPlaceholderInATemplateFileNamesIt) {
  Put("/home/templates/demo/README.md", "# {{nme}}\n");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().Located(),
            "/home/templates/demo/README.md:1:3: unknown placeholder '{{nme}}'");
  EXPECT_EQ(plan.error().hint, "did you mean 'name'?");
}

TEST_F(ScaffoldTest, InvalidNameShowsAFixedUpName) {
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request("My_Op"));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ExitCode::kUsage);
  EXPECT_EQ(plan.error().message, "invalid project name 'My_Op'");
  EXPECT_EQ(plan.error().hint,
            "use lowercase letters, digits and dashes, starting with a letter and not ending "
            "with a dash, at least 2 characters (the rule of build.toml's [general] name); try "
            "'my-op'");
  EXPECT_TRUE(ValidateProjectName("rms-norm2").ok());
  EXPECT_FALSE(ValidateProjectName("2norm").ok());
  EXPECT_FALSE(ValidateProjectName("norm-").ok());
}

TEST_F(ScaffoldTest, TemplateWithoutKernelsTomlIsRejected) {
  ASSERT_TRUE(fs.Remove("/home/templates/demo/kernels.toml.in").ok());
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().Located(), "/home/templates/demo: template 'demo' has no kernels.toml.in");
}

TEST_F(ScaffoldTest, TemplateShippingBuildTomlIsRejected) {
  Put("/home/templates/demo/build.toml", "[general]\n");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, "template ships its own build.toml");
}

TEST_F(ScaffoldTest, ExistingFilesBlockEveryWriteWithoutForce) {
  Put("/work/my-op/build.toml", "mine");
  Put("/work/my-op/notes.txt", "keep");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  const size_t files_before = fs.files().size();
  Status s = WriteScaffold(fs, *plan, /*force=*/false);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::kUsage);
  EXPECT_EQ(s.error().Located(), "/work/my-op: 1 file(s) already exist: build.toml");
  EXPECT_EQ(s.error().hint,
            "nothing was written; pass --force to overwrite them, or choose another folder "
            "with --dir");
  EXPECT_EQ(fs.files().size(), files_before);
  EXPECT_EQ(*fs.Read("/work/my-op/build.toml"), "mine");
}

TEST_F(ScaffoldTest, CollisionMessageNamesTheFirstFive) {
  for (int i = 0; i < 7; ++i) Put("/home/templates/demo/f" + std::to_string(i), "x");
  for (int i = 0; i < 7; ++i) Put("/work/my-op/f" + std::to_string(i), "old");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  Status s = WriteScaffold(fs, *plan, /*force=*/false);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "7 file(s) already exist: f0, f1, f2, f3, f4 and 2 more");
}

TEST_F(ScaffoldTest, ForceOverwritesAndKeepsOtherFiles) {
  Put("/work/my-op/build.toml", "mine");
  Put("/work/my-op/notes.txt", "keep");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(WriteScaffold(fs, *plan, /*force=*/true).ok());
  EXPECT_NE(*fs.Read("/work/my-op/build.toml"), "mine");
  EXPECT_EQ(*fs.Read("/work/my-op/notes.txt"), "keep");
}

// A folder of the project planted as a link would take the files elsewhere: refused, with
// --force too, before anything is written.
TEST_F(ScaffoldTest, AFolderOnTheWayThatIsALinkIsRefusedEvenWithForce) {
  fs.PlantSymlink("/work/my-op/my_op_cuda", "/elsewhere");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  for (bool force : {false, true}) {
    Status s = WriteScaffold(fs, *plan, force);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, ExitCode::kUsage);
    EXPECT_NE(s.error().message.find("symbolic link /work/my-op/my_op_cuda"), std::string::npos)
        << s.error().message;
  }
  EXPECT_FALSE(fs.Exists("/elsewhere/op.cu"));
  EXPECT_FALSE(fs.Exists("/work/my-op/build.toml"));
}

TEST_F(ScaffoldTest, TargetThatIsAFileIsRejected) {
  Put("/work/my-op", "a file");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  Status s = WriteScaffold(fs, *plan, /*force=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().Located(), "/work/my-op: the project folder is a regular file");
}

// A link where the project goes (to a folder with files, to an empty one, or dangling) is
// refused, --force or not: the project would be written, and files overwritten, elsewhere.
TEST_F(ScaffoldTest, TargetThatIsALinkIsRejectedAndNothingIsWritten) {
  Put("/elsewhere/README.md", "precious");
  fs.PlantSymlink("/work/my-op", "/elsewhere");
  Expected<ScaffoldPlan> plan = PlanScaffold(fs, Request());
  ASSERT_TRUE(plan.ok());
  for (const bool force : {false, true}) {
    Status s = WriteScaffold(fs, *plan, force);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, ExitCode::kUsage);
    EXPECT_EQ(s.error().Located(), "/work/my-op: the project folder is a symbolic link");
  }
  EXPECT_EQ(*fs.ReadAtMost("/elsewhere/README.md", 100), "precious");
  EXPECT_FALSE(fs.Exists("/elsewhere/build.toml"));
}

TEST_F(ScaffoldTest, CatalogListsTemplatesWithDescriptions) {
  Put("/home/templates/another/template.toml", "description = \"Second\"\n");
  Put("/home/templates/no-toml/file.txt", "not a template");
  Expected<std::vector<TemplateInfo>> list = ListTemplates(fs, "/home");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "another");
  EXPECT_EQ((*list)[0].description, "Second");
  EXPECT_EQ((*list)[1].name, "demo");
  EXPECT_EQ((*list)[1].dir.generic_string(), "/home/templates/demo");
}

TEST_F(ScaffoldTest, UnknownTemplateSuggestsAndLists) {
  Expected<TemplateInfo> t = FindTemplate(fs, "/home", "dmeo");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ExitCode::kUsage);
  EXPECT_EQ(t.error().message, "unknown template 'dmeo'");
  EXPECT_EQ(t.error().hint,
            "did you mean 'demo'? available templates: demo (see 'kbuild init --list')");
  Expected<TemplateInfo> far = FindTemplate(fs, "/home", "transformer-xl");
  EXPECT_EQ(far.error().hint, "available templates: demo (see 'kbuild init --list')");
}

TEST_F(ScaffoldTest, BrokenTemplateTomlReportsTheSpot) {
  Put("/home/templates/demo/template.toml", "description = \n");
  Expected<std::vector<TemplateInfo>> list = ListTemplates(fs, "/home");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, ExitCode::kUsage);
  EXPECT_EQ(list.error().path, "/home/templates/demo/template.toml");
  EXPECT_EQ(list.error().line, 1);
  Put("/home/templates/demo/template.toml", "summary = \"x\"\n");
  EXPECT_EQ(ListTemplates(fs, "/home").error().message, "missing string key 'description'");
}

// A file system whose listing resolves symlinks out of the folder, as
// std::filesystem::relative does.
class EscapingListing final : public FileSystem {
 public:
  explicit EscapingListing(MemoryFileSystem& inner) : inner_(inner) {}
  bool Exists(const fs::path& p) const override { return inner_.Exists(p); }
  bool IsDirectory(const fs::path& p) const override { return inner_.IsDirectory(p); }
  FileKind KindOf(const fs::path& p) const override { return inner_.KindOf(p); }
  Expected<std::string> ReadAtMost(const fs::path& p, std::uintmax_t max) const override {
    return inner_.ReadAtMost(p, max);
  }
  Status Write(const fs::path& p, const std::string& c) override { return inner_.Write(p, c); }
  Status MakeDirectories(const fs::path& p) override { return inner_.MakeDirectories(p); }
  Status Remove(const fs::path& p) override { return inner_.Remove(p); }
  std::vector<TreeEntry> ListEntries(const fs::path& dir) const override {
    return inner_.ListEntries(dir);
  }
  Status RenameNoReplace(const fs::path& from, const fs::path& to) override {
    return inner_.RenameNoReplace(from, to);
  }
  Status RemoveFileBelow(const fs::path& root, const fs::path& rel) override {
    return inner_.RemoveFileBelow(root, rel);
  }
  Status CopyFile(const fs::path& from, const fs::path& to) override {
    return inner_.CopyFile(from, to);
  }
  std::vector<fs::path> ListFilesRecursive(const fs::path& dir) const override {
    std::vector<fs::path> out = inner_.ListFilesRecursive(dir);
    if (dir.filename() == "demo") out.emplace_back("../other/shared.h");
    return out;
  }

 private:
  MemoryFileSystem& inner_;
};

TEST_F(ScaffoldTest, FilesListedOutsideTheTemplateAreRefused) {
  Put("/home/templates/other/shared.h", "// shared\n");
  EscapingListing escaping(fs);
  Expected<ScaffoldPlan> plan = PlanScaffold(escaping, Request());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ExitCode::kInternal);
  EXPECT_EQ(plan.error().Located(),
            "/home/templates/demo: template file listed outside the template folder: "
            "../other/shared.h");
}

// The shipped templates render completely: no placeholder survives anywhere.
TEST(ShippedTemplates, EveryTemplateRendersCleanly) {
  RealFileSystem real;
  Expected<std::vector<TemplateInfo>> templates = ListTemplates(real, KBUILD_SOURCE_ROOT);
  ASSERT_TRUE(templates.ok()) << templates.error().Located();
  ASSERT_FALSE(templates->empty());
  for (const auto& t : *templates) {
    ScaffoldRequest r;
    r.name = "my-op";
    r.source = t;
    r.home = KBUILD_SOURCE_ROOT;
    r.target_dir = "/project";
    Expected<ScaffoldPlan> plan = PlanScaffold(real, r);
    ASSERT_TRUE(plan.ok()) << t.name << ": " << plan.error().Located();
    MemoryFileSystem out;
    ASSERT_TRUE(WriteScaffold(out, *plan, false).ok());
    EXPECT_TRUE(out.Exists("/project/build.toml")) << t.name;
    EXPECT_TRUE(out.Exists("/project/torch-ext/torch_binding.cpp")) << t.name;
    EXPECT_TRUE(out.Exists("/project/torch-ext/my_op/__init__.py")) << t.name;
  }
}

}  // namespace
}  // namespace kb
