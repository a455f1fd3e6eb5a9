// Calls a registered op through the torch dispatcher by name, the way Python
// and torch.compile reach it, so the test checks what users will run.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::harness {

using Args = std::vector<c10::IValue>;

// "<TORCH_EXTENSION_NAME>::<name>" in a kernel project's tests and benchmarks
// (the build defines the macro); just `name` elsewhere. Internal linkage, so
// translation units with and without the macro do not clash.
#define KB_HARNESS_STRINGIFY_(x) #x
#define KB_HARNESS_STRINGIFY(x) KB_HARNESS_STRINGIFY_(x)
[[maybe_unused]] static std::string ProjectOp(std::string_view name) {
#ifdef TORCH_EXTENSION_NAME
  return std::string(KB_HARNESS_STRINGIFY(TORCH_EXTENSION_NAME)) + "::" + std::string(name);
#else
  return std::string(name);
#endif
}

class OpHandle {
 public:
  // nullopt with *error (what, hint) when the name has no namespace or no
  // such op is registered.
  static std::optional<OpHandle> Find(const std::string& qualified_name, std::string* error);

  // Boxed call: every schema argument must be given. Returns the op's
  // results; throws what the op throws.
  std::vector<c10::IValue> Call(const Args& args) const;

  std::string name() const;
  // The schema's name for argument i ("out", "input"), or "arg <i>".
  std::string ArgName(std::size_t i) const;

 private:
  explicit OpHandle(c10::OperatorHandle handle) : handle_(std::move(handle)) {}
  c10::OperatorHandle handle_;
};

}  // namespace kb::harness
