// Source-level transforms of CUDA kernel text that keep what a kernel computes,
// for `kbuild optimize --proposer builtin`:
//   restrict   `__restrict__` on the const pointer parameters of a __global__
//              function that lack it (read-only data through the non-coherent
//              path). Only const pointers: the kernel never writes through
//              them, so two of them may be the same buffer. It is exact as long
//              as no caller passes an output that overlaps a const input (an
//              in-place call); such a call becomes undefined, and the tests
//              are what catches it.
//   minblocks  `__launch_bounds__(N)` -> `__launch_bounds__(N, B)`, B in {1, 2, 4}
//              (N an integer literal or an identifier), or an existing literal
//              B moved to its neighbour in {1, 2, 4, 8}: minimum blocks per SM,
//              a register-allocation hint.
//   unroll     `#pragma unroll` before `for (int i = 0; i < K; ++i)` (K an
//              integer literal, or a name the file declares constexpr or as a
//              template parameter) in a __global__ or __device__ function, when
//              no directive precedes the loop.
// The scan is a bounded text scan, not a C++ parser: comments, string and
// character literals and preprocessor lines are blanked first, and a match it
// does not fully understand (a declaration without a body, default arguments,
// arrays, function pointers, an unterminated comment, unbalanced brackets) is
// left alone. Applying a site removes it, so a transform is idempotent.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/optimize_types.h"

namespace kb {

inline constexpr size_t kMaxTransformSourceBytes = 1u << 20;  // larger files are not scanned

// One text edit: replace `length` characters at `offset` with `text`.
struct TextEdit {
  size_t offset = 0;
  size_t length = 0;
  std::string text;
};

struct TransformSite {
  // Stable over other sites' edits: "<file>:<kind>:<function>#<n>", n counting
  // the file's functions of that name; unroll adds ":<k>", the k-th `for` of
  // the function; minblocks spells its value ("minblocks=2").
  std::string id;
  std::filesystem::path file;
  std::string description;      // "restrict on const pointers of RmsNorm (csrc/rms.cu)"
  std::vector<TextEdit> edits;  // ascending offsets, not overlapping
};

// Every site of `text` (the file `file`), in file order; none for a file over
// kMaxTransformSourceBytes or one the scan cannot follow.
std::vector<TransformSite> FindTransformSites(const std::filesystem::path& file,
                                              std::string_view text);

// The sites of every file.
std::vector<TransformSite> FindTransformSites(const std::vector<CandidateFile>& files);

// `text` with the site's edits applied.
std::string ApplyTransform(std::string_view text, const TransformSite& site);

}  // namespace kb
