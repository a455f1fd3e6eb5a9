#include "core/sass_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "core/json_fields.h"
#include "core/kernel_names.h"

namespace kb {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Access width in bits from the opcode's modifiers: LDG.E.128.CONSTANT -> 128,
// LDG.E.U16 -> 16, LDG.E (none) -> 32.
int AccessBits(std::string_view opcode) {
  std::set<std::string_view> modifiers;
  size_t start = 0;
  while (start <= opcode.size()) {
    size_t dot = opcode.find('.', start);
    if (dot == std::string_view::npos) dot = opcode.size();
    modifiers.insert(opcode.substr(start, dot - start));
    start = dot + 1;
  }
  const std::pair<const char*, int> widths[] = {{"256", 256}, {"128", 128}, {"64", 64}, {"U16", 16},
                                                {"S16", 16},  {"U8", 8},    {"S8", 8}};
  for (const auto& [name, bits] : widths) {
    if (modifiers.count(name)) return bits;
  }
  return 32;
}

// The opcode of an instruction line "/*00d0*/  @!P0 LDG.E.128 R8, ... ;", or "".
std::string_view Opcode(std::string_view line) {
  line = Trim(line);
  if (!line.starts_with("/*")) return {};
  const size_t close = line.find("*/");
  if (close == std::string_view::npos) return {};
  line = Trim(line.substr(close + 2));
  if (line.starts_with("@")) {  // predicate
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) return {};
    line = Trim(line.substr(space));
  }
  const size_t end = line.find_first_of(" ;");
  return line.substr(0, end);
}

std::string Widths(const std::map<int, int>& counts, const char* opcode) {
  std::vector<std::string> parts;
  for (auto it = counts.rbegin(); it != counts.rend(); ++it) {
    parts.push_back(fmt::format("{}x {}.{}", it->second, opcode, it->first));
  }
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

std::optional<int> FieldAfter(std::string_view line, std::string_view key) {
  const size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size();
  int value = 0;
  bool any = false;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && value < 100000000) {
    value = value * 10 + (line[i++] - '0');
    any = true;
  }
  return any ? std::optional<int>(value) : std::nullopt;
}

// The address of a load, "[R2.64+0xe]" -> ("R2.64", 14); "[R2.64]" -> ("R2.64", 0).
// Empty register when the line has no such operand.
std::pair<std::string, int64_t> AddressOperand(std::string_view line) {
  const size_t close = line.find("*/");  // past the instruction's address comment
  size_t open = line.find('[', close == std::string_view::npos ? 0 : close);
  if (open == std::string_view::npos) return {};
  size_t end = line.find(']', open);
  if (end == std::string_view::npos) return {};
  if (end + 1 < line.size() && line[end + 1] == '[') {  // desc[UR4][R2.64]: the address is second
    open = end + 1;
    end = line.find(']', open);
    if (end == std::string_view::npos) return {};
  }
  const std::string_view inside = line.substr(open + 1, end - open - 1);
  const size_t plus = inside.find("+0x");
  if (plus == std::string_view::npos) return {std::string(Trim(inside)), 0};
  const std::string_view hex = inside.substr(plus + 3);
  int64_t offset = 0;
  if (std::from_chars(hex.data(), hex.data() + hex.size(), offset, 16).ec != std::errc{}) {
    return {};
  }
  return {std::string(Trim(inside.substr(0, plus))), offset};
}

// Narrow loads of one kernel by address register: the offsets read.
using NarrowLoads = std::map<std::pair<int, std::string>, std::set<int64_t>>;

// 16-byte windows every element of which a register's narrow loads read.
int ElementReadVectors(const NarrowLoads& loads) {
  int vectors = 0;
  for (const auto& [key, offsets] : loads) {
    const int bytes = key.first / 8;
    std::set<int64_t> windows;
    for (int64_t o : offsets) windows.insert(o - o % 16);
    for (int64_t w : windows) {
      bool whole = true;
      for (int64_t b = w; b < w + 16 && whole; b += bytes) whole = offsets.count(b) > 0;
      vectors += whole ? 1 : 0;
    }
  }
  return vectors;
}

}  // namespace

std::vector<SassFunction> ParseCuobjdumpSass(std::string_view text) {
  std::vector<SassFunction> functions;
  std::set<std::string> seen;
  std::string arch;
  SassFunction* current = nullptr;
  NarrowLoads narrow;
  const auto finish = [&] {
    if (current) current->element_read_vectors = ElementReadVectors(narrow);
    narrow.clear();
    current = nullptr;
  };
  std::istringstream in{std::string(text)};
  for (std::string raw; std::getline(in, raw);) {
    const std::string_view line = Trim(raw);
    if (line.starts_with("code for ")) {
      finish();
      arch = std::string(Trim(line.substr(9)));
    } else if (line.starts_with("Function : ")) {
      finish();
      const std::string mangled(Trim(line.substr(11)));
      if (!seen.insert(mangled).second) continue;  // the same kernel for a later architecture
      current = &functions.emplace_back();
      current->mangled = mangled;
      current->name = Demangle(mangled);
      current->arch = arch;
    } else if (current) {
      const std::string_view opcode = Opcode(line);
      const std::string_view base = opcode.substr(0, opcode.find('.'));
      if (base == "LDG" || base == "LDGSTS") {
        const int bits = AccessBits(opcode);
        ++current->global_loads[bits];
        if (base == "LDG" && bits <= 16) {
          auto [reg, offset] = AddressOperand(line);
          if (!reg.empty()) narrow[{bits, std::move(reg)}].insert(offset);
        }
      } else if (base == "STG") {
        ++current->global_stores[AccessBits(opcode)];
      } else if (base == "LDL") {
        ++current->local_loads;
      } else if (base == "STL") {
        ++current->local_stores;
      }
    }
  }
  finish();
  return functions;
}

void AddResourceUsage(std::string_view text, std::vector<SassFunction>& functions) {
  std::istringstream in{std::string(text)};
  std::string name;
  for (std::string raw; std::getline(in, raw);) {
    const std::string_view line = Trim(raw);
    if (line.starts_with("Function ") && line.ends_with(":")) {
      name = std::string(Trim(line.substr(9, line.size() - 10)));
      continue;
    }
    if (name.empty() || !line.starts_with("REG:")) continue;
    SassFunction* target = nullptr;
    for (auto& f : functions) {
      if (f.mangled == name) target = &f;
    }
    if (!target) {
      target = &functions.emplace_back();
      target->mangled = name;
      target->name = Demangle(name);
    }
    if (!target->registers) {  // the first architecture's figures, like the SASS
      target->registers = FieldAfter(line, "REG:");
      target->stack_bytes = FieldAfter(line, "STACK:");
      target->shared_bytes = FieldAfter(line, "SHARED:");
      target->local_bytes = FieldAfter(line, "LOCAL:");
    }
    name.clear();
  }
}

std::string SassCheckLine(const SassFunction& f) {
  std::string line =
      fmt::format("loads {}; stores {}; local memory: ", Widths(f.global_loads, "LDG"),
                  Widths(f.global_stores, "STG"));
  line += f.local_loads + f.local_stores == 0
              ? "none"
              : fmt::format("{} LDL, {} STL", f.local_loads, f.local_stores);
  if (f.registers) line += fmt::format("; {} registers", *f.registers);
  if (f.stack_bytes) line += fmt::format(", stack {} B", *f.stack_bytes);
  if (f.shared_bytes && *f.shared_bytes > 0)
    line += fmt::format(", static shared {} B", *f.shared_bytes);
  return line;
}

std::vector<std::string> SassFindings(const SassFunction& f) {
  std::vector<std::string> findings;
  if (f.local_loads + f.local_stores > 0 || (f.stack_bytes && *f.stack_bytes > 0)) {
    findings.push_back(fmt::format(
        "local memory in the SASS ({} LDL, {} STL, stack {} B): register spills or an array "
        "indexed at run time; keep indices compile-time or lower the registers per thread",
        f.local_loads, f.local_stores, f.stack_bytes.value_or(0)));
  }
  int widest = 0;
  for (const auto& [bits, count] : f.global_loads) widest = std::max(widest, bits);
  if (widest > 0 && widest < 32) {
    findings.push_back(fmt::format(
        "global loads are at most {}-bit: no vector loads (16-byte LDG.128 moves 8 bf16 at once)",
        widest));
  }
  if (f.element_read_vectors > 0) {
    findings.push_back(fmt::format(
        "{} 16-byte vector(s) read an element at a time (narrow loads at every offset of one "
        "16-byte window): nvcc splits a vector read through a reference or element by element; "
        "copy it into a local Vec first (expected only on rows misaligned on purpose)",
        f.element_read_vectors));
  }
  return findings;
}

nlohmann::json SassFunctionJson(const SassFunction& f) {
  const auto widths = [](const std::map<int, int>& counts) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [bits, count] : counts) out[std::to_string(bits)] = count;
    return out;
  };
  const auto or_null = [](const std::optional<int>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"function", f.mangled},
          {"name", f.name},
          {"arch", f.arch},
          {"global_loads", widths(f.global_loads)},
          {"global_stores", widths(f.global_stores)},
          {"local_loads", f.local_loads},
          {"local_stores", f.local_stores},
          {"element_read_vectors", f.element_read_vectors},
          {"registers", or_null(f.registers)},
          {"stack_bytes", or_null(f.stack_bytes)},
          {"shared_bytes", or_null(f.shared_bytes)},
          {"local_bytes", or_null(f.local_bytes)},
          {"findings", SassFindings(f)}};
}

SassFunction SassFunctionFromJson(const nlohmann::json& object) {
  const auto count = [](double v) { return static_cast<int>(std::clamp(v, 0.0, 1e9)); };
  const auto widths = [&](const char* key) {
    std::map<int, int> counts;
    const nlohmann::json by_width = ObjectAt(object, key);  // items() must not outlive it
    for (const auto& [bits, n] : by_width.items()) {
      const bool digits =
          !bits.empty() && bits.size() <= 4 &&
          std::all_of(bits.begin(), bits.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || !n.is_number()) continue;
      counts[std::stoi(bits)] = count(n.get<double>());
    }
    return counts;
  };
  const auto known = [&](const char* key) -> std::optional<int> {
    const double value = NumberOr(object, key, -1);
    return value < 0 ? std::nullopt : std::optional<int>(count(value));
  };
  SassFunction f;
  f.mangled = StringOr(object, "function");
  f.name = StringOr(object, "name", f.mangled);
  f.arch = StringOr(object, "arch");
  f.global_loads = widths("global_loads");
  f.global_stores = widths("global_stores");
  f.local_loads = count(NumberOr(object, "local_loads"));
  f.local_stores = count(NumberOr(object, "local_stores"));
  f.element_read_vectors = count(NumberOr(object, "element_read_vectors"));
  f.registers = known("registers");
  f.stack_bytes = known("stack_bytes");
  f.shared_bytes = known("shared_bytes");
  f.local_bytes = known("local_bytes");
  return f;
}

}  // namespace kb
