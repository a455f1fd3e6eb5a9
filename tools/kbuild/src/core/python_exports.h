// What a kernel's Python package says about itself, read as text (kbuild never
// runs project code to learn it): the names in `__all__` and the first line of
// the module docstring. `kbuild package` puts both on the Hub card.
#pragma once

#include <string>
#include <vector>

namespace kb {

// The string literals of `__all__ = [...]` (or a tuple), in order; empty when
// the module has no literal `__all__`. Only identifiers are kept.
std::vector<std::string> PythonAllNames(const std::string& source);

// The first non-empty line of a leading """docstring""" (or '''), "" if none.
std::string PythonDocstringFirstLine(const std::string& source);

}  // namespace kb
