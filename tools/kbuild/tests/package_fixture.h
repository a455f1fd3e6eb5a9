// A built kernel project in memory for the `kbuild package` tests: build.toml,
// sources, the Python package, tests/, benchmarks/, a verified variant, and
// files a package must leave out (build/cmake, build/logs, private notes).
#pragma once

#include <string>

#include "core/fs.h"
#include "core/metadata.h"

namespace kb {

inline constexpr const char* kFixtureProject = "/p";
inline constexpr const char* kFixtureVariant = "torch211-cxx11-cu130-x86_64-linux";

inline constexpr const char* kFixtureBuildToml = R"([general]
name = "my-op"
version = 2
license = "Apache-2.0"
backends = ["cuda"]

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]

[kernel.scale_add]
backend = "cuda"
depends = ["torch"]
src = ["my_op_cuda/scale_add.cu"]
include = ["my_op_cuda/common"]
)";

inline constexpr const char* kFixtureInit = R"("""my-op: out = x * alpha + y as a CUDA kernel.

More words.
"""
from ._ops import add_op_namespace_prefix, ops

__all__ = ["scale_add", "ops"]
)";

// Writes build/<variant>/ with a metadata.json whose digest matches.
inline void WriteFixtureVariant(MemoryFileSystem& fs, const std::string& variant) {
  VariantFiles files = {{"__init__.py", kFixtureInit},
                        {"_ops.py", "ops = None\n"},
                        {"_my_op_cuda_1234abcd.so", "ELF"},
                        {"my_op/__init__.py", "from .. import *\n"}};
  MetadataInput meta;
  meta.id = "_my_op_cuda_1234abcd";
  meta.name = "my-op";
  meta.archs = {"9.0a"};
  meta.builder_version = "0.1.0";
  const std::string dir = std::string(kFixtureProject) + "/build/" + variant + "/";
  for (const auto& [path, content] : files) (void)fs.Write(dir + path, content);
  (void)fs.Write(dir + "metadata.json", RenderMetadataJson(meta, files));
  (void)fs.Write(dir + "__pycache__/_ops.cpython-311.pyc", "cache");  // left out
}

inline void WriteFixtureProject(MemoryFileSystem& fs) {
  const std::string p = kFixtureProject;
  (void)fs.Write(p + "/build.toml", kFixtureBuildToml);
  (void)fs.Write(p + "/kbuild.toml", "[test]\n");
  (void)fs.Write(p + "/torch-ext/torch_binding.cpp", "// binding\n");
  (void)fs.Write(p + "/torch-ext/torch_binding.h", "#pragma once\n");
  (void)fs.Write(p + "/torch-ext/my_op/__init__.py", kFixtureInit);
  (void)fs.Write(p + "/torch-ext/my_op/__pycache__/x.pyc", "cache");
  (void)fs.Write(p + "/my_op_cuda/scale_add.cu", "// kernel\n");
  (void)fs.Write(p + "/my_op_cuda/common/vec.cuh", "// vec\n");
  (void)fs.Write(p + "/my_op_cuda/unlisted.cu", "// not named by build.toml\n");
  (void)fs.Write(p + "/tests/scale_add_test.cpp", "// test\n");
  (void)fs.Write(p + "/benchmarks/scale_add_bench.cpp", "// bench\n");
  (void)fs.Write(p + "/README.md", "# my project\n");
  (void)fs.Write(p + "/notes/private.txt", "secret\n");
  (void)fs.Write(p + "/build/cmake/build.ninja", "rule\n");
  (void)fs.Write(p + "/build/logs/build.log", "log\n");
  WriteFixtureVariant(fs, kFixtureVariant);
}

}  // namespace kb
