// One argument as a POSIX shell word, for commands kbuild prints or writes into scripts.
#pragma once

#include <string>

namespace kb {

// `text` unchanged when it holds only letters, digits and _./-+:=@, else in single quotes
// (each ' written as '\'').
std::string ShellWord(const std::string& text);

}  // namespace kb
