// Template rendering: `{{placeholder}}` substitution in file contents and in
// file/folder names. Strict on purpose: an unknown placeholder is an error that
// names the file and the spot, and nothing placeholder-shaped may survive
// rendering, so a half-rendered project is never written. Other `{{` (C++
// nested brace initialization such as `{{1, 64}, {7, 2047}}`) is plain text.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "core/error.h"

namespace kb {

// Placeholder name -> value, e.g. {"python_name", "my_op"}.
using RenderVars = std::map<std::string, std::string>;

// Replaces every `{{identifier}}` in `text`. `display_path` is the file name
// errors print. Errors: an identifier not in `vars` (exit 2, with
// file:line:column and the nearest valid placeholder); anything
// placeholder-shaped left in the result, such as `{{ name }}` (exit 5: the
// template is broken).
Expected<std::string> RenderText(std::string_view text, const RenderVars& vars,
                                 const std::string& display_path);

// Renders each component of a relative path (folders and the file name).
Expected<std::filesystem::path> RenderPath(const std::filesystem::path& relative,
                                           const RenderVars& vars);

// True for content that must be copied verbatim (holds a NUL byte in its
// first 8000 bytes, the same test git uses).
bool LooksBinary(std::string_view content);

}  // namespace kb
