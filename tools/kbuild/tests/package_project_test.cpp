// kbuild package on an in-memory project: what is selected, what is refused
// (symlinks, changed variants, folders kbuild did not make, --out outside the
// project), and that a refusal leaves nothing behind.
#include "core/package_project.h"

#include <gtest/gtest.h>

#include "core/package_folder.h"
#include "package_fixture.h"

namespace kb {
namespace {

class PackageTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteFixtureProject(fs); }

  Expected<PackageResult> Package(const std::string& out = "", bool force = false) {
    PackageRequest request;
    request.project = kFixtureProject;
    request.out = out;
    request.force = force;
    request.kbuild_version = "0.1.0";
    return MakePackage(fs, request);
  }

  // Nothing under dist/: no package and no staging folder.
  bool NothingWritten() const { return fs.ListEntries("/p/dist").empty(); }

  MemoryFileSystem fs;
};

TEST_F(PackageTest, SelectsWhatBuildTomlNamesTheVariantAndTheCard) {
  auto result = Package();
  ASSERT_TRUE(result.ok()) << result.error().Located();
  std::vector<std::string> paths;
  for (const auto& f : result->files) paths.push_back(f.path);
  const std::string v = std::string("build/") + kFixtureVariant + "/";
  EXPECT_EQ(paths, (std::vector<std::string>{
                       ".kbuild-package", "README.md", "benchmarks/scale_add_bench.cpp",
                       "build.toml", v + "__init__.py", v + "_my_op_cuda_1234abcd.so",
                       v + "_ops.py", v + "metadata.json", v + "my_op/__init__.py", "kbuild.toml",
                       "my_op_cuda/common/vec.cuh", "my_op_cuda/scale_add.cu",
                       "tests/scale_add_test.cpp", "torch-ext/my_op/__init__.py",
                       "torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"}));
  EXPECT_EQ(result->dir, "/p/dist/my-op");
  EXPECT_EQ(*fs.Read("/p/dist/my-op/my_op_cuda/scale_add.cu"), "// kernel\n");
  EXPECT_EQ(*fs.Read("/p/dist/my-op/" + v + "_my_op_cuda_1234abcd.so"), "ELF");
  std::uintmax_t bytes = 0;
  for (const auto& f : result->files) bytes += f.bytes;
  EXPECT_EQ(result->bytes, bytes);
  // Only the package is left in dist/: the staging folder was renamed into place.
  for (const auto& e : fs.ListEntries("/p/dist")) EXPECT_EQ(e.relative.begin()->string(), "my-op");
}

TEST_F(PackageTest, FindsEveryVariantFolderAndNothingElseUnderBuild) {
  WriteFixtureVariant(fs, "torch210-cxx11-cu128-x86_64-linux");
  auto result = Package();
  ASSERT_TRUE(result.ok()) << result.error().Located();
  ASSERT_EQ(result->variants.size(), 2u);
  EXPECT_EQ(result->variants[0].name, "torch210-cxx11-cu128-x86_64-linux");
  EXPECT_EQ(result->variants[1].name, kFixtureVariant);
  EXPECT_EQ(result->variants[1].archs, std::vector<std::string>{"9.0a"});
  EXPECT_EQ(result->variants[1].op_namespace, "_my_op_cuda_1234abcd");
  EXPECT_EQ(result->variants[1].files, 5u);  // __pycache__ left out
}

TEST_F(PackageTest, NoBuiltVariantSaysRunKbuildBuild) {
  ASSERT_TRUE(fs.Remove(std::string("/p/build/") + kFixtureVariant).ok());
  auto result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ExitCode::kUsage);
  EXPECT_NE(result.error().hint.find("kbuild build"), std::string::npos);
  EXPECT_TRUE(NothingWritten());
}

TEST_F(PackageTest, AVariantChangedAfterItsBuildIsRefusedWithNothingWritten) {
  const std::string so = std::string("/p/build/") + kFixtureVariant + "/_my_op_cuda_1234abcd.so";
  ASSERT_TRUE(fs.Write(so, "ELF, patched").ok());
  auto result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ExitCode::kCheckFailed);
  EXPECT_EQ(result.error().path, so);
  EXPECT_NE(result.error().message.find("digest"), std::string::npos);
  EXPECT_NE(result.error().hint.find("kbuild build"), std::string::npos);
  EXPECT_TRUE(NothingWritten());

  ASSERT_TRUE(fs.Remove(so).ok());  // a file added after the build is refused too
  WriteFixtureVariant(fs, kFixtureVariant);
  ASSERT_TRUE(fs.Write(std::string("/p/build/") + kFixtureVariant + "/extra.py", "x").ok());
  result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("added after the build"), std::string::npos);
}

TEST_F(PackageTest, AVariantWithoutMetadataIsRefused) {
  ASSERT_TRUE(fs.Remove(std::string("/p/build/") + kFixtureVariant + "/metadata.json").ok());
  auto result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message, "the variant has no metadata.json");
  EXPECT_TRUE(NothingWritten());
}

TEST_F(PackageTest, ASymlinkInTheSourcesIsRefusedNamingItWithNothingWritten) {
  (void)fs.Write("/home/u/.ssh/id_rsa", "key");
  for (const std::string link : {"/p/tests/evil_test.cpp", "/p/my_op_cuda/scale_add.cu",
                                 "/p/my_op_cuda/common/vec.cuh", "/p/torch-ext/my_op/x.py"}) {
    MemoryFileSystem saved = fs;
    fs.PlantSymlink(link, "/home/u/.ssh/id_rsa");
    auto result = Package();
    ASSERT_FALSE(result.ok()) << link;
    EXPECT_EQ(result.error().code, ExitCode::kUsage);
    EXPECT_EQ(result.error().Located(), link + ": refusing to package a symbolic link");
    EXPECT_TRUE(NothingWritten()) << link;
    fs = saved;
  }
  fs.PlantSymlink("/p/benchmarks", "/home/u/.ssh");  // a linked folder, named by kbuild
  auto result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().path, "/p/benchmarks");
  EXPECT_TRUE(NothingWritten());
}

TEST_F(PackageTest, ASymlinkOrFifoInAVariantIsRefusedWithNothingWritten) {
  const std::string dir = std::string("/p/build/") + kFixtureVariant;
  fs.PlantSymlink(dir + "/libextra.so", "/usr/lib/libc.so.6");
  auto result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().Located(), dir + "/libextra.so: refusing to package a symbolic link");
  EXPECT_TRUE(NothingWritten());

  ASSERT_TRUE(fs.Remove(dir + "/libextra.so").ok());
  fs.PlantSpecialFile(dir + "/pipe");
  result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().path, dir + "/pipe");

  ASSERT_TRUE(fs.Remove(dir).ok());  // the variant folder itself a link
  fs.PlantSymlink(dir, "/elsewhere");
  result = Package();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().path, dir);
  EXPECT_TRUE(NothingWritten());
}

TEST_F(PackageTest, ASymlinkAsThePackageFolderIsRefusedEvenWithForce) {
  fs.PlantSymlink("/p/dist/my-op", "/home/u");
  for (bool force : {false, true}) {
    auto result = Package("", force);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().Located(), "/p/dist/my-op: the package folder is a symbolic link");
  }
  EXPECT_EQ(fs.KindOf("/p/dist/my-op"), FileKind::kSymlink);
  EXPECT_EQ(fs.ListEntries("/p/dist").size(), 1u);  // the link alone: no staging folder
  fs.PlantSymlink("/p/out", "/tmp");                // a link on the way
  auto result = Package("out/pkg");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("symbolic link /p/out"), std::string::npos);
}

TEST_F(PackageTest, AnOutFolderOutsideTheProjectIsRefused) {
  for (const std::string out : {"/tmp/pkg", "../pkg", "dist/../../pkg", ".", "dist/.."}) {
    auto result = Package(out);
    ASSERT_FALSE(result.ok()) << out;
    EXPECT_EQ(result.error().code, ExitCode::kUsage) << out;
    EXPECT_NE(result.error().hint.find("inside the project"), std::string::npos) << out;
  }
  auto inside = Package("dist/../pkg/");
  ASSERT_TRUE(inside.ok()) << inside.error().Located();
  EXPECT_EQ(inside->dir, "/p/pkg");
}

TEST_F(PackageTest, AnExistingFolderWithoutTheMarkerIsKeptEvenWithForce) {
  ASSERT_TRUE(fs.Write("/p/dist/my-op/mine.txt", "precious").ok());
  for (bool force : {false, true}) {
    auto result = Package("", force);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, ExitCode::kUsage);
    EXPECT_NE(result.error().message.find("not written by kbuild package"), std::string::npos);
  }
  EXPECT_EQ(*fs.Read("/p/dist/my-op/mine.txt"), "precious");
  EXPECT_EQ(fs.ListEntries("/p/dist").size(), 1u);
}

TEST_F(PackageTest, ForceReplacesAMarkedPackageAndOnlyThen) {
  ASSERT_TRUE(Package().ok());
  ASSERT_TRUE(fs.Write("/p/dist/my-op/stale.txt", "old").ok());
  auto again = Package();
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().hint.find("--force"), std::string::npos);
  EXPECT_TRUE(fs.Exists("/p/dist/my-op/stale.txt"));

  auto forced = Package("", true);
  ASSERT_TRUE(forced.ok()) << forced.error().Located();
  EXPECT_TRUE(forced->replaced);
  EXPECT_FALSE(fs.Exists("/p/dist/my-op/stale.txt"));
  EXPECT_TRUE(fs.Exists("/p/dist/my-op/README.md"));
  std::vector<std::string> left;
  for (const auto& e : fs.ListEntries("/p/dist")) left.push_back(e.relative.begin()->string());
  EXPECT_EQ(std::set<std::string>(left.begin(), left.end()), std::set<std::string>{"my-op"});
}

TEST_F(PackageTest, RepoIdComesFromTheFlagThenBuildTomlThenAPlaceholder) {
  auto placeholder = Package();
  ASSERT_TRUE(placeholder.ok());
  EXPECT_EQ(placeholder->repo_id, "<your-org>/my-op");
  EXPECT_EQ(placeholder->repo_id_source, "placeholder");
  ASSERT_EQ(placeholder->warnings.size(), 1u);
  EXPECT_NE(placeholder->warnings[0].find("[general.hub] repo-id"), std::string::npos);

  ASSERT_TRUE(fs.Write("/p/build.toml", std::string(kFixtureBuildToml) +
                                            "\n[general.hub]\nrepo-id = \"acme/my-op\"\n")
                  .ok());
  PackageRequest request{kFixtureProject, "dist/a", "", false, "0.1.0"};
  auto from_toml = MakePackage(fs, request);
  ASSERT_TRUE(from_toml.ok()) << from_toml.error().Located();
  EXPECT_EQ(from_toml->repo_id, "acme/my-op");
  EXPECT_TRUE(from_toml->warnings.empty());
  EXPECT_EQ(UploadCommand(*from_toml, "dist/a"),
            "hf upload acme/my-op dist/a . --repo-type kernel --revision v2");

  request = {kFixtureProject, "dist/b", "me/fast-op", false, "0.1.0"};
  auto from_flag = MakePackage(fs, request);
  ASSERT_TRUE(from_flag.ok());
  EXPECT_EQ(from_flag->repo_id_source, "--repo-id");
  EXPECT_EQ(UploadCommand(*from_flag, "my dir/b"),
            "hf upload me/fast-op 'my dir/b' . --repo-type kernel --revision v2");

  request = {kFixtureProject, "dist/c", "no-slash; rm -rf /", false, "0.1.0"};
  auto bad = MakePackage(fs, request);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ExitCode::kUsage);
  EXPECT_FALSE(fs.Exists("/p/dist/c"));
}

TEST_F(PackageTest, JsonNamesTheFolderFilesVariantsAndUploadCommand) {
  auto result = Package();
  ASSERT_TRUE(result.ok());
  const auto json = PackageResultJson(*result, "hf upload x");
  EXPECT_EQ(json["package_dir"], "/p/dist/my-op");
  EXPECT_EQ(json["replaced"], false);
  EXPECT_EQ(json["files"].size(), result->files.size());
  EXPECT_EQ(json["files"][0]["path"], ".kbuild-package");
  EXPECT_EQ(json["bytes"], result->bytes);
  EXPECT_EQ(json["variants"][0]["name"], kFixtureVariant);
  EXPECT_EQ(json["variants"][0]["namespace"], "_my_op_cuda_1234abcd");
  EXPECT_EQ(json["repo_id"], "<your-org>/my-op");
  EXPECT_EQ(json["repo_id_source"], "placeholder");
  EXPECT_EQ(json["revision"], "v2");
  EXPECT_TRUE(json["benchmark"].is_null());
  EXPECT_EQ(json["upload_command"], "hf upload x");
}

}  // namespace
}  // namespace kb
