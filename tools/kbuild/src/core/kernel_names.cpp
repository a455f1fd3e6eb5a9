#include "core/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>

namespace kb {

std::string Demangle(const std::string& symbol) {
  if (!symbol.starts_with("_Z")) return symbol;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : symbol;
}

std::string DisplayKernelName(const std::string& ncu_name) {
  if (ncu_name.starts_with("_Z")) return Demangle(ncu_name);
  if (ncu_name.starts_with("unnamed>::")) return "<" + ncu_name;
  return ncu_name;
}

std::string NormalizedSignature(std::string_view demangled) {
  std::string s(demangled);
  if (s.starts_with("void ")) s.erase(0, 5);
  static const std::regex anonymous(R"(\(anonymous namespace\))");
  s = std::regex_replace(s, anonymous, "<unnamed>");
  // East const: "const float *" and "float const*" are one type.
  static const std::regex west_const(R"(\bconst ([A-Za-z_][A-Za-z0-9_:]*))");
  s = std::regex_replace(s, west_const, "$1 const");
  std::erase_if(s, [](char ch) { return ch == ' ' || ch == '\t'; });
  return s;
}

bool SameKernel(const std::string& ncu_name, const std::string& mangled) {
  if (ncu_name == mangled) return true;
  if (ncu_name.starts_with("_Z")) return false;  // both mangled and different
  const std::string ours = NormalizedSignature(DisplayKernelName(ncu_name));
  const std::string theirs = NormalizedSignature(Demangle(mangled));
  return ours == theirs || (!ours.empty() && theirs.ends_with("::" + ours));
}

}  // namespace kb
