// The constraint language of kbuild.toml's [tune] constraints: one C-like
// expression over the tuning parameters, true for the points worth building.
//
//   BLOCK_THREADS * VECS <= 4096
//   ROWS == 1 || BLOCK_THREADS <= 256
//   LAYOUT == row_major && (TILE % 32 == 0)
//
// Grammar, loosest binding first (as in C):
//   ||   &&   == !=   < <= > >=   + -   * / %   unary - !   (...)
// Operands are decimal integer literals and parameter names. Values are
// 64-bit integers; comparisons and ! give 0 or 1, and a nonzero result
// means the point is kept. && and || short-circuit, so
// `B != 0 && A / B >= 2` guards its division. A division or remainder by
// zero, or an overflow, that is evaluated makes the constraint false.
// Comparisons do not chain: `A < B < C` is an error (write A < B && B < C).
//
// A parameter whose values are identifiers (LAYOUT = ["row_major",
// "col_major"]) appears only as `LAYOUT == value` or `LAYOUT != value`
// (either side first), where value is one of its declared identifiers.
//
// The text is parsed once; evaluation is cheap enough for every point of a
// 10^6-point grid. Hostile text is bounded: at most kMaxTuneExprChars
// characters and kMaxTuneExprNesting nested parentheses or unary operators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/tune_types.h"

namespace kb {

inline constexpr size_t kMaxTuneExprChars = 512;
inline constexpr int kMaxTuneExprNesting = 32;

// Integer-valued when its values are integers ("128", "-1"); identifier-
// valued otherwise (tune_space.h rejects lists that mix the two).
bool IsIntegerParam(const TuneParam& param);

// What a constraint sees for each of `param`'s values: the integer itself,
// or, for an identifier-valued parameter, the value's position in the list.
// An integer that does not fit 64 bits reads as 0 (kbuild.toml's reader
// takes only TOML integers, which fit).
std::vector<int64_t> ParamValueCodes(const TuneParam& param);

class TuneExpr {
 public:
  // True when the constraint keeps the point whose parameter i has code
  // `codes[i]` (see ParamValueCodes), in the order given to ParseTuneExpr.
  bool Holds(std::span<const int64_t> codes) const;

  // The parse tree, children before parents; the root is last.
  struct Node {
    // kName is a bare identifier while parsing: it ends up a parameter, a
    // value of an identifier-valued parameter (a kLiteral), or an error.
    enum class Op {
      kLiteral,
      kParam,
      kName,
      kNegate,
      kNot,
      kMul,
      kDiv,
      kMod,
      kAdd,
      kSub,
      kLess,
      kLessEqual,
      kGreater,
      kGreaterEqual,
      kEqual,
      kNotEqual,
      kAnd,
      kOr,
    };
    Op op = Op::kLiteral;
    int64_t value = 0;  // literal, parameter index, or identifier value code
    int lhs = -1;       // operand nodes; -1 when absent
    int rhs = -1;
    int column = 0;  // 1-based, in the constraint text
  };

 private:
  friend Expected<TuneExpr> ParseTuneExpr(std::string_view text,
                                          const std::vector<TuneParam>& params);
  std::vector<Node> nodes_;
};

// Parses `text` against `params` (names and value kinds). Errors are exit 2
// with the 1-based column in the text as Error::column, no path or line
// (the caller places them in its file), and a did-you-mean hint for names.
Expected<TuneExpr> ParseTuneExpr(std::string_view text, const std::vector<TuneParam>& params);

}  // namespace kb
