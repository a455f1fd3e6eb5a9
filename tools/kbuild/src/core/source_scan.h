// A bounded text scan of C++/CUDA source for kbuild's source transforms
// (source_transforms.h): comments, literals and directives blanked out, a
// small lexer, comma splitting. Not a C++ parser: callers refuse what it
// cannot follow.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb {

inline constexpr size_t kNoPosition = std::string_view::npos;

bool IsIdentChar(char c);
bool IsDigit(char c);
bool IsSpace(char c);

// The end of a `//` comment or a directive line: the newline that is not continued.
size_t LineEnd(std::string_view t, size_t i);

// The end (one past the closing quote) of the literal opening at `i`, or kNoPosition.
size_t LiteralEnd(std::string_view t, size_t i);

// The identifier or number that ends just before `i`.
std::string_view WordBefore(std::string_view t, size_t i);

std::string_view Trim(std::string_view s);
bool IsIdentifier(std::string_view s);
bool IsIntegerLiteral(std::string_view s);  // digits, with an optional u/U suffix

// A small lexer over blanked code: identifiers and numbers, "::", "++", or one character.
struct Token {
  std::string_view text;
  size_t offset;
};
std::vector<Token> Tokens(std::string_view m, size_t from, size_t to);

// [from, to) split at commas outside (), [], {} and <>.
std::vector<std::pair<size_t, size_t>> SplitTopLevel(std::string_view m, size_t from, size_t to);

// `text` with comments, string and character literals and preprocessor lines
// replaced by spaces (newlines kept, so offsets and lines stay); `ok` false
// when a comment or literal does not end.
std::string BlankNonCode(std::string_view text, bool* ok);

}  // namespace kb
