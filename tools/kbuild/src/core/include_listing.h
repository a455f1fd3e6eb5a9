// kernel-builder copies only the files a kernel lists in `src`, so a header a
// kernel source includes but does not list compiles here and breaks the Hub
// build. This resolves an #include to the project file it names.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/fs.h"

namespace kb {

// The project file (relative to `root`, '/'-separated) that `#include target`
// in the project file `including` reads, searched as the compiler does: a
// quoted include beside `including` first, then in each of `include_dirs`.
// Nothing when no regular file inside the project matches (a CUDA or system
// header, or a missing one the compiler reports itself).
std::optional<std::string> ResolveProjectInclude(const FileSystem& fs,
                                                 const std::filesystem::path& root,
                                                 const std::string& including,
                                                 const std::string& target, bool quoted,
                                                 const std::vector<std::string>& include_dirs);

}  // namespace kb
