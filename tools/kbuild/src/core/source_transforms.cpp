#include "core/source_transforms.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "core/source_scan.h"

namespace kb {

namespace {

constexpr int kMaxHeaderTokens = 32;    // tokens between __global__/__device__ and the name
constexpr int kMaxLinesAboveLoop = 64;  // comment lines looked through above a `for`

struct Function {
  std::string name;
  bool global = false;
  int ordinal = 0;  // among the file's definitions of this name
  size_t bounds_open = kNoPosition, bounds_close = kNoPosition;  // __launch_bounds__( )
  size_t params_open = 0, params_close = 0;
  size_t body_open = 0, body_close = 0;
};

enum class Header { kDefinition, kDeclaration, kNotUnderstood };

class Scanner {
 public:
  Scanner(const std::filesystem::path& file, std::string_view text)
      : file_(file.generic_string()), text_(text) {}

  std::vector<TransformSite> Run() {
    if (text_.size() > kMaxTransformSourceBytes) return {};
    bool ok = true;
    masked_ = BlankNonCode(text_, &ok);
    if (!ok || !MatchBrackets()) return {};
    m_ = masked_;
    std::vector<Function> functions;
    std::set<std::string> declared;  // __global__ names with a declaration but no body here
    std::map<std::string, int> seen;
    for (const char* keyword : {"__global__", "__device__"}) {
      for (size_t at : WordsIn(keyword, 0, m_.size())) {
        Function f;
        f.global = std::string_view(keyword) == "__global__";
        const Header h = ParseHeader(at + std::string_view(keyword).size(), &f);
        if (h == Header::kDeclaration && f.global) declared.insert(f.name);
        if (h == Header::kDefinition) functions.push_back(std::move(f));
      }
    }
    std::sort(functions.begin(), functions.end(),
              [](const Function& a, const Function& b) { return a.body_open < b.body_open; });
    functions.erase(std::unique(functions.begin(), functions.end(),
                                [](const Function& a, const Function& b) {
                                  return a.body_open == b.body_open;
                                }),
                    functions.end());
    for (auto& f : functions) f.ordinal = seen[f.name]++;
    std::vector<TransformSite> sites;
    for (const Function& f : functions) {
      if (f.global && !declared.count(f.name)) {
        Restrict(f, &sites);
        MinBlocks(f, &sites);
      }
      Unroll(f, &sites);
    }
    return sites;
  }

 private:
  bool MatchBrackets() {
    match_.assign(masked_.size(), kNoPosition);
    std::vector<size_t> open;
    for (size_t i = 0; i < masked_.size(); ++i) {
      const char c = masked_[i];
      if (c == '(' || c == '[' || c == '{') open.push_back(i);
      if (c == ')' || c == ']' || c == '}') {
        if (open.empty()) return false;
        const char o = masked_[open.back()];
        if ((c == ')' && o != '(') || (c == ']' && o != '[') || (c == '}' && o != '{'))
          return false;
        match_[open.back()] = i;
        match_[i] = open.back();
        open.pop_back();
      }
    }
    return open.empty();
  }

  std::vector<size_t> WordsIn(std::string_view word, size_t from, size_t to) const {
    std::vector<size_t> at;
    for (size_t i = m_.find(word, from); i != kNoPosition && i + word.size() <= to;
         i = m_.find(word, i + 1)) {
      const bool starts = i == 0 || !IsIdentChar(m_[i - 1]);
      const bool ends = i + word.size() >= m_.size() || !IsIdentChar(m_[i + word.size()]);
      if (starts && ends) at.push_back(i);
    }
    return at;
  }

  size_t SkipSpace(size_t i) const {
    while (i < m_.size() && IsSpace(m_[i])) ++i;
    return i;
  }

  std::string Where(const Function& f) const { return fmt::format("{}#{}", f.name, f.ordinal); }

  // From just after __global__/__device__: qualifiers, a return type, attributes,
  // then `name(params)` and `{` (a definition) or `;` (a declaration).
  Header ParseHeader(size_t i, Function* f) const {
    for (int n = 0; n < kMaxHeaderTokens; ++n) {
      i = SkipSpace(i);
      if (i >= m_.size()) return Header::kNotUnderstood;
      if (IsIdentChar(m_[i]) && !IsDigit(m_[i])) {
        size_t end = i;
        while (end < m_.size() && IsIdentChar(m_[end])) ++end;
        const std::string_view word = m_.substr(i, end - i);
        const size_t next = SkipSpace(end);
        const bool call = next < m_.size() && m_[next] == '(';
        if (word == "__launch_bounds__" || word == "__attribute__" || word == "alignas") {
          if (!call) return Header::kNotUnderstood;
          if (word == "__launch_bounds__") {
            f->bounds_open = next;
            f->bounds_close = match_[next];
          }
          i = match_[next] + 1;
        } else if (call) {
          f->name = std::string(word);
          f->params_open = next;
          f->params_close = match_[next];
          const size_t after = SkipSpace(f->params_close + 1);
          if (after < m_.size() && m_[after] == ';') return Header::kDeclaration;
          if (after >= m_.size() || m_[after] != '{') return Header::kNotUnderstood;
          f->body_open = after;
          f->body_close = match_[after];
          return Header::kDefinition;
        } else {
          i = end;
        }
      } else if (m_[i] == '<') {  // a template return type: vec_t<T, 4>
        int depth = 0;
        for (; i < m_.size(); ++i) {
          if (m_[i] == ';' || m_[i] == '{' || m_[i] == '}') return Header::kNotUnderstood;
          if (m_[i] == '<') ++depth;
          if (m_[i] == '>' && --depth == 0) break;
        }
        ++i;
      } else if (m_[i] == '*' || m_[i] == '&') {
        ++i;
      } else if (m_[i] == ':' && i + 1 < m_.size() && m_[i + 1] == ':') {
        i += 2;
      } else {
        return Header::kNotUnderstood;
      }
    }
    return Header::kNotUnderstood;
  }

  void Restrict(const Function& f, std::vector<TransformSite>* sites) const {
    const size_t from = f.params_open + 1, to = f.params_close;
    const std::string_view params = m_.substr(from, to - from);
    if (params.find_first_of("=[(.") != kNoPosition)
      return;  // defaults, arrays, function pointers, ...
    TransformSite site;
    for (const auto& [a, b] : SplitTopLevel(m_, from, to)) {
      const auto tokens = Tokens(m_, a, b);
      const auto star =
          std::find_if(tokens.begin(), tokens.end(), [](const Token& t) { return t.text == "*"; });
      if (star == tokens.end()) continue;
      // Before the `*` the pointee type; after it only qualifiers and the name.
      bool const_pointee = false, skip = false;
      int names = 0;
      for (auto t = tokens.begin(); t != tokens.end(); ++t) {
        const std::string_view s = t->text;
        const bool restrict = s == "__restrict__" || s == "__restrict" || s == "restrict";
        if (restrict || s == "volatile") skip = true;
        if (t < star && s == "const") const_pointee = true;
        if (t > star && s != "const" && !restrict && (!IsIdentifier(s) || ++names > 1)) {
          return;  // `**`, `*&`, two names: not understood
        }
      }
      if (skip || !const_pointee) continue;
      const size_t after = star->offset + 1;
      site.edits.push_back({after, 0, IsSpace(m_[after]) ? " __restrict__" : " __restrict__ "});
    }
    if (site.edits.empty()) return;
    site.id = fmt::format("{}:restrict:{}", file_, Where(f));
    site.file = file_;
    site.description = fmt::format("restrict on const pointers of {} ({})", f.name, file_);
    sites->push_back(std::move(site));
  }

  void MinBlocks(const Function& f, std::vector<TransformSite>* sites) const {
    if (f.bounds_open == kNoPosition) return;
    const auto args = SplitTopLevel(m_, f.bounds_open + 1, f.bounds_close);
    if (args.empty() || args.size() > 2) return;
    const std::string_view threads = Trim(m_.substr(args[0].first, args[0].second - args[0].first));
    if (!IsIntegerLiteral(threads) && !IsIdentifier(threads)) return;
    const auto add = [&](int blocks, TextEdit edit) {
      TransformSite site;
      site.id = fmt::format("{}:minblocks={}:{}", file_, blocks, Where(f));
      site.file = file_;
      site.description =
          fmt::format("__launch_bounds__({}, {}) on {} ({})", threads, blocks, f.name, file_);
      site.edits.push_back(std::move(edit));
      sites->push_back(std::move(site));
    };
    if (args.size() == 1) {
      for (int blocks : {1, 2, 4}) add(blocks, {f.bounds_close, 0, fmt::format(", {}", blocks)});
      return;
    }
    const std::string_view spelled = m_.substr(args[1].first, args[1].second - args[1].first);
    const std::string_view value = Trim(spelled);
    constexpr std::array<int, 4> kLadder = {1, 2, 4, 8};
    const auto at = std::find_if(kLadder.begin(), kLadder.end(),
                                 [&](int b) { return value == std::to_string(b); });
    if (at == kLadder.end()) return;
    const size_t offset = static_cast<size_t>(value.data() - m_.data());
    for (auto next : {at - 1, at + 1}) {
      if (next >= kLadder.begin() && next < kLadder.end()) {
        add(*next, {offset, value.size(), std::to_string(*next)});
      }
    }
  }

  // A loop bound known at compile time: a constexpr name or a template parameter.
  bool IsCompileTimeName(std::string_view name) const {
    for (size_t at : WordsIn(name, 0, m_.size())) {
      const size_t next = SkipSpace(at + name.size());
      const char c = next < m_.size() ? m_[next] : ';';
      const bool defines = (c == '=' && (next + 1 >= m_.size() || m_[next + 1] != '=')) || c == '{';
      size_t start = at;
      while (start > 0 && m_[start - 1] != ';' && m_[start - 1] != '{' && m_[start - 1] != '}' &&
             at - start < 256) {
        --start;
      }
      const std::string_view statement = m_.substr(start, at - start);
      const auto kw = statement.find("constexpr");
      if (defines && kw != kNoPosition && (kw == 0 || !IsIdentChar(statement[kw - 1]))) return true;
      if (c == ',' || c == '>' || c == '=') {
        size_t back = at;
        while (back > 0 && at - back < 256 &&
               std::string_view(";{}()<>").find(m_[back - 1]) == kNoPosition) {
          --back;
        }
        if (back > 0 && m_[back - 1] == '<') {
          size_t t = back - 1;
          while (t > 0 && IsSpace(m_[t - 1])) --t;
          if (WordBefore(m_, t) == "template") return true;
        }
      }
    }
    return false;
  }

  void Unroll(const Function& f, std::vector<TransformSite>* sites) const {
    int k = -1;
    for (size_t at : WordsIn("for", f.body_open, f.body_close)) {
      ++k;
      size_t line = at;
      while (line > 0 && text_[line - 1] != '\n') --line;
      const std::string_view indent = text_.substr(line, at - line);
      if (!std::all_of(indent.begin(), indent.end(),
                       [](char c) { return c == ' ' || c == '\t'; })) {
        continue;
      }
      if (!NoDirectiveAbove(line)) continue;
      const size_t open = SkipSpace(at + 3);
      if (open >= m_.size() || m_[open] != '(') continue;
      const auto t = Tokens(m_, open + 1, match_[open] + 1);
      if (t.size() != 12 || t[0].text != "int" || !IsIdentifier(t[1].text) || t[2].text != "=" ||
          t[3].text != "0" || t[4].text != ";" || t[5].text != t[1].text || t[6].text != "<" ||
          t[8].text != ";" || t[11].text != ")") {
        continue;
      }
      const std::string_view var = t[1].text, bound = t[7].text;
      const bool step =
          (t[9].text == "++" && t[10].text == var) || (t[9].text == var && t[10].text == "++");
      if (!step ||
          !(IsIntegerLiteral(bound) || (IsIdentifier(bound) && IsCompileTimeName(bound)))) {
        continue;
      }
      TransformSite site;
      site.id = fmt::format("{}:unroll:{}:{}", file_, Where(f), k);
      site.file = file_;
      site.description =
          fmt::format("#pragma unroll on the loop {} < {} in {} ({})", var, bound, f.name, file_);
      site.edits.push_back({line, 0, std::string(indent) + "#pragma unroll\n"});
      sites->push_back(std::move(site));
    }
  }

  // Whether the lines above `line` (a line start), up to the first one with
  // code, hold no preprocessor directive (an existing #pragma among them).
  bool NoDirectiveAbove(size_t line) const {
    for (int n = 0; n < kMaxLinesAboveLoop && line > 0; ++n) {
      const size_t end = line - 1;
      size_t start = end;
      while (start > 0 && text_[start - 1] != '\n') --start;
      const std::string_view original = Trim(text_.substr(start, end - start));
      if (!original.empty() && original.front() == '#') return false;
      if (!Trim(m_.substr(start, end - start)).empty()) return true;
      line = start;
    }
    return line == 0;
  }

  std::string file_;
  std::string_view text_;
  std::string masked_;
  std::string_view m_;
  std::vector<size_t> match_;
};

}  // namespace

std::vector<TransformSite> FindTransformSites(const std::filesystem::path& file,
                                              std::string_view text) {
  return Scanner(file, text).Run();
}

std::vector<TransformSite> FindTransformSites(const std::vector<CandidateFile>& files) {
  std::vector<TransformSite> sites;
  for (const auto& f : files) {
    auto more = FindTransformSites(f.relative, f.content);
    sites.insert(sites.end(), std::make_move_iterator(more.begin()),
                 std::make_move_iterator(more.end()));
  }
  return sites;
}

std::string ApplyTransform(std::string_view text, const TransformSite& site) {
  std::string out(text);
  for (auto e = site.edits.rbegin(); e != site.edits.rend(); ++e) {
    if (e->offset + e->length > out.size()) return std::string(text);
    out.replace(e->offset, e->length, e->text);
  }
  return out;
}

}  // namespace kb
