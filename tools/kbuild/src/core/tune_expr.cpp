// Constraint text -> a small parse tree (precedence climbing), checked while
// it is built: names resolve to parameters or identifier values, so a parsed
// constraint can only fail at run time by dividing by zero or overflowing.
#include "core/tune_expr.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "core/message_text.h"
#include "core/suggest.h"

namespace kb {

namespace {

using Node = TuneExpr::Node;
using Op = Node::Op;

bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

struct BinaryOp {
  std::string_view token;
  Op op;
  int level;  // higher binds tighter
};

// Longer tokens first, so "<=" is not read as "<".
constexpr BinaryOp kBinaryOps[] = {
    {"||", Op::kOr, 1},       {"&&", Op::kAnd, 2},       {"==", Op::kEqual, 3},
    {"!=", Op::kNotEqual, 3}, {"<=", Op::kLessEqual, 4}, {">=", Op::kGreaterEqual, 4},
    {"<", Op::kLess, 4},      {">", Op::kGreater, 4},    {"+", Op::kAdd, 5},
    {"-", Op::kSub, 5},       {"*", Op::kMul, 6},        {"/", Op::kDiv, 6},
    {"%", Op::kMod, 6},
};
constexpr int kEqualityLevel = 3;
constexpr int kRelationalLevel = 4;

// How to fix a character the grammar has no place for (C habits mostly).
std::string TokenHint(const std::string& c, const std::string& otherwise) {
  if (c == "=") return "compare with '=='";
  if (c == "&") return "write '&&'";
  if (c == "|") return "write '||'";
  if (c == ")") return "remove the extra ')'";
  return otherwise;
}

// What a node stands for while parsing; only integers may meet operators.
enum class Kind { kInteger, kIdentParam, kBareName };

class Parser {
 public:
  Parser(std::string_view text, const std::vector<TuneParam>& params)
      : text_(text), params_(params) {}

  std::optional<Error> Run(std::vector<Node>& nodes) {
    if (text_.size() > kMaxTuneExprChars) {
      return Fail(1,
                  "constraint is " + std::to_string(text_.size()) + " characters long, at most " +
                      std::to_string(kMaxTuneExprChars),
                  "split it into several constraints");
    }
    SkipSpace();
    if (pos_ == text_.size()) return Fail(1, "empty constraint", "write a condition, e.g. A <= B");
    const int root = ParseBinary(1);
    if (!error_ && root >= 0) RequireInteger(root);
    if (!error_ && pos_ < text_.size()) {
      Fail(Column(), "unexpected '" + Quoted(pos_) + "' after a complete expression",
           TokenHint(Quoted(pos_), "join conditions with && or ||"));
    }
    if (error_) return error_;
    nodes = std::move(nodes_);
    return std::nullopt;
  }

 private:
  int Column() const { return static_cast<int>(pos_) + 1; }

  std::optional<Error> Fail(int column, std::string message, std::string hint = {}) {
    if (error_) return error_;  // the first error is the one to fix
    Error e = MakeError(ExitCode::kUsage, CutForMessage(message, kMaxMessageChars),
                        CutForMessage(hint, kMaxMessageChars));
    e.column = column;
    error_ = std::move(e);
    return error_;
  }

  // The character at `at` for a message; control bytes as \xNN.
  std::string Quoted(size_t at) const {
    const auto c = static_cast<unsigned char>(text_[at]);
    if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  bool Accept(std::string_view token) {
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    SkipSpace();
    return true;
  }

  const BinaryOp* PeekBinary() const {
    for (const auto& op : kBinaryOps) {
      if (text_.substr(pos_, op.token.size()) == op.token) return &op;
    }
    return nullptr;
  }

  int Add(Node node, Kind kind) {
    nodes_.push_back(node);
    kinds_.push_back(kind);
    return static_cast<int>(nodes_.size()) - 1;
  }

  int ParseBinary(int min_level) {
    int lhs = ParseUnary();
    while (!error_) {
      const BinaryOp* op = PeekBinary();
      if (op == nullptr || op->level < min_level) break;
      const int column = Column();
      Accept(op->token);
      const int rhs = ParseBinary(op->level + 1);
      if (error_) break;
      lhs = Combine(*op, lhs, rhs, column);
      const BinaryOp* next = PeekBinary();
      const bool comparison = op->level == kEqualityLevel || op->level == kRelationalLevel;
      if (!error_ && comparison && next && next->level == op->level) {
        Fail(Column(), "comparisons do not chain",
             "write 'A " + std::string(op->token) + " B && B " + std::string(next->token) +
                 " C', or add parentheses");
      }
    }
    return error_ ? -1 : lhs;
  }

  int ParseUnary() {
    const int column = Column();
    const bool negate = text_.substr(pos_, 1) == "-";
    const bool logical_not = text_.substr(pos_, 1) == "!";
    if (!negate && !logical_not) return ParsePrimary();
    Accept(negate ? "-" : "!");
    if (!Nest(column)) return -1;
    const int operand = ParseUnary();
    --depth_;
    if (error_ || !RequireInteger(operand)) return -1;
    return Add({negate ? Op::kNegate : Op::kNot, 0, operand, -1, column}, Kind::kInteger);
  }

  bool Nest(int column) {
    if (++depth_ <= kMaxTuneExprNesting) return true;
    Fail(column, "nested deeper than " + std::to_string(kMaxTuneExprNesting) + " levels",
         "simplify the constraint or split it into several");
    return false;
  }

  int ParsePrimary() {
    const int column = Column();
    if (pos_ == text_.size()) {
      Fail(column, "expected a number, a parameter or '(' at the end of the constraint");
      return -1;
    }
    if (Accept("(")) {
      if (!Nest(column)) return -1;
      const int inner = ParseBinary(1);
      --depth_;
      if (error_) return -1;
      if (!Accept(")")) {
        Fail(Column(),
             pos_ == text_.size() ? "missing ')' at the end of the constraint"
                                  : "expected ')', found '" + Quoted(pos_) + "'",
             "close the '(' at column " + std::to_string(column));
        return -1;
      }
      return inner;
    }
    const size_t start = pos_;
    if (!IsNameChar(text_[pos_])) {
      Fail(column, "expected a number, a parameter or '(', found '" + Quoted(pos_) + "'",
           TokenHint(Quoted(pos_), ""));
      return -1;
    }
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    const std::string_view word = text_.substr(start, pos_ - start);
    SkipSpace();
    if (IsDigit(word.front())) return Literal(word, column);
    return Name(word, column);
  }

  int Literal(std::string_view word, int column) {
    if (!std::all_of(word.begin(), word.end(), IsDigit)) {
      Fail(column, "invalid number '" + CutForMessage(word) + "'",
           "write decimal integers, e.g. 256");
      return -1;
    }
    const auto value = ParseInt(word);
    if (!value) {
      Fail(column, "number '" + CutForMessage(word) + "' does not fit in 64 bits");
      return -1;
    }
    return Add({Op::kLiteral, *value, -1, -1, column}, Kind::kInteger);
  }

  int Name(std::string_view word, int column) {
    for (size_t i = 0; i < params_.size(); ++i) {
      if (params_[i].name != word) continue;
      const Kind kind = IsIntegerParam(params_[i]) ? Kind::kInteger : Kind::kIdentParam;
      return Add({Op::kParam, static_cast<int64_t>(i), -1, -1, column}, kind);
    }
    names_.resize(nodes_.size() + 1);
    names_.back() = std::string(word);
    return Add({Op::kName, 0, -1, -1, column}, Kind::kBareName);
  }

  std::vector<std::string> ParamNames() const {
    std::vector<std::string> names;
    for (const auto& p : params_) names.push_back(p.name);
    return names;
  }

  // Reports a node that may not meet an arithmetic or logical operator.
  bool RequireInteger(int node) {
    const Node& n = nodes_[node];
    if (kinds_[node] == Kind::kBareName) {
      Fail(n.column, "unknown parameter '" + CutForMessage(names_[node]) + "'",
           SuggestionHint(names_[node], ParamNames()));
      return false;
    }
    if (kinds_[node] == Kind::kIdentParam) {
      const TuneParam& p = params_[n.value];
      Fail(n.column,
           "'" + p.name +
               "' takes identifiers: compare it only with == or != against one of its "
               "values",
           "e.g. " + p.name + " == " + p.values.front());
      return false;
    }
    return true;
  }

  // `node` must name one of identifier-valued parameter `param`'s values;
  // it becomes that value's code.
  bool ResolveValue(int param_node, int node) {
    const TuneParam& p = params_[nodes_[param_node].value];
    if (kinds_[node] != Kind::kBareName) return RequireInteger(param_node);
    const auto& values = p.values;
    const auto found = std::find(values.begin(), values.end(), names_[node]);
    if (found == values.end()) {
      Fail(nodes_[node].column,
           "'" + CutForMessage(names_[node]) + "' is not a value of '" + p.name + "'",
           SuggestionHint(names_[node], values));
      return false;
    }
    nodes_[node].op = Op::kLiteral;
    nodes_[node].value = found - values.begin();
    kinds_[node] = Kind::kInteger;
    return true;
  }

  int Combine(const BinaryOp& op, int lhs, int rhs, int column) {
    bool ok = false;
    if (op.level == kEqualityLevel && kinds_[lhs] == Kind::kIdentParam) {
      ok = ResolveValue(lhs, rhs);
    } else if (op.level == kEqualityLevel && kinds_[rhs] == Kind::kIdentParam) {
      ok = ResolveValue(rhs, lhs);
    } else {
      ok = RequireInteger(lhs) && RequireInteger(rhs);
    }
    if (!ok) return -1;
    return Add({op.op, 0, lhs, rhs, column}, Kind::kInteger);
  }

  std::string_view text_;
  const std::vector<TuneParam>& params_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<Node> nodes_;
  std::vector<Kind> kinds_;
  std::vector<std::string> names_;  // by node, for kBareName nodes
  std::optional<Error> error_;
};

// nullopt when the value is undefined (division by zero, overflow).
std::optional<int64_t> Evaluate(const std::vector<Node>& nodes, int index,
                                std::span<const int64_t> codes) {
  const Node& n = nodes[index];
  switch (n.op) {
    case Op::kLiteral:
      return n.value;
    case Op::kParam:
      if (n.value < 0 || static_cast<size_t>(n.value) >= codes.size()) return std::nullopt;
      return codes[n.value];
    case Op::kName:
      return std::nullopt;  // never in a parsed expression
    default:
      break;
  }
  const auto a = Evaluate(nodes, n.lhs, codes);
  if (!a) return std::nullopt;
  if (n.op == Op::kNegate) return *a == INT64_MIN ? std::nullopt : std::optional<int64_t>(-*a);
  if (n.op == Op::kNot) return *a == 0;
  if (n.op == Op::kAnd && *a == 0) return 0;
  if (n.op == Op::kOr && *a != 0) return 1;
  const auto b = Evaluate(nodes, n.rhs, codes);
  if (!b) return std::nullopt;
  int64_t out = 0;
  switch (n.op) {
    case Op::kAdd:
      return __builtin_add_overflow(*a, *b, &out) ? std::nullopt : std::optional<int64_t>(out);
    case Op::kSub:
      return __builtin_sub_overflow(*a, *b, &out) ? std::nullopt : std::optional<int64_t>(out);
    case Op::kMul:
      return __builtin_mul_overflow(*a, *b, &out) ? std::nullopt : std::optional<int64_t>(out);
    case Op::kDiv:
    case Op::kMod:
      if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
      return n.op == Op::kDiv ? *a / *b : *a % *b;
    case Op::kLess:
      return *a < *b;
    case Op::kLessEqual:
      return *a <= *b;
    case Op::kGreater:
      return *a > *b;
    case Op::kGreaterEqual:
      return *a >= *b;
    case Op::kEqual:
      return *a == *b;
    case Op::kNotEqual:
      return *a != *b;
    case Op::kAnd:
    case Op::kOr:
      return *b != 0;
    default:
      return std::nullopt;
  }
}

}  // namespace

bool IsIntegerParam(const TuneParam& param) {
  return !param.values.empty() && !param.values.front().empty() &&
         !IsNameStart(param.values.front().front());
}

std::vector<int64_t> ParamValueCodes(const TuneParam& param) {
  std::vector<int64_t> codes;
  const bool integers = IsIntegerParam(param);
  for (size_t i = 0; i < param.values.size(); ++i) {
    codes.push_back(integers ? ParseInt(param.values[i]).value_or(0) : static_cast<int64_t>(i));
  }
  return codes;
}

bool TuneExpr::Holds(std::span<const int64_t> codes) const {
  if (nodes_.empty()) return false;
  const auto value = Evaluate(nodes_, static_cast<int>(nodes_.size()) - 1, codes);
  return value && *value != 0;
}

Expected<TuneExpr> ParseTuneExpr(std::string_view text, const std::vector<TuneParam>& params) {
  TuneExpr expr;
  if (auto error = Parser(text, params).Run(expr.nodes_)) return *std::move(error);
  return expr;
}

}  // namespace kb
