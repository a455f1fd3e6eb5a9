// Words for how a child process ended, shared by kbuild test and bench: the
// signal that killed it and the last lines of its output (keeping the line
// that names a CUDA error even when it is further up).
#pragma once

#include <string>

#include "core/process.h"

namespace kb {

// 11 -> "SIGSEGV"; unknown numbers -> "signal N".
std::string SignalName(int signal);

// The last `count` non-empty lines, each ending in '\n'; the last line
// naming a CUDA error goes first (then "...") when it is further up.
std::string OutputTail(const std::string& output, size_t count);

// "timed out after 120 s", "stopped: kbuild got SIGTERM", "crashed with SIGSEGV", or "" for
// a normal exit.
std::string AbnormalEnd(const ProcessResult& result, double timeout_seconds);

}  // namespace kb
