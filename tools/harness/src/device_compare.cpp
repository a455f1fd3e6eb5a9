#include "kbuild/harness/device_compare.h"

#include <cmath>

namespace kb::harness {

namespace {

// Flat index of the first true element of `mask` (0 when none: the count
// tells). argmax returns the first of equal maxima.
at::Tensor FirstTrue(const at::Tensor& mask) { return mask.to(at::kByte).argmax(); }

// Where the comparison runs: float32 for 16-bit float outputs (their values are exact in float32,
// and rounding the reference to float32 moves an error by ~1e-7 relative, far inside a 16-bit
// tolerance), float64 otherwise. Half the bytes per pass on large bf16/fp16 benchmark outputs.
at::ScalarType ComparisonType(const at::Tensor& got) {
  const at::ScalarType t = got.scalar_type();
  return t == at::kBFloat16 || t == at::kHalf ? at::kFloat : at::kDouble;
}

// Every element, NaN and Inf included, classified: the path taken only when the fast one below
// finds anything outside the tolerance. Takes flat float64 tensors.
ErrorStats FullCompare(const at::Tensor& g, const at::Tensor& w, Tolerance tolerance) {
  ErrorStats stats;
  const at::Tensor both_finite = at::isfinite(g).logical_and(at::isfinite(w));
  // NaN matches NaN; an infinity matches the same infinity.
  const at::Tensor same_nonfinite = at::where(at::isnan(w), at::isnan(g), g.eq(w));
  const at::Tensor nonfinite = both_finite.logical_not().logical_and(same_nonfinite.logical_not());
  const at::Tensor zero = at::zeros({}, g.options());
  const at::Tensor err = at::where(both_finite, (g - w).abs(), zero);
  const at::Tensor want_finite = at::where(both_finite, w, zero);
  const at::Tensor mismatch =
      both_finite.logical_and(err.gt(tolerance.atol + tolerance.rtol * want_finite.abs()));
  const at::Tensor first_mismatch = FirstTrue(mismatch);

  // One device-to-host copy for every scalar.
  const at::Tensor scalars =
      at::stack({err.max(), err.square().sum(), want_finite.square().sum(),
                 mismatch.sum().to(at::kDouble), first_mismatch.to(at::kDouble),
                 nonfinite.sum().to(at::kDouble), FirstTrue(nonfinite).to(at::kDouble),
                 g.index_select(0, first_mismatch.reshape({1})).squeeze(),
                 w.index_select(0, first_mismatch.reshape({1})).squeeze()})
          .cpu();
  const double* s = scalars.data_ptr<double>();
  stats.max_abs_error = s[0];
  stats.rel_l2_error = s[2] > 0 ? std::sqrt(s[1] / s[2]) : std::sqrt(s[1]);
  stats.mismatches = static_cast<std::int64_t>(s[3]);
  if (stats.mismatches > 0) {
    stats.first_mismatch = static_cast<std::int64_t>(s[4]);
    stats.first_got = s[7];
    stats.first_want = s[8];
  }
  stats.nonfinite = static_cast<std::int64_t>(s[5]);
  if (stats.nonfinite > 0) stats.first_nonfinite = static_cast<std::int64_t>(s[6]);
  return stats;
}

}  // namespace

ErrorStats CompareOnDevice(const at::Tensor& got, const at::Tensor& want, Tolerance tolerance) {
  const at::ScalarType type = ComparisonType(got);
  const at::Tensor g = got.to(type).reshape({-1});
  const at::Tensor w = want.to(type).reshape({-1});
  if (g.numel() == 0 || g.numel() != w.numel()) return {};
  // Fast path, a few passes and one copy to the host: every element within the tolerance and the
  // largest error finite. A NaN compares false and an infinite error shows in the maximum, so any
  // NaN or Inf takes the full classification.
  const at::Tensor err = (g - w).abs();
  const at::Tensor within = err.le(w.abs().mul_(tolerance.rtol).add_(tolerance.atol));
  const at::Tensor scalars =
      at::stack({within.sum().to(at::kDouble), err.max().to(at::kDouble),
                 at::linalg_vector_norm(err, 2, c10::nullopt, false, at::kDouble),
                 at::linalg_vector_norm(w, 2, c10::nullopt, false, at::kDouble)})
          .cpu();
  const double* s = scalars.data_ptr<double>();
  // The classification runs on the float64 reference, not its float32 rounding: a reference
  // beyond float32's range rounds to Inf there, and would match an infinite output.
  if (static_cast<std::int64_t>(s[0]) != g.numel() || !std::isfinite(s[1]))
    return FullCompare(got.to(at::kDouble).reshape({-1}), want.to(at::kDouble).reshape({-1}),
                       tolerance);
  ErrorStats stats;
  stats.max_abs_error = s[1];
  stats.rel_l2_error = s[3] > 0 ? s[2] / s[3] : s[2];
  return stats;
}

}  // namespace kb::harness
