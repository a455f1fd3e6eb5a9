// Kernel names as the tools print them. cuobjdump names a kernel by its
// mangled symbol; ncu prints the mangled name when asked (--print-kernel-base
// mangled), else its own demangling, which differs from the C++ runtime's
// (`(T1 *, const T1 *)` for template parameters, `0` for `false`, `<unnamed>`
// for `(anonymous namespace)`, and from CUDA 13 no namespaces). So kernels
// are matched by mangled name, and demangled only to be shown.
#pragma once

#include <string>
#include <string_view>

namespace kb {

// "_Z3fooi" -> "foo(int)"; a name that is not an Itanium-mangled one, as it is.
std::string Demangle(const std::string& symbol);

// What to show for a kernel name ncu printed: the demangled form of a mangled
// name; ncu's own demangling with the leading '<' of "<unnamed>::" restored
// (CUDA 13's ncu drops it when it drops the namespaces before it).
std::string DisplayKernelName(const std::string& ncu_name);

// A demangled signature in one spelling, for comparing ncu's demangling with
// the runtime's: "(anonymous namespace)" -> "<unnamed>", "const T" -> "T const",
// no "void " return type, no whitespace.
std::string NormalizedSignature(std::string_view demangled);

// Whether ncu's name and cuobjdump's mangled one are the same kernel: equal
// names, or (when ncu printed a demangled name) equal normalized signatures,
// where ncu's may lack the leading namespaces. Never by base name alone: a
// template has one kernel per instantiation.
bool SameKernel(const std::string& ncu_name, const std::string& mangled);

}  // namespace kb
