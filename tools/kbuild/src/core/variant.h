// Names derived from versions and sources: the Kernel Hub variant directory
// (what kernels' loader matches, see its variants.py), the per-build op
// namespace, and nvcc's -gencode flag for a compute capability.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace kb {

struct MajorMinor {
  int major = 0;
  int minor = 0;
};

// "2.11.0+cu130" -> {2, 11}; "13.0" -> {13, 0}.
Expected<MajorMinor> ParseMajorMinor(const std::string& version);

// torch<MAJ><MIN>-cxx11-cu<MAJ><MIN>-<cpu>-linux, e.g. torch211-cxx11-cu130-x86_64-linux.
// `torch_cuda` is torch.version.cuda; empty means a CPU-only torch (exit 4).
Expected<std::string> VariantName(const std::string& torch_version, const std::string& torch_cuda,
                                  bool cxx11_abi);

// _<python_name>_cuda_<hash8>: hash8 = first 8 hex digits of sha256 over the
// name, the version and every binding source (path and content, sorted by path),
// so a changed binding gets a fresh namespace and never clashes with an old .so.
struct NamedSource {
  std::string path;
  std::string content;
};
std::string OpNamespace(const std::string& python_name, int version,
                        std::vector<NamedSource> binding_sources);

// "9.0" -> "-gencode=arch=compute_90a,code=sm_90a" (Hopper features need the
// arch-specific target); "8.0" -> "...compute_80,code=sm_80"; "10.0a" kept as given.
Expected<std::string> GencodeFlag(const std::string& capability);

// What metadata.json's backend.archs lists for a capability we compiled:
// "9.0" -> "9.0a" (we build arch-specific code for 9.0), others unchanged.
std::string BuiltArch(const std::string& capability);

}  // namespace kb
