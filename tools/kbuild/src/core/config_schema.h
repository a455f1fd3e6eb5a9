// The build.toml key set kbuild accepts, per table. It follows Hugging Face
// kernel-builder's v3 schema (build2cmake/src/config/v3.rs in
// github.com/huggingface/kernels: serde structs with deny_unknown_fields and
// kebab-case names), so a project kbuild accepts also builds there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb {

enum class ValueKind { kString, kInteger, kStringArray, kTable };

// "a string", "an integer", "an array of strings", "a table".
std::string_view ValueKindName(ValueKind kind);
// How to write a value of `kind` for `key`, for "wrong type" hints.
std::string ValueKindHint(std::string_view key, ValueKind kind);

struct KeySpec {
  std::string_view key;
  ValueKind kind;
  bool required = false;
  std::string_view example = {};  // for "missing key" hints; required keys only
};

// [general], [general.hub], [general.cuda], [general.xpu], [torch].
const std::vector<KeySpec>& RootKeys();
const std::vector<KeySpec>& GeneralKeys();
const std::vector<KeySpec>& HubKeys();
const std::vector<KeySpec>& GeneralCudaKeys();
const std::vector<KeySpec>& GeneralXpuKeys();
const std::vector<KeySpec>& TorchKeys();

// [kernel.<name>] keys valid for `backend`; every backend's keys when the
// backend is unknown (so a typo in 'backend' does not also flag every key).
std::vector<KeySpec> KernelKeys(std::string_view backend);

// cpu, cuda, metal, rocm, xpu.
const std::vector<std::string>& KnownBackends();

// The names of `keys`, for "did you mean" hints.
std::vector<std::string> KeyNames(const std::vector<KeySpec>& keys);

// Backends whose [kernel.<name>] tables accept `key` ("rocm-archs" -> rocm).
std::vector<std::string> BackendsAccepting(std::string_view key);

// Value rules. Names follow kernel-builder's KernelName
// (^[a-z][-a-z0-9]*[a-z0-9]$). Kernel table names may also use '_'
// (kernel-builder's own templates do), and may be one letter long.
bool IsValidProjectName(std::string_view name);
bool IsValidKernelName(std::string_view name);
// A valid project name close to `name` ("My_Norm" -> "my-norm"), for hints.
std::string SuggestProjectName(std::string_view name);

// "9.0", "10.0", "9.0a" (arch-specific), "10.0f" (family).
bool IsCudaCapability(std::string_view text);
// "90" -> "9.0", "sm_90a" -> "9.0a", "9" -> "9.0"; empty when no guess.
std::string GuessCudaCapability(std::string_view text);
// Numbers separated by dots: "2.8", "12.4", "13".
bool IsVersionString(std::string_view text);

}  // namespace kb
