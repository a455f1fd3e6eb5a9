// The built Kernel Hub variants a package carries: every build/<variant>/
// folder (build/cmake, build/logs and the rest stay home), each read whole
// and checked against its own metadata.json digest, so a file changed or
// planted after `kbuild build` never reaches the Hub under kbuild's name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/metadata.h"

namespace kb {

struct VerifiedVariant {
  std::string name;                // torch211-cxx11-cu130-x86_64-linux
  VariantFiles files;              // every file, metadata.json included
  std::string op_namespace;        // metadata.json's id
  std::vector<std::string> archs;  // metadata.json's backend.archs
};

// Variant folder names in `build_dir`, sorted. Exit 2 when there is none
// (hint: kbuild build) or one is a symlink.
Expected<std::vector<std::string>> ListBuiltVariants(const FileSystem& fs,
                                                     const std::filesystem::path& build_dir);

// Reads build_dir/<name>/ (no link, no special file, at most `max_bytes` in
// all) and checks it: metadata.json present (exit 2) and its digest equal to
// the files' (exit 1 naming the first file that differs, hint: kbuild build).
Expected<VerifiedVariant> ReadVerifiedVariant(const FileSystem& fs,
                                              const std::filesystem::path& build_dir,
                                              const std::string& name, std::uintmax_t max_bytes);

}  // namespace kb
