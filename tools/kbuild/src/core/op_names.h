// The op names a project's harness code calls (ProjectOp("x") in tests/ and
// benchmarks/) against the ops its binding defines (ops.def("x(...) -> ...")).
// A name left over from a renamed template compiles and only fails once the
// tests run on a GPU; kbuild check reports it on any machine.
#pragma once

#include <vector>

#include "core/config.h"
#include "core/error.h"
#include "core/fs.h"

namespace kb {

// One warning per ProjectOp name the binding does not define, located at the
// name. Nothing when the binding defines no op kbuild can read (then the
// registration check already speaks).
std::vector<Error> CheckHarnessOpNames(const FileSystem& fs, const ProjectConfig& config);

}  // namespace kb
