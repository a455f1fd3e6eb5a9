#include "chunked_compare.h"

#include <algorithm>
#include <cmath>

#include "kbuild/harness/device_compare.h"

namespace kb::harness {

ErrorStats CompareInChunks(const at::Tensor& got, const at::Tensor& want, Tolerance tolerance,
                           std::int64_t chunk) {
  const at::Tensor g = got.reshape({-1});
  const at::Tensor w = want.reshape({-1});
  if (g.numel() <= chunk) return CompareOnDevice(g, w, tolerance);

  ErrorStats total;
  double error_squares = 0, want_squares = 0;
  for (std::int64_t start = 0; start < g.numel(); start += chunk) {
    const std::int64_t length = std::min(chunk, g.numel() - start);
    const at::Tensor w_part = w.narrow(0, start, length).to(at::kDouble);
    const ErrorStats part = CompareOnDevice(g.narrow(0, start, length), w_part, tolerance);
    // rel_l2 is sqrt(error^2 / want^2) per part (sqrt(error^2) when want^2 is 0):
    // recover error^2 from it and this part's want^2.
    const double part_want_squares =
        at::where(at::isfinite(w_part), w_part, 0.0).square().sum().item<double>();
    const double rel2 = part.rel_l2_error * part.rel_l2_error;
    error_squares += part_want_squares > 0 ? rel2 * part_want_squares : rel2;
    want_squares += part_want_squares;
    total.max_abs_error = std::max(total.max_abs_error, part.max_abs_error);
    if (part.mismatches > 0 && total.mismatches == 0) {
      total.first_mismatch = start + part.first_mismatch;
      total.first_got = part.first_got;
      total.first_want = part.first_want;
    }
    total.mismatches += part.mismatches;
    if (part.nonfinite > 0 && total.nonfinite == 0)
      total.first_nonfinite = start + part.first_nonfinite;
    total.nonfinite += part.nonfinite;
  }
  total.rel_l2_error =
      want_squares > 0 ? std::sqrt(error_squares / want_squares) : std::sqrt(error_squares);
  return total;
}

}  // namespace kb::harness
