// LaunchRecorder: which kernels one op call launches, and whether they are
// the project's (provenance.h has the record and the verdict).
//
//   LaunchRecorder recorder(ProjectLibraryFor(spec.op));
//   op.Call(args);                    // OpHandle::Call opens an OpCallScope
//   Provenance p = recorder.Finish();
//
// A CUPTI callback on the runtime and driver launch APIs, subscribed for the
// recorder's lifetime only. A runtime launch belongs to the shared object of
// its host function (dladdr), or, for CUDA 13's handle launches (<<<>>>),
// to the first object on the call stack below the CUDA runtime and driver.
// A driver launch not inside a runtime launch (Triton, cuBLAS) is attributed
// the same way. Only launches inside an OpCallScope count, so the harness's
// own input and copy kernels never do. CUPTI allows one subscriber: when
// another tool (nsys, ncu) holds it, the record says "provenance not
// recorded: ..." and judges nothing.
#pragma once

#include <memory>
#include <string>

#include "kbuild/harness/provenance.h"

namespace kb::harness {

class LaunchRecorder {
 public:
  // project_library: path of the project's op library; "" records nothing
  // and says so in the note.
  explicit LaunchRecorder(const std::string& project_library);
  ~LaunchRecorder();  // unsubscribes if Finish was not called
  LaunchRecorder(const LaunchRecorder&) = delete;
  LaunchRecorder& operator=(const LaunchRecorder&) = delete;

  // Unsubscribes and returns what was recorded.
  Provenance Finish();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// Marks the span of one op call; launches outside every scope are not the op's.
class OpCallScope {
 public:
  OpCallScope();
  ~OpCallScope();
  OpCallScope(const OpCallScope&) = delete;
  OpCallScope& operator=(const OpCallScope&) = delete;
};

// $KBUILD_PROJECT_LIBRARY (kbuild sets it), else the loaded shared object
// named after the op's namespace ("<ns>::op" -> a file name containing
// "<ns>"), else "".
std::string ProjectLibraryFor(const std::string& op);

}  // namespace kb::harness
