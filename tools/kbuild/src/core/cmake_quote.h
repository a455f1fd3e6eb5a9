// Text written into the generated CMakeLists.txt. build.toml and file names
// are hostile: a path must reach the compiler as the exact file it names, so
// no ${...}, $ENV{...}, quote or backslash in it may be read by CMake.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kb {

// A CMake bracket argument, [==[text]==], with a bracket that does not occur
// in `text`: CMake reads everything inside literally.
std::string CMakeBracket(std::string_view text);

// Why `path` cannot be named exactly as one source file, or nothing: ';'
// splits CMake lists, '\\' becomes '/', CMake expands $NAME{...} in source
// names and nvcc passes a name through a shell ($, ` and "), and line breaks
// or control characters break the build files.
std::optional<std::string> CMakeUnsupportedPathReason(std::string_view path);

}  // namespace kb
