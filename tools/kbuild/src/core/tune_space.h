// The search space of `kbuild tune`, read from kbuild.toml at the project
// root, and the variants (points of the space) tune builds and measures:
//
//   [tune]
//   constraints = ["BLOCK_THREADS * VECS <= 4096", "ROWS == 1 || BLOCK_THREADS <= 256"]
//   max-spill-bytes = 0          # optional, default 0
//   bench-filter = "^rms_norm/(2048|32768)x4096 "   # optional: kbuild tune's --filter
//   test-filter = "RmsNorm.ShortRows*"              # optional: every variant's quick tests
//   [tune.params]
//   BLOCK_THREADS = [128, 256, 512]
//   VECS = [1, 2, 4, 8]
//   ROWS = [1, 2, 4]
//   LAYOUT = ["row_major", "col_major"]
//
// Each parameter is a macro the kernel reads (-DNAME=VALUE). Names are C
// identifiers, not starting with "__" (the compiler's) or "KBUILD_"
// (kbuild's). Values are TOML integers or quoted C identifiers, never both
// in one list, 1 to 64 of them, no duplicates. At most 16 parameters and
// 10^6 points in the full grid. Constraints (at most 64) are expressions of
// tune_expr.h; a point is valid when every one holds. max-spill-bytes is the
// register spill (bytes) above which a built variant is invalid.
// bench-filter (a regular expression, POSIX extended as Google Benchmark's
// --benchmark_filter reads it) picks the benchmark cases variants are ranked
// on; test-filter (a GoogleTest pattern, no spaces) the tests every variant
// runs before its benchmark (the finalists still run the full suite).
// Parameters keep their order in the file: it is the order of -D flags,
// of a variant's values and of the grid (first parameter slowest).
//
// kbuild.toml is untrusted: it is read through FileSystem with a size
// limit, and every problem is an exit-2 error naming file, line, column and
// key, with a did-you-mean for unknown keys and names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/tune_expr.h"
#include "core/tune_types.h"

namespace kb {

inline constexpr size_t kMaxTuneParams = 16;
inline constexpr size_t kMaxTuneValues = 64;
inline constexpr size_t kMaxTuneConstraints = 64;
inline constexpr uint64_t kMaxTuneGridPoints = 1000000;

struct TuneConstraint {
  std::string text;  // as written
  TuneExpr expr;
};

struct TuneSpace {
  std::filesystem::path file;  // <project>/kbuild.toml
  std::vector<TuneParam> params;
  std::vector<TuneConstraint> constraints;
  int max_spill_bytes = 0;
  std::string bench_filter;  // "" = every case
  std::string test_filter;   // "" = no tests before the benchmark

  // Points in the full grid, before constraints.
  uint64_t GridSize() const;
};

// Reads and checks <project_dir>/kbuild.toml's [tune] table.
Expected<TuneSpace> ReadTuneSpace(const FileSystem& fs, const std::filesystem::path& project_dir);
// The same from text; `display_path` is the file name errors print.
Expected<TuneSpace> ParseTuneSpace(const std::string& text, const std::string& display_path);

// True when `variant` is a point of `space` (its parameters in order, each
// value one of the declared ones) that every constraint keeps.
bool Satisfies(const TuneSpace& space, const TuneVariant& variant);

// "v-" and 16 hex digits of the SHA-256 of the (name, value) pairs: the same
// values give the same id in every run and on every machine.
std::string VariantId(const TuneVariant& variant);

// {"-DBLOCK_THREADS=256", "-DVECS=4", ...}, in the variant's order.
std::vector<std::string> DefineFlags(const TuneVariant& variant);

// The valid points in grid order (the last parameter changes fastest), at
// most `limit` of them.
std::vector<TuneVariant> GridVariants(const TuneSpace& space, size_t limit);

// Up to `count` valid points drawn at random, none repeated and none whose
// id is in `exclude`. The same seed gives the same variants on every
// machine. Fewer only when fewer valid points are left.
std::vector<TuneVariant> RandomVariants(const TuneSpace& space, size_t count, uint64_t seed,
                                        const std::set<std::string>& exclude);

// Up to `count` valid, new points near `best` (ranked, best first): each
// differs from a parent in one or two parameters, each moved to an adjacent
// value of its list. Parents take turns, best first; one-parameter moves
// come before two-parameter ones, shuffled by `seed`. When the neighbours
// run out the rest are RandomVariants. Parents that are not points of
// `space` (an older space's history) are skipped.
std::vector<TuneVariant> EvolveVariants(const TuneSpace& space,
                                        const std::vector<TuneVariant>& best, size_t count,
                                        uint64_t seed, const std::set<std::string>& exclude);

// The move from `from` to `to` made once more: each parameter that changed
// steps again by as many places in its value list, the same way. Nothing when
// either is not a point of `space`, nothing changed, a step leaves a list, or
// the point breaks a constraint or is in `exclude`. After a move that
// improved, a pattern search tries the same direction again before it
// samples the neighbourhood.
std::optional<TuneVariant> RepeatMove(const TuneSpace& space, const TuneVariant& from,
                                      const TuneVariant& to, const std::set<std::string>& exclude);

}  // namespace kb
