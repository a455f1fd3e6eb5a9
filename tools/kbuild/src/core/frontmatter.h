// The YAML frontmatter of a SKILL.md, in the small subset skills use:
// `key: value` (plain, 'single' or "double" quoted) and folded `>` / literal
// `|` block scalars. Anything else is an error with file:line:column, so a
// frontmatter that an agent would misread is caught before it ships.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace kb {

struct FrontmatterField {
  std::string key;
  std::string value;  // unquoted; block scalars joined as YAML does
  int line = 0;       // line of the key
};

struct Frontmatter {
  std::vector<FrontmatterField> fields;  // in file order, keys unique
  int body_line = 0;                     // first line after the closing '---'

  const FrontmatterField* Find(std::string_view key) const;
};

// Errors (exit 2) name `display_path` and the line: no opening '---' on line
// 1, no closing '---', a line that is not `key: value`, a duplicate key.
Expected<Frontmatter> ParseFrontmatter(std::string_view text,
                                       const std::string& display_path);

}  // namespace kb
