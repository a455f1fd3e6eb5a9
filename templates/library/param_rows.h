// Parameter rows broadcast over the rows of x: an op over x [samples, tokens,
// hidden] (tokens rows per sample) that reads, for row r, a row of `hidden`
// parameters chosen by r's sample and token. DiT modulation is the case in
// point: shift / scale / gate of [samples, hidden] (one row per sample,
// token_stride 0) or [samples, tokens, hidden] (one per token), often views
// of a wider [samples, tokens, 6, hidden] tensor (rows 6 * hidden apart).
// Plain C++ (callable from device code too), so host tests check the access
// choice; kernels read the row through RowOf and the library's LoadWeights
// (vec.cuh).
//
// Contract: the parameter's last dimension is contiguous; sample_stride and
// token_stride are in elements and >= 0 (0 broadcasts); row r of x belongs
// to sample r / tokens, token r % tokens. FitParamRows is the caller's only
// way to pair a launch's row access with parameter rows: it keeps the rows'
// vectors when the parameter rows allow them at the same width, else it
// turns an aligned launch into a phase-0 split (the split reads parameters
// a scalar at a time: row_span.cuh's contract) or narrows the vectors.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "fast_divmod.h"
#include "row_span.h"  // RowAccess, VectorAccess, PickVectorWidth

namespace kernels_common {

struct ParamRows {
  const void* ptr;
  int64_t sample_stride;  // elements between two samples' rows
  int64_t token_stride;   // elements between two tokens' rows; 0 per sample
};

// The parameter row of x's row `row`, for `tokens` rows per sample.
template <typename W>
KERNELS_COMMON_HOST_DEVICE inline const W* RowOf(const ParamRows& p, int64_t row, int64_t tokens) {
  const int64_t sample = row / tokens;
  const int64_t token = row - sample * tokens;
  return static_cast<const W*>(p.ptr) + sample * p.sample_stride + token * p.token_stride;
}

// The same for a launch whose rows stay below 2^31, with the division by
// `tokens` a multiply-high (TokensDivisor): the int64 `/` above runs a
// division routine before the parameter row's first load.
template <typename W>
KERNELS_COMMON_HOST_DEVICE inline const W* RowOf(const ParamRows& p, uint32_t row,
                                                 const FastDivmod& tokens) {
  uint32_t sample = 0;
  const uint32_t token = tokens.DivMod(row, &sample);
  return static_cast<const W*>(p.ptr) + static_cast<int64_t>(sample) * p.sample_stride +
         static_cast<int64_t>(token) * p.token_stride;
}

// Either form by the row, for launches whose rows may pass 2^31: the
// multiply-high below (tokens_divisor: TokensDivisor(tokens)), the int64
// division above.
template <typename W>
KERNELS_COMMON_HOST_DEVICE inline const W* RowOf(const ParamRows& p, int64_t row,
                                                 const FastDivmod& tokens_divisor, int64_t tokens) {
  return row < (int64_t{1} << 31) ? RowOf<W>(p, static_cast<uint32_t>(row), tokens_divisor)
                                  : RowOf<W>(p, row, tokens);
}

// RowOf's divisor for `tokens` rows per sample (>= 1) when rows < 2^31: more
// tokens than that put every row in sample 0, as 2^31 does.
inline FastDivmod TokensDivisor(int64_t tokens) {
  constexpr int64_t kRowLimit = int64_t{1} << 31;
  return FastDivmod(static_cast<uint32_t>(tokens < kRowLimit ? tokens : kRowLimit));
}

// A parameter's rows as the vector accesses PickVectorWidth checks: its
// pointer with each of its two strides.
inline void AddParamAccesses(const ParamRows& p, int elem_bytes, VectorAccess (&out)[2]) {
  out[0] = {p.ptr, p.sample_stride, elem_bytes};
  out[1] = {p.ptr, p.token_stride, elem_bytes};
}

// The row access of a launch (ChooseRowAccess of x's rows, without a
// weight) made safe for parameter rows of elem_bytes elements: unchanged
// when it is a split or every parameter row takes vectors of its width;
// else a split at phase 0 when the rows take whole max_width vectors (the
// rows keep 16-byte accesses, the parameters are read a scalar at a time),
// else the narrower width both allow.
inline RowAccess FitParamRows(const RowAccess& rows_access, int max_width, int64_t hidden,
                              std::initializer_list<ParamRows> params, int elem_bytes) {
  if (rows_access.split) return rows_access;
  int width = rows_access.width;
  for (const ParamRows& p : params) {
    VectorAccess accesses[2];
    AddParamAccesses(p, elem_bytes, accesses);
    const int fits = PickVectorWidth(max_width, hidden, {accesses[0], accesses[1]});
    if (fits < width) width = fits;
  }
  if (width == rows_access.width) return rows_access;
  if (rows_access.width == max_width) {
    return {max_width, true, rows_access.vectors, 0};
  }
  return {width, false, hidden / width, 0};
}

}  // namespace kernels_common
