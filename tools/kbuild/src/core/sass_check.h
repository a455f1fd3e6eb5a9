// What the compiled kernels do, read without a GPU: `cuobjdump -sass` counted
// per kernel (global load/store widths, local-memory loads/stores) and
// `cuobjdump -res-usage` (ptxas's registers, stack, shared and local bytes).
// kbuild profile shows it beside ncu's counters, and alone when ncu cannot run.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

struct SassFunction {
  std::string mangled;  // as cuobjdump names it
  std::string name;     // demangled (the mangled name when it does not demangle)
  std::string arch;     // "sm_90a"
  // Static instruction counts by access width in bits ("128", "64", "32", "16", "8").
  std::map<int, int> global_loads;   // LDG, LDGSTS
  std::map<int, int> global_stores;  // STG
  int local_loads = 0;               // LDL: a spilled or dynamically indexed value read back
  int local_stores = 0;              // STL
  // 16-byte vectors read an element at a time: 8 LDG.16 (or 16 LDG.8) at
  // consecutive offsets from one address register, as nvcc emits for a vector
  // bound to a reference and read element by element.
  int element_read_vectors = 0;
  // ptxas resource usage (cuobjdump -res-usage), when known.
  std::optional<int> registers;
  std::optional<int> stack_bytes;
  std::optional<int> shared_bytes;
  std::optional<int> local_bytes;
};

// Kernels of `cuobjdump -sass` output, in the order printed. A kernel compiled
// for several architectures is kept once, for the first architecture listed.
std::vector<SassFunction> ParseCuobjdumpSass(std::string_view text);

// Adds `cuobjdump -res-usage` figures to the kernels of the same mangled name;
// kernels only res-usage lists are appended.
void AddResourceUsage(std::string_view text, std::vector<SassFunction>& functions);

// "loads 2x LDG.128; stores 1x STG.128, 4x STG.16; local memory: none; 28 registers, stack 0 B"
std::string SassCheckLine(const SassFunction& function);

// Problems the SASS shows on its own: local-memory traffic, no vector access,
// vectors read an element at a time.
std::vector<std::string> SassFindings(const SassFunction& function);

nlohmann::json SassFunctionJson(const SassFunction& function);
// The inverse, for a document another kbuild wrote (kbuild optimize reads its
// child's `kbuild profile --json`): what is missing or malformed reads as
// unknown or zero, never a throw.
SassFunction SassFunctionFromJson(const nlohmann::json& object);

}  // namespace kb
