// Which compiler flags of build.toml (cuda-flags, cxx-flags, ...) kbuild
// passes on. `kbuild build` on a cloned repository must only compile it:
// a flag that makes nvcc or the host compiler run a program of the
// repository's choosing (-ccbin, -B, -fplugin, -wrapper), read more options
// from a file (-optf, @file), hand options on to the linker, assembler or
// preprocessor (-Xlinker, -Wl, -Wa, -Wp), or write a file at a path of its
// choosing (-o, -MF, --keep-dir, -fdump-*) is refused. The payload of
// -Xcompiler=a,b and --compiler-options=a,b is checked option by option.
// The characters a flag may hold are config.cpp's check.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kb {

// Why `flag` is refused ("runs a program of the repository's choosing"),
// naming the option; nullopt when it may pass.
std::optional<std::string> RefusedCompilerFlag(std::string_view flag);

}  // namespace kb
