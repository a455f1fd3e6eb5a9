#include "kbuild/harness/reference_case.h"

#include <stdexcept>

namespace kb::harness {

namespace {

// One reference is computed at a time per thread; the harness is single-threaded per case.
thread_local const Case* current_case = nullptr;

}  // namespace

ReferenceCaseScope::ReferenceCaseScope(const Case& c) { current_case = &c; }
ReferenceCaseScope::~ReferenceCaseScope() { current_case = nullptr; }

at::ScalarType CaseDtype() {
  if (current_case == nullptr) {
    throw std::logic_error(
        "CaseDtype() and RoundToCaseDtype() answer only inside a reference function while the "
        "harness computes it");
  }
  return current_case->dtype;
}

at::Tensor RoundToCaseDtype(const at::Tensor& t) { return t.to(CaseDtype()).to(t.scalar_type()); }

}  // namespace kb::harness
