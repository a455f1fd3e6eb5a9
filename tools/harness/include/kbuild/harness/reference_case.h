// What a reference function may ask about the case it computes: its dtype,
// to round an intermediate the op stores in that dtype. The reference gets
// float64 copies of the inputs, so without this it computes the exact value
// of a quantity the op rounds on the way (h = x + residual stored in bf16,
// then normalized).
//
//   spec.reference = [](const kb::harness::Args& a) {
//     const at::Tensor h = kb::harness::RoundToCaseDtype(a[0].toTensor() + a[1].toTensor());
//     const at::Tensor y = h * at::rsqrt(h.pow(2).mean(-1, true) + 1e-6);
//     return std::vector<at::Tensor>{y, h};
//   };
//
// The harness names the case around every reference call (kbuild test's
// checks and kbuild bench's value checks); called anywhere else it throws.
#pragma once

#include <ATen/ATen.h>

#include "kbuild/harness/case.h"

namespace kb::harness {

// The dtype of the case whose reference is being computed.
at::ScalarType CaseDtype();

// `t` rounded to the case's dtype, returned in t's own dtype (float64 in a
// reference): t.to(CaseDtype()).to(t.scalar_type()).
at::Tensor RoundToCaseDtype(const at::Tensor& t);

// Names `c` as the case of the reference calls made while it lives (the
// harness's own use; not nested).
class ReferenceCaseScope {
 public:
  explicit ReferenceCaseScope(const Case& c);
  ~ReferenceCaseScope();
  ReferenceCaseScope(const ReferenceCaseScope&) = delete;
  ReferenceCaseScope& operator=(const ReferenceCaseScope&) = delete;
};

}  // namespace kb::harness
