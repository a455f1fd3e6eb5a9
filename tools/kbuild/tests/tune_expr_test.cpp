// The [tune] constraint language: values, precedence, undefined arithmetic,
// identifier parameters, and every error message exactly.
#include "core/tune_expr.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kb {
namespace {

const std::vector<TuneParam> kParams = {
    {"BLOCK_THREADS", {"128", "256", "512"}},
    {"VECS", {"1", "2", "4", "8"}},
    {"ROWS", {"1", "2", "4"}},
    {"LAYOUT", {"row_major", "col_major"}},
};

// Codes in kParams' order: BLOCK_THREADS, VECS, ROWS, LAYOUT (0 = row_major).
bool Holds(const std::string& text, std::vector<int64_t> codes = {256, 4, 1, 0}) {
  auto expr = ParseTuneExpr(text, kParams);
  EXPECT_TRUE(expr.ok()) << text << ": " << (expr.ok() ? "" : expr.error().message);
  return expr.ok() && expr->Holds(codes);
}

void ExpectError(const std::string& text, const std::string& message, int column,
                 const std::string& hint = "") {
  auto expr = ParseTuneExpr(text, kParams);
  ASSERT_FALSE(expr.ok()) << text;
  EXPECT_EQ(expr.error().code, ExitCode::kUsage);
  EXPECT_EQ(expr.error().message, message) << text;
  EXPECT_EQ(expr.error().column, column) << text;
  EXPECT_EQ(expr.error().hint, hint) << text;
}

TEST(TuneExpr, ArithmeticAndPrecedenceFollowC) {
  EXPECT_TRUE(Holds("2 + 3 * 4 == 14"));
  EXPECT_TRUE(Holds("(2 + 3) * 4 == 20"));
  EXPECT_TRUE(Holds("10 - 4 - 3 == 3"));  // left to right
  EXPECT_TRUE(Holds("7 / 2 == 3 && 7 % 2 == 1 && -7 / 2 == -3"));
  EXPECT_TRUE(Holds("1 || 0 && 0"));  // && binds tighter
  EXPECT_FALSE(Holds("(1 || 0) && 0"));
  EXPECT_TRUE(Holds("-2 * -3 == 6 && - -1 == 1"));
  EXPECT_TRUE(Holds("!0 == 1 && !5 == 0"));
  EXPECT_TRUE(Holds("1 < 2 == 1"));  // relational binds tighter than equality
  EXPECT_TRUE(Holds("3 >= 3 && 3 > 2 && 2 <= 2 && 2 < 3 && 2 != 3"));
  EXPECT_FALSE(Holds("0"));
  EXPECT_TRUE(Holds("42"));
  EXPECT_TRUE(Holds("\t1+1==2\t"));
}

TEST(TuneExpr, ParametersReadTheirCodes) {
  const std::string text = "BLOCK_THREADS * VECS <= 1024";
  EXPECT_TRUE(Holds(text, {256, 4, 1, 0}));
  EXPECT_FALSE(Holds(text, {512, 4, 1, 0}));
  EXPECT_TRUE(Holds("ROWS == 1 || BLOCK_THREADS <= 256", {512, 1, 1, 0}));
  EXPECT_FALSE(Holds("ROWS == 1 || BLOCK_THREADS <= 256", {512, 1, 2, 0}));
}

TEST(TuneExpr, DivisionByZeroOrOverflowMakesTheConstraintFalse) {
  EXPECT_FALSE(Holds("VECS / (ROWS - 1) >= 0", {256, 4, 1, 0}));
  EXPECT_FALSE(Holds("VECS % (ROWS - 1) == 0", {256, 4, 1, 0}));
  EXPECT_FALSE(Holds("!(1 / 0 == 0)"));  // undefined, not "not false"
  EXPECT_FALSE(Holds("9223372036854775807 + 1 > 0"));
  EXPECT_FALSE(Holds("9223372036854775807 * 2 != 0"));
  EXPECT_FALSE(Holds("(-9223372036854775807 - 1) / -1 != 0"));
  EXPECT_TRUE(Holds("-9223372036854775807 - 1 < 0"));
  // Short-circuits guard a division, as in C.
  EXPECT_TRUE(Holds("ROWS == 1 || 4 / (ROWS - 1) > 0", {256, 4, 1, 0}));
  EXPECT_FALSE(Holds("ROWS != 1 && 4 / (ROWS - 1) > 0", {256, 4, 1, 0}));
}

TEST(TuneExpr, IdentifierParametersCompareWithTheirValues) {
  EXPECT_TRUE(Holds("LAYOUT == row_major", {256, 4, 1, 0}));
  EXPECT_FALSE(Holds("LAYOUT == row_major", {256, 4, 1, 1}));
  EXPECT_TRUE(Holds("col_major != LAYOUT", {256, 4, 1, 0}));
  EXPECT_TRUE(Holds("LAYOUT == col_major || VECS >= 4", {256, 4, 1, 0}));
  EXPECT_TRUE(Holds("(LAYOUT == (col_major)) == 0", {256, 4, 1, 0}));
}

TEST(TuneExpr, NamesAreCheckedWithSuggestions) {
  ExpectError("BLOCK_THREADS * VEC <= 4096", "unknown parameter 'VEC'", 17, "did you mean 'VECS'?");
  ExpectError("row_major == 1", "unknown parameter 'row_major'", 1,
              "valid: BLOCK_THREADS, VECS, ROWS, LAYOUT");
  ExpectError("-WARPS", "unknown parameter 'WARPS'", 2, "valid: BLOCK_THREADS, VECS, ROWS, LAYOUT");
}

TEST(TuneExpr, IdentifierParametersRejectOtherUses) {
  const std::string takes =
      "'LAYOUT' takes identifiers: compare it only with == or != against one of its values";
  ExpectError("LAYOUT == row_majr", "'row_majr' is not a value of 'LAYOUT'", 11,
              "did you mean 'row_major'?");
  ExpectError("diagonal != LAYOUT", "'diagonal' is not a value of 'LAYOUT'", 1,
              "valid: row_major, col_major");
  ExpectError("LAYOUT < 2", takes, 1, "e.g. LAYOUT == row_major");
  ExpectError("LAYOUT == 1", takes, 1, "e.g. LAYOUT == row_major");
  ExpectError("2 * (1 + LAYOUT) == 0", takes, 10, "e.g. LAYOUT == row_major");
  ExpectError("!LAYOUT", takes, 2, "e.g. LAYOUT == row_major");
  ExpectError("LAYOUT", takes, 1, "e.g. LAYOUT == row_major");
}

TEST(TuneExpr, SyntaxErrorsPointAtTheSpot) {
  ExpectError("", "empty constraint", 1, "write a condition, e.g. A <= B");
  ExpectError("   ", "empty constraint", 1, "write a condition, e.g. A <= B");
  ExpectError("1 < 2 < 3", "comparisons do not chain", 7,
              "write 'A < B && B < C', or add parentheses");
  ExpectError("ROWS == 1 != 0", "comparisons do not chain", 11,
              "write 'A == B && B != C', or add parentheses");
  ExpectError("(1 + 2", "missing ')' at the end of the constraint", 7, "close the '(' at column 1");
  ExpectError("(1 + 2 3)", "expected ')', found '3'", 8, "close the '(' at column 1");
  ExpectError("1 +", "expected a number, a parameter or '(' at the end of the constraint", 4);
  ExpectError("1 + )", "expected a number, a parameter or '(', found ')'", 5,
              "remove the extra ')'");
  ExpectError("ROWS = 1", "unexpected '=' after a complete expression", 6, "compare with '=='");
  ExpectError("ROWS & 1", "unexpected '&' after a complete expression", 6, "write '&&'");
  ExpectError("ROWS | 1", "unexpected '|' after a complete expression", 6, "write '||'");
  ExpectError("ROWS == 1)", "unexpected ')' after a complete expression", 10,
              "remove the extra ')'");
  ExpectError("ROWS 1", "unexpected '1' after a complete expression", 6,
              "join conditions with && or ||");
  ExpectError("1 == \x01", "expected a number, a parameter or '(', found '\\x01'", 6);
  ExpectError("0x10 == ROWS", "invalid number '0x10'", 1, "write decimal integers, e.g. 256");
  ExpectError("99999999999999999999 > 0", "number '99999999999999999999' does not fit in 64 bits",
              1);
}

TEST(TuneExpr, LengthAndNestingAreBounded) {
  EXPECT_TRUE(Holds(std::string(32, '(') + "1" + std::string(32, ')')));
  ExpectError(std::string(33, '(') + "1" + std::string(33, ')'), "nested deeper than 32 levels", 33,
              "simplify the constraint or split it into several");
  EXPECT_TRUE(Holds(std::string(32, '!') + "1"));
  ExpectError(std::string(33, '!') + "0", "nested deeper than 32 levels", 33,
              "simplify the constraint or split it into several");
  // A long flat chain is fine (its tree is deep but the text is bounded).
  std::string chain = "1";
  while (chain.size() + 8 < kMaxTuneExprChars) chain += "+1";
  EXPECT_TRUE(Holds(chain + " > 100"));
  ExpectError(std::string(kMaxTuneExprChars + 1, '1'),
              "constraint is 513 characters long, at most 512", 1,
              "split it into several constraints");
}

TEST(TuneExpr, ParameterKindsAndCodes) {
  EXPECT_TRUE(IsIntegerParam(kParams[0]));
  EXPECT_FALSE(IsIntegerParam(kParams[3]));
  EXPECT_TRUE(IsIntegerParam({"OFFSET", {"-1", "0"}}));
  EXPECT_EQ(ParamValueCodes(kParams[0]), (std::vector<int64_t>{128, 256, 512}));
  EXPECT_EQ(ParamValueCodes(kParams[3]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ParamValueCodes({"OFFSET", {"-1", "0"}}), (std::vector<int64_t>{-1, 0}));
}

TEST(TuneExpr, MissingCodesNeverHold) {
  auto expr = ParseTuneExpr("ROWS >= 0", kParams);
  ASSERT_TRUE(expr.ok());
  EXPECT_FALSE(expr->Holds(std::vector<int64_t>{256, 4}));  // ROWS absent
  EXPECT_FALSE(TuneExpr().Holds(std::vector<int64_t>{}));
}

}  // namespace
}  // namespace kb
