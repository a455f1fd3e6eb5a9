#include "core/hub_layout.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

VariantLayout Layout() {
  VariantLayout l;
  l.variant_dir = "/p/build/torch211-cxx11-cu130-x86_64-linux";
  l.library = "/p/build/cmake/_my_op_cuda_1234abcd.so";
  l.package_dir = "/p/torch-ext/my_op";
  l.op_namespace = "_my_op_cuda_1234abcd";
  l.python_name = "my_op";
  l.ops_template = "lib = '{{library}}'\nops = torch.ops.{{namespace}}\n";
  l.compat_template = "# {{python_name}}\n";
  return l;
}

TEST(HubLayout, RendersLibraryOpsPackageAndCompatFolder) {
  MemoryFileSystem fs;
  (void)fs.Write("/p/build/cmake/_my_op_cuda_1234abcd.so", "ELF");
  (void)fs.Write("/p/torch-ext/my_op/__init__.py", "from ._ops import ops\n");
  (void)fs.Write("/p/torch-ext/my_op/layers.py", "x = 1\n");
  (void)fs.Write("/p/torch-ext/my_op/__pycache__/layers.cpython-311.pyc", "junk");
  auto files = RenderVariantFiles(fs, Layout());
  ASSERT_TRUE(files.ok()) << files.error().message;
  std::vector<std::string> names;
  for (const auto& [name, _] : *files) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"__init__.py", "_my_op_cuda_1234abcd.so", "_ops.py",
                                             "layers.py", "my_op/__init__.py"}));
  EXPECT_EQ(files->at("_ops.py"),
            "lib = '_my_op_cuda_1234abcd.so'\nops = torch.ops._my_op_cuda_1234abcd\n");
  EXPECT_EQ(files->at("my_op/__init__.py"), "# my_op\n");
}

// The package's files go into the build and, by kbuild package, into the upload: a link
// (to a secret outside the project, say) or a FIFO is refused, never copied.
TEST(HubLayout, ALinkOrSpecialFileInThePackageIsRefused) {
  for (const bool fifo : {false, true}) {
    MemoryFileSystem fs;
    (void)fs.Write("/p/build/cmake/_my_op_cuda_1234abcd.so", "ELF");
    (void)fs.Write("/p/torch-ext/my_op/__init__.py", "from ._ops import ops\n");
    (void)fs.Write("/secret.txt", "secret");
    if (fifo) {
      fs.PlantSpecialFile("/p/torch-ext/my_op/leak.txt");
    } else {
      fs.PlantSymlink("/p/torch-ext/my_op/leak.txt", "/secret.txt");
    }
    auto files = RenderVariantFiles(fs, Layout());
    ASSERT_FALSE(files.ok()) << fifo;
    EXPECT_EQ(files.error().code, ExitCode::kUsage);
    EXPECT_EQ(files.error().Located(),
              std::string("/p/torch-ext/my_op/leak.txt: the Python package holds ") +
                  (fifo ? "a FIFO, socket or device" : "a symbolic link"));
  }
}

TEST(HubLayout, MissingPackageInitIsAConfigError) {
  MemoryFileSystem fs;
  auto files = RenderVariantFiles(fs, Layout());
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().Located(),
            "/p/torch-ext/my_op/__init__.py: the Python package has no __init__.py");
  EXPECT_EQ(files.error().code, ExitCode::kUsage);
}

TEST(HubLayout, WriteRemovesStaleLibraryAndListsOtherVariants) {
  MemoryFileSystem fs;
  const std::string dir = "/p/build/torch211-cxx11-cu130-x86_64-linux";
  (void)fs.Write(dir + "/_my_op_cuda_00000000.so", "old");
  (void)fs.Write(dir + "/__pycache__/x.pyc", "keep");
  (void)fs.Write("/p/build/torch210-cxx11-cu128-x86_64-linux/metadata.json", "{}");
  ASSERT_TRUE(WriteVariant(fs, dir, {{"_my_op_cuda_1234abcd.so", "new"}}, "{}\n").ok());
  EXPECT_FALSE(fs.Exists(dir + "/_my_op_cuda_00000000.so"));
  EXPECT_TRUE(fs.Exists(dir + "/__pycache__/x.pyc"));
  EXPECT_EQ(*fs.Read(dir + "/metadata.json"), "{}\n");
  EXPECT_EQ(OtherVariants(fs, "/p/build", "torch211-cxx11-cu130-x86_64-linux"),
            (std::vector<std::string>{"torch210-cxx11-cu128-x86_64-linux"}));
}

}  // namespace
}  // namespace kb
